"""`scholarsite add FILE|DIR...`: check new seeds, copy them into `seeds/`, say what changed.

Each new seed is parsed first; any error stops everything before a file is copied. A seed is
copied as `seeds/<author-slug>.txt`. A name already taken, or a second file for an author the
collection already has, is refused unless `force` is given. The example seed `new` wrote is
removed once a seed is added (while it is unchanged). The change summary compares the
model without and with the new seeds: new papers, papers merged with existing ones (and with
whom), papers whose new records bring another abstract (and which one is shown), new co-author
pairs, new subjects and years.
"""

from __future__ import annotations

import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

from scholarsite.errors import Diagnostic, Severity, error
from scholarsite.inputs.example import EXAMPLE_NAME, is_example
from scholarsite.inputs.freshness import latest_possible_year
from scholarsite.inputs.project import Project, load_project
from scholarsite.inputs.seeds import NO_SEEDS_HINT, SEED_SUFFIX, AuthorRecord, is_seed_file, parse_seed
from scholarsite.inputs.unicode import normalise
from scholarsite.model.checks import identities_of
from scholarsite.model.conflicts import others, place
from scholarsite.model.identity import slug_for
from scholarsite.model.model import Paper, Site, build_model, shown_version


@dataclass
class AbstractChange:
    """A paper whose new records bring another abstract: the record whose abstract is shown,
    those whose abstracts are not, and the one shown so far when it no longer is."""

    title: str
    year: int
    shown: str  # 'seeds/x.txt:12'
    not_shown: list[str]
    replaces: str = ""

    def line(self) -> str:
        """`different abstracts: Title (2024): shown: a.txt:5 (the longest), not: b.txt:9`."""
        line = f"different abstracts: {self.title} ({self.year}): shown: {self.shown} (the longest), "
        line += f"not: {', '.join(self.not_shown)}"
        return line + (f"; it replaces the abstract shown so far ({self.replaces})" if self.replaces else "")


def abstract_change(paper: Paper, old: Paper | None) -> AbstractChange | None:
    """What the new records change in the abstracts of `paper` (`old`: the paper before them),
    or None when they bring no other abstract."""
    known = {version.compared for version in old.versions} if old else set()
    if len(paper.versions) < 2 or all(version.compared in known for version in paper.versions):
        return None
    shown = shown_version(paper.versions)
    before = shown_version(old.versions) if old else None
    replaces = place(before.where) if before and before.compared != shown.compared else ""
    not_shown = [place(version.where) for version in others(paper)]
    return AbstractChange(paper.title, paper.year, place(shown.where), not_shown, replaces)


@dataclass
class Changes:
    """What adding seeds changes in the collection (plain data, for text or JSON)."""

    added_files: list[str] = field(default_factory=list)
    removed_files: list[str] = field(default_factory=list)  # the example seed `new` wrote
    new_authors: list[str] = field(default_factory=list)
    new_papers: list[str] = field(default_factory=list)
    merged_papers: list[dict[str, object]] = field(default_factory=list)  # title, year, with
    different_abstracts: list[AbstractChange] = field(default_factory=list)
    new_coauthor_pairs: list[list[str]] = field(default_factory=list)
    new_subjects: list[str] = field(default_factory=list)
    new_years: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # 'seeds/x.txt:7: warning: ...'

    def as_dict(self) -> dict[str, object]:
        """The summary as JSON data."""
        return asdict(self)

    def lines(self) -> list[str]:
        """The summary as text, a line per change."""
        out = [f"add {name}" for name in self.added_files]
        out += [f"remove {name} (the example seed)" for name in self.removed_files]
        out += [f"new author: {name}" for name in self.new_authors]
        out += [f"new paper: {title}" for title in self.new_papers]
        out += [
            f"merged with an existing paper: {m['title']} ({m['year']}), listed by {', '.join(m['with'])}"  # type: ignore[arg-type]
            for m in self.merged_papers
        ]
        out += [change.line() for change in self.different_abstracts]
        out += [f"new co-authors: {a} and {b}" for a, b in self.new_coauthor_pairs]
        out += [f"new subject: {code}" for code in self.new_subjects]
        out += [f"new year: {year}" for year in self.new_years]
        return out + self.warnings  # formatted diagnostics, which name their severity already


class Refused(Exception):
    """The seeds cannot be added; carries every reason."""

    def __init__(self, problems: list[Diagnostic]):
        super().__init__("\n".join(p.format() for p in problems))
        self.problems = problems


def candidates(paths: list[Path]) -> list[Path]:
    """The seed files named, folders expanded to their visible `.txt` files."""
    found: list[Path] = []
    for path in paths:
        found += sorted(p for p in path.iterdir() if is_seed_file(p)) if path.is_dir() else [path]
    return found


def pairs(site: Site) -> set[tuple[str, str]]:
    """Co-author pairs by name, each ordered."""
    return {tuple(sorted((a.name, b.name))) for a in site.authors for b, _ in a.coauthors}  # type: ignore[misc]


