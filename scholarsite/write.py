"""Write outputs into ``site/``: the only code that changes that folder.

The manifest (``site/.scholarsite-manifest.json``) records, for every file the build owns,
the key it was made from and the sha256 of its bytes. A sync:

1. reads the manifest and lists site/ (names only, never file contents);
2. skips every output whose key is unchanged and whose file is still there: it is neither
   produced, nor read back, nor written;
3. produces the others (in worker processes when there are many) into a staging folder
   inside site/; a produced file whose bytes equal what is there is dropped, not written;
4. if any output failed, removes the staging folder and raises: site/ is exactly as it was;
5. otherwise moves the staged files into place (each ``os.replace`` is atomic), removes the
   files it owned and no longer makes, and writes the manifest.

Files a person placed in site/ ("foreign" files) are never touched, only reported. Before
anything moves, the manifest marks every path about to change as dirty, so a build killed
mid-switch is repaired by the next one. Files are not fsynced: at 100,000 files an fsync
each would dominate the build, and a rename already protects against a killed process.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from scholarsite.errors import BuildError, Diagnostic, error
from scholarsite.inputs.digests import digest
from scholarsite.lifetime import cores, fork_pool
from scholarsite.outputs.registry import Bundle, Output, Produced

MANIFEST = ".scholarsite-manifest.json"
STAGE = ".scholarsite-stage"
JOURNAL = ".scholarsite-journal.json"
MIN_FREE_BYTES = 32 * 2**20  # refuse to start writing with less free space than this
TMP_PREFIX = ".tmp-"
_MANIFEST_FORMAT = 2
PARALLEL_FROM = 400  # outputs to produce before worker processes pay for their start-up
Entry = tuple[str, str]  # (key, sha256 of the bytes)
Scope = Callable[[str], bool]


class WriteConflict(Exception):
    """The sync would destroy, or write through, something the build does not own."""


class ForeignFileConflict(WriteConflict):
    """A file the build never produced is in the way of one it must write."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        super().__init__(
            f"site/{path}: {reason}; the build will not overwrite "
            "files it did not create; move or delete it first"
        )


class CorruptManifest(WriteConflict):
    """The ownership manifest cannot be trusted, so nothing may be removed."""


@dataclass(frozen=True)
class SyncReport:
    """What one sync did, as sorted relative POSIX paths (`produced`: the outputs made, written
    or not, because their key changed)."""

    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]
    foreign: tuple[str, ...]
    produced: tuple[str, ...] = ()

    def summary(self, seconds: float) -> str:
        """One line such as "12 written, 310 unchanged, 2 removed in 0.41 s (40 made: their inputs
        changed)": what was made and not written came out as it was."""
        text = (
            f"{len(self.written)} written, {len(self.unchanged)} unchanged, "
            f"{len(self.removed)} removed in {seconds:.2f} s"
        )
        if self.foreign:
            text += f", {len(self.foreign)} not produced by the build"
        if self.produced and len(self.produced) != len(self.written):
            text += f" ({len(self.produced)} made: their inputs changed)"
        return text

    def then(self, later: SyncReport) -> SyncReport:
        """This sync followed by `later`, a sync of the same outputs: what either wrote, removed
        or made; unchanged what neither wrote."""
        either = set(self.written) | set(later.written)
        written = tuple(sorted(either))
        unchanged = tuple(path for path in later.unchanged if path not in either)
        removed = tuple(sorted(set(self.removed) | set(later.removed)))
        produced = tuple(sorted(set(self.produced) | set(later.produced)))
        return SyncReport(written, unchanged, removed, later.foreign, produced)

    def merged(self, other: SyncReport) -> SyncReport:
        """Both reports as one (the preview syncs pages and search separately)."""
        return SyncReport(
            tuple(sorted(self.written + other.written)),
            tuple(sorted(self.unchanged + other.unchanged)),
            tuple(sorted(self.removed + other.removed)),
            tuple(sorted(set(self.foreign) | set(other.foreign))),
            tuple(sorted(self.produced + other.produced)),
        )


