"""The kept model (`model.snapshot`): written after a build, made again by the next one-shot
build with the seeds that changed since merged again, it gives the model `build_model` gives
of the same records, field by field."""

from __future__ import annotations

import hashlib
import os
import random
import secrets
from collections.abc import Callable, Container, Iterable
from dataclasses import replace
from pathlib import Path

import pytest

from scholarsite.inputs.jsondata import loads
from scholarsite.inputs.seeds import AuthorRecord
from scholarsite.inputs.sources import Sources
from scholarsite.inputs.userkey import signed, signed_body, user_key
from scholarsite.model import related
from scholarsite.model.communities import find_communities
from scholarsite.model.model import Author, Identities, Paper, Site, build_model, title_identity
from scholarsite.model.network import build_network, coauthor_pairs
from scholarsite.model.readagain import ReadAgain
from scholarsite.model.snapshot import MAGIC, Basis, Citing, Kept, body_of, keep, kept_model, unchanged
from scholarsite.model.warm import WarmModel
from tests.test_warm_model import PUBLISHED, edited, linked, network_shape, plain, retitled, seed, shape


def numbered(seeds: dict[str, AuthorRecord]) -> None:
    """Each seed's records on lines of their own, as a parse gives them (`edited` puts each new
    record on line 99)."""
    for path, author in seeds.items():
        records = tuple(replace(r, line=3 + 4 * n) for n, r in enumerate(author.records))
        if records != author.records:
            seeds[path] = replace(author, records=records)


def basis_of(seeds: dict[str, AuthorRecord]) -> Basis:
    """Each seed's digest, as a file's would be: another for any change of its records."""
    return Basis({path: hashlib.sha256(repr(s).encode()).hexdigest() for path, s in seeds.items()}, "", "")


def test_a_kept_model_merged_by_the_change_gives_the_whole_merge(tmp_path: Path, reused: list[int]) -> None:
    """Each step merges by the change a model kept by the last one; what it keeps is what a
    model made whole would write (the author rows it takes as they were read included)."""
    key = user_key()
    rng = random.Random(1206)
    identities = Identities(aliases={"dan oz": "eve-ng"})
    kept = tmp_path / "model.signed"
    merged_again = 0
    for run in range(10):
        seeds = {f"seeds/s{n}.txt": seed(rng, f"seeds/s{n}.txt") for n in range(8)}
        first = WarmModel()
        first.build(seeds.values(), PUBLISHED, identities, plain)
        keep(kept, first, basis_of(seeds), Citing())
        for step in range(30):
            change = edited(rng, seeds)
            numbered(seeds)
            warm = kept_model(kept, list(seeds.values()), basis_of(seeds), {}, Sources())
            assert warm.last is not None, f"run {run}, step {step}: the kept model was not used"
            updated = warm.build(seeds.values(), PUBLISHED, identities, plain)
            merged_again += bool(updated.changes and warm.last and warm.last.changes.steps)
            whole = build_model(seeds.values(), PUBLISHED, identities, plain)
            assert shape(updated) == shape(whole), f"run {run}, step {step}: {change}"
            assert linked(updated), f"run {run}, step {step}: {change}"
            assert updated.by_key == {p.key: p for p in updated.papers}, f"run {run}, step {step}: {change}"
            facts = {p.key: p.facts for p in updated.papers}  # a kept paper's: kept with it
            assert facts == {p.key: p.facts for p in whole.papers}, f"run {run}, step {step}: {change}"
            assert facts == {p.key: Paper.facts.func(p) for p in updated.papers}  # of its texts, taken now
            assert warm.last is not None
            every_row_made = body_of(warm.last, basis_of(seeds), Kept(basis_of(seeds), {}), Citing())
            made = b"".join(every_row_made)
            keep(kept, warm, basis_of(seeds), Citing())
            written = signed_body(kept.read_bytes(), key, MAGIC) or b""
            assert rows_of(written) == rows_of(made), f"run {run}, step {step}: {change}"
    assert merged_again > 150  # most edits merged by the change, not whole
    assert reused[0] > 50  # author rows written again as they were read (of authors no edit touched)


