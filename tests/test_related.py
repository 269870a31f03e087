"""Related papers: cosine over rare terms, a clean index and one updated edit by edit alike."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from scholarsite.inputs.state import BuildState
from scholarsite.model import related
from scholarsite.model.related import related_papers

SEEDS = Path(__file__).resolve().parent.parent / "seeds"

MOE_TITLES = (
    "Comet: Fine-grained Computation-communication Overlapping for Mixture-of-Experts",
    (
        "MegaScale-MoE: Large-Scale Communication-Efficient Training of Mixture-of-Experts"
        " Models in Production"
    ),
    "FLUX: Fast Software-based Communication Overlap On GPUs Through Kernel Fusion",
    ("DisagMoE: Computation-Communication overlapped MoE Training via Disaggregated AF-Pipe Parallelism"),
)

CORPUS = [
    "Graph neural networks for molecule property prediction with message passing.",
    "Quantum memory in thin-film lithium niobate with erbium ions at telecom wavelengths.",
    "Speculative decoding accelerates large language model inference with draft models.",
    "Camera-based vital sign measurement estimates heart rate from facial video.",
    "Federated learning of physiological signals under imperfect labels.",
    "Graph neural networks predict molecule properties through message passing layers.",
    "Erbium doped lithium niobate microrings store telecom photons as a quantum memory.",
    "Reinforcement learning improves reasoning in language models with verifiable rewards.",
]


def seed_papers() -> dict[str, str]:
    """Title -> title and abstract of every distinct paper in the shipped seeds."""
    papers = {}
    for path in sorted(SEEDS.glob("*.txt")):
        blocks = [b.strip() for b in path.read_text(encoding="utf-8").split("\n\n") if b.strip()]
        for i, block in enumerate(blocks[:-2]):
            if re.fullmatch(r"arXiv\d{4}", block):
                title, abstract = blocks[i + 1], blocks[i + 2]
                if abstract.endswith("↗"):
                    abstract = ""
                papers.setdefault(title, f"{title}\n{abstract}")
    return papers


def check_shape(result: list[list[int]], n: int, k: int) -> None:
    """One list per paper, at most k distinct valid indices, never the paper itself."""
    assert len(result) == n
    for i, found in enumerate(result):
        assert len(found) <= k
        assert len(set(found)) == len(found)
        assert all(0 <= j < n and j != i for j in found)


def test_near_duplicates_rank_each_other_first() -> None:
    result = related_papers(CORPUS, k=3)
    check_shape(result, len(CORPUS), 3)
    for a, b in ((0, 5), (1, 6)):
        assert result[a][0] == b
        assert result[b][0] == a


def test_identical_papers_are_ordered_by_index() -> None:
    docs = ["mixture of experts communication overlap"] * 4 + ["unrelated telecom photons"]
    result = related_papers(docs, k=5)
    assert result[0] == [1, 2, 3]
    assert result[2] == [0, 1, 3]
    assert result[4] == []


def test_result_is_deterministic() -> None:
    papers = list(seed_papers().values())
    assert related_papers(papers) == related_papers(list(papers))


def test_empty_input_and_empty_docs() -> None:
    assert related_papers([]) == []
    assert related_papers(["", "   ", "the of and a", "x y z 42"]) == [[], [], [], []]
    assert related_papers(CORPUS, k=0) == [[] for _ in CORPUS]


def test_titles_are_weighted_higher() -> None:
    titles = ["Sparse kernels", "Sparse kernels on graphs", "Long context attention"]
    abstracts = ["We study attention for long context.", "Graph processing.", "In documents."]
    docs = [f"{title}. {abstract}" for title, abstract in zip(titles, abstracts, strict=True)]
    assert related_papers(docs, k=1)[0] == [2]
    assert related_papers(docs, k=1, titles=titles)[0] == [1]


def test_a_term_in_too_many_papers_relates_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = [f"shared words everywhere marker{i}" for i in range(30)]
    assert all(related_papers(docs, k=5))
    monkeypatch.setattr(related, "MAX_DF", 15)  # buckets up to 8-15 papers
    assert related_papers(docs, k=5) == [[] for _ in docs]


def test_moe_communication_papers_relate_to_each_other() -> None:
    papers = seed_papers()
    titles = list(papers)
    result = related_papers(list(papers.values()), k=5)
    check_shape(result, len(titles), 5)
    moe = [titles.index(title) for title in MOE_TITLES]
    for i in moe:
        others = set(moe) - {i}
        assert len(others & set(result[i])) >= 2, (titles[i], [titles[j] for j in result[i]])


WORDS = st.sampled_from(["expert", "mixture", "gpu", "overlap", "kernel", "quantum", "the", "é"])


@given(st.lists(st.lists(WORDS, max_size=12).map(" ".join), max_size=25), st.integers(0, 6))
def test_any_corpus_gives_valid_deterministic_results(docs: list[str], k: int) -> None:
    result = related_papers(docs, k=k)
    check_shape(result, len(docs), k)
    assert related_papers(docs, k=k) == result


def test_worker_processes_give_the_same_result(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = list(seed_papers().values())
    serial = related_papers(docs, workers=1)
    monkeypatch.setattr(related, "CHUNK", 4)
    assert related_papers(docs, workers=2) == serial


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_fast_path_finds_the_same_words(text: str) -> None:
    assert related._words(text) == related._WORD.findall(text.lower())


def test_related_papers_in_workers_forked_from_a_thread_of_the_preview(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The preview computes related papers on its watcher thread, with its SIGTERM handler set:
    the worker processes end and the result is the serial one. (In `serve` at 10,000 papers a
    multiprocessing.Pool shut down there hung for good; `bench_preview.py` at 10k shows the
    fix, this test only guards the thread-and-handler case.)"""
    import signal
    import threading

    monkeypatch.setattr(related, "CHUNK", 3)
    docs = [
        f"graph learning paper {i} about {'sparse' if i % 2 else 'dense'} attention kernels"
        for i in range(12)
    ]
    serial = related.related_papers(docs, 3, workers=1)
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    found: list[list[list[int]]] = []
    try:
        thread = threading.Thread(target=lambda: found.append(related.related_papers(docs, 3, workers=2)))
        thread.start()
        thread.join(timeout=60)
        assert not thread.is_alive(), "the worker pool did not shut down"
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert found == [serial]


