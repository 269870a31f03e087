"""`scholarsite link-sources` against a local stand-in for the arXiv API (no internet needed).

The stand-in answers from Atom files in tests/data/arxiv/, written after the API's user manual
(https://info.arxiv.org/help/api/user-manual.html), or from feeds generated here; one test,
marked `network`, asks the real API when it can be reached.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

import pytest

from scholarsite import cli
from scholarsite.inputs import sources_cache, sources_reuse
from scholarsite.inputs.sources import SOURCES_FILE, load_sources, read_sources
from scholarsite.inputs.sources_cache import SOURCES_CACHE, read_sources_kept
from scholarsite.sources import client as arxiv_client
from scholarsite.sources import link
from scholarsite.sources.client import Record
from scholarsite.sources.matching import THRESHOLD, Wanted, match, title_score
from scholarsite.tex.render import tex_to_plain
from tests.conftest import ROOT, make_project

DATA = Path(__file__).resolve().parent / "data"
FEEDS = DATA / "arxiv"
SHIPPED_FIXTURE = DATA / "sources-shipped.yaml"
FIXED_DAY = datetime.date(2026, 7, 1)

COMET = "Comet: Fine-grained Computation-communication Overlapping for Mixture-of-Experts"
TEX = r"Scaling $\mathcal{O}(n)$ Attention with \emph{Linear} Memory"
NEAR = "Sparse Mixture of Experts for Graph Learning"
ABSENT = "Quantum Memory in Thin Films"
BY_HAND = "A Paper Set By Hand"
LOCKED = "A Locked Paper"
RECORDS = (
    (2025, COMET, "cs.DC"),
    (2024, TEX, "cs.LG"),
    (2024, NEAR, "cs.LG"),
    (2023, ABSENT, "quant-ph"),
    (2023, BY_HAND, "cs.DC"),
    (2022, LOCKED, "cs.DC"),
)


def seed_text() -> str:
    """One seed listing every paper the scenarios need."""
    blocks = ["Ada Lovelace", "Publications and source records attributed to Ada Lovelace.", "6 records"]
    for year, title, subject in RECORDS:
        blocks += [f"arXiv{year}", title, f"An abstract of {title}.", f"{subject}↗"]
    return "\n\n".join(blocks) + "\n"


def query(title: str) -> str:
    """The search query link-sources sends for a title."""
    return f'ti:"{tex_to_plain(title)}"'


def feed_file(name: str, status: int = 200) -> tuple[int, bytes]:
    """An answer read from tests/data/arxiv/."""
    return status, (FEEDS / name).read_bytes()


ERROR = b"<html><body>Rate exceeded.</body></html>"


@dataclass
class Script:
    """Answers by query (`ti:"..."` or `id:2301.00001`), used in turn, the last one repeated;
    an unknown query gets an empty feed. Records every request's query and User-Agent."""

    answers: dict[str, list[tuple[int, bytes]]] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)

    def answer(self, path: str, agent: str) -> tuple[int, bytes]:
        """The status and body for a request."""
        params = parse_qs(urlsplit(path).query)
        asked = params.get("search_query", [""])[0] or "id:" + params.get("id_list", [""])[0]
        self.requests.append((asked, agent))
        queue = self.answers.get(asked) or [feed_file("empty.xml")]
        return queue.pop(0) if len(queue) > 1 else queue[0]

    def asked(self) -> list[str]:
        """The queries received, in order."""
        return [q for q, _ in self.requests]


class Handler(BaseHTTPRequestHandler):
    """The stand-in API: GET /api/query?... answered by the server's script."""

    def do_GET(self) -> None:
        status, body = self.server.script.answer(self.path, self.headers.get("User-Agent", ""))  # type: ignore[attr-defined]
        self.send_response(status)
        self.send_header("Content-Type", "application/atom+xml; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
        """Quiet."""


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> Iterator[Script]:
    """A running stand-in server (its URL in SCHOLARSITE_ARXIV_API) and its script; no delay."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.script = Script()  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv(arxiv_client.API_VARIABLE, f"http://127.0.0.1:{server.server_address[1]}/api/query")
    monkeypatch.setenv(arxiv_client.DELAY_VARIABLE, "0")
    monkeypatch.setattr(link, "today", lambda: FIXED_DAY)
    yield server.script  # type: ignore[attr-defined]
    server.shutdown()
    server.server_close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose one seed lists the scenario papers."""
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "ada.txt").write_text(seed_text(), encoding="utf-8")
    (tmp_path / "site.yaml").write_text("title: Test records\n", encoding="utf-8")
    return tmp_path


