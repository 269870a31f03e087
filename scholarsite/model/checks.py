"""The model of a project, and what is wrong between its parts: author pages of no author, seed
files claimed twice or not at all, reserved page names, sources.yaml entries of no paper."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from functools import partial

from scholarsite.errors import Diagnostic, error, note, warning
from scholarsite.inputs.content import Page
from scholarsite.inputs.memo import Memo
from scholarsite.inputs.project import Project
from scholarsite.inputs.seeds import AuthorRecord
from scholarsite.inputs.sources import SOURCES_FILE, Sources
from scholarsite.inputs.unicode import normalise
from scholarsite.model import urls
from scholarsite.model.conflicts import abstract_notes
from scholarsite.model.lineage import with_lineage
from scholarsite.model.model import PLAIN, Identities, Site, build_model
from scholarsite.model.naming import remembered
from scholarsite.model.warm import WarmModel


def model_of(
    project: Project, memo: Memo | None = None, warm: WarmModel | None = None
) -> tuple[Site, dict[str, Page], list[Diagnostic]]:
    """The cross-referenced model of a project's accepted seeds (who is who as author pages
    declare it, ordered by the publication dates sources.yaml knows, titles' plain text and
    slugs kept in `memo`, where the cards read the plain text; the pages and keys its papers
    had, `model.lineage`), its author pages by slug, and every problem between the parts
    (papers whose seeds give different abstracts: a note). With `warm` (a process that builds
    again), the last build's model merged again by the change."""
    identities, problems = identities_of(project.author_pages)
    authors = [parse.author for parse in project.seeds if parse.author is not None]
    naming = remembered(memo) if memo is not None else PLAIN
    merge = warm.build if warm is not None else build_model
    build = partial(merge, authors, identities=identities, naming=naming)
    followed = warm.lineage if warm is not None else None
    site = with_lineage(build, project.sources, project.lineage, RecordPlaces(authors), followed)
    author_pages, unmatched = match_author_pages(site, project.author_pages)
    problems += (
        unmatched + abstract_notes(site.contested) + claim_problems(project) + slug_clashes(site, identities)
    )
    problems += reserved_page_problems(project.pages)
    return site, author_pages, problems + source_problems(site, project.sources.following(site.former_keys))


class RecordPlaces(Mapping[tuple[str, int], int]):
    """The place of each record in its seed file, counted from the end (1 for the last: a seed
    lists the newest first, so a paper added keeps the others' places), by (path, line); a
    seed's places found when first asked for (a model merged by the change asks of a few)."""

    def __init__(self, authors: list[AuthorRecord]):
        self.seeds = {author.path: author for author in authors}
        self.found: dict[str, dict[int, int]] = {}

    def places(self, path: str) -> dict[int, int]:
        """The places of the records of the seed at `path`, by line."""
        if path not in self.found:
            lines = self.seeds[path].lines if path in self.seeds else ()
            self.found[path] = {line: place for place, line in enumerate(reversed(lines), start=1)}
        return self.found[path]

    def __getitem__(self, key: tuple[str, int]) -> int:
        return self.places(key[0])[key[1]]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, tuple) and len(key) == 2 and key[1] in self.places(key[0])

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return ((path, line) for path in self.seeds for line in self.places(path))

    def __len__(self) -> int:
        return sum(len(self.places(path)) for path in self.seeds)


def identities_of(author_pages: list[Page]) -> tuple[Identities, list[Diagnostic]]:
    """Who is who, as author pages declare it (`seeds:` and `aliases:`); a seed file or an
    alias declared by two pages is an error."""
    claims: dict[str, str] = {}
    aliases: dict[str, str] = {}
    problems: list[Diagnostic] = []
    for page in author_pages:
        for table, items in (
            (claims, [f"seeds/{s}" for s in page.meta.get("seeds", [])]),
            (aliases, [normalise(a) for a in page.meta.get("aliases", [])]),
        ):
            for item in items:
                if table.setdefault(item, page.name) != page.name:
                    problems.append(
                        error(page.path, 0, f"{item!r} is declared by content/authors/{table[item]}.md too")
                    )
    return Identities(claims, aliases), problems


def claim_problems(project: Project) -> list[Diagnostic]:
    """An author page claiming a seed file that is not among the accepted seeds."""
    if not any(page.meta.get("seeds") for page in project.author_pages):
        return []  # nothing claimed: the seeds need not be listed
    known = {parse.author.path for parse in project.seeds if parse.author is not None}
    return [
        error(
            page.path,
            0,
            f"no accepted seed file 'seeds/{name}'",
            "name a file of seeds/, as in seeds: [x.txt]",
        )
        for page in project.author_pages
        for name in page.meta.get("seeds", [])
        if f"seeds/{name}" not in known
    ]


def source_problems(site: Site, sources: Sources) -> list[Diagnostic]:
    """A warning per sources.yaml entry whose key is no paper's any more (the paper's title or
    year changed, or its seed went), a note per paper whose source is ambiguous."""
    keys = site.by_key.keys()
    stale = [
        warning(
            SOURCES_FILE,
            sources.line(key),
            f"no paper has the key {key!r}",
            "remove the entry or run link-sources again",
        )
        for key in sorted(sources.entries.keys() - keys)
    ]
    ambiguous = [
        note(
            SOURCES_FILE,
            sources.line(key),
            f"{key!r} has {len(entry.candidates)} possible arXiv matches",
            "set its arxiv_id by hand, or mark it not-found",
        )
        for key, entry in sorted(sources.entries.items())
        if entry.status == "ambiguous" and key in keys
    ]
    return stale + ambiguous


def match_author_pages(site: Site, content: list[Page]) -> tuple[dict[str, Page], list[Diagnostic]]:
    """Author pages by slug; an unknown slug is an error naming the closest ones."""
    slugs = [a.slug for a in site.authors]
    matched: dict[str, Page] = {}
    problems: list[Diagnostic] = []
    for page in content:
        if page.name in slugs:
            matched[page.name] = page
            continue
        close = difflib.get_close_matches(page.name, slugs, n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(close)}?" if close else "name the file after an author's slug"
        problems.append(error(page.path, 0, f"no author with the slug '{page.name}'", hint))
    return matched, problems


def slug_clashes(site: Site, identities: Identities) -> list[Diagnostic]:
    """Two people at one URL: an author page's `seeds:` split a name, and the seeds it did not
    claim keep the name's slug, which the page gave to the seeds it claimed. (Slugs of names
    are unique per name, `identity.slug_for`, and a page's slug is one person: only a page's
    slug can clash.)"""
    if not (identities.claims or identities.aliases):
        return []  # no page decides a slug
    claimed = {author.slug: author.seed_paths[0] for author in site.authors if author.key.endswith("#page")}
    return [
        error(
            author.seed_paths[0],
            0,
            f"'{author.name}' would have the page authors/{author.slug}/, which content/authors/"
            f"{author.slug}.md gives to {claimed[author.slug]}",
            f"if this is the same person, add this file to that page's `seeds:`; if not, "
            f"give it a page of its own (content/authors/{author.slug}-2.md with `seeds:`)",
        )
        for author in site.authors
        if author.slug in claimed and not author.key.endswith("#page")
    ]


def reserved_page_problems(content: list[Page]) -> list[Diagnostic]:
    """A content page may not take a folder the build uses."""
    return [
        error(p.path, 0, f"the page name '{p.name}' is reserved for the site's own pages")
        for p in content
        if p.name in urls.RESERVED
    ]
