"""The example seed `scholarsite new` writes: there to show the format, never published.

`new` writes it as `seeds/example.txt`. While that file is the example byte for byte (line
endings aside), the build leaves it out with a note, and the first `scholarsite add` removes
it; once edited it is a seed like any other.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

EXAMPLE_FILE = Path(__file__).parent / "data" / "example-seed.txt"
EXAMPLE_NAME = "example.txt"  # its name in seeds/
EXAMPLE_NOTE = "the example seed `scholarsite new` wrote: not published; `scholarsite add FILE` replaces it"


@cache
def example_text() -> bytes:
    """The example seed's bytes, with `\\n` line endings."""
    return EXAMPLE_FILE.read_bytes()


def is_example(path: Path, data: bytes) -> bool:
    """Whether a seed file is the example `new` wrote, unchanged."""
    return path.name == EXAMPLE_NAME and data.replace(b"\r\n", b"\n") == example_text()