def key_of(project: Path, title: str) -> str:
    """The paper key of a title."""
    return next(key for key, paper in link.papers_of(project).items() if paper.title == title)


def run(project: Path, *options: str) -> int:
    """`scholarsite link-sources` on the project, asking arXiv only (OpenAlex has its own
    tests: test_link_openalex.py); its exit code."""
    return cli.main(["--project", str(project), "link-sources", "--source", "arxiv", *options])


def entries(project: Path) -> dict:
    """sources.yaml's entries by title (it must load without problems)."""
    loaded, problems = load_sources(project)
    assert problems == []
    return {entry.title: entry for entry in loaded.values()}


def only(project: Path, *titles: str) -> list[str]:
    """`--only KEY` options for titles."""
    return [word for title in titles for word in ("--only", key_of(project, title))]


def test_found_fills_every_field(project: Path, script: Script) -> None:
    script.answers[query(COMET)] = [feed_file("comet.xml")]
    assert run(project, *only(project, COMET)) == 0
    entry = entries(project)[COMET]
    assert entry.status == "found" and entry.checked == FIXED_DAY.isoformat()
    assert (entry.arxiv_id, entry.version) == ("2502.19811", 2)
    assert entry.doi == "10.48550/example.2502.19811"
    assert entry.journal_ref == "Proceedings of MLSys 2025"
    assert (entry.primary_category, entry.published, entry.updated) == ("cs.DC", "2025-02-27", "2025-03-04")
    assert entry.authors[:4] == ("Shulai Zhang", "Ningxin Zheng", "Haibin Lin", "Ziheng Jiang")
    assert len(entry.authors) == 7


def test_user_agent_names_the_tool(project: Path, script: Script) -> None:
    run(project, *only(project, COMET))
    agent = script.requests[0][1]
    assert agent.startswith("scholarsite/") and agent.endswith("(+link-sources)")


def test_empty_first_page_is_unknown_not_not_found(project: Path, script: Script) -> None:
    assert run(project, *only(project, ABSENT)) == 0
    assert entries(project)[ABSENT].status == "unknown"
    assert script.asked() == [query(ABSENT)] * 2  # asked once more


def test_empty_first_page_then_an_answer(project: Path, script: Script) -> None:
    script.answers[query(COMET)] = [feed_file("empty.xml"), feed_file("comet.xml")]
    run(project, *only(project, COMET))
    assert entries(project)[COMET].status == "found"


def test_429_then_success(project: Path, script: Script) -> None:
    script.answers[query(COMET)] = [(429, ERROR), feed_file("comet.xml")]
    assert run(project, *only(project, COMET)) == 0
    assert entries(project)[COMET].arxiv_id == "2502.19811"
    assert len(script.requests) == 2


def test_503_throughout_is_unknown(project: Path, script: Script) -> None:
    script.answers[query(COMET)] = [(503, ERROR)]
    assert run(project, *only(project, COMET)) == 0
    assert entries(project)[COMET].status == "unknown"
    assert len(script.requests) == arxiv_client.RETRIES + 1


def test_near_titles_are_ambiguous_with_candidates(
    project: Path, script: Script, capsys: pytest.CaptureFixture[str]
) -> None:
    script.answers[query(NEAR)] = [feed_file("near-titles.xml")]
    run(project, *only(project, NEAR))
    entry = entries(project)[NEAR]
    assert entry.status == "ambiguous" and entry.arxiv_id == ""
    assert [c.arxiv_id for c in entry.candidates] == ["2403.01234", "2405.04321"]
    assert entry.candidates[1].title == "Sparse Mixture-of-Experts for Graph Learning"
    assert entry.candidates[0].published == "2024-03-02"
    assert f"ambiguous: {key_of(project, NEAR)}" in capsys.readouterr().out


