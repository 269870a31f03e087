"""The model a complete build leaves for the next one-shot build, which merges it by the change.

A one-shot build starts with nothing in memory, and merging every seed's records into papers
and counting every author's views took 3-4 s of an abstract edit at 37,537 papers. A complete
build keeps its model (`model.warm.Merged`) in `.scholarsite-cache/model.signed`: each paper and
author by its place, with what the merge worked out (slugs, the site's order, co-author,
subject and year counts) and none of the records' texts, which the parse cache gives again
when a paper is first asked for them (`KeptPaper`: an edit reads few seeds' records); and what
it was made of: each seed's digest, the author pages' identities, the publication dates, and
the digests of lineage.txt and sources.yaml as the build left them. The next build makes the
objects again from it (a fifth of the merge's time), takes the seeds whose digest is not the
kept one as changed, and lets `WarmModel` merge those again and the lineage follow, as the
preview does after a save. The file is JSON (orjson) lines: a header (all but the papers and
authors, with their numbers), then a line per paper and per author, so that a build keeps the
line of each paper and author that stays the same (not its decoded row: 47 MB at 37,537 papers)
and writes it again as it was read. It is signed with the user's key (`inputs.userkey`): its
slugs, keys and counts are taken as they are, so a model planted in `.scholarsite-cache/` is
never used; nor is one of another code version, or one with anything unexpected in it: the
model is then merged whole, as without it (and without a key).
"""

from __future__ import annotations

import datetime
import os
import secrets
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

from scholarsite.inputs import taxonomy
from scholarsite.inputs.digests import code_version
from scholarsite.inputs.jsondata import dumps, loads_checked
from scholarsite.inputs.lineage_file import Lineage
from scholarsite.inputs.records import NO_DETAILS, AuthorRecord
from scholarsite.inputs.sources import Sources
from scholarsite.inputs.store import CACHE_FOLDER, replaced_atomically
from scholarsite.inputs.userkey import MAC_BYTES, signed_body, user_key, write_signed
from scholarsite.model import related
from scholarsite.model.cards import Unchanged
from scholarsite.model.lineage import LastLineage, former_keys
from scholarsite.model.lookups import Checked, FieldOf
from scholarsite.model.model import (
    AbstractVersion,
    Author,
    Identities,
    Paper,
    PaperFacts,
    Provenance,
    Site,
    Subject,
    Year,
    merged_details,
    page_of,
    shown_version,
)
from scholarsite.model.network import Community, KeptNetwork, Network
from scholarsite.model.ondemand import OnDemand
from scholarsite.model.readagain import ReadAgain, span_of
from scholarsite.model.warm import Changes, Merged, WarmModel, group_of

SNAPSHOT_FILE = CACHE_FOLDER / "model.signed"
MAGIC = b"scholarsite model.signed 1\n"
FORMAT = 6  # a paper's group kept with it since 3; its citation key, the base URL and the mark since 4;
# its facts (details' date, author names and DOI, abstracts' digests) since 5; in lines since 6
PAPER_FIELDS = (str, str, str, str, int)  # the types of a paper's key, slugs, title and year
STALE: Any = object()  # a changed seed's records as the kept model knew them: equal to none


@dataclass(frozen=True)
class Basis:
    """What a model was made of beyond its seeds' records, as digests of the files (hex)."""

    seeds: dict[str, str]  # seed path -> digest of the file
    lineage: str  # of lineage.txt ("" when there is none)
    sources: str  # of sources.yaml ("" when there is none)


@dataclass(frozen=True)
class Citing:
    """What a build's citation records read beyond its papers' cards: each paper's citation
    key before its suffix and after, by paper key, and the site's base URL."""

    bases: Mapping[str, str] = field(default_factory=dict)
    keys: Mapping[str, str] = field(default_factory=dict)
    base_url: str | None = None


Views = tuple[object, ...]  # an author's lists of papers, co-authors, subject and year counts


class PaperRow(NamedTuple):
    """A paper the kept model made whole from its records, with where the line of its row is in
    the kept model's file (written again as it is while the paper is the same object with the
    same citation key) and what `unchanged` reads of the row."""

    paper: Paper
    span: int  # of its line, in `Kept.source`
    text_digest: str
    base: str  # its citation key before its suffix
    cited: str  # its citation key


