"""URLs that outlive corrections (issue 28, part 6): a paper whose title is corrected keeps a
redirect at every page it had, its sources.yaml entry follows it, and the memory of it
(`lineage.txt`) is a committed input: a clean build of the same inputs makes the same site."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scholarsite import pipeline
from scholarsite.errors import BuildError
from scholarsite.inputs import lineage_file
from scholarsite.inputs.cache import ParseCache
from scholarsite.inputs.lineage_file import (
    LINEAGE_FILE,
    MAX_ANCHORS,
    Lineage,
    dump_lineage,
    parse_lineage,
    read_lineage,
)
from scholarsite.inputs.sources import load_sources
from scholarsite.model import lineage
from scholarsite.model.lineage import matches
from scholarsite.preview import server
from scholarsite.sources import link

from .conftest import BASE_URL_YAML, make_project
from .test_incremental import site_files
from .test_preview import call

HEAD = """arXiv subjects

Ada Lovelace

Publications and source records attributed to Ada Lovelace.

2 recordsLinked to original sources
"""
RECORD = """
arXiv{year}

{title}

{abstract}

cs.ET↗
"""
SKETCH = RECORD.format(
    year=2019, title="Sketch of the Analytical Engine", abstract="A translation, with notes."
)
TYPO, FIXED, FIXED_AGAIN = (
    "Notes on the Analytcal Engine",
    "Notes on the Analytical Engine",
    "Notes on the Analytical Engine, corrected",
)
ABSTRACT = "How the engine computes the Bernoulli numbers."
OLD_PAGE = "papers/2020/notes-on-the-analytcal-engine/index.html"
NEW_PAGE = "papers/2020/notes-on-the-analytical-engine/index.html"
SOURCES = """papers:
  2020/notes on the analytcal engine:
    status: found
    arxiv_id: '1843.00001'
    published: 2020-03-01
