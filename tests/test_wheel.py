"""The package installs on its own: the wheel built from this checkout carries the theme, the
starter project and the data, and in a fresh virtual environment (outside the checkout)
`new`, `build` and `serve` work from it alone.

The venv sees the machine's site packages for the dependencies (so the test needs no
network), but scholarsite itself is imported from the wheel installed into it, as checked.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

from scholarsite import __version__

from .conftest import ROOT, wait_for_port

SHIPPED = (
    "scholarsite/theme/templates/base.html",
    "scholarsite/theme/templates/partials/macros.html",
    "scholarsite/theme/assets/style.css",
    "scholarsite/commands/starter/site.yaml",
    "scholarsite/commands/starter/workflows/pages.yml",
    "scholarsite/commands/starter/content/index.md",
    "scholarsite/inputs/data/arxiv_taxonomy.json",
    "scholarsite/inputs/data/example-seed.txt",
)


def without_pythonpath() -> dict[str, str]:
    """The environment without PYTHONPATH: nothing imported from the checkout (where `build`
    would even be its build.py)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built without network (no build isolation)."""
    if shutil.which("pyproject-build") is None:
        pytest.fail("the `build` package is needed (it is in the test extra)")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        ["pyproject-build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
        cwd=out,
        env=without_pythonpath(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (built,) = out.glob("scholarsite-*.whl")
    return built


def test_the_wheel_carries_the_theme_starter_and_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [name for name in SHIPPED if name not in names]
    assert not missing
    templates = {p.relative_to(ROOT / "templates").as_posix() for p in (ROOT / "templates").rglob("*.html")}
    assert {f"scholarsite/theme/templates/{t}" for t in templates} <= names
    assert not any(name.startswith(("tests/", "tools/", "benchmarks/")) for name in names)


def free_port() -> int:
    """A port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_new_build_and_serve_from_the_wheel_in_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python, program = venv / "bin/python", venv / "bin/scholarsite"
    env = without_pythonpath()
    install = ["-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed", "--quiet", str(wheel)]
    subprocess.run([str(python), *install], env=env, check=True, timeout=300)
    imported = subprocess.run(
        [str(python), "-c", "import scholarsite; print(scholarsite.__file__, scholarsite.__version__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert imported.returncode == 0, imported.stderr
    where = imported.stdout.split()
    assert Path(where[0]).is_relative_to(venv) and where[1] == __version__

    def scholarsite(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(program), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
        )

    made = scholarsite("new", "lab", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    lab = tmp_path / "lab"
    workflow = (lab / ".github/workflows/pages.yml").read_text(encoding="utf-8")
    assert f'"scholarsite=={__version__}"' in workflow
    built = scholarsite("build", cwd=lab)
    assert built.returncode == 0, built.stderr
    assert (lab / "site/index.html").is_file() and (lab / "site/assets/style.css").is_file()
    assert "the site is in site/" in built.stderr
    port = free_port()
    server = subprocess.Popen(
        [str(program), "serve", "--port", str(port)],
        cwd=lab,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_port(port)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as answer:
            assert answer.status == 200 and b"<html" in answer.read()
    finally:
        server.terminate()
        server.wait(timeout=30)
