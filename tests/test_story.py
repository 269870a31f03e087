"""The user's story end to end, through the installed `scholarsite` console script:
`new` -> `build` -> `add` two seeds (one sharing a paper) -> `serve`, with a browser that sees
the reload -> `deploy` to a bare repository; then the Pages workflow's build step, run as the
workflow runs it, for a project site: sitemap, feeds, and a 404 page whose links work at depth.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tools.qa.browser import open_browser

from .conftest import adopt_example, wait_for_port
from .test_new import BABBAGE
from .test_not_found import HOST, pages_server

pytestmark = pytest.mark.browser
SCRIPT = Path(sys.executable).with_name("scholarsite")
SOMERVILLE = BABBAGE.replace("Charles Babbage", "Mary Somerville").replace(
    "Sketch of the Analytical Engine: a translation with notes", "On the connexion of the physical sciences"
)
GIT_ENV = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.org"}
GIT_ENV |= {"GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.org"}


def run(folder: Path, *args: str, **options: object) -> subprocess.CompletedProcess[str]:
    """The console script in `folder`; it must succeed."""
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        [str(SCRIPT), *args], cwd=folder, capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done


def free_port() -> int:
    """A port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def git(folder: Path, *args: str) -> str:
    """git in `folder`."""
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(
        ["git", "-C", str(folder), *args], check=True, capture_output=True, text=True, env=env
    ).stdout


def test_new_build_add_serve_deploy(tmp_path: Path) -> None:
    assert SCRIPT.is_file(), "the console script is installed beside the interpreter"
    run(tmp_path, "new", "lab")
    lab = tmp_path / "lab"
    assert "written" in run(lab, "build", "--quiet").stdout
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    ada = tmp_path / "ada.txt"
    ada.write_bytes((lab / "seeds/example.txt").read_bytes())
    summary = run(lab, "add", str(ada), "--quiet").stdout
    assert "remove seeds/example.txt (the example seed)" in summary and "new author: Ada Lovelace" in summary
    (incoming / "babbage.txt").write_text(BABBAGE, encoding="utf-8")
    (incoming / "somerville.txt").write_text(SOMERVILLE, encoding="utf-8")
    summary = run(lab, "add", str(incoming), "--quiet").stdout
    assert "new author: Charles Babbage" in summary and "new author: Mary Somerville" in summary
    assert "merged with an existing paper: Sketch of the Analytical Engine" in summary
    assert "new co-authors: Ada Lovelace and Charles Babbage" in summary
    assert "new paper: On the connexion of the physical sciences (2024)" in summary
    assert (lab / "site/authors/mary-somerville/index.html").is_file()

    port = free_port()
    serve = subprocess.Popen(
        [str(SCRIPT), "serve", "--port", str(port)],
        cwd=lab,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_port(port)
        with open_browser() as browser:
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{port}/authors/ada-lovelace/")
            seed = lab / "seeds/ada-lovelace.txt"
            seed.write_text(seed.read_text().replace("Notes on the Analytical Engine", "Notes, revised,"))
            page.wait_for_function(
                "() => document.body.innerText.includes('Notes, revised,')", timeout=60_000
            )
    finally:
        serve.send_signal(signal.SIGINT)
        serve.communicate(timeout=30)

    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(lab, "init", "-q", "-b", "main")
    git(lab, "add", ".")
    git(lab, "commit", "-q", "-m", "Our lab")
    git(lab, "remote", "add", "origin", str(remote))
    run(lab, "deploy", "--quiet", "--strict")
    published = git(remote, "ls-tree", "-r", "--name-only", "gh-pages").split()
    assert "authors/charles-babbage/index.html" in published and ".nojekyll" in published


def test_the_workflow_build_step_for_a_project_site(tmp_path: Path) -> None:
    run(tmp_path, "new", "lab")
    lab = tmp_path / "lab"
    adopt_example(lab)
    workflow = yaml.safe_load((lab / ".github/workflows/pages.yml").read_text())
    steps = workflow["jobs"]["build"]["steps"]
    (build,) = [step for step in steps if step.get("name") == "Build"]
    (upload,) = [step for step in steps if step.get("uses", "").startswith("actions/upload-pages-artifact")]
    expressions = {
        "${{ steps.pages.outputs.base_url }}": f"https://{HOST}/lab",
        "${{ runner.temp }}": str(tmp_path),
    }

    def expanded(text: str) -> str:
        for expression, value in expressions.items():
            text = text.replace(expression, value)
        return text

    env = {key: expanded(value) for key, value in build["env"].items()}
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"  # `python` is this interpreter
    subprocess.run(
        ["bash", "-c", expanded(build["run"])],
        cwd=lab,
        check=True,
        env={**os.environ, **env, "PATH": path},
        capture_output=True,
    )
    site = Path(expanded(upload["with"]["path"]))  # what the workflow uploads
    assert site != lab / "site" and not (site / ".scholarsite-manifest.json").exists()
    assert f"https://{HOST}/lab/authors/ada-lovelace/" in (site / "sitemap.xml").read_text()
    assert any(site.rglob("*.xml")) and (site / "feed.xml").is_file()
    with pages_server(site) as port, open_browser(f"--host-resolver-rules=MAP {HOST} 127.0.0.1") as browser:
        page = browser.new_page()
        response = page.goto(f"http://{HOST}:{port}/lab/papers/2099/nope/")
        assert response is not None and response.status == 404
        hrefs = page.eval_on_selector_all(".index-links a", "links => links.map(a => a.href)")
        assert hrefs and all(h.startswith(f"https://{HOST}/lab/") for h in hrefs)
