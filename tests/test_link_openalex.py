"""`scholarsite link-sources` asking OpenAlex, against the local stand-in (tests/openalex_standin.py,
answering from tests/data/openalex/); one test, marked `network`, asks the real API."""

from __future__ import annotations

import datetime
import socket
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from scholarsite import cli
from scholarsite.inputs.sources import SOURCES_FILE, load_sources
from scholarsite.sources import client as arxiv_client
from scholarsite.sources import link, openalex
from scholarsite.sources.polite import RETRIES
from tests.openalex_standin import StandIn, running
from tests.test_link_sources import Handler, Script, feed_file, query

FIXED_DAY = datetime.date(2026, 7, 1)
COMET = "Comet: Fine-grained Computation-communication Overlapping for Mixture-of-Experts"
PREPRINT = "A Preprint Only on arXiv"
ABSENT = "A Paper OpenAlex Does Not Know"
LOCKED = "A Locked Paper"
CHOSEN = "A Paper Whose Work Was Chosen By Hand"
NO_IDS = "A Paper Without Identifiers"
PAPERS = ((2025, COMET), (2025, PREPRINT), (2024, ABSENT), (2023, LOCKED), (2023, CHOSEN), (2022, NO_IDS))
DOWN = (503, b"<html>unavailable</html>")


def seed_text() -> str:
    """One seed listing the scenario papers."""
    blocks = ["Ada Lovelace", "Publications and source records attributed to Ada Lovelace.", "6 records"]
    for year, title in PAPERS:
        blocks += [f"arXiv{year}", title, f"An abstract of {title}.", "cs.DC↗"]
    return "\n\n".join(blocks) + "\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project listing the scenario papers, with a mailto in site.yaml."""
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "ada.txt").write_text(seed_text(), encoding="utf-8")
    (tmp_path / "site.yaml").write_text("title: Test records\nmailto: ada@example.org\n", encoding="utf-8")
    return tmp_path


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    """A running OpenAlex stand-in (its URL in SCHOLARSITE_OPENALEX_API); no delay."""
    monkeypatch.setenv(openalex.DELAY_VARIABLE, "0")
    monkeypatch.delenv(openalex.KEY_VARIABLE, raising=False)
    monkeypatch.setattr(link, "today", lambda: FIXED_DAY)
    with running() as server:
        monkeypatch.setenv(openalex.API_VARIABLE, server.url)
        yield server


@pytest.fixture
def arxiv(monkeypatch: pytest.MonkeyPatch) -> Iterator[Script]:
    """A running arXiv stand-in (tests/test_link_sources.py's), answering nothing by default."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.script = Script()  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    monkeypatch.setenv(arxiv_client.API_VARIABLE, f"http://127.0.0.1:{server.server_address[1]}/api/query")
    monkeypatch.setenv(arxiv_client.DELAY_VARIABLE, "0")
    yield server.script  # type: ignore[attr-defined]
    server.shutdown()
    server.server_close()


def keys(project: Path) -> dict[str, str]:
    """Paper keys by title."""
    return {paper.title: key for key, paper in link.papers_of(project).items()}


def write_sources(project: Path, entries: dict[str, str]) -> None:
    """A hand-written sources.yaml: YAML lines of each entry by title."""
    by_title = keys(project)
    body = "".join(
        f"  {by_title[title]}:\n" + "".join(f"    {line}\n" for line in text.strip().split("\n"))
        for title, text in entries.items()
    )
    (project / SOURCES_FILE).write_text("papers:\n" + body, encoding="utf-8")


FOUND_COMET = "status: found\nchecked: 2026-06-01\narxiv_id: 2502.19811\ndoi: 10.1145/3620666.3651379"
FOUND_PREPRINT = "status: found\nchecked: 2026-06-01\narxiv_id: 2502.19811\njournal_ref: Set by hand"


def scenario(project: Path) -> None:
    """Entries for every scenario paper."""
    write_sources(
        project,
        {
            COMET: FOUND_COMET,
            PREPRINT: FOUND_PREPRINT,
            ABSENT: "status: found\nchecked: 2026-06-01\narxiv_id: 2404.00001",
            LOCKED: "status: found\narxiv_id: 2502.19811\nlocked: true",
            CHOSEN: "status: not-found\nopenalex:\n  status: unknown\n  id: W2741809807",
            NO_IDS: "status: ambiguous\ncandidates:\n  - {arxiv_id: '2201.00001', title: X}",
        },
    )


def run(project: Path, *options: str) -> int:
    """`scholarsite link-sources --source openalex` on the project; its exit code."""
    return cli.main(["--project", str(project), "link-sources", "--source", "openalex", *options])


def entries(project: Path) -> dict:
    """sources.yaml's entries by title (it must load without problems)."""
    loaded, problems = load_sources(project)
    assert problems == []
    titles = {key: title for title, key in keys(project).items()}
    return {titles[key]: entry for key, entry in loaded.items()}


