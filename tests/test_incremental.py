"""Incremental builds equal clean builds, and parallel builds equal serial ones, byte for byte.

A long random sequence of edits (seeds added, removed, renamed and edited; titles and abstracts;
templates, partials, content, assets, site.yaml) is applied to one project. After every step
the incrementally rebuilt site/ is compared with a clean build into an empty folder.
Pagefind's filter files are excepted: Pagefind writes them in an arbitrary order (upstream
issue #638), so only their names are compared.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks.corpus import generate
from scholarsite import pipeline
from scholarsite.inputs import seeds as seeds_module
from scholarsite.inputs import state as state_module
from scholarsite.inputs.config import NONE_GIVEN
from scholarsite.inputs.memo import MEMO_FILE
from scholarsite.inputs.project import load_project
from scholarsite.inputs.state import BuildState
from scholarsite.model import lineage, urls
from scholarsite.model.model import Author
from scholarsite.model.warm import WarmModel
from scholarsite.outputs.coauthors import CoauthorViews
from scholarsite.outputs.families import exports, pages
from scholarsite.outputs.registry import Output
from scholarsite.outputs.site import in_search
from scholarsite.preview.server import Preview
from scholarsite.write import MANIFEST, STATS, shortcut

from .conftest import BASE_URL_YAML, make_project

STEPS = 40


UNSTABLE = re.compile(r"pagefind/\d+/(filter/.*|pagefind\.[^/]*\.pf_meta|pagefind-entry\.json)$")


def site_files(site: Path) -> dict[str, bytes]:
    """Every file of a built site by path; Pagefind's filter files (and the index files that
    name them by their hash) only counted."""
    found, unstable = {}, 0
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        if not path.is_file() or rel in (MANIFEST, STATS):
            continue
        if UNSTABLE.match(rel):
            unstable += 1
        else:
            found[rel] = path.read_bytes()
    found["(pagefind filter files)"] = str(unstable).encode()
    return found


def stable(paths: tuple[str, ...]) -> list[str]:
    """The paths but Pagefind's unstable file names."""
    return [path for path in paths if not UNSTABLE.match(path)]


def manifest_keys(site: Path) -> dict[str, str]:
    """The key the manifest records for every file but the unstable search files."""
    files = json.loads((site / MANIFEST).read_text())["files"]
    return {path: entry[0] for path, entry in files.items() if not UNSTABLE.match(path)}


def seed_files(project: Path) -> list[Path]:
    return sorted((project / "seeds").glob("*.txt"))


def edit_title(project: Path, rng: random.Random) -> str:
    seed = rng.choice(seed_files(project))
    lines = seed.read_text(encoding="utf-8").split("\n\n")
    index = next(i + 1 for i, block in enumerate(lines) if re.fullmatch(r"arXiv\d{4}", block.strip()))
    lines[index] = f"{lines[index]} revised {rng.randrange(1000)}"
    seed.write_text("\n\n".join(lines), encoding="utf-8")
    return f"title in {seed.name}"


def edit_abstract(project: Path, rng: random.Random) -> str:
    seed = rng.choice(seed_files(project))
    text = seed.read_text(encoding="utf-8")
    seed.write_text(text.replace(" with ", f" with {rng.randrange(100)} ", 1), encoding="utf-8")
    return f"abstract in {seed.name}"


def add_seed(project: Path, rng: random.Random) -> str:
    scratch = project.parent / "scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    generate(scratch, 3, 6, seed=rng.randrange(10_000))
    source = rng.choice(sorted(scratch.glob("*.txt")))
    target = project / "seeds" / f"added-{rng.randrange(10_000)}.txt"
    shutil.copy(source, target)
    return f"add {target.name}"


def remove_seed(project: Path, rng: random.Random) -> str:
    seeds = seed_files(project)
    if len(seeds) < 3:
        return add_seed(project, rng)
    victim = rng.choice(seeds)
    victim.unlink()
    return f"remove {victim.name}"


def rename_seed(project: Path, rng: random.Random) -> str:
    seed = rng.choice(seed_files(project))
    target = seed.with_name(f"renamed-{rng.randrange(10_000)}.txt")
    seed.rename(target)
    return f"rename {seed.name} to {target.name}"