PAPER_ROW_FIELDS = ("text_digest", "base", "cited")  # what `unchanged` reads of a paper's row


class AuthorRow(NamedTuple):
    """An author the kept model made, with where the line of its row is (written again as it is
    while the author is the same object with the same views and fields) and what is compared
    of it."""

    author: Author
    span: int  # of its line, in `Kept.source`
    fields: list[Any]  # `author_fields` as read
    papers: int  # how many papers it had
    views: Views  # the lists it was made with (`views_of`)


@dataclass
class Kept:
    """What the kept model was made of, and the rows it was read from of the papers that are
    still the same objects (written again as they are); for `unchanged`, the authors made
    from it, its change log's mark then and, when lineage.txt and sources.yaml are as the build
    that kept it left them, the former keys they give its papers."""

    basis: Basis
    rows: dict[int, PaperRow]  # by the paper's id (the paper held: its id stays its own)
    authors: list[Author] = field(default_factory=list)
    seen: object = None  # the model's change log when it was kept (`Changes.mark`)
    former: dict[str, str] | None = None
    author_rows: dict[int, AuthorRow] = field(default_factory=dict)  # by id, as `rows`
    places: tuple[list[Paper], list[Author]] = ([], [])  # the papers and authors in the order read
    mark: str = ""  # given when it was kept, and to the build state saved with it (`keep`)
    base_url: str | None = None  # the site's when it was kept (its papers' citation records read it)
    source: ReadAgain = field(default_factory=ReadAgain)  # the file read, its rows' lines read again

    @cached_property
    def rows_of_papers(self) -> dict[str, PaperRow]:
        """The papers' rows by paper key."""
        return {row.paper.key: row for row in self.rows.values()}

    @cached_property
    def rows_of_authors(self) -> dict[str, AuthorRow]:
        """The authors' rows by author key."""
        return {row.author.key: row for row in self.author_rows.values()}

    def author_row(self, author: Author) -> bytes | None:
        """The line `author` was read from, when it is the same object with the same views
        (the merge gives an author it counts again new lists) and fields (None otherwise)."""
        found = self.author_rows.get(id(author))
        if found is None or found.author is not author:
            return None
        same = all(now is then for now, then in zip(views_of(author), found.views, strict=True))
        return self.source.part(found.span) if same and found.fields == author_fields(author) else None

    def lists_as_read(self, author: Author, row: AuthorRow | None) -> bool:
        """Whether `author` has the fields, papers and co-authors (by key and slug, with the
        papers shared) of `row`, the kept model's row of the author of that key: the same
        object with the same lists (`author_row`), or one merged again whose lists come out
        the same (its line decoded again to compare them)."""
        if self.author_row(author) is not None:
            return True
        if row is None or row.fields != author_fields(author):
            return False
        line = self.source.part(row.span) if self.source.intact() else None
        if line is None:
            return False
        papers, authors = self.places
        read = loads_checked(line)
        return [p.key for p in author.papers] == [papers[at].key for at in read[7]] and [
            (a.key, a.slug, n) for a, n in author.coauthors
        ] == [(authors[at].key, authors[at].slug, n) for at, n in read[8]]


@dataclass
class Written:
    """The rows of a model as `body_of` writes it, with where each line is in the file (the
    body starts `at` its offset): a warm process keeps them as the kept model's (`keep`)."""

    at: int
    noting: bool = True  # False: the spans are counted, no row is noted
    rows: dict[int, PaperRow] = field(default_factory=dict)  # by the paper's id, as `Kept.rows`
    author_rows: dict[int, AuthorRow] = field(default_factory=dict)  # by the author's id

    def span(self, line: bytes) -> int:
        """The span of `line`, the next one written (after its newline)."""
        span = span_of(self.at + 1, len(line))
        self.at += 1 + len(line)
        return span

    def paper(self, paper: Paper, line: bytes, cited: tuple[str, str, str]) -> None:
        """Note the row of `paper`, written next as `line` (`cited`: what `unchanged` reads)."""
        span = self.span(line)
        if self.noting:
            self.rows[id(paper)] = PaperRow(paper, span, *cited)

    def author(self, author: Author, line: bytes) -> None:
        """Note the row of `author`, written next as `line`."""
        span = self.span(line)
        if self.noting:
            fields = author_fields(author)
            fields[5:] = list(author.seed_paths), list(author.spellings)  # as written, not as merged later
            row = AuthorRow(author, span, fields, len(author.papers), views_of(author))
            self.author_rows[id(author)] = row


