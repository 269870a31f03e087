"""Hand-written pages: Markdown with YAML front matter, under `content/`.

`content/index.md` is the home page's introduction, `content/<name>.md` a page at `<name>/`,
and `content/authors/<slug>.md` adds affiliation, homepage, ORCID and a bio to an author.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import markdown
import yaml
from markupsafe import Markup

from scholarsite.errors import BuildError, Diagnostic, error, warning
from scholarsite.inputs.config import URL_RE
from scholarsite.inputs.files import refusal
from scholarsite.inputs.text import CONTROL_RE, decode
from scholarsite.tex import render as tex
from scholarsite.tex.mathml import find_math

FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.S)
PLACEHOLDER = "SCHOLARSITEMATH"
ORCID_RE = re.compile(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]")
KEY_LINE_RE = re.compile(r"([A-Za-z_][\w-]*)\s*:")
PAGE_NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]*")
PAGE_KEYS = {"title", "description"}
AUTHOR_KEYS = {"affiliation", "homepage", "orcid"}


@dataclass(frozen=True)
class Page:
    """One Markdown file: its name, front matter and body rendered to HTML."""

    path: str
    name: str
    meta: dict[str, Any] = field(default_factory=dict)
    body: Markup = Markup("")

    @property
    def title(self) -> str:
        """The front-matter title, or the name."""
        return str(self.meta.get("title", self.name.replace("-", " ").capitalize()))


def markdown_to_html(source: str) -> Markup:
    """Markdown to HTML, with math lifted out first (as the TeX module finds it) so that
    Markdown cannot eat its backslashes and underscores."""
    spans, _ = find_math(source)
    lifted, last = [], 0
    for number, span in enumerate(spans):
        lifted += [source[last : span.start], f"{PLACEHOLDER}{number}X"]
        last = span.end
    html = markdown.markdown("".join([*lifted, source[last:]]), extensions=["extra", "sane_lists"])
    maths = [tex.tex_to_html(source[span.start : span.end]) for span in spans]
    return Markup(re.sub(rf"{PLACEHOLDER}(\d+)X", lambda m: maths[int(m[1])], html))


def split_front_matter(text: str, path: str) -> tuple[dict[str, Any], str]:
    """(front matter, body); BuildError on bad YAML."""
    match = FRONT_MATTER_RE.match(text)
    if not match:
        return {}, text
    try:
        meta = yaml.safe_load(match.group(1) or "") or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark else 1
        raise BuildError([error(path, line, f"front matter is not valid YAML: {exc}")]) from None
    if not isinstance(meta, dict):
        raise BuildError([error(path, 2, "front matter must be key: value pairs")])
    return meta, text[match.end() :]


def key_lines(text: str) -> dict[str, int]:
    """Line number of each top-level key in the front matter block (which starts at line 1)."""
    lines = text.split("\n")
    return {m[1]: n for n, line in enumerate(lines, 1) if (m := KEY_LINE_RE.match(line))}


def check_meta(meta: dict[str, Any], allowed: set[str], path: str, text: str) -> list[Diagnostic]:
    """Unknown keys, non-text values, invalid URLs and ORCIDs, and the PyYAML TAB pitfall."""
    problems: list[Diagnostic] = []
    lines = key_lines(text)
    for key, value in meta.items():
        line = lines.get(str(key), 1)
        if key not in allowed:
            known = ", ".join(sorted(allowed))
            problems.append(error(path, line, f"unknown front matter key '{key}'", f"known: {known}"))
        elif not isinstance(value, str):
            problems.append(error(path, line, f"'{key}' must be text, found {value!r}"))
        elif CONTROL_RE.search(value):
            problems.append(error(path, line, f"'{key}' contains control characters, found {value!r}"))
        elif "\t" in value:
            problems.append(
                warning(
                    path,
                    line,
                    f"'{key}' contains a TAB character",
                    "in double quotes YAML reads '\\t' in '\\textit' as a TAB; use single quotes",
                )
            )
        elif key == "homepage" and not URL_RE.fullmatch(value):
            problems.append(error(path, line, f"'homepage' must be an http(s) URL, found {value!r}"))
        elif key == "orcid" and not ORCID_RE.fullmatch(value):
            problems.append(error(path, line, f"'orcid' must look like 0000-0002-1825-0097, found {value!r}"))
    return problems


def read_page(file: Path, display: str, allowed: set[str]) -> tuple[Page | None, list[Diagnostic]]:
    """One Markdown file as a Page, or the problems that stop it."""
    decoded, cleaned = decode(file.read_bytes(), display)
    if decoded is None:
        return None, cleaned
    try:
        text = decoded.replace("\r\n", "\n")
        meta, body = split_front_matter(text, display)
    except BuildError as exc:
        return None, cleaned + list(exc.diagnostics)
    front = FRONT_MATTER_RE.match(text)
    problems = cleaned + check_meta(meta, allowed, display, front.group(0) if front else "")
    if any(p.severity.value == "error" for p in problems):
        return None, problems
    return Page(display, file.stem, meta, markdown_to_html(body)), problems


def read_pages(content_dir: Path, display_dir: str) -> tuple[list[Page], list[Page], list[Diagnostic]]:
    """(site pages, author pages, problems) from `content/` and `content/authors/`."""
    problems: list[Diagnostic] = []
    sections: list[list[Page]] = []
    for folder, allowed in ((content_dir, PAGE_KEYS), (content_dir / "authors", AUTHOR_KEYS)):
        pages: list[Page] = []
        shown = display_dir if folder == content_dir else f"{display_dir}/authors"
        for file in sorted(folder.glob("*.md")) if folder.is_dir() else []:
            display = f"{shown}/{file.name}"
            if not PAGE_NAME_RE.fullmatch(file.stem):
                problems.append(error(display, 0, "page names use a-z, 0-9 and '-' only"))
                continue
            if refused := refusal(file, content_dir.parent, display):
                problems.append(refused)
                continue
            page, found = read_page(file, display, allowed)
            problems.extend(found)
            if page:
                pages.append(page)
        sections.append(pages)
    return sections[0], sections[1], problems
