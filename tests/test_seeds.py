"""The seed parser: every format quirk, every error and warning, with exact line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scholarsite.errors import Severity
from scholarsite.inputs.seeds import SeedParse, parse_seed, read_seeds

ROOT = Path(__file__).resolve().parent.parent
LATEST = 2027

ABSTRACT = "We study overlapping of computation and communication in MoE training."

# A valid seed: header 1, name 3, attribution 5, count 7, record at 9 (title 11, abstract 13, subject 15),
# record at 17 (title 19, abstract 21, subject 23).
VALID = f"""arXiv subjects

Ada Lovelace

Publications and source records attributed to Ada Lovelace.

2 recordsLinked to original sources

arXiv2025

Comet: Fine-grained Overlapping for Mixture-of-Experts

{ABSTRACT}

cs.DC↗

arXiv2024

FLUX: Fast Software-based Communication Overlap

Fused kernels hide communication.

cs.LG↗
"""


def parse(text: str | bytes, path: str = "seeds/a.txt") -> SeedParse:
    """Parse text (or bytes) as a seed file."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return parse_seed(data, path, latest_year=LATEST)


def problems(result: SeedParse) -> list[tuple[int, str, str]]:
    """(line, severity, message) of each diagnostic."""
    return [(d.line, d.severity.value, d.message) for d in result.diagnostics]


def replace_line(text: str, number: int, new: str) -> str:
    """The text with line `number` (1-based) replaced."""
    lines = text.split("\n")
    lines[number - 1] = new
    return "\n".join(lines)


def test_valid_seed_parses_cleanly() -> None:
    result = parse(VALID)
    assert problems(result) == []
    author = result.author
    assert author is not None
    assert (author.name, author.line, author.claimed_count, author.at_least) == ("Ada Lovelace", 3, 2, False)
    first, second = author.records
    assert (first.source, first.year, first.line, first.subjects) == ("arXiv", 2025, 9, ("cs.DC",))
    assert first.title == "Comet: Fine-grained Overlapping for Mixture-of-Experts"
    assert first.abstract == ABSTRACT
    assert (second.year, second.line, second.subjects) == (2024, 17, ("cs.LG",))


def test_shipped_seeds_parse_without_errors() -> None:
    parses, notes = read_seeds(
        ROOT / "seeds", "seeds", lambda data, path: parse_seed(data, path, latest_year=LATEST)
    )
    assert notes == []
    assert [p.author.name for p in parses if p.author] == ["Ziheng Jiang", "Ningxin Zheng"]
    assert [len(p.author.records) for p in parses if p.author] == [18, 18]
    assert not any(d.severity is Severity.ERROR for p in parses for d in p.diagnostics)
    jiang = parses[0].author
    assert (jiang.claimed_count, jiang.at_least) == (19, True)


@pytest.mark.parametrize(
    "mangle",
    [
        pytest.param(lambda t: t.replace("\n", "\r\n"), id="crlf"),
        pytest.param(lambda t: "\ufeff" + t, id="bom"),
        pytest.param(lambda t: t.replace("\n", "   \n"), id="trailing-spaces"),
        pytest.param(lambda t: t.replace("\n\n", "\n\u00a0\n"), id="nbsp-blank-lines"),
        pytest.param(lambda t: t.replace("\n\n", "\n\n\n\n"), id="blank-runs"),
        pytest.param(lambda t: t.rstrip("\n"), id="no-final-newline"),
        pytest.param(lambda t: t.replace("\n", "\r"), id="old-mac-cr"),
    ],
)
def test_format_quirks_give_the_same_records(mangle) -> None:
    clean = parse(VALID).author
    result = parse(mangle(VALID))
    assert problems(result) == []
    assert result.author is not None
    assert [(r.title, r.abstract, r.year, r.subjects) for r in result.author.records] == [
        (r.title, r.abstract, r.year, r.subjects) for r in clean.records
    ]


def test_nbsp_inside_text_becomes_a_space() -> None:
    result = parse(VALID.replace("Ada Lovelace\n\nPub", "Ada\u00a0Lovelace\n\nPub"))
    assert result.author.name == "Ada Lovelace"