@dataclass
class _Disk:
    """What a listing of site/ found, keyed by relative POSIX path."""

    files: dict[str, bool] = field(default_factory=dict)  # non-folders: path -> is a symlink
    dirs: set[str] = field(default_factory=set)  # real folders, never symlinks
    temps: list[str] = field(default_factory=list)  # leftover temporary files


def _ancestors(path: str) -> Iterator[str]:
    """The folder prefixes of ``path``: "a/b/c" gives "a" and "a/b"."""
    index = path.find("/")
    while index != -1:
        yield path[:index]
        index = path.find("/", index + 1)


def check_path(path: object) -> None:
    """Raise ValueError unless ``path`` is a safe relative POSIX file path."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"invalid output path {path!r}: must be a non-empty string")
    if path.startswith("/") or "\\" in path or "\0" in path:
        raise ValueError(f"invalid output path {path!r}: must be relative POSIX, without backslashes or NUL")
    wrapped = f"/{path}/"
    if "//" in wrapped or "/./" in wrapped or "/../" in wrapped:
        raise ValueError(f"invalid output path {path!r}: empty, '.' or '..' part")
    first = path.partition("/")[0]
    if first in (MANIFEST, STAGE, JOURNAL) or path.rpartition("/")[2].startswith(TMP_PREFIX):
        raise ValueError(f"invalid output path {path!r}: name reserved for the build")


def _manifest_bytes(entries: dict[str, Entry], inputs: str) -> bytes:
    """Deterministic manifest content; `inputs` is the fingerprint of a complete build, or ""."""
    body = {
        "format": _MANIFEST_FORMAT,
        "inputs": inputs,
        "files": {p: list(entries[p]) for p in sorted(entries)},
    }
    return (json.dumps(body, separators=(",", ":"), sort_keys=True) + "\n").encode("ascii")


def _read_manifest(root: str) -> tuple[dict[str, Entry], str]:
    """The owned paths with their (key, sha), and the inputs fingerprint of the site.

    Format 1 (a plain list of paths) owns its files without keys.
    """
    try:
        raw = Path(root, MANIFEST).read_bytes()
    except FileNotFoundError:
        return {}, ""
    try:
        body = json.loads(raw)
        files, inputs = body["files"], str(body.get("inputs", ""))
        if isinstance(files, list):
            entries = {path: ("", "") for path in files}
        elif isinstance(files, dict):
            entries = {path: (str(value[0]), str(value[1])) for path, value in files.items()}
        else:
            raise TypeError("'files' is neither a list nor an object")
        for path in entries:
            check_path(path)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise CorruptManifest(
            f"site/{MANIFEST} is damaged ({exc}); "
            "delete site/ and rebuild, after saving any hand-placed files"
        ) from exc
    return entries, inputs


def _scan(root: str) -> _Disk:
    """Walk site/ with os.scandir (no stat calls), never following symlinks."""
    disk, stack = _Disk(), [""]
    while stack:
        folder = stack.pop()
        with os.scandir(f"{root}/{folder}") as it:
            for entry in it:
                rel = f"{folder}/{entry.name}" if folder else entry.name
                if rel in (MANIFEST, STAGE, JOURNAL):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    disk.dirs.add(rel)
                    stack.append(rel)
                elif rel == TMP_PREFIX + JOURNAL:  # the one temporary file the build makes here
                    disk.temps.append(rel)
                else:
                    disk.files[rel] = entry.is_symlink()
    return disk


def _file_mode() -> int:
    """The permission bits a plain ``open()`` would give a new file."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _write_file(path: str, data: bytes, mode: int) -> None:
    """Write a new file (its folders made as needed)."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(handle, "wb") as file:
        file.write(data)


def _same_file(path: str, data: bytes) -> bool:
    """Whether a regular file already holds ``data`` (size first, then bytes)."""
    try:
        if os.lstat(path).st_size != len(data):
            return False
        with open(path, "rb") as handle:
            return handle.read() == data
    except OSError:
        return False


@dataclass
class _Job:
    """What the producing workers need; set before they fork, so they inherit it.

    Without a `stage` folder the outputs are produced and checked, but nothing is written."""

    stage: str | None
    todo: Sequence[Output]
    previous: dict[str, Entry]
    mode: int


_JOB: _Job | None = None
Made = tuple[str, str, bool]  # path, sha256, whether it was staged (its bytes changed)
Result = tuple[list[Made], list[Diagnostic]]


def _produce_range(start: int, stop: int) -> Result:
    """Produce outputs ``start:stop`` of the job into the staging folder."""
    job = _JOB
    assert job is not None
    done: list[Made] = []
    problems: list[Diagnostic] = []
    for output in job.todo[start:stop]:
        try:
            data = output.produce()
        except BuildError as exc:
            problems.extend(exc.diagnostics)
            continue
        sha = digest(data)
        old = job.previous.get(output.path)
        unchanged_on_disk = old is not None and old[1] == sha
        if not unchanged_on_disk and job.stage is not None:
            _write_file(os.path.join(job.stage, output.path), data, job.mode)
        done.append((output.path, sha, not unchanged_on_disk))
    return done, problems


def _chunks(count: int, workers: int) -> list[tuple[int, int]]:
    """Ranges of about equal size, several per worker so a slow one does not hold the rest."""
    size = max(16, -(-count // (workers * 8)))
    return [(start, min(start + size, count)) for start in range(0, count, size)]


def default_workers() -> int:
    """One worker process per core."""
    return cores()


Progress = Callable[[int, int], None]  # outputs produced so far, outputs to produce


def _produce_all(job: _Job, workers: int, progress: Progress) -> Result:
    """Every output of the job, in worker processes when the job is large enough."""
    global _JOB
    _JOB = job
    try:
        if workers <= 1 or len(job.todo) < PARALLEL_FROM:
            done, problems = [], []
            for start, stop in _chunks(len(job.todo), 1):
                part, found = _produce_range(start, stop)
                done += part
                problems += found
                progress(stop, len(job.todo))
            return done, problems
        with fork_pool(workers) as pool:
            ranges = _chunks(len(job.todo), workers)
            futures = [pool.submit(_produce_range, start, stop) for start, stop in ranges]
            done, problems = [], []
            finished = 0
            for (start, stop), future in zip(ranges, futures, strict=True):
                part, found = future.result()
                done += part
                problems += found
                finished += stop - start
                progress(finished, len(job.todo))
            return done, problems
    finally:
        _JOB = None


def _produce_bundle(bundle: Bundle, stage: str, previous: dict[str, Entry], mode: int) -> list[Made]:
    """A bundle's files, staged unless the same bytes are already in place."""
    done = []
    for name, data in sorted(bundle.produce().items()):
        path = f"{bundle.folder}/{name}"
        check_path(path)
        sha = digest(data)
        old = previous.get(path)
        staged = old is None or old[1] != sha
        if staged:
            _write_file(os.path.join(stage, path), data, mode)
        done.append((path, sha, staged))
    return done


