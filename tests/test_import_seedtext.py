"""Seed text written by `scholarsite import` parses back to exactly the records meant."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scholarsite.errors import Severity
from scholarsite.importing.seedtext import (
    NotWritable,
    appended,
    essence,
    new_seed,
    one_line,
    record_of,
    verified,
)
from scholarsite.importing.works import Work
from scholarsite.inputs.seeds import SeedRecord, parse_seed
from tests.conftest import ROOT

LATEST = 2027
CODES = ["cs.DC", "cs.LG", "quant-ph", "math.CO", "hep-th", "cs.XY", "68T05", "I.2.7", "math.IT"]
# Text with what trips the reader: blank lines, arrows, codes, source-and-year lines, controls,
# odd spaces, look-alikes, TeX.
TRICKY = st.sampled_from(
    [
        "\n\n",
        "\n",
        "↗",
        "cs.LG",
        "arXiv2023",
        "OpenAlex 2020",
        "BibTeX1999",
        "\r\n\r\n",
        "\x0b",
        "\x85",
        "\u2028",
    ]
    + ["\u00a0", "\ufeff", "а", "$x^2$", "{", "}", "\\emph{x}", "12 records", "\r", " ", "Publications"]
)
TEXT = st.lists(st.one_of(TRICKY, st.text(max_size=12)), max_size=12).map("".join)
WORKS = st.builds(
    Work,
    title=TEXT,
    year=st.integers(1790, 2030),
    source=st.sampled_from(["arXiv", "OpenAlex", "BibTeX"]),
    abstract=TEXT,
    subjects=st.lists(st.sampled_from(CODES), max_size=3).map(tuple),
    authors=st.lists(st.one_of(TEXT, st.just("et al."), st.just("A; B")), max_size=4).map(tuple),
    more_authors=st.booleans(),
    journal_ref=TEXT,
    kind=st.sampled_from(["", "article", "PhD thesis", "conference paper", "poem"]),
    doi=st.sampled_from(["", "10.1000/xyz", "not a doi", "10.1/a b"]),
    url=st.sampled_from(["", "https://example.org/a?b=c", "javascript:alert(1)", "http://x"]),
    published=st.sampled_from(["", "2020", "2020-06", "2020-06-31", "2020-13", "2020-06-30T00:00"]),
)


def records_of(works: list[Work]) -> list:
    """The records the works make (those that can be records)."""
    return [made.record for made in (record_of(w, LATEST) for w in works) if made.record is not None]


def read_back(data: bytes) -> list:
    """What the reader makes of a seed: the records' essence (errors fail the test)."""
    parse = parse_seed(data, "seeds/x.txt", latest_year=LATEST)
    assert not parse.rejected, [d.format() for d in parse.diagnostics]
    return [essence(r) for r in parse.author.records]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=TEXT.filter(one_line), works=st.lists(WORKS, max_size=6))
def test_a_new_seed_reads_back_as_written(name: str, works: list[Work]) -> None:
    records = records_of(works)
    data = verified(new_seed(name, records), "seeds/x.txt", name, records, LATEST)
    assert read_back(data) == [essence(r) for r in records]


@settings(max_examples=100, deadline=None)
@given(works=st.lists(WORKS, min_size=1, max_size=4))
def test_records_appended_to_a_shipped_seed_read_back(works: list[Work]) -> None:
    text = (ROOT / "seeds" / "001_195b1e5c39d23b83.txt").read_text(encoding="utf-8")
    existing = parse_seed(text.encode(), "seeds/x.txt", latest_year=LATEST).author
    records = records_of(works)
    data = verified(
        appended(text, existing, records), "seeds/x.txt", existing.name, [*existing.records, *records], LATEST
    )
    parse = parse_seed(data, "seeds/x.txt", latest_year=LATEST)
    assert parse.author.claimed_count == len(existing.records) + len(records)
    assert not any("count line" in d.message for d in parse.diagnostics)


def test_appending_changes_only_the_count_line() -> None:
    text = (ROOT / "seeds" / "000_428d720ed8b996c5.txt").read_text(encoding="utf-8")
    existing = parse_seed(text.encode(), "seeds/x.txt", latest_year=LATEST).author
    assert (existing.claimed_count, existing.at_least, len(existing.records)) == (19, True, 18)
    one = appended(text, existing, records_of([Work("A New Paper", 2026, "BibTeX")]))
    assert one == text.rstrip() + "\n\nBibTeX2026\n\nA New Paper\n"  # at least 19 still holds
    two = appended(text, existing, records_of([Work("A", 2026, "BibTeX"), Work("B", 2025, "OpenAlex")]))
    assert two.startswith(text.replace("At least 19 records", "At least 20 records").rstrip())
    assert two.endswith("cs.LG↗\n\nBibTeX2026\n\nA\n\nOpenAlex2025\n\nB\n")


def test_a_seed_of_other_sources_reads_without_warnings() -> None:
    works = [
        Work("No Subjects", 2024, "OpenAlex", abstract="An abstract."),
        Work("Neither Abstract Nor Subjects", 2023, "BibTeX"),
        Work("Subjects", 2022, "arXiv", abstract="Text.", subjects=("cs.LG", "cs.DC")),
        Work("Again", 2021, "OpenAlex"),
    ]
    records = records_of(works)
    data = verified(new_seed("Ada Lovelace", records), "seeds/x.txt", "Ada Lovelace", records, LATEST)
    parse = parse_seed(data, "seeds/x.txt", latest_year=LATEST)
    assert {d.severity for d in parse.diagnostics} == {Severity.NOTE}
    assert [r.subjects for r in parse.author.records] == [(), (), ("cs.LG", "cs.DC"), ()]


@pytest.mark.parametrize(
    "abstract, written, noted",
    [
        ("First.\n\nSecond.", "First.\n\nSecond.", False),
        ("First.\n\ncs.LG\n\nLast.", "First. cs.LG Last.", True),
        ("cs.LG", "", True),
        ("arXiv2023", "", True),
        ("  spaced \t out\x0b  ", "spaced out", False),
    ],
)
def test_abstract_paragraphs(abstract: str, written: str, noted: bool) -> None:
    made = record_of(Work("T", 2020, "BibTeX", abstract=abstract), LATEST)
    assert made.record.abstract == written
    assert bool(made.note) == noted


@pytest.mark.parametrize(
    "work, reason",
    [
        (Work(" \n ", 2020, "BibTeX"), "no title"),
        (Work("cs.DC↗", 2020, "BibTeX"), "the title reads as a subject line"),
        (Work("T", 1799, "BibTeX"), "no year from 1800 to 2027"),
        (Work("T" * 2001, 2020, "BibTeX"), "the title has 2,001 characters; seeds allow 2,000"),
    ],
)
def test_works_that_cannot_be_records(work: Work, reason: str) -> None:
    assert record_of(work, LATEST).reason == reason


def test_subjects_are_known_codes_once() -> None:
    made = record_of(Work("T", 2020, "arXiv", subjects=("cs.LG", "I.2.7", "cs.LG", "68T05", "cs.XY")), LATEST)
    assert made.record.subjects == ("cs.LG",)


def test_a_record_that_would_read_differently_is_refused() -> None:
    odd = SeedRecord("arXiv", 2020, "T", "cs.LG", (), "", 0)  # record_of never makes this abstract
    with pytest.raises(NotWritable, match="seeds/ada.txt: record 1 would read back differently"):
        verified(new_seed("Ada", [odd]), "seeds/ada.txt", "Ada", [odd], LATEST)
