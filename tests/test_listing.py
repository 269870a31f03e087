"""A folder's listing is kept while its mtime says no name changed, and only when that mtime
is old enough to say so."""

from __future__ import annotations

import os
import time
from pathlib import Path

from scholarsite.inputs.listing import SETTLED_NS, Name, sorted_names


def settle(folder: Path) -> None:
    """Date the folder's last change well before now."""
    past = time.time_ns() - 2 * SETTLED_NS
    os.utime(folder, ns=(past, past))


def test_a_settled_folder_is_listed_once_until_a_name_changes(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("b")
    (tmp_path / "a").mkdir()
    settle(tmp_path)
    first = sorted_names(tmp_path)
    assert first == (Name("a", True), Name("b.txt", False))
    (tmp_path / "b.txt").write_text("edited")  # contents are not names
    assert sorted_names(tmp_path) is first
    for change in (
        lambda: (tmp_path / "c.txt").write_text("c"),
        lambda: (tmp_path / "c.txt").rename(tmp_path / "d.txt"),
        lambda: (tmp_path / "d.txt").unlink(),
        lambda: (tmp_path / "a").rmdir() or (tmp_path / "a").write_text("a file now"),
    ):
        before = sorted_names(tmp_path)
        change()
        after = sorted_names(tmp_path)
        assert after == tuple(sorted(Name(e.name, e.is_dir()) for e in os.scandir(tmp_path)))
        assert after != before
        settle(tmp_path)


def test_a_folder_changed_lately_is_listed_every_time(tmp_path: Path) -> None:
    """Its mtime could stay the same through another change in the same clock tick."""
    (tmp_path / "a.txt").write_text("a")
    first = sorted_names(tmp_path)
    again = sorted_names(tmp_path)
    assert again == first and again is not first
