"""JSON read back from files anyone could have written: lineage.txt, the caches, the build's
records in `site/`, a bucket's deploy record; the caches' shards read and written fast; and
the data files' items written fast, as `json` writes them."""

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


ORJSON_SAME = (str, int, bool, type(None))  # what orjson writes as `json` does (an int within 64 bits)


def sorted_text(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))`, by orjson
    (five times faster) when its text is the same: for strings, integers, booleans, None,
    lists and objects with text keys (orjson sorts keys by their UTF-8 bytes, which is the
    order of their code points), not floats (`1e-07` and `1e-7`) or anything `json` refuses."""
    if written_alike(value):
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")
        except orjson.JSONEncodeError:  # an integer past 64 bits, a lone surrogate
            pass
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def written_alike(value: Any) -> bool:
    """Whether orjson writes `value` as `json` does (see `sorted_text`)."""
    if isinstance(value, dict):
        return all(type(key) is str and written_alike(item) for key, item in value.items())
    if isinstance(value, list | tuple):
        return all(map(written_alike, value))
    return isinstance(value, ORJSON_SAME)


def string_text(text: str) -> str:
    """`json.dumps(text, ensure_ascii=False)`: orjson's, the same for every string but one
    holding a lone surrogate, which orjson refuses and `json` writes."""
    try:
        return orjson.dumps(text).decode("utf-8")
    except orjson.JSONEncodeError:
        return json.dumps(text, ensure_ascii=False)
