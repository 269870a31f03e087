"""Every input file is read under one rule, YAML is bounded, and `base_url` is a plain address.

Each case builds through the command line in a subprocess with a timeout, so that an input
that would block (a pipe) fails the test instead of hanging it, and so that the exit code and
the absence of a traceback are what a user sees.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from scholarsite.inputs.config import NONE_GIVEN
from scholarsite.inputs.freshness import inputs_today

from .conftest import ROOT, make_project

SECRET = "SCHOLARSITE_SECRET_VALUE_0815"
TIMEOUT = 120


def scholarsite(
    project: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m scholarsite --project PROJECT ARGS` with this worktree's code, bounded in time."""
    environment = {key: value for key, value in os.environ.items() if key != "SCHOLARSITE_BASE_URL"}
    environment.update(PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "scholarsite", "--project", str(project), *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=environment,
    )


def failed_with(done: subprocess.CompletedProcess[str], *expected: str) -> str:
    """The output of a build that failed as input problems do (exit 1, no traceback), after
    checking that it says each of `expected`."""
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "Traceback" not in output
    for text in expected:
        assert text in output, output
    return output


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A buildable project with a known site.yaml."""
    return make_project(tmp_path / "project", site_yaml="title: Test records\n")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the project."""
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


# One rule for every input file --------------------------------------------------------------


def test_a_pipe_as_site_yaml_is_refused_without_hanging(project: Path) -> None:
    (project / "site.yaml").unlink()
    os.mkfifo(project / "site.yaml")
    failed_with(scholarsite(project, "build"), "site.yaml", "not a regular file")
    assert not (project / "site").exists()
    failed_with(scholarsite(project, "check"), "site.yaml", "not a regular file")


@pytest.mark.parametrize("name", ["templates/base.html", "sources.yaml", "content/about.md"])
def test_a_pipe_as_an_input_is_refused_not_skipped(project: Path, name: str) -> None:
    (project / name).unlink(missing_ok=True)
    os.mkfifo(project / name)
    failed_with(scholarsite(project, "build"), f"{name}: error: not a regular file")
    assert not (project / "site").exists()


def test_a_template_linked_outside_is_refused_before_it_is_read(project: Path, outside: Path) -> None:
    os.mkfifo(outside / "base.html")  # reading it would block: the refusal must come first
    (project / "templates/base.html").unlink()
    (project / "templates/base.html").symlink_to(outside / "base.html")
    failed_with(scholarsite(project, "build"), "templates/base.html", "outside the project")


def secret_yaml(name: str) -> str:
    """A YAML file whose publication would leak SECRET."""
    if name == "sources.yaml":
        return f"papers:\n  {SECRET}:\n    status: found\n"
    return f"title: {SECRET}\n"


@pytest.mark.parametrize("name", ["site.yaml", "sources.yaml", "content/leak.md", "assets/leak.css"])
def test_an_input_linked_outside_the_project_is_refused(project: Path, outside: Path, name: str) -> None:
    secret = outside / Path(name).name
    text = secret_yaml(name)
    secret.write_text(f"---\n{text}---\n{SECRET}\n" if name.endswith(".md") else text, encoding="utf-8")
    (project / name).unlink(missing_ok=True)
    (project / name).symlink_to(secret)
    output = failed_with(scholarsite(project, "build"), name, "outside the project")
    assert SECRET not in output
    assert not (project / "site").exists()