def test_a_title_with_tex_is_searched_as_plain_text(project: Path, script: Script) -> None:
    script.answers[query(TEX)] = [feed_file("tex-title.xml")]
    run(project, *only(project, TEX))
    assert script.asked() == ['ti:"Scaling O(n) Attention with Linear Memory"']
    entry = entries(project)[TEX]
    assert (entry.status, entry.arxiv_id, entry.version) == ("found", "2410.05555", 3)
    assert entry.title == TEX  # the collection's title, for review


def write_sources(project: Path, text: str) -> None:
    """A hand-written sources.yaml."""
    (project / SOURCES_FILE).write_text(text, encoding="utf-8")


def test_hand_set_id_is_fetched_by_id_and_kept(project: Path, script: Script) -> None:
    write_sources(
        project, f"papers:\n  {key_of(project, BY_HAND)}:\n    status: unknown\n    arxiv_id: 2301.00001\n"
    )
    script.answers["id:2301.00001"] = [feed_file("by-id.xml")]
    run(project, "--only", key_of(project, BY_HAND))
    assert script.asked() == ["id:2301.00001"]
    entry = entries(project)[BY_HAND]
    assert (entry.status, entry.arxiv_id, entry.published) == ("found", "2301.00001", "2023-01-02")
    assert entry.authors == ("Ada Lovelace", "Emmy Noether")


def test_locked_entry_is_untouched(project: Path, script: Script) -> None:
    locked = (
        f"  {key_of(project, LOCKED)}:\n    status: not-found\n    checked: 2001-01-01\n    locked: true\n"
    )
    write_sources(project, "papers:\n" + locked)
    run(project, "--only", key_of(project, LOCKED))
    assert script.requests == []
    run(project)
    assert query(LOCKED) not in script.asked()
    kept = entries(project)[""]  # the hand-written entry has no title
    assert (kept.status, kept.checked, kept.locked) == ("not-found", "2001-01-01", True)


def answer_all(script: Script) -> None:
    """Answers for every scenario paper but the absent one."""
    script.answers.update(
        {
            query(COMET): [feed_file("comet.xml")],
            query(TEX): [feed_file("tex-title.xml")],
            query(NEAR): [feed_file("near-titles.xml")],
        }
    )


def test_rerun_looks_up_only_what_is_missing_or_old(project: Path, script: Script) -> None:
    answer_all(script)
    assert run(project) == 0
    first = entries(project)
    assert {first[t].status for t in (COMET, TEX)} == {"found"}
    unknown = {query(title) for title in (ABSENT, BY_HAND, LOCKED)}  # no answers for these
    assert {first[t].status for t in (ABSENT, BY_HAND, LOCKED)} == {"unknown"}
    script.requests.clear()
    run(project)
    assert set(script.asked()) == unknown
    loaded, _ = load_sources(project)
    comet = key_of(project, COMET)
    loaded[comet] = dataclasses.replace(loaded[comet], checked=str(FIXED_DAY - datetime.timedelta(days=181)))
    link.save(project, loaded)
    script.requests.clear()
    run(project, "--max-age", "365")
    assert "id:2502.19811" not in script.asked()
    script.requests.clear()
    run(project)
    assert "id:2410.05555" not in script.asked() and query(COMET) not in script.asked()
    assert "id:2502.19811" in script.asked()  # a found entry is checked again by its id


