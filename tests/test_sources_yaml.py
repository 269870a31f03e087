"""sources.yaml at any size (issues 28.3, 29.4-29.6): the alias guard counts only what aliases
add, repeated keys are errors at their line, fields are bounded, and whatever link-sources
writes reads back as it was (every field, 2,000 entries)."""

from __future__ import annotations

import datetime
from pathlib import Path

import arxiv
import pytest
import yaml

from scholarsite.errors import BuildError
from scholarsite.inputs import yamlmap
from scholarsite.inputs.digests import key_of
from scholarsite.inputs.openalex_part import Impact
from scholarsite.inputs.sources import (
    SOURCES_FILE,
    Candidate,
    SourceEntry,
    Unwritable,
    dump_sources,
    load_sources,
    parse_sources,
    sources_of,
)
from scholarsite.sources import link, openalex_step
from scholarsite.sources.client import Record, record_of
from scholarsite.sources.openalex import Work

HOSTILE = (
    "Comet: Fine-grained # not a comment",
    "- starts like a list item",
    "'quoted' and \"double\" \\textit{x} $\\alpha$",
    "yes",
    "2025-02-27",
    "~",
    "null",
    "Ünïcödé 中文 emoji 🙂 and a\u2028line separator",
    "trailing colon:",
    "{looks: like flow} [a, b] &anchor *alias !tag",
    "a" * 2_000,
)


def full_entry(number: int, title: str = "A Title") -> SourceEntry:
    """An entry with every field set."""
    return SourceEntry(
        "found",
        title=title,
        checked="2026-12-01",
        arxiv_id=f"2502.{number:05d}",
        version=2,
        doi=f"10.1145/3620666.{number}",
        journal_ref=f"Proc. MLSys 2025: {title[:50]}",
        primary_category="cs.DC",
        published="2025-02-27",
        updated="2025-03-04",
        authors=("Ada Lovelace", title[:100] or "X", "Zoë Ñandú"),
        candidates=(Candidate("2502.00001", title, "2025-02-27"), Candidate("hep-th/9901001", "Other", "")),
        openalex=Impact(
            "found",
            checked="2026-12-01",
            id=f"W{4392345678 + number}",
            doi=f"10.48550/arxiv.2502.{number:05d}",
            cited_by=17,
            venue=" ".join(title.split()),  # as OpenAlex text is kept
            oa_url="https://arxiv.org/pdf/2502.19811",
            published="2025-02-27",
            counts=((2025, 9), (2026, 8)),
            references=("W2741809807", "W1775749144"),
        ),
        locked=True,
    )


@pytest.mark.parametrize("title", HOSTILE)
def test_every_field_reads_back(title: str) -> None:
    entries = {f"2025/{title[:80].lower()}x": full_entry(7, title)}
    again, problems = parse_sources(dump_sources(entries), SOURCES_FILE)
    assert problems == [] and again == entries


def test_a_file_link_sources_writes_reads_back_at_2000_entries(tmp_path: Path) -> None:
    entries = {}
    for number in range(2_000):
        record = Record(
            f"2502.{number:05d}",
            1,
            f"Paper {number}: On #{number}",
            ("Ada Lovelace",) * 3,
            "",
            "",
            "cs.DC",
            (),
            "2025-02-27",
            "",
        )
        entry = link.found_entry(record, f"Paper {number}: On #{number}", "2026-12-01")
        work = Work(
            f"W{number + 1}",
            f"10.48550/arxiv.2502.{number:05d}",
            "",
            number,
            "arXiv",
            "",
            "2025-02-27",
            ((2025, number + 1),),
            ("W1", "W2"),
        )
        entries[f"2025/paper {number} on {number}"] = openalex_step.recorded(entry, work, link.today())[0]
    link.save(tmp_path, entries)
    loaded, problems = load_sources(tmp_path)
    assert problems == [] and loaded == entries


@pytest.mark.parametrize("entry", [full_entry(3), SourceEntry("found"), SourceEntry("unknown", title="T")])
def test_entries_read_are_the_objects_the_constructor_makes(entry: SourceEntry) -> None:
    """Entries are built without `__init__` when read: equal, with the same hash, fields in the
    same order (so the same digest in the build's keys), and as frozen."""
    again = parse_sources(dump_sources({"2025/k": entry}), SOURCES_FILE)[0]["2025/k"]
    assert again == entry and hash(again) == hash(entry) and repr(again) == repr(entry)
    assert list(vars(again)) == list(vars(entry)) and key_of(again) == key_of(entry)
    if entry.openalex is not None:
        assert list(vars(again.openalex)) == list(vars(entry.openalex))
    with pytest.raises(AttributeError):
        again.title = "changed"  # type: ignore[misc]


