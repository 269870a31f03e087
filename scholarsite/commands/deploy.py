"""`scholarsite deploy`: publish the site to a `gh-pages` branch, without GitHub Actions.

As `mkdocs gh-deploy` does, through `ghp-import`: the site becomes the single new commit of
the branch (with `.nojekyll`), pushed to the remote. The build runs first; a failing build,
or one failing `--strict`, is never deployed. What is committed is exactly what the build
wrote (`publish.export`): never the build's bookkeeping, never a file a person put in `site/`.
Before anything, the project must be in a git repository with the remote: otherwise the
message says what to run.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from pathlib import Path

import ghp_import

from scholarsite.commands.publish import Export, export


class DeployError(Exception):
    """Git or the remote refused the deployment, or there is no repository to deploy from."""


def git_answers(root: Path, *args: str) -> bool:
    """Whether `git -C root ARGS` succeeds (quietly)."""
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)
    return done.returncode == 0


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


def publish(root: Path, site_dir: Path, remote: str, branch: str, message: str) -> Export:
    """Commit the files the build wrote into `site_dir` as the tip of `branch` in the
    project's repository and push it; what was published and left out."""
    with tempfile.TemporaryDirectory(prefix="scholarsite-deploy-") as folder:
        exported = export(site_dir, Path(folder) / "site")
        with contextlib.chdir(root):
            try:
                ghp_import.ghp_import(
                    str(Path(folder) / "site"),
                    mesg=message,
                    remote=remote,
                    branch=branch,
                    push=True,
                    nojekyll=True,
                )
            except ghp_import.GhpError as exc:
                raise DeployError(str(exc.message)) from None
    return exported
