"""The preview server keeps answering while it rebuilds, shows each rebuild's warnings and every
failed build as an error page, redirects only to itself, lists no folders, and warns when other
machines can reach it."""

from __future__ import annotations

import contextlib
import errno
import html
import os
import queue
import shutil
import threading
import time
import types
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from benchmarks.corpus import generate
from scholarsite import pipeline, write
from scholarsite.inputs.config import NONE_GIVEN
from scholarsite.preview import builds, server
from scholarsite.preview.builds import BuildProcess
from scholarsite.preview.watch import InputWatcher

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


def call(app: server.PreviewApp, raw_path: str) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of a request for `raw_path`, decoded as tornado hands it over."""
    answer: dict[str, object] = {}

    def respond(status: str, headers: list[tuple[str, str]]) -> None:
        answer["status"], answer["headers"] = int(status.split()[0]), dict(headers)

    environ = {"PATH_INFO": urllib.parse.unquote_to_bytes(raw_path).decode("latin-1")}
    body = b"".join(app(environ, respond))
    return answer["status"], answer["headers"], body  # type: ignore[return-value]


def small_site(root: Path) -> Path:
    """A project folder whose site/ holds two pages, a folder without one (assets/) and a 404 page."""
    site = root / "site"
    for folder in ("papers", "café"):
        (site / folder).mkdir(parents=True)
        (site / folder / "index.html").write_text(f"<!doctype html><title>{folder}</title>")
    (site / "assets").mkdir()
    (site / "assets" / "style.css").write_text("body{}")
    (site / "404.html").write_text("<!doctype html><title>our own 404</title>")
    return root


EVIL = [
    "/%2fevil.example%2f..%2fpapers",
    "/%2F%2Fevil.example/..%2Fpapers",
    "//evil.example/../papers",
    "//evil.example/%2e%2e/papers",
    "/%5cevil.example%5c..%5cpapers",
    "/%5c%5cevil.example/../papers",
    "/\\evil.example/../papers",
    "/\\\\evil.example/../papers",
    "/https:%2f%2fevil.example%2f..%2fpapers",
    "/papers/..%2f%2fpapers",
    "/.%2fpapers",
]


@pytest.mark.parametrize("base", ["/", "/scholarsite/"])
@pytest.mark.parametrize("raw", EVIL)
def test_redirects_only_go_to_a_path_on_this_server(tmp_path: Path, raw: str, base: str) -> None:
    app = server.PreviewApp(server.Preview(small_site(tmp_path)), base)
    status, headers, body = call(app, base.rstrip("/") + raw)
    if status == 404:
        assert body == b"<!doctype html><title>our own 404</title>"
        return
    assert status == 301 and headers["Location"] == f"{base}papers/", (status, headers)


def test_redirect_locations_are_normalised_and_quoted(tmp_path: Path) -> None:
    app = server.PreviewApp(server.Preview(small_site(tmp_path)), "/")
    assert call(app, "/papers")[1]["Location"] == "/papers/"
    assert call(app, "/caf%C3%A9")[1]["Location"] == "/caf%C3%A9/"
    assert call(app, "/%00")[0] == 404
    for bad in ("//evil.example/", "/\\evil.example/", "https://evil.example/", "evil.example/"):
        assert not server.same_origin(bad)
    assert server.same_origin("/papers/") and server.same_origin("/")


def test_a_folder_without_index_html_is_the_sites_404_page_not_a_listing(tmp_path: Path) -> None:
    project = small_site(tmp_path)
    (project / "site" / "papers" / "index.html").unlink()
    app = server.PreviewApp(server.Preview(project), "/")
    for path in ("/papers", "/papers/", "/assets", "/assets/"):
        assert call(app, path)[::2] == (404, b"<!doctype html><title>our own 404</title>"), path
    (project / "site" / "404.html").unlink()
    assert call(app, "/assets/")[::2] == (404, b"<!doctype html><title>Not found</title>")


def test_only_loopback_hosts_count_as_local() -> None:
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert not server.exposed(host), host
    for host in ("0.0.0.0", "::", "no-such-host.invalid"):
        assert server.exposed(host), host


def test_serving_beyond_loopback_prints_a_warning(tmp_path: Path) -> None:
    process, port = start_preview(make_project(tmp_path / "project"), "--host", "0.0.0.0")
    try:
        lines = lines_of(process)
        wait_for(lines, "the preview is reachable from other machines; it is meant for local use")
        wait_for(lines, "Serving")
    finally:
        process.terminate()
        process.wait(timeout=30)


FAILURES = [
    OSError(errno.ENOSPC, "No space left on device", "/p/site/papers/<i>index</i>.html"),
    OSError(errno.EROFS, "Read-only file system", "/p/site/<stage>"),
    FileNotFoundError(errno.ENOENT, "No such file or directory", "/p/site/<gone>"),
    write.WriteConflict("site/x.html: a <folder> is in the way"),
]


def build_raising(exc: Exception) -> Callable[..., object]:
    """A stand-in for the preview's build that fails with `exc`."""

    def build(*args: object, **kwargs: object) -> object:
        raise exc

    return build


