"""The OpenAlex client (`scholarsite.sources.openalex`) against the local stand-in."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from scholarsite.sources import openalex
from scholarsite.sources.polite import RETRIES, ApiUnreachable, LookupFailed
from tests.openalex_standin import StandIn, running

BUSY = (429, b"<html>slow down</html>")
DOWN = (503, b"<html>unavailable</html>")


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    """A running stand-in; no delay between requests."""
    monkeypatch.setenv(openalex.DELAY_VARIABLE, "0")
    monkeypatch.delenv(openalex.KEY_VARIABLE, raising=False)
    with running() as server:
        yield server


def client(standin: StandIn, mailto: str = "ada@example.org") -> openalex.OpenAlexClient:
    """A client of the stand-in."""
    return openalex.OpenAlexClient(standin.url, mailto=mailto, environ=os.environ)  # as the CLI passes it


def test_work_by_arxiv_doi_has_every_field(standin: StandIn) -> None:
    work = client(standin).work(dois=(openalex.arxiv_doi("2502.19811"),))
    assert work == openalex.Work(
        openalex_id="W4392345678",
        doi="10.48550/arxiv.2502.19811",
        title="Comet: Fine-grained Computation-communication Overlapping for Mixture-of-Experts",
        cited_by=17,
        venue="arXiv (Cornell University)",
        oa_url="https://arxiv.org/pdf/2502.19811",
        published="2025-02-27",
        counts=((2025, 17),),
        references=("W2741809807",),
    )
    request = standin.requests[0]
    assert request.path == "/works/doi:10.48550/arXiv.2502.19811"
    assert request.query == {"mailto": "ada@example.org"}
    assert request.agent.startswith("scholarsite/")


def test_first_doi_openalex_knows_is_used(standin: StandIn) -> None:
    work = client(standin).work(dois=("10.9999/unknown", "10.1145/3620666.3651379"))
    assert work is not None and (work.openalex_id, work.cited_by, work.oa_url) == ("W4401112233", 41, "")
    assert work.venue == "Proceedings of Machine Learning and Systems"
    assert len(standin.requests) == 2


def test_by_openalex_id_and_unsafe_urls_dropped(standin: StandIn) -> None:
    work = client(standin).work(openalex_id="W2741809807")
    assert work is not None and work.doi == "" and work.venue == "" and work.oa_url == ""


def test_unknown_to_openalex_is_none(standin: StandIn) -> None:
    assert client(standin).work(dois=("10.9999/unknown",)) is None


def test_429_then_success(standin: StandIn) -> None:
    standin.failures["/works/W2741809807"] = [BUSY, DOWN]
    assert client(standin).work(openalex_id="W2741809807") is not None
    assert len(standin.requests) == 3


def test_503_throughout_fails(standin: StandIn) -> None:
    standin.failures["/works/W2741809807"] = [DOWN] * 10
    with pytest.raises(LookupFailed):
        client(standin).work(openalex_id="W2741809807")
    assert len(standin.requests) == RETRIES + 1


def test_html_404_is_a_failure_not_absence(standin: StandIn) -> None:
    standin.failures["/works/W2741809807"] = [(404, b"<html>no such page</html>")]
    with pytest.raises(LookupFailed):
        client(standin).work(openalex_id="W2741809807")


def test_empty_answer_is_asked_again_then_fails(standin: StandIn) -> None:
    standin.failures["/works/W2741809807"] = [(200, b"")] * 10
    with pytest.raises(openalex.BadAnswer):
        client(standin).work(openalex_id="W2741809807")
    assert len(standin.requests) == RETRIES + 1


def test_author_by_orcid_and_works_by_cursor(standin: StandIn) -> None:
    alex = client(standin, mailto="")
    author = alex.get("authors/orcid:0000-0002-1825-0097")
    assert openalex.short_id(author["id"]) == "A5000000001"
    standin.works = [
        {**standin.works[2], "id": f"https://openalex.org/W{n}"} for n in range(openalex.PER_PAGE * 2 + 5)
    ]
    found = list(alex.pages("works", {"filter": "author.id:A5000000001"}))
    assert len(found) == openalex.PER_PAGE * 2 + 5 and len({w["id"] for w in found}) == len(found)
    cursors = [r.query["cursor"] for r in standin.requests[1:]]
    assert cursors == ["*", str(openalex.PER_PAGE), str(openalex.PER_PAGE * 2)]
    assert "mailto" not in standin.requests[1].query
    assert openalex.abstract_of(found[0]["abstract_inverted_index"]) == "Analytical engines and engines"


def test_api_key_from_the_environment(standin: StandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(openalex.KEY_VARIABLE, "k-123")
    client(standin).get("works/W2741809807")
    assert standin.requests[0].query["api_key"] == "k-123"


def test_unreachable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(openalex.DELAY_VARIABLE, "0")
    with pytest.raises(ApiUnreachable, match="cannot reach the OpenAlex API"):
        openalex.OpenAlexClient("http://127.0.0.1:9", environ=os.environ).get("works/W1")


def test_delay_never_under_the_floor_against_openalex(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(openalex.DELAY_VARIABLE, raising=False)
    monkeypatch.delenv(openalex.API_VARIABLE, raising=False)
    official = openalex.OpenAlexClient(delay=0)
    assert official.api_url == "https://api.openalex.org"
    assert (official.delay, official.backoff) == (openalex.DELAY_SECONDS, openalex.BACKOFF_SECONDS)
    assert openalex.OpenAlexClient("http://127.0.0.1:9", delay=0).delay == 0.0


def test_control_characters_and_wrong_types_are_dropped(standin: StandIn) -> None:
    standin.works[2] = {
        **standin.works[2],
        "primary_location": {"source": {"display_name": "Venue\x1b[31m \n Red\x07"}},
        "cited_by_count": "many",
        "publication_date": None,
    }
    work = client(standin).work(openalex_id="W2741809807")
    assert work is not None and (work.venue, work.cited_by, work.published) == ("Venue[31m Red", None, "")


def test_dois_are_asked_fifty_a_request(standin: StandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENALEX_API_KEY", "k-456")
    dois = [f"10.9999/none.{n}" for n in range(120)] + [
        "10.1145/3620666.3651379",
        "10.48550/ARXIV.2502.19811",
    ]
    found = client(standin).works_by_doi(dois)
    assert sorted(work.openalex_id for work in found.values()) == ["W4392345678", "W4401112233"]
    assert [len(r.query["filter"].split("|")) for r in standin.requests] == [50, 50, 22]
    assert all(r.query["api_key"] == "k-456" and r.path == "/works" for r in standin.requests)


def test_counts_and_references_are_checked(standin: StandIn) -> None:
    work = client(standin).work("W4401112233")
    assert work.counts == ((2025, 11), (2026, 30))  # a year that is no number left out
    assert work.references == ("W2741809807", "W1775749144")  # W123x left out, a repeat once


def test_a_malformed_work_id_is_no_work(standin: StandIn) -> None:
    standin.works.append({"id": "https://openalex.org/W123x", "doi": "https://doi.org/10.1/x"})
    assert openalex.work_of(standin.works[-1]).openalex_id == ""
    assert client(standin).work(dois=("10.1/x",)) is None
    assert openalex.work_of({"id": "https://openalex.org/w42"}).openalex_id == "W42"


def test_the_key_option_wins_and_is_never_printed(
    standin: StandIn, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENALEX_API_KEY", "from-env")
    openalex.OpenAlexClient(standin.url, api_key="from-option", environ=os.environ).get("works/W2741809807")
    assert standin.requests[0].query["api_key"] == "from-option"


def test_a_client_reads_only_the_variables_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the command line reads the process environment; it hands the clients what it read."""
    monkeypatch.setenv(openalex.API_VARIABLE, "http://127.0.0.1:9/from-process")
    monkeypatch.setenv(openalex.KEY_VARIABLE, "from-process")
    alone = openalex.OpenAlexClient()
    assert alone.api_url == "https://api.openalex.org" and "api_key" not in alone.identity
    given = openalex.OpenAlexClient(environ={openalex.API_VARIABLE: "http://127.0.0.1:9/given"})
    assert given.api_url == "http://127.0.0.1:9/given"
