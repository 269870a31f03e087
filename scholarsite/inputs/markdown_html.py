"""Markdown to clean HTML: the body of a page of `content/` (loaded only when one is rendered:
Markdown and its extensions take 30 ms to load and set up, which a build whose pages the memo
holds does not pay)."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import markdown
from markdown.treeprocessors import Treeprocessor
from markupsafe import Markup

from scholarsite.inputs.sanitize import Dropped, dropped, sanitize
from scholarsite.tex import render as tex
from scholarsite.tex.mathspans import find_math

PLACEHOLDER = "SCHOLARSITEMATH"
ALIGNMENT_RE = re.compile(r"text-align: (left|center|right);")


class AlignmentClasses(Treeprocessor):
    """Table cells aligned with `class="align-left"` rather than a `style` attribute, which the
    pages' Content-Security-Policy would refuse."""

    def run(self, root: ElementTree.Element) -> None:
        """Rewrite every cell's `style="text-align: …"` as a class."""
        for cell in (*root.iter("th"), *root.iter("td")):
            if match := ALIGNMENT_RE.fullmatch(cell.attrib.pop("style", "")):
                cell.set("class", f"align-{match[1]}")


def render_markdown(source: str, trusted: bool = False) -> tuple[Markup, list[Dropped]]:
    """Markdown to clean HTML and what cleaning it dropped (see `sanitize`). Math is lifted out
    first (as the TeX module finds it) so that Markdown cannot eat its backslashes and
    underscores, and put back before the cleaning."""
    spans, _ = find_math(source)
    lifted, last = [], 0
    for number, span in enumerate(spans):
        lifted += [source[last : span.start], f"{PLACEHOLDER}{number}X"]
        last = span.end
    md = markdown.Markdown(extensions=["extra", "sane_lists"])
    md.treeprocessors.register(AlignmentClasses(md), "alignment_classes", 0)
    html = md.convert("".join([*lifted, source[last:]]))
    maths = [tex.tex_to_html(source[span.start : span.end]) for span in spans]
    html = re.sub(rf"{PLACEHOLDER}(\d+)X", lambda m: maths[int(m[1])], html)
    clean = sanitize(html, trusted)
    return Markup(clean), dropped(html, clean) if clean != html else []


def markdown_to_html(source: str, trusted: bool = False) -> Markup:
    """Markdown to clean HTML (see `render_markdown`)."""
    return render_markdown(source, trusted)[0]