def build_succeeding(root: Path, **options: Any) -> object:
    """A stand-in for the preview's build that succeeds without warnings."""
    options["shown"](write.SyncReport(("index.html",), (), (), (), ("index.html",)), ())
    return types.SimpleNamespace(summary=lambda: "1 written, 0 unchanged, 0 removed in 0.01 s")


@pytest.mark.parametrize("failure", FAILURES, ids=lambda exc: type(exc).__name__)
def test_a_failed_write_is_the_error_page_until_a_build_succeeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], failure: Exception
) -> None:
    reloads: list[bool] = []
    preview = server.Preview(small_site(tmp_path), lambda: reloads.append(True))
    app = server.PreviewApp(preview, "/")
    monkeypatch.setattr(pipeline, "build", build_raising(failure))
    preview.rebuild({"seeds/a.txt"})
    message = builds.describe(failure)
    assert message.startswith("error: ") and "<" in message
    out = capsys.readouterr().out
    assert message in out and "build failed; serving an error page" in out
    status, _, page = call(app, "/papers/")
    assert status == 500 and html.escape(message).encode() in page and message.encode() not in page
    assert call(app, "/assets/style.css")[0] == 200
    monkeypatch.setattr(pipeline, "build", build_succeeding)
    preview.rebuild({"seeds/a.txt"})
    assert call(app, "/papers/")[::2] == (200, b"<!doctype html><title>papers</title>")
    assert len(reloads) == 2


def test_a_bug_is_the_error_page_with_a_traceback_and_a_request_to_report_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    preview = server.Preview(small_site(tmp_path))
    app = server.PreviewApp(preview, "/")
    monkeypatch.setattr(pipeline, "build", build_raising(KeyError("<boom>")))
    preview.rebuild()
    captured = capsys.readouterr()
    assert "Traceback (most recent call last)" in captured.err and "KeyError: '<boom>'" in captured.err
    assert "error: KeyError: '<boom>'" in captured.out and "issue tracker" in captured.out
    status, _, page = call(app, "/")
    assert status == 500 and b"KeyError: &#x27;&lt;boom&gt;&#x27;" in page and b"issue tracker" in page
    monkeypatch.setattr(pipeline, "build", build_succeeding)
    preview.rebuild()
    assert call(app, "/")[0] == 404  # the small site has no home page: the site again, not the error


