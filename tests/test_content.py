"""Hand-written pages: front matter checks, Markdown with protected math, author profiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.inputs.content import read_pages
from scholarsite.inputs.markdown_html import markdown_to_html
from scholarsite.inputs.project import load_project
from scholarsite.inputs.text import decode

from .conftest import make_project


def write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")


def test_markdown_keeps_math_intact() -> None:
    html = markdown_to_html("Energy $E_{k}=m_1 c^2 \\cdot x_2$ and *emphasis* and \\$5.")
    assert "<math" in html and "<em>emphasis</em>" in html
    assert "<msub>" in html  # underscores reached the TeX converter, not Markdown
    assert "$5" in html


def test_double_quoted_tex_in_front_matter_warns_about_the_tab(tmp_path: Path) -> None:
    write(tmp_path, "about.md", '---\ntitle: "About \\textit{us}"\n---\nBody\n')
    pages, _, problems = read_pages(tmp_path, "content")
    assert [(p.path, p.line, p.severity.value) for p in problems] == [("content/about.md", 2, "warning")]
    assert "single quotes" in problems[0].hint
    assert pages[0].title.startswith("About \t")


def test_front_matter_errors_name_the_line(tmp_path: Path) -> None:
    write(
        tmp_path / "authors",
        "ada.md",
        "---\naffiliation: Analytical Society\nhomepage: not a url\norcid: 1234\ncolor: red\n---\n",
    )
    _, authors, problems = read_pages(tmp_path, "content")
    assert authors == []
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [
        (3, "'homepage' must be an http(s) URL, found 'not a url'"),
        (4, "'orcid' must be text, found 1234"),
        (5, "unknown front matter key 'color'"),
    ]


def test_author_profile_appears_on_the_author_page(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    write(
        project / "content/authors",
        "ziheng-jiang.md",
        "---\naffiliation: Example Lab\nhomepage: https://example.org/zj\norcid: 0000-0002-1825-0097\n---\n"
        "Works on *distributed* training; cost $O(n^2)$.\n",
    )
    pipeline.build(project)
    html = (project / "site/authors/ziheng-jiang/index.html").read_text()
    assert "<dd>Example Lab</dd>" in html
    assert 'href="https://orcid.org/0000-0002-1825-0097"' in html
    assert "<em>distributed</em>" in html and "<math" in html
    assert '"sameAs":["https://example.org/zj","https://orcid.org/0000-0002-1825-0097"]' in html


def test_content_page_becomes_a_page_with_a_nav_link(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    write(project / "content", "team.md", "---\ntitle: Our team\n---\n# Hello\n")
    pipeline.build(project)
    assert "<h1>Hello</h1>" in (project / "site/team/index.html").read_text()
    assert '<a href="team/">Our team</a>' in (project / "site/index.html").read_text()


def test_control_characters_in_a_page_are_removed_with_a_warning(tmp_path: Path) -> None:
    write(tmp_path, "about.md", "---\ntitle: About\n---\nBody \x1b[31mred\x00\n")
    pages, _, problems = read_pages(tmp_path, "content")
    assert [(p.line, p.message) for p in problems] == [(4, "removed control character(s) U+0000, U+001B")]
    assert "\x1b" not in pages[0].body and "[31mred" in pages[0].body


def test_every_control_character_is_found_past_the_look_at_the_bytes() -> None:
    """`decode` searches the text only when its bytes could hold a control character: every
    one of them (C0, DEL, C1) is still removed with its warning, and other text is kept."""
    for code in [*range(0x20), *range(0x7F, 0xA0)]:
        char = chr(code)
        text, problems = decode(f"é ©\u2028 a{char}b\n".encode(), "x.md")
        if char in "\t\n\r":
            assert text == f"é ©\u2028 a{char}b\n" and not problems
        else:
            assert text == "é ©\u2028 ab\n" and [p.line for p in problems] == [1]


def test_control_characters_escaped_in_front_matter_are_an_error(tmp_path: Path) -> None:
    write(tmp_path, "about.md", '---\ntitle: "About\\x1b[2J"\n---\nBody\n')
    pages, _, problems = read_pages(tmp_path, "content")
    assert pages == []
    assert [(p.line, p.severity.value) for p in problems] == [(2, "error")]
    assert "control characters" in problems[0].message


def test_control_characters_in_site_yaml(tmp_path: Path) -> None:
    make_project(tmp_path)
    (tmp_path / "site.yaml").write_text('title: "Lab\\x07"\n# bell\x07\n', encoding="utf-8")
    problems = [(d.path, d.line, d.severity.value) for d in load_project(tmp_path).diagnostics]
    assert ("site.yaml", 1, "error") in problems and ("site.yaml", 2, "warning") in problems


def test_an_orcid_with_a_wrong_checksum_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "authors", "ada.md", "---\norcid: 0000-0002-1825-0098\n---\n")
    _, authors, problems = read_pages(tmp_path, "content")
    assert authors == [] and [(p.line, p.severity.value) for p in problems] == [(2, "error")]
    assert "checksum" in problems[0].hint
    write(tmp_path / "authors", "ada.md", "---\norcid: 0000-0002-1694-233X\n---\n")
    assert read_pages(tmp_path, "content")[2] == []


def test_a_page_the_memo_holds_is_not_rendered_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from scholarsite.inputs import markdown_html
    from scholarsite.inputs.memo import Memo

    write(tmp_path, "about.md", "# About\n\nMath $x_1$ and <script>alert(1)</script> *here*.\n")
    memo = Memo(tmp_path / "derived.sqlite")
    rendered = read_pages(tmp_path, "content", memo=memo)
    memo.save()

    def fails(source: str, trusted: bool = False) -> None:
        raise AssertionError("rendered again")

    monkeypatch.setattr(markdown_html, "render_markdown", fails)
    again = read_pages(tmp_path, "content", memo=Memo(tmp_path / "derived.sqlite"))
    assert again == rendered  # the body and the warning of what cleaning dropped
    assert [p.message for p in again[2]] == ["raw HTML <script> dropped"]
    with pytest.raises(AssertionError, match="rendered again"):  # raw HTML kept: rendered anew
        read_pages(tmp_path, "content", trusted=True, memo=Memo(tmp_path / "derived.sqlite"))
