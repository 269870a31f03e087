"""Render planned pages with Jinja2 (StrictUndefined, autoescaping) into path -> bytes."""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from scholarsite.errors import BuildError, Diagnostic, error
from scholarsite.outputs import urls
from scholarsite.outputs.pages import PageSpec
from scholarsite.outputs.seo import json_script


@jinja2.pass_context
def rel(context: jinja2.runtime.Context, target: str) -> str:
    """Relative link from the page being rendered to an output path."""
    return urls.relative(context["page_path"], target)


def from_root(target: str, root: str) -> str:
    """A link written from the site root (`../../` on a page two folders deep)."""
    return root + urls.relative(urls.HOME, target)


class Fragments:
    """Page parts that do not depend on the page they appear on, rendered once each.

    A paper's summary (title, year, authors, subjects) appears on many pages; its links are
    written from the site root, so it is the same wherever the root is the same distance away.
    """

    def __init__(self, env: jinja2.Environment):
        self.env = env
        self.cache: dict[tuple[str, str, str, str, bool], Markup] = {}

    def paper_summary(
        self, card: dict[str, Any], root: str, exclude: str, heading: str, compact: bool
    ) -> Markup:
        """The summary of a paper for pages whose root is `root`, omitting author `exclude`."""
        key = (card["path"], root, exclude, heading, compact)
        if key not in self.cache:
            template = self.env.get_template("partials/paper_summary.html")
            context = {"p": card, "root": root, "exclude": exclude, "heading": heading, "compact": compact}
            self.cache[key] = Markup(template.render(context))
        return self.cache[key]


def make_environment(templates_dir: Path) -> jinja2.Environment:
    """The Jinja2 environment shared by all pages and feeds."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir)),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(["html", "xml", "svg"]),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["rel"] = rel
    env.filters["from_root"] = from_root
    env.globals["paper_summary"] = Fragments(env).paper_summary
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


def describe(exc: Exception, spec: PageSpec, templates: str) -> Diagnostic:
    """A diagnostic for a template problem, naming the template, line and page."""
    path, line = template_location(exc, templates)
    if isinstance(exc, jinja2.TemplateNotFound):
        return error(templates, 0, f"template '{exc.name}' not found (needed for {spec.path})")
    hint = "every variable a template uses must be given by scholarsite; check the spelling"
    message = f"{type(exc).__name__}: {exc} (while rendering {spec.path})"
    return error(path, line, message, hint if isinstance(exc, jinja2.UndefinedError) else "")


def render_one(env: jinja2.Environment, template: str, context: dict[str, Any]) -> bytes:
    """Render one template to UTF-8 bytes."""
    return env.get_template(template).render(context).encode("utf-8")


def render_pages(specs: Sequence[PageSpec], templates_dir: Path) -> dict[str, bytes]:
    """Every page rendered; BuildError listing each distinct template problem once."""
    env = make_environment(templates_dir)
    outputs: dict[str, bytes] = {}
    problems: dict[tuple[str, int, str], Diagnostic] = {}
    templates = str(templates_dir)
    for spec in specs:
        try:
            outputs[spec.path] = render_one(env, spec.template, spec.context)
        except (jinja2.TemplateError, TypeError, ValueError, KeyError, AttributeError) as exc:
            found = describe(exc, spec, templates)
            problems.setdefault((found.path, found.line, type(exc).__name__), found)
    if problems:
        raise BuildError(problems.values())
    return outputs
