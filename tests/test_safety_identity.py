"""Identity is safe from invisible characters and look-alikes; records that run together are
reported. Issue 17, items 9 and 10."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from scholarsite import pipeline
from scholarsite.inputs.seeds import SeedParse, parse_seed, read_seeds
from scholarsite.inputs.unicode import DEFAULT_IGNORABLE, mixed_script_words, normalise, strip_ignorable
from scholarsite.model.identity import slug_for
from scholarsite.model.model import Site, build_model
from scholarsite.outputs.citations import make_citation_keys

ROOT = Path(__file__).resolve().parent.parent
LATEST = 2027
TITLE = "Graph Learning at Scale"

INVISIBLE = {
    "zero-width space": "\u200b",
    "soft hyphen": "\u00ad",
    "byte-order mark": "\ufeff",
    "right-to-left override": "\u202e",
    "left-to-right mark": "\u200e",
    "first strong isolate": "\u2068",
    "zero-width joiner": "\u200d",
    "word joiner": "\u2060",
    "variation selector": "\ufe0f",
}


def seed(name: str = "Ada Lovelace", title: str = TITLE, attributed: str | None = None) -> str:
    """A one-record seed: name at line 3, record at 9, title at 11, abstract 13, subjects 15."""
    return f"""arXiv subjects

{name}

Publications and source records attributed to {attributed or name}.

At least 1 recordsLinked to original sources

arXiv2025

{title}

We learn on very large graphs.

cs.LG↗
"""


def parse(text: str, path: str = "seeds/a.txt") -> SeedParse:
    """Parse text as a seed file."""
    return parse_seed(text.encode("utf-8"), path, latest_year=LATEST)


def model(*texts: str) -> Site:
    """The model of several seeds, each in its own file; every seed must parse."""
    parses = [parse(text, f"seeds/{index}.txt") for index, text in enumerate(texts)]
    assert all(p.author is not None for p in parses), [p.diagnostics for p in parses]
    return build_model(p.author for p in parses if p.author is not None)


def warnings(result: SeedParse) -> list[tuple[str, int, str]]:
    """(path, line, message) of each warning."""
    return [(d.path, d.line, d.message) for d in result.diagnostics if d.severity.value == "warning"]


# Item 9: invisible characters -----------------------------------------------------------------


@pytest.mark.parametrize("char", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_titles_differing_by_an_invisible_character_are_one_paper(char: str) -> None:
    site = model(seed(), seed("Charles Babbage", f"Graph Lear{char}ning at Scale"))
    assert len(site.papers) == 1
    paper = site.papers[0]
    assert paper.slug == "graph-learning-at-scale"
    assert {a.name for a in paper.authors} == {"Ada Lovelace", "Charles Babbage"}


@pytest.mark.parametrize("char", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_author_names_differing_by_an_invisible_character_are_one_author(char: str) -> None:
    hidden = f"Ada Love{char}lace"
    parsed = parse(seed(hidden, attributed="Ada Lovelace"))
    assert parsed.diagnostics == ()  # the 'attributed to' line agrees with the name
    site = model(seed(), seed(hidden, "Another Paper"))
    assert len(site.authors) == 1
    assert site.authors[0].slug == "ada-lovelace"
    assert len(site.authors[0].papers) == 2


def test_a_build_makes_one_page_for_titles_differing_by_a_zero_width_space(tmp_path: Path) -> None:
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "ada.txt").write_text(seed())
    (tmp_path / "seeds" / "charles.txt").write_text(seed("Charles Babbage", "Graph Lear\u200bning at Scale"))
    (tmp_path / "site.yaml").write_text("title: Test records\n")
    result = pipeline.build(tmp_path, workers=1)
    assert not [d for d in result.diagnostics if d.severity.value != "note"]
    assert sorted(p.name for p in (tmp_path / "site" / "papers" / "2025").iterdir()) == [
        "graph-learning-at-scale"
    ]


IGNORABLES = st.sampled_from([chr(a) for a, _ in DEFAULT_IGNORABLE] + [chr(b) for _, b in DEFAULT_IGNORABLE])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=8), st.lists(IGNORABLES, max_size=3)), max_size=12))
def test_inserting_invisible_characters_never_changes_identity(pieces: list[tuple[str, list[str]]]) -> None:
    plain = "".join(text for text, _ in pieces)
    hidden = "".join(text + "".join(chars) for text, chars in pieces)
    assert normalise(hidden) == normalise(plain)
    assert slug_for(normalise(hidden)) == slug_for(normalise(plain))
    assert mixed_script_words(hidden) == mixed_script_words(plain)


def test_the_table_is_unicodes_default_ignorable_property() -> None:
    regex = pytest.importorskip("regex")
    ignorable = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    expected = "".join(chr(cp) for cp in range(0x110000) if ignorable.match(chr(cp)))
    everything = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
    assert len(everything) - len(strip_ignorable(everything)) == len(expected)
    assert strip_ignorable(expected) == ""


# Item 9: look-alike letters from another script -------------------------------------------------


def test_a_cyrillic_look_alike_in_a_title_is_a_warning_at_its_line() -> None:
    result = parse(seed(title="Gr\u0430ph Learning at Scale"))  # U+0430 CYRILLIC SMALL LETTER A
    assert warnings(result) == [
        (
            "seeds/a.txt",
            11,
            "the word 'Gr\u0430ph' mixes Latin and Cyrillic letters; "
            "a look-alike character may make this a different paper",
        )
    ]
    assert "U+0430 CYRILLIC SMALL LETTER A" in result.diagnostics[0].hint


def test_a_look_alike_in_a_name_is_a_warning_at_the_name_line() -> None:
    result = parse(seed("\u0410da Lovelace"))  # U+0410 CYRILLIC CAPITAL LETTER A
    assert [(line, message) for _, line, message in warnings(result)] == [
        (
            3,
            "the word '\u0410da' mixes Cyrillic and Latin letters; "
            "a look-alike character may make this a different author",
        )
    ]
    assert "U+0410 CYRILLIC CAPITAL LETTER A" in result.diagnostics[0].hint


def test_a_look_alike_hidden_behind_an_invisible_character_is_still_found() -> None:
    result = parse(seed(title="Gr\u200b\u0430ph Learning at Scale"))
    assert [line for _, line, _ in warnings(result)] == [11]


@pytest.mark.parametrize(
    "title",
    [
        "\u03bcTransfer: Tuning Large Neural Networks",  # a Greek prefix is a naming convention
        "Net\u03b2 and \u03b1-divergences",
        "\u041c\u0438\u0440 and Mir",  # each word in one script
        "\u5927\u898f\u6a21\u8a00\u8a9e\u30e2\u30c7\u30ebLLM\u306e\u8a55\u4fa1",  # Japanese with Latin
        "Caf\u00e9 Graphs with 2 Layers",
    ],
)
def test_words_in_one_script_or_usual_mixes_are_not_warned_about(title: str) -> None:
    assert warnings(parse(seed(title=title))) == []


def test_a_greek_letter_inside_a_latin_word_is_a_warning() -> None:
    assert mixed_script_words("Gr\u03b1ph") == [("Gr\u03b1ph", ("LATIN", "GREEK"))]


# Item 10: records that run together -----------------------------------------------------------

RUN_TOGETHER_HEAD = """arXiv subjects

