"""`lineage.txt`: where each paper's page was, so a corrected title keeps its old URLs.

The build writes it (only when what it remembers changed: the lines that changed spliced into
the bytes a build wrote, when the parse cache knows it wrote them, else whole) and reads it
back; it is committed with the project, so a clean build of the same commit makes the same
redirects, byte for byte. One paper a line, sorted by key, each line a JSON array::

    ["2025/comet fine grained overlapping", "papers/2025/comet-fine-grained-overlapping/index.html",
     ["abstract:1a2b3c4d5e6f7a8b", "arxiv:2502.19811", "seed:seeds/jiang.txt#3"],
     [["2025/comet fine graind overlapping", "papers/2025/comet-fine-graind-overlapping/index.html"]]]

(on one line): the paper's key, its page, its *anchors* (what stays when its title is
corrected: see `model.lineage`) and the (key, page) pairs it had before. Lines starting with
`#` are comments. A line that is not such an array is an error at its line.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from scholarsite.errors import BuildError, Diagnostic, error
from scholarsite.inputs.config import MAX_TEXT
from scholarsite.inputs.digests import digest as sha256_of
from scholarsite.inputs.files import fingerprint_digest, present, read_input
from scholarsite.inputs.jsondata import loads, loads_checked, string_text
from scholarsite.inputs.store import write_atomically
from scholarsite.inputs.text import decode

LINEAGE_FILE = "lineage.txt"
DUMPED = "lineage.txt as dumped"  # the name `checks` knows the bytes `save_lineage` wrote by
PAGE_RE = re.compile(r"papers/\d{1,4}/[a-z0-9][a-z0-9-]{0,120}/index\.html")  # what urls.paper makes
ANCHOR_RE = re.compile(r"(abstract|arxiv|doi|seed):\S.{0,2000}")
MAX_ANCHORS = 64
MAX_FORMER = 64
HEADER = (
    "# Where each paper's page was: written by `scholarsite build`, committed with the project.\n"
    "# A paper whose title is corrected keeps a redirect at every page named on its line.\n"
)
HEADER_SIZE = len(HEADER.encode("utf-8"))  # bytes
HINT = "remove the line (the build writes it again), or restore the file from version control"


@dataclass(frozen=True)
class Lineage:
    """What is remembered of one paper: its key and page, its anchors, the (key, page) pairs
    it had before (sorted)."""

    key: str
    path: str
    anchors: tuple[str, ...]
    former: tuple[tuple[str, str], ...] = ()

    def line(self) -> str:
        """The paper's line in the file: `json.dumps` of [key, page, [anchors], [[former key,
        former page], ...]] (without ASCII escapes, ", " between items), text by text (a
        collection's file is written whole by a clean build, or after a hand edit)."""
        anchors = ", ".join(map(string_text, self.anchors))
        former = ", ".join(f"[{string_text(key)}, {string_text(page)}]" for key, page in self.former)
        return f"[{string_text(self.key)}, {string_text(self.path)}, [{anchors}], [{former}]]"


def lineage_of(data: Any) -> tuple[Lineage | None, str | None]:
    """One paper's record from a decoded line, or why it is none."""
    if not (isinstance(data, list) and len(data) == 4):
        return None, "expected [key, page, [anchors], [[former key, former page], ...]]"
    key, path, anchors, former = data
    if not is_key(key):
        return None, f"the key must be text of at most {MAX_TEXT:,} characters"
    if not is_page(path):
        return None, "a page must look like papers/2025/slug/index.html"
    if not (isinstance(anchors, list) and len(anchors) <= MAX_ANCHORS and all(map(is_anchor, anchors))):
        return None, f"the anchors must be at most {MAX_ANCHORS} texts such as abstract:… or seed:…"
    if not (isinstance(former, list) and len(former) <= MAX_FORMER and all(map(is_pair, former))):
        return None, f"the former pages must be at most {MAX_FORMER} [key, papers/2025/slug/index.html] pairs"
    return Lineage(key, path, tuple(anchors), tuple(sorted((k, p) for k, p in former))), None


def is_key(value: Any) -> bool:
    """A paper key: text on one line, bounded."""
    return isinstance(value, str) and bool(value.strip()) and len(value) <= MAX_TEXT and "\n" not in value


def is_page(value: Any) -> bool:
    """A paper's page as `urls.paper` makes it (nothing else may become a redirect file)."""
    return isinstance(value, str) and bool(PAGE_RE.fullmatch(value))


def is_anchor(value: Any) -> bool:
    """An anchor: its kind, a colon and a value."""
    return isinstance(value, str) and bool(ANCHOR_RE.fullmatch(value))


def is_pair(value: Any) -> bool:
    """A former [key, page] pair."""
    return isinstance(value, list) and len(value) == 2 and is_key(value[0]) and is_page(value[1])


@lru_cache(maxsize=2**18)  # a collection's lines: a process that builds again reads each once
def line_item(line: str) -> tuple[Lineage | None, str | None]:
    """One line's paper, or why it is none."""
    try:
        return lineage_of(loads(line))
    except ValueError as exc:
        return None, f"not a JSON array ({exc.args[0].partition(':')[0]})"


def parse_lineage(text: str, path: str) -> tuple[dict[str, Lineage], list[Diagnostic]]:
    """The papers remembered in a lineage file by key, and an error per bad line."""
    found: dict[str, Lineage] = {}
    problems: list[Diagnostic] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        item, problem = line_item(line)
        if item is not None and item.key in found:
            item, problem = None, f"the key {item.key!r} is on an earlier line too"
        if item is None:
            problems.append(error(path, number, str(problem), HINT))
        else:
            found[item.key] = item
    return found, problems


def read_lineage(root: Path, checks: Checks | None = None) -> tuple[dict[str, Lineage], list[Diagnostic]]:
    """The project's lineage (none yet: nothing remembered), and problems. Bytes `checks`
    knows were read without a problem before are taken as they are (`trusted_lineage`: a
    line checked costs ~7 µs, 0.28 s at 37,537 papers)."""
    path = root / LINEAGE_FILE
    if not present(path):
        return {}, []
    try:
        data = read_input(path, root, LINEAGE_FILE)
    except BuildError as exc:
        return {}, list(exc.diagnostics)
    digest = sha256_of(data)
    trusted = checks is not None and checks.checked(LINEAGE_FILE, digest)
    found, problems = lineage_of_bytes(data, trusted, digest)
    if checks is not None and not problems:
        checks.passed(LINEAGE_FILE, digest)
    return found, problems


class Checks(Protocol):
    """What knows which inputs' bytes (by their sha256) were read without a problem
    (`inputs.cache.ParseCache`)."""

    def checked(self, name: str, digest: str) -> bool: ...

    def passed(self, name: str, digest: str) -> None: ...


def trusted_lineage(data: bytes) -> dict[str, Lineage] | None:
    """The papers remembered in a lineage file's bytes that were read without a problem
    before: its lines taken as they are, in one decoding (None when they are not what
    `parse_lineage` reads after all)."""
    lines = [line for line in data.splitlines() if line.strip() and not line.startswith(b"#")]
    try:
        items = loads_checked(b"[" + b",".join(lines) + b"]")
        return {
            key: Lineage(key, path, tuple(anchors), tuple(sorted((k, p) for k, p in former)))
            for key, path, anchors, former in items
        }
    except (ValueError, TypeError):
        return None


LAST_READ: list[tuple[str, dict[str, Lineage], list[Diagnostic]]] = []  # of this process, by sha256


def lineage_of_bytes(
    data: bytes, trusted: bool = False, digest: str | None = None
) -> tuple[dict[str, Lineage], list[Diagnostic]]:
    """The papers a lineage file's bytes remember, and problems; `trusted` bytes (read without
    a problem before) taken as they are. The same bytes as the last read of this process (a
    process that builds again reads what it wrote) give the same objects: never change them.
    The bytes are known again by their sha256 (`digest`, when known), not held (9 MB at 37,537
    papers, to the end of the build)."""
    digest = digest or sha256_of(data)
    if LAST_READ and LAST_READ[0][0] == digest:
        return LAST_READ[0][1], list(LAST_READ[0][2])
    if trusted and (found := trusted_lineage(data)) is not None:
        LAST_READ[:] = [(digest, found, [])]
        return found, []
    text, problems = decode(data, LINEAGE_FILE)
    if text is None:
        return {}, problems
    found, more = parse_lineage(text, LINEAGE_FILE)
    LAST_READ[:] = [(digest, found, problems + more)]
    return found, problems + more


def dump_lineage(papers: dict[str, Lineage]) -> str:
    """The file's text: the header, then a line per paper sorted by key (deterministic)."""
    return HEADER + "".join(papers[key].line() + "\n" for key in sorted(papers))


def save_lineage(
    root: Path,
    papers: dict[str, Lineage],
    read: dict[str, Lineage] | None = None,
    checks: Checks | None = None,
) -> None:
    """Write the lineage file when its text changed (a build with no change writes nothing); not
    even made when `papers` are those `read` from the file there is, and made of the file's
    bytes, the changed lines spliced in, when those are known to be a dump (`dumped`). The next
    read of what was written gives `papers` (sorted), not a parse of the text: in this process,
    and in the next through `checks` (the text is what this build made, of lines it checked or
    made), which also knows it as a dump."""
    path = root / LINEAGE_FILE
    if papers == read and present(path):
        return
    try:
        data: bytes | None = path.read_bytes()
    except OSError:
        data = None
    was = sha256_of(data) if data is not None else ""
    if data is not None and (last := dumped(was, checks)) is not None:
        pieces = spliced(data, last, papers)  # not joined: written as they are
    else:
        pieces = [dump_lineage(papers).encode("utf-8")]
    digest = hashlib.sha256()
    for piece in pieces:
        digest.update(piece)
    now = digest.hexdigest()
    LAST_READ[:] = [(now, dict(sorted(papers.items())), [])]
    if checks is not None:
        checks.passed(LINEAGE_FILE, now)
        checks.passed(DUMPED, now)
    if now != was:
        write_atomically(path, *pieces)


def dumped(digest: str, checks: Checks | None) -> dict[str, Lineage] | None:
    """The papers whose `dump_lineage` the bytes of sha256 `digest` are, when that is known:
    they are those of the last read of this process, read without a problem, and `checks` knows
    `save_lineage` wrote them (a hand-edited file is not known so: a comment, another spacing)."""
    if checks is None or not LAST_READ:
        return None
    last, papers, problems = LAST_READ[0]
    if problems or last != digest or not checks.checked(DUMPED, digest):
        return None
    return papers


def spliced(data: bytes, last: dict[str, Lineage], papers: dict[str, Lineage]) -> list[bytes | memoryview]:
    """`dump_lineage(papers)` encoded, in pieces, made of `data`, the bytes of
    `dump_lineage(last)`: the lines of the papers added, changed or gone inserted, replaced or
    dropped at their place, the bytes between taken as they are (views, not copies)."""
    view = memoryview(data)
    made: list[bytes | memoryview] = [view[:HEADER_SIZE]]
    at = HEADER_SIZE
    for key in sorted(changed(last, papers)):
        start, end = line_at(data, key, at)
        made += [view[at:start], papers[key].line().encode("utf-8") + b"\n" if key in papers else b""]
        at = end
    return [*made, view[at:]]


def line_at(data: bytes, key: str, lo: int) -> tuple[int, int]:
    """Where the line of `key` is in `data`, a dump, at or after the line starting at `lo`: its
    start and end (past its newline), or the place it would take (start and end the same).
    Found by bisection on the lines' keys (sorted), reading a few lines, not every line."""
    hi = len(data)
    while lo < hi:
        start = max(lo, data.rfind(b"\n", lo, (lo + hi) // 2) + 1)  # of the line holding the middle
        end = data.index(b"\n", start) + 1
        found = loads(data[start:end])[0]
        if found == key:
            return start, end
        lo, hi = (end, hi) if found < key else (lo, start)
    return lo, lo


def changed(last: dict[str, Lineage], papers: dict[str, Lineage]) -> set[str]:
    """The keys whose line is not the same in `last` and `papers`: added, gone or changed."""
    gone = last.keys() - papers.keys()
    return gone | {
        key for key, paper in papers.items() if (was := last.get(key)) is not paper and was != paper
    }


def lineage_digest(root: Path) -> str:
    """A digest of the lineage file as it is now ('' when there is none)."""
    path = root / LINEAGE_FILE
    return fingerprint_digest(path, root).hex() if present(path) else ""
