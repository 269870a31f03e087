"""HTTP done properly in the preview (HEAD, other methods, over-long request lines) and a strict
command line (no abbreviated options, ports and process counts checked, one severity word per
message)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import ROOT, make_project, start_preview


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """`python build.py ARGS` as a user runs it (a serve that wrongly starts is cut short)."""
    command = [sys.executable, str(ROOT / "build.py"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def exchange(port: int, request: bytes) -> tuple[str, dict[str, str], bytes]:
    """(status line, headers, body) of a raw request to the preview, read until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(request)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return status, headers, body


def request(port: int, method: str, target: str = "/") -> tuple[str, dict[str, str], bytes]:
    """A request without a body, asking the server to close the connection after answering."""
    raw = f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    return exchange(port, raw.encode())


@pytest.fixture(scope="module")
def preview_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The port of a preview serving the shipped seeds."""
    process, port = start_preview(make_project(tmp_path_factory.mktemp("served")))
    try:
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.parametrize(
    "target", ["/", "/papers/", "/papers", "/assets/style.css", "/data/papers.json", "/no-such-page/"]
)
def test_head_answers_like_get_without_a_body(preview_port: int, target: str) -> None:
    get_status, get_headers, get_body = request(preview_port, "GET", target)
    status, headers, body = request(preview_port, "HEAD", target)
    assert status == get_status
    assert body == b""
    del headers["Date"], get_headers["Date"]
    assert headers == get_headers
    assert int(headers["Content-Length"]) == len(get_body)
    assert "Content-Type" in headers


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND"])
def test_other_methods_are_405_with_allow(preview_port: int, method: str) -> None:
    for target in ("/", "/papers/", "/no-such-page/"):
        status, headers, _ = request(preview_port, method, target)
        assert status.startswith("HTTP/1.1 405 "), (method, target, status)
        assert headers["Allow"] == "GET, HEAD"


def test_an_over_long_request_line_is_414(preview_port: int) -> None:
    status, _, _ = request(preview_port, "GET", "/" + "a" * 100_000)
    assert status.startswith("HTTP/1.1 414 "), status
    assert request(preview_port, "GET", "/")[0] == "HTTP/1.1 200 OK"  # and the server lives on


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "p")


def usage_error(done: subprocess.CompletedProcess[str], flag: str) -> None:
    """An argparse-style usage error (exit 2) that names `flag`."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert re.search(rf"^scholarsite[\w ]*: error: .*{flag}", done.stderr, re.M), done.stderr


def test_options_are_never_abbreviated_and_nothing_is_written(project: Path) -> None:
    for words in (["build", "--sit", "x"], ["--sit", "x"], ["check", "--stric"]):
        done = run("--project", str(project), *words)
        usage_error(done, words[-2] if words[-1] == "x" else words[-1])
    assert sorted(p.name for p in project.iterdir()) == [
        "assets",
        "content",
        "seeds",
        "site.yaml",
        "templates",
    ]
    assert not (ROOT / "x").exists()


@pytest.mark.parametrize("port", ["99999", "65536", "-1"])
def test_ports_outside_0_to_65535_are_usage_errors(project: Path, port: str) -> None:
    usage_error(run("--project", str(project), "serve", "--port", port), "--port")
    assert not (project / "site").exists()


def test_port_0_serves_on_a_free_port_and_prints_it(project: Path) -> None:
    command = [sys.executable, str(ROOT / "build.py"), "--project", str(project), "serve", "--port", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (line := process.stdout.readline()).startswith("Serving"):
            assert line, "serve ended without serving"
        found = re.search(r" at http://127\.0\.0\.1:(\d+)/ ", line)
        assert found, line
        port = int(found.group(1))
        assert port != 0
        assert request(port, "GET", "/")[0] == "HTTP/1.1 200 OK"
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.parametrize("command", ["build", "check", "deploy"])
def test_jobs_must_be_at_least_1(project: Path, command: str) -> None:
    for jobs in ("0", "-2", "many"):
        usage_error(run("--project", str(project), command, "--jobs", jobs), "--jobs")
    assert not (project / "site").exists()


SEVERITY = re.compile(r"\b(?:error|warning|note):")


def test_add_dry_run_gives_each_message_one_severity_word(project: Path, tmp_path: Path) -> None:
    seed = (project / "seeds/001_195b1e5c39d23b83.txt").read_text()
    incoming = tmp_path / "grace.txt"
    incoming.write_text(seed.replace("Ningxin Zheng", "Grace Hopper").replace("18 records", "17 records"))
    done = run("--project", str(project), "add", "--dry-run", str(incoming))
    assert done.returncode == 0, done.stderr
    lines = (done.stdout + done.stderr).splitlines()
    assert any("warning: the count line claims 17 records" in line for line in lines), lines
    for line in lines:
        assert len(SEVERITY.findall(line)) <= 1, line
    assert not (project / "seeds/grace-hopper.txt").exists()
