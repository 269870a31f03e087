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


def test_pages_render_the_templates_the_build_read_not_a_later_save(project: Path) -> None:
    """A template saved while a build runs (after its inputs were read) changes the next
    build, not some of this build's pages: pages render what their keys were made from."""
    from scholarsite.inputs.project import load_project
    from scholarsite.outputs.families.pages import outputs as page_outputs

    data, _ = pipeline.site_data(load_project(project))
    template = project / "templates/paper.html"
    template.write_text(template.read_text().replace("{% block main %}", "{% block main %}SAVED-LATER", 1))
    (page,) = [o for o in page_outputs(data) if o.path.startswith("papers/") and o.path.count("/") == 3][:1]
    assert b"SAVED-LATER" not in page.produce()
    again, _ = pipeline.site_data(load_project(project))
    (later,) = [o for o in page_outputs(again) if o.path == page.path]
    assert b"SAVED-LATER" in later.produce() and later.key != page.key


def test_a_listing_row_printing_the_abstract_is_an_error_at_its_line(project: Path) -> None:
    """A listing's rows know whether a paper has an abstract, not its text (listings are
    keyed without it, so an edited abstract makes none of them again): a row that tests it
    renders; one that prints it stops the build at that line, rather than show a stale text."""
    macros = project / "templates/partials/macros.html"
    text = macros.read_text()
    row = "{{ paper_summary(p, root, me, skip, heading, compact, when) }}"
    assert row in text
    macros.write_text(text.replace(row, row + "{% if p.abstract %}<i>has one</i>{% endif %}", 1))
    outputs(project)
    listing = next((project / "scratch-site/years").glob("*/index.html")).read_text(encoding="utf-8")
    assert "<i>has one</i>" in listing
    line = 1 + text[: text.index(row)].count("\n")
    macros.write_text(text.replace(row, row + "{{ p.abstract }}", 1))
    with pytest.raises(BuildError) as failure:
        outputs(project)
    problems = {(d.path, d.line) for d in failure.value.diagnostics if d.severity.value == "error"}
    assert ("templates/partials/macros.html", line) in problems
    assert any("not its text" in d.message for d in failure.value.diagnostics)