def compare(before: Site, after: Site) -> Changes:
    """What `after` has that `before` has not."""
    old_papers = {p.key: p for p in before.papers}
    changes = Changes()
    old_authors = {a.key for a in before.authors}
    changes.new_authors = [a.name for a in after.authors if a.key not in old_authors]
    for paper in after.papers:
        old = old_papers.get(paper.key)
        if change := abstract_change(paper, old):
            changes.different_abstracts.append(change)
        if old is None:
            changes.new_papers.append(f"{paper.title} ({paper.year})")
        elif len(paper.authors) > len(old.authors):
            joined = [a.name for a in paper.authors if a.key not in {o.key for o in old.authors}]
            listed = [a.name for a in old.authors]
            changes.merged_papers.append(
                {"title": paper.title, "year": paper.year, "with": listed, "joined": joined}
            )
    changes.new_coauthor_pairs = [list(pair) for pair in sorted(pairs(after) - pairs(before))]
    changes.new_subjects = sorted({s.code for s in after.subjects} - {s.code for s in before.subjects})
    changes.new_years = sorted({y.year for y in after.years} - {y.year for y in before.years})
    return changes


def accepted(project: Project) -> list[AuthorRecord]:
    """The authors of the project's accepted seeds."""
    return [parse.author for parse in project.seeds if parse.author is not None]


def summarise(project: Project, before: list[AuthorRecord], after: list[AuthorRecord]) -> Changes:
    """What the collection of `after` has that the one of `before` has not (author pages'
    aliases and claims apply, as in the build)."""
    identities = identities_of(project.author_pages)[0]
    return compare(build_model(before, identities=identities), build_model(after, identities=identities))


def require_seeds_folder(root: Path) -> None:
    """Refused unless `root` is a project (has `seeds/`): never a folder made by mistake."""
    if not (root / "seeds").is_dir():
        raise Refused([error("seeds", 0, "the seeds folder does not exist", NO_SEEDS_HINT)])


def plan(root: Path, paths: list[Path], force: bool) -> tuple[Changes, list[tuple[Path, Path]]]:
    """The change summary and the copies (source, target) adding `paths` would make."""
    require_seeds_folder(root)
    year = latest_possible_year()
    project = load_project(root)  # the seeds as the build reads them (its parse cache too)
    authors = accepted(project)
    taken = {normalise(a.name): a.path for a in authors}
    problems: list[Diagnostic] = []
    new: list[AuthorRecord] = []
    copies: list[tuple[Path, Path]] = []
    warnings: list[str] = []
    for source in candidates(paths):
        if not source.is_file():
            problems.append(error(str(source), 0, "no such seed file"))
            continue
        parse = parse_seed(source.read_bytes(), str(source), latest_year=year)
        problems += [d for d in parse.diagnostics if d.severity is Severity.ERROR]
        warnings += [d.format() for d in parse.diagnostics if d.severity is Severity.WARNING]
        if parse.author is None:
            continue
        target = root / "seeds" / (slug_for(normalise(parse.author.name), "author") + SEED_SUFFIX)
        if target.exists() and not force:
            hint = "use --force to add it under another name"
            problems.append(error(str(source), 0, f"{target.relative_to(root)} already exists", hint))
            continue
        target = free_name(target, {t for _, t in copies})
        same = taken.get(normalise(parse.author.name))
        if same and not force:
            hint = "use --force to add a second file for the same author"
            problems.append(error(str(source), 0, f"{same} already has {parse.author.name}'s records", hint))
            continue
        taken[normalise(parse.author.name)] = str(target)
        new.append(parse.author)
        copies.append((source, target))
    if problems:
        raise Refused(problems)
    changes = summarise(project, authors, [*authors, *new])
    changes.added_files = [str(target.relative_to(root)) for _, target in copies]
    changes.removed_files = untouched_example(root) if copies else []
    changes.warnings = warnings
    return changes, copies


def untouched_example(root: Path) -> list[str]:
    """The example seed `new` wrote, as a file to remove, while nobody has changed it."""
    example = root / "seeds" / EXAMPLE_NAME
    return (
        [str(example.relative_to(root))]
        if example.is_file() and is_example(example, example.read_bytes())
        else []
    )


def free_name(target: Path, planned: set[Path]) -> Path:
    """`target`, or `name-2.txt`, `name-3.txt`... when it exists or is planned already."""
    number, candidate = 1, target
    while candidate.exists() or candidate in planned:
        number += 1
        candidate = target.with_name(f"{target.stem}-{number}{target.suffix}")
    return candidate


def apply(root: Path, changes: Changes, copies: list[tuple[Path, Path]]) -> None:
    """Copy the new seeds into place, then remove the files `changes` says go."""
    for source, target in copies:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    for name in changes.removed_files:
        (root / name).unlink(missing_ok=True)
