"""Rendering: template problems are diagnostics naming the template and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.errors import BuildError

from .conftest import make_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "p")


def outputs(project: Path) -> dict[str, bytes]:
    loaded = pipeline.load_project(project)
    return pipeline.render_site(loaded, pipeline.model_of(loaded), {})


def test_template_error_is_a_diagnostic_naming_the_template(project: Path) -> None:
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
