"""Producing outputs: into the staging folder, in forked worker processes when there are many.

A produced file whose bytes equal what the site holds is dropped, not written.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import BinaryIO

from scholarsite.errors import BuildError, Diagnostic
from scholarsite.inputs.digests import digest
from scholarsite.inputs.files import CHUNK
from scholarsite.lifetime import Workers, cores
from scholarsite.outputs.registry import Bundle, Copy, Output, Produced, check_path
from scholarsite.write.manifest import Entry, read_manifest

PARALLEL_FROM = 400  # outputs to produce before worker processes pay for their start-up
Made = tuple[str, str, bool]  # path, sha256, whether it was staged (its bytes changed)
Result = tuple[list[Made], list[Diagnostic]]
Progress = Callable[[int, int], None]  # outputs produced so far, outputs to produce


def created(path: str, mode: int) -> BinaryIO:
    """A new file open for writing (its folders made as needed)."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    return os.fdopen(handle, "wb")


def write_file(path: str, data: bytes, mode: int) -> None:
    """Write a new file (its folders made as needed)."""
    write_pieces(path, (data,), mode)


def write_pieces(path: str, pieces: Iterable[bytes], mode: int) -> None:
    """Write a new file of these bytes, one piece after another (its folders made as needed)."""
    with created(path, mode) as file:
        file.writelines(pieces)


