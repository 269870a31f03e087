"""The README stays short and true, and the documentation's generated reference says what the
code accepts (tools/docs_hooks.py; `mkdocs build --strict` itself runs in `.ci/run`)."""

from __future__ import annotations

import argparse
import re
from dataclasses import fields

import pytest

from scholarsite import arguments
from scholarsite.inputs.config import MEANINGS, Config
from tools import docs_hooks

from .conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def set_up_commands(markdown: str) -> list[str]:
    """The commands of the 'Set up on a fresh machine' section."""
    section = markdown.split("## Set up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, re.S)]


def test_readme_is_short() -> None:
    assert len(README.splitlines()) <= 200


def test_the_two_set_up_commands_are_those_ci_runs() -> None:
    build, tests = set_up_commands(README)  # exactly two
    assert build == "python -m pip install -e . && python build.py"
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci == tests
    assert "mkdocs build --strict" in tests and tests.endswith("python -m pytest")
    assert set_up_commands((ROOT / "docs/getting-started.md").read_text(encoding="utf-8")) == [build, tests]


def test_readme_links_point_at_files_that_exist() -> None:
    for target in re.findall(r"\]\(((?:docs/)[^)#]+)", README):
        assert (ROOT / target).is_file(), target


def test_the_settings_reference_has_every_key_with_its_default_and_meaning() -> None:
    table = docs_hooks.settings_reference()
    rows = {line.split("|")[1].strip(" `"): line for line in table.splitlines()[2:]}
    assert list(rows) == [f.name for f in fields(Config)]
    for field in fields(Config):
        row = rows[field.name]
        assert MEANINGS[field.name].replace("|", "\\|") in row
        assert docs_hooks.shown_default(field.default) in row
    assert "| `papers_per_page` | `100` | a whole number from 1 to 100000 |" in table
    assert "| `base_url` | unset |" in table and "| `portable` | `false` |" in table


def test_the_command_reference_has_every_command_and_option() -> None:
    text = docs_hooks.commands_reference()
    headings = re.findall(r"^## `scholarsite ?([a-z-]*)`$", text, re.M)
    assert headings == ["", *arguments.COMMANDS]
    for name, command in docs_hooks.subcommands(arguments.parser()).items():
        section = text.split(f"## `scholarsite {name}`", 1)[1].split("\n## ", 1)[0]
        for action in command._actions:
            for option in action.option_strings:
                assert option in section, (name, option)
        assert "examples:" in section
    assert "--version" in text


def test_an_unknown_marker_fails_the_docs_build() -> None:
    assert docs_hooks.generated("a\n<!-- generated: settings -->\nb").count("| `title` |") == 1
    with pytest.raises(KeyError):
        docs_hooks.generated("<!-- generated: nothing -->")


def test_help_in_the_docs_does_not_depend_on_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    narrow = docs_hooks.commands_reference()
    monkeypatch.setenv("COLUMNS", "200")
    assert docs_hooks.commands_reference() == narrow
    assert isinstance(arguments.parser(), argparse.ArgumentParser)


def workflow(name: str) -> dict:
    """A workflow of this repository, as data."""
    import yaml

    return yaml.safe_load((ROOT / ".github/workflows" / name).read_text(encoding="utf-8"))


def test_the_docs_workflow_builds_strictly_and_publishes_to_pages() -> None:
    docs = workflow("docs.yml")
    runs = " ".join(step.get("run", "") for step in docs["jobs"]["build"]["steps"])
    assert "mkdocs build --strict" in runs and "pip install -e '.[docs]'" in runs
    uses = [step.get("uses", "") for job in docs["jobs"].values() for step in job["steps"]]
    assert any(u.startswith("actions/upload-pages-artifact") for u in uses)
    assert any(u.startswith("actions/deploy-pages") for u in uses)


def test_the_release_workflow_checks_and_publishes_on_a_tag_with_trusted_publishing() -> None:
    release = workflow("release.yml")
    assert release[True]["push"]["tags"] == ["v*"]  # YAML 1.1 reads the key `on` as true
    runs = " ".join(step.get("run", "") for step in release["jobs"]["dist"]["steps"])
    assert "pyproject-build" in runs and "twine check --strict dist/*" in runs
    assert "python -m build" not in runs  # in the checkout that would run build.py
    publish = release["jobs"]["publish"]
    assert publish["permissions"] == {"id-token": "write"} and "refs/tags/v" in publish["if"]
    assert any(step.get("uses", "").startswith("pypa/gh-action-pypi-publish") for step in publish["steps"])
    assert not any("password" in str(step.get("with", {})) for step in publish["steps"])  # no token