def test_the_fingerprint_never_opens_a_pipe(project: Path) -> None:
    (project / "site.yaml").unlink()
    os.mkfifo(project / "site.yaml")
    os.mkfifo(project / "templates/extra.html")
    found: list[str] = []
    worker = threading.Thread(target=lambda: found.append(inputs_today(project, NONE_GIVEN)[0]), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert found, "the fingerprint blocked on a pipe"
    (project / "site.yaml").unlink()
    assert inputs_today(project, NONE_GIVEN)[0] != found[0]  # the pipe counted as an input


# Bounded YAML --------------------------------------------------------------------------------


def test_deep_nesting_in_site_yaml_is_an_error_at_its_line(project: Path) -> None:
    (project / "site.yaml").write_text("title: Deep\n\ndescription: " + "[" * 10_000 + "\n")
    failed_with(scholarsite(project, "build"), "site.yaml:3: error:", "nested")


def test_deep_nesting_in_front_matter_is_an_error_at_its_line(project: Path) -> None:
    (project / "content/about.md").write_text(
        "---\ntitle: About\ndescription: " + "[" * 500 + "\n---\nBody\n"
    )
    failed_with(scholarsite(project, "build"), "content/about.md:3: error:", "nested")


def test_deep_nesting_in_sources_yaml_is_an_error_at_its_line(project: Path) -> None:
    (project / "sources.yaml").write_text("papers:\n  x: " + "[" * 500 + "\n")
    failed_with(scholarsite(project, "build"), "sources.yaml:2: error:", "nested")


def test_nesting_within_the_bound_is_read(project: Path) -> None:
    (project / "content/about.md").write_text("---\ntitle: About\naliases: [[[[[x]]]]]\n---\nBody\n")
    output = failed_with(scholarsite(project, "build"), "content/about.md:3: error:")
    assert "nested" not in output  # a wrong type, not a depth problem


def test_a_huge_description_is_an_error_at_its_line(project: Path) -> None:
    (project / "site.yaml").write_text("title: Big\ndescription: " + "x" * 10_000_000 + "\n")
    output = failed_with(scholarsite(project, "build"), "site.yaml:2: error:", "'description'", "2,000")
    assert len(output) < 2_000
    assert not (project / "site").exists()


def test_a_long_title_is_an_error(project: Path) -> None:
    (project / "site.yaml").write_text("title: " + "t" * 301 + "\n")
    failed_with(scholarsite(project, "build"), "site.yaml:1: error:", "'title'", "300")


LONG_FRONT_MATTER = {
    "content/about.md": "title: T\ndescription: " + "d" * 2_001,
    "content/authors/ziheng-jiang.md": "orcid: 0000-0002-1825-0097\naffiliation: " + "a" * 2_001,
    "content/authors/ningxin-zheng.md": "orcid: 0000-0002-1825-0097\naliases: [" + "b" * 2_001 + "]",
}


@pytest.mark.parametrize("name", sorted(LONG_FRONT_MATTER))
def test_a_long_front_matter_value_is_an_error_at_its_line(project: Path, name: str) -> None:
    (project / name).parent.mkdir(exist_ok=True)
    (project / name).write_text(f"---\n{LONG_FRONT_MATTER[name]}\n---\nBody\n")
    failed_with(scholarsite(project, "check"), f"{name}:3: error:", "2,000")


def test_a_python_tag_is_reported_at_its_own_line(project: Path) -> None:
    lines = [f"# comment {n}" for n in range(1, 14)]
    (project / "site.yaml").write_text(
        "\n".join([*lines, "title: T", "description: !!python/name:os.system\n"])
    )
    output = failed_with(scholarsite(project, "build"), "site.yaml:15: error:")
    assert "site.yaml:1:" not in output


def test_a_bad_yaml_value_deep_in_a_mapping_is_reported_at_its_line(project: Path) -> None:
    entry = "papers:\n  x:\n    status: found\n    title: !!binary '%%%'\n"
    (project / "sources.yaml").write_text(entry)
    failed_with(scholarsite(project, "build"), "sources.yaml:4: error:")


# Plain scalars YAML types as dates that are none ---------------------------------------------

NOT_DATES = {
    "sources.yaml": ("papers:\n  2025/a:\n    status: found\n    checked: 2025-02-30\n", 4),
    "site.yaml": ("title: Test records\ndescription: 2025-02-30\n", 2),
    "content/about.md": ("---\ntitle: About\ndate: 2025-02-30\n---\nBody\n", 3),
}


@pytest.mark.parametrize("name", sorted(NOT_DATES))
def test_a_plain_date_that_is_none_is_an_error_at_its_line(project: Path, name: str) -> None:
    """`2025-02-30` unquoted: PyYAML's constructor raised a bare ValueError (a traceback, exit 3)."""
    text, line = NOT_DATES[name]
    (project / name).write_text(text)
    failed_with(
        scholarsite(project, "build"),
        f"{name}:{line}: error: not a date: 2025-02-30 (expected a real date as YYYY-MM-DD",
    )


def test_a_date_that_is_none_in_a_changed_sources_yaml_is_an_error_at_its_line(project: Path) -> None:
    """Through the signed cache of the last build (the changed file's reuse read)."""
    entries = "".join(f"  2025/p{n}:\n    status: found\n    checked: 2026-12-01\n" for n in range(5))
    (project / "sources.yaml").write_text("papers:\n" + entries)
    assert scholarsite(project, "build").returncode == 0  # keeps the signed cache
    (project / "sources.yaml").write_text("papers:\n" + entries.replace("2026-12-01", "0000-00-00", 1))
    failed_with(scholarsite(project, "build"), "sources.yaml:4: error: not a date: 0000-00-00")


# base_url ------------------------------------------------------------------------------------

BAD_BASE_URLS = {
    "credentials": "https://user:s3cr3t-pass@example.org/",
    "user only": "https://user@example.org/",
    "query": "https://example.org/?page=1",
    "fragment": "https://example.org/#frag",
    "ftp": "ftp://example.org/",
    "no host": "https:///path/",
    "bad port": "https://example.org:99999/",
}


@pytest.mark.parametrize("name", sorted(BAD_BASE_URLS))
def test_a_bad_base_url_is_an_error_at_its_line(project: Path, name: str) -> None:
    (project / "site.yaml").write_text(f"title: T\nbase_url: {BAD_BASE_URLS[name]}\n")
    output = failed_with(scholarsite(project, "build"), "site.yaml:2: error:", "'base_url'")
    assert "s3cr3t-pass" not in output  # a password is not shown, even in the message
    assert not (project / "site").exists()


def test_good_base_urls_are_accepted(project: Path) -> None:
    (project / "site.yaml").write_text("title: T\nbase_url: https://example.org:8443/lab\n")
    done = scholarsite(project, "build", "--quiet")
    assert done.returncode == 0, done.stderr
    assert 'href="https://example.org:8443/lab/"' in (project / "site/index.html").read_text()


def test_a_bad_base_url_flag_is_reported_as_the_flag(project: Path) -> None:
    done = scholarsite(project, "build", "--base-url", "https://example.org/#frag")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--base-url" in done.stderr and "SCHOLARSITE_BASE_URL" not in done.stderr


def test_a_bad_base_url_variable_is_reported_as_the_variable(project: Path) -> None:
    done = scholarsite(project, "build", env={"SCHOLARSITE_BASE_URL": "ftp://example.org/"})
    failed_with(done, "SCHOLARSITE_BASE_URL")
    assert "--base-url" not in done.stderr
