"""A record's details block (`inputs.seeddetails`): read after a title, checked value by value,
merged across seeds independently of their order, and invisible to seeds that do not use it."""

from __future__ import annotations

import hashlib
from pathlib import Path

from scholarsite.errors import Severity
from scholarsite.inputs.cache import ParseCache
from scholarsite.inputs.records import NO_DETAILS, Details
from scholarsite.inputs.seeds import SeedParse, parse_seed
from scholarsite.model.model import build_model
from tests.conftest import ROOT

HEAD = (
    "arXiv subjects\n\nAda Lovelace\n\n"
    "Publications and source records attributed to Ada Lovelace.\n\n1 record\n\n"
)
DETAILS = (
    "Authors: Ada Lovelace; Charles Babbage; et al.\n"
    "Venue: Scientific Memoirs\n"
    "Type: article\n"
    "DOI: 10.1000/xyz\n"
    "URL: https://example.org/notes\n"
    "Date: 1843-09\n"
)


def parse(text: str, path: str = "seeds/ada.txt") -> SeedParse:
    """A seed's parse."""
    return parse_seed(text.encode(), path, latest_year=2027)


def record_text(
    details: str, abstract: str = "The engine weaves algebraic patterns.", subject: str = ""
) -> str:
    """A seed of one BibTeX record with the given details block."""
    return (
        HEAD
        + "BibTeX1843\n\nSketch of the Analytical Engine\n\n"
        + details
        + "\n"
        + abstract
        + "\n"
        + subject
    )


def test_a_details_block_is_read() -> None:
    result = parse(record_text(DETAILS))
    assert [d for d in result.diagnostics if d.severity is not Severity.NOTE] == []
    [record] = result.author.records  # type: ignore[union-attr]
    assert record.details == Details(
        ("Ada Lovelace", "Charles Babbage"), True, "Scientific Memoirs", "article", "10.1000/xyz",
        "https://example.org/notes", "1843-09",
    )  # fmt: skip
    assert record.abstract == "The engine weaves algebraic patterns."


def test_values_the_grammar_refuses_are_warnings_and_left_out() -> None:
    bad = "Type: poem\nDOI: not-a-doi\nURL: javascript:alert(1)\nDate: 1843-02-30\nVenue: A\nVenue: B\n"
    result = parse(record_text(bad))
    warned = sorted(
        (d.line, d.message.split(":")[0]) for d in result.diagnostics if d.severity is Severity.WARNING
    )
    assert [line for line, _ in warned] == [13, 14, 15, 16, 18]
    assert result.author.records[0].details == Details(venue="A")  # type: ignore[union-attr]


def test_without_abstract_or_subject_an_imported_record_is_one_note() -> None:
    text = HEAD.replace("1 record", "2 records") + "".join(
        f"BibTeX184{n}\n\nPaper {n}\n\nType: article\n\n" for n in (2, 3)
    )
    result = parse(text)
    assert [(d.severity, d.line, d.message) for d in result.diagnostics] == [
        (
            Severity.NOTE,
            0,
            "imported records 2 without an abstract and 2 without a subject line (their sources give none)",
        )
    ]


def test_an_arxiv_record_without_details_still_warns() -> None:
    text = HEAD + "arXiv2020\n\nA paper\n\ncs.LG↗\n"
    assert any(d.severity is Severity.WARNING and "no abstract" in d.message for d in parse(text).diagnostics)


def test_a_block_with_one_other_line_is_an_abstract_paragraph() -> None:
    text = record_text("Type: article\nwhich we study here.\n", abstract="More.")
    record = parse(text).author.records[0]  # type: ignore[union-attr]
    assert record.details == NO_DETAILS and record.abstract.startswith("Type: article which we study")


def test_shipped_seeds_have_no_details() -> None:
    for path in sorted((ROOT / "seeds").glob("*.txt")):
        result = parse_seed(path.read_bytes(), f"seeds/{path.name}", latest_year=2027)
        assert all(r.details == NO_DETAILS for r in result.author.records)  # type: ignore[union-attr]


def test_the_parse_cache_keeps_details(tmp_path: Path) -> None:
    data = record_text(DETAILS).encode()
    cache = ParseCache(tmp_path)
    result = cache.parse(data, "seeds/ada.txt", 2027)
    cache.save()
    kept = ParseCache(tmp_path).reused(
        ["seeds/ada.txt"], {"seeds/ada.txt": hashlib.sha256(data).digest()}, 2027
    )
    assert kept["seeds/ada.txt"] == result and result.author.records[0].details != NO_DETAILS  # type: ignore[union-attr]


def test_details_merge_whatever_the_order_of_seeds(tmp_path: Path) -> None:
    one = record_text("Authors: Ada Lovelace; et al.\nVenue: Memoirs\n")
    two = record_text("Authors: Ada Lovelace; Charles Babbage\nDOI: 10.1000/xyz\n").replace(
        "Ada Lovelace\n\nPublications and source records attributed to Ada Lovelace.",
        "Charles Babbage\n\nPublications and source records attributed to Charles Babbage.",
    )
    a, b = parse(one, "seeds/a.txt").author, parse(two, "seeds/b.txt").author
    b_first = parse(one, "seeds/b.txt").author, parse(two, "seeds/a.txt").author
    merged = [build_model(authors).papers[0].details for authors in ([a, b], list(b_first))]
    assert (
        merged[0]
        == merged[1]
        == Details(("Ada Lovelace", "Charles Babbage"), False, "Memoirs", doi="10.1000/xyz")
    )
