"""`scholarsite new DIR`: a ready project that builds and serves at once.

It holds a commented `site.yaml`, the example seed (never published: see `inputs.example`), a
home page for visitors (`content/index.md`), a `README.md` for the maintainer (outside
`content/`, so never published either), a `.gitignore` for the build's folders and the GitHub
Pages workflow. Templates and assets come from the built-in theme; a project adds its own only
to override one.
"""

from __future__ import annotations

from pathlib import Path

from scholarsite import __version__
from scholarsite.inputs.example import EXAMPLE_FILE, EXAMPLE_NAME

STARTER = Path(__file__).parent / "starter"
FILES = {  # in the package -> in the new project
    STARTER / "README.md": "README.md",
    STARTER / "site.yaml": "site.yaml",
    STARTER / "gitignore": ".gitignore",
    EXAMPLE_FILE: f"seeds/{EXAMPLE_NAME}",
    STARTER / "content/index.md": "content/index.md",
    STARTER / "workflows/pages.yml": ".github/workflows/pages.yml",
}


class NotEmpty(Exception):
    """The target folder already holds something."""


def create(target: Path) -> list[str]:
    """Write a new project into `target` (made if missing); the files written, in order.

    Refuses (NotEmpty) a folder that holds anything, so nothing a person made is overwritten."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise NotEmpty(f"{target} is not an empty folder; `new` only writes into a new or empty one")
    for source, name in FILES.items():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        text = source.read_text(encoding="utf-8")
        (target / name).write_text(text.replace("{version}", __version__), encoding="utf-8")
    return list(FILES.values())
