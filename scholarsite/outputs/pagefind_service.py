"""Pagefind's indexing service, driven through its Python client: records in, a bundle's files out.

Imported only by the processes that index (asyncio and the client cost 15 ms to load, which
every build but those re-indexing a shard would pay).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pagefind.service
from pagefind.index import IndexConfig
from pagefind.service import PagefindService

from scholarsite.lifetime import die_with_parent


class _PagefindAsyncio:
    """`asyncio` as `pagefind.service` sees it, with two changes.

    - `sleep` only yields: Pagefind 1.5.2's service client sleeps 100 ms before reading each
      response, which caps indexing at ten records a second; its read that follows already
      waits for data.
    - The service process it starts is killed when the process that started it dies, so a
      build killed with SIGKILL leaves no `pagefind` process behind.
    """

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    @staticmethod
    async def sleep(delay: float, result: Any = None) -> Any:
        await asyncio.sleep(0)
        return result

    @staticmethod
    async def create_subprocess_exec(*args: Any, **options: Any) -> asyncio.subprocess.Process:
        parent = os.getpid()
        guard = lambda: die_with_parent(parent)  # noqa: E731
        return await asyncio.create_subprocess_exec(*args, preexec_fn=guard, **options)


pagefind.service.asyncio = _PagefindAsyncio()  # type: ignore[attr-defined]
BATCH = 500  # records in flight at once
RESPONSE_LIMIT = 2**31


async def index(found: list[dict[str, Any]], language: str) -> dict[str, bytes]:
    """Index the records with a Pagefind service; the bundle's files by path in the folder."""
    service = await PagefindService().launch()
    # The bundle comes back in one message; the client's stream limit (2 MiB) is too small for
    # it. Reading it in memory (rather than letting the service write the folder) matters:
    # the service answers WriteFiles before its writes are complete, and closing it then cuts
    # files at 64 KiB boundaries.
    service._backend.stdout._limit = RESPONSE_LIMIT  # type: ignore[union-attr]  # noqa: SLF001
    try:
        pagefind = await service.create_index(IndexConfig(force_language=language))
        for start in range(0, len(found), BATCH):
            batch = found[start : start + BATCH]
            await asyncio.gather(*(pagefind.add_custom_record(language=language, **r) for r in batch))
        return {file["path"]: file["content"] for file in await pagefind.get_files()}
    finally:
        await service.close()


def indexed(found: list[dict[str, Any]], language: str) -> dict[str, bytes]:
    """`index`, run to completion."""
    return asyncio.run(index(found, language))
