"""The command line: summaries, exit codes, JSON, and no traceback whatever the input."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from scholarsite import cli

from .conftest import ROOT, make_project, start_preview


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`python build.py ARGS` as a user runs it."""
    return subprocess.run(
        [sys.executable, str(ROOT / "build.py"), *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_check_on_shipped_seeds() -> None:
    done = run("check")
    assert done.returncode == 0
    assert done.stdout.strip() == (
        "2 authors, 36 records, 30 distinct papers, 6 shared papers, 8 subjects, "
        "8 years (2019-2026); 0 errors, 0 warnings"
    )


def test_check_json_and_strict_agree_on_shipped_seeds() -> None:
    done = run("check", "--json", "--strict")
    report = json.loads(done.stdout)
    assert done.returncode == 0
    assert {
        k: report[k]
        for k in (
            "authors",
            "records",
            "papers",
            "shared_papers",
            "subjects",
            "years",
            "first_year",
            "last_year",
            "errors",
            "warnings",
        )
    } == {
        "authors": 2,
        "records": 36,
        "papers": 30,
        "shared_papers": 6,
        "subjects": 8,
        "years": 8,
        "first_year": 2019,
        "last_year": 2026,
        "errors": 0,
        "warnings": 0,
    }
    assert report["ok"] is True


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "p")


def test_warnings_pass_unless_strict(project: Path) -> None:
    seed = project / "seeds/001_195b1e5c39d23b83.txt"
    seed.write_text(seed.read_text().replace("18 records", "17 records"))
    assert run("--project", str(project), "check").returncode == 0
    strict = run("--project", str(project), "check", "--strict")
    assert strict.returncode == 1
    assert (
        "seeds/001_195b1e5c39d23b83.txt:7: warning: the count line claims 17 records, but 18 are listed"
        in strict.stderr
    )
    assert run("--project", str(project), "--strict").returncode == 1
    assert not (project / "site").exists()


def test_an_unchanged_rebuild_still_reports_warnings_and_fails_strict(project: Path) -> None:
    seed = project / "seeds/001_195b1e5c39d23b83.txt"
    seed.write_text(seed.read_text().replace("18 records", "17 records"))
    assert run("--project", str(project)).returncode == 0
    again = run("--project", str(project))  # same inputs: answered without building
    assert again.returncode == 0 and "0 written" in again.stdout
    assert "warning: the count line claims 17 records" in again.stderr
    assert run("--project", str(project), "--strict").returncode == 1


def test_errors_of_all_files_reported_sorted_with_exit_1(project: Path) -> None:
    (project / "seeds/b.txt").write_bytes(b"arXiv subjects\n\nB\n\n\xff\xfe\n")
    (project / "seeds/a.txt").write_text(
        "arXiv subjects\n\nA\n\n3 records\n\narXiv2999\n\nT\n\nAbs.\n\ncs.DC\n"
    )
    done = run("--project", str(project), "build")
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if ": error:" in line]
    assert lines == [
        "seeds/a.txt:7: error: impossible year 2999: expected a year from 1800 to "
        f"{__import__('datetime').date.today().year + 1}",
        "seeds/b.txt:5: error: not UTF-8: invalid byte 0xff at column 1",
    ]
    assert "site/ left unchanged" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (project / "site").exists()


def test_garbage_seed_gives_diagnostics_not_a_traceback(project: Path) -> None:
    (project / "seeds/zz.txt").write_bytes(bytes(range(256)) * 4)
    done = run("--project", str(project), "check")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "seeds/zz.txt:" in done.stderr


def test_bad_site_yaml_names_the_key_and_line(project: Path) -> None:
    (project / "site.yaml").write_text("title: X\ncolour: blue\npapers_per_page: many\n")
    done = run("--project", str(project), "build")
    assert done.returncode == 1
    assert "site.yaml:2: error: unknown setting 'colour'" in done.stderr
    assert "site.yaml:3: error: 'papers_per_page': expected a whole number" in done.stderr


def test_unknown_author_page_names_the_closest_slug(project: Path) -> None:
    (project / "content/authors").mkdir(exist_ok=True)
    (project / "content/authors/ziheng-jaing.md").write_text("---\naffiliation: X\n---\nBio.\n")
    done = run("--project", str(project), "build")
    assert done.returncode == 1
    assert "no author with the slug 'ziheng-jaing'" in done.stderr and "ziheng-jiang" in done.stderr


def test_build_prints_one_summary_line(project: Path) -> None:
    first = run("--project", str(project))
    assert first.returncode == 0
    summary = first.stdout.strip().splitlines()[-1]
    assert summary.startswith(tuple(f"{n} written, 0 unchanged, 0 removed in " for n in range(100, 1000)))
    second = run("--project", str(project), "build")
    assert " 0 written," in " " + second.stdout and " 0 removed " in second.stdout


def test_usage_error_exits_2() -> None:
    assert run("frobnicate").returncode == 2
    assert run("check", "--bogus").returncode == 2


def test_serve_on_a_busy_port_gives_a_hint_not_a_traceback(project: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = run("--project", str(project), "serve", "--port", str(port))
    assert done.returncode == 1
    assert f"port {port} on 127.0.0.1 is already in use" in done.stdout
    assert "--port" in done.stdout and "Traceback" not in done.stdout + done.stderr


def test_serve_stops_cleanly_on_ctrl_c(project: Path) -> None:
    process, port = start_preview(project)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 0
    assert "Traceback" not in output and f"http://127.0.0.1:{port}/" in output


def test_a_bug_in_scholarsite_is_a_traceback_with_a_request_to_report_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from scholarsite import pipeline

    project = make_project(tmp_path / "p")

    def broken(*args: object, **options: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(pipeline, "build", broken)
    assert cli.main(["--project", str(project), "build", "--quiet"]) == cli.BUG
    err = capsys.readouterr().err
    assert "Traceback" in err and "ZeroDivisionError: a bug" in err and "bug in scholarsite" in err


def test_an_os_error_is_a_message_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from scholarsite import pipeline

    project = make_project(tmp_path / "p")

    def denied(*args: object, **options: object) -> None:
        raise PermissionError(13, "Permission denied", str(project / "seeds"))

    monkeypatch.setattr(pipeline, "build", denied)
    assert cli.main(["--project", str(project), "build", "--quiet"]) == cli.FAILED
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Permission denied" in err


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_and_verbose_are_accepted_by_every_command_before_or_after_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    project = make_project(tmp_path / "p")

    def words(command: str, flag: str) -> list[str]:
        return [flag, command] if where == "before" else [command, flag]

    assert cli.main(["--project", str(project), *words("build", "--verbose")]) == cli.OK
    out, err = capsys.readouterr()
    assert "  site/index.html" in out and "note:" in err  # every file, and the notes
    (project / "seeds" / "000_428d720ed8b996c5.txt").touch()
    for command in ("build", "check"):
        assert cli.main(["--project", str(project), *words(command, "--quiet")]) == cli.OK
        out, err = capsys.readouterr()
        assert "note:" not in err and "site/index.html" not in out


def test_add_to_a_folder_that_is_no_project_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = make_project(tmp_path / "p") / "seeds"
    nowhere = tmp_path / "nowhere"
    assert cli.main(["--project", str(nowhere), "add", str(next(seed.iterdir()))]) == cli.FAILED
    assert "the seeds folder does not exist" in capsys.readouterr().err
    assert not nowhere.exists()  # nothing made where no project was