def edit(seed: Path, old: str, new: str) -> None:
    """Replace the first `old` in a seed file."""
    text = seed.read_text(encoding="utf-8")
    assert old in text
    seed.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_failing_write_in_the_real_server_is_the_error_page_and_it_recovers(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    process, port = start_preview(project)
    try:
        lines = lines_of(process)
        wait_for(lines, "Serving")
        site = project / "site"
        shutil.rmtree(site)
        site.write_text("not a folder")  # the sync cannot make site/: FileExistsError
        seed = sorted((project / "seeds").glob("*.txt"))[0]
        edit(seed, "Distributed attention", "Distributed  attention")
        wait_for(lines, "build failed")
        status, page = get_any(f"http://127.0.0.1:{port}/")
        assert status == 500 and b"File exists" in page
        site.unlink()
        edit(seed, "Distributed  attention", "Distributed attention")
        wait_for(lines, " written, ")
        status, page = get_any(f"http://127.0.0.1:{port}/")
        assert status == 200 and b'id="build-failed"' not in page
    finally:
        process.terminate()
        process.wait(timeout=30)


def get_any(url: str) -> tuple[int, bytes]:
    """(status, body) of a GET, error statuses included."""
    try:
        return get(url)
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read()


def test_the_watcher_follows_inputs_that_are_replaced_or_made_again(tmp_path: Path) -> None:
    (tmp_path / "seeds").mkdir()
    (tmp_path / "site.yaml").write_text("title: a\n")
    calls: queue.Queue[set[str]] = queue.Queue()
    watcher = InputWatcher(tmp_path, calls.put)
    watcher.start()

    def expect(path: Path) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                if str(path) in calls.get(timeout=1):
                    return
        raise AssertionError(f"no call back for {path}")

    try:
        live = time.monotonic() + 30  # the watcher is watching once a write calls back (slow when loaded)
        while time.monotonic() < live:
            (tmp_path / "site.yaml").write_text("title: a\n")
            with contextlib.suppress(queue.Empty):
                if str(tmp_path / "site.yaml") in calls.get(timeout=0.5):
                    break
        time.sleep(0.3)  # the calls that write made, then none pending
        while not calls.empty():
            calls.get()
        for title in ("b", "c"):  # an editor's atomic save, twice
            (tmp_path / "new.yaml").write_text(f"title: {title}\n")
            os.replace(tmp_path / "new.yaml", tmp_path / "site.yaml")
            expect(tmp_path / "site.yaml")
        shutil.rmtree(tmp_path / "seeds")
        expect(tmp_path / "seeds")
        (tmp_path / "seeds").mkdir()
        expect(tmp_path / "seeds")
        (tmp_path / "seeds" / "a.txt").write_text("x")
        expect(tmp_path / "seeds" / "a.txt")
    finally:
        watcher.stop()
        watcher.thread.join(timeout=5)


def site_urls(project: Path, port: int) -> list[str]:
    """A mix of URLs: the home page, up to 30 other pages, the style sheet and a missing page."""
    site = project / "site"
    pages = sorted(p.parent.relative_to(site).as_posix() for p in site.rglob("index.html"))[1:31]
    paths = ["", *(f"{page}/" for page in pages), "assets/style.css", "no-such-page/"]
    return [f"http://127.0.0.1:{port}/{path}" for path in paths]


def fetch(url: str) -> tuple[float, int, bytes, str]:
    """(seconds, status, body, error) of one request; error is '' unless the request failed."""
    started = time.perf_counter()
    try:
        status, body = get_any(url)
    except Exception as exc:  # a refused or reset connection, a short body: the failures sought
        return time.perf_counter() - started, 0, b"", repr(exc)
    return time.perf_counter() - started, status, body, ""


def answer_problem(url: str, status: int, body: bytes) -> str:
    """Why an answer is wrong, or '' when it is a whole page, the 404 page or the error page."""
    end = b"}" if url.endswith(".css") else b"</html>"
    if status in (200, 404) and body.rstrip().endswith(end):
        return ""
    if status == 500 and b'id="build-failed"' in body:
        return ""
    return f"{url}: {status} {body[-80:]!r}"


def edit_while_serving(project: Path, lines: queue.Queue[tuple[float, str]], steps: list[str]) -> None:
    """Rebuild four times: two seed edits around a failing build (an unknown key in site.yaml);
    `steps` records each rebuild as it ends."""
    seed = sorted((project / "seeds").glob("*.txt"))[0]
    settings = project / "site.yaml"
    edit(seed, "Distributed attention", "Distributed attention, edited,")
    wait_for(lines, " written, ")
    steps.append("seed edited")
    settings.write_text(settings.read_text() + "no_such_key: 1\n")
    wait_for(lines, "build failed")
    steps.append("site.yaml broken")
    settings.write_text(settings.read_text().replace("no_such_key: 1\n", ""))
    wait_for(lines, " written, ")
    steps.append("site.yaml mended")
    edit(seed, "Distributed attention, edited,", "Distributed attention")
    wait_for(lines, " written, ")
    steps.append("seed restored")


def test_no_request_fails_while_the_server_rebuilds(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    process, port = start_preview(project)
    try:
        lines = lines_of(process)
        wait_for(lines, "Serving")
        urls = site_urls(project, port)
        steps: list[str] = []
        editor = threading.Thread(target=edit_while_serving, args=(project, lines, steps), daemon=True)
        editor.start()
        results: list[tuple[str, tuple[float, int, bytes, str]]] = []
        deadline = time.monotonic() + 50
        with ThreadPoolExecutor(4) as pool:
            while (len(results) < 2000 or editor.is_alive()) and time.monotonic() < deadline:
                batch = [urls[(len(results) + i) % len(urls)] for i in range(100)]
                results.extend(zip(batch, pool.map(fetch, batch), strict=True))
        assert len(steps) == 4, f"within 50 s, of the four rebuilds only these ended: {steps}"
        failed = [f"{url}: {error}" for url, (_, _, _, error) in results if error]
        wrong = [answer_problem(url, status, body) for url, (_, status, body, error) in results if not error]
        assert not failed and not any(wrong), (failed + [w for w in wrong if w])[:10]
        statuses = [status for _, (_, status, _, _) in results]
        assert {200, 404, 500} <= set(statuses)
        seconds = sorted(took for _, (took, _, _, _) in results)
        p99 = seconds[int(len(seconds) * 0.99)]
        counts = {status: statuses.count(status) for status in sorted(set(statuses))}
        print(f"\n{len(results)} requests during 4 rebuilds: {counts}; p99 {p99 * 1000:.0f} ms")
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_listen_problems_are_named_accurately() -> None:
    import socket

    from scholarsite.preview.server import listen_problem

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert "already in use" in str(listen_problem("127.0.0.1", taken.getsockname()[1]))
    assert "not an address of this machine" in str(listen_problem("999.1.1.1", 8000))
    assert "Cannot assign requested address" in str(listen_problem("10.255.255.1", 8000))
    assert listen_problem("127.0.0.1", 0) is None


def test_serve_prints_its_own_log_not_livereloads(tmp_path: Path) -> None:
    import signal
    import urllib.request

    from .conftest import start_preview

    project = make_project(tmp_path / "p")
    process, port = start_preview(project)
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30).read()
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=30)
    assert "Serving" in output and f"127.0.0.1:{port}" in output
    assert "[I " not in output and "Browser Connected" not in output and "Serving on http" not in output