def edit_template(project: Path, rng: random.Random) -> str:
    name = rng.choice(["paper.html", "author.html", "listing.html", "base.html", "home.html"])
    visible_edit(project / "templates" / name, f"<!-- {name} {rng.randrange(1000)} -->")
    return f"template {name}"


def visible_edit(template: Path, comment: str) -> None:
    """Add a comment that shows in the output (inside the main block of a child template)."""
    text = template.read_text()
    if "{% block main %}" in text:
        template.write_text(text.replace("{% block main %}", "{% block main %}" + comment, 1))
    else:
        template.write_text(text + comment + "\n")


def edit_partial(project: Path, rng: random.Random) -> str:
    partial = project / "templates/partials/paper_summary.html"
    partial.write_text(partial.read_text() + f"<!-- summary {rng.randrange(1000)} -->\n")
    return "partial paper_summary.html"


def edit_content(project: Path, rng: random.Random) -> str:
    page = project / "content/about.md"
    page.write_text(page.read_text() + f"\nOne more line {rng.randrange(1000)}.\n")
    return "content about.md"


def edit_asset(project: Path, rng: random.Random) -> str:
    asset = project / "assets/style.css"
    asset.write_text(asset.read_text() + f"\n/* {rng.randrange(1000)} */\n")
    return "asset style.css"


def edit_settings(project: Path, rng: random.Random) -> str:
    choice = rng.choice(
        [
            BASE_URL_YAML,
            "title: Another title\n",
            f"title: Paged\npapers_per_page: {rng.choice([3, 5, 8])}\nbase_url: https://example.org/x/\n",
        ]
    )
    (project / "site.yaml").write_text(choice)
    return "site.yaml"


EDITS: list[Callable[[Path, random.Random], str]] = [
    edit_title,
    edit_abstract,
    add_seed,
    remove_seed,
    rename_seed,
    edit_template,
    edit_partial,
    edit_content,
    edit_asset,
    edit_settings,
]


def input_files(project: Path) -> dict[str, bytes]:
    """Every file of the project but its site and caches, by absolute path (as a watcher
    names them)."""
    skipped = ("site", ".scholarsite-cache")
    return {
        str(path): path.read_bytes()
        for path in project.rglob("*")
        if path.is_file() and path.relative_to(project).parts[0] not in skipped
    }


def edited(
    project: Path, edit: Callable[[Path, random.Random], str], rng: random.Random
) -> tuple[str, list[str]]:
    """The edit made, and the paths it changed, added or removed (what a watcher reports)."""
    before = input_files(project)
    change = edit(project, rng)
    after = input_files(project)
    return change, sorted(
        path for path in before.keys() | after.keys() if before.get(path) != after.get(path)
    )


def clean_build(project: Path, site: Path) -> None:
    """A build into `site` with caches of its own, empty (the project's are never read), so a
    stale cache cannot hide on both sides of a comparison."""
    pipeline.build(project, site, caches=pipeline.Caches.empty())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    seeds = tmp_path / "seeds"
    generate(seeds, 8, 24, seed=5)
    return make_project(tmp_path / "project", seeds=seeds, site_yaml=BASE_URL_YAML)


def test_incremental_builds_equal_clean_builds(project: Path, tmp_path: Path) -> None:
    rng = random.Random(20261201)
    pipeline.build(project)
    for step in range(STEPS):
        change = rng.choice(EDITS)(project, rng)
        pipeline.build(project)
        clean = tmp_path / f"clean-{step}"
        clean_build(project, clean)
        incremental, fresh = site_files(project / "site"), site_files(clean)
        assert incremental.keys() == fresh.keys(), f"step {step}: {change}"
        differing = [path for path in fresh if incremental[path] != fresh[path]]
        assert differing == [], f"step {step} ({change}) differs from a clean build"
        assert manifest_keys(project / "site") == manifest_keys(clean), f"step {step}: {change}"
        shutil.rmtree(clean)