def author_fields(author: Author) -> list[Any]:
    """The fields an author's row begins with."""
    return [
        author.key,
        author.slug,
        author.name,
        author.claimed_count,
        author.at_least,
        author.seed_paths,
        author.spellings,
    ]


def views_of(author: Author) -> Views:
    """The lists an author's row places (`Kept.author_row` compares them by identity)."""
    return author.papers, author.coauthors, author.subject_counts, author.year_counts


class Damaged(Exception):
    """A kept model that cannot be used."""


def kept_model(
    path: Path,
    records: list[AuthorRecord],
    basis: Basis,
    lineage: Mapping[str, Lineage],
    sources: Sources,
) -> WarmModel:
    """A warm model holding the kept one (of the seeds `records` as far as their digests are
    the kept ones); an empty one (merged whole by its first build) when none can be used."""
    warm = WarmModel()
    key = user_key()
    if key is None:  # this user has no key
        return warm
    try:
        handle = path.open("rb", buffering=2**16)
    except OSError:
        return warm
    source = ReadAgain(handle)  # open while the build runs
    try:
        data = signed_body(handle.read(), key, MAGIC)
        if data is None:  # planted, or damaged
            raise Damaged
        header, papers, authors = lines_of(data)
        if header.get("format") != FORMAT or header.get("code") != code_version():
            raise Damaged
        start = len(MAGIC) + MAC_BYTES + data.index(b"\n") + 1  # of the first paper's line
        merged, kept = merged_of(header, (papers, authors), start, records, basis)
        network = network_of(header["network"], kept.authors) if header["network"] is not None else None
    except (OSError, ValueError, TypeError, KeyError, IndexError, Damaged):
        source.close()
        return warm
    kept.source = source
    warm.last, warm.kept = merged, kept
    if network is not None:  # the model's co-author network: the next one while its pairs are the same
        warm.network = KeptNetwork(network, merged.changes.mark, list(kept.authors))
    if kept.basis.lineage == basis.lineage and kept.basis.sources == basis.sources:  # the lineage follows
        kept.former = former_keys(lineage, merged.by_key.keys())
        warm.lineage.last = LastLineage(merged.changes.mark, dict(lineage), sources, kept.former)
    return warm


def unchanged(warm: WarmModel, site: Site, mark: str | None, basis: Basis) -> Unchanged | None:
    """What of `site` (`warm`'s last build, made of `basis`) is as the kept model it was made
    from had it: None unless `warm` was made from a kept model (read, or kept by this process)
    and merged by the change since (not whole: the same identities and publication dates),
    with lineage.txt and sources.yaml as that build left them, and the build state saved with
    it (its `mark`: the state's digests are then that model's build's). A paper whose former
    keys are not those it had then (retitled, or another paper took one) is not unchanged: its
    sources.yaml entry may be another."""
    kept, merged = warm.kept, warm.last
    if (
        not isinstance(kept, Kept)
        or merged is None
        or kept.former is None
        or (kept.basis.lineage, kept.basis.sources) != (basis.lineage, basis.sources)
        or not kept.mark
        or kept.mark != mark
    ):
        return None
    moves = merged.changes.moved(kept.seen)  # None: merged whole since, or the log does not go back
    if moves is None:
        return None
    out = {id(paper) for paper in moves[0]}  # taken out since: each paper put in is a new object
    moved = refollowed(kept.former, site.former_keys)
    now, before = set(map(id, merged.ordered_authors)), set(map(id, kept.authors))
    gone_ids, made_ids = before - now, now - before
    gone = spelling_links(a for a in kept.authors if id(a) in gone_ids)
    made = spelling_links(a for a in merged.ordered_authors if id(a) in made_ids)
    spellings = {spelling for spelling, _ in (gone - made) | (made - gone)}

    def same_paper(row: PaperRow | None) -> bool:
        return row is not None and id(row.paper) not in out and row.paper.key not in moved

    def same_author(row: AuthorRow | None) -> bool:  # as its card shows it: name, slug, number of papers
        return (
            row is not None
            and merged.authors.get(row.author.key) is row.author
            and (row.author.name, row.author.slug) == (row.fields[2], row.fields[1])
            and len(row.author.papers) == row.papers
        )

    def listed(author: Author) -> bool:  # its papers and co-authors too (`Kept.lists_as_read`)
        return kept.lists_as_read(author, kept.rows_of_authors.get(author.key))

    def rows() -> dict[str, PaperRow]:  # by key, made when first asked (not before the first page)
        return kept.rows_of_papers

    texts, bases, keys = (
        FieldOf(rows, name, lambda key: same_paper(rows()[key])) for name in PAPER_ROW_FIELDS
    )
    return Unchanged(
        Checked(lambda at: same_paper(kept.rows.get(at))),
        frozenset(spellings),
        texts,
        bases,
        keys,
        base_url=kept.base_url,
        authors=Checked(lambda at: same_author(kept.author_rows.get(at))),
        listed=Checked(listed),
    )


