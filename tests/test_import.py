"""`scholarsite import` against local stand-ins for the arXiv API (Atom) and OpenAlex (JSON).

The stand-ins answer from tests/data/import/ (and feeds generated here for paging); one test,
marked `network`, asks the real arXiv API when it can be reached.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

import pytest

from scholarsite import cli, pipeline
from scholarsite.inputs import sources
from scholarsite.inputs.project import load_project
from scholarsite.inputs.seeds import AuthorRecord, parse_seed
from scholarsite.inputs.sources import SOURCES_FILE, load_sources, read_sources
from scholarsite.inputs.sources_cache import SOURCES_CACHE, read_sources_kept
from scholarsite.model.checks import model_of
from scholarsite.sources import client as arxiv_client
from scholarsite.sources import openalex
from tests import openalex_standin
from tests.conftest import ROOT, make_project
from tests.test_link_sources import unread

DATA = Path(__file__).resolve().parent / "data" / "import"
SHULAI = 'au:"Shulai Zhang"'
ORCID = "0000-0002-1825-0097"
COMET = "Comet: Fine-grained Computation-communication Overlapping for Mixture-of-Experts"
EMPTY_FEED = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"><title>ArXiv Query</title>'
    "<id>http://arxiv.org/api/empty</id><updated>2026-07-01T00:00:00-04:00</updated>"
    "<opensearch:totalResults>{total}</opensearch:totalResults></feed>"
)

DETAILS_1 = b"Authors: Ziheng Jiang\nType: preprint\nDate: 2024-01-02\n\n"  # what arXiv says of it


@dataclass
class Arxiv:
    """Feeds by search query (each a list of entries, served a page at a time by `start` and
    `max_results`, or one fixed body); every request's query, start and User-Agent recorded."""

    feeds: dict[str, list[str]] = field(default_factory=dict)
    bodies: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    requests: list[tuple[str, int, str]] = field(default_factory=list)

    def answer(self, target: str, agent: str) -> tuple[int, bytes]:
        """The status and body for a request."""
        params = {key: values[0] for key, values in parse_qs(urlsplit(target).query).items()}
        query, start = params.get("search_query", ""), int(params.get("start", "0"))
        self.requests.append((query, start, agent))
        if query in self.bodies:
            return self.bodies[query]
        entries = self.feeds.get(query, [])
        page = entries[start : start + int(params.get("max_results", "10"))]
        feed = EMPTY_FEED.format(total=len(entries)).replace("</feed>", "".join(page) + "</feed>")
        return 200, feed.encode()


