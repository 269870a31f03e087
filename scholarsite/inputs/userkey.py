"""A secret of this user's, kept outside every project, that signs the caches a build loads
without checking their values again (`inputs.sources_signed`).

A project's `.scholarsite-cache/` can be planted (committed, restored from elsewhere), so what
a build loads from it unchecked must carry a signature that only this user's builds can make:
an HMAC with 32 random bytes kept in `$XDG_CACHE_HOME/scholarsite/cache-key` (by default
`~/.cache/scholarsite/cache-key`, readable by the user only), made by the first build that
needs it. Where it cannot be read or made (no home folder, a read-only one), there is no key,
and the caches are checked value by value as before.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

KEY_BYTES = 32
KEY_FILE = "cache-key"
MAC_BYTES = hashlib.sha256().digest_size


def key_folder() -> Path:
    """Where the key is kept: `$XDG_CACHE_HOME/scholarsite`, else `~/.cache/scholarsite`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "scholarsite"


def user_key() -> bytes | None:
    """This user's key (made the first time), or None when it cannot be read or made."""
    return key_in(key_folder())


@functools.lru_cache(maxsize=8)
def key_in(folder: Path) -> bytes | None:
    """The key kept in `folder`, made there if there is none; None when that fails or the
    file there is not a key."""
    file = folder / KEY_FILE
    try:
        if not file.exists():
            made_in(folder, file)
        key = file.read_bytes()
    except OSError:
        return None
    return key if len(key) == KEY_BYTES else None


def made_in(folder: Path, file: Path) -> None:
    """Write a new key to `file`, readable by the user only, unless another process made one
    first (the key is linked into place whole: no reader sees a part of it)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    draft = folder / f".{KEY_FILE}.{secrets.token_hex(8)}.tmp"
    handle = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(secrets.token_bytes(KEY_BYTES))
        os.link(draft, file)
    except FileExistsError:
        pass  # another process made it first: use theirs
    finally:
        draft.unlink(missing_ok=True)


def signed(key: bytes, magic: bytes, body: bytes) -> bytes:
    """A signed cache's bytes: `magic` (what the cache is), the body's signature, the body."""
    return magic + hmac.digest(key, body, "sha256") + body


def write_signed(handle: BinaryIO, key: bytes, magic: bytes, body: Iterable[bytes]) -> None:
    """Write into a new, seekable file the bytes `signed` makes of the body given in pieces:
    the pieces are signed and written as they come, a megabyte at a time (a large body is
    never held whole, nor are a hundred thousand lines signed one by one), and the signature,
    which comes before the body, is filled in last."""
    handle.write(magic)
    place = handle.tell()
    handle.write(bytes(MAC_BYTES))
    mac = hmac.new(key, digestmod="sha256")
    for chunk in chunks_of(body):
        mac.update(chunk)
        handle.write(chunk)
    handle.seek(place)
    handle.write(mac.digest())


def chunks_of(pieces: Iterable[bytes], size: int = 2**20) -> Iterator[bytes]:
    """The pieces joined into chunks of about `size` bytes (each at least `size`, the last
    aside)."""
    batch: list[bytes] = []
    held = 0
    for piece in pieces:
        batch.append(piece)
        held += len(piece)
        if held >= size:
            yield b"".join(batch)
            batch, held = [], 0
    if batch:
        yield b"".join(batch)


def signed_body(data: bytes, key: bytes, magic: bytes) -> bytes | None:
    """The body of a signed cache's bytes, if they are a `magic` cache signed by `key`; else None."""
    if not data.startswith(magic):
        return None
    signature, body = data[len(magic) : len(magic) + MAC_BYTES], data[len(magic) + MAC_BYTES :]
    return body if hmac.compare_digest(signature, hmac.digest(key, body, "sha256")) else None