"""


def write_seed(project: Path, title: str, abstract: str = ABSTRACT, first: bool = True) -> None:
    """Ada's seed: the paper of `title` and `abstract` (the first record, or the second), her Sketch."""
    notes = RECORD.format(year=2020, title=title, abstract=abstract)
    records = notes + SKETCH if first else SKETCH + notes
    (project / "seeds/ada.txt").write_text(HEAD + records, encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project of Ada's two papers, the first with a typo in its title, built once."""
    root = make_project(tmp_path / "project", site_yaml=BASE_URL_YAML)
    for seed in (root / "seeds").iterdir():
        seed.unlink()
    write_seed(root, TYPO)
    pipeline.build(root, workers=1)
    return root


def clean_build(project: Path, target: Path) -> Path:
    """The project's committed inputs (no site, no cache) copied to `target` and built there."""
    shutil.copytree(project, target, ignore=shutil.ignore_patterns("site", ".scholarsite-cache"))
    pipeline.build(target, workers=1)
    return target


def test_a_corrected_title_keeps_its_old_url_as_a_redirect(project: Path) -> None:
    write_seed(project, FIXED)
    pipeline.build(project, workers=1)
    site = project / "site"
    old = (site / OLD_PAGE).read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="0; url=../notes-on-the-analytical-engine/">' in old
    assert '<link rel="canonical" href="../notes-on-the-analytical-engine/">' in old
    assert '<a href="../notes-on-the-analytical-engine/">Notes on the Analytical Engine</a>' in old
    assert FIXED in (site / NEW_PAGE).read_text(encoding="utf-8")
    assert "analytcal" not in (site / "sitemap.xml").read_text(encoding="utf-8")


def test_every_url_a_paper_had_redirects(project: Path) -> None:
    for title in (FIXED, FIXED_AGAIN):
        write_seed(project, title)
        pipeline.build(project, workers=1)
    site = project / "site"
    for page in (OLD_PAGE, NEW_PAGE):
        assert "url=../notes-on-the-analytical-engine-corrected/" in (site / page).read_text(encoding="utf-8")
    (line,) = (v for k, v in read_lineage(project)[0].items() if k.endswith("corrected"))
    assert [path for _, path in line.former] == [OLD_PAGE, NEW_PAGE]


def test_a_rebuild_after_a_retitle_is_a_clean_build_of_the_same_inputs(project: Path, tmp_path: Path) -> None:
    """Byte for byte; and the next build changes nothing, not even lineage.txt."""
    write_seed(project, FIXED, abstract="How the engine computes the Bernoulli numbers, corrected.")
    pipeline.build(project, workers=1)  # title and abstract changed: the record's place decides
    clean = clean_build(project, tmp_path / "clean")
    assert site_files(project / "site") == site_files(clean / "site")
    assert (clean / LINEAGE_FILE).read_bytes() == (project / LINEAGE_FILE).read_bytes()
    stamp = (project / LINEAGE_FILE).stat().st_mtime_ns
    again = pipeline.build(project, workers=1)
    assert again.report.written == () and (project / LINEAGE_FILE).stat().st_mtime_ns == stamp


def test_the_sources_entry_follows_the_paper(project: Path, tmp_path: Path) -> None:
    (project / "sources.yaml").write_text(SOURCES, encoding="utf-8")
    write_seed(project, FIXED)
    result = pipeline.build(project, workers=1)
    assert not [d for d in result.diagnostics if d.path == "sources.yaml"]  # not a stale entry
    page = (project / "site" / NEW_PAGE).read_text(encoding="utf-8")
    assert "https://arxiv.org/abs/1843.00001" in page
    clean = clean_build(project, tmp_path / "clean")
    assert site_files(project / "site") == site_files(clean / "site")


def test_an_identifier_links_a_retitle_whose_abstract_and_place_changed(project: Path) -> None:
    """The entry moved by hand to the corrected key names the arXiv id lineage.txt knows."""
    (project / "sources.yaml").write_text(SOURCES, encoding="utf-8")
    pipeline.build(project, workers=1)
    assert "arxiv:1843.00001" in read_lineage(project)[0]["2020/notes on the analytcal engine"].anchors
    write_seed(project, FIXED, abstract="Other words.", first=False)
    (project / "sources.yaml").write_text(SOURCES.replace("analytcal", "analytical"), encoding="utf-8")
    pipeline.build(project, workers=1)
    old = (project / "site" / OLD_PAGE).read_text(encoding="utf-8")
    assert "url=../notes-on-the-analytical-engine/" in old


def test_one_to_one_matches_only() -> None:
    gone = {
        "2020/a": Lineage("2020/a", "papers/2020/a/index.html", ("abstract:1", "seed:s.txt#1")),
        "2020/b": Lineage("2020/b", "papers/2020/b/index.html", ("abstract:1", "seed:s.txt#2")),
        "2020/c": Lineage("2020/c", "papers/2020/c/index.html", ("arxiv:2001.00001",)),
    }
    fresh = {
        "2020/a2": ("abstract:1", "seed:s.txt#1"),  # one abstract, two papers: the place decides
        "2020/b2": ("abstract:1", "seed:s.txt#2"),
        "2020/c2": ("arxiv:2001.00001", "seed:s.txt#1"),  # the identifier wins over a place
        "2020/d": ("abstract:9",),
    }
    assert matches(fresh, gone) == {"2020/a2": "2020/a", "2020/b2": "2020/b", "2020/c2": "2020/c"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not a JSON array"),
        ('["2020/a", "papers/2020/../../etc/index.html", [], []]', "a page must look like"),
        ('["2020/a", "papers/2020/a/index.html", ["nonsense"], []]', "the anchors must be"),
        ('["2020/a", "papers/2020/a/index.html", [], [["2019/a", "../x"]]]', "the former pages must be"),
        ('["2020/a", "papers/2020/a/index.html", []]', "expected [key, page"),
    ],
)
def test_a_bad_line_is_an_error_at_its_line(line: str, message: str) -> None:
    text = '# comment\n["2020/b", "papers/2020/b/index.html", [], []]\n' + line + "\n"
    found, problems = parse_lineage(text, LINEAGE_FILE)
    assert list(found) == ["2020/b"]
    (problem,) = problems
    assert (problem.path, problem.line) == (LINEAGE_FILE, 3) and message in problem.message


