"""Rendering: template errors are diagnostics; forked workers give the same bytes as one process."""

from __future__ import annotations

from pathlib import Path

import pytest

from scholarsite import pipeline, render
from scholarsite.errors import BuildError

from .conftest import make_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "p")


def outputs(project: Path) -> dict[str, bytes]:
    loaded = pipeline.load_project(project)
    return pipeline.render_site(loaded, pipeline.model_of(loaded), {})


def test_forked_workers_render_the_same_bytes(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "MAX_WORKERS", 1)
    alone = outputs(project)
    monkeypatch.setattr(render, "MAX_WORKERS", 2)
    monkeypatch.setattr(render, "PARALLEL_FROM", 1)
    monkeypatch.setattr(render.os, "cpu_count", lambda: 2)
    together = outputs(project)
    html = [p for p in alone if p.endswith(".html")]
    assert len(html) > 50
    assert {p: alone[p] for p in html} == {p: together[p] for p in html}


def test_template_error_in_a_worker_is_a_diagnostic(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "PARALLEL_FROM", 1)
    monkeypatch.setattr(render.os, "cpu_count", lambda: 2)
    template = project / "templates/subject.html"
    template.write_text(template.read_text().replace("{{ subject.count }}", "{{ subject.cuont }}", 1))
    with pytest.raises(BuildError) as failure:
        outputs(project)
    (problem,) = failure.value.diagnostics
    assert problem.path == "templates/subject.html" and "cuont" in problem.message


def test_syntax_error_names_template_and_line(project: Path) -> None:
    (project / "templates/years.html").write_text("{% extends 'base.html' %}\n{% block main %}\n{% for %}\n")
    with pytest.raises(BuildError) as failure:
        outputs(project)
    (problem,) = failure.value.diagnostics
    assert (problem.path, problem.line) == ("templates/years.html", 3)