def test_a_process_keeps_its_model_as_one_read(tmp_path: Path, lines_read: list[int]) -> None:
    """A process that builds again (the preview) takes the model it kept as a one-shot build
    takes the one it reads: the next model it keeps writes again the lines of the papers still
    the same objects (what it writes is still what a model made whole would write), and
    `unchanged` names those papers, with their texts' digests and citation keys as written;
    with another sources.yaml, or former keys not known, nothing is unchanged."""
    key = user_key()
    rng = random.Random(1207)
    kept = tmp_path / "model.signed"
    seeds = {f"seeds/s{n}.txt": seed(rng, f"seeds/s{n}.txt") for n in range(8)}
    warm = WarmModel()
    site = warm.build(seeds.values(), PUBLISHED, Identities(), plain)
    for step in range(25):
        mark = keep(kept, warm, basis_of(seeds), citing(site), site.former_keys)
        assert mark, f"step {step}"
        before = {id(paper) for paper in site.papers}
        change = edited(rng, seeds)
        numbered(seeds)
        site = warm.build(seeds.values(), PUBLISHED, Identities(), plain)
        found = unchanged(warm, site, mark, basis_of(seeds))
        same = [paper for paper in site.papers if id(paper) in before]
        if warm.last is not None and warm.last.changes.steps:  # merged by the change
            assert found is not None, f"step {step}: {change}"
            assert {id(paper) for paper in same} == held(found.papers, site.papers), f"step {step}: {change}"
            texts = {paper.key: related.text_digest(paper.title, paper.abstract) for paper in same}
            assert found.texts == texts and found.bases == {key: f"base-{key}" for key in texts}
        assert warm.last is not None
        made = b"".join(body_of(warm.last, basis_of(seeds), Kept(basis_of(seeds), {}), citing(site)))
        keep(kept, warm, basis_of(seeds), citing(site), site.former_keys)
        written = signed_body(kept.read_bytes(), key or b"", MAGIC) or b""
        assert rows_of(written) == rows_of(made), f"step {step}: {change}"
    assert len(lines_read) > 100  # the unchanged papers' lines, read again from the process's own file
    other_sources = replace(basis_of(seeds), sources="another")
    assert unchanged(warm, site, warm.kept.mark, basis_of(seeds)) is not None  # type: ignore[union-attr]
    assert unchanged(warm, site, warm.kept.mark, other_sources) is None  # type: ignore[union-attr]
    keep(kept, warm, other_sources, citing(site))  # former keys not known
    assert unchanged(warm, site, warm.kept.mark, other_sources) is None  # type: ignore[union-attr]
    once = WarmModel()  # a one-shot build's: the same file, no rows noted (it builds no more)
    once.build(seeds.values(), PUBLISHED, Identities(), plain)
    keep(tmp_path / "once.signed", once, basis_of(seeds), citing(site), site.former_keys, again=False)
    assert isinstance(once.kept, Kept) and not once.kept.rows and not once.kept.author_rows
    written = signed_body((tmp_path / "once.signed").read_bytes(), key or b"", MAGIC) or b""
    assert once.last is not None
    made = b"".join(body_of(once.last, basis_of(seeds), Kept(basis_of(seeds), {}), citing(site)))
    assert rows_of(written) == rows_of(made)


