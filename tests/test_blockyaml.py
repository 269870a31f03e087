"""The quick block-YAML reader (issue 28.3): whatever it takes, it reads as PyYAML's safe loader
does, with the line of each key; what it does not take, it leaves to the loader."""

from __future__ import annotations

import datetime

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from scholarsite.errors import BuildError
from scholarsite.inputs import blockyaml
from scholarsite.inputs.blockyaml import Unsupported, clean, entries_under, scalar, typed
from scholarsite.inputs.sources import dumper
from scholarsite.inputs.yamlmap import read_settings

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=150)
SCALARS = (
    TEXT
    | st.sampled_from(
        ["yes", "~", "null", "2025-02-27", "0x1F", "1_000", "-1.5e3", ".inf", "<<", "=", "0o17", "2025-02-30"]
    )
    | st.integers(-(10**20), 10**20)
    | st.booleans()
    | st.dates(datetime.date(1, 1, 1))
    | st.floats(allow_nan=False)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12) | st.integers(), inner, max_size=4)
    ),
    max_leaves=12,
)
KEYS = st.text(max_size=140).filter(str.strip)


def loaded(text: str) -> dict | None:
    """What the careful reader (`yamlmap.read_settings`) makes of the `papers:` mapping, with
    each key's line; None when it refuses the text."""
    lines: dict[str, dict[str, int]] = {}
    try:
        settings = read_settings(text, "sources.yaml", key_lines=lines)
    except BuildError:
        return None
    if [setting.key for setting in settings] != ["papers"] or not isinstance(settings[0].value, dict):
        return None
    return {key: (value, lines["papers"][key]) for key, value in settings[0].value.items()}


def dumped(papers: dict) -> str:
    """The text `dump_sources` would write for these entries."""
    return "# a comment\n" + yaml.dump(
        {"papers": papers}, Dumper=dumper(), allow_unicode=True, sort_keys=False, width=100
    )


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(
        KEYS, st.dictionaries(st.text(max_size=12), VALUES, min_size=1, max_size=6), min_size=1, max_size=5
    )
)
def test_what_the_dumper_writes_reads_as_the_safe_loader_reads_it(papers: dict) -> None:
    text = dumped(papers)
    found = entries_under(text, "papers", "sources.yaml")
    assert found is None or found == loaded(text)


def test_the_files_link_sources_writes_are_taken() -> None:
    papers = {
        f"2025/paper {n}": {
            "status": "found",
            "title": f"A Study: {n} 'quoted' # not a comment " + "long " * 30,
            "checked": "2026-12-01",
            "version": 2,
            "authors": ["Zoë Ñandú", "Ada Lovelace"],
            "candidates": [{"arxiv_id": "2502.00001", "title": "Other"}],
            "openalex": {
                "status": "found",
                "counts": {2024: 3},
                "references": " ".join(["W4392345678"] * 30),
            },
        }
        for n in range(3)
    }
    text = dumped(papers)
    assert entries_under(text, "papers", "sources.yaml") == loaded(text)


def test_flat_entries_are_read_by_expressions_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries of `key: value` lines (the lean entries of a large file) are read without a
    `Block` of lines, as the safe loader reads them: quotes, colons, types, lines."""
    papers = {
        f"2025/paper {n}": {
            "status": "found",
            "title": f"A Study: {n} 'quoted' # not a comment, it's",
            "checked": "2026-12-01",
            "version": 2,
            "doi": "10.1145/3620666.3651379",
            "locked": n % 2 == 0,
            "note": "~" if n else "yes",
        }
        for n in range(3)
    }
    text = dumped(papers)
    monkeypatch.setattr(blockyaml, "Block", None)  # any entry read by a Block fails
    found = entries_under(text, "papers", "sources.yaml")
    assert found == loaded(text) and found["2025/paper 1"][1] == 11


def without_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every entry that the expressions (flat entries, `mapping_at`) do not read leave the
    whole text to the loader, so that what `entries_under` returns was read by them alone."""

    def refuse(lines: list[str]) -> None:
        raise Unsupported("read by a Block")

    monkeypatch.setattr(blockyaml, "Block", refuse)


