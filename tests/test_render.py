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


def outputs(project: Path) -> None:
    """Build into a scratch folder (the families are checked and rendered as in a build)."""
    pipeline.build(project, project / "scratch-site", workers=1)


def test_template_error_is_a_diagnostic_naming_the_template(project: Path) -> None:
    template = project / "templates/subject.html"
    template.write_text(template.read_text().replace("{{ subject.count }}", "{{ subject.cuont }}", 1))
    with pytest.raises(BuildError) as failure:
        outputs(project)
    (problem,) = [d for d in failure.value.diagnostics if d.severity.value == "error"]
    assert problem.path == "templates/subject.html" and "cuont" in problem.message


def test_syntax_error_names_template_and_line(project: Path) -> None:
    (project / "templates/years.html").write_text("{% extends 'base.html' %}\n{% block main %}\n{% for %}\n")
    with pytest.raises(BuildError) as failure:
        outputs(project)
    (problem,) = [d for d in failure.value.diagnostics if d.severity.value == "error"]
    assert (problem.path, problem.line) == ("templates/years.html", 3)