_BUNDLES: list[Bundle] = []


def _make_bundle(index: int) -> dict[str, bytes]:
    """Produce bundle ``index`` of those started early (runs in a forked process)."""
    return _BUNDLES[index].produce()


def start_bundles(items: list[Produced], site_dir: Path, workers: int = 1) -> list[Produced]:
    """Start making, in separate processes (up to `workers`), each bundle the site does not
    hold yet.

    The search index takes about as long as all the pages; made beside them, it is ready
    when the pages are. Returns the items with those bundles waiting for their process.
    """
    recorded = {key for key, _ in _read_manifest(str(site_dir))[0].values()} if site_dir.is_dir() else set()
    pending = [item for item in items if isinstance(item, Bundle) and item.key not in recorded]
    if not pending:
        return items
    global _BUNDLES
    _BUNDLES = pending
    pool = fork_pool(max(1, min(workers, len(pending))))
    futures = {id(bundle): pool.submit(_make_bundle, index) for index, bundle in enumerate(pending)}
    pool.shutdown(wait=False)  # the processes exit once their work is done
    return [
        Bundle(item.folder, item.key, futures[id(item)].result) if id(item) in futures else item
        for item in items
    ]


@dataclass
class _Plan:
    """What a sync decided before producing anything."""

    keys: dict[str, str] = field(default_factory=dict)  # every output path -> key
    todo: list[Output] = field(default_factory=list)
    bundles: list[Bundle] = field(default_factory=list)
    kept: dict[str, Entry] = field(default_factory=dict)  # unchanged, by key