def test_preview_rebuilds_equal_clean_builds(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm preview's in-memory path (one Preview for the whole sequence: its parse cache,
    memo, compiled templates and model kept between saves, the lineage following the model's
    change, the inputs looked at where the watcher saw changes; the page a browser shows synced
    first, then the other pages, browsers told, then search) gives, after every edit, the site
    and the lineage.txt a clean build gives; also when the watcher missed the change (then
    found when the build is done, and built)."""
    followed: list[bool] = []
    by_change = lineage.by_change
    monkeypatch.setattr(lineage, "by_change", lambda *a: followed.append(by_change(*a)) or followed[-1])
    rng = random.Random(1201)
    reloads: list[int] = []
    preview = Preview(project, reload=lambda: reloads.append(1))
    preview.rebuild()
    for step in range(STEPS // 2):
        pages = sorted(path for path in site_files(project / "site") if path.endswith("index.html"))
        preview.opened = rng.choice(pages)  # the page a browser shows: synced first, on its own
        before = input_files(project)
        change = rng.choice(EDITS)(project, rng)
        after = input_files(project)
        missed = rng.random() < 1 / 6  # the watcher's paths: none, or those that changed
        seen = (
            []
            if missed
            else [path for path in before.keys() | after.keys() if before.get(path) != after.get(path)]
        )
        told = len(reloads)
        preview.rebuild(seen)
        assert preview.problems == [], f"step {step}: {change}"
        shown = len(reloads) - told  # the shown page alone, then all (after a missed change: again)
        assert shown in ((1, 2, 3, 4) if missed else (1, 2)), f"step {step}: {change}"
        remembered = (project / "lineage.txt").read_text(encoding="utf-8")
        clean = tmp_path / f"clean-{step}"
        clean_build(project, clean)
        assert (project / "lineage.txt").read_text(encoding="utf-8") == remembered, (
            f"step {step}: {change} {missed}"
        )
        assert site_files(project / "site") == site_files(clean), f"step {step}: {change}"
        assert manifest_keys(project / "site") == manifest_keys(clean), f"step {step}: {change}"
        shutil.rmtree(clean)
    assert followed.count(True) >= STEPS // 8  # the change was followed, not only the whole


def test_parallel_build_equals_serial_build(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    generate(seeds, 40, 300, seed=9)
    project = make_project(tmp_path / "project", seeds=seeds, site_yaml=BASE_URL_YAML)
    serial = pipeline.build(project, tmp_path / "serial", workers=1)
    parallel = pipeline.build(project, tmp_path / "parallel", workers=3)
    assert stable(parallel.report.produced) == stable(serial.report.produced)
    assert len(serial.report.produced) > 400  # enough for worker processes
    assert site_files(tmp_path / "serial") == site_files(tmp_path / "parallel")


def test_editing_one_template_renders_only_its_pages(project: Path) -> None:
    pipeline.build(project)
    visible_edit(project / "templates/paper.html", "<!-- edited -->")
    report = pipeline.build(project).report
    paper_page = re.compile(r"papers/\d{4}/[^/]+/index\.html")
    assert report.written and all(paper_page.fullmatch(p) for p in report.written)
    papers = {p for p in site_files(project / "site") if paper_page.fullmatch(p)}
    assert set(report.written) == papers
    assert set(report.produced) == papers


def test_editing_an_asset_copies_one_file(project: Path) -> None:
    pipeline.build(project)
    asset = project / "assets/site.js"
    asset.write_text(asset.read_text() + "\n// edited\n")
    report = pipeline.build(project).report
    assert report.written == report.produced == ("assets/site.js",)


def test_no_change_produces_nothing(project: Path) -> None:
    """A change to the inputs that changes no output (a trailing space on a seed line) gets
    past the fingerprint shortcut, and every output is then skipped by its key."""
    pipeline.build(project)
    seed = seed_files(project)[0]
    seed.write_text(seed.read_text(encoding="utf-8").replace("\n", " \n", 1), encoding="utf-8")
    assert shortcut.look(project, project / "site", NONE_GIVEN).unchanged is None
    report = pipeline.build(project).report
    assert report.written == report.produced == () and report.removed == ()
    assert len(report.unchanged) > 100


def links_to(html: str, slug: str) -> bool:
    """Whether a page links to the paper page whose slug is `slug` (from any depth)."""
    return re.search(rf'href="[^"]*\b{re.escape(slug)}/(index\.html)?"', html) is not None


LISTING_RE = re.compile(r"(authors/[^/]+|subjects/[^/]+|years/\d+)/(page/\d+/)?index\.html")  # summaries


def test_editing_one_abstract_plans_exactly_the_outputs_that_read_that_paper(project: Path) -> None:
    """Counted, not timed: after one abstract changes, the outputs made are exactly those that
    show the paper's card (pages linking to it but the listings of authors, subjects and
    years, whose rows show whether it has an abstract, not the text; feeds with its entry, the
    BibTeX files and data that list it) and the paper pages whose related papers changed with
    the new text; the search index is left out (it is counted by its own tests)."""
    pipeline.build(project)
    before = {
        p: (project / "site" / p).read_text() for p in site_files(project / "site") if p.endswith(".html")
    }
    data, _ = pipeline.site_data(load_project(project))
    paper = max(data.site.papers, key=lambda p: len(p.authors))
    related_before = {key: [p.key for p in found] for key, found in data.related.items()}
    seed = project / paper.provenance[0].path
    text = seed.read_text(encoding="utf-8")
    first_words = paper.abstract.split("\n")[0][:40]
    assert text.count(first_words) == 1
    seed.write_text(text.replace(first_words, first_words + " freshly edited", 1), encoding="utf-8")

    report = pipeline.build(project).report
    after, _ = pipeline.site_data(load_project(project))
    related_after = {key: [p.key for p in found] for key, found in after.related.items()}
    moved = {
        after.cards.paper(p)["path"]
        for p in after.site.papers
        if related_before[p.key] != related_after[p.key]
    }
    card = after.cards.paper(next(p for p in after.site.papers if p.key == paper.key))
    linking = {path for path, html in before.items() if links_to(html, paper.slug)}
    shown = {path for path in linking if not LISTING_RE.fullmatch(path)}
    assert len(linking - shown) >= 3  # its authors', subjects' and year's listings, not made
    feeds = {
        p
        for p in site_files(project / "site")
        if p.endswith("feed.xml") and urls.beside(card["path"], "") in (project / "site" / p).read_text()
    }
    subjects_bib = {urls.beside(s["path"], "papers.bib") for s in card["subjects"]}
    count = len(after.site.authors)
    authors_bib = {exports.author_bibtex_part(a.slug, count) for a in paper.authors}  # their parts
    expected = shown | moved | feeds | subjects_bib | authors_bib | {card["path"]}
    expected |= {"data/papers.json"}
    made = {path for path in report.produced if not in_search(path)}
    assert made == expected
    assert len({path for path in made if path.endswith(".html")}) < len(before) / 2


def test_the_opened_page_is_planned_alone_with_the_key_a_whole_plan_gives(project: Path) -> None:
    """The preview plans the page a browser shows on its own before the rest of the site:
    for an author (every page of a paginated one), a paper, a subject and a year, that plan
    is the very output (path and key) planning the whole site gives; any other page is left
    to the whole plan."""
    with (project / "site.yaml").open("a", encoding="utf-8") as settings:
        settings.write("papers_per_page: 2\n")
    data, _ = pipeline.site_data(load_project(project))
    whole = {item.path: item.key for item in pages.outputs(data) if isinstance(item, Output)}
    author = max(data.site.authors, key=lambda a: len(a.papers))
    paper, subject, year = data.site.papers[-1], data.site.subjects[0], data.site.years[0]
    opened = [urls.paged(urls.author(author.slug), 2), urls.author(author.slug)]
    opened += [urls.paper(paper.year, paper.slug), urls.subject(subject.slug), urls.year(year.year)]
    for path in opened:
        assert path in whole
        found = pages.opened_page(data, path)
        assert [(item.path, item.key) for item in found] == [(path, whole[path])], path
    for path in (urls.HOME, urls.AUTHORS, urls.new(subject.slug), "authors/nobody/index.html"):
        assert pages.opened_page(data, path) == []


def test_the_opened_page_makes_the_cards_it_shows_not_the_collections(project: Path) -> None:
    """Cards and citation records are made when first asked for: planning an author's page
    alone (the preview's open page) makes the cards of that author's papers; a paper's page,
    its own card and record and its related papers' cards. Related papers and citation keys
    are found from the texts, without cards."""
    data, _ = pipeline.site_data(load_project(project))
    author = min(data.site.authors, key=lambda a: len(a.papers))
    assert pages.opened_page(data, urls.author(author.slug))
    made = sorted(data.cards.papers.made)
    assert made == sorted(p.key for p in author.papers)
    assert len(made) < len(data.site.papers)
    first = author.papers[0].key
    assert data.cards.papers[first] is data.cards.papers[first]  # made once, then kept
    data, _ = pipeline.site_data(load_project(project))
    paper = data.site.papers[0]
    assert pages.opened_page(data, urls.paper(paper.year, paper.slug))
    shown = [paper.key, *(p.key for p in data.related[paper.key])]
    assert sorted(data.cards.papers.made) == sorted(shown)
    assert list(data.records.made) == [paper.key]


def test_a_preview_build_with_a_page_open_equals_a_clean_build(project: Path, tmp_path: Path) -> None:
    """The preview with a browser on an author's page: after each edit that page is synced
    first, alone, then the rest; the site is a clean build's."""
    preview = Preview(project, reload=lambda: None)
    preview.rebuild()
    rng = random.Random(1202)
    for step in range(6):
        data, _ = pipeline.site_data(load_project(project))
        author = rng.choice(data.site.authors)
        preview.opened = urls.author(author.slug)
        change, paths = edited(project, rng.choice([edit_title, edit_abstract, add_seed]), rng)
        preview.rebuild(paths)
        assert preview.problems == [], f"step {step}: {change}"
        clean = tmp_path / f"clean-{step}"
        clean_build(project, clean)
        assert site_files(project / "site") == site_files(clean), f"step {step}: {change}"
        shutil.rmtree(clean)


def test_the_state_keeps_exactly_the_digests_saved_last(tmp_path: Path) -> None:
    """Saving input digests writes only the rows that differ from those read; what is read back
    is what was saved, whatever was there."""
    state = BuildState(tmp_path / "state.sqlite")
    first = {
        "seeds/a.txt": ((1, 2, 3), b"a"),
        "seeds/b.txt": ((4, 5, 6), b"b"),
        "site.yaml": ((7, 8, 9), b"y"),
    }
    state.save_input_digests(first, state.input_digests())
    second = {
        "seeds/a.txt": ((1, 2, 3), b"a"),
        "seeds/b.txt": ((4, 5, 7), b"B"),
        "seeds/c.txt": ((0, 0, 1), b"c"),
    }
    state.save_input_digests(second, state.input_digests())
    assert state.input_digests() == second
    state.close()
    assert BuildState(tmp_path / "state.sqlite").input_digests() == second


def test_the_values_asked_for_are_found_whether_looked_up_or_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The digests of the values asked for, those kept and no others: by lookups, or (past
    SCAN_ABOVE of a kind) by a scan of the kind's rows, which keeps only those asked for."""
    state = BuildState(tmp_path / "state.sqlite")
    kept = {("paper", f"p{n}"): (f"d{n}", f"i{n}") for n in range(6)} | {("author", "a"): ("da", "")}
    state.save_page_plans(("tag", "basis", "network"), ({}, {}), (kept, ()), {}, True, "model")
    asked = [("paper", "p1"), ("paper", "p4"), ("paper", "p9"), ("author", "a"), ("author", "b")]
    expected = {read: kept[read] for read in asked if read in kept}
    assert state.page_values_of(asked) == expected
    monkeypatch.setattr(state_module, "SCAN_ABOVE", 1)
    assert state.page_values_of(asked) == expected
    state.close()


def test_recorded_seeds_are_not_read_again(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build takes the parse of a seed whose stamp (size, mtime, inode) is the one the last
    fingerprint recorded from the parse cache without reading the file; an edited seed, whose
    stamp changed, is read. Either way the parses are those of reading every file."""
    settled = time.time() - 60
    for seed in seed_files(project):
        os.utime(seed, (settled, settled))
    pipeline.build(project)
    pipeline.build(project)  # nothing to do; the settled stamps are recorded
    edited = seed_files(project)[0]
    edited.write_text(edited.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    looked = shortcut.look(project, project / "site", NONE_GIVEN)
    read: list[str] = []
    original = seeds_module.read_input

    def reading(path: Path, *rest: Any) -> bytes:
        read.append(path.name)
        return original(path, *rest)

    monkeypatch.setattr(seeds_module, "read_input", reading)
    caches = pipeline.Caches.of(project)
    fast = load_project(project, caches.parses, NONE_GIVEN, looked.files.regular)
    assert read == [edited.name]
    assert fast.seeds == load_project(project).seeds and fast.diagnostics == load_project(project).diagnostics


def stored_keys(project: Path) -> set[bytes]:
    """The keys of the entries the project's memo file holds."""
    with contextlib.closing(sqlite3.connect(project / MEMO_FILE)) as db:
        return {key for (key,) in db.execute("SELECT key FROM entries")}


def test_a_process_that_builds_again_keeps_the_names_of_papers_it_did_not_merge_again(project: Path) -> None:
    """The preview's model is merged by the change, so a build after a save names (slugs,
    plain titles) only the papers that changed: the memo keeps the other papers' names rather
    than dropping them. So does a one-shot build that plans only the pages the change reaches;
    one that plans every page (a template edited) keeps what it used."""
    caches = pipeline.Caches.of(project)
    caches.model = WarmModel()
    pipeline.build(project, caches=caches, workers=1)
    first = stored_keys(project)
    edit_abstract(project, random.Random(3))
    pipeline.build(project, caches=caches, workers=1)
    after_save = stored_keys(project)
    assert first < after_save
    edit_abstract(project, random.Random(4))
    pipeline.build(project, caches=pipeline.Caches.of(project), workers=1)
    one_shot = stored_keys(project)
    assert after_save < one_shot
    visible_edit(project / "templates/paper.html", "<!-- edited -->")
    pipeline.build(project, caches=pipeline.Caches.of(project), workers=1)
    assert len(stored_keys(project)) < len(one_shot)


def test_a_new_coauthor_makes_again_only_the_ego_figures_near_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An added seed (a new author of a seed's papers) changes the co-author network: only the
    ego figures of the authors whose own co-authors or community changed, and of their
    co-authors, are made again; the others keep their digests; the site is a clean build's."""
    seeds = tmp_path / "seeds"
    generate(seeds, 300, 600, seed=7)
    project = make_project(tmp_path / "project", seeds=seeds, site_yaml=BASE_URL_YAML)
    pipeline.build(project)
    before, _ = pipeline.site_data(load_project(project))
    source = seed_files(project)[0]
    name = source.read_text(encoding="utf-8").split("\n")[2]
    added = source.read_text(encoding="utf-8").replace(name, "Zed Q. Added")
    (project / "seeds" / "zz-added.txt").write_text(added, encoding="utf-8")
    made: list[str] = []
    real = CoauthorViews.ego
    monkeypatch.setattr(
        CoauthorViews, "ego", lambda views, author: made.append(author.key) or real(views, author)
    )
    pipeline.build(project)
    monkeypatch.undo()
    after, _ = pipeline.site_data(load_project(project))
    was = {a.key: network_view(before, a) for a in before.site.authors}
    touched = {a.key for a in after.site.authors if was.get(a.key) != network_view(after, a)}
    near = touched | {c.key for a in after.site.authors if a.key in touched for c, _ in a.coauthors}
    assert made and set(made) <= near
    assert len(set(made)) < len([a for a in after.site.authors if a.coauthors]) / 2
    clean = tmp_path / "clean"
    clean_build(project, clean)
    assert site_files(project / "site") == site_files(clean)


def network_view(data: pipeline.SiteData, author: Author) -> tuple[object, ...]:
    """What the network says of an author: name, co-authors with papers shared, community."""
    community = data.coauthor_views.community(author) if author.coauthors else None
    return author.name, [(c.key, n) for c, n in author.coauthors], community
