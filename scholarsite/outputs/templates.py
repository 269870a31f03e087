"""Render pages with Jinja2 (StrictUndefined, autoescaping); know which sources each page uses."""

from __future__ import annotations

import hashlib
import json
import traceback
from collections.abc import Callable, Mapping
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import meta, nodes
from jinja2.loaders import split_template_path
from markupsafe import Markup

from scholarsite import theme
from scholarsite.errors import BuildError, Diagnostic, error
from scholarsite.inputs.memo import Memo
from scholarsite.inputs.store import CACHE_FOLDER
from scholarsite.inputs.templates import TemplateFile
from scholarsite.model import urls
from scholarsite.model.cards import AbstractOnItsPage
from scholarsite.outputs.citefigure import layout as citations_layout
from scholarsite.outputs.egofigure import layout as ego_layout
from scholarsite.outputs.policy import content_security_policy
from scholarsite.outputs.seo import json_script

SUMMARY_PARTIAL = "partials/paper_summary.html"  # rendered through the `paper_summary` global
TEMPLATE_CACHE = CACHE_FOLDER / "templates"  # compiled templates, by name and source checksum


@jinja2.pass_context
def rel(context: jinja2.runtime.Context, target: str) -> str:
    """Relative link from the page being rendered to an output path."""
    return urls.relative(context["page_path"], target, context["portable"])


@jinja2.pass_context
def link(context: jinja2.runtime.Context, name: str, *args: int | str) -> str:
    """Relative link to an output that templates name rather than spell: `link('authors')`."""
    return urls.relative(context["page_path"], urls.named(name, *args), context["portable"])


@jinja2.pass_context
def from_root(context: jinja2.runtime.Context, target: str, root: str) -> str:
    """A link written from the site root (`../../` on a page two folders deep)."""
    return root + urls.relative(urls.HOME, target, context["portable"])


def summary_limit(names: list[dict[str, Any]]) -> int:
    """How many names a paper's summary spells before "and N more"."""
    return 10 if len(names) > 12 else len(names)


class Fragments:
    """Page parts that do not depend on the page they appear on, rendered once each.

    A paper's summary (title, year, authors, subjects) appears on many pages; its links are
    written from the site root, so it is the same wherever the root is the same distance away.
    """

    def __init__(self, env: jinja2.Environment, portable: bool):
        self.env = env
        self.portable = portable  # links to index pages as `folder/index.html`
        self.cache: dict[tuple[str, ...], Markup] = {}
        self.places: dict[str, dict[str, tuple[int, int]]] = {}  # card path -> author path -> first, last

    def marked(
        self, card: dict[str, Any], names: list[dict[str, Any]], me: dict[str, Any] | None
    ) -> tuple[bool, bool]:
        """Whether the page's author is among the first `limit` names and among the rest,
        found through an index of the card's names built once (a paper of 4,000 authors is
        listed on 4,000 pages: scanning its names on each would be quadratic)."""
        if not me:
            return True, False
        if card["path"] not in self.places:
            places: dict[str, tuple[int, int]] = {}
            for index, name in enumerate(names):
                if name["path"]:
                    places[name["path"]] = (places.get(name["path"], (index, index))[0], index)
            self.places[card["path"]] = places
        first, last = self.places[card["path"]].get(me["path"], (len(names), -1))
        limit = summary_limit(names)
        return first < limit, last >= limit

    def paper_summary(
        self,
        card: dict[str, Any],
        root: str,
        me: dict[str, Any] | None,
        skip: str,
        heading: str,
        compact: bool,
        when: str,
    ) -> Markup:
        """The summary of a paper for pages whose root is `root`, with author `me` (a card, by
        its page) marked, subject `skip` left out, and its date said as `when` asks."""
        listed = isinstance(card["abstract"], AbstractOnItsPage)  # a listing's summary, not a card
        key = (card["path"], str(listed), root, me["path"] if me else "", skip, heading, str(compact), when)
        if key not in self.cache:
            template = self.env.get_template(SUMMARY_PARTIAL)
            names = card["all_authors"] if card["listed"] else card["authors"]
            in_head, in_tail = self.marked(card, names, me)
            context = {
                "p": card,
                "names": names,
                "limit": summary_limit(names),
                "in_head": in_head,
                "in_tail": in_tail,
                "root": root,
                "me": me,
                "skip": skip,
                "heading": heading,
                "compact": compact,
                "when": when,
                "portable": self.portable,
            }
            self.cache[key] = Markup(template.render(context))
        return self.cache[key]


