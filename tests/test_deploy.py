"""`scholarsite deploy` publishes site/ to a gh-pages branch of a (here: local bare) remote,
and never deploys a failing build."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from scholarsite import cli
from scholarsite.commands.deploy import commit_site, publish
from scholarsite.commands.publish import Damaged, Site, export

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
    # the working tree is untouched but for lineage.txt, which the build writes for the project to commit
    assert git(project, "status", "--porcelain") == "?? lineage.txt\n"


def test_a_failing_build_is_not_deployed(
    repository: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, remote = repository
    seed = project / "seeds/ada-lovelace.txt"
    seed.write_text(seed.read_text().replace("cs.ET↗\n", "xx.YY↗\n"))  # an unknown subject: a warning
    assert cli.main(["--project", str(project), "deploy", "--quiet", "--strict"]) == cli.FAILED
    assert "not deployed" in capsys.readouterr().err
    assert "gh-pages" not in git(remote, "branch", "--list")


INJECTION = "zz\ndata 0\nM 100644 inline CNAME"  # issue 29: a name that was a fast-import command
HOSTILE_NAMES = (
    INJECTION,
    "plain\nnewline.txt",
    'quote " and back\\slash',
    "tab\there",
    '"quoted"',
    "é ü 中.txt",
)


def test_no_file_name_can_steer_the_commit(repository: tuple[Path, Path], tmp_path: Path) -> None:
    """The gh-pages commit holds exactly the site's names and bytes, whatever the names hold
    (the build refuses such names; the commit must not depend on that)."""
    project, _ = repository
    folder = tmp_path / "hostile-site"
    files = {"index.html": b"<!doctype html><title>home</title>\n"}
    files.update({name: f"evil.example.com {index}\n".encode() for index, name in enumerate(HOSTILE_NAMES)})
    for name, content in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content)
    site = Site(folder, {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}, ())
    commit_site(project, site, "gh-pages", "Publish", None)
    names = git(project, "ls-tree", "-r", "-z", "--name-only", "gh-pages").split("\0")
    assert sorted(filter(None, names)) == sorted([*files, ".nojekyll"])
    for name, content in files.items():
        shown = subprocess.run(
            [*GIT, "-C", str(project), "cat-file", "blob", f"gh-pages:{name}"],
            check=True,
            capture_output=True,
        )
        assert shown.stdout == content


@pytest.mark.parametrize("name", [INJECTION, "plain\nnewline.txt"])
def test_a_static_file_named_to_inject_is_refused_naming_it(
    repository: tuple[Path, Path], capsys: pytest.CaptureFixture[str], name: str
) -> None:
    project, remote = repository
    (project / "static").mkdir(exist_ok=True)
    (project / "static" / name).write_text("evil.example.com")
    assert cli.main(["--project", str(project), "deploy", "--quiet"]) == cli.FAILED
    err = capsys.readouterr().err
    shown = name.replace("\n", "\\x0a")
    assert f"static/{shown}: error: cannot be copied to site/{shown}: the site cannot hold that name" in err
    assert "a control character such as a newline" in err and "Traceback" not in err
    assert "gh-pages" not in git(remote, "branch", "--list")


def test_damaged_bytes_are_never_committed(repository: tuple[Path, Path]) -> None:
    project, remote = repository
    assert cli.main(["--project", str(project), "build", "--quiet"]) == cli.OK
    page = project / "site/index.html"
    built = page.read_bytes()
    page.write_bytes(built.replace(b"<title>", b"<title>Defaced "))
    with pytest.raises(Damaged, match="site/index.html does not hold the bytes the build wrote"):
        publish(project, project / "site", "origin", "gh-pages", "Publish")
    assert "gh-pages" not in git(project, "branch", "--list")  # nothing committed, nothing pushed
    assert "gh-pages" not in git(remote, "branch", "--list")
    # through the command: a build may repair the page first; the damaged bytes never ship
    if cli.main(["--project", str(project), "deploy", "--quiet"]) == cli.OK:
        assert git(remote, "show", "gh-pages:index.html").encode() == built
    else:
        assert "gh-pages" not in git(remote, "branch", "--list")


def test_publish_dir_never_holds_damaged_bytes(repository: tuple[Path, Path], tmp_path: Path) -> None:
    project, _ = repository
    assert cli.main(["--project", str(project), "build", "--quiet"]) == cli.OK
    css = project / "site/assets/style.css"
    built = css.read_bytes()
    css.write_bytes(b"body{display:none}")
    with pytest.raises(Damaged, match="site/assets/style.css does not hold the bytes"):
        export(project / "site", tmp_path / "out")
    assert not (tmp_path / "out/assets/style.css").exists()
    code = cli.main(["--project", str(project), "build", "--quiet", "--publish-dir", str(tmp_path / "pub")])
    if code == cli.OK:  # the build repaired the file
        assert (tmp_path / "pub/assets/style.css").read_bytes() == built
    else:
        assert not (tmp_path / "pub/assets/style.css").exists()