def test_blank_run_keeps_line_numbers_exact() -> None:
    text = VALID.replace("arXiv2024", "\n\n\narXiv2024")
    result = parse(text)
    assert result.author.records[1].line == 20


def test_multi_paragraph_abstract() -> None:
    text = VALID.replace(ABSTRACT, f"{ABSTRACT}\n\nSecond paragraph.\n\nThird one.")
    record = parse(text).author.records[0]
    assert record.abstract == f"{ABSTRACT}\n\nSecond paragraph.\n\nThird one."
    assert record.subjects == ("cs.DC",)


def test_record_without_abstract_is_a_warning() -> None:
    text = VALID.replace(f"{ABSTRACT}\n\n", "")
    result = parse(text)
    assert problems(result) == [
        (11, "warning", "record 'Comet: Fine-grained Overlapping for Mixture-of-Experts' has no abstract")
    ]
    assert result.author.records[0].abstract == ""
    assert result.author.records[0].subjects == ("cs.DC",)


def test_record_without_subject_is_a_warning() -> None:
    text = VALID.replace("cs.DC↗\n\n", "")
    result = parse(text)
    assert problems(result) == [
        (
            15,
            "warning",
            "expected a subject line such as 'cs.DC↗' after the abstract of "
            "'Comet: Fine-grained Overlapping for Mixture-of-Experts'",
        )
    ]
    assert [r.subjects for r in result.author.records] == [(), ("cs.LG",)]


def test_last_record_without_subject_at_end_of_file() -> None:
    text = VALID.replace("\ncs.LG↗\n", "")
    result = parse(text)
    assert problems(result)[0][:2] == (19, "warning")
    assert len(result.author.records) == 2


@pytest.mark.parametrize(
    "line, codes",
    [
        ("cs.DC↗ cs.LG↗", ("cs.DC", "cs.LG")),
        ("cs.DC↗cs.LG↗", ("cs.DC", "cs.LG")),
        ("cs.DC, stat.ML↗", ("cs.DC", "stat.ML")),
        ("cs.DC", ("cs.DC",)),
        ("cs.DC↗ cs.DC↗", ("cs.DC",)),
    ],
)
def test_several_subject_codes(line: str, codes: tuple[str, ...]) -> None:
    result = parse(replace_line(VALID, 15, line))
    assert problems(result) == []
    assert result.author.records[0].subjects == codes


@pytest.mark.parametrize(
    "head, source, year",
    [
        ("bioRxiv2023", "bioRxiv", 2023),
        ("ACL Anthology 2022", "ACL Anthology", 2022),
        ("DBLP2019", "DBLP", 2019),
    ],
)
def test_sources_other_than_arxiv(head: str, source: str, year: int) -> None:
    record = parse(replace_line(VALID, 9, head)).author.records[0]
    assert (record.source, record.year) == (source, year)


def test_unknown_subject_code_is_a_warning() -> None:
    result = parse(replace_line(VALID, 15, "cs.XY↗"))
    assert problems(result)[0][:2] == (15, "warning")
    assert "unknown arXiv subject code 'cs.XY'" in problems(result)[0][2]
    assert result.author.records[0].subjects == ("cs.XY",)


def test_count_disagreement_is_a_warning() -> None:
    result = parse(replace_line(VALID, 7, "5 recordsLinked to original sources"))
    assert problems(result) == [(7, "warning", "the count line claims 5 records, but 2 are listed")]


@pytest.mark.parametrize("count", ["At least 19 recordsLinked to original sources", "At least 1 records"])
def test_at_least_count_never_warns(count: str) -> None:
    result = parse(replace_line(VALID, 7, count))
    assert problems(result) == []
    assert result.author.at_least


def test_duplicate_record_is_merged_with_a_warning() -> None:
    record = f"arXiv2025\n\nComet: Fine-grained Overlapping for Mixture-of-Experts\n\n{ABSTRACT}\n\ncs.DC↗\n"
    text = replace_line(VALID, 7, "3 records") + "\n" + record
    result = parse(text)
    assert problems(result) == [
        (
            25,
            "warning",
            "duplicate of the record at line 9 "
            "('Comet: Fine-grained Overlapping for Mixture-of-Experts'); merged",
        )
    ]
    assert len(result.author.records) == 3