def test_a_key_given_twice_is_an_error_and_the_build_stops(project: Path) -> None:
    text = (project / LINEAGE_FILE).read_text(encoding="utf-8")
    last = text.splitlines()[-1]
    (project / LINEAGE_FILE).write_text(text + last + "\n", encoding="utf-8")
    with pytest.raises(BuildError) as caught:
        pipeline.build(project, workers=1)
    (problem,) = [d for d in caught.value.diagnostics if d.path == LINEAGE_FILE]
    assert problem.line == len(text.splitlines()) + 1 and "on an earlier line" in problem.message


def test_bytes_read_without_a_problem_are_taken_as_they_are_and_give_the_same_lineage(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build notes in the parse cache that lineage.txt's bytes were read without a problem;
    so does one that wrote them; the next process takes those bytes in one decoding, not line by
    line, with the same result (entries, order, anchors, former pages); bytes with a problem are
    never taken so."""
    write_seed(project, FIXED)
    pipeline.build(project, workers=1)
    data = (project / LINEAGE_FILE).read_bytes()
    checked = lineage_file.parse_lineage(data.decode(), LINEAGE_FILE)[0]
    assert [*checked.values()] == [*(lineage_file.trusted_lineage(data) or {}).values()]
    assert any(line.former for line in checked.values())  # the corrected paper's former page
    lines: list[str] = []
    monkeypatch.setattr(
        lineage_file,
        "line_item",
        lambda line: lines.append(line) or lineage_file.lineage_of(json.loads(line)),
    )
    lineage_file.LAST_READ.clear()  # another process
    assert read_lineage(project, ParseCache(project)) == (checked, []) and lines == []  # written: known
    text = data.decode() + "[1, 2]\n"  # a bad line: an error each time it is read
    (project / LINEAGE_FILE).write_text(text, encoding="utf-8")
    for _ in range(2):
        assert [d.line for d in read_lineage(project, ParseCache(project))[1]] == [len(text.splitlines())]
        lineage_file.LAST_READ.clear()


def test_a_process_reading_back_what_it_wrote_gets_what_it_wrote(project: Path) -> None:
    """The file a build wrote is known again by its sha256 (its bytes are not held: 9 MB at
    37,537 papers): reading it back gives the very objects the build kept, not a parse; other
    bytes are parsed."""
    write_seed(project, FIXED)
    pipeline.build(project, workers=1)
    data = (project / LINEAGE_FILE).read_bytes()
    digest, kept, _ = lineage_file.LAST_READ[0]
    assert digest == hashlib.sha256(data).hexdigest()
    found, problems = read_lineage(project)
    assert found is kept and problems == []
    (project / LINEAGE_FILE).write_bytes(data + b"# a comment\n")
    found, problems = read_lineage(project)
    assert found is not kept and found == kept and problems == []


def test_the_preview_sends_the_old_url_to_the_new_page(project: Path) -> None:
    """`scholarsite serve` after the edit: the old URL is the redirect page, not the 404 page."""
    preview = server.Preview(project)
    write_seed(project, FIXED)
    preview.rebuild([str(project / "seeds/ada.txt")])
    app = server.PreviewApp(preview, "/")
    status, _, body = call(app, "/" + OLD_PAGE.removesuffix("index.html"))
    assert (
        status == 200
        and b'<meta http-equiv="refresh" content="0; url=../notes-on-the-analytical-engine/">' in body
    )
    assert call(app, "/" + NEW_PAGE.removesuffix("index.html"))[0] == 200


class Silent:
    """An arXiv client that answers nothing (the entry is kept as it is, then saved)."""

    def fetch(self, arxiv_id: str) -> list[object]:
        return []

    def search_title(self, title: str) -> list[object]:
        return []


def test_link_sources_moves_the_entry_to_the_corrected_key(project: Path) -> None:
    (project / "sources.yaml").write_text(SOURCES, encoding="utf-8")
    write_seed(project, FIXED)
    link.link_sources(project, link.Options(sources=(link.ARXIV,)), Silent())  # type: ignore[arg-type]
    entries, problems = load_sources(project)
    assert problems == [] and "2020/notes on the analytcal engine" not in entries
    assert entries["2020/notes on the analytical engine"].arxiv_id == "1843.00001"


def test_a_corrected_year_keeps_its_old_url_too(project: Path) -> None:
    (project / "seeds/ada.txt").write_text(
        HEAD + RECORD.format(year=2021, title=TYPO, abstract=ABSTRACT) + SKETCH, encoding="utf-8"
    )
    pipeline.build(project, workers=1)
    old = (project / "site" / OLD_PAGE).read_text(encoding="utf-8")
    assert 'url=../../2021/notes-on-the-analytcal-engine/"' in old


def test_lineage_txt_is_an_input_a_hand_edit_rebuilds(project: Path) -> None:
    """A redirect dropped from lineage.txt by hand is gone after the next build (no shortcut)."""
    write_seed(project, FIXED)
    pipeline.build(project, workers=1)
    lineage = project / LINEAGE_FILE
    text = lineage.read_text(encoding="utf-8")
    lineage.write_text(text.replace(f'[["2020/notes on the analytcal engine", "{OLD_PAGE}"]]', "[]"))
    result = pipeline.build(project, workers=1)
    assert OLD_PAGE in result.report.removed and not (project / "site" / OLD_PAGE).exists()


def test_a_paper_added_at_the_top_of_a_seed_changes_no_other_line(project: Path) -> None:
    """Places count from a seed's end: the newest paper, listed first, moves no other's."""
    before = set((project / LINEAGE_FILE).read_text(encoding="utf-8").splitlines())
    newest = RECORD.format(year=2021, title="On the newest engine", abstract="Newer words.")
    write_seed(project, TYPO)
    seed = project / "seeds/ada.txt"
    seed.write_text(seed.read_text(encoding="utf-8").replace(HEAD, HEAD + newest), encoding="utf-8")
    pipeline.build(project, workers=1)
    after = set((project / LINEAGE_FILE).read_text(encoding="utf-8").splitlines())
    assert before < after and len(after - before) == 1


def test_a_correction_that_makes_two_listings_one_keeps_both_urls(project: Path, tmp_path: Path) -> None:
    """Bob listed Ada's paper with the typo (its own page); fixed, it is her paper's page."""
    write_seed(project, FIXED)
    bob = HEAD.replace("Ada Lovelace", "Bob Babbage")
    bob += RECORD.format(year=2020, title=TYPO, abstract=ABSTRACT)
    (project / "seeds/bob.txt").write_text(bob, encoding="utf-8")
    pipeline.build(project, workers=1)
    old, new = project / "site" / OLD_PAGE, project / "site" / NEW_PAGE
    assert "Bob Babbage" in old.read_text(encoding="utf-8")  # a page of its own
    (project / "seeds/bob.txt").write_text(bob.replace(TYPO, FIXED), encoding="utf-8")
    pipeline.build(project, workers=1)
    assert "url=../notes-on-the-analytical-engine/" in old.read_text(encoding="utf-8")
    assert "Bob Babbage" in new.read_text(encoding="utf-8")
    assert site_files(project / "site") == site_files(clean_build(project, tmp_path / "clean") / "site")


def test_a_paper_many_seeds_list_is_remembered_in_a_lineage_that_reads_back(tmp_path: Path) -> None:
    """A paper listed by 100 seeds has 100 places: lineage.txt keeps at most MAX_ANCHORS anchors
    of it, so the next build reads back what this one wrote."""
    project = make_project(tmp_path / "p")
    shutil.rmtree(project / "seeds")
    (project / "seeds").mkdir()
    for number in range(100):
        name = f"Member Number{number:03d}"
        (project / "seeds" / f"m{number:03d}.txt").write_text(
            f"arXiv subjects\n\n{name}\n\nPublications and source records attributed to {name}.\n\n"
            f"At least 1 recordsLinked to original sources\n\narXiv2024\n\nA Large Collaboration\n\n"
            f"{ABSTRACT}\n\nhep-ex↗\n",
            encoding="utf-8",
        )
    pipeline.build(project, workers=1)
    remembered, problems = read_lineage(project)
    (entry,) = remembered.values()
    assert problems == [] and len(entry.anchors) == MAX_ANCHORS
    seed = project / "seeds/m000.txt"
    seed.write_text(seed.read_text(encoding="utf-8").replace("computes", "computed"), encoding="utf-8")
    pipeline.build(project, workers=1)  # reads back what the first build wrote


def test_the_warm_preview_follows_retitles_as_a_clean_build_does(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the preview's warm builds (its lineage following the model's change, not every
    paper), two retitles of a paper with a sources.yaml entry give the site and lineage.txt of
    a clean build, and the change was followed."""
    followed: list[bool] = []
    by_change = lineage.by_change
    monkeypatch.setattr(lineage, "by_change", lambda *a: followed.append(by_change(*a)) or followed[-1])
    undated = SOURCES.replace(
        "    published: 2020-03-01\n", ""
    )  # a date that moves re-sorts the model: whole
    (project / "sources.yaml").write_text(undated, encoding="utf-8")
    for name in ("Charles Babbage", "Mary Somerville", "Luigi Menabrea", "Augustus De Morgan"):
        record = RECORD.format(year=2021, title=f"Letters of {name}", abstract=f"What {name} wrote.")
        head = HEAD.replace("Ada Lovelace", name).replace("2 records", "1 record")
        (project / "seeds" / f"{name.split()[-1].lower()}.txt").write_text(head + record, encoding="utf-8")
    preview = server.Preview(project)  # a change to one seed of five is merged by the change
    preview.rebuild()
    for step, title in enumerate((FIXED, FIXED_AGAIN)):
        write_seed(project, title)
        preview.rebuild([str(project / "seeds/ada.txt")])
        assert preview.problems == []
        clean = clean_build(project, tmp_path / f"clean-{step}")
        assert (clean / LINEAGE_FILE).read_bytes() == (project / LINEAGE_FILE).read_bytes()
        assert site_files(project / "site") == site_files(clean / "site")
    corrected = project / "site" / NEW_PAGE.replace("engine", "engine-corrected")
    assert "https://arxiv.org/abs/1843.00001" in corrected.read_text(encoding="utf-8")  # the entry followed
    assert followed[-2:] == [True, True]


@pytest.mark.parametrize(
    "line",
    [
        Lineage("2025/plain", "papers/2025/plain/index.html", ("seed:seeds/a.txt#1",)),
        Lineage(
            '2024/\u00e9t\u00e9 "quoted" \\ \u2028 \x00\x1f\x7f \U0001f600',
            "papers/2024/ete/index.html",
            ("abstract:1a2b", "doi:10.1/x\ty", "seed:seeds/\u00fc.txt#12"),
            (("2023/old", "papers/2023/old/index.html"), ("2024/older", "papers/2024/older/index.html")),
        ),
        Lineage("2026/lone \ud800 surrogate", "papers/2026/lone/index.html", ()),
    ],
)
def test_a_line_is_its_json_array(line: Lineage) -> None:
    """What the file has always held: `json.dumps` of the array, without ASCII escapes."""
    data = [line.key, line.path, list(line.anchors), [list(pair) for pair in line.former]]
    assert line.line() == json.dumps(data, ensure_ascii=False, separators=(", ", ": "))


TEXTS = st.text(st.sampled_from('ab /"\\\u00e9\u2028\U0001f600\t') | st.characters(codec="utf-8"), max_size=4)
LINEAGES = st.dictionaries(TEXTS.filter(bool), TEXTS, max_size=10).map(  # keys that sort apart
    lambda pages: {key: Lineage(key, page, (f"seed:{key}",)) for key, page in pages.items()}  # in their JSON
)
FATES = st.lists(st.sampled_from(["same", "equal", "changed", "gone"]))


def fate(was: Lineage, what: str) -> Lineage | None:
    """The paper read `was` kept (the same object or an equal one), changed, or gone (None)."""
    if what == "gone":
        return None
    return was if what == "same" else replace(was, path=was.path + ("x" if what == "changed" else ""))


@settings(max_examples=300, deadline=None)
@given(LINEAGES, LINEAGES, FATES)
def test_the_lines_that_changed_spliced_into_a_dump_are_the_dump_of_the_papers(
    read: dict[str, Lineage], added: dict[str, Lineage], fates: list[str]
) -> None:
    """Papers kept (the same object or an equal one), changed, gone or added at any place: the
    dump of those read with the changed lines spliced in is the dump of the papers, byte for
    byte (a clean build's file is an incremental one's)."""
    papers = {key: paper for key, paper in added.items() if key not in read}
    for key, what in zip(sorted(read), fates + ["same"] * len(read), strict=False):
        if (paper := fate(read[key], what)) is not None:
            papers[key] = paper
    data = dump_lineage(read).encode("utf-8")
    assert b"".join(lineage_file.spliced(data, read, papers)) == dump_lineage(papers).encode("utf-8")


def test_an_edit_splices_its_lines_into_the_file_a_build_wrote(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parse cache knows lineage.txt as a build wrote it: the next process's retitle (a key
    gone, one added) and abstract edit (an anchor changed) splice their lines into those bytes,
    which are then the whole dump of the papers, byte for byte."""
    made: list[tuple[bytes, bytes]] = []  # spliced, and dumped whole
    splice = lineage_file.spliced

    def spliced(data: bytes, last: dict[str, Lineage], papers: dict[str, Lineage]) -> list[bytes]:
        made.append((b"".join(splice(data, last, papers)), dump_lineage(papers).encode("utf-8")))
        return [made[-1][0]]

    monkeypatch.setattr(lineage_file, "spliced", spliced)
    for title, abstract in ((FIXED, ABSTRACT), (FIXED, "How the engine computed them.")):
        lineage_file.LAST_READ.clear()  # another process
        write_seed(project, title, abstract)
        pipeline.build(project, workers=1)
        assert made[-1][0] == made[-1][1] == (project / LINEAGE_FILE).read_bytes()
    assert len(made) == 2 and NEW_PAGE in made[0][0].decode() and made[1][0] != made[0][0]


def test_a_hand_edited_lineage_is_written_whole_at_the_next_change(project: Path) -> None:
    """lineage.txt edited by hand (a comment, other spacing) is kept by a build with no change;
    the next change writes it whole, as a build writes it, not spliced into the hand's bytes."""
    lineage = project / LINEAGE_FILE
    lines = lineage.read_text(encoding="utf-8").splitlines(keepends=True)
    spaced = [
        json.dumps(json.loads(line), ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines[2:]
    ]
    edited = "".join([*lines[:2], "# kept by hand\n", "\n", *spaced])
    lineage.write_text(edited, encoding="utf-8")
    pipeline.build(project, workers=1)
    assert lineage.read_text(encoding="utf-8") == edited  # a build with no change writes nothing
    write_seed(project, FIXED)
    pipeline.build(project, workers=1)
    text = lineage.read_text(encoding="utf-8")
    assert text == dump_lineage(parse_lineage(text, LINEAGE_FILE)[0]) and NEW_PAGE in text