def test_a_legitimate_file_over_ten_thousand_nodes_is_accepted() -> None:
    entries = {f"2025/paper {n}": full_entry(n) for n in range(400)}  # about 30 nodes each
    text = dump_sources(entries)
    assert yamlmap.plain(text)
    assert parse_sources(text, SOURCES_FILE) == (entries, [])


def test_an_entry_that_would_not_read_back_is_never_written(tmp_path: Path) -> None:
    (tmp_path / SOURCES_FILE).write_text("papers:\n", encoding="utf-8")
    bad = SourceEntry("found", openalex=Impact("found", id="W123x"))
    with pytest.raises(Unwritable, match="'2025/x': 'openalex' id must look like W4392345678"):
        link.save(tmp_path, {"2025/x": bad})
    with pytest.raises(Unwritable, match="does not read back"):
        dump_sources({"2025/y": SourceEntry("found", title=" padded ")})
    assert (tmp_path / SOURCES_FILE).read_text(encoding="utf-8") == "papers:\n"


def test_a_paper_key_given_twice_is_an_error_at_its_line(tmp_path: Path) -> None:
    text = (
        "papers:\n"
        "  2025/comet:\n    status: found\n    arxiv_id: 2502.19811\n    locked: true\n"
        "  2025/other:\n    status: not-found\n"
        "  2025/comet:\n    status: found\n    arxiv_id: 2502.00001\n"
    )
    (tmp_path / SOURCES_FILE).write_text(text, encoding="utf-8")
    entries, problems = load_sources(tmp_path)
    assert entries == {} and [(p.line, p.message) for p in problems] == [(8, "'2025/comet' is set twice")]


def test_a_field_given_twice_is_an_error_at_its_line() -> None:
    text = "papers:\n  2025/comet:\n    status: found\n    openalex:\n      status: found\n"
    text += "      status: unknown\n"
    with pytest.raises(BuildError) as caught:
        parse_sources(text, SOURCES_FILE)
    assert [(d.line, d.message) for d in caught.value.diagnostics] == [(6, "'status' is set twice")]


def test_problems_in_a_large_flat_file_are_errors_at_their_line() -> None:
    """Lean entries are read by the quick reader's expressions; one bad entry among 2,000 sends
    the file to the YAML reading, which names its line."""
    entries = {
        f"2025/paper {n:04d}": SourceEntry("found", title=f"On {n}: a study", checked="2026-12-01")
        for n in range(2_000)
    }
    text = dump_sources(entries)
    assert parse_sources(text, SOURCES_FILE) == (entries, [])
    lines = text.split("\n")
    where = lines.index("  2025/paper 1234:") + 1  # the line of the entry's key
    twice = "\n".join([*lines[:where], "    checked: '2026-12-02'", *lines[where:]])
    with pytest.raises(BuildError) as caught:
        parse_sources(twice, SOURCES_FILE)
    # key, the added line, status, title, then the file's own `checked`: the second one
    assert [(d.line, d.message) for d in caught.value.diagnostics] == [(where + 4, "'checked' is set twice")]
    wrong = text.replace("  2025/paper 1234:\n    status: found", "  2025/paper 1234:\n    status: maybe")
    read, problems = parse_sources(wrong, SOURCES_FILE)
    assert len(read) == 1_999
    assert [(p.line, p.message.split(" must")[0]) for p in problems] == [(where, "'2025/paper 1234': status")]


def test_text_fields_are_bounded_as_seed_fields(tmp_path: Path) -> None:
    long = "x" * 2_001
    text = f"papers:\n  2025/a:\n    status: found\n    title: {long}\n"
    text += f"  2025/b:\n    status: found\n    openalex:\n      status: found\n      venue: {long}\n"
    entries, problems = parse_sources(text, SOURCES_FILE)
    assert [(p.line, p.message) for p in problems] == [
        (2, "'2025/a': 'title' must have at most 2,000 characters, found 2,001"),
        (5, "'2025/b': 'openalex' 'venue' must have at most 2,000 characters, found 2,001"),
    ]


def test_fields_typed_by_yaml_read_as_text_and_a_list_is_an_error_at_its_entry() -> None:
    text = "papers:\n  2025/a:\n    status: found\n    title: 1984\n    published: 2025-02-27\n"
    text += "  2025/b:\n    status: found\n    journal_ref:\n    - a list\n"
    entries, problems = parse_sources(text, SOURCES_FILE)
    assert entries == {"2025/a": SourceEntry("found", title="1984", published="2025-02-27")}
    wrong = "'2025/b': 'journal_ref' must be text, found a list"
    assert [(p.line, p.message) for p in problems] == [(6, wrong)]
    good, problems = parse_sources(text.split("  2025/b")[0], SOURCES_FILE)  # the quick reader's way
    assert good == entries and not problems


NOT_DATES = ["2025-02-30", "0000-00-00", "2025-01-01 25:00:00", "2025-01-01 10:00:00+25:00"]