def test_unbalanced_dollar_is_a_warning() -> None:
    result = parse(VALID.replace(ABSTRACT, "A speedup of $1.27 over baselines."))
    assert [(line, sev) for line, sev, _ in problems(result)] == [(13, "warning")]
    assert "unbalanced '$'" in problems(result)[0][2]


def test_not_utf8_is_an_error_naming_the_line() -> None:
    data = VALID.encode("utf-8").replace(b"Fused kernels", b"Fused \xff kernels")
    result = parse(data)
    assert result.author is None
    assert problems(result) == [(21, "error", "not UTF-8: invalid byte 0xff at column 7")]


def test_latin1_file_is_rejected() -> None:
    result = parse(VALID.replace("Ada", "Adé").replace("↗", "").encode("latin-1"))
    assert result.rejected
    assert problems(result)[0][:2] == (3, "error")


@pytest.mark.parametrize("text", ["", "\n\n  \n", "arXiv subjects\n"])
def test_empty_file_has_no_author_name(text: str) -> None:
    result = parse(text)
    assert result.rejected
    assert problems(result)[0][:2] == (1, "error")
    assert "no author name" in problems(result)[0][2]


def test_missing_name_is_an_error() -> None:
    text = VALID.replace("Ada Lovelace\n\nPub", "Pub", 1)
    result = parse(text)
    assert result.rejected
    assert problems(result)[0] == (3, "error", "no author name before this line")


def test_attribution_disagreeing_with_name_is_an_error() -> None:
    result = parse(replace_line(VALID, 5, "Publications and source records attributed to Charles Babbage."))
    assert result.rejected
    line, severity, message = problems(result)[0]
    assert (line, severity) == (5, "error")
    assert "'Charles Babbage'" in message and "'Ada Lovelace'" in message


def test_attribution_ignores_case_accents_and_spacing() -> None:
    result = parse(replace_line(VALID, 5, "Publications and source records attributed to ADA  LOVELACE."))
    assert problems(result) == []


TITLE = "Comet: Fine-grained Overlapping for Mixture-of-Experts"


@pytest.mark.parametrize(
    "title",
    [
        "Llama 2",
        "Llama 2: Open Foundation and Fine-Tuned Chat Models",
        "COVID-19",
        "Deep Learning Trends 2020",
        "GPT 4",
        "2020",
        "cs.LG",
        "cs.DC cs.LG",
        "arXiv 2024: a retrospective",
        "arXiv2024",
        "We show that every planar graph is four-colourable, and we give a short proof of it.",
        "Publications and source records attributed to Ada Lovelace.",
        "At least 19 records",
    ],
)
def test_the_block_after_a_source_and_year_line_is_the_title(title: str) -> None:
    result = parse(VALID.replace(TITLE, title))
    assert problems(result) == []
    first, second = result.author.records
    assert (first.title, first.abstract, first.subjects) == (title, ABSTRACT, ("cs.DC",))
    assert second.title == "FLUX: Fast Software-based Communication Overlap"


def test_a_title_equal_to_the_next_records_source_line() -> None:
    text = VALID.replace(TITLE, "arXiv2024").replace("cs.DC↗\n\n", "")
    result = parse(text)
    assert [(r.year, r.title) for r in result.author.records] == [
        (2025, "arXiv2024"),
        (2024, "FLUX: Fast Software-based Communication Overlap"),
    ]
    assert [severity for _, severity, _ in problems(result)] == ["warning"]  # the missing subject line


@pytest.mark.parametrize(
    "paragraph", ["cs.LG", "cs.DC, stat.ML", "Deep Learning Trends 2020", "NeurIPS 2023"]
)
def test_an_abstract_paragraph_that_looks_like_structure_stays_in_the_abstract(paragraph: str) -> None:
    abstract = f"{ABSTRACT}\n\n{paragraph}\n\nA last paragraph."
    result = parse(VALID.replace(ABSTRACT, abstract))
    assert problems(result) == []
    assert result.author.records[0].abstract == abstract
    assert result.author.records[0].subjects == ("cs.DC",)