def unread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the quick reader's full read and the changed file's walk fail the test: only a
    cache hit reads sources.yaml."""
    for module, name in ((sources_cache, "sources_of"), (sources_reuse, "reused_sources")):
        monkeypatch.setattr(module, name, lambda *args, name=name: pytest.fail(f"{name} ran"))


def test_the_next_build_takes_the_written_file_from_the_cache(
    project: Path, script: Script, monkeypatch: pytest.MonkeyPatch
) -> None:
    """link-sources leaves the signed cache of the file it wrote, the first time and after
    a run that added entries: the next read is a hit, equal to a read of the file."""
    answer_all(script)
    for options in (only(project, COMET), []):
        assert run(project, *options) == 0
        expected = read_sources(project)
        with monkeypatch.context() as patched:
            unread(patched)
            assert read_sources_kept(project, project / SOURCES_CACHE) == expected
        assert (project / SOURCES_CACHE).with_suffix(".signed").is_file()


def test_limit_and_only(project: Path, script: Script) -> None:
    answer_all(script)
    run(project, "--limit", "2")
    assert len(entries(project)) == 2
    assert len(set(script.asked())) == 2
    script.requests.clear()
    run(project, *only(project, COMET, NEAR))
    assert sorted(set(script.asked())) == sorted({query(COMET), query(NEAR)})


def test_only_an_unknown_key_is_an_error(
    project: Path, script: Script, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(project, "--only", "2025/comet fine grained") == 1
    assert "no paper has the key" in capsys.readouterr().err
    assert not (project / SOURCES_FILE).exists()


def test_interrupted_run_keeps_the_first_lookup(
    project: Path, script: Script, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer_all(script)
    real = arxiv_client.ArxivClient.search_title
    calls = []

    def interrupted(self: arxiv_client.ArxivClient, title: str) -> list[Record]:
        calls.append(title)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return real(self, title)

    monkeypatch.setattr(arxiv_client.ArxivClient, "search_title", interrupted)
    assert run(project, *only(project, COMET, NEAR)) == cli.INTERRUPTED
    kept = entries(project)
    assert list(kept) == [NEAR] and kept[NEAR].status == "ambiguous"  # keys in order: 2024 first
    assert not list(project.glob(".sources-*"))


def test_unreachable_api_is_one_line(
    project: Path, script: Script, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert run(project, "--api-url", f"http://127.0.0.1:{port}/api/query") == 1
    err = capsys.readouterr().err
    assert err.startswith("error: arXiv given up: cannot reach the arXiv API") and err.count("\n") == 1


def test_bad_sources_file_is_not_overwritten(project: Path, script: Script) -> None:
    write_sources(project, "papers:\n  x:\n    status: maybe\n")
    assert run(project) == 1
    assert script.requests == []
    assert "maybe" in (project / SOURCES_FILE).read_text()


def test_delay_defaults_to_three_seconds_and_never_less_against_arxiv(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(arxiv_client.DELAY_VARIABLE, raising=False)
    monkeypatch.delenv(arxiv_client.API_VARIABLE, raising=False)
    assert arxiv_client.ArxivClient().delay == 3.0
    assert arxiv_client.ArxivClient(delay=0).delay == 3.0
    assert arxiv_client.ArxivClient("http://127.0.0.1:9/api/query", delay=0).delay == 0.0


def record(arxiv_id: str, title: str, published: str, categories: tuple[str, ...] = ("cs.LG",)) -> Record:
    """A record for matching tests."""
    return Record(arxiv_id, 1, title, (), "", "", categories[0], categories, published, published)


def test_matching_rule() -> None:
    wanted = Wanted("Sparse Mixture of Experts for Graph Learning", 2024, frozenset({"cs.LG"}))
    same = record("2403.01234", "Sparse mixture-of-experts for graph learning", "2024-03-02")
    assert match(wanted, [same]).status == "found"
    assert match(wanted, [record("2103.01234", same.title, "2021-03-02")]).status == "not-found"  # year
    assert match(wanted, [record("2501.00001", same.title, "2025-01-02")]).status == "found"  # within one
    assert title_score(wanted.title, "Dense Experts for Graph Learning at Scale") < THRESHOLD
    other_subject = record("2405.04321", same.title, "2024-05-07", ("math.CO",))
    assert match(wanted, [same, other_subject]).record == same  # subjects break the tie
    assert match(wanted, [same, record("2405.04321", same.title, "2024-05-07")]).status == "ambiguous"


# The shipped seeds, every paper found: the fixture tests/data/sources-shipped.yaml.

COAUTHORS = (
    "Wei Chen",
    "Maria Garcia",
    "Yuki Tanaka",
    "Olusegun Adeyemi",
    "Priya Raman",
    "Lukas Becker",
    "Hannah Kim",
    "Tomás Silva",
)


def shipped_entry(number: int, paper: object) -> str:
    """An Atom <entry> for the shipped paper numbered `number` (deterministic invented data)."""
    year, title = paper.year, tex_to_plain(paper.title)  # type: ignore[attr-defined]
    arxiv_id, version = f"{year % 100:02d}01.{number:05d}", 1 + number % 3
    mine = [a.name for a in paper.authors]  # type: ignore[attr-defined]
    authors = [COAUTHORS[number % 8], *mine, COAUTHORS[(number + 3) % 8], COAUTHORS[(number + 5) % 8]]
    subjects = [s.code for s in paper.subjects]  # type: ignore[attr-defined]
    pdf = f"http://arxiv.org/pdf/{arxiv_id}v{version}"
    extras = ""
    if number % 3 == 0:
        extras += f"<arxiv:doi>10.5555/example.{arxiv_id}</arxiv:doi>\n"
    if number % 2 == 0:
        extras += f"<arxiv:journal_ref>Proceedings of an Example Conference {year}</arxiv:journal_ref>\n"
    return (
        f"<entry>\n<id>http://arxiv.org/abs/{arxiv_id}v{version}</id>\n"
        f"<updated>{year}-02-{number % 28 + 1:02d}T12:00:00Z</updated>\n"
        f"<published>{year}-01-{number % 28 + 1:02d}T09:00:00Z</published>\n"
        f"<title>{escape(title)}</title>\n<summary>An abstract.</summary>\n"
        + "".join(f"<author><name>{escape(name)}</name></author>\n" for name in authors)
        + extras
        + f'<link href="http://arxiv.org/abs/{arxiv_id}v{version}" rel="alternate" type="text/html"/>\n'
        f'<link title="pdf" href="{pdf}" rel="related" type="application/pdf"/>\n'
        f'<arxiv:primary_category term="{subjects[0]}" scheme="http://arxiv.org/schemas/atom"/>\n'
        + "".join(f'<category term="{code}" scheme="http://arxiv.org/schemas/atom"/>\n' for code in subjects)
        + "</entry>\n"
    )


def feed_of(entry: str) -> bytes:
    """A one-entry Atom feed as the API answers it."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom"'
        ' xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">\n'
        "<title>ArXiv Query</title>\n<id>http://arxiv.org/api/stand-in</id>\n"
        "<updated>2026-07-01T00:00:00-04:00</updated>\n"
        "<opensearch:totalResults>1</opensearch:totalResults>\n"
        "<opensearch:startIndex>0</opensearch:startIndex>\n"
        "<opensearch:itemsPerPage>10</opensearch:itemsPerPage>\n" + entry + "</feed>\n"
    ).encode()