class RefusedTemplate(jinja2.TemplateError):
    """A project template that may not be read (see `files.read_input`), with its diagnostic."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class ProjectLoader(jinja2.BaseLoader):
    """The project's templates as `inputs` read them (never the folder again: what a page is
    rendered with is what its key was made from); a file that may not be read is refused
    (RefusedTemplate) when a page uses it."""

    def __init__(self, files: Mapping[str, TemplateFile]):
        self.files = files

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        """The template's source; TemplateNotFound when the project has no such file (the
        built-in theme's is used), RefusedTemplate when it may not be read."""
        found = self.files.get("/".join(split_template_path(template)))
        if found is None:
            raise jinja2.TemplateNotFound(template)
        if found.refused is not None:
            raise RefusedTemplate(found.refused)
        return found.data.decode("utf-8"), str(found.path), lambda: True  # a new build, a new loader

    def list_templates(self) -> list[str]:
        """Every template name the project has."""
        return sorted(self.files)


def compiled_templates(folder: Path) -> jinja2.BytecodeCache | None:
    """Jinja's cache of compiled templates in `folder`, inside the project's cache folder (none
    when there is no cache folder, as in a clean build, or it cannot be written)."""
    try:
        if folder.parent.is_dir():
            folder.mkdir(exist_ok=True)
            return jinja2.FileSystemBytecodeCache(str(folder))
    except OSError:
        pass
    return None


def make_environment(templates_dir: Path, files: Mapping[str, TemplateFile]) -> jinja2.Environment:
    """The Jinja2 environment shared by all pages: the project's templates (`files`, read from
    `templates_dir`) first, then the built-in theme's; compiled templates are kept by their
    source's checksum in the project's cache folder (a one-shot build compiles only the
    templates that changed)."""
    builtin = jinja2.FileSystemLoader(str(theme.TEMPLATES))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader([ProjectLoader(files), builtin]),
        bytecode_cache=compiled_templates(templates_dir.parent / TEMPLATE_CACHE),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(["html", "xml", "svg"]),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["rel"] = rel
    env.filters["from_root"] = from_root
    env.globals["link"] = link
    env.globals["content_security_policy"] = content_security_policy
    env.globals["ego_layout"] = ego_layout  # the ego-network figure's geometry, from its card
    env.globals["citations_layout"] = citations_layout  # a paper's citations per year, as bars
    env.filters["json_script"] = json_script
    env.filters["percent"] = lambda share: f"{share * 100:.1f}"
    return env


def template_location(exc: BaseException, templates: str) -> tuple[str, int]:
    """(template file as `templates/x.html`, line) of the innermost template frame."""
    filename, line = getattr(exc, "filename", None), getattr(exc, "lineno", None) or 0
    if not filename:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(templates)]
        filename, line = (frames[-1].filename, frames[-1].lineno or 0) if frames else (templates, 0)
    shown = Path(filename)
    root = Path(templates)
    return (f"{root.name}/{shown.relative_to(root)}" if shown.is_relative_to(root) else str(shown)), line


def describe(exc: Exception, page: str, templates: str) -> Diagnostic:
    """A diagnostic for a template problem, naming the template, line and page."""
    if isinstance(exc, RefusedTemplate):
        return exc.diagnostic
    path, line = template_location(exc, templates)
    if isinstance(exc, jinja2.TemplateNotFound):
        return error(templates, 0, f"template '{exc.name}' not found (needed for {page})")
    hint = "every variable a template uses must be given by scholarsite; check the spelling"
    message = f"{type(exc).__name__}: {exc} (while rendering {page})"
    return error(path, line, message, hint if isinstance(exc, jinja2.UndefinedError) else "")


TEMPLATE_ERRORS = (
    jinja2.TemplateError,
    TypeError,
    ValueError,
    LookupError,
    AttributeError,
    ArithmeticError,
    RecursionError,
)


