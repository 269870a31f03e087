"""The preview server keeps answering while it rebuilds, and shows each rebuild's warnings."""

from __future__ import annotations

import queue
import threading
import time
import urllib.request
from pathlib import Path

from benchmarks.corpus import generate

from .conftest import make_project, start_preview


def lines_of(process) -> queue.Queue[tuple[float, str]]:  # type: ignore[no-untyped-def]
    """The server's output lines with the time each was read, from a reader thread."""
    lines: queue.Queue[tuple[float, str]] = queue.Queue()

    def read() -> None:
        for line in process.stdout:
            lines.put((time.monotonic(), line))

    threading.Thread(target=read, daemon=True).start()
    return lines


def wait_for(lines: queue.Queue[tuple[float, str]], text: str, timeout: float = 120) -> float:
    """The time the first line containing `text` was read."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            at, line = lines.get(timeout=1)
        except queue.Empty:
            continue
        if text in line:
            return at
    raise AssertionError(f"the server never printed {text!r}")


def get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read()


def test_server_answers_while_it_rebuilds(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    generate(seeds, 40, 500, seed=3)
    project = make_project(tmp_path / "project", seeds=seeds)
    process, port = start_preview(project)
    try:
        lines = lines_of(process)
        wait_for(lines, "Serving")
        base = project / "templates/base.html"
        base.write_text(base.read_text().replace("<main ", "<!-- edited -->\n<main ", 1))  # every page
        started = wait_for(lines, "rebuilding after")
        answered = []
        stop = threading.Event()

        def hammer() -> None:
            while not stop.is_set():
                status, _ = get(f"http://127.0.0.1:{port}/assets/style.css")
                answered.append((time.monotonic(), status))

        worker = threading.Thread(target=hammer, daemon=True)
        worker.start()
        finished = wait_for(lines, " written, ")
        stop.set()
        worker.join(timeout=30)
        during = [status for at, status in answered if started < at < finished]
        assert during and set(during) == {200}, f"{len(answered)} answers, none during the rebuild"
        status, page = get(f"http://127.0.0.1:{port}/")
        assert status == 200 and b"<!-- edited -->" in page
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_warnings_are_printed_and_shown_in_the_browser(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    process, port = start_preview(project)
    try:
        lines = lines_of(process)
        wait_for(lines, "Serving")
        seed = sorted((project / "seeds").glob("*.txt"))[0]
        text = seed.read_text(encoding="utf-8")
        # the first record loses its subject line
        seed.write_text(text.replace("\n\ncs.DC↗\n", "\n", 1), encoding="utf-8")
        wait_for(lines, "warning:")
        wait_for(lines, " written, ")
        status, page = get(f"http://127.0.0.1:{port}/")
        assert status == 200 and b'id="build-warnings"' in page and b"warning:" in page
    finally:
        process.terminate()
        process.wait(timeout=30)
