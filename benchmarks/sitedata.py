"""A built site's data lists (`data/papers.json`, `data/authors.json`), whole or in parts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_list(data: Path, name: str) -> list[dict[str, Any]]:
    """Every item of the list `name` ("papers" or "authors") in the site folder `data/`: one
    file (schema 1) or an index of parts (schema 2, `docs/reference/data-files.md`)."""
    index = json.loads((data / f"{name}.json").read_text(encoding="utf-8"))
    if index["schema_version"] == 1:
        return index[name]
    parts = (json.loads((data / part["path"]).read_text(encoding="utf-8")) for part in index["parts"])
    return [item for part in parts for item in part[name]]