class ArxivHandler(BaseHTTPRequestHandler):
    """The arXiv stand-in: GET /api/query?... answered by the server's `Arxiv`."""

    def do_GET(self) -> None:
        status, body = self.server.arxiv.answer(self.path, self.headers.get("User-Agent", ""))  # type: ignore[attr-defined]
        self.send_response(status)
        self.send_header("Content-Type", "application/atom+xml; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
        """Quiet."""


@pytest.fixture
def arxiv(monkeypatch: pytest.MonkeyPatch) -> Iterator[Arxiv]:
    """A running arXiv stand-in (its URL in SCHOLARSITE_ARXIV_API), no delay; it knows Shulai
    Zhang's three entries."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), ArxivHandler)
    server.arxiv = Arxiv(bodies={SHULAI: (200, (DATA / "arxiv-shulai-zhang.xml").read_bytes())})  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv(arxiv_client.API_VARIABLE, f"http://127.0.0.1:{server.server_address[1]}/api/query")
    monkeypatch.setenv(arxiv_client.DELAY_VARIABLE, "0")
    yield server.arxiv  # type: ignore[attr-defined]
    server.shutdown()
    server.server_close()


@pytest.fixture
def alex(monkeypatch: pytest.MonkeyPatch) -> Iterator[openalex_standin.StandIn]:
    """A running OpenAlex stand-in that knows Haibin Lin (ORCID 0000-0002-1825-0097) and his works."""
    with openalex_standin.running() as standin:
        standin.authors = json.loads((DATA / "openalex-authors.json").read_text(encoding="utf-8"))
        standin.works = json.loads((DATA / "openalex-works.json").read_text(encoding="utf-8"))
        monkeypatch.setenv(openalex.API_VARIABLE, standin.url)
        monkeypatch.setenv(openalex.DELAY_VARIABLE, "0")
        yield standin


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The shipped project (seeds of Ziheng Jiang and Ningxin Zheng), in a temporary folder."""
    return make_project(tmp_path / "project")


def run(project: Path, *options: str) -> int:
    """`scholarsite import` in the project; its exit code."""
    return cli.main(["--project", str(project), "import", *options])


def seeds(project: Path) -> list[str]:
    """The seed files' names."""
    return sorted(p.name for p in (project / "seeds").iterdir())


def seed_of(project: Path, name: str) -> AuthorRecord:
    """The author a seed file of the project gives."""
    author = parse_seed((project / "seeds" / name).read_bytes(), f"seeds/{name}", latest_year=2027).author
    assert author is not None
    return author


def check(project: Path) -> dict:
    """`scholarsite check --json`'s report."""
    result = pipeline.check(project)
    report = cli.check_report(result)
    report["problems"] = [d.format() for d in result.diagnostics if d.severity.value != "note"]
    return report


def entry_xml(number: int, name: str) -> str:
    """An Atom entry of a generated paper by `name`."""
    arxiv_id = f"2401.{number:05d}"
    return (
        f"<entry><id>http://arxiv.org/abs/{arxiv_id}v1</id><updated>2024-01-02T00:00:00Z</updated>"
        f"<published>2024-01-02T00:00:00Z</published><title>Generated Paper {number}</title>"
        f"<summary>Abstract {number}.</summary><author><name>{escape(name)}</name></author>"
        '<arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.LG"/>'
        '<category term="cs.LG"/></entry>'
    )


# arXiv


def test_arxiv_author_import_writes_a_seed_the_build_shows(
    project: Path, arxiv: Arxiv, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(project, "--arxiv-author", "Shulai Zhang") == 0
    out = capsys.readouterr().out
    assert "add seeds/shulai-zhang.txt: 2 new records" in out
    assert "left out 1 that list no author named exactly Shulai Zhang: 2312.05555" in out
    assert "--exclude ARXIV_ID" in out
    assert f"merged with an existing paper: {COMET} (2025), listed by Ziheng Jiang, Ningxin Zheng" in out
    seed = seed_of(project, "shulai-zhang.txt")
    assert [(r.source, r.year, r.subjects) for r in seed.records] == [
        ("arXiv", 2026, ("cs.DC", "cs.LG")),  # C.2.4 (an ACM class) left out
        ("arXiv", 2025, ("cs.DC", "cs.LG")),
    ]
    assert seed.records[0].title == r"Overlapping $\mathcal{O}(1)$ Collectives with Expert Computation"
    report = check(project)
    assert report["errors"] == 0 and report["problems"] == []
    assert report["authors"] == 3
    page = (project / "site" / "authors" / "shulai-zhang" / "index.html").read_text(encoding="utf-8")
    assert "Overlapping" in page and "Comet" in page
    comet = next(p for p in model_of(load_project(project))[0].papers if p.title == COMET)
    assert sorted(a.name for a in comet.authors) == ["Ningxin Zheng", "Shulai Zhang", "Ziheng Jiang"]
    agent = arxiv.requests[0][2]
    assert agent.startswith("scholarsite/") and arxiv.requests[0][:2] == (SHULAI, 0)


def test_arxiv_import_records_the_identifiers_in_sources_yaml(project: Path, arxiv: Arxiv) -> None:
    assert run(project, "--arxiv-author", "Shulai Zhang", "--no-build") == 0
    entries, problems = load_sources(project)
    assert problems == []
    comet = entries["2025/comet fine grained computation communication overlapping for mixture of experts"]
    assert (comet.status, comet.arxiv_id, comet.version, comet.doi) == (
        "found",
        "2502.19811",
        2,
        "10.1145/3676641.3716270",
    )
    assert (comet.primary_category, comet.published, comet.journal_ref) == (
        "cs.DC",
        "2025-02-27",
        "Proceedings of MLSys 2025",
    )
    assert comet.authors == ("Shulai Zhang", "Ningxin Zheng", "Haibin Lin", "Ziheng Jiang")


def test_the_next_build_takes_the_imported_sources_from_the_cache(
    project: Path, arxiv: Arxiv, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(project, "--arxiv-author", "Shulai Zhang", "--no-build") == 0
    expected = read_sources(project)
    unread(monkeypatch)
    assert read_sources_kept(project, project / SOURCES_CACHE) == expected and expected[0].entries


def test_importing_the_same_author_twice_leaves_one_seed(
    project: Path, arxiv: Arxiv, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(project, "--arxiv-author", "Shulai Zhang", "--no-build") == 0
    first = (project / "seeds" / "shulai-zhang.txt").read_bytes()
    capsys.readouterr()
    assert run(project, "--arxiv-author", "Shulai Zhang", "--no-build") == 0
    assert "listed already: 2 papers" in capsys.readouterr().out
    assert (project / "seeds" / "shulai-zhang.txt").read_bytes() == first
    feed = (DATA / "arxiv-shulai-zhang.xml").read_text(encoding="utf-8")
    arxiv.bodies[SHULAI] = (
        200,
        feed.replace("<entry>", entry_xml(7, "Shulai Zhang") + "<entry>", 1).encode(),
    )
    assert run(project, "--arxiv-author", "Shulai Zhang", "--no-build") == 0
    assert seeds(project) == ["000_428d720ed8b996c5.txt", "001_195b1e5c39d23b83.txt", "shulai-zhang.txt"]
    grown = (project / "seeds" / "shulai-zhang.txt").read_bytes()
    assert grown.startswith(first.replace(b"2 records", b"3 records").rstrip())
    assert grown.endswith(
        b"arXiv2024\n\nGenerated Paper 7\n\nAuthors: Shulai Zhang\nType: preprint\nDate: 2024-01-02\n\n"
        b"Abstract 7.\n\ncs.LG\xe2\x86\x97\n"
    )


def test_an_existing_author_gets_new_papers_in_their_own_seed(project: Path, arxiv: Arxiv) -> None:
    arxiv.feeds['au:"Ziheng Jiang"'] = [entry_xml(1, "Ziheng Jiang")]
    before = (project / "seeds" / "000_428d720ed8b996c5.txt").read_bytes()
    assert run(project, "--arxiv-author", "Ziheng Jiang", "--no-build") == 0
    assert seeds(project) == ["000_428d720ed8b996c5.txt", "001_195b1e5c39d23b83.txt"]
    after = (project / "seeds" / "000_428d720ed8b996c5.txt").read_bytes()
    assert after.startswith(before.rstrip()) and after.endswith(
        b"Generated Paper 1\n\n" + DETAILS_1 + b"Abstract 1.\n\ncs.LG\xe2\x86\x97\n"
    )


def test_a_name_arxiv_writes_in_tex_is_the_name_asked(project: Path, arxiv: Arxiv) -> None:
    arxiv.feeds['au:"Tomás Silva"'] = [entry_xml(3, "Tom\\'as Silva"), entry_xml(4, "TOMAS SILVA")]
    assert run(project, "--arxiv-author", "Tomás Silva", "--no-build") == 0
    assert len(seed_of(project, "tomas-silva.txt").records) == 2


def test_every_page_of_an_author_query_is_asked_for(project: Path, arxiv: Arxiv) -> None:
    query = 'au:"Grace Hopper"'
    arxiv.feeds[query] = [entry_xml(n, "Grace Hopper") for n in range(1, 251)]
    assert run(project, "--arxiv-author", "Grace Hopper", "--no-build") == 0
    assert [(q, start) for q, start, _ in arxiv.requests] == [(query, 0), (query, 100), (query, 200)]
    seed = seed_of(project, "grace-hopper.txt")
    assert len(seed.records) == 250 and seed.claimed_count == 250


def test_exclude_leaves_a_work_out(project: Path, arxiv: Arxiv, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(project, "--arxiv-author", "Shulai Zhang", "--exclude", "2601.01234", "--no-build") == 0
    out = capsys.readouterr().out
    assert "excluded: arXiv:2601.01234" in out and "1 new record" in out
    seed = seed_of(project, "shulai-zhang.txt")
    assert [r.title for r in seed.records] == [COMET]


def test_dry_run_and_json_write_nothing(
    project: Path, arxiv: Arxiv, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(project, "--arxiv-author", "Shulai Zhang", "--dry-run", "--json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["added_files"] == ["seeds/shulai-zhang.txt"]
    assert summary["new_authors"] == ["Shulai Zhang"]
    assert summary["import"]["added_records"] == 2
    assert summary["merged_papers"][0]["title"] == COMET
    assert seeds(project) == ["000_428d720ed8b996c5.txt", "001_195b1e5c39d23b83.txt"]
    assert not (project / SOURCES_FILE).exists() and not (project / "site").exists()


def test_an_api_that_keeps_failing_imports_nothing(
    project: Path, arxiv: Arxiv, capsys: pytest.CaptureFixture[str]
) -> None:
    arxiv.bodies[SHULAI] = (503, b"<html>down</html>")
    assert run(project, "--arxiv-author", "Shulai Zhang") == 1
    assert capsys.readouterr().err == "error: the arXiv API answered HTTP 503; nothing was imported\n"
    assert len(arxiv.requests) == arxiv_client.RETRIES + 1
    assert seeds(project) == ["000_428d720ed8b996c5.txt", "001_195b1e5c39d23b83.txt"]


def test_nobody_by_that_name_is_an_error(
    project: Path, arxiv: Arxiv, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(project, "--arxiv-author", "Nobody At All") == 1
    assert "nothing to import for Nobody At All" in capsys.readouterr().err


# ORCID through OpenAlex


def test_orcid_import_writes_the_seed_sources_and_author_page(
    project: Path, alex: openalex_standin.StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(project, "--orcid", f"https://orcid.org/{ORCID}") == 0
    out = capsys.readouterr().out
    assert f"OpenAlex: 5 works of Haibin Lin (author A5000000077, ORCID {ORCID})" in out
    assert "left out 1 that are front matter, errata or peer reviews" in out
    assert "left out: OpenAlex W4400000005: no year" in out
    assert "the same paper twice, kept once: OpenAlex W4392345678 and OpenAlex W4401112233" in out
    seed = seed_of(project, "haibin-lin.txt")
    assert [(r.source, r.year, r.title, r.subjects) for r in seed.records] == [
        ("OpenAlex", 2025, COMET, ()),
        ("OpenAlex", 2024, "Scaling Sparse Attention & Memory", ()),
    ]
    assert seed.records[1].abstract == "We scale sparse attention to long contexts with $O(n)$ memory."
    page = (project / "content" / "authors" / "haibin-lin.md").read_text(encoding="utf-8")
    assert page == f'---\norcid: "{ORCID}"\n---\n'
    html = (project / "site" / "authors" / "haibin-lin" / "index.html").read_text(encoding="utf-8")
    assert f'href="https://orcid.org/{ORCID}"' in html
    report = check(project)
    assert report["errors"] == 0 and report["problems"] == []
    entries, _ = load_sources(project)
    comet = entries["2025/comet fine grained computation communication overlapping for mixture of experts"]
    assert (comet.arxiv_id, comet.doi, comet.journal_ref) == (
        "2502.19811",
        "10.1145/3676641.3716270",
        "Proceedings of MLSys",
    )
    assert (comet.openalex.id, comet.openalex.cited_by, comet.openalex.status) == ("W4392345678", 17, "found")
    assert alex.requests[0].path == f"/authors/orcid:{ORCID}"
    assert alex.requests[1].query["filter"] == "author.id:A5000000077"


def test_orcid_checksum_is_checked_before_asking(
    project: Path, alex: openalex_standin.StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        run(project, "--orcid", "0000-0002-1825-0098")
    assert exit_.value.code == 2
    assert "not an ORCID iD: its last character is not its checksum" in capsys.readouterr().err
    assert alex.requests == []


def test_an_unknown_orcid_is_an_error(
    project: Path, alex: openalex_standin.StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(project, "--orcid", "0000-0001-5109-3700") == 1
    assert "OpenAlex knows no author with the ORCID iD 0000-0001-5109-3700" in capsys.readouterr().err


def test_the_orcid_goes_into_an_existing_author_page(project: Path, alex: openalex_standin.StandIn) -> None:
    page = project / "content" / "authors" / "haibin-lin.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text("---\naffiliation: ByteDance\n---\nBuilds systems.\n", encoding="utf-8")
    assert run(project, "--orcid", ORCID, "--no-build") == 0
    assert (
        page.read_text(encoding="utf-8")
        == f'---\norcid: "{ORCID}"\naffiliation: ByteDance\n---\nBuilds systems.\n'
    )


# BibTeX


def test_bibtex_import_keeps_tex_and_identifiers(
    project: Path, arxiv: Arxiv, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(project, "--bibtex", str(DATA / "refs.bib"), "--author", "Ziheng Jiang", "--no-build") == 0
    captured = capsys.readouterr()
    assert "refs.bib:35: warning: left out: Unexpectedly reached end of file" in captured.err
    assert "listed already: 1 paper" in captured.out  # Comet, in Ziheng Jiang's seed
    assert "refs.bib:30: no year" in captured.out
    assert seeds(project) == ["000_428d720ed8b996c5.txt", "001_195b1e5c39d23b83.txt"]
    seed = seed_of(project, "000_428d720ed8b996c5.txt")
    added = seed.records[-2:]
    assert [(r.source, r.year, r.title) for r in added] == [
        ("BibTeX", 2024, "Tiles All the Way Down"),
        ("BibTeX", 2021, r"A Quantum Study of $\mathcal{O}(n)$ \emph{Overlap} in GPU Clusters"),
    ]
    assert (
        added[1].abstract
        == "We study overlap with $\\alpha$-scheduling.\n\nA second paragraph, about Kernels."
    )
    entries, _ = load_sources(project)
    quantum = entries["2021/a quantum study of mathcal o n emph overlap in gpu clusters"]
    assert (quantum.doi, quantum.journal_ref, quantum.authors) == (
        "10.1038/s43588-021-00001-x",
        "Nature Computational Science",
        ("Ada Lovelace", "Z. Jiang"),
    )
    assert entries["2024/tiles all the way down"].arxiv_id == "2403.04444"
    assert (
        entries[
            "2025/comet fine grained computation communication overlapping for mixture of experts"
        ].arxiv_id
        == "2502.19811"
    )
    report = check(project)
    assert report["errors"] == 0 and report["problems"] == []
    assert arxiv.requests == []


def test_bibtex_needs_the_author(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(project, "--bibtex", str(DATA / "refs.bib")) == 1
    assert "name the author whose entries these are with --author" in capsys.readouterr().err


def test_a_bibtex_file_that_is_not_utf8_is_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bib = tmp_path / "latin1.bib"
    bib.write_bytes("@article{a, title={Caf\xe9}, year=2020}\n".encode("latin-1"))
    assert run(project, "--bibtex", str(bib), "--author", "Ada") == 1
    assert f"{bib}:1: error: not UTF-8" in capsys.readouterr().err


def test_several_seeds_of_one_name_need_into(
    project: Path, arxiv: Arxiv, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = project / "seeds" / "000_428d720ed8b996c5.txt"
    (project / "seeds" / "ziheng-again.txt").write_bytes(shipped.read_bytes())
    arxiv.feeds['au:"Ziheng Jiang"'] = [entry_xml(1, "Ziheng Jiang")]
    assert run(project, "--arxiv-author", "Ziheng Jiang", "--no-build") == 1
    err = capsys.readouterr().err
    assert "several seeds list Ziheng Jiang: seeds/000_428d720ed8b996c5.txt, seeds/ziheng-again.txt" in err
    assert "--into" in err
    chosen = project / "seeds" / "ziheng-again.txt"
    assert run(project, "--arxiv-author", "Ziheng Jiang", "--into", str(chosen), "--no-build") == 0
    assert chosen.read_bytes().endswith(
        b"Generated Paper 1\n\n" + DETAILS_1 + b"Abstract 1.\n\ncs.LG\xe2\x86\x97\n"
    )
    assert shipped.read_bytes() == (ROOT / "seeds" / "000_428d720ed8b996c5.txt").read_bytes()


def test_exclude_takes_ids_as_they_are_written(project: Path, arxiv: Arxiv) -> None:
    assert (
        run(project, "--arxiv-author", "Shulai Zhang", "--exclude", "arXiv:2601.01234v1", "--no-build") == 0
    )
    assert [r.title for r in seed_of(project, "shulai-zhang.txt").records] == [COMET]


@pytest.mark.network
def test_real_arxiv_api_lists_an_authors_papers(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        socket.create_connection(("export.arxiv.org", 443), timeout=3).close()
    except OSError:
        pytest.skip("no network: export.arxiv.org cannot be reached")
    monkeypatch.delenv(arxiv_client.API_VARIABLE, raising=False)
    monkeypatch.delenv(arxiv_client.DELAY_VARIABLE, raising=False)
    code = run(project, "--arxiv-author", "Ziheng Jiang", "--dry-run")
    captured = capsys.readouterr()
    if code == 1:  # the API is having a bad day
        assert "the arXiv API" in captured.err
        return
    assert code == 0 and 'entries for the author query au:"Ziheng Jiang"' in captured.out
    assert "listed already:" in captured.out  # the shipped seed lists his arXiv papers


def test_an_alias_of_an_author_page_updates_that_authors_seed(project: Path) -> None:
    page = project / "content" / "authors" / "ziheng-jiang.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text("---\naliases: [Z. Jiang]\n---\n", encoding="utf-8")
    assert run(project, "--bibtex", str(DATA / "refs.bib"), "--author", "Z. Jiang", "--no-build") == 0
    assert seeds(project) == ["000_428d720ed8b996c5.txt", "001_195b1e5c39d23b83.txt"]
    assert seed_of(project, "000_428d720ed8b996c5.txt").records[-1].title.startswith("A Quantum Study")


def test_entries_sources_yaml_could_not_read_are_not_written(
    project: Path, arxiv: Arxiv, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sources, "MAX_AUTHORS", 1)  # as an entry that would not read back
    assert run(project, "--arxiv-author", "Shulai Zhang", "--no-build") == 0
    assert "sources.yaml: the new entries are not written: '" in capsys.readouterr().out
    assert not (project / SOURCES_FILE).exists() and "shulai-zhang.txt" in seeds(project)


def test_no_project_no_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path / "nowhere", "--bibtex", str(DATA / "refs.bib"), "--author", "Ziheng Jiang") == 1
    assert "seeds: error: the seeds folder does not exist" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()
