"""`scholarsite import`: seed files from an arXiv author query, an ORCID iD (through OpenAlex)
or a BibTeX file.

Each source module (`from_arxiv`, `from_orcid`, `from_bibtex`) turns what its source knows
into `works.Work`s; `seedtext` writes them as seed text that parses back to the same records;
`found` turns the identifiers learnt into `sources.yaml` entries and `author_page` records an
ORCID iD in the author's page. The command itself is `scholarsite.commands.importer`.
"""
