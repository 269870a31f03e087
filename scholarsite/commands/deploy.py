"""`scholarsite deploy`: publish the site to a `gh-pages` branch, without GitHub Actions.

As `mkdocs gh-deploy` (through ghp-import) does, the site becomes the single new commit of
the branch (with `.nojekyll`), its parent the branch's last commit, pushed to the remote. The
build runs first; a failing build, or one failing `--strict`, is never deployed. What is
committed is exactly what the build wrote (`publish.published`), each file checked against
the manifest's digest as it is read: never the build's bookkeeping, never a file a person
put in `site/`, never damaged bytes. The commit is written by `git fast-import` with every
path quoted by its rules, so no file name (a newline in it, say) can add a command to the
stream. Before anything, the project must be in a git repository with the remote:
otherwise the message says what to run.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from pathlib import Path
from typing import BinaryIO

from scholarsite.commands.publish import Site, published, verified

NOJEKYLL = ".nojekyll"  # GitHub Pages serves the files as they are (no Jekyll)
UNQUOTED = frozenset(range(0x20, 0x7F)) - {ord('"'), ord("\\")}


class DeployError(Exception):
    """Git or the remote refused the deployment, or there is no repository to deploy from."""


def git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """`git -C root ARGS`, quietly, whatever its exit code."""
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)


def git_answers(root: Path, *args: str) -> bool:
    """Whether `git -C root ARGS` succeeds (quietly)."""
    return git(root, *args).returncode == 0


def git_says(root: Path, *args: str) -> str:
    """The output of `git -C root ARGS`; DeployError with git's own message when it fails."""
    done = git(root, *args)
    if done.returncode != 0:
        raise DeployError(f"`git {' '.join(args)}` failed: {said(done.stderr)}")
    return done.stdout.decode("utf-8", "replace").strip()


def said(stderr: bytes) -> str:
    """Git's message, on one line."""
    return " ".join(stderr.decode("utf-8", "replace").split()) or "no message"


def preflight(root: Path, remote: str) -> None:
    """DeployError, saying what to run, unless git is installed, `root` is in a git repository
    and that repository has the remote."""
    if shutil.which("git") is None:
        raise DeployError("git is not installed; install it, then run deploy again")
    if not git_answers(root, "rev-parse", "--is-inside-work-tree"):
        raise DeployError(
            f"{root} is not in a git repository; run `git init`, then "
            f"`git remote add {remote} URL` (URL: your GitHub repository's address), then deploy again"
        )
    if not git_answers(root, "remote", "get-url", remote):
        raise DeployError(
            f"the repository has no remote {remote!r}; run `git remote add {remote} URL` "
            "(URL: your GitHub repository's address), then deploy again"
        )


def quoted(path: str) -> bytes:
    """`path` as a C-style quoted string of git fast-import: quote, backslash, control and
    non-ASCII bytes escaped, so the stream reads exactly one path whatever the name holds."""
    escaped = b"".join(
        bytes([byte]) if byte in UNQUOTED else b"\\" + bytes([byte]) if byte in b'"\\' else b"\\%03o" % byte
        for byte in path.encode("utf-8", "surrogateescape")
    )
    return b'"' + escaped + b'"'


def blob(stream: BinaryIO, mark: int, content: BinaryIO, size: int) -> None:
    """A fast-import `blob` command with `mark` for `size` bytes read from `content`."""
    stream.write(b"blob\nmark :%d\ndata %d\n" % (mark, size))
    shutil.copyfileobj(content, stream)
    stream.write(b"\n")


def commit_site(root: Path, site: Site, branch: str, message: str, parent: str | None) -> None:
    """Commit the files of `site` (and `.nojekyll`) as the tip of `branch`, its parent
    `parent`; Damaged (and nothing committed) when a file's bytes are not the build's."""
    ident = git_says(root, "var", "GIT_COMMITTER_IDENT").encode()
    command = ["git", "-C", str(root), "fast-import", "--quiet", "--force", "--date-format=raw"]
    importer = subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    stream = importer.stdin
    assert stream is not None and importer.stderr is not None  # both are pipes
    try:
        stream.write(b"feature done\n")
        for mark, path in enumerate(site.files, start=1):
            with verified(site, path) as (content, size):  # checked whole before a byte is sent
                blob(stream, mark, content, size)
        text = message.encode("utf-8")
        stream.write(b"commit refs/heads/%s\ncommitter %s\n" % (branch.encode(), ident))
        stream.write(b"data %d\n%s\n" % (len(text), text))
        stream.write(b"from %s\n" % parent.encode() if parent else b"")
        stream.write(b"deleteall\n")
        for mark, path in enumerate(site.files, start=1):
            stream.write(b"M 100644 :%d %s\n" % (mark, quoted(path)))
        if NOJEKYLL not in site.files:
            stream.write(b"M 100644 inline %s\ndata 0\n" % quoted(NOJEKYLL))
        stream.write(b"\n")
    finally:
        with contextlib.suppress(BrokenPipeError):  # fast-import stopped: its message says why
            stream.write(b"done\n")  # without a commit (a damaged file), the branch is not touched
        with contextlib.suppress(BrokenPipeError):
            stream.close()
        error = importer.stderr.read()
        if importer.wait() != 0:
            raise DeployError(f"git fast-import refused the commit: {said(error)}")


def last_commit(root: Path, remote: str, branch: str) -> str | None:
    """The commit the new one follows: the remote's branch as last fetched, else the local one."""
    for ref in (f"refs/remotes/{remote}/{branch}", f"refs/heads/{branch}"):
        done = git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        if done.returncode == 0:
            return done.stdout.decode().strip()
    return None


def publish(root: Path, site_dir: Path, remote: str, branch: str, message: str) -> Site:
    """Commit the files the build wrote into `site_dir` as the tip of `branch` in the project's
    repository and push it; what was published (and the files of site/ left out)."""
    if not git_answers(root, "check-ref-format", f"refs/heads/{branch}"):
        raise DeployError(f"{branch!r} is not a name git allows for a branch")
    site = published(site_dir)
    commit_site(root, site, branch, message, last_commit(root, remote, branch))
    git_says(root, "push", "--quiet", remote, f"refs/heads/{branch}:refs/heads/{branch}")
    return site
