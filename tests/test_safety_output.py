"""Nothing of the user's is deleted or published by mistake (issue 17, items 1 and 2).

The output folder is the build's, or it is refused: a folder holding files but no manifest,
the project folder, a folder containing it, `/` and the home folder. Nothing the build did
not write is removed, not even in `pagefind/`. Deploy and the Pages workflow publish exactly
the files of the manifest (those of `static/` included), never the build's bookkeeping or a
stray file.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from scholarsite import cli, write
from scholarsite.inputs.freshness import INPUTS
from scholarsite.preview.watch import WATCHED
from scholarsite.write import ownership

from .conftest import ROOT
from .test_deploy import git

USER_FILES = {
    "pagefind/thesis.tex": b"\\documentclass{book} my thesis",
    ".ssh/id_ed25519": b"-----BEGIN OPENSSH PRIVATE KEY-----",
    "Documents/cv.pdf": b"%PDF-1.7 my cv",
}


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under `folder`."""
    return {
        path.relative_to(folder).as_posix(): None if path.is_dir() else path.read_bytes()
        for path in sorted(folder.rglob("*"))
    }


def user_folder(folder: Path) -> Path:
    """A stand-in for a person's home folder, holding their files."""
    for name, data in USER_FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A new project (the starter's), not built yet."""
    assert cli.main(["new", str(tmp_path / "lab")]) == cli.OK
    return tmp_path / "lab"


def manifest_files(site: Path) -> set[str]:
    """The files the manifest of `site` lists."""
    return set(json.loads((site / write.MANIFEST).read_bytes())["files"])


@pytest.mark.parametrize("command", ["build", "check"])
def test_a_users_folder_is_refused_and_left_as_it_was(
    project: Path, tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    home = user_folder(tmp_path / "home")
    before = tree(home)
    assert cli.main(["--project", str(project), command, "--site", str(home)]) == cli.FAILED
    err = capsys.readouterr().err
    assert str(home) in err and ".ssh/" in err and "Documents/" in err and "nothing was written" in err
    assert tree(home) == before


@pytest.mark.parametrize("site", [".", ".."])
def test_the_project_folder_and_its_parent_are_refused(
    project: Path, site: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(project)
    before = tree(project.parent)
    assert cli.main(["build", "--site", site]) == cli.FAILED
    assert (project / site).resolve().as_posix() in capsys.readouterr().err
    assert tree(project.parent) == before
    assert cli.main(["check", "--site", site]) == cli.FAILED


def test_the_root_and_the_home_folder_are_refused(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ownership.FolderRefused, match="root of the file system"):
        ownership.claim(Path("/"), project)
    home = tmp_path / "empty-home"
    home.mkdir()
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    with pytest.raises(ownership.FolderRefused, match="home folder"):
        ownership.claim(home, project)
    assert cli.main(["--project", str(project), "build", "--site", str(home)]) == cli.FAILED
    assert list(home.iterdir()) == []  # even an empty home folder is never written into


def test_new_empty_and_built_folders_are_accepted(project: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for site in (tmp_path / "new/site", tmp_path / "empty"):
        assert cli.main(["--project", str(project), "build", "--quiet", "--site", str(site)]) == cli.OK
        assert (site / "index.html").is_file()
        assert cli.main(["--project", str(project), "build", "--quiet", "--site", str(site)]) == cli.OK


def test_a_stray_file_in_pagefind_is_named_and_kept(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--project", str(project), "build", "--quiet"]) == cli.OK
    stray = project / "site/pagefind/thesis.tex"
    stray.write_bytes(USER_FILES["pagefind/thesis.tex"])
    seed = project / "seeds/example.txt"
    seed.write_text(seed.read_text().replace("Notes on the Analytical Engine", "Notes, revised,"))
    capsys.readouterr()
    assert cli.main(["--project", str(project), "build"]) == cli.OK  # the search index is remade
    assert "site/pagefind/thesis.tex: note: not produced by the build" in capsys.readouterr().err
    assert stray.read_bytes() == USER_FILES["pagefind/thesis.tex"]


def add_static(project: Path) -> dict[str, bytes]:
    """Files a site needs at its root that the build does not make, in static/."""
    files = {"keybase.txt": b"keybase proof", ".well-known/security.txt": b"Contact: x@example.org"}
    for name, data in files.items():
        (project / "static" / name).parent.mkdir(parents=True, exist_ok=True)
        (project / "static" / name).write_bytes(data)
    return files


@pytest.fixture
def repository(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The project in a git repository whose origin is a local bare repository."""
    for variable in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        monkeypatch.setenv(variable, "Test")
    for variable in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(variable, "test@example.org")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(project, "init", "-q", "-b", "main")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "New project")
    git(project, "remote", "add", "origin", str(remote))
    return project, remote


def test_deploy_publishes_exactly_the_builds_files(
    repository: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, remote = repository
    static = add_static(project)
    assert cli.main(["--project", str(project), "build", "--quiet"]) == cli.OK
    (project / "site/notes.txt").write_bytes(b"my private notes")
    assert cli.main(["--project", str(project), "deploy"]) == cli.OK
    assert "site/notes.txt: note: not produced by the build, left out" in capsys.readouterr().err
    published = set(git(remote, "ls-tree", "-r", "--name-only", "gh-pages").split())
    assert published == manifest_files(project / "site")
    assert static.keys() <= published and "index.html" in published
    assert not {"notes.txt", write.MANIFEST, write.JOURNAL} & published
    assert git(remote, "show", "gh-pages:keybase.txt").encode() == static["keybase.txt"]


def test_deploy_outside_a_repository_says_what_to_run(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # no repository above tmp_path
    assert cli.main(["--project", str(project), "deploy"]) == cli.FAILED
    err = capsys.readouterr().err
    assert "not in a git repository" in err and "`git init`" in err and "`git remote add origin URL`" in err
    assert not (project / "site").exists()  # nothing built for nothing
    git(project, "init", "-q", "-b", "main")
    assert cli.main(["--project", str(project), "deploy"]) == cli.FAILED
    err = capsys.readouterr().err
    assert "no remote 'origin'" in err and "`git remote add origin URL`" in err and "fatal" not in err


@pytest.mark.parametrize(
    "workflow",
    [ROOT / "scholarsite/commands/starter/workflows/pages.yml", ROOT / ".github/workflows/pages.yml"],
)
def test_the_workflow_uploads_the_publish_dir_not_site(workflow: Path) -> None:
    steps = yaml.safe_load(workflow.read_text())["jobs"]["build"]["steps"]
    (build,) = [step for step in steps if step.get("name") == "Build"]
    (upload,) = [step for step in steps if step.get("uses", "").startswith("actions/upload-pages-artifact")]
    folder = upload["with"]["path"]
    assert folder.rstrip("/") not in ("site", "./site") and "runner.temp" in folder
    assert f'--publish-dir "{folder}"' in build["run"]


def test_publish_dir_gets_exactly_the_manifests_files(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    static = add_static(project)
    assert cli.main(["--project", str(project), "build", "--quiet"]) == cli.OK
    (project / "site/notes.txt").write_bytes(b"my private notes")
    out = tmp_path / "publish"
    assert cli.main(["--project", str(project), "build", "--publish-dir", str(out)]) == cli.OK
    assert "site/notes.txt: note: not produced by the build, left out" in capsys.readouterr().err
    copied = {name for name, data in tree(out).items() if data is not None}
    assert copied == manifest_files(project / "site") and static.keys() <= copied
    assert all((out / p).read_bytes() == (project / "site" / p).read_bytes() for p in copied)
    before = tree(out)  # a folder that is not empty is refused, before anything is built
    assert cli.main(["--project", str(project), "build", "--publish-dir", str(out)]) == cli.FAILED
    assert "not empty" in capsys.readouterr().err and tree(out) == before
    inside = project / "site/copy"
    assert cli.main(["--project", str(project), "build", "--publish-dir", str(inside)]) == cli.FAILED
    assert not inside.exists()


def test_a_static_file_in_the_builds_place_is_an_error_in_check_and_build(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--project", str(project), "build", "--quiet"]) == cli.OK
    before = tree(project / "site")
    (project / "static/authors").mkdir(parents=True)
    (project / "static/index.html").write_bytes(b"<p>mine</p>")
    (project / "static/authors/index.html").write_bytes(b"<p>mine</p>")
    (project / "static/pagefind").write_bytes(b"not a folder")
    for command in ("check", "build"):
        assert cli.main(["--project", str(project), command]) == cli.FAILED
        err = capsys.readouterr().err
        for name in ("index.html", "authors/index.html", "pagefind"):
            assert f"static/{name}: error: cannot be copied to site/{name}" in err
    assert tree(project / "site") == before


def test_static_files_are_inputs_read_as_the_others(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "static" in WATCHED and "static" in INPUTS
    add_static(project)
    assert cli.main(["--project", str(project), "build", "--quiet"]) == cli.OK
    assert (project / "site/keybase.txt").read_bytes() == b"keybase proof"
    (project / "static/keybase.txt").write_bytes(b"a new proof")  # the fingerprint sees it
    assert cli.main(["--project", str(project), "build", "--quiet"]) == cli.OK
    assert (project / "site/keybase.txt").read_bytes() == b"a new proof"
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"outside the project")
    os.symlink(secret, project / "static/secret.txt")
    assert cli.main(["--project", str(project), "build", "--quiet"]) == cli.FAILED
    assert "static/secret.txt: error: links to a file outside the project" in capsys.readouterr().err
    assert not (project / "site/secret.txt").exists()