def test_shipped_seeds_are_all_found(tmp_path: Path, script: Script) -> None:
    project = make_project(tmp_path / "shipped", seeds=ROOT / "seeds")
    papers = link.papers_of(project)
    for number, key in enumerate(sorted(papers), start=1):
        script.answers[query(papers[key].title)] = [(200, feed_of(shipped_entry(number, papers[key])))]
    assert run(project) == 0
    loaded, problems = load_sources(project)
    assert problems == [] and set(loaded) == set(papers)
    assert {entry.status for entry in loaded.values()} == {"found"}
    for key, entry in loaded.items():
        assert {a.name for a in papers[key].authors} <= set(entry.authors)
    text = (project / SOURCES_FILE).read_text(encoding="utf-8")
    if not SHIPPED_FIXTURE.exists() or regenerating():
        SHIPPED_FIXTURE.write_text(text, encoding="utf-8")
    assert SHIPPED_FIXTURE.read_text(encoding="utf-8") == text


def regenerating() -> bool:
    """SCHOLARSITE_REGENERATE=1 rewrites the fixture (after the shipped seeds changed)."""
    return os.environ.get("SCHOLARSITE_REGENERATE") == "1"


@pytest.mark.network
def test_real_api_finds_a_known_paper(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        socket.create_connection(("export.arxiv.org", 443), timeout=3).close()
    except OSError:
        pytest.skip("no network: export.arxiv.org cannot be reached")
    monkeypatch.delenv(arxiv_client.API_VARIABLE, raising=False)
    assert run(project, *only(project, COMET)) == 0
    entry = entries(project)[COMET]
    assert entry.status in ("found", "unknown")  # unknown when the API is having a bad day
    if entry.status == "found":
        assert entry.arxiv_id == "2502.19811"