def test_found_records_every_figure(project: Path, standin: StandIn) -> None:
    scenario(project)
    assert run(project) == 0
    comet = entries(project)[COMET]
    impact = comet.openalex
    assert (impact.status, impact.checked, impact.id) == ("found", "2026-07-01", "W4401112233")
    assert (impact.cited_by, impact.venue) == (41, "Proceedings of Machine Learning and Systems")
    assert (impact.doi, impact.published, impact.oa_url) == ("10.1145/3620666.3651379", "2025-05-12", "")
    assert comet.checked == "2026-06-01" and comet.doi == "10.1145/3620666.3651379"  # arXiv's part as it was
    asked = [r for r in standin.requests if r.path == "/works"]
    assert (
        len(asked) == 1 and asked[0].query["mailto"] == "ada@example.org" and "api_key" not in asked[0].query
    )
    assert asked[0].agent.startswith("scholarsite/")


def test_an_arxiv_paper_is_asked_by_its_datacite_doi(project: Path, standin: StandIn) -> None:
    scenario(project)
    run(project)
    preprint = entries(project)[PREPRINT]
    assert preprint.openalex.id == "W4392345678" and preprint.openalex.cited_by == 17
    assert preprint.openalex.oa_url == "https://arxiv.org/pdf/2502.19811"
    assert preprint.journal_ref == "Set by hand"  # hand edits kept


def test_only_what_can_be_identified_and_is_not_locked_is_asked(project: Path, standin: StandIn) -> None:
    scenario(project)
    run(project)
    found = entries(project)
    assert found[LOCKED].openalex is None and found[NO_IDS].openalex is None
    assert found[ABSENT].openalex.status == "not-found"
    assert sorted(r.path for r in standin.requests) == ["/works", "/works/W2741809807"]
    batch = next(r for r in standin.requests if r.path == "/works")
    assert (
        batch.query["filter"]
        == "doi:10.48550/arxiv.2404.00001|10.48550/arxiv.2502.19811|10.1145/3620666.3651379"
    )


def test_a_work_chosen_by_hand_is_asked_by_its_id_and_kept(project: Path, standin: StandIn) -> None:
    scenario(project)
    run(project)
    chosen = entries(project)[CHOSEN]
    assert (chosen.status, chosen.openalex.status, chosen.openalex.id) == (
        "not-found",
        "found",
        "W2741809807",
    )
    assert chosen.openalex.cited_by == 3 and chosen.openalex.oa_url == ""  # javascript: refused


def test_a_found_work_is_refreshed_by_its_id(project: Path, standin: StandIn) -> None:
    scenario(project)
    run(project)
    standin.requests.clear()
    run(project, "--only", keys(project)[COMET])
    assert [r.path for r in standin.requests] == ["/works/W4401112233"]


def test_429_then_success(project: Path, standin: StandIn) -> None:
    write_sources(project, {COMET: FOUND_COMET})
    standin.failures["/works"] = [(429, b"slow down"), DOWN]
    assert run(project) == 0
    assert entries(project)[COMET].openalex.cited_by == 41
    assert len(standin.requests) == 3


def test_503_throughout_is_unknown_and_keeps_what_was_known(project: Path, standin: StandIn) -> None:
    write_sources(project, {COMET: FOUND_COMET})
    standin.failures["/works"] = [DOWN] * 10
    assert run(project) == 0
    assert entries(project)[COMET].openalex.status == "unknown"
    assert len(standin.requests) == RETRIES + 1
    standin.failures.clear()
    run(project)  # unknown: asked again at once
    assert entries(project)[COMET].openalex.cited_by == 41
    standin.failures["/works/W4401112233"] = [DOWN] * 10
    run(project, "--max-age", "-1")
    kept = entries(project)[COMET].openalex
    assert (kept.status, kept.cited_by, kept.checked) == ("found", 41, "2026-07-01")


def test_html_404_is_unknown_not_not_found(project: Path, standin: StandIn) -> None:
    write_sources(project, {COMET: FOUND_COMET})
    standin.failures["/works"] = [(404, b"<html>wrong address</html>")]
    run(project)
    assert entries(project)[COMET].openalex.status == "unknown"