@pytest.mark.parametrize("value", NOT_DATES)
@pytest.mark.parametrize(
    "entry",
    [
        "    status: found\n    checked: {}\n",  # a flat entry: the quick reader's expressions
        "    status: found\n    openalex:\n      status: found\n      published: {}\n",  # by level
        "    status: found\n    candidates:\n    - {{arxiv_id: '1', title: T, published: {}}}\n",  # flow
    ],
)
def test_a_plain_date_that_is_none_is_an_error_at_its_line(entry: str, value: str) -> None:
    """PyYAML's constructor raised a bare ValueError for these: now a diagnostic at the line,
    from the public read, the quick reader leaving the file to the careful one."""
    text = "papers:\n  2025/good:\n    status: found\n  2025/bad:\n" + entry.format(value)
    line = text.count("\n", 0, text.index(value)) + 1
    kind = "a date" if len(value) == 10 else "a date and time"
    sources, problems = sources_of(text.encode())
    assert sources.entries == {}
    assert [(p.path, p.line, p.message.split(" (")[0]) for p in problems] == [
        (SOURCES_FILE, line, f"not {kind}: {value}")
    ]
    with pytest.raises(BuildError):
        parse_sources(text, SOURCES_FILE)
    parse_sources(text.replace(value, f"'{value}'"), SOURCES_FILE)  # quoted: text, no YAML error
    for loader in (yamlmap.BoundedLoader, yamlmap.FastLoader):
        with pytest.raises(yamlmap.Refused):
            yaml.load(text, Loader=loader)


@pytest.mark.parametrize("name, first", [("site.yaml", 1), ("content/about.md", 2)])
def test_a_plain_date_or_number_that_is_none_in_settings_is_an_error_at_its_line(
    name: str, first: int
) -> None:
    text = "title: T\nupdated: 2025-02-30\nsize: 0x_\nwhen: 2025-02-27\n"
    with pytest.raises(BuildError) as caught:
        yamlmap.read_settings(text, name, first_line=first)
    assert [(d.path, d.line, d.message) for d in caught.value.diagnostics] == [
        (name, first + 1, "not a date: 2025-02-30 (expected a real date as YYYY-MM-DD, or text in quotes)"),
        (name, first + 2, "not a number: 0x_ (expected digits after its prefix, or text in quotes)"),
    ]


def test_aliases_count_only_what_they_add() -> None:
    reused = "papers:\n  2025/a: &entry\n    status: found\n" + "".join(
        f"  2025/k{n}: *entry\n" for n in range(100)
    )
    entries, problems = parse_sources(reused, SOURCES_FILE)
    assert problems == [] and len(entries) == 101
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + n)}: &{chr(98 + n)} [{', '.join([f'*{chr(97 + n)}'] * 10)}]\n" for n in range(5)
    )
    with pytest.raises(BuildError) as caught:
        yamlmap.read_settings(bomb, "site.yaml")
    assert "aliases expand it by over 10000 items" in caught.value.diagnostics[0].message


@pytest.mark.parametrize(
    "text",
    [
        "papers:\n  a: {status: found}\n",
        "x: &a [1]\ny: *a\n",
        "x: !!str 3\n",
        "- " * 40 + "a\n",
        "a:\n" + "".join(" " * n + "b:\n" for n in range(1, 40)) + " " * 40 + "c\n",
    ],
)
def test_texts_the_fast_loader_cannot_check_go_to_the_checking_one(text: str) -> None:
    assert not yamlmap.plain(text)
    assert isinstance(yamlmap.loader_of(text), yamlmap.BoundedLoader)


def test_both_loaders_build_the_same_values() -> None:
    text = dump_sources({f"2025/{t[:30]}": full_entry(n, t) for n, t in enumerate(HOSTILE)})
    fast = yaml.load(text, Loader=yamlmap.FastLoader)
    assert fast == yaml.load(text, Loader=yamlmap.BoundedLoader)


def test_arxiv_records_are_bounded_so_they_can_be_written() -> None:
    moment = datetime.datetime(2025, 2, 27, tzinfo=datetime.UTC)
    result = arxiv.Result(
        "http://arxiv.org/abs/2502.19811v2",
        published=moment,
        updated=moment,
        title="T" * 5_000,
        authors=[arxiv.Result.Author(f"Author {n}") for n in range(6_000)],
        journal_ref="J" * 3_000,
        primary_category="cs.DC",
    )
    record = record_of(result)
    assert len(record.authors) == 5_000 and len(record.title) == len(record.journal_ref) == 2_000
    entry = link.found_entry(record, "A title", "2026-12-01")
    assert parse_sources(dump_sources({"2025/a title": entry}), SOURCES_FILE) == ({"2025/a title": entry}, [])