def test_a_subject_like_last_paragraph_without_arrow_is_the_subject_line() -> None:
    result = parse(VALID.replace("cs.DC↗", "cs.DC"))
    assert problems(result) == []
    assert result.author.records[0].subjects == ("cs.DC",)


def test_a_missing_subject_line_ends_the_record_at_a_known_source() -> None:
    text = VALID.replace("cs.DC↗\n\n", "").replace(ABSTRACT, f"{ABSTRACT}\n\nNeurIPS 2023")
    result = parse(text)
    first, second = result.author.records
    assert first.abstract == f"{ABSTRACT}\n\nNeurIPS 2023"
    assert (second.year, second.subjects) == (2024, ("cs.LG",))


def test_record_without_title_is_an_error() -> None:
    text = VALID.replace(f"{TITLE}\n\n{ABSTRACT}\n\n", "")
    result = parse(text)
    assert result.rejected
    assert problems(result)[0] == (9, "error", "record 'arXiv2025' has no title")
    assert problems(result)[1:] == []


def test_record_at_end_of_file_without_title_is_an_error() -> None:
    result = parse(VALID + "\narXiv2023\n")
    assert problems(result) == [(25, "error", "record 'arXiv2023' has no title")]


def test_a_missing_title_reads_the_abstract_as_title_with_warnings() -> None:
    long_abstract = "word " * 120
    text = VALID.replace(f"{TITLE}\n\n{ABSTRACT}", long_abstract)
    result = parse(text)
    assert not result.rejected
    assert [(line, severity) for line, severity, _ in problems(result)] == [(11, "warning"), (11, "warning")]
    assert "is the title missing" in problems(result)[0][2] + problems(result)[1][2]


@pytest.mark.parametrize("head", ["arXiv2099", "arXiv1066", "arXiv20255", "arXiv25"])
def test_impossible_year_is_an_error(head: str) -> None:
    result = parse(replace_line(VALID, 17, head))
    assert result.rejected
    line, severity, message = problems(result)[0]
    assert (line, severity) == (17, "error")
    assert message.startswith("impossible year")


def test_garbage_where_a_record_should_start_is_an_error_and_parsing_resumes() -> None:
    text = VALID.replace("arXiv2024", "Some stray text\n\narXiv2024")
    result = parse(text)
    assert problems(result) == [
        (17, "error", "expected a source-and-year line such as 'arXiv2025', found 'Some stray text'")
    ]
    assert result.rejected


def test_all_problems_of_a_file_are_reported_sorted() -> None:
    text = replace_line(replace_line(VALID, 15, "cs.XY↗"), 23, "cs.QQ↗")
    lines = [line for line, _, _ in problems(parse(text))]
    assert lines == [15, 23]


def test_read_seeds_skips_non_seed_files_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(VALID, encoding="utf-8")
    (tmp_path / ".hidden.txt").write_text("x", encoding="utf-8")
    (tmp_path / "notes.md").write_text("x", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    parses, notes = read_seeds(
        tmp_path, "seeds", lambda data, path: parse_seed(data, path, latest_year=LATEST)
    )
    assert [p.author.name for p in parses] == ["Ada Lovelace"]
    assert sorted(n.path for n in notes) == ["seeds/.hidden.txt", "seeds/folder", "seeds/notes.md"]
    assert all(n.severity is Severity.NOTE for n in notes)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_parser_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    result = parse_seed(data, "seeds/x.txt", latest_year=LATEST)
    assert result.author is not None or result.diagnostics


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "arXiv subjects",
                "Ada",
                "Publications and source records attributed to Ada.",
                "3 records",
                "arXiv2025",
                "arXiv20x5",
                "Title $x$",
                "Abstract with $unbalanced",
                "cs.DC↗",
                "zz.QQ↗",
                "",
                "\u00a0",
                "\ufeff",
                "\r",
                "At least 2 records",
                "\\textit{e.g.}",
                "<script>",
            ]
        ),
        max_size=40,
    )
)
def test_parser_never_raises_on_seed_like_text(lines: list[str]) -> None:
    result = parse("\n".join(lines))
    for diagnostic in result.diagnostics:
        assert diagnostic.path == "seeds/a.txt"
        assert 0 <= diagnostic.line <= len(lines) + 1