def _plan(items: Iterable[Produced], previous: dict[str, Entry], disk: _Disk) -> _Plan:
    """Split outputs into those whose key still matches a file on disk and the rest."""
    plan = _Plan()
    by_bundle: dict[str, list[str]] = {}
    for path, (key, _) in previous.items():
        by_bundle.setdefault(key, []).append(path)
    for item in items:
        if isinstance(item, Bundle):
            owned = [p for p in by_bundle.get(item.key, []) if p.startswith(item.folder + "/")]
            if owned and all(disk.files.get(p) is False for p in owned):
                plan.kept.update({p: previous[p] for p in owned})
                plan.keys.update({p: item.key for p in owned})
            else:
                plan.bundles.append(item)
            continue
        if item.path in plan.keys:
            raise ValueError(f"two outputs for {item.path!r}")
        plan.keys[item.path] = item.key
        old = previous.get(item.path)
        if old is not None and old[0] == item.key and disk.files.get(item.path) is False:
            plan.kept[item.path] = old
        else:
            plan.todo.append(item)
    return plan


def _validate(items: list[Produced]) -> None:
    """ValueError for an unsafe path, or a path that is also another output's folder."""
    paths = [item.folder + "/x" if isinstance(item, Bundle) else item.path for item in items]
    for path in paths:
        check_path(path)
    folders = {folder for path in paths for folder in _ancestors(path)}
    for path in paths:
        if path in folders:
            raise ValueError(f"invalid output path {path!r}: also a folder of another output")


def sync(
    items: Iterable[Produced],
    site_dir: Path,
    *,
    workers: int = 1,
    scope: Scope | None = None,
    progress: Progress = lambda done, total: None,
    inputs: str | None = None,
) -> SyncReport:
    """Make ``site_dir`` hold exactly ``items`` (plus untouched foreign files).

    With ``scope``, only owned paths for which it is true are considered: the rest of the
    manifest and of the site is left alone (the preview syncs the search index on its own).
    ``inputs`` is recorded in the manifest as the fingerprint of what the site now holds;
    None (a partial sync) keeps the recorded one if nothing changed and clears it otherwise.
    """
    listed = list(items)
    _validate(listed)
    site_dir.mkdir(parents=True, exist_ok=True)
    root = str(site_dir.resolve())
    lock = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one sync per site at a time
        return _Sync(root, scope or (lambda path: True), inputs).run(listed, workers, progress)
    finally:
        os.close(lock)


def rehearse(
    items: Iterable[Produced], site_dir: Path, *, workers: int = 1, progress: Progress = lambda d, t: None
) -> list[Diagnostic]:
    """The problems a sync of `items` into `site_dir` would meet, writing nothing anywhere.

    Outputs whose key matches a file the site already holds were produced without problems
    before and are not produced again; search bundles are not made.
    """
    try:
        listed = list(items)
        _validate(listed)
        root = str(site_dir)
        previous = _read_manifest(root)[0] if site_dir.is_dir() else {}
        disk = _scan(root) if previous else _Disk()
    except BuildError as exc:
        return list(exc.diagnostics)
    plan = _plan(listed, previous, disk)
    on_disk = {p: e for p, e in previous.items() if disk.files.get(p) is False}
    return _distinct(_produce_all(_Job(None, plan.todo, on_disk, _file_mode()), workers, progress)[1])


