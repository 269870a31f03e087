"""Citation exports checked with real parsers: bibtexparser, rispy, the CSL-JSON schema, citeproc-py."""

from __future__ import annotations

import html
import json
import re
import unicodedata
from dataclasses import replace
from pathlib import Path

import bibtexparser
import jsonschema
import pytest
import rispy
from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts
from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON
from hypothesis import given, settings
from hypothesis import strategies as st

from scholarsite.inputs.seeds import parse_seed
from scholarsite.outputs import downloads
from scholarsite.outputs.citations import (
    INCOMPLETE_NOTE,
    CitationRecord,
    PersonName,
    csl_json_file,
    make_citation_keys,
    split_name,
    to_bibtex,
    to_csl_json,
    to_ris,
)
from scholarsite.outputs.seo import json_script
from scholarsite.tex.mathspans import remove_forbidden_chars
from scholarsite.tex.render import tex_to_plain

CSL_SCHEMA = json.loads((Path(__file__).parent / "data" / "csl-data.json").read_text())
CSL_VALIDATOR = jsonschema.Draft3Validator(CSL_SCHEMA)

COMET = CitationRecord(
    key="jiang2025comet",
    title_tex="Comet: Fine-grained Computation-communication Overlapping for Mixture-of-Experts",
    title_plain="Comet: Fine-grained Computation-communication Overlapping for Mixture-of-Experts",
    authors=("Ziheng Jiang", "Ningxin Zheng"),
    year=2025,
    source="arXiv",
    subjects=("cs.DC", "cs.LG"),
    abstract_plain="Mixture-of-experts (MoE) has been extensively utilized to scale large models.",
    url="https://example.org/papers/comet/",
)
TRICKY = CitationRecord(
    key="berg2024alphanet",
    title_tex=r"$\alpha$-Net: 50% of \textit{R&D} costs {\"o} $x_{1}$ #1 ~ a^b \& done",
    title_plain="α-Net: 50% of R&D costs ö x1 #1 ~ a^b & done",
    authors=("Jan van der Berg", "Plato", "Martin Luther King Jr.", "Zoë Ångström"),
    year=2024,
    source="arXiv",
    subjects=("cs.LG",),
    abstract_plain="Costs {fell} by 50% & more_than $5 \\ with ~ and ^ #tags.\nSecond line.",
    url="https://example.org/p/α b{c}",
)

# Inverse of the plain-text escaping, for checking that field values round-trip.
_UNESCAPES = {
    r"\textbackslash{}": "\\",
    r"\textbraceleft{}": "{",
    r"\textbraceright{}": "}",
    r"\textasciitilde{}": "~",
    r"\textasciicircum{}": "^",
    r"\&": "&",
    r"\%": "%",
    r"\$": "$",
    r"\#": "#",
    r"\_": "_",
}
_UNESCAPE = re.compile("|".join(re.escape(s) for s in sorted(_UNESCAPES, key=len, reverse=True)))

TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("&<>%_{}$\\~^#@\"',;=\n\t aAzZ09") + ["é", "ü", "α", "中", "\u0301"]),
        st.characters(exclude_categories=("Cs",)),
    ),
    max_size=60,
)


def unescape(value: str) -> str:
    """Undo the BibTeX escaping of plain text."""
    return _UNESCAPE.sub(lambda m: _UNESCAPES[m.group()], value)