def test_a_site_deleted_under_serve_is_rebuilt(tmp_path: Path) -> None:
    import signal
    import urllib.request

    from .conftest import start_preview

    project = make_project(tmp_path / "p")
    process, port = start_preview(project)
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30).read()
        shutil.rmtree(project / "site")
        deadline = time.monotonic() + 60
        while not (project / "site/index.html").is_file() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert (project / "site/index.html").is_file(), "the deleted site was not rebuilt"
        assert b"<h1" in urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30).read()
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)


def test_serve_answers_from_the_last_build_at_once_and_then_brings_it_up_to_date(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    pipeline.build(project)
    seed = sorted((project / "seeds").glob("*.txt"))[0]
    edit(seed, "Distributed attention", "Distributed  attention")  # a change made while not serving
    process, port = start_preview(project)
    try:
        lines = lines_of(process)
        serving = wait_for(lines, "Serving")
        built = wait_for(lines, " written, ")
        assert serving < built, "the last build's site was not served while the first build ran"
        status, page = get(f"http://127.0.0.1:{port}/")
        assert status == 200 and b"<h1" in page
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_build_process_that_dies_is_an_error_page_and_the_next_build_gets_a_new_one(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    builds = BuildProcess(project, NONE_GIVEN)
    preview = server.Preview(project, builds=builds)
    try:
        preview.rebuild()
        assert preview.problems == []
        builds.process.kill()
        builds.process.join(timeout=10)
        preview.rebuild()
        assert preview.problems and "the build process ended unexpectedly" in preview.problems[0]
        preview.rebuild()
        assert preview.problems == [] and builds.process.is_alive()
    finally:
        builds.close()
    assert not builds.process.is_alive()


def test_the_page_the_browser_shows_is_rebuilt_and_reloaded_before_the_rest(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    reloads: list[float] = []
    preview = server.Preview(project, lambda: reloads.append(time.monotonic()))
    preview.rebuild()
    app = server.PreviewApp(preview, "/")
    papers = sorted((project / "site/papers").glob("*/*/index.html"))
    opened = papers[len(papers) // 2]
    assert call(app, "/" + opened.parent.relative_to(project / "site").as_posix() + "/")[0] == 200
    base = project / "templates/base.html"
    base.write_text(base.read_text().replace("<main ", "<!-- edited -->\n<main ", 1))  # every page
    written: list[set[str]] = []
    seen = preview.done
    preview.done = lambda *shown: (written.append(pages_with(project, "<!-- edited -->")), seen(*shown))
    preview.rebuild({str(project / "templates/base.html")})
    assert len(reloads) == 3 and preview.problems == []
    assert written[0] == {opened.relative_to(project / "site").as_posix()}  # that page alone, first
    assert len(written[1]) == len(list((project / "site").rglob("*.html")))


def pages_with(project: Path, text: str) -> set[str]:
    """The site paths of the pages holding `text`."""
    site = project / "site"
    return {p.relative_to(site).as_posix() for p in site.rglob("*.html") if text in p.read_text()}
