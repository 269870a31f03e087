"""Fuzz the whole build: mutated real seeds, content and settings never raise anything but our
own BuildError, never write outside `site/`, and every page they give is valid HTML."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scholarsite import pipeline
from scholarsite.errors import BuildError
from scholarsite.inputs.lineage_file import LINEAGE_FILE
from tools import qa

from .conftest import ROOT, make_project

pytestmark = pytest.mark.qa

HOSTILE = [
    "<script>alert(1)</script>",
    "\x00\x1b[2J\x85",
    "$\\frac{1}{0}$",
    "$$",
    "\\href{javascript:alert(1)}{x}",
    "{" * 200,
    "}" * 50,
    "arXiv2099",
    "cs.LG↗",
    "../../etc/passwd",
    "Llama 2",
    "&amp; &lt; \u202e",
    "\\(x\\",
]
SEED_LINES = (ROOT / "seeds").glob("*.txt")
SETTINGS = [
    "title: {text}\n",
    "description: {text}\n",
    "base_url: https://example.org/{text}\n",
    "papers_per_page: {number}\n",
    "language: {text}\n",
]

fragment = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=40))
edit = st.tuples(
    st.sampled_from(["insert", "delete", "replace", "duplicate"]), st.integers(0, 10_000), fragment
)


def mutate(text: str, edits: list[tuple[str, int, str]]) -> str:
    """`text` with line edits applied (positions wrap around)."""
    lines = text.split("\n")
    for kind, position, value in edits:
        index = position % max(len(lines), 1)
        if kind == "insert":
            lines.insert(index, value)
        elif kind == "delete" and lines:
            del lines[index]
        elif kind == "replace" and lines:
            lines[index] = value
        elif lines:
            lines.insert(index, lines[index])
    return "\n".join(lines)


def outside_site(project: Path, before: set[Path]) -> set[Path]:
    """Files created in the project other than in site/, the build's cache and lineage.txt (the
    pages papers had, which the build writes for the project to commit)."""
    now = {p for p in project.rglob("*") if p.is_file()}
    allowed = (project / "site", project / ".scholarsite-cache", project / LINEAGE_FILE)
    return {p for p in now - before if not any(p.is_relative_to(a) for a in allowed)}


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the pages of every fuzzed build are gathered, for one HTML validation at the end."""
    return tmp_path_factory.mktemp("fuzzed-pages")


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    seed_edits=st.lists(edit, max_size=8),
    page=fragment,
    setting=st.tuples(st.sampled_from(SETTINGS), fragment, st.integers(-5, 10**9)),
)
def test_mutated_projects_build_or_fail_with_diagnostics(
    tmp_path_factory: pytest.TempPathFactory,
    collected: Path,
    seed_edits: list[tuple[str, int, str]],
    page: str,
    setting: tuple[str, str, int],
) -> None:
    template, text, number = setting
    value = text.replace("\n", " ").replace("'", "")
    project = make_project(
        tmp_path_factory.mktemp("fuzz"), site_yaml=template.format(text=f"'{value}'", number=number)
    )
    seed = sorted((project / "seeds").glob("*.txt"))[0]
    seed.write_text(mutate(seed.read_text(encoding="utf-8"), seed_edits), encoding="utf-8")
    (project / "content/fuzz.md").write_text(f"---\ntitle: Fuzz\n---\n{page}\n", encoding="utf-8")
    before = {p for p in project.rglob("*") if p.is_file()}
    try:
        pipeline.build(project, workers=1)
    except BuildError as exc:
        assert exc.diagnostics and not (project / "site").exists()
        return
    assert not outside_site(project, before)
    target = collected / project.name
    shutil.copytree(project / "site", target, ignore=shutil.ignore_patterns("pagefind", ".*"))


def test_every_fuzzed_page_is_valid_html(collected: Path) -> None:
    if not any(collected.rglob("*.html")):
        pytest.skip("no fuzzed build succeeded")
    problems = qa.check_html(collected).problems  # warnings (a private-use character) are the text's own
    errors = [p for p in problems if ": error: " in p or p.startswith("vnu failed")]
    assert not errors, "\n".join(errors[:20])
