"""JSON read back from files anyone could have written: lineage.txt, the caches, the build's
records in `site/`, a bucket's deploy record."""

from __future__ import annotations

import json
from typing import Any


def loads(data: str | bytes) -> Any:
    """`json.loads`, with JSON nested too deeply for the decoder a ValueError like any other bad
    JSON: the decoder raises RecursionError, which no reader expected (a lineage.txt line of
    100,000 brackets ended the build with a traceback)."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("nested too deeply") from None