TEXTS = st.dictionaries(
    st.sampled_from([f"p{i}" for i in range(12)]),
    st.tuples(st.lists(WORDS, max_size=4).map(" ".join), st.lists(WORDS, max_size=10).map(" ".join)),
    max_size=12,
)


TRIO = {f"p{i}": ("", "alpha beta") for i in range(3)}
FIVE = {f"p{i}": ("", "alpha beta") for i in range(5)}


def kept_index(state: BuildState) -> related.RelatedIndex:
    """The index a build reads from the state the last build kept."""
    return related.RelatedIndex.kept(int(state.value("related_k") or -1), state)


def whole(index: related.RelatedIndex, table: dict) -> dict:
    """A table of the index for every paper it has (one kept reads its store on demand)."""
    return {key: table[key] for key in index.digests}


@given(
    st.lists(TEXTS, min_size=1, max_size=6),
    st.integers(1, 4),
    st.sampled_from([0, 64]),
    st.sampled_from([1, 2, related.HELD_BUCKET]),
)
@example(  # a term's bucket changes: its papers' other terms' postings change with their weights
    [{**TRIO, "p3": ("", "gamma")}, {**TRIO, "p3": ("", "alpha gamma")}], 2, 64, related.HELD_BUCKET
)
@example(  # a paper in others' lists is removed, no term changing bucket
    [{**FIVE, "p5": ("", "alpha gamma")}, FIVE], 5, 64, related.HELD_BUCKET
)
def test_an_index_updated_edit_by_edit_equals_a_clean_one(
    steps: list[dict], k: int, few: int, held: int
) -> None:
    """Papers added, edited and removed in any order, each build reading the index the last
    one kept in the state store (only the rows and terms its change reaches; the whole index
    when a term's bucket changes above `HELD_BUCKET`): it has the same vectors and lists as one
    made from the last texts, whether the lists that moved papers touch are updated or ranked
    anew (`FEW_MOVED`), and the store then holds what a clean build keeps."""
    few_before, held_before = related.FEW_MOVED, related.HELD_BUCKET
    related.FEW_MOVED, related.HELD_BUCKET = few, held
    try:
        state = BuildState(None)
        for texts in steps:
            index = kept_index(state)
            index.update(texts, k)
            state.save_related(*index.saved(), index.k)
        index = kept_index(state)
        clean = related.RelatedIndex(k)
        clean.update(steps[-1], k)
        assert whole(index, index.related) == clean.related
        assert whole(index, index.vectors) == clean.vectors
        fresh = BuildState(None)
        fresh.save_related(*clean.saved(), k)
        assert sorted(state.related_rows()) == sorted(fresh.related_rows())
        terms = "SELECT * FROM related_terms ORDER BY term"
        assert state.db.execute(terms).fetchall() == fresh.db.execute(terms).fetchall()
    finally:
        related.FEW_MOVED, related.HELD_BUCKET = few_before, held_before


