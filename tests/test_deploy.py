"""`scholarsite deploy` publishes site/ to a gh-pages branch of a (here: local bare) remote,
and never deploys a failing build."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from scholarsite import cli

from .conftest import adopt_example

GIT = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.org"]


def git(folder: Path, *args: str) -> str:
    """Run git in `folder`; its output."""
    return subprocess.run([*GIT, "-C", str(folder), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A new project in a git repository whose origin is a local bare repository."""
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.org")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.org")
    remote, project = tmp_path / "remote.git", tmp_path / "lab"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    cli.main(["new", str(project)])
    adopt_example(project)
    git(project, "init", "-q", "-b", "main")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "New project")
    git(project, "remote", "add", "origin", str(remote))
    return project, remote


def test_deploy_pushes_the_site_to_gh_pages(repository: tuple[Path, Path]) -> None:
    project, remote = repository
    assert cli.main(["--project", str(project), "deploy", "--quiet", "--strict"]) == cli.OK
    files = git(remote, "ls-tree", "-r", "--name-only", "gh-pages").split()
    assert "index.html" in files and ".nojekyll" in files and "authors/ada-lovelace/index.html" in files
    assert git(remote, "log", "--format=%s", "gh-pages").strip() == "Publish the site"
    assert git(project, "status", "--porcelain") == ""  # the working tree is untouched


def test_a_failing_build_is_not_deployed(
    repository: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, remote = repository
    seed = project / "seeds/ada-lovelace.txt"
    seed.write_text(seed.read_text().replace("cs.ET↗\n", "xx.YY↗\n"))  # an unknown subject: a warning
    assert cli.main(["--project", str(project), "deploy", "--quiet", "--strict"]) == cli.FAILED
    assert "not deployed" in capsys.readouterr().err
    assert "gh-pages" not in git(remote, "branch", "--list")