def test_a_paper_whose_former_keys_changed_is_not_unchanged(tmp_path: Path) -> None:
    """A paper a former key leads to since (retitled: lineage.txt gives its old key) or no
    longer leads to may have another sources.yaml entry: it is not unchanged; the other papers
    still are (a title edit does not make every paper's values again)."""
    rng = random.Random(1209)
    kept = tmp_path / "model.signed"
    seeds = {f"seeds/s{n}.txt": seed(rng, f"seeds/s{n}.txt") for n in range(8)}
    warm = WarmModel()
    site = warm.build(seeds.values(), PUBLISHED, Identities(), plain)
    mark = keep(kept, warm, basis_of(seeds), citing(site), {"2001/gone": "2001/elsewhere"})
    change = edited(rng, seeds)
    numbered(seeds)
    site = warm.build(seeds.values(), PUBLISHED, Identities(), plain)
    site.former_keys = {"2001/gone": "2001/elsewhere"}
    before = unchanged(warm, site, mark, basis_of(seeds))
    assert before is not None and len(held(before.papers, site.papers)) > 2, change
    first, second = [paper for paper in site.papers if id(paper) in before.papers][:2]
    site.former_keys = {"2001/gone": first.key, "2002/gone": second.key}  # one moved, one new
    found = unchanged(warm, site, mark, basis_of(seeds))
    assert found is not None
    assert held(found.papers, site.papers) == held(before.papers, site.papers) - {id(first), id(second)}


def held(found: Container[int], items: Iterable[object]) -> set[int]:
    """The ids of `items` that `found` (ids, as `unchanged` gives them) holds."""
    return {id(item) for item in items if id(item) in found}


def citing(site: Site) -> Citing:
    """A citation key's base for each paper of `site`, made of its key (as a build's are of
    the paper alone)."""
    return Citing({paper.key: f"base-{paper.key}" for paper in site.papers})


def rows_of(body: bytes) -> list[bytes]:
    """The lines of a kept model's papers and authors (its header aside)."""
    return body.split(b"\n")[1:]


@pytest.fixture
def lines_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The spans of the kept model's lines read again (`ReadAgain.part`), as they are read."""
    spans: list[int] = []
    part = ReadAgain.part

    def counted(self: ReadAgain, span: int) -> bytes | None:
        found = part(self, span)
        spans.extend([span] if found is not None else [])
        return found

    monkeypatch.setattr(ReadAgain, "part", counted)
    return spans