class Templates:
    """The project's templates: rendering, and a digest of the sources each template uses.

    Which templates a template uses (its closure) is found by parsing; with a memo, the closure
    is kept by a digest of every template's source, so a build whose templates did not change
    parses none of them (they are compiled only when a page of theirs is rendered). Given the
    Templates of the build before (the preview's), their compiled templates are kept when no
    template changed.
    """

    def __init__(
        self,
        folder: Path,
        files: Mapping[str, TemplateFile],
        memo: Memo | None = None,
        warm: Templates | None = None,
        portable: bool = False,
    ):
        self.folder = folder
        self.env = make_environment(folder, files)
        self.memo = memo or Memo()
        if warm is not None and warm.folder == folder and self.same_sources(warm):
            self.env = warm.env  # no template changed: keep the compiled ones
        self.env.globals["paper_summary"] = Fragments(self.env, portable).paper_summary  # this build's cards
        self.checked: set[str] = set()
        self.digests: dict[str, str] = {}

    def same_sources(self, other: Templates) -> bool:
        """Whether both see the same templates with the same sources (False when one of them
        cannot be read: the build reports it)."""
        try:
            return self.sources_digest == other.sources_digest
        except TEMPLATE_ERRORS:
            return False

    @cached_property
    def sources_digest(self) -> str:
        """A digest of every template's name and source."""
        summary = hashlib.sha256()
        for name in sorted(self.env.list_templates()):
            summary.update(name.encode() + b"\0" + self.source(name).encode() + b"\0")
        return summary.hexdigest()

    @cache  # noqa: B019 (one instance per build)
    def uses(self, name: str) -> frozenset[str]:
        """The template and every template it extends, includes or imports, transitively."""
        found = self.memo.text(
            "template-uses",
            lambda _: json.dumps(sorted(self.closure(name))),
            f"{self.sources_digest}\0{name}",
        )
        return frozenset(json.loads(found))

    def closure(self, name: str) -> set[str]:
        """`uses`, found by parsing the templates."""
        seen: set[str] = set()
        pending = [name]
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.add(current)
            tree = self.env.parse(self.source(current), current, self.filename(current))
            referenced = list(meta.find_referenced_templates(tree))
            if None in referenced:  # a name computed at render time: depend on every template
                referenced = self.env.list_templates()
            if any(node.name == "paper_summary" for node in tree.find_all(nodes.Name)):
                referenced.append(SUMMARY_PARTIAL)
            pending += [r for r in referenced if r]
        return seen

    @cache  # noqa: B019
    def source(self, name: str) -> str:
        """A template's source text."""
        assert self.env.loader is not None
        return self.env.loader.get_source(self.env, name)[0]

    def filename(self, name: str) -> str:
        """A template's file on disk (the project's, or the built-in theme's)."""
        assert self.env.loader is not None
        return str(self.env.loader.get_source(self.env, name)[1])

    def digest(self, name: str, page: str) -> str:
        """A digest of the sources a template uses (what its pages' keys depend on); a
        BuildError naming the template and `page` when one of them is missing or unreadable."""
        if name not in self.digests:
            try:
                used = sorted(self.uses(name))
            except TEMPLATE_ERRORS as exc:
                raise BuildError([describe(exc, page, str(self.folder))]) from None
            summary = hashlib.sha256()
            for item in used:
                summary.update(item.encode() + b"\0" + self.source(item).encode() + b"\0")
            self.digests[name] = summary.hexdigest()
        return self.digests[name]

    def check(self, name: str, page: str) -> None:
        """BuildError unless the template and those it uses exist and compile (checked once
        per process)."""
        if name in self.checked:
            return
        try:
            for used in self.uses(name):
                self.env.get_template(used)
        except TEMPLATE_ERRORS as exc:
            raise BuildError([describe(exc, page, str(self.folder))]) from None
        self.checked.add(name)

    def render(self, name: str, context: dict[str, Any], page: str) -> bytes:
        """One page as UTF-8 bytes; BuildError naming the template and line on a problem."""
        try:
            return self.env.get_template(name).render(context).encode("utf-8")
        except TEMPLATE_ERRORS as exc:
            raise BuildError([describe(exc, page, str(self.folder))]) from None