def one_line(text: str) -> str:
    """What the exporters do to whitespace."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def parse_bibtex(text: str) -> bibtexparser.Library:
    """Parse BibTeX and insist that every block parsed."""
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    return library


def braces_balance(value: str) -> bool:
    """BibTeX counts every brace, escaped or not."""
    depth = 0
    for char in value:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("Ziheng Jiang", PersonName("Ziheng", "", "Jiang", "")),
        ("  Ziheng\n Jiang ", PersonName("Ziheng", "", "Jiang", "")),
        ("Jan van der Berg", PersonName("Jan", "van der", "Berg", "")),
        ("Ludwig van Beethoven", PersonName("Ludwig", "van", "Beethoven", "")),
        ("Plato", PersonName("", "", "Plato", "")),
        ("Martin Luther King Jr.", PersonName("Martin Luther", "", "King", "Jr.")),
        ("Jiang, Ziheng", PersonName("Ziheng", "", "Jiang", "")),
        ("de la Cruz, Maria", PersonName("Maria", "de la", "Cruz", "")),
        ("Anna De", PersonName("Anna", "", "De", "")),
        ("Wei Da Chen", PersonName("Wei Da", "", "Chen", "")),
    ],
)
def test_split_name(name: str, parts: PersonName) -> None:
    assert split_name(name) == parts


def test_keys_follow_the_usual_pattern() -> None:
    items = [
        ("Ziheng Jiang", 2025, "Comet: Fine-grained Computation-communication Overlapping"),
        ("Jan van der Berg", 2024, "The α-Net of Things"),
        ("Zoë Ångström", 2023, "On the 3 Äpfel"),
        ("", 2022, ""),
    ]
    assert make_citation_keys(items) == [
        "jiang2025comet",
        "berg2024net",
        "angstrom2023apfel",
        "anon2022",
    ]


def test_clashing_keys_get_letter_suffixes_in_input_order() -> None:
    items = [
        ("Ziheng Jiang", 2025, "Comet one"),
        ("Ziheng Jiang", 2025, "Cometa"),
        ("Ziheng Jiang", 2025, "Comet two"),
        ("Ziheng Jiang", 2025, "Comet three"),
    ]
    # "jiang2025cometa" belongs to the unclashing item, so the suffixes skip it.
    assert make_citation_keys(items) == [
        "jiang2025cometb",
        "jiang2025cometa",
        "jiang2025cometc",
        "jiang2025cometd",
    ]


def test_many_clashes_run_past_z() -> None:
    keys = make_citation_keys([("A Lee", 2020, "Same")] * 28)
    assert keys[0] == "lee2020samea" and keys[25] == "lee2020samez"
    assert keys[26:] == ["lee2020sameaa", "lee2020sameab"]


ITEMS = st.lists(
    st.tuples(
        st.sampled_from(["Ziheng Jiang", "Ningxin Zheng", "Jan van der Berg", "Zoë Ångström", "中文"]),
        st.integers(2020, 2022),
        st.one_of(st.sampled_from(["Comet", "Cometa", "The Comet", "FLUX", ""]), TEXT),
    ),
    max_size=40,
)


@given(ITEMS)
def test_keys_are_unique_ascii_and_stable(items: list[tuple[str, int, str]]) -> None:
    keys = make_citation_keys(items)
    assert len(set(keys)) == len(keys)
    assert all(re.fullmatch(r"[a-z0-9]+", key) for key in keys)
    assert make_citation_keys(items) == keys
    alone = [make_citation_keys([item])[0] for item in items]
    for key, own in zip(keys, alone, strict=True):
        assert key.startswith(own)
        if alone.count(own) == 1:
            assert key == own


def test_bibtex_entry_parses_and_round_trips() -> None:
    entry = parse_bibtex(to_bibtex(COMET)).entries[0]
    assert entry.entry_type == "misc"
    assert entry.key == "jiang2025comet"
    fields = entry.fields_dict
    assert fields["title"].value == "{" + COMET.title_tex + "}"
    assert fields["author"].value == "Jiang, Ziheng and Zheng, Ningxin and others"
    assert fields["year"].value == "2025"
    assert fields["archivePrefix"].value == "arXiv"
    assert fields["primaryClass"].value == "cs.DC"
    assert fields["howpublished"].value == "arXiv preprint"
    assert fields["url"].value == COMET.url
    assert unescape(fields["abstract"].value) == COMET.abstract_plain


def test_bibtex_escapes_plain_text_and_keeps_tex_math() -> None:
    text = to_bibtex(TRICKY)
    fields = parse_bibtex(text).entries[0].fields_dict
    title = fields["title"].value
    assert title.startswith('{$\\alpha$-Net: 50\\% of \\textit{R\\&D} costs {\\"o} $x_{1}$ \\#1')
    assert title.endswith("a\\textasciicircum{}b \\& done}")
    assert braces_balance(title)
    assert unescape(fields["abstract"].value) == one_line(TRICKY.abstract_plain)
    assert fields["url"].value == "https://example.org/p/%CE%B1%20b%7Bc%7D"
    assert all(line.startswith(("@misc{", "  ")) or line == "}" for line in text.splitlines()), (
        "a field value broke onto a new line"
    )


@pytest.mark.parametrize(
    ("title_tex", "title"),
    [
        (r"Bounds \(O(n^2)\)", r"Bounds $O(n^2)$"),
        ("On $$x$$ and \\[y\\]", "On $x$ and $y$"),
        (
            r"\textit{Deep} {BERT} for \'etudes, $\lambda$ and \lambda",
            r"\textit{Deep} {BERT} for \'etudes, $\lambda$ and \ensuremath{\lambda}",
        ),
        (
            r"Code: \href{https://x.org/a_b}{here} \ours{} \tit{x}",
            r"Code: \href{https://x.org/a_b}{here} ours x",
        ),
        ("light--matter ``quoted''", "light--matter ``quoted''"),
    ],
)
def test_bibtex_title_follows_the_page(title_tex: str, title: str) -> None:
    rec = CitationRecord("k", title_tex, tex_to_plain(title_tex), ("A B",), 2020, "arXiv", (), "", None)
    assert parse_bibtex(to_bibtex(rec)).entries[0].fields_dict["title"].value == "{" + title + "}"


SEEDS = sorted((Path(__file__).resolve().parents[1] / "seeds").glob("*.txt"))


@pytest.mark.parametrize("seed", SEEDS, ids=lambda path: path.name)
def test_bibtex_of_every_seed_title_parses(seed: Path) -> None:
    author = parse_seed(seed.read_bytes(), seed.name, latest_year=2100).author
    assert author is not None and author.records
    for record in author.records:
        rec = CitationRecord(
            "k", record.title, tex_to_plain(record.title), (author.name,), 2020, "arXiv", (), "", None
        )
        title = parse_bibtex(to_bibtex(rec)).entries[0].fields_dict["title"].value
        assert braces_balance(title), record.title
        assert "\\textbackslash" not in title or "\\textbackslash" in record.title, (record.title, title)


def test_bibtex_authors_split_into_names_ending_with_others() -> None:
    library = bibtexparser.parse_string(
        to_bibtex(TRICKY), append_middleware=[SeparateCoAuthors(), SplitNameParts()]
    )
    names = library.entries[0].fields_dict["author"].value
    assert [(n.first, n.von, n.last, n.jr) for n in names] == [
        (["Jan"], ["van", "der"], ["Berg"], []),
        ([], [], ["{Plato}"], []),
        (["Martin", "Luther"], [], ["King"], ["Jr."]),
        (["Zoë"], [], ["Ångström"], []),
        ([], [], ["others"], []),
    ]


def test_bibtex_protects_and_inside_a_name() -> None:
    rec = CitationRecord("k", "T", "T", ("Tom and Jerry",), 2020, "arXiv", (), "", None)
    library = bibtexparser.parse_string(to_bibtex(rec), append_middleware=[SeparateCoAuthors()])
    assert library.entries[0].fields_dict["author"].value == ["Jerry, Tom {and}", "others"]


def test_non_arxiv_source_has_no_arxiv_fields() -> None:
    rec = CitationRecord("k", "T", "T", ("A B",), 2020, "OpenReview", ("cs.LG",), "", None)
    fields = parse_bibtex(to_bibtex(rec)).entries[0].fields_dict
    assert fields["howpublished"].value == "OpenReview"
    assert "archivePrefix" not in fields and "primaryClass" not in fields
    assert "url" not in fields and "abstract" not in fields


@settings(max_examples=300)
@given(title=TEXT, abstract=TEXT)
def test_any_title_and_abstract_give_parseable_bibtex(title: str, abstract: str) -> None:
    rec = CitationRecord("key1", title, title, ("Ann Example",), 2020, "arXiv", (), abstract, None)
    library = parse_bibtex(to_bibtex(rec))
    assert len(library.entries) == 1
    fields = library.entries[0].fields_dict
    assert braces_balance(fields["title"].value)
    if not set(title) & set("$\\{}"):  # control characters are dropped, as on the page
        # compared as NFC: a control character dropped from between a letter and its accent
        # leaves them apart, which is the same text
        title_shown = unicodedata.normalize("NFC", unescape(fields["title"].value[1:-1]))
        assert title_shown == one_line(remove_forbidden_chars(one_line(title)))
    if abstract.strip():
        assert unescape(fields["abstract"].value) == one_line(abstract)


def test_ris_parses_with_rispy() -> None:
    (record,) = rispy.loads(to_ris(TRICKY))
    assert record["type_of_reference"] == "GEN"
    assert record["id"] == "berg2024alphanet"
    assert record["title"] == TRICKY.title_plain
    assert record["authors"] == [
        "van der Berg, Jan",
        "Plato",
        "King, Martin Luther, Jr.",
        "Ångström, Zoë",
    ]
    assert record["year"] == "2024"
    assert record["keywords"] == ["cs.LG"]
    assert record["abstract"] == one_line(TRICKY.abstract_plain)
    assert record["urls"] == ["https://example.org/p/%CE%B1%20b%7Bc%7D"]
    assert record["notes"] == [INCOMPLETE_NOTE]
    assert record["name_of_database"] == "arXiv"


@given(title=TEXT.filter(str.strip), abstract=TEXT.filter(str.strip))
def test_any_text_gives_one_ris_record(title: str, abstract: str) -> None:
    rec = CitationRecord("k", title, title, ("Ann Example",), 2020, "arXiv", (), abstract, None)
    (record,) = rispy.loads(to_ris(rec))
    assert record["title"] == one_line(title)
    assert record["abstract"] == one_line(abstract)


def test_csl_json_is_valid_against_the_official_schema() -> None:
    for rec in (COMET, TRICKY):
        errors = [e.message for e in CSL_VALIDATOR.iter_errors([to_csl_json(rec)])]
        assert errors == []


def test_csl_json_content() -> None:
    item = to_csl_json(TRICKY)
    assert item["id"] == "berg2024alphanet"
    assert item["type"] == "article"
    assert item["genre"] == "Preprint"
    assert item["title"] == TRICKY.title_plain
    assert item["author"][0] == {
        "family": "Berg",
        "given": "Jan",
        "non-dropping-particle": "van der",
    }
    assert item["author"][1] == {"family": "Plato"}
    assert item["author"][2] == {"family": "King", "given": "Martin Luther", "suffix": "Jr."}
    assert item["issued"] == {"date-parts": [[2024]]}
    assert item["note"] == INCOMPLETE_NOTE
    assert item["keyword"] == "cs.LG"


def test_csl_json_file_is_a_valid_array() -> None:
    items = json.loads(csl_json_file([COMET, TRICKY]))
    assert [item["id"] for item in items] == ["jiang2025comet", "berg2024alphanet"]
    assert list(CSL_VALIDATOR.iter_errors(items)) == []


def test_csl_json_renders_with_citeproc() -> None:
    source = CiteProcJSON([to_csl_json(COMET)])
    style = CitationStylesStyle("harvard-cite-them-right", validate=True)
    bibliography = CitationStylesBibliography(style, source, formatter.plain)
    bibliography.register(Citation([CitationItem("jiang2025comet")]))
    (text,) = [str(entry) for entry in bibliography.bibliography()]
    assert text.startswith("Jiang, Z. and Zheng, N. (2025)")
    assert "Comet: Fine-grained" in text and "arXiv" in text and COMET.url in text


@given(title=TEXT, abstract=TEXT, name=TEXT)
def test_any_text_gives_schema_valid_csl_json(title: str, abstract: str, name: str) -> None:
    rec = CitationRecord("k", title, title, (name,), 2020, "arXiv", ("cs.LG",), abstract, None)
    item = to_csl_json(rec)
    assert list(CSL_VALIDATOR.iter_errors(json.loads(json.dumps([item])))) == []


KINDED = [
    ("article", "@article", "journal", "JOUR", "article-journal", "container-title"),
    ("conference paper", "@inproceedings", "booktitle", "CPAPER", "paper-conference", "container-title"),
    ("PhD thesis", "@phdthesis", "school", "THES", "thesis", "publisher"),
    ("master's thesis", "@mastersthesis", "school", "THES", "thesis", "publisher"),
    ("chapter", "@incollection", "booktitle", "CHAP", "chapter", "container-title"),
    ("report", "@techreport", "institution", "RPRT", "report", "container-title"),
]


@pytest.mark.parametrize(("kind", "entry", "field", "ris", "csl", "csl_field"), KINDED)
def test_a_paper_is_cited_as_its_type_with_its_venue(
    kind: str, entry: str, field: str, ris: str, csl: str, csl_field: str
) -> None:
    """Issue 28: `@article{..., journal = ...}`, `@inproceedings{..., booktitle = ...}`; the
    seed's source (BibTeX) is no publisher; a complete list has no `and others`."""
    rec = CitationRecord(
        "k", "T", "T", ("Ada Lovelace",), 2018, "BibTeX", (), "", None, True,
        published="2018-06", kind=kind, venue="Proc. Things",
    )  # fmt: skip
    bibtex = to_bibtex(rec)
    assert bibtex.startswith(entry + "{k,") and "howpublished" not in bibtex and "others" not in bibtex
    fields = parse_bibtex(bibtex).entries[0].fields_dict
    assert fields[field].value == "Proc. Things" and fields["month"].value == "jun"
    record = rispy.loads(to_ris(rec))[0]
    assert record["type_of_reference"] == ris and "name_of_database" not in record
    item = to_csl_json(rec)
    assert item["type"] == csl and item[csl_field] == "Proc. Things" and "note" not in item
    assert item["issued"] == {"date-parts": [[2018, 6]]}
    assert list(CSL_VALIDATOR.iter_errors([item])) == []
    if csl_field != "publisher":
        assert "publisher" not in item


