"""`check` finds exactly what `build` finds, and writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.errors import BuildError, Diagnostic

from .conftest import ROOT, make_project

Breakage = Callable[[Path], None]


def append(path: Path, text: str) -> None:
    """Add `text` to the end of a file."""
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def inject(path: Path, text: str) -> None:
    """Put `text` into a template's first block (a child template prints nothing outside them)."""
    source = path.read_text(encoding="utf-8")
    path.write_text(source.replace("{% endblock %}", text + "{% endblock %}", 1), encoding="utf-8")


def write(path: Path, text: str) -> None:
    """Create a file (and its folder)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def first_seed(project: Path) -> Path:
    """The first seed file of the project."""
    return sorted((project / "seeds").glob("*.txt"))[0]


RECORD = "\n\narXiv{year}\n\nA title\n\nAn abstract.\n\n{subject}↗\n"
BROKEN: dict[str, Breakage] = {
    "impossible year": lambda p: append(first_seed(p), RECORD.format(year=2999, subject="cs.LG")),
    "unknown subject (a warning)": lambda p: append(first_seed(p), RECORD.format(year=2020, subject="xx.YY")),
    "author page without an author": lambda p: write(p / "content/authors/nobody-here.md", "Hello\n"),
    "reserved page name": lambda p: write(p / "content/papers.md", "---\ntitle: Papers\n---\nHi\n"),
    "front matter": lambda p: write(p / "content/about.md", "---\ncolour: red\n---\nHi\n"),
    "site.yaml": lambda p: write(p / "site.yaml", "papers_per_page: many\n"),
    "template syntax": lambda p: append(p / "templates/paper.html", "{% if %}\n"),
    "undefined variable": lambda p: inject(p / "templates/paper.html", "{{ no_such_thing }}\n"),
    "python error in a template": lambda p: inject(p / "templates/year.html", "{{ 1 / 0 }}\n"),
    "missing include": lambda p: inject(p / "templates/author.html", "{% include 'gone.html' %}\n"),
    "several at once": lambda p: (
        write(p / "content/authors/nobody-here.md", "Hello\n"),
        inject(p / "templates/paper.html", "{{ no_such_thing }}\n"),
    ),
}


def build_diagnostics(project: Path, strict: bool) -> tuple[Diagnostic, ...]:
    """What a build reports (its diagnostics, whether it fails or not)."""
    try:
        return pipeline.build(project, strict=strict, workers=1).diagnostics
    except BuildError as exc:
        return exc.diagnostics


def listing(folder: Path) -> dict[str, int]:
    """Every file under `folder` with its modification time."""
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_check_reports_what_build_reports(tmp_path: Path, name: str, strict: bool) -> None:
    project = make_project(tmp_path / "project")
    BROKEN[name](project)
    before = listing(project)
    checked = pipeline.check(project, strict=strict, workers=1).diagnostics
    assert listing(project) == before  # check wrote nothing, not even caches
    built = build_diagnostics(project, strict)
    assert sorted(checked) == sorted(built)
    assert any(d.severity.value in ("error", "warning") for d in checked), "the breakage was not found"


def test_check_finds_render_errors_on_a_built_site_after_a_template_edit(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    pipeline.build(project, workers=1)
    inject(project / "templates/subject.html", "{{ subject.no_such_field }}\n")
    found = pipeline.check(project, workers=1).diagnostics
    assert [(d.path, d.severity.value) for d in found if d.severity.value == "error"] == [
        ("templates/subject.html", "error")
    ]


def test_check_renders_nothing_the_site_holds_from_the_same_key(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    pipeline.build(project, workers=1)
    counted: list[int] = []
    pipeline.check(project, workers=1, progress=lambda stage, done, total: counted.append(total))
    assert max(counted, default=0) == 0


def test_cli_check_exits_1_with_the_build_messages(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    BROKEN["several at once"](project)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, str(ROOT / "build.py"), *args, "--project", str(project)]
        return subprocess.run(command, capture_output=True, text=True, timeout=300)

    checked, built = run("check", "--json"), run("build", "--quiet")
    assert (checked.returncode, built.returncode) == (1, 1)
    report = json.loads(checked.stdout)
    messages = [f"{d['path']}:{d['line']}: {d['severity']}: {d['message']}" for d in report["diagnostics"]]
    for message in messages:
        if ": note: " not in message:
            assert message.replace(":0:", ":") in built.stderr.replace(":0:", ":")
    assert not (project / "site").exists()
