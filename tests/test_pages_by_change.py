"""The preview plans its pages by the change (`outputs.families.pages_by_change`): after a
change to seeds, only the pages that may have changed are planned, the others carried over,
and the site and every manifest key are still a clean build's."""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks.corpus import generate
from scholarsite import pipeline
from scholarsite.inputs.project import load_project
from scholarsite.inputs.state import BuildState
from scholarsite.model import snapshot, urls
from scholarsite.model.model import Paper
from scholarsite.outputs.families import exports
from scholarsite.outputs.families.pages import Planner, keyed
from scholarsite.outputs.families.pages_by_change import PagesByChange
from scholarsite.outputs.parts import PartKeys
from scholarsite.preview.server import Preview
from scholarsite.write.manifest import read_manifest

from .conftest import BASE_URL_YAML, make_project
from .test_incremental import (
    add_seed,
    clean_build,
    edit_abstract,
    edit_title,
    edited,
    manifest_keys,
    remove_seed,
    site_files,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    seeds = tmp_path / "seeds"
    generate(seeds, 24, 90, seed=11)
    return make_project(tmp_path / "project", seeds=seeds, site_yaml=BASE_URL_YAML)


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> list[PagesByChange]:
    """Each build's pages by the change, as the builds make them."""
    made: list[PagesByChange] = []

    class Noted(PagesByChange):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(pipeline, "PagesByChange", Noted)
    return made


def test_seed_edits_in_the_preview_plan_by_the_change_and_equal_clean_builds(
    project: Path, tmp_path: Path, planned: list[PagesByChange]
) -> None:
    rng = random.Random(1203)
    preview = Preview(project, reload=lambda: None)
    preview.rebuild()
    for step in range(12):
        edit = rng.choice([edit_title, edit_title, edit_abstract, edit_abstract, add_seed, remove_seed])
        change, paths = edited(project, edit, rng)
        preview.rebuild(paths)
        assert preview.problems == [], f"step {step}: {change}"
        clean = tmp_path / f"clean-{step}"
        clean_build(project, clean)
        assert site_files(project / "site") == site_files(clean), f"step {step}: {change}"
        assert manifest_keys(project / "site") == manifest_keys(clean), f"step {step}: {change}"
        shutil.rmtree(clean)
    by_change = [made for made in planned if made.chosen is not None]
    assert len(by_change) >= 6
    assert all(made.carried for made in by_change)


def test_a_title_edit_plans_again_the_pages_that_read_the_paper_and_carries_the_rest(
    project: Path, planned: list[PagesByChange]
) -> None:
    preview = Preview(project, reload=lambda: None)
    preview.rebuild()
    data, _ = pipeline.site_data(load_project(project))
    paper = next(p for p in data.site.papers if len(p.authors) == 1)
    author = paper.authors[0]
    own = {p.key for p in author.papers}
    strangers = [a for a in data.site.authors if not own & {p.key for p in a.papers}]
    retitle(project, paper)
    preview.rebuild([str(project / paper.provenance[0].path)])
    assert preview.problems == []
    made = planned[-1]
    assert made.chosen is not None
    assert {("author", author.key), ("paper", paper.key), ("year", str(paper.year))} <= made.chosen
    assert len(made.chosen) < len(made.order) / 2
    carried = [a for a in strangers if ("author", a.key) not in made.chosen]
    assert carried, "an author sharing no paper with the edited one is carried over"
    assert urls.author(carried[0].slug) in made.carried
    assert urls.paper(paper.year, paper.slug) not in made.carried


def test_a_carried_page_missing_or_changed_in_the_site_is_made_again(
    project: Path, tmp_path: Path, planned: list[PagesByChange]
) -> None:
    """A page the change did not touch is carried over only when its file is intact: one
    deleted and one changed by hand are made again (every page planned), as a clean build
    has them."""
    preview = Preview(project, reload=lambda: None)
    preview.rebuild()
    rng = random.Random(7)
    change, paths = edited(project, edit_abstract, rng)
    preview.rebuild(paths)
    made = planned[-1]
    assert made.chosen is not None
    deleted, changed = sorted(path for path in made.carried if path.startswith("authors/"))[:2]
    change, paths = edited(project, edit_abstract, rng)
    (project / "site" / deleted).unlink()
    (project / "site" / changed).write_text("<p>changed by hand</p>", encoding="utf-8")
    preview.rebuild(paths)
    assert preview.problems == []
    clean = tmp_path / "clean"
    clean_build(project, clean)
    assert site_files(project / "site") == site_files(clean), change


def retitle(project: Path, paper: Paper) -> None:
    """Add a word to a paper's title in its first seed."""
    seed = project / paper.provenance[0].path
    seed.write_text(seed.read_text(encoding="utf-8").replace(paper.title, paper.title + " revised", 1))


def reword(project: Path, paper: Paper) -> None:
    """Add a word to a paper's abstract in its first seed (its key stays the same)."""
    seed = project / paper.provenance[0].path
    text = seed.read_text(encoding="utf-8")
    assert paper.abstract in text
    seed.write_text(text.replace(paper.abstract, paper.abstract + " Revised.", 1), encoding="utf-8")


def test_a_one_shot_build_plans_by_the_change_since_the_last_complete_build(
    project: Path, tmp_path: Path, planned: list[PagesByChange]
) -> None:
    """One-shot builds read the last plan from the build state: a title edit plans again the
    pages that read the paper, not the others'."""
    pipeline.build(project)
    assert planned[-1].chosen is None  # nothing kept yet: every page
    data, _ = pipeline.site_data(load_project(project))
    paper = next(p for p in data.site.papers if len(p.authors) == 1)
    retitle(project, paper)
    pipeline.build(project)
    made = planned[-1]
    assert made.chosen is not None and len(made.chosen) < len(made.order) / 2
    assert ("author", paper.authors[0].key) in made.chosen
    assert made.carried
    clean = tmp_path / "clean"
    clean_build(project, clean)
    assert site_files(project / "site") == site_files(clean)
    assert manifest_keys(project / "site") == manifest_keys(clean)


def test_an_abstract_edit_plans_the_papers_page_not_the_listings_showing_its_summary(
    project: Path, tmp_path: Path, planned: list[PagesByChange]
) -> None:
    """An abstract edit changes the paper's card, not its summary (what listing rows show): the
    paper's page is planned again, its subjects' and year's listings are carried (a title
    edit, which changes the summary, plans them)."""
    pipeline.build(project)
    data, _ = pipeline.site_data(load_project(project))
    paper = next(p for p in data.site.papers if len(p.provenance) == 1 and p.abstract)
    listings = {("subject", s.code) for s in paper.subjects} | {("year", str(paper.year))}
    reword(project, paper)
    pipeline.build(project)
    made = planned[-1]
    assert made.chosen is not None and ("paper", paper.key) in made.chosen
    assert listings and not listings & made.chosen
    clean = tmp_path / "clean"
    clean_build(project, clean)
    assert site_files(project / "site") == site_files(clean)
    assert manifest_keys(project / "site") == manifest_keys(clean)
    retitle(project, paper)
    pipeline.build(project)
    assert listings <= planned[-1].chosen  # type: ignore[operator]


def test_plans_not_of_the_last_complete_build_are_not_used(
    project: Path, tmp_path: Path, planned: list[PagesByChange], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build that ended after its site was switched but before its state was kept (killed,
    or the state could not be written) leaves plans of an older site: the next build plans
    every page, and its site is a clean build's."""
    pipeline.build(project)
    data, _ = pipeline.site_data(load_project(project))
    first, second = [p for p in data.site.papers if len(p.authors) == 1][:2]
    retitle(project, first)
    with monkeypatch.context() as patched:
        patched.setattr(BuildState, "save_page_plans", lambda *args: None)
        pipeline.build(project)
    assert planned[-1].chosen is not None
    retitle(project, second)
    pipeline.build(project)
    assert planned[-1].chosen is None
    clean = tmp_path / "clean"
    clean_build(project, clean)
    assert site_files(project / "site") == site_files(clean)
    assert manifest_keys(project / "site") == manifest_keys(clean)


def test_a_kept_model_older_than_the_state_is_not_taken_for_its_digests(
    project: Path, tmp_path: Path, planned: list[PagesByChange]
) -> None:
    """A build that kept its state but not its model (it ended between the two) leaves a
    model older than the state's digests: a paper that model made, its subjects edited since
    and edited back, took the state's digest of the edit for its own, and its pages kept the
    edit. The state keeps the mark of the model kept with it; another mark, and no paper is
    taken as unchanged."""
    pipeline.build(project)
    model = project / snapshot.SNAPSHOT_FILE
    older = model.read_bytes()
    seed = sorted((project / "seeds").glob("*.txt"))[0]
    before = seed.read_text(encoding="utf-8")
    subjects = next(line for line in before.split("\n") if line.endswith("↗"))
    seed.write_text(before.replace(subjects, subjects + " cs.LG↗", 1), encoding="utf-8")
    pipeline.build(project)
    model.write_bytes(older)  # as if the build had ended after keeping its state, not its model
    seed.write_text(before, encoding="utf-8")
    pipeline.build(project)
    assert planned[-1].data.unchanged is None
    clean = tmp_path / "clean"
    clean_build(project, clean)
    assert site_files(project / "site") == site_files(clean)


def test_adding_a_seed_plans_by_the_change_though_the_network_changed(
    project: Path, tmp_path: Path, planned: list[PagesByChange]
) -> None:
    """A new seed brings new co-author pairs: every ego figure is made again to find those
    that changed, and only their authors' pages (with the others the change touched) are
    planned again."""
    pipeline.build(project)
    before = planned[-1].plans.network
    seed = sorted((project / "seeds").glob("*.txt"))[0]
    text = seed.read_text(encoding="utf-8")
    name = text.split("\n\n")[1].strip()  # the profile's name: its papers get a co-author
    (project / "seeds" / "added.txt").write_text(text.replace(name, "Ada Newcomer"), encoding="utf-8")
    pipeline.build(project)
    made = planned[-1]
    assert made.plans.network != before
    assert made.chosen is not None and made.carried
    clean = tmp_path / "clean"
    clean_build(project, clean)
    assert site_files(project / "site") == site_files(clean)
    assert manifest_keys(project / "site") == manifest_keys(clean)


@pytest.mark.parametrize("edit", [reword, retitle])
def test_a_build_knows_the_digests_of_the_cards_and_records_whose_inputs_are_the_same(
    project: Path, planned: list[PagesByChange], edit: Callable[[Path, Paper], None]
) -> None:
    """After an edit to a paper, a one-shot build works out the digests of the cards and
    citation records of the papers of the seed edited (merged again) and of few others, and of
    the cards of that seed's author: every other paper and author is one the kept model made
    and the change did not merge again, whose digests the build state holds (not read, but for
    a page that shows it); and every digest so kept is the value's when made."""
    pipeline.build(project)
    data, _ = pipeline.site_data(load_project(project))
    paper = next(p for p in data.site.papers if len(p.authors) == 1)
    edit(project, paper)
    pipeline.build(project)
    data = planned[-1].data
    edited = paper.provenance[0].path
    of_seed = {p.key for p in data.site.papers if edited in {where.path for where in p.provenance}}
    worked_out = {
        kind: {key for k, key in planned[-1].plans.values if k == kind} for kind in ("paper", "record")
    }
    worked_out["author"] = {key for kind, key in planned[-1].plans.values if kind == "author"}
    if edit is reword:  # a new title is a new key, and lineage.txt changes: no paper is unchanged
        for kind in ("paper", "record"):  # and records citing it by a like title
            assert paper.key in worked_out[kind] and len(worked_out[kind] - of_seed) <= 2
            assert len(worked_out[kind]) < len(data.site.papers) / 4
        assert worked_out["author"] == {paper.authors[0].key}
    for values in (data.cards.papers, data.records, data.cards.authors):
        every = values.every_digest()
        assert every.keys() == values.entities.keys() and len(values.entities) > 10
        assert every == {key: values.value(key).digest for key in values.entities}


def test_an_added_author_changes_the_cards_whose_author_lists_name_them(
    project: Path, tmp_path: Path, planned: list[PagesByChange]
) -> None:
    """A paper card links each name of its own author list to the collection's author so
    spelled: a new seed for a name one paper's list gives changes that card's inputs (and its
    page, which links the newcomer now), and no other card's."""
    pipeline.build(project)
    data, _ = pipeline.site_data(load_project(project))
    paper = next(p for p in data.site.papers if len(p.authors) == 1)
    seed = project / paper.provenance[0].path
    listed = f"{paper.title}\n\nAuthors: {paper.authors[0].name}; Zed Outsider\n"
    seed.write_text(seed.read_text(encoding="utf-8").replace(f"{paper.title}\n", listed, 1), encoding="utf-8")
    pipeline.build(project)
    other = sorted((project / "seeds").glob("*.txt"))[-1]
    text = other.read_text(encoding="utf-8")
    (project / "seeds" / "zed.txt").write_text(text.replace(text.split("\n\n")[1], "Zed Outsider"))
    pipeline.build(project)
    cards = planned[-1].data.cards.papers
    known = planned[-1].data.known([("paper", key) for key in cards.entities])
    known = {key: known.get(("paper", key)) for key in cards.entities}
    changed = {key for key, (inputs, _) in cards.found.items() if not known[key] or known[key][0] != inputs}
    zed = [card["path"] for card in cards.value(paper.key)["all_authors"] if card["name"] == "Zed Outsider"]
    assert paper.key in changed and zed == ["authors/zed-outsider/index.html"]
    zeds = {p.key for p in planned[-1].data.site.papers if "Zed Outsider" in {a.name for a in p.authors}}
    assert changed <= zeds | {paper.key}
    clean = tmp_path / "clean"
    clean_build(project, clean)
    assert site_files(project / "site") == site_files(clean)


def test_an_abstract_edit_rewrites_the_bibtex_files_from_the_entries_kept(
    project: Path, tmp_path: Path, planned: list[PagesByChange]
) -> None:
    """The BibTeX files an edited paper is in are made again from the entries the memo kept
    by their records' digests, through builds that made no BibTeX file (a new site title):
    its authors' part holds every paper of this project, yet few citation records are made."""
    pipeline.build(project)
    settings = project / "site.yaml"
    settings.write_text(settings.read_text().replace("Test records", "Other records"))
    pipeline.build(project)
    data, _ = pipeline.site_data(load_project(project))
    paper = next(p for p in data.site.papers if len(p.authors) == 1)
    reword(project, paper)
    pipeline.build(project)
    records = planned[-1].data.records
    assert len(records.made) < len(records.entities) / 4
    clean = tmp_path / "clean"
    clean_build(project, clean)
    bibtex = {path: text for path, text in site_files(clean).items() if path.endswith(".bib")}
    assert bibtex and {path: site_files(project / "site")[path] for path in bibtex} == bibtex


def test_a_listing_is_keyed_by_its_cards_digests_and_makes_the_cards_of_a_page_it_renders(
    project: Path,
) -> None:
    """A listing page is planned and keyed with its cards' digests, known from the last build
    (`cards.CardRef`): planning every page of a subject's listing makes none of its papers'
    cards, and its key is the whole plan's; rendering a page makes the cards that page shows."""
    with (project / "site.yaml").open("a", encoding="utf-8") as settings:
        settings.write("papers_per_page: 2\n")
    pipeline.build(project)
    data, _ = pipeline.site_data(load_project(project), pipeline.Caches.of(project))
    subject = max(data.site.subjects, key=lambda s: len(s.papers))
    listed = {p.key for p in subject.papers}
    planner = Planner(data)
    planned = list(keyed(data, planner, planner.subject(subject)))
    assert len(planned) >= 3 and len(listed) >= 8
    assert not listed & data.cards.papers.made.keys()
    recorded = read_manifest(str(project / "site"))[0]
    assert [recorded[page.path][0] for page in planned] == [page.key for page in planned]
    last = planned[-1]
    built = (project / "site" / last.path).read_bytes()
    assert last.produce() == built
    shown = {p.key for p in subject.papers[-2:]}  # pages after the first hold papers_per_page
    assert listed & data.cards.papers.made.keys() == shown


def test_files_of_many_items_take_the_last_keys_only_while_their_items_are_kept(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parts of the data lists and of the authors' BibTeX and the subjects' papers.bib
    take the last build's key when they list the same items, all as the kept model had them
    (`outputs.parts`): after one-shot edits, adds and removals most are not worked out, and
    the site and every manifest key are a clean build's."""
    monkeypatch.setattr(exports, "PART_SIZE", {"papers": 8, "authors": 3})  # lists in parts
    monkeypatch.setattr(exports, "AUTHORS_A_BIBTEX_PART", 3)
    taken, worked_out = [], []

    def key(self: PartKeys, path: str, members: str, unchanged: Any, work_out: Any) -> str:
        found = original(self, path, members, unchanged, lambda: worked_out.append(path) or work_out())
        if not worked_out or worked_out[-1] != path:
            taken.append(path)
        return found

    original = PartKeys.key
    monkeypatch.setattr(PartKeys, "key", key)
    rng = random.Random(77)
    pipeline.build(project)
    for step in range(8):
        taken.clear()
        worked_out.clear()
        change, _ = edited(project, rng.choice([edit_title, edit_abstract, add_seed, remove_seed]), rng)
        pipeline.build(project)
        assert taken and worked_out, f"step {step}: {change}"  # some kept, those changed worked out
        clean = tmp_path / f"clean-{step}"
        clean_build(project, clean)
        assert site_files(project / "site") == site_files(clean), f"step {step}: {change}"
        assert manifest_keys(project / "site") == manifest_keys(clean), f"step {step}: {change}"
        shutil.rmtree(clean)