def refollowed(before: Mapping[str, str], now: Mapping[str, str]) -> set[str]:
    """The keys of the papers that a former key leads to now or led to `before` (old key ->
    key: `lineage.former_keys`), where the two differ."""
    changed = [old for old in before.keys() | now.keys() if before.get(old) != now.get(old)]
    return {key for old in changed for key in (before.get(old), now.get(old)) if key is not None}


def spelling_links(authors: Iterable[Author]) -> Counter[tuple[str, str]]:
    """Each spelling of `authors` with the slug of the author it names, counted (a name on a
    card links to the one author it spells: an author merged again with the same spellings and
    slug links every name as before)."""
    return Counter((spelling, author.slug) for author in authors for spelling in author.spellings)


def keep(
    path: Path,
    warm: WarmModel,
    basis: Basis,
    citing: Citing,
    former: Mapping[str, str] | None = None,
    again: bool = True,
) -> str:
    """Write the model of `warm`'s last build, made of `basis`, unless the kept one is it
    (with its co-author network, when the build made or reused one for it, and the papers'
    citation keys and the base URL, `citing`); the kept model's mark ("": none
    kept), new for each model written: the build state saved with it keeps it, and the next
    build takes its papers for `unchanged` only while the two agree (a build that ended
    between writing one and the other would otherwise take the state's digests of an edit
    for those of the kept model's papers). The model written is then `warm`'s kept one, with
    its rows and the former keys its build gave (`former`; None: not known): the process's
    next build takes its unchanged papers for `unchanged` as a one-shot build takes those it
    reads (unless it will not build `again`: a one-shot build notes no rows, 8 MB at the end
    of an edit at 37,537 papers)."""
    merged, kept, key = warm.last, warm.kept, user_key()
    if merged is None or key is None:
        return ""
    if (
        not warm.changed
        and isinstance(kept, Kept)
        and (kept.basis, kept.base_url) == (basis, citing.base_url)
    ):
        return kept.mark
    kept_network = warm.network
    network = kept_network.network if kept_network.seen == merged.changes.mark else None
    mark = secrets.token_hex(16)
    kept = kept if isinstance(kept, Kept) else Kept(basis, {})
    source = kept.source
    reading = source.intact()
    if not reading:  # the kept lines are read again only from the file read, unchanged: made again
        source.close()
    written = Written(len(MAGIC) + MAC_BYTES, noting=again)
    try:
        with replaced_atomically(path) as handle:
            write_signed(handle, key, MAGIC, body_of(merged, basis, kept, citing, network, mark, written))
            if reading and not source.intact():  # changed while it was read again: not kept
                raise Damaged
            made = os.fstat(handle.fileno())
    except Damaged:
        return ""
    finally:
        source.close()
    authors = list(merged.ordered_authors)
    warm.kept = Kept(
        basis,
        written.rows,
        authors,
        seen=merged.changes.mark,
        former=None if former is None else dict(former),
        author_rows=written.author_rows,
        places=(list(merged.papers), authors),
        mark=mark,
        base_url=citing.base_url,
        source=opened_again(path, made),
    )
    warm.changed = False
    return mark