def test_an_unknown_type_from_an_import_is_a_plain_misc() -> None:
    rec = CitationRecord("k", "T", "T", ("A B",), 2020, "OpenAlex", (), "", None, True)
    assert to_bibtex(rec).startswith("@misc{k,") and "howpublished" not in to_bibtex(rec)
    assert to_csl_json(rec)["type"] == "article" and "publisher" not in to_csl_json(rec)


@settings(max_examples=200)
@given(title=TEXT, abstract=TEXT, shown=st.sampled_from(["same", "other", "none"]))
def test_the_page_data_makes_the_ris_and_csl_text(title: str, abstract: str, shown: str) -> None:
    """As `assets/cite.js` makes them (the browser test runs the script itself): from the data,
    the abstract shown (its text read from the page when it is the abstract's), the title and
    canonical URL of the page."""
    page = {"bibtex": "", "title": title or "x", "canonical": "https://example.org/p/"}
    for rec in (
        CitationRecord(
            "k", title, title or "x", ("Ann Example",), 2020, "arXiv", (), abstract, page["canonical"]
        ),
        replace(TRICKY, abstract_plain=abstract),
    ):
        text = one_line(abstract) if abstract.strip() else ""
        page["abstract"] = {"same": html.escape(text), "other": "<p>x</p>", "none": ""}[shown]
        data = json.loads(
            json_script(downloads.page_data(rec, page["abstract"], page["title"], page["canonical"]))
        )
        made = downloads.texts(data, page)
        assert made["ris"] == to_ris(rec)
        assert made["json"] == csl_json_file([rec])
        assert ("abstract" in data) == (not text or downloads.page_text(page["abstract"]) != text)