def test_unknown_tex_macro_is_only_a_note() -> None:
    result = parse(VALID.replace(ABSTRACT, "\\ours{} beats the baseline."))
    assert [(line, sev) for line, sev, _ in problems(result)] == [(13, "note")]
    assert not result.rejected


@pytest.mark.parametrize("control", ["\x00", "\x01", "\x1b", "\x7f", "\x85", "\x9b"])
def test_control_characters_are_removed_with_one_warning_per_line(control: str) -> None:
    text = VALID.replace("Ada Lovelace\n", f"Ada{control} Lovelace{control}\n", 1)
    text = text.replace(TITLE, f"{control}[31m{TITLE}")
    result = parse(text)
    codes = f"U+{ord(control):04X}"
    assert problems(result) == [
        (3, "warning", f"removed control character(s) {codes}"),
        (11, "warning", f"removed control character(s) {codes}"),
    ]
    assert result.author.name == "Ada Lovelace"
    assert result.author.records[0].title == f"[31m{TITLE}"


def test_tabs_and_crlf_line_breaks_are_not_control_characters() -> None:
    result = parse(VALID.replace("\n", "\r\n").replace("Fused kernels", "Fused\tkernels"))
    assert problems(result) == []
    assert result.author.records[1].abstract == "Fused kernels hide communication."


def test_size_limits_are_errors_naming_the_line() -> None:
    from scholarsite.inputs import seeds

    huge_title = VALID.replace(TITLE, "T" * (seeds.MAX_TITLE + 1))
    assert problems(parse(huge_title))[0][:2] == (11, "error")
    huge_abstract = VALID.replace(ABSTRACT, "word " * (seeds.MAX_ABSTRACT // 5 + 1))
    assert (11, "error") in [(line, severity) for line, severity, _ in problems(parse(huge_abstract))]
    head = VALID.split("arXiv2025")[0]
    many = head + "".join(f"arXiv2020\n\nPaper {i}\n\nAn abstract.\n\ncs.LG↗\n\n" for i in range(5_002))
    result = parse(many)
    assert result.rejected and "more than 5,000 records" in problems(result)[-1][2]
    too_big = parse(b"x" * (seeds.MAX_SEED_BYTES + 1))
    assert problems(too_big) == [(0, "error", "the file is 16.0 MiB; seed files may be at most 16 MiB")]


def test_what_checking_a_seeds_math_found_is_kept_in_the_memo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seed parsed again (after an edit) finds the problems of math it checked before in
    the memo, without converting it; math it has not seen is converted."""
    from scholarsite.inputs.memo import Memo
    from scholarsite.inputs.seeds import remembered_math
    from scholarsite.tex import render

    text = VALID.replace(ABSTRACT, ABSTRACT + r" Costs $O(\foo n)$ and $\frac{1}{$ at most.")
    memo = Memo(tmp_path / "derived.sqlite")
    first = parse_seed(text.encode(), "seeds/a.txt", latest_year=LATEST, math=remembered_math(memo))
    assert first == parse(text)
    found = [d.message for d in first.diagnostics]
    assert "TeX: unknown macro '\\foo' in math kept as TeX source" in found
    memo.save()

    def converted(body: str, display: bool) -> None:
        raise AssertionError(f"converted {body!r}")

    monkeypatch.setattr(render, "math_check", converted)
    edited = text.replace("FLUX", "FLUX 2")
    again = parse_seed(
        edited.encode(), "seeds/a.txt", latest_year=LATEST, math=remembered_math(Memo(memo.path))
    )
    assert [d.message for d in again.diagnostics] == found
    unseen = edited.replace("n)$", "m)$").encode()
    with pytest.raises(AssertionError, match=r"converted 'O\(\\\\foo m\)'"):
        parse_seed(unseen, "seeds/a.txt", latest_year=LATEST, math=remembered_math(Memo(memo.path)))
