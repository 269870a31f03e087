"""Settings of YAML texts kept in the memo: the same settings as a fresh read, PyYAML not loaded
for a text read before, and a text JSON would not give back as it is read each time."""

from __future__ import annotations

import datetime
import subprocess
import sys
from pathlib import Path

import pytest

from scholarsite.errors import BuildError
from scholarsite.inputs import yamlsettings
from scholarsite.inputs.memo import Memo
from scholarsite.inputs.setting import Setting
from scholarsite.inputs.yamlmap import read_settings
from scholarsite.inputs.yamlsettings import remembered_settings

ROOT = Path(__file__).resolve().parent.parent
SITE = "title: A site\npapers_per_page: 20\nratio: 0.5\nportable: true\nnote: null\nlinks:\n  a: [1, 2]\n"


def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts `yamlsettings` asks the YAML reader for, from now on."""
    asked: list[str] = []

    def reading(text: str, path: str, first_line: int = 1) -> list[Setting]:
        asked.append(text)
        return read_settings(text, path, first_line)

    monkeypatch.setattr(yamlsettings, "read_settings", reading)
    return asked


def test_a_text_read_before_comes_from_the_memo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memo = Memo(tmp_path / "derived.sqlite")
    asked = counted(monkeypatch)
    first = remembered_settings(SITE, "site.yaml", memo, first_line=2)
    memo.save()
    again = remembered_settings(SITE, "site.yaml", Memo(tmp_path / "derived.sqlite"), first_line=2)
    assert first == again == read_settings(SITE, "site.yaml", first_line=2)
    assert [type(value) for _, value, _ in again] == [str, int, float, bool, type(None), dict]
    assert asked == [SITE]
    assert remembered_settings(SITE, "site.yaml", memo) == read_settings(SITE, "site.yaml")  # lines differ
    assert asked == [SITE, SITE]


@pytest.mark.parametrize(
    "text",
    [
        "date: 2024-01-02\n",  # JSON has no dates
        "counts:\n  1: one\n",  # a key that is not text
        "a:\n  b: &shared [1]\n  c: *shared\n",  # one list in two places of a value
    ],
)
def test_settings_json_would_change_are_read_each_time(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    memo = Memo()
    asked = counted(monkeypatch)
    assert remembered_settings(text, "page.md", memo) == read_settings(text, "page.md")
    assert remembered_settings(text, "page.md", memo) == read_settings(text, "page.md")
    assert asked == [text, text]
    date = remembered_settings("date: 2024-01-02\n", "page.md", memo)[0].value
    assert type(date) is datetime.date


def test_problems_are_reported_each_time() -> None:
    memo = Memo()
    for _ in range(2):
        with pytest.raises(BuildError) as raised:
            remembered_settings("title: a\ntitle: b\n", "site.yaml", memo)
        assert raised.value.diagnostics[0].line == 2


def test_a_build_with_site_yaml_unchanged_does_not_load_yaml(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "content").mkdir(parents=True)
    (project / "site.yaml").write_text("title: Unchanged\n", encoding="utf-8")
    (project / "content" / "about.md").write_text("---\ntitle: About\n---\nText.\n", encoding="utf-8")
    probe = (
        "import sys; from pathlib import Path; from scholarsite.inputs.memo import Memo;"
        "from scholarsite.inputs.project import load_project;"
        f"memo = Memo(Path({str(project)!r}) / 'derived.sqlite');"
        f"load_project(Path({str(project)!r}), memo=memo); memo.save();"
        "print('yaml' in sys.modules)"
    )
    runs = [
        subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    assert [run.stdout.split()[-1] for run in runs] == ["True", "False"]