Ada Lovelace

Publications and source records attributed to Ada Lovelace.

At least 2 recordsLinked to original sources

arXiv2025

Comet: Fine-grained Overlapping for Mixture-of-Experts

"""
# lines 13 onwards follow
RUN_TOGETHER_TAIL = """
FLUX: Fast Software-based Communication Overlap

Fused kernels hide communication.

cs.LG↗
"""


@pytest.mark.parametrize(
    ("middle", "line"),
    [
        ("We study overlap.\nMore of the abstract.\narXiv2024\n", 15),  # no subject line, no blank
        ("We study overlap.\n\ncs.DC↗\narXiv2024\n", 16),  # appended right after the subject line
    ],
    ids=["after-abstract", "after-subject-line"],
)
def test_a_record_ending_a_block_is_a_warning_at_its_source_line(middle: str, line: int) -> None:
    result = parse(RUN_TOGETHER_HEAD + middle + RUN_TOGETHER_TAIL)
    assert [(d.line, d.message) for d in result.diagnostics] == [
        (
            line,
            "'arXiv2024' reads as the start of a record inside an abstract; "
            "a blank line may be missing before this record",
        )
    ]
    assert result.author is not None and len(result.author.records) == 1  # the grammar is unchanged


def test_a_record_inside_a_block_is_a_warning_at_its_source_line() -> None:
    middle = "We study overlap.\n\ncs.DC↗\narXiv2024\nFLUX: Fast Software-based Communication Overlap\n"
    tail = "\nFused kernels hide communication.\n\ncs.LG↗\n"
    result = parse(RUN_TOGETHER_HEAD + middle + tail)
    assert [(d.line, d.severity.value) for d in result.diagnostics] == [(16, "warning")]
    assert "a blank line may be missing before this record" in result.diagnostics[0].message


@pytest.mark.parametrize(
    "middle",
    [
        "We improve\nresults in 2023\nand beyond.\n",  # a phrase, not a source-and-year line
        "A hard-wrapped abstract\nover two lines.\n",
        "We study overlap.\narXiv2024\n\ncs.DC↗\n",  # followed by a subject line, not a title
    ],
)
def test_wrapped_abstracts_are_not_reported(middle: str) -> None:
    tail = "\narXiv2024\n\nFLUX\n\nFused kernels.\n\ncs.LG↗\n"
    text = RUN_TOGETHER_HEAD + middle + ("" if "cs.DC" in middle else "\ncs.DC↗\n") + tail
    result = parse(text)
    assert result.diagnostics == ()
    assert result.author is not None and len(result.author.records) == 2


# The shipped seeds --------------------------------------------------------------------------


def test_shipped_seeds_have_no_new_warnings_and_keep_their_paper_keys() -> None:
    parses, _ = read_seeds(
        ROOT / "seeds", "seeds", lambda data, path: parse_seed(data, path, latest_year=LATEST)
    )
    assert [d for p in parses for d in p.diagnostics if d.severity.value != "note"] == []
    site = build_model(p.author for p in parses if p.author is not None)
    shipped = yaml.safe_load((ROOT / "tests" / "data" / "sources-shipped.yaml").read_text())
    keys = {p.key for p in site.papers}
    assert set(shipped["papers"]) == keys  # 30 keys written by the code before this change
    for paper in site.papers:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", paper.slug)
        assert strip_ignorable(paper.title) == paper.title


def test_abstracts_differing_by_an_invisible_character_are_one_paper_in_one_seed() -> None:
    second = f"\narXiv2025\n\n{TITLE}\n\nWe learn on very large gr\u200baphs.\n\ncs.LG↗\n"
    assert len(model(seed() + second).papers) == 1  # not two variants of one title


def test_citation_keys_ignore_invisible_characters() -> None:
    hidden = make_citation_keys([("Ada Love\u200blace", 2025, "Gr\u200baph Learning at Scale")])
    assert hidden == make_citation_keys([("Ada Lovelace", 2025, TITLE)]) == ["lovelace2025graph"]
