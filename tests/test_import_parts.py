"""The parts of `scholarsite import`: BibTeX fields, ORCID iDs, duplicates, sources.yaml entries
and the author page's front matter."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scholarsite.importing.author_page import with_orcid
from scholarsite.importing.found import learnt, replaceable
from scholarsite.importing.from_bibtex import arxiv_id_of, doi_of, lists_author, unprotected, year_of
from scholarsite.importing.from_orcid import BadOrcid, orcid_id, plain
from scholarsite.importing.from_orcid import arxiv_id_of as openalex_arxiv_id
from scholarsite.importing.works import Work, collapse
from scholarsite.inputs.sources import SourceEntry
from scholarsite.tex.render import tex_to_plain


@pytest.mark.parametrize(
    "bibtex, kept",
    [
        ("{BERT}: Pre-training of {D}eep Transformers", "BERT: Pre-training of Deep Transformers"),
        ("Pre{T}raining {{Nested}} Braces", "PreTraining Nested Braces"),
        (
            r"A \emph{Study} of $\mathcal{O}(n)$ and $x^{2}$",
            r"A \emph{Study} of $\mathcal{O}(n)$ and $x^{2}$",
        ),
        (r"M{\"u}ller's \textit{{Big}} Idea", r"M{\"u}ller's \textit{Big} Idea"),
        (r"Escaped \{braces\} stay", r"Escaped \{braces\} stay"),
        (r"\frac{a}{b} in text", r"\frac{a}{b} in text"),
    ],
)
def test_capital_protecting_braces_are_dropped(bibtex: str, kept: str) -> None:
    assert unprotected(bibtex) == kept


@given(st.text(alphabet="ab {}\\$^_\"'emph", max_size=30))
def test_dropping_braces_never_changes_how_a_text_reads(text: str) -> None:
    assert tex_to_plain(unprotected(text)) == tex_to_plain(text)


@pytest.mark.parametrize(
    "fields, arxiv_id",
    [
        ({"eprint": "2502.19811v2", "archiveprefix": "arXiv"}, "2502.19811"),
        ({"eprint": "hep-th/9901001", "eprinttype": "arxiv"}, "hep-th/9901001"),
        ({"eprint": "12345", "archiveprefix": "PubMed"}, ""),
        ({"journal": "arXiv preprint arXiv:2403.04444"}, "2403.04444"),
        ({"url": "https://arxiv.org/abs/2301.00001v3"}, "2301.00001"),
        ({"doi": "10.48550/arXiv.2410.05555"}, "2410.05555"),
        ({"journal": "Nature"}, ""),
    ],
)
def test_arxiv_ids_of_bibtex_entries(fields: dict[str, str], arxiv_id: str) -> None:
    assert arxiv_id_of(fields) == arxiv_id


def test_dois_and_years_of_bibtex_entries() -> None:
    assert doi_of({"doi": "https://doi.org/10.1145/3620666.3651379"}) == "10.1145/3620666.3651379"
    assert doi_of({"doi": "doi: 10.1000/xyz"}) == "10.1000/xyz" and doi_of({"doi": "not one"}) == ""
    assert year_of({"year": "{2023}"}, "") == 2023 and year_of({"date": "2021-05-04"}, "") == 2021
    assert year_of({}, "2403.04444") == 2024 and year_of({}, "hep-th/9901001") == 0


def test_an_author_is_found_in_full_or_by_initials() -> None:
    assert lists_author(("Ada Lovelace", "Z. Jiang"), "Ziheng Jiang")
    assert lists_author(("Ziheng JIANG",), "Ziheng Jiang") and lists_author(("Tomás Silva",), "Tomas Silva")
    assert not lists_author(("Zhen Jiang Li",), "Ziheng Jiang") and not lists_author(
        ("X. Jiang",), "Ziheng Jiang"
    )


@pytest.mark.parametrize(
    "text", ["0000-0002-1825-0097", "https://orcid.org/0000-0002-1825-0097", " orcid.org/0000-0002-1825-0097"]
)
def test_orcid_ids(text: str) -> None:
    assert orcid_id(text) == "0000-0002-1825-0097"


@pytest.mark.parametrize(
    "text", ["0000-0002-1825-0098", "0000-0002-1825", "https://example.org/0000-0002-1825-0097"]
)
def test_bad_orcid_ids(text: str) -> None:
    with pytest.raises(BadOrcid):
        orcid_id(text)


def test_openalex_titles_and_arxiv_locations() -> None:
    assert plain("Scaling <i>Sparse</i> H<sub>2</sub>O &amp; Memory") == "Scaling Sparse H2O & Memory"
    assert plain("a &lt;i&gt; b") == "a <i> b" and plain(None) == ""
    on_arxiv = {
        "locations": [
            {"landing_page_url": "https://doi.org/x"},
            {"pdf_url": "http://arxiv.org/pdf/2502.19811v2"},
        ]
    }
    assert openalex_arxiv_id(on_arxiv) == "2502.19811"
    assert openalex_arxiv_id({"doi": "https://doi.org/10.48550/arxiv.2301.00001"}) == "2301.00001"
    assert openalex_arxiv_id({"doi": "https://doi.org/10.1145/1", "primary_location": None}) == ""


def test_a_preprint_and_its_published_version_are_one_paper() -> None:
    preprint = Work(
        "Comet: Overlapping", 2024, "arXiv", abstract="A.", subjects=("cs.DC",), arxiv_id="2402.00001"
    )
    published = Work("COMET — overlapping", 2025, "BibTeX", doi="10.1/x", journal_ref="MLSys")
    other = Work("Comet: Overlapping", 2019, "BibTeX")
    kept, dropped = collapse([published, preprint, other])
    assert [w.year for w in kept] == [2024, 2019]
    assert (kept[0].arxiv_id, kept[0].doi, kept[0].journal_ref, kept[0].source) == (
        "2402.00001",
        "10.1/x",
        "MLSys",
        "arXiv",
    )
    assert dropped == [(kept[0], published)]
    same_doi = Work("Another Title Entirely", 2030, "OpenAlex", doi="10.1/X")
    assert len(collapse([published, same_doi])[0]) == 1  # DOIs compare without case


def test_sources_entries_never_overwrite_what_was_decided() -> None:
    work = Work("T", 2020, "arXiv", arxiv_id="2001.00001", subjects=("cs.LG",), version=2)
    assert replaceable(None, work) and replaceable(SourceEntry("unknown"), work)
    assert replaceable(SourceEntry("ambiguous"), work) and replaceable(SourceEntry("not-found"), work)
    assert not replaceable(SourceEntry("found", arxiv_id="2001.00002"), work)
    assert not replaceable(SourceEntry("unknown", locked=True), work)
    assert not replaceable(SourceEntry("not-found", arxiv_id="2001.00001"), work)  # rejected by hand
    entries = learnt({"2020/t": (work, "T"), "2020/u": (Work("U", 2020, "BibTeX"), "U")}, {}, "2026-07-01")
    assert list(entries) == ["2020/t"]  # U has no identifier
    assert (entries["2020/t"].primary_category, entries["2020/t"].version) == ("cs.LG", 2)


@pytest.mark.parametrize(
    "page, written",
    [
        (None, '---\norcid: "0000-0002-1825-0097"\n---\n'),
        ("A bio.\n", '---\norcid: "0000-0002-1825-0097"\n---\nA bio.\n'),
        (
            "---\r\nhomepage: https://x.org\r\n---\r\nBio\r\n",
            '---\r\norcid: "0000-0002-1825-0097"\r\nhomepage: https://x.org\r\n---\r\nBio\r\n',
        ),
        ("---\norcid: 0000-0002-1825-0097\n---\n", None),
    ],
)
def test_the_orcid_in_the_front_matter(page: str | None, written: str | None) -> None:
    assert with_orcid(page, "0000-0002-1825-0097", "content/authors/x.md")[0] == written


def test_another_orcid_is_kept_and_said() -> None:
    changed, note = with_orcid("---\norcid: 0000-0001-5109-3700\n---\n", "0000-0002-1825-0097", "x.md")
    assert (
        changed is None
        and note == "x.md has the ORCID 0000-0001-5109-3700, not 0000-0002-1825-0097: left as it is"
    )
