"""`scholarsite deploy`: publish `site/` to a `gh-pages` branch, without GitHub Actions.

As `mkdocs gh-deploy` does, through `ghp-import`: the site becomes the single new commit of
the branch (with `.nojekyll`), pushed to the remote. The build runs first; a failing build,
or one failing `--strict`, is never deployed.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import ghp_import


class DeployError(Exception):
    """Git or the remote refused the deployment."""


def publish(root: Path, site_dir: Path, remote: str, branch: str, message: str) -> None:
    """Commit `site_dir` as the tip of `branch` in the project's repository and push it."""
    with contextlib.chdir(root):
        try:
            ghp_import.ghp_import(
                str(site_dir), mesg=message, remote=remote, branch=branch, push=True, nojekyll=True
            )
        except ghp_import.GhpError as exc:
            raise DeployError(str(exc.message)) from None
