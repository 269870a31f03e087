"""Shared pieces of the quality gate: check results and lookup of the external tools."""

from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

INSTALL_HINT = "run `bash .ci/install-qa.sh` (from the repo root) to install the QA tools"
CHROMIUM = Path("/usr/bin/chromium")
VNU_JAR = "vnu-jar/build/dist/vnu.jar"
LINKINATOR = ".bin/linkinator"
AXE_JS = "axe-core/axe.min.js"
SITEMAP_XSD = "sitemap/schema/sitemap.xsd"
PYTHON_PACKAGES = ("playwright", "feedparser", "xmlschema")


@dataclass
class CheckResult:
    """Outcome of one check: its problems (none means it passed) and how much it examined."""

    name: str
    problems: list[str] = field(default_factory=list)
    checked: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the check found no problem."""
        return not self.problems


class ToolMissingError(RuntimeError):
    """A required external checker is not installed."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} not found: {INSTALL_HINT}")


def _node_modules_candidates() -> list[Path]:
    """Folders that may hold the pinned npm tools, most specific first."""
    override = os.environ.get("SCHOLARSITE_NODE_MODULES")
    found = [Path(override)] if override else []
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        found += [folder / "node_modules" for folder in (start, *start.parents)]
    return found


def node_tool(relative: str) -> Path:
    """Path of a file inside node_modules (e.g. the vnu jar), or ToolMissingError."""
    for folder in _node_modules_candidates():
        if (folder / relative).exists():
            return folder / relative
    raise ToolMissingError(f"node_modules/{relative}")


def executable(name: str) -> str:
    """Absolute path of a program on PATH, or ToolMissingError."""
    path = shutil.which(name)
    if path is None:
        raise ToolMissingError(f"program `{name}`")
    return path


def chromium() -> Path:
    """The Debian Chromium binary used for every browser check."""
    if not CHROMIUM.is_file():
        raise ToolMissingError(str(CHROMIUM))
    return CHROMIUM


def missing_tools() -> list[str]:
    """Names of every required tool that is not installed (empty when all are there)."""
    probes = [
        lambda: executable("java"),
        lambda: executable("node"),
        chromium,
        *(lambda rel=rel: node_tool(rel) for rel in (VNU_JAR, LINKINATOR, AXE_JS, SITEMAP_XSD)),
    ]
    missing = []
    for probe in probes:
        try:
            probe()
        except ToolMissingError as exc:
            missing.append(str(exc).split(" not found")[0])
    missing += [
        f"python package {name}" for name in PYTHON_PACKAGES if importlib.util.find_spec(name) is None
    ]
    return missing