def opened_again(path: Path, made: os.stat_result) -> ReadAgain:
    """The file at `path`, open to be read again, if it is the one written (`made`); else none
    (its rows are then made again: `keep`)."""
    try:
        handle = path.open("rb", buffering=2**16)
    except OSError:
        return ReadAgain()
    found = ReadAgain(handle)
    if found.stamp[:2] != (made.st_dev, made.st_ino):  # replaced since by another build
        found.close()
        return ReadAgain()
    return found


def text(value: object) -> str:
    """`value`, a string; Damaged otherwise."""
    if type(value) is not str:
        raise Damaged
    return value


def number(value: object) -> int:
    """`value`, an integer; Damaged otherwise."""
    if type(value) is not int:
        raise Damaged
    return value


def texts(value: object) -> list[str]:
    """`value`, a list of strings; Damaged otherwise."""
    if type(value) is not list:
        raise Damaged
    return [text(item) for item in value]


def body_of(
    merged: Merged,
    basis: Basis,
    kept: Kept,
    citing: Citing,
    network: Network | None = None,
    mark: str = "",
    written: Written | None = None,
) -> Iterator[bytes]:
    """The JSON lines of a model (marked `mark`), as pieces: each line, and the newlines
    between, made as it is written (an added seed's model had 59 MB of new lines at 37,537
    papers, held whole until then). A header, then a row per paper and per author, its
    objects by their places, references as places (a paper's authors as keys: the row of
    a paper that stayed the same object, in `kept.rows`, is its line as read while its citation
    key is the one `citing` gives; a new row has its text's digest and its citation key before
    suffix and after, from `citing`; an author's row is the line read while every paper and
    author read is at its place), and its co-author network if given (members as places)."""
    author_at = {id(author): at for at, author in enumerate(merged.ordered_authors)}
    paper_at = {id(paper): at for at, paper in enumerate(merged.papers)}
    authors = merged.ordered_authors
    in_place = at_places(paper_at, kept.places[0]) and at_places(author_at, kept.places[1])
    header = {
        "format": FORMAT,
        "code": code_version(),
        "mark": mark,
        "base_url": citing.base_url,
        "basis": [basis.seeds, basis.lineage, basis.sources],
        "identities": [dict(merged.identities.claims), dict(merged.identities.aliases)],
        "published": {key: date.isoformat() for key, date in sorted(merged.published.items())},
        "subjects": [
            [s.code, s.slug, [[author_at[id(a)], n] for a, n in s.author_counts]]
            for s in merged.subjects.values()
        ],
        "years": [
            [y.year, [[author_at[id(a)], n] for a, n in y.author_counts]] for y in merged.years.values()
        ],
        "network": network and network_body(network, {a.key: at for at, a in enumerate(authors)}),
        "papers": len(merged.papers),
        "authors": len(authors),
    }
    written = written or Written(0)
    top = dumps(header)
    written.at += len(top)
    yield top
    for paper, line, cited in paper_lines(merged, kept, citing):
        written.paper(paper, line, cited)
        yield b"\n"
        yield line
    for author in authors:
        line = kept.author_row(author) if in_place else None
        line = line if line is not None else dumps(row_of_author(author, paper_at, author_at))
        written.author(author, line)
        yield b"\n"
        yield line


def paper_lines(
    merged: Merged, kept: Kept, citing: Citing
) -> Iterator[tuple[Paper, bytes, tuple[str, str, str]]]:
    """Each paper of `merged` with its line (see `body_of`) and what `unchanged` reads of the
    row: its text's digest, its citation key before its suffix and after."""
    in_seed = OnDemand(  # each record's place in its seed's records, by line, of the seeds new rows ask
        lambda path: {line: at for at, line in enumerate(merged.records[path].lines)}
    )
    rows, bases, keys = kept.rows, citing.bases, citing.keys
    for paper in merged.papers:
        read = rows.get(id(paper))
        cited = keys.get(paper.key, "")
        if (
            read is not None
            and read.paper is paper
            and read.cited == cited
            and (line := kept.source.part(read.span)) is not None
        ):
            yield paper, line, (read.text_digest, read.base, read.cited)
            continue
        places = paper.provenance
        digest, base = related.text_digest(paper.title, paper.abstract), bases.get(paper.key, "")
        row = [
            paper.key,
            paper.slug,
            paper.legacy_slug,
            paper.title,
            paper.year,
            [[where.path, where.line, in_seed[where.path][where.line]] for where in places],
            [places.index(version.where) for version in paper.versions],
            [subject.code for subject in paper.subjects],
            [author.key for author in paper.authors],
            digest,
            base,
            group_of(paper)[1],
            cited,
            facts_data(paper.facts),
        ]
        yield paper, dumps(row), (digest, base, cited)