def test_max_age(project: Path, standin: StandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario(project)
    run(project)
    standin.requests.clear()
    run(project)
    assert standin.requests == []  # nothing due: every figure checked today
    later = FIXED_DAY + datetime.timedelta(days=10)
    monkeypatch.setattr(link, "today", lambda: later)
    run(project)
    assert standin.requests == []
    run(project, "--max-age", "7")
    assert len({r.path for r in standin.requests}) == 4
    assert entries(project)[COMET].openalex.checked == later.isoformat()


def test_mailto_option_and_limit(project: Path, standin: StandIn) -> None:
    scenario(project)
    run(project, "--mailto", "grace@example.org", "--limit", "1")
    assert [r.query["mailto"] for r in standin.requests] == ["grace@example.org"]
    assert sum(1 for e in entries(project).values() if e.openalex) == 1


def test_after_arxiv_finds_a_paper_openalex_is_asked_in_the_same_run(
    project: Path, standin: StandIn, arxiv: Script, capsys: pytest.CaptureFixture[str]
) -> None:
    arxiv.answers[query(COMET)] = [feed_file("comet.xml")]  # arXiv id 2502.19811, no DOI OpenAlex knows
    key = keys(project)[COMET]
    assert cli.main(["--project", str(project), "link-sources", "--only", key]) == 0
    comet = entries(project)[COMET]
    assert comet.arxiv_id == "2502.19811" and comet.openalex.id == "W4392345678"
    assert "OpenAlex: asked about 1 of 6 papers: 1 found" in capsys.readouterr().out


def test_unreachable_openalex_is_one_line(
    project: Path, standin: StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario(project)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert run(project, "--openalex-url", f"http://127.0.0.1:{port}") == 1
    err = capsys.readouterr().err
    assert err.startswith("error: OpenAlex given up: cannot reach the OpenAlex API") and err.count("\n") == 1
    assert "keeps its 0 answers so far (are you offline?" in err


def test_bad_openalex_part_is_named_with_its_line(project: Path, standin: StandIn) -> None:
    write_sources(project, {COMET: "status: found\nopenalex:\n  status: found\n  cited_by: many"})
    loaded, problems = load_sources(project)
    assert [p.line for p in problems] == [2] and "cited_by must be a whole number" in problems[0].message
    assert run(project) == 1 and standin.requests == []


@pytest.mark.network
def test_real_openalex_knows_a_known_paper(monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        socket.create_connection(("api.openalex.org", 443), timeout=3).close()
    except OSError:
        pytest.skip("no network: api.openalex.org cannot be reached")
    monkeypatch.delenv(openalex.API_VARIABLE, raising=False)
    try:
        work = openalex.OpenAlexClient().work(dois=(openalex.arxiv_doi("1706.03762"),))
    except openalex.LookupFailed:  # OpenAlex asks for an API key, or is having a bad day
        pytest.skip("OpenAlex did not answer")
    assert work is not None and work.cited_by > 1000


def closed_port() -> str:
    """The address of a local port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def both(project: Path, *options: str) -> int:
    """`scholarsite link-sources` asking arXiv, then OpenAlex; its exit code."""
    return cli.main(["--project", str(project), "link-sources", *options])


def test_arxiv_answers_are_kept_when_openalex_is_down(
    project: Path,
    standin: StandIn,
    arxiv: Script,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    arxiv.answers[query(COMET)] = [feed_file("comet.xml")]
    slept: list[float] = []
    monkeypatch.setattr("scholarsite.sources.polite.time.sleep", slept.append)
    assert both(project, "--openalex-url", closed_port()) == 1
    assert entries(project)[COMET].arxiv_id == "2502.19811"  # arXiv's answer kept
    err = capsys.readouterr().err
    assert "error: OpenAlex given up: cannot reach the OpenAlex API" in err and "are you offline?" in err
    assert slept == []  # never reached: given up at once, no retries


def test_openalex_is_asked_when_arxiv_is_down(
    project: Path, standin: StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario(project)
    assert both(project, "--api-url", closed_port() + "/api/query", "--max-age", "-1") == 1
    found = entries(project)
    assert found[COMET].openalex.id == "W4401112233" and found[COMET].arxiv_id == "2502.19811"
    captured = capsys.readouterr()
    assert "error: arXiv given up: cannot reach the arXiv API" in captured.err
    assert "sources.yaml keeps its 0 answers so far" in captured.err
    assert "OpenAlex: asked about 4 of 6 papers: 3 found, 1 not-found" in captured.out


def test_a_source_lost_mid_run_is_retried(
    project: Path, standin: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario(project)
    alex = openalex.OpenAlexClient(standin.url, delay=0)
    alex.session.reached = True  # it answered before: a dropped connection is asked again
    calls: list[str] = []

    def dropped(path: str, params: dict) -> dict:
        calls.append(path)
        if len(calls) == 1:
            raise openalex.ApiUnreachable("connection reset", transient=alex.session.reached)
        return openalex.OpenAlexClient.once(alex, path, params)

    monkeypatch.setattr(alex, "once", dropped)
    assert alex.get("works/W2741809807")["id"].endswith("W2741809807") and len(calls) == 2


def test_a_chosen_id_with_a_bad_answer_reads_back(project: Path, standin: StandIn) -> None:
    scenario(project)
    standin.works.append(
        {"id": "https://openalex.org/W123x", "doi": "https://doi.org/10.48550/arxiv.2404.00001"}
    )
    assert run(project) == 0
    assert entries(project)[ABSENT].openalex.status == "not-found"  # W123x is no work: never written


def test_citations_inside_the_collection_are_recorded(project: Path, standin: StandIn) -> None:
    scenario(project)
    run(project)
    comet = entries(project)[COMET].openalex
    assert comet.references == ("W2741809807", "W1775749144") and comet.counts == ((2025, 11), (2026, 30))
    assert "references: W2741809807 W1775749144" in (project / SOURCES_FILE).read_text()
