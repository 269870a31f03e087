"""Live preview benchmark: reload latency in a browser, and server latency during rebuilds.

    python benchmarks/bench_preview.py --authors 300 --papers 1800 --repeats 5 [--json FILE]

Runs `python build.py --project DIR serve` on a generated collection, as a user would, and
measures from the outside (command line, HTTP and headless Chromium only):

- reload latency: an author page is open in Chromium; a paper title in that author's seed is
  edited and saved; the time until the new title is visible in the page (the page reloads
  itself through livereload's script). Split into "save to rebuild printed" and the rest.
- server latency during a rebuild: a thread sends back-to-back GETs (home, an author page,
  the stylesheet) from the save until the server prints the rebuild's summary; each request's
  latency is recorded. An idle window is measured first for comparison.

Prints figures and asserts nothing. Needs Debian's Chromium at /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import generate  # noqa: E402
from benchmarks.realworld import make_realworld  # noqa: E402
from benchmarks.sitedata import read_list  # noqa: E402
from tools.qa.browser import CHROMIUM_FLAGS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
CHROMIUM = "/usr/bin/chromium"
IDLE_SECONDS = 3.0
QUIET_SECONDS = 1.5
SLOW_SECONDS = 0.1
# A line the preview prints after every rebuild: "12 written, 310 unchanged, ... in 0.41 s",
# or a failed build's last line.
SUMMARY = re.compile(r" written|build failed|^error: ")


class ServerLog:
    """The preview's output, read in a thread so the pipe never fills; lines with arrival times."""

    def __init__(self, process: subprocess.Popen[str]):
        self.lines: list[tuple[float, str]] = []
        self.summaries: list[tuple[float, str]] = []
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self.read, args=(process,), daemon=True)
        self.thread.start()

    def read(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for raw in process.stdout:
            now = time.monotonic()
            line = raw.rstrip("\n")
            with self.changed:
                self.lines.append((now, line))
                if SUMMARY.search(line):
                    self.summaries.append((now, line))
                self.changed.notify_all()

    def summary_after(self, since: float, timeout: float) -> tuple[float, str] | None:
        """The first summary line printed after `since` and its arrival time, waiting for it."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                later = [s for s in self.summaries if s[0] > since]
                if later:
                    return later[0]
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.changed.wait(left)

    def wait_quiet(self, seconds: float, timeout: float) -> None:
        """Until the server has printed nothing for `seconds`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.changed:
                last = self.lines[-1][0] if self.lines else 0.0
            idle = time.monotonic() - last
            if idle >= seconds:
                return
            time.sleep(seconds - idle)

    def tail(self, count: int = 20) -> str:
        with self.changed:
            return "\n".join(line for _, line in self.lines[-count:])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def make_project(target: Path, authors: int, papers: int, realworld: bool = False) -> Path:
    """Generated seeds (with `realworld`, titles and abstracts shaped like real arXiv records:
    `benchmarks/realworld.py`), a site.yaml and copies of the repository's content, templates,
    assets.

    Author bios (`content/authors/*.md`) are left out: they name the shipped authors, and an
    author page for an author not in the collection is an error.
    """
    target.mkdir(parents=True)
    if realworld:
        make_realworld(authors, papers, 1).write_seeds(target / "seeds")
    else:
        generate(target / "seeds", authors, papers, seed=1)
    (target / "site.yaml").write_text("title: Preview benchmark\n", encoding="utf-8")
    for part in ("content", "templates", "assets"):
        if (ROOT / part).is_dir():
            ignore = shutil.ignore_patterns("authors") if part == "content" else None
            shutil.copytree(ROOT / part, target / part, ignore=ignore)
    return target


def get(port: int, path: str, timeout: float = 600.0) -> int:
    """One GET on a fresh connection; the status."""
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def wait_until_serving(process: subprocess.Popen[str], port: int, log: ServerLog, timeout: float) -> None:
    """Until `/` answers 200 (the preview builds before it listens)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the preview exited with {process.returncode}:\n{log.tail()}")
        try:
            if get(port, "/", timeout=5) == 200:
                return
        except OSError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"the preview did not serve within {timeout:.0f} s:\n{log.tail()}")


def stop(process: subprocess.Popen[str]) -> None:
    """SIGTERM to the preview's process group (it stops cleanly on it), SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    for sig, grace in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


class TitleEditor:
    """Edits one paper title of one seed: the title line gets a new unique suffix each time."""

    def __init__(self, seed: Path, others: list[Path]):
        self.seed = seed
        self.text = seed.read_text(encoding="utf-8")
        self.base = self.pick_title(others)
        self.current = self.base
        self.count = 0

    def pick_title(self, others: list[Path]) -> str:
        """The first plain title (no TeX or markup characters), preferring one no other seed lists."""
        blocks = self.text.split("\n\n")
        titles = [
            blocks[i + 1]
            for i in range(len(blocks) - 1)
            if re.fullmatch(r"arXiv\d{4}", blocks[i]) and not re.search(r"[$\\<>&{}~]", blocks[i + 1])
        ]
        if not titles:
            raise RuntimeError(f"{self.seed.name} has no plain title to edit")
        elsewhere = "".join(p.read_text(encoding="utf-8") for p in others)
        unshared = [t for t in titles if f"\n{t}\n" not in elsewhere]
        return (unshared or titles)[0]

    def edit(self) -> str:
        """Save the seed with a new title; returns the new unique marker."""
        self.count += 1
        marker = f"Edited{self.count}x{secrets.token_hex(3)}"
        title = f"{self.base} {marker}"
        self.text = self.text.replace(f"\n{self.current}\n", f"\n{title}\n", 1)
        self.current = title
        self.seed.write_text(self.text, encoding="utf-8")
        return marker


class Hammer:
    """Back-to-back GETs over a few paths in a thread; (start, latency seconds, status) each."""

    def __init__(self, port: int, paths: list[str]):
        self.port = port
        self.paths = paths
        self.samples: list[tuple[float, float, int]] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        index = 0
        while not self.stopping.is_set():
            path = self.paths[index % len(self.paths)]
            index += 1
            started = time.monotonic()
            try:
                status = get(self.port, path)
            except OSError:
                status = 0
            self.samples.append((started, time.monotonic() - started, status))

    def __enter__(self) -> Hammer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join()


def latency_stats(latencies: list[float]) -> dict[str, float]:
    """Count, median, p99 and max of request latencies in milliseconds, and the time spent
    waiting in requests slower than SLOW_SECONDS (how long the server was unresponsive)."""
    if not latencies:
        nan = float("nan")
        return {"requests": 0, "median_ms": nan, "p99_ms": nan, "max_ms": nan, "blocked_s": 0.0}
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {
        "requests": len(ordered),
        "median_ms": statistics.median(ordered) * 1000,
        "p99_ms": p99 * 1000,
        "max_ms": ordered[-1] * 1000,
        "blocked_s": sum(x for x in ordered if x > SLOW_SECONDS),
    }


def spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def author_page(project: Path, seed_name: str) -> str:
    """The URL path of the author page built from one seed."""
    for author in read_list(project / "site/data", "authors"):
        if any(Path(f).name == seed_name for f in author.get("seed_files", [])):
            return "/" + author["page"].removesuffix("index.html").lstrip("/")
    raise RuntimeError(f"no author page lists {seed_name}")


def measure_reloads(page, log: ServerLog, editor: TitleEditor, repeats: int, timeout: float) -> list[dict]:
    """Save an edited title; time until the open page shows it."""
    runs = []
    for _ in range(repeats):
        log.wait_quiet(QUIET_SECONDS, timeout)
        marker = editor.edit()
        saved = time.monotonic()
        page.wait_for_function(
            f"() => document.body !== null && document.body.innerText.includes({json.dumps(marker)})",
            timeout=timeout * 1000,
        )
        visible = time.monotonic()
        built = log.summary_after(saved, timeout)
        runs.append(
            {
                "visible_s": visible - saved,
                "rebuilt_s": (built[0] - saved) if built is not None else None,
                "server_said": built[1] if built is not None else None,
            }
        )
        print(
            f"  reload {len(runs)}: visible after {visible - saved:.2f} s"
            + (f" (rebuild printed after {built[0] - saved:.2f} s: {built[1]})" if built else ""),
            flush=True,
        )
    return runs


def measure_server(
    port: int, log: ServerLog, editor: TitleEditor, paths: list[str], repeats: int, timeout: float
) -> tuple[dict, list[dict], dict]:
    """Request latencies while idle, then from each save until the rebuild's summary; and pooled."""
    log.wait_quiet(QUIET_SECONDS, timeout)
    with Hammer(port, paths) as hammer:
        time.sleep(IDLE_SECONDS)
    idle = latency_stats([latency for _, latency, _ in hammer.samples])
    print(f"  idle: {idle['requests']} requests, median {idle['median_ms']:.1f} ms", flush=True)
    runs, pooled = [], []
    for _ in range(repeats):
        log.wait_quiet(QUIET_SECONDS, timeout)
        with Hammer(port, paths) as hammer:
            time.sleep(0.2)
            editor.edit()
            saved = time.monotonic()
            built = log.summary_after(saved, timeout)
        end = built[0] if built is not None else time.monotonic()
        window = [s for s in hammer.samples if saved <= s[0] <= end]
        pooled += [latency for _, latency, _ in window]
        stats = latency_stats([latency for _, latency, _ in window])
        stats["window_s"] = end - saved
        stats["errors"] = sum(1 for *_, status in window if status != 200)
        stats["server_said"] = built[1] if built is not None else None
        runs.append(stats)
        print(
            f"  rebuild {len(runs)}: {stats['window_s']:.2f} s window, {stats['requests']} requests, "
            f"median {stats['median_ms']:.1f} ms, p99 {stats['p99_ms']:.0f} ms, "
            f"max {stats['max_ms']:.0f} ms, {stats['blocked_s']:.2f} s in requests over "
            f"{SLOW_SECONDS * 1000:.0f} ms",
            flush=True,
        )
    return idle, runs, latency_stats(pooled)


def site_files(site: Path) -> int:
    return sum(1 for p in site.rglob("*") if p.is_file())


def print_table(rows: list[tuple[str, ...]]) -> None:
    """Columns padded to their widest cell: the first left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        print("  ".join(cells).rstrip())


def report(results: dict) -> None:
    """The figures as a small table."""
    corpus, machine = results["corpus"], results["machine"]
    print()
    print(
        f"corpus: {corpus['authors']} authors, {corpus['papers']} papers "
        f"({corpus['seed_files']} seed files, {corpus['site_files']} site files); "
        f"machine: nproc {machine['nproc']}, load {machine['load_before']} -> {machine['load_after']}"
    )
    print(f"first build until / served: {results['startup_s']:.1f} s ({results['first_build']})")
    rows = [("measure", "median", "min", "max", "n")]
    reload_visible = spread([r["visible_s"] for r in results["reload"]])
    rows.append(
        (
            "reload: save -> new title visible",
            f"{reload_visible['median']:.2f} s",
            f"{reload_visible['min']:.2f} s",
            f"{reload_visible['max']:.2f} s",
            str(len(results["reload"])),
        )
    )
    rebuilt = [r["rebuilt_s"] for r in results["reload"] if r["rebuilt_s"] is not None]
    if rebuilt:
        built = spread(rebuilt)
        rows.append(
            (
                "  of which save -> rebuild printed",
                f"{built['median']:.2f} s",
                f"{built['min']:.2f} s",
                f"{built['max']:.2f} s",
                str(len(rebuilt)),
            )
        )
    print_table(rows)
    print()
    rows = [("server latency", "window", "requests", "median", "p99", "max", "blocked", "errors")]

    def latency_row(name: str, window: str, stats: dict, errors: str) -> tuple[str, ...]:
        return (
            name,
            window,
            str(stats["requests"]),
            f"{stats['median_ms']:.1f} ms",
            f"{stats['p99_ms']:.1f} ms",
            f"{stats['max_ms']:.1f} ms",
            f"{stats['blocked_s']:.2f} s",
            errors,
        )

    rows.append(latency_row("idle", f"{IDLE_SECONDS:.1f} s", results["server"]["idle"], ""))
    for number, run in enumerate(results["server"]["rebuilds"], 1):
        rows.append(
            latency_row(f"during rebuild {number}", f"{run['window_s']:.2f} s", run, str(run["errors"]))
        )
    rows.append(latency_row("all rebuilds pooled", "", results["server"]["pooled"], ""))
    print_table(rows)
    print(
        f"(window: from the save until the server printed the rebuild's summary; blocked: time "
        f"spent in requests slower than {SLOW_SECONDS * 1000:.0f} ms; paths: "
        f"{', '.join(results['server']['paths'])})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors", type=int, default=300)
    parser.add_argument("--papers", type=int, default=1800)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--realworld", action="store_true", help="arXiv-shaped titles and abstracts")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to FILE")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for any one step")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="scholarsite-preview-") as tmp:
        project = make_project(Path(tmp) / "project", args.authors, args.papers, args.realworld)
        seeds = sorted((project / "seeds").glob("*.txt"))
        editor = TitleEditor(seeds[0], seeds[1:])
        port = free_port()
        command = [sys.executable, str(ROOT / "build.py"), "--project", str(project), "serve"]
        print(f"building and serving {len(seeds)} seeds on port {port} ...", flush=True)
        started = time.monotonic()
        process = subprocess.Popen(
            [*command, "--port", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            log = ServerLog(process)
            wait_until_serving(process, port, log, args.timeout)
            startup = time.monotonic() - started
            first_build = log.summaries[0][1] if log.summaries else None
            author = author_page(project, seeds[0].name)
            print(f"served after {startup:.1f} s; watching {author} ({editor.base!r})", flush=True)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
                try:
                    page = browser.new_page()
                    page.goto(f"http://{HOST}:{port}{author}", timeout=args.timeout * 1000)
                    page.wait_for_function(
                        f"() => document.body.innerText.includes({json.dumps(editor.base)})",
                        timeout=args.timeout * 1000,
                    )
                    print("reload latency:", flush=True)
                    reloads = measure_reloads(page, log, editor, args.repeats, args.timeout)
                    print("server latency:", flush=True)
                    paths = ["/", author, "/assets/style.css"]
                    idle, rebuilds, pooled = measure_server(
                        port, log, editor, paths, args.repeats, args.timeout
                    )
                finally:
                    browser.close()
            files = site_files(project / "site")
        finally:
            stop(process)
    results = {
        "corpus": {
            "authors": args.authors,
            "papers": args.papers,
            "seed_files": len(seeds),
            "site_files": files,
        },
        "machine": {
            "nproc": os.cpu_count(),
            "load_before": load_before,
            "load_after": " ".join(f"{x:.1f}" for x in os.getloadavg()),
        },
        "startup_s": startup,
        "first_build": first_build,
        "reload": reloads,
        "server": {"paths": paths, "idle": idle, "rebuilds": rebuilds, "pooled": pooled},
    }
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