def row_of_author(author: Author, paper_at: dict[int, int], author_at: dict[int, int]) -> list[Any]:
    """An author's row: `author_fields`, then its papers and co-authors by place, its subject
    and year counts."""
    return [
        *author_fields(author),
        [paper_at[id(paper)] for paper in author.papers],
        [[author_at[id(other)], n] for other, n in author.coauthors],
        [[subject.code, n] for subject, n in author.subject_counts],
        author.year_counts,
    ]


def at_places(places: dict[int, int], read: list[Any]) -> bool:
    """Whether the objects read in this order that are still there (`places`: where each
    object is now, by id) are at the same places, as many as before (the rows read refer to
    places: `read` holds its objects, so their ids stay their own)."""
    return len(places) == len(read) and all(places.get(id(item), at) == at for at, item in enumerate(read))


def network_body(network: Network, places: dict[str, int]) -> list[Any] | None:
    """The JSON of a co-author network whose members are the authors at `places` (by key);
    None if one is not there."""
    if not places.keys() >= network.community_of.keys():
        return None
    communities = [
        [c.slug, c.name, [places[a.key] for a in c.members], c.pairs, c.colour] for c in network.communities
    ]
    return [network.key, network.pair_count, [[a, b, n] for (a, b), n in network.strongest], communities]


def network_of(body: list[Any], authors: list[Author]) -> Network:
    """The co-author network `network_body` wrote, of these authors (Damaged, or KeyError,
    IndexError, TypeError, ValueError when it is not one)."""
    key, count, strongest, rows = body
    communities = [
        Community(text(slug), text(name), [authors[at] for at in members], number(pairs), number(colour))
        for slug, name, members, pairs, colour in rows
    ]
    community_of = {author.key: community for community in communities for author in community.members}
    pairs = [((text(a), text(b)), number(n)) for a, b, n in strongest]
    return Network(communities, community_of, pairs, number(count), text(key))


def lines_of(data: bytes) -> tuple[dict[str, Any], list[bytes], list[bytes]]:
    """A kept model's header, and the lines of its papers and of its authors (Damaged, or
    ValueError, KeyError, TypeError, when the data are not what `body_of` writes)."""
    lines = data.split(b"\n")
    header = loads_checked(lines[0])
    if type(header) is not dict:
        raise Damaged
    papers, authors = number(header["papers"]), number(header["authors"])
    if len(lines) != 1 + papers + authors:
        raise Damaged
    return header, lines[1 : 1 + papers], lines[1 + papers :]