def test_an_edit_reads_only_the_rows_and_terms_it_reaches() -> None:
    """A kept index edited in one paper reads that paper's row, the rows of the papers it
    ranks, and the terms of its texts: not the rest of the store."""
    docs = {f"p{i:03d}": ("", f"topic{i % 20} detail{i % 30} marker{i} common") for i in range(300)}
    state = BuildState(None)
    index = kept_index(state)
    index.update(docs, 3)
    state.save_related(*index.saved(), index.k)
    index = kept_index(state)
    index.update({**docs, "p000": ("", "topic0 detail0 marker0 common extra")}, 3)
    assert len(index.counts.looked) < 30  # type: ignore[attr-defined]
    assert len(index.df.looked) < 10  # type: ignore[attr-defined]


def test_an_edit_re_ranks_only_papers_that_share_a_term() -> None:
    docs = {f"p{i:02d}": ("", f"topic{i % 5} detail{i % 7} marker{i}") for i in range(40)}
    index = related.RelatedIndex(3)
    assert len(index.update(docs, 3)) == 40
    edited = {**docs, "p00": ("", "topic0 detail0 marker0 extra")}
    changed = index.update(edited, 3)
    sharing = {key for key, (_, text) in docs.items() if {"topic0", "detail0"} & set(text.split())}
    assert changed <= sharing
    assert index.update(edited, 3) == set()  # nothing changed: nothing ranked again


def test_a_word_crossing_a_power_of_two_moves_only_its_own_weight_and_ranks_few_lists_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "alpha" goes from 3 to 4 papers (another bucket, another idf): in the papers holding it
    only its weight changes (the norm leaves idf out), and besides the edited paper only lists
    that held it (its score with them may have dropped) are ranked against the collection, the
    others from their kept scores."""
    docs = {f"p{i:02d}": ("", f"alpha topic{i % 4} detail{i % 6} marker{i}") for i in range(3)}
    docs |= {f"p{i:02d}": ("", f"topic{i % 4} detail{i % 6} marker{i}") for i in range(3, 40)}
    index = related.RelatedIndex(3)
    index.update(docs, 3)
    before, lists = dict(index.vectors), dict(index.related)
    ranked: list[str] = []
    nearest = related.RelatedIndex._nearest
    monkeypatch.setattr(
        related.RelatedIndex, "_nearest", lambda self, key: ranked.append(key) or nearest(self, key)
    )
    index.update({**docs, "p03": ("", "alpha topic3 detail3 marker3")}, 3)
    for key in ("p00", "p01", "p02"):
        old, new = dict(before[key]), dict(index.vectors[key])
        assert old.keys() == new.keys() and old["alpha"] != new["alpha"]
        assert {term: w for term, w in old.items() if term != "alpha"} == {
            term: w for term, w in new.items() if term != "alpha"
        }
    assert ranked[0] == "p03" and all("p03" in lists[key] for key in ranked[1:])
    assert len(ranked) < len(docs) / 4


def test_rows_read_at_once_are_the_rows_read_one_by_one() -> None:
    """A kept index brings the rows a change reaches in from the store in a few queries (of
    `sqlitefile.BATCH` keys each), the same rows a query per key gives; papers without a row have none."""
    docs = {f"p{i:04d}": ("", f"topic{i % 20} marker{i}") for i in range(1200)}
    state = BuildState(None)
    index = related.RelatedIndex(3)
    index.update(docs, 3)
    state.save_related(*index.saved(), 3)
    keys = [*sorted(docs)[::2], "missing"]
    assert len(keys) > 500
    assert sorted(state.related_rows_of(keys)) == sorted(filter(None, map(state.related_row, keys)))