def same_file(path: str, pieces: Iterable[bytes]) -> bool:
    """Whether a regular file holds these bytes, one piece after another (read as they come)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        with open(path, "rb") as handle:
            return all(handle.read(len(piece)) == piece for piece in pieces) and not handle.read(1)
    except OSError:
        return False


@dataclass(frozen=True)
class Handover:
    """What forked workers make besides their outputs that the building process keeps (the
    memo's new entries, which would die with the worker): `take` runs in a worker after each
    range of outputs, `keep` in the building process with what it gave."""

    take: Callable[[], object]
    keep: Callable[[object], None]


NOTHING_HANDED = Handover(lambda: None, lambda _: None)


@dataclass
class Job:
    """What the producing workers need (they inherit it by the fork).

    Without a `stage` folder the outputs are produced and checked, but nothing is written."""

    stage: str | None
    todo: Sequence[Output | Copy]
    previous: dict[str, Entry]
    mode: int
    handover: Handover = NOTHING_HANDED


def produce_range(job: Job, start: int, stop: int) -> Result:
    """Produce outputs ``start:stop`` of the job into the staging folder."""
    done: list[Made] = []
    problems: list[Diagnostic] = []
    for output in job.todo[start:stop]:
        if isinstance(output, Copy):
            done.append(copied(job, output))
            continue
        try:
            data = output.produce()
        except BuildError as exc:
            problems.extend(exc.diagnostics)
            continue
        sha = digest(data)
        old = job.previous.get(output.path)
        unchanged_on_disk = old is not None and old[1] == sha
        if not unchanged_on_disk and job.stage is not None:
            write_file(os.path.join(job.stage, output.path), data, job.mode)
        done.append((output.path, sha, not unchanged_on_disk))
    return done, problems


def copied(job: Job, copy: Copy) -> Made:
    """A file copied in chunks into the staging folder, unless the site holds its bytes."""
    old = job.previous.get(copy.path)
    if (old is not None and old[1] == copy.key) or job.stage is None:
        return copy.path, copy.key, False
    return copy.path, copy_file(str(copy.source), os.path.join(job.stage, copy.path), job.mode), True


def copy_file(source: str, target: str, mode: int) -> str:
    """Copy a file `CHUNK` bytes at a time (its folders made as needed); the sha256 of what
    was copied (the file may have changed since it was hashed)."""
    summary = hashlib.sha256()
    with open(source, "rb") as reading, created(target, mode) as writing:
        while block := reading.read(CHUNK):
            summary.update(block)
            writing.write(block)
    return summary.hexdigest()


def chunks(count: int, workers: int) -> list[tuple[int, int]]:
    """Ranges of about equal size, several per worker so a slow one does not hold the rest."""
    size = max(16, -(-count // (workers * 8)))
    return [(start, min(start + size, count)) for start in range(0, count, size)]


def default_workers() -> int:
    """One worker process per core."""
    return cores()


def produce_all(job: Job, workers: int, progress: Progress) -> Result:
    """Every output of the job, in worker processes when the job is large enough."""
    done: list[Made] = []
    problems: list[Diagnostic] = []
    parallel = workers > 1 and len(job.todo) >= PARALLEL_FROM
    ranges = chunks(len(job.todo), workers if parallel else 1)
    if parallel:
        job.handover.take()  # what this process made so far is its own: workers hand over theirs only
    with (
        Workers(workers, partial(produce_handing_over, job)) if parallel else contextlib.nullcontext() as pool
    ):
        results = (
            (future.result() for future in [pool.submit(*span) for span in ranges])
            if pool is not None
            else ((produce_range(job, *span), None) for span in ranges)
        )
        for (_, stop), ((part, found), handed) in zip(ranges, results, strict=True):
            if pool is not None:
                job.handover.keep(handed)
            done += part
            problems += found
            progress(stop, len(job.todo))
    return done, problems


def produce_handing_over(job: Job, start: int, stop: int) -> tuple[Result, object]:
    """`produce_range` in a worker, with what the job's handover takes from the worker."""
    return produce_range(job, start, stop), job.handover.take()


def produce_bundle(bundle: Bundle, stage: str, previous: dict[str, Entry], mode: int) -> list[Made]:
    """A bundle's files, staged unless the same bytes are already in place."""
    done = []
    for name, data in sorted(bundle.produce().items()):
        path = f"{bundle.folder}/{name}"
        check_path(path)
        sha = digest(data)
        old = previous.get(path)
        staged = old is None or old[1] != sha
        if staged:
            write_file(os.path.join(stage, path), data, mode)
        done.append((path, sha, staged))
    return done


def start_bundles(items: list[Produced], site_dir: Path, workers: int = 1) -> list[Produced]:
    """Start making, in separate processes (up to `workers`), each bundle the site does not
    hold yet.

    The search index takes about as long as all the pages; made beside them, it is ready
    when the pages are. Returns the items with those bundles waiting for their process.
    """
    recorded = {key for key, _ in read_manifest(str(site_dir))[0].values()} if site_dir.is_dir() else set()
    pending = [item for item in items if isinstance(item, Bundle) and item.key not in recorded]
    if not pending:
        return items
    pool = Workers(max(1, min(workers, len(pending))), lambda index: pending[index].produce())
    futures = iter([pool.submit(index) for index in range(len(pending))])
    pool.shutdown(wait=False)  # the processes exit once their work is done
    return [
        Bundle(item.folder, item.key, HandedOnce(next(futures))) if item in pending else item
        for item in items
    ]


class HandedOnce:
    """The files of a bundle being made in another process, handed over once: they are not
    held after the sync has written them (a search shard's files, 23 MB at 37,537 papers,
    were held to the end of the build)."""

    def __init__(self, future: Future[dict[str, bytes]]):
        self.future: Future[dict[str, bytes]] | None = future

    def __call__(self) -> dict[str, bytes]:
        future, self.future = self.future, None
        if future is None:
            raise RuntimeError("a bundle made in another process is handed over once")
        return future.result()

    def arrived(self) -> bool:
        """Whether the files are here, not taken yet."""
        return self.future is not None and self.future.done()


def handed_over(bundle: Bundle) -> bool:
    """Whether `bundle` was made in another process and its files are here: a search shard's
    files (23 MB at 37,537 papers) are then staged before the pages are made, not held while
    they are (the highest point of a build that adds a seed)."""
    return isinstance(bundle.produce, HandedOnce) and bundle.produce.arrived()


def distinct(problems: list[Diagnostic]) -> list[Diagnostic]:
    """Each problem once (a template error shows on every page that uses the template)."""
    seen: dict[tuple[str, int, str], Diagnostic] = {}
    for problem in problems:
        seen.setdefault((problem.path, problem.line, problem.message.split(" (while")[0]), problem)
    return list(seen.values())