class _Sync:
    """One sync, run while holding the site lock."""

    def __init__(self, root: str, scope: Scope, inputs: str | None):
        self.root = root
        self.inputs = inputs
        self.recorded = ""
        self.stage = os.path.join(root, STAGE)
        self.scope = scope
        self.mode = _file_mode()

    def run(self, items: Iterable[Produced], workers: int, progress: Progress) -> SyncReport:
        """Finish a killed build's switch, plan, produce into the staging folder, then switch."""
        replay(self.root)
        everything, self.recorded = _read_manifest(self.root)
        previous = {p: e for p, e in everything.items() if self.scope(p)}
        outside = {p: e for p, e in everything.items() if not self.scope(p)}
        shutil.rmtree(self.stage, ignore_errors=True)  # a killed build's leftovers
        disk = _scan(self.root)
        plan = _plan(items, previous, disk)
        try:
            on_disk = {p: e for p, e in previous.items() if disk.files.get(p) is False}  # regular files
            if plan.todo or plan.bundles:
                _check_free_space(self.root)
            job = _Job(self.stage, plan.todo, on_disk, self.mode)
            done, problems = _produce_all(job, workers, progress)
            if problems:
                raise BuildError(_distinct(problems))
            for bundle in plan.bundles:
                made = _produce_bundle(bundle, self.stage, on_disk, self.mode)
                plan.keys.update({path: bundle.key for path, _, _ in made})
                done += made
            return self.switch(plan, done, previous, outside, disk)
        except OSError as exc:  # disk full, read-only, site/ removed under the build
            committed = os.path.exists(os.path.join(self.root, JOURNAL))
            outcome = "partly switched; the next build completes it" if committed else "unchanged"
            raise BuildError([_write_failure(exc, f"site/ is {outcome}")]) from None
        finally:
            if not os.path.exists(os.path.join(self.root, JOURNAL)):
                shutil.rmtree(self.stage, ignore_errors=True)

    def switch(
        self,
        plan: _Plan,
        done: list[Made],
        previous: dict[str, Entry],
        outside: dict[str, Entry],
        disk: _Disk,
    ) -> SyncReport:
        """Commit to the new site with a journal, then carry the journal out (see `replay`)."""
        staged = sorted(path for path, _, changed in done if changed)
        new_paths = set(plan.keys)
        folders = {folder for path in new_paths for folder in _ancestors(path)}
        owned = previous.keys() | outside.keys()
        adopted = self.check_foreign(staged, folders, owned, disk)
        staged = [path for path in staged if path not in adopted]
        stale = sorted(p for p in previous.keys() - new_paths if p in disk.files)
        unowned = [p for p in disk.files if p not in owned and p not in new_paths]
        early = [p for p in stale if p in folders or any(a in new_paths for a in _ancestors(p))]
        late = [p for p in stale if p not in set(early)]
        final = {**outside, **plan.kept, **{path: (plan.keys[path], sha) for path, sha, _ in done}}
        changed = bool(staged or stale)
        inputs = self.inputs if self.inputs is not None else ("" if changed else self.recorded)
        manifest = _manifest_bytes(final, inputs)
        if changed or disk.temps or not _same_file(os.path.join(self.root, MANIFEST), manifest):
            _write_file(os.path.join(self.stage, MANIFEST), manifest, self.mode)
            journal = {
                "early": [*disk.temps, *early],
                "moves": staged,
                "late": late,
                "prune": sorted({*(previous.keys() - new_paths), *disk.temps}),
            }
            temporary = os.path.join(self.root, TMP_PREFIX + JOURNAL)
            _write_file(temporary, json.dumps(journal).encode(), self.mode)
            os.replace(temporary, os.path.join(self.root, JOURNAL))  # the commit
            replay(self.root)
        unchanged = sorted(new_paths - set(staged))
        foreign = sorted(p for p in unowned if self.scope(p))
        removed = tuple(early + late)
        produced = tuple(sorted(path for path, _, _ in done))
        return SyncReport(tuple(staged), tuple(unchanged), removed, tuple(foreign), produced)

    def check_foreign(
        self, staged: list[str], folders: set[str], owned: Iterable[str], disk: _Disk
    ) -> set[str]:
        """Raise before anything moves if a file the build does not own is in the way.

        Returns the hand-placed files that already hold exactly the output: they are adopted.
        """
        owned, adopted = set(owned), set()
        for path in staged:
            if path in disk.files and path not in owned:
                if _same_file(os.path.join(self.root, path), Path(self.stage, path).read_bytes()):
                    adopted.add(path)
                    continue
                raise ForeignFileConflict(path, "a hand-placed file is where an output goes")
            if path in disk.dirs:
                inside = [p for p in disk.files if p.startswith(path + "/") and p not in owned]
                if inside:
                    raise ForeignFileConflict(inside[0], f"it is inside {path}/, where an output goes")
        for folder in folders:
            if folder in disk.files and folder not in owned:
                kind = "symlink" if disk.files[folder] else "hand-placed file"
                raise ForeignFileConflict(folder, f"a {kind} is where a folder must go")
        return adopted


