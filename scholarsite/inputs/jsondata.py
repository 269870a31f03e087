"""JSON read back from files anyone could have written: lineage.txt, the caches, the build's
records in `site/`, a bucket's deploy record; and the caches' shards read and written fast."""

from __future__ import annotations

import json
from typing import Any

import orjson


def loads(data: str | bytes) -> Any:
    """`json.loads`, with JSON nested too deeply for the decoder a ValueError like any other bad
    JSON: the decoder raises RecursionError, which no reader expected (a lineage.txt line of
    100,000 brackets ended the build with a traceback)."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def loads_checked(data: bytes) -> Any:
    """`loads` for data whose reader checks the type of every value it takes (the caches'
    shards), by orjson: two to five times faster on the tens of megabytes of a large
    collection's caches. What orjson refuses goes to `loads`; what it reads otherwise than
    `json` (an integer past 64 bits as a float, nesting deeper than `json` takes) no cache of
    ours holds, and its reader throws away."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return loads(data)


def dumps(value: Any) -> bytes:
    """Compact JSON in UTF-8 (orjson's, or `json`'s with surrogates passed, for a lone
    surrogate or an integer past 64 bits, which orjson refuses)."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