def merged_of(
    header: dict[str, Any],
    lines: tuple[list[bytes], list[bytes]],
    start: int,
    records: list[AuthorRecord],
    now: Basis,
) -> tuple[Merged, Kept]:
    """The model a kept model's lines hold (`lines_of`: its papers' and its authors'), and
    what it was made of, with the spans of the lines (the first paper's at `start` in the
    file). Its seeds whose digest is not the one `now` gives (or that `now` does not know)
    are `STALE`: `WarmModel.build` merges them again. Damaged (or KeyError, IndexError,
    TypeError, ValueError) when the lines are not those `body_of` writes."""
    paper_lines, author_lines = lines
    spans = []
    for line in (*paper_lines, *author_lines):
        spans.append(span_of(start, len(line)))
        start += len(line) + 1
    seeds, lineage, sources = header["basis"]
    kept = Basis({text(path): text(digest) for path, digest in seeds.items()}, text(lineage), text(sources))
    by_path = {record.path: record for record in records}
    same = {path for path, digest in kept.seeds.items() if now.seeds.get(path) == digest and path in by_path}
    unchanged = {path: by_path[path] for path in same}
    subjects = {code: subject_of(code, slug) for code, slug, _ in header["subjects"]}
    papers: list[Paper] = []
    listed: list[list[str]] = []  # each paper's authors by key
    groups: dict[tuple[int, str], list[Paper]] = {}
    contested, rows = [], {}
    for line, span in zip(paper_lines, spans, strict=False):
        row = loads_checked(line)
        paper = paper_of(row, unchanged, subjects)
        papers.append(paper)
        listed.append(row[8])
        groups.setdefault((paper.year, row[11]), []).append(paper)  # its `group_of`, kept
        if len(row[6]) > 1:
            contested.append(paper)
        if isinstance(paper, KeptPaper):  # made whole from its records (not one merged again)
            rows[id(paper)] = PaperRow(paper, span, row[9], row[10], row[12])
    author_rows = [loads_checked(line) for line in author_lines]
    authors = [author_of(row, papers, subjects) for row in author_rows]
    by_key = {author.key: author for author in authors}
    for paper, keys in zip(papers, listed, strict=True):
        paper.authors = [by_key[key] for key in keys]
    for author, row in zip(authors, author_rows, strict=True):
        author.coauthors = [(authors[at], number(n)) for at, n in row[8]]
    years: dict[int, Year] = {}
    for paper in papers:
        years.setdefault(paper.year, Year(paper.year)).papers.append(paper)
        for subject in paper.subjects:
            subject.papers.append(paper)
    for code, _, counts in header["subjects"]:
        subjects[code].author_counts = [(authors[at], number(n)) for at, n in counts]
    for year, counts in header["years"]:
        years[year].author_counts = [(authors[at], number(n)) for at, n in counts]
    claims, aliases = header["identities"]
    keys = {path: author.key for author in authors for path in author.seed_paths}
    published = {
        text(key): datetime.date.fromisoformat(text(day)) for key, day in header["published"].items()
    }
    merged = Merged(
        records={path: by_path[path] if path in same else STALE for path in keys},
        keys=keys,
        authors={author.key: author for author in authors},
        ordered_authors=authors,
        groups=groups,
        papers=papers,
        subjects=subjects,
        years=years,
        published=published,
        identities=Identities(dict(claims), dict(aliases)),
        changes=Changes(),
        pages=Counter(page_of(paper) for paper in papers),
        with_legacy=[paper for paper in papers if paper.moved],
        contested=contested,
        by_key={paper.key: paper for paper in papers},
        tallies={  # a subject's or year's papers by author key: its author counts
            **{("subject", s.code): tally(s.author_counts) for s in subjects.values()},
            **{("year", y.year): tally(y.author_counts) for y in years.values()},
        },
    )
    made = list(authors)  # a list of its own: the merge changes the model's
    kept_authors = {
        id(author): AuthorRow(author, span, row[:7], len(row[7]), views_of(author))
        for author, span, row in zip(authors, spans[len(papers) :], author_rows, strict=True)
    }
    places = (list(papers), made)
    mark, base_url = text(header["mark"]), header["base_url"]
    if base_url is not None and type(base_url) is not str:
        raise Damaged
    return merged, Kept(kept, rows, made, merged.changes.mark, None, kept_authors, places, mark, base_url)


def tally(counts: list[tuple[Author, int]]) -> Counter[str]:
    """Author counts by author key (`warm.tally_of` of the papers they count)."""
    return Counter({author.key: n for author, n in counts})


def subject_of(code: object, slug: object) -> Subject:
    """A subject as the merge makes it (`model.attach`), its slug the kept one."""
    return Subject(text(code), text(slug), taxonomy.lookup(text(code)))