def replay(root: str) -> None:
    """Carry out the journal of a switch, if one is pending (a no-op otherwise).

    A switch first stages every changed file and the new manifest, then writes the journal:
    that is the commit. Replaying it only renames and removes, so it needs no free space, and
    it is idempotent: a build killed while replaying is finished by the next one, which
    replays before anything else. Until then, `unchanged` never reports the site intact.
    """
    try:
        journal = json.loads(Path(root, JOURNAL).read_bytes())
    except FileNotFoundError:
        return
    stage = os.path.join(root, STAGE)
    for path in journal["early"]:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(root, path))
    for path in journal["moves"]:
        _move_into_place(os.path.join(stage, path), os.path.join(root, path))
    for path in journal["late"]:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(root, path))
    _prune(root, journal["prune"])
    with contextlib.suppress(FileNotFoundError):
        os.replace(os.path.join(stage, MANIFEST), os.path.join(root, MANIFEST))
    os.unlink(os.path.join(root, JOURNAL))
    shutil.rmtree(stage, ignore_errors=True)


def _move_into_place(staged: str, target: str) -> None:
    """Replace `target` with the staged file, unless that was done already (a replay)."""
    if not os.path.lexists(staged):
        return
    if os.path.isdir(target) and not os.path.islink(target):
        shutil.rmtree(target)  # a folder in the way: the switch checked it holds only owned files
    try:
        os.replace(staged, target)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(staged, target)


def _check_free_space(root: str) -> None:
    """BuildError when the site's disk has less than MIN_FREE_BYTES free."""
    stats = os.statvfs(root)
    free = stats.f_bavail * stats.f_frsize
    if free < MIN_FREE_BYTES:
        message = f"only {free // 2**20} MiB free on the disk of site/; nothing was written"
        raise BuildError([error("site", 0, message, f"free at least {MIN_FREE_BYTES // 2**20} MiB")])


def _write_failure(exc: OSError, outcome: str) -> Diagnostic:
    """A diagnostic for a failed write (disk full, read-only disk, site/ removed meanwhile)."""
    where = f" ({exc.filename})" if exc.filename else ""
    return error("site", 0, f"cannot write the site: {exc.strerror or exc}{where}; {outcome}")


def _distinct(problems: list[Diagnostic]) -> list[Diagnostic]:
    """Each problem once (a template error shows on every page that uses the template)."""
    seen: dict[tuple[str, int, str], Diagnostic] = {}
    for problem in problems:
        seen.setdefault((problem.path, problem.line, problem.message.split(" (while")[0]), problem)
    return list(seen.values())


def _prune(root: str, paths: Iterable[str]) -> None:
    """Remove the folders of ``paths`` that are now empty, deepest first, never root."""
    folders = {folder for path in paths for folder in _ancestors(path)}
    for folder in sorted(folders, key=lambda f: f.count("/"), reverse=True):
        with contextlib.suppress(OSError):  # not empty (or already gone): keep it
            os.rmdir(os.path.join(root, folder))


def unchanged(site_dir: Path, inputs: str) -> SyncReport | None:
    """If the site was completely built from inputs with this fingerprint and every file it
    owns is still in place: the report of a sync that has nothing to do. Otherwise None."""
    if not inputs or not (site_dir / MANIFEST).is_file() or (site_dir / JOURNAL).exists():
        return None
    try:
        entries, recorded = _read_manifest(str(site_dir))
    except CorruptManifest:
        return None
    disk = _scan(str(site_dir))
    if recorded != inputs or disk.temps or any(disk.files.get(p) is not False for p in entries):
        return None
    foreign = tuple(sorted(disk.files.keys() - entries.keys()))
    return SyncReport((), tuple(sorted(entries)), (), foreign)


def inventory(site_dir: Path) -> tuple[list[str], list[str]]:
    """The files the manifest of `site_dir` owns and the files there it does not own (the
    build's bookkeeping left out), sorted; CorruptManifest if it cannot be trusted."""
    entries = _read_manifest(str(site_dir))[0]
    disk = _scan(str(site_dir))
    return sorted(entries), sorted(disk.files.keys() - entries.keys())