@pytest.fixture
def reused(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many author rows keeping a model took as they were read."""
    count = [0]
    author_row = Kept.author_row

    def counted(self: Kept, author: Author) -> bytes | None:
        row = author_row(self, author)
        count[0] += row is not None
        return row

    monkeypatch.setattr(Kept, "author_row", counted)
    return count


def test_kept_lines_are_read_again_only_from_the_file_read_while_it_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines_read: list[int]
) -> None:
    """A kept model's lines are not held: those written again are read again from the file the
    build read. Changed in place since, its rows are made again (the same lines); changed while
    they are read again, no model is kept and the file stays as it was."""
    rng = random.Random(1208)
    kept = tmp_path / "model.signed"
    seeds = {f"seeds/s{n}.txt": seed(rng, f"seeds/s{n}.txt") for n in range(8)}
    first = WarmModel()
    first.build(seeds.values(), PUBLISHED, Identities(), plain)
    keep(kept, first, basis_of(seeds), Citing())
    seeds["seeds/added.txt"] = seed(rng, "seeds/added.txt")
    numbered(seeds)
    original = kept.read_bytes()

    def kept_again(meanwhile: Callable[[], object]) -> tuple[str, list[bytes], list[bytes]]:
        """The mark of the model kept after `meanwhile`, its rows, and the rows made afresh."""
        kept.write_bytes(original)
        warm = kept_model(kept, list(seeds.values()), basis_of(seeds), {}, Sources())
        warm.build(seeds.values(), PUBLISHED, Identities(), plain)
        assert warm.last is not None
        made = rows_of(b"".join(body_of(warm.last, basis_of(seeds), Kept(basis_of(seeds), {}), Citing())))
        lines_read.clear()
        meanwhile()
        mark = keep(kept, warm, basis_of(seeds), Citing())
        return mark, rows_of(signed_body(kept.read_bytes(), user_key() or b"", MAGIC) or b""), made

    mark, written, made = kept_again(lambda: None)
    assert mark and written == made and len(lines_read) > 5  # most papers' lines read again
    mark, written, made = kept_again(lambda: os.utime(kept, ns=(1, 1)))  # changed in place
    assert mark and written == made and lines_read == []
    part = ReadAgain.part

    def changed_while_read(self: ReadAgain, span: int) -> bytes | None:
        os.utime(kept, ns=(1, 1))
        return part(self, span)

    monkeypatch.setattr(ReadAgain, "part", changed_while_read)
    mark, _, _ = kept_again(lambda: None)
    assert mark == "" and kept.read_bytes() == original


def test_a_kept_network_is_the_network_of_the_model_it_is_reused_for(tmp_path: Path) -> None:
    """The co-author network kept with the model is the next build's while the papers merged
    again count the same co-author pairs (a retitle), else made again: either way the network
    made from the whole model."""
    rng = random.Random(1207)
    kept, reused = tmp_path / "model.signed", 0
    for run in range(4):
        seeds = {f"seeds/s{n}.txt": seed(rng, f"seeds/s{n}.txt") for n in range(8)}
        first = WarmModel()
        first.build(seeds.values(), PUBLISHED, Identities(), plain)
        keep(kept, first, basis_of(seeds), Citing())
        for step in range(20):
            change = (retitled if step % 2 else edited)(rng, seeds)
            numbered(seeds)
            warm = kept_model(kept, list(seeds.values()), basis_of(seeds), {}, Sources())
            site = warm.build(seeds.values(), PUBLISHED, Identities(), plain)
            pairs = coauthor_pairs(site)
            whole = build_network(site, find_communities(pairs), pairs)
            network = warm.network.reused(site)
            reused += network is not None
            if network is None:
                network = build_network(site, find_communities(pairs), pairs)
                warm.network.keep(network, site)
            assert network_shape(network) == network_shape(whole), f"run {run}, step {step}: {change}"
            keep(kept, warm, basis_of(seeds), Citing())
    assert reused >= 30


def test_a_model_kept_by_other_code_planted_or_damaged_is_not_used(tmp_path: Path) -> None:
    """Only a model this user's builds signed is read (its slugs and counts are taken as they
    are); a signed one of other code, with a value of the wrong type or nested deep is not
    used either: the model is merged whole."""
    seeds = {f"seeds/s{n}.txt": seed(random.Random(n), f"seeds/s{n}.txt") for n in range(4)}
    first = WarmModel()
    first.build(seeds.values(), PUBLISHED, Identities(), plain)
    kept = tmp_path / "model.signed"
    keep(kept, first, basis_of(seeds), Citing())
    assert kept_model(kept, list(seeds.values()), basis_of(seeds), {}, Sources()).last is not None
    key = user_key()
    assert key is not None
    body = signed_body(kept.read_bytes(), key, MAGIC)
    assert body is not None
    good = body.decode()
    lines = good.split("\n")
    first_author = 1 + loads(lines[0])["papers"]
    deep = "[" + "[" * 5000 + "]" * 5000 + "," + lines[first_author][1:]
    for damaged in (
        signed(secrets.token_bytes(32), MAGIC, body),  # planted: signed by another key
        body,  # not signed at all
        *(
            signed(key, MAGIC, text.encode())
            for text in (
                good.replace('"code":"', '"code":"other'),
                good.replace('\n["', '\n[["deep"],"', 1),  # a paper's key not a string
                "\n".join([*lines[:first_author], deep, *lines[first_author + 1 :]]),  # an author nested deep
                "\n".join(lines[:-1]),  # an author short
                good[: len(good) // 2],
                "[" * 100_000 + "]" * 100_000,
            )
        ),
    ):
        kept.write_bytes(damaged)
        warm = kept_model(kept, list(seeds.values()), basis_of(seeds), {}, Sources())
        assert warm.last is None
        assert shape(warm.build(seeds.values(), PUBLISHED, Identities(), plain)) == shape(
            build_model(seeds.values(), PUBLISHED, Identities(), plain)
        )


def test_an_author_merged_again_under_the_same_slug_names_no_spelling(tmp_path: Path) -> None:
    """An edit merges its seed's author again (a new object): with the same spellings and slug,
    every name links as before, so no spelling is named (each kept paper's author list is then
    not searched, nor its texts read); renamed, the new spelling is named."""
    rng = random.Random(8)
    seeds = {f"seeds/s{n}.txt": seed(rng, f"seeds/s{n}.txt") for n in range(8)}
    numbered(seeds)
    first = WarmModel()
    first.build(seeds.values(), PUBLISHED, Identities(), plain)
    kept = tmp_path / "model.signed"
    mark = keep(kept, first, basis_of(seeds), Citing())
    path = next(path for path, author in seeds.items() if author.records)
    author = seeds[path]
    for edit, named in (("abstract", set()), ("name", {"zed renamed"})):
        if edit == "abstract":
            records = (replace(author.records[0], abstract="An edited abstract."), *author.records[1:])
            seeds[path] = replace(author, records=records)
        else:
            seeds[path] = replace(author, name="Zed Renamed")
        warm = kept_model(kept, list(seeds.values()), basis_of(seeds), {}, Sources())
        before = {id(a) for a in warm.kept.authors}  # type: ignore[union-attr]
        site = warm.build(seeds.values(), PUBLISHED, Identities(), plain)
        merged_again = next(a for a in site.authors if path in a.seed_paths)
        found = unchanged(warm, site, mark, basis_of(seeds))
        assert id(merged_again) not in before and found is not None
        assert named <= found.spellings and (named or not found.spellings), edit


def test_unchanged_names_the_papers_the_kept_model_made_and_the_authors_added_or_gone(tmp_path: Path) -> None:
    """After a seed is added, the papers the kept model made and the build did not merge again
    are unchanged; the added author's spellings are named (a card listing that name links
    someone else now); a model merged whole has nothing unchanged, nor one whose mark is not
    the build state's (saved with another model, or not saved)."""
    rng = random.Random(7)
    seeds = {f"seeds/s{n}.txt": seed(rng, f"seeds/s{n}.txt") for n in range(8)}
    numbered(seeds)
    first = WarmModel()
    built = first.build(seeds.values(), PUBLISHED, Identities(), plain)
    kept = tmp_path / "model.signed"
    bases = {paper.key: f"base{n}" for n, paper in enumerate(built.papers)}
    mark = keep(kept, first, basis_of(seeds), Citing(bases))
    added = replace(seed(rng, "seeds/new.txt"), name="Gil Newcomer")
    seeds["seeds/new.txt"] = added
    warm = kept_model(kept, list(seeds.values()), basis_of(seeds), {}, Sources())
    site = warm.build(seeds.values(), PUBLISHED, Identities(), plain)
    assert mark and unchanged(warm, site, None, basis_of(seeds)) is None
    assert unchanged(warm, site, "another", basis_of(seeds)) is None
    found = unchanged(warm, site, mark, basis_of(seeds))
    assert found is not None and found.spellings == {"gil newcomer"}
    assert id(next(a for a in site.authors if a.name == "Gil Newcomer")) not in found.authors
    assert len(held(found.authors, site.authors)) >= len(site.authors) / 2
    newcomer = next(a for a in site.authors if a.name == "Gil Newcomer")
    assert not any(id(paper) in found.papers for paper in newcomer.papers)
    groups_of_added = {(r.year, r.identity.title) for r in added.records}
    untouched = [p for p in site.papers if (p.year, title_identity(p.title)) not in groups_of_added]
    assert {id(p) for p in untouched} <= held(found.papers, site.papers)
    kept_papers = [p for p in site.papers if id(p) in found.papers]
    assert found.texts == {p.key: related.text_digest(p.title, p.abstract) for p in kept_papers}
    assert found.bases == {p.key: f"base{n}" for n, p in enumerate(built.papers) if p.key in found.texts}
    whole = WarmModel()
    assert (
        unchanged(whole, whole.build(seeds.values(), PUBLISHED, Identities(), plain), mark, basis_of(seeds))
        is None
    )