def test_full_entries_are_read_by_expressions_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entries link-sources writes (authors, an OpenAlex part with counts and references
    going on over lines) are read level by level by `mapping_at`, as the safe loader reads them."""
    papers = {
        f"2025/paper {n}": {
            "status": "found",
            "title": f"A Study: {n} 'quoted' # not a comment, it's",
            "version": 2,
            "authors": ["Zoë Ñandú", "'Quoted' Name", "2025", "yes"],
            "openalex": {
                "status": "found",
                "cited_by": 17,
                "published": datetime.date(2025, 2, 27),
                "counts": {2024: 3, 2025: 9},
                "references": " ".join(["W4392345678"] * 30),
                "empty": None,
            },
            "locked": n % 2 == 0,
        }
        for n in range(3)
    }
    text = dumped(papers)
    without_blocks(monkeypatch)
    found = entries_under(text, "papers", "sources.yaml")
    assert found == loaded(text) and found is not None and found["2025/paper 1"][1] == 25


# Entries that the expressions may take (keys YAML leaves plain; lists of scalars; text with
# quotes, colons, hashes, typed words, long enough to go on over lines).
NAMES = st.text(alphabet="ab_", min_size=1, max_size=4) | st.integers(0, 3000)
WORDS = ["a", "b:", "#c", "'d'", "yes", "~", "2025", "2025-02-27", "-", ":", "x y", "W1", "ü", "?", "é" * 30]
WORDS += ["2025-02-30", "0000-00-00", "0x_"]  # typed as a date or number that is none: both refuse
NEAR_SCALARS = (
    st.lists(st.sampled_from(WORDS), max_size=30).map(" ".join)
    | st.integers(-5, 3000)
    | st.booleans()
    | st.none()
    | st.dates(datetime.date(2000, 1, 1), datetime.date(2030, 1, 1))
)
NESTED = st.recursive(
    NEAR_SCALARS,
    lambda inner: (
        st.lists(NEAR_SCALARS, min_size=1, max_size=4) | st.dictionaries(NAMES, inner, min_size=1, max_size=4)
    ),
    max_leaves=12,
)
ENTRY_KEYS = st.text(alphabet="ab1/ ", min_size=1, max_size=8).filter(lambda key: key.strip() == key)


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(
        ENTRY_KEYS, st.dictionaries(NAMES, NESTED, min_size=1, max_size=6), min_size=1, max_size=5
    )
)
def test_what_the_expressions_alone_take_reads_as_the_safe_loader_reads_it(papers: dict) -> None:
    """Dumped entries read by the expressions alone (about half are taken; most are nested)."""
    with pytest.MonkeyPatch.context() as patch:
        without_blocks(patch)
        text = dumped(papers)
        found = entries_under(text, "papers", "sources.yaml")
    assert found is None or found == loaded(text)


# Lines at columns 4, 6 and 8 under an entry's first key: keys, items, quotes left open...
LINES = st.lists(
    st.tuples(
        st.sampled_from([4, 6, 8]),
        st.sampled_from(["k", "j", "2024"]),
        st.sampled_from([": ", ":", "- "]),
        st.sampled_from(
            ["a", "'q''s'", "'x", "x'", "2025", "yes", "~", "", "a #b", "a: b", "W1 W2", "x  y", "''"]
            + ["2025-02-30"]
        ),
    ),
    min_size=1,
    max_size=10,
)


@settings(max_examples=1500, deadline=None)
@given(LINES)
def test_nested_lines_the_expressions_take_are_yaml_they_read_alike(
    lines: list[tuple[int, str, str, str]],
) -> None:
    body = "".join(
        " " * column + (key + mark if mark != "- " else mark) + value + "\n"
        for column, key, mark, value in lines
    )
    text = "papers:\n  k:\n    f:\n" + body
    with pytest.MonkeyPatch.context() as patch:
        without_blocks(patch)
        found = entries_under(text, "papers", "sources.yaml")
    assert found is None or found == loaded(text)


# Texts near what YAML's implicit resolvers match: numbers, dates, times, booleans, nulls.
NEAR_TYPED = st.from_regex(r"[-+0-9._:eExXoObBa-fA-FyYnNtTsSrRuUlLiI~ <>=]{0,14}", fullmatch=True)
TIMESTAMPS = st.from_regex(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9:. Zz+-]{0,14})?", fullmatch=True)


@settings(max_examples=1500, deadline=None)
@given(NEAR_TYPED | TIMESTAMPS | TEXT)
def test_plain_scalars_are_typed_as_the_resolver_types_them(text: str) -> None:
    """`scalar` rules out PyYAML's resolver for most text; what it makes is what the resolver
    and constructors (`typed`) make."""
    try:
        expected = typed(text)
    except Unsupported:
        expected = Unsupported
    try:
        found = scalar(text)
    except Unsupported:
        found = Unsupported
    assert repr(found) == repr(expected) and type(found) is type(expected)  # repr: nan


PIECES = [*" \n-:'\"#ab1?&*[]{}|>!\t\\", "\n  ", "\n    ", "\n      ", "x: ", "- ", "y:", "2025"]
PIECES += ["2025-02-30"]  # plain: a date that is none, which both refuse
HANDWRITTEN = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@settings(max_examples=1500, deadline=None)
@given(HANDWRITTEN)
def test_text_it_takes_is_yaml_it_reads_alike(body: str) -> None:
    text = "papers:\n  k:\n" + body
    found = entries_under(text, "papers", "sources.yaml")
    assert found is None or found == loaded(text)


def test_it_leaves_what_it_does_not_take() -> None:
    for body in (
        "  k: &a x\n  j: *a\n",  # an alias across entries
        "  k:\n    a: 1\n  k:\n    a: 2\n",  # a key given twice
        "  k:\n    title: 'open\n  j: x'\n",  # a quote going on at column 2
        "  k:\n    a: x\r\n",
        "  k:\n    t: x\n    a:  v    b: c\n",  # YAML refuses the value (main read it as `b: c`)
        "  k:\n  !\nx: ",  # read alone, YAML reads these as it does not in the file
        "  k:\n  !\n    x: ",
    ):
        assert entries_under("papers:\n" + body, "papers", "sources.yaml") is None, body
    assert entries_under("other:\n  k: 1\n", "papers", "sources.yaml") is None
    assert entries_under("papers:\nother: 1\n", "papers", "sources.yaml") is None
    # an entry it does not take is read alone by the loader
    assert entries_under("papers:\n  k:\n    a: [1, 2]\n  j: {b: 1}\n", "papers", "s") == {
        "k": ({"a": [1, 2]}, 2),
        "j": ({"b": 1}, 4),
    }


def test_a_plain_date_or_number_that_is_none_is_left_to_the_loader_which_refuses_it() -> None:
    """PyYAML's constructors raise a bare ValueError for these: the quick reader does not take
    them, by any of its ways, and the loader refuses them at their line."""
    for value in ("2025-02-30", "0000-00-00", "2025-01-01 25:00:00", "0x_", "-0b_"):
        for body in (
            f"  k:\n    checked: {value}\n",  # flat
            f"  k:\n    o:\n      checked: {value}\n",  # by level
            f"  k:\n    a:\n    - {value}\n",
            f"  k:\n    t: x\n    checked:\n      {value}\n",  # by a Block
            f"  k: {value}\n",
        ):
            text = "papers:\n" + body
            assert entries_under(text, "papers", "sources.yaml") is None, text
            with pytest.raises(BuildError) as caught:
                read_settings(text, "sources.yaml")
            problem = caught.value.diagnostics[0]
            assert problem.line == text.count("\n", 0, text.index(value)) + 1
            assert problem.message.startswith(("not a date", "not a number")), problem.message
        with pytest.raises(Unsupported):
            scalar(value)


def test_characters_yaml_refuses_or_breaks_lines_at_are_left_to_the_loader() -> None:
    for char in "\t\r\x85\u2028\u2029\ufeff\x7f\x80\x9f\x00\x1b\ud800\udc80\ufffe\uffff":
        assert not clean(f"papers:\n  a: x{char}y\n"), repr(char)
    for char in "é—中🙂\xa0\ud7a3©":
        assert clean(f"papers:\n  a: x{char}y\n"), repr(char)