def paper_of(row: list[Any], seeds: dict[str, AuthorRecord], subjects: dict[str, Subject]) -> Paper:
    """A paper from its row: a `KeptPaper` when all its records are in the unchanged `seeds`
    (its texts read from them when first asked for); else one the build merges again, with
    only its key, title, year, slugs, places and number of abstracts."""
    (
        key,
        slug,
        legacy_slug,
        title,
        year,
        places,
        versions,
        codes,
        _,
        text_digest,
        base,
        group,
        cited,
        facts,
    ) = row
    texts_kept = (text_digest, base, group, cited)
    if tuple(map(type, row[:5])) != PAPER_FIELDS or set(map(type, texts_kept)) != {str}:
        raise Damaged
    if type(versions) is not list or not all(type(at) is int and 0 <= at < len(places) for at in versions):
        raise Damaged
    provenance: list[Provenance] = []
    own: list[tuple[AuthorRecord, int]] = []
    for path, line, at in places:
        if type(path) is not str or type(line) is not int:
            raise Damaged
        provenance.append(Provenance(path, line))
        if (seed := seeds.get(path)) is not None:
            if seed.lines[at] != line:
                raise Damaged  # an unchanged seed without the record the model has
            own.append((seed, at))
    whole = len(own) == len(places)
    paper = KeptPaper(own, versions, facts_of(facts)) if whole else Paper(key, slug, title, "", year, "")
    fields = {"key": key, "slug": slug, "legacy_slug": legacy_slug, "title": title, "year": year}
    paper.__dict__.update(fields, provenance=provenance, subjects=[subjects[code] for code in codes])
    if not isinstance(paper, KeptPaper):
        paper.versions = [AbstractVersion("", provenance[at], "") for at in versions]
    return paper


class FromRecords:
    """A text of a `KeptPaper`, taken from its records when first asked for."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, paper: KeptPaper | None, owner: type | None = None) -> Any:
        if paper is None:
            return self
        paper.take_texts()
        return paper.__dict__[self.name]


class KeptPaper(Paper):
    """A paper of the kept model whose records are all in unchanged seeds: its texts (source,
    abstract and its versions, details) are taken from them when first asked for, so the
    seeds' records are read only for the papers a build shows again (an edit at 37,537
    papers takes a few thousand)."""

    source = FromRecords()
    abstract = FromRecords()
    abstract_key = FromRecords()
    versions = FromRecords()
    details = FromRecords()

    def __init__(self, own: list[tuple[AuthorRecord, int]], versions: list[int], facts: PaperFacts):
        """A paper (its other fields set by the caller) of the records at these places of
        their seeds, whose abstracts at the places `versions` differ, with the `facts` of
        its texts (known without them: every listing it is on is ordered by its date, its
        citation key starts with a name, an author added or gone is looked for among its
        names, its lineage's anchors are its abstracts' digests)."""
        self.authors = []
        self.__dict__.update(own=(own, versions), facts=facts)  # where `Paper.facts` keeps them

    def take_texts(self) -> None:
        """Set the texts from the records (those not set already)."""
        own, versions = self.__dict__["own"]
        records = [seed.records[at] for seed, at in own]
        texts = [
            AbstractVersion(records[at].abstract, self.provenance[at], records[at].identity.abstract)
            for at in versions
        ]
        details = NO_DETAILS
        for record in records:
            if record.details is not NO_DETAILS and record.details != NO_DETAILS:
                details = merged_details(details, record.details)
        taken = {
            "source": records[0].source,
            "abstract_key": records[0].identity.abstract_key,
            "versions": texts,
            "abstract": texts[0].text if len(texts) == 1 else shown_version(texts).text,
            "details": details,
        }
        for name, value in taken.items():  # one set since is kept
            self.__dict__.setdefault(name, value)
        del self.__dict__["own"]


def facts_data(facts: PaperFacts) -> list[Any]:
    """A paper's facts as JSON data."""
    return [facts.date, list(facts.names), facts.doi, list(facts.abstracts)]


def facts_of(value: Any) -> PaperFacts:
    """A paper's facts from JSON data (Damaged, or ValueError, when they are not `facts_data`'s)."""
    date, names, doi, abstracts = value
    return PaperFacts(text(date), tuple(texts(names)), text(doi), tuple(texts(abstracts)))


def author_of(row: list[Any], papers: list[Paper], subjects: dict[str, Subject]) -> Author:
    """An author from its row (co-authors are set once every author is made)."""
    key, slug, name, claimed, at_least, paths, spellings, places, _, subject_counts, year_counts = row
    if claimed is not None:
        number(claimed)
    if type(at_least) is not bool:
        raise Damaged
    author = Author(text(key), text(slug), text(name), claimed, at_least, texts(paths), texts(spellings))
    author.papers = [papers[at] for at in places]
    author.subject_counts = [(subjects[code], number(n)) for code, n in subject_counts]
    author.year_counts = [(number(year), number(n)) for year, n in year_counts]
    return author
