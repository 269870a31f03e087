"""Related papers by content: TF-IDF cosine over a pruned inverted index, standard library only.

Each paper keeps only its `top_terms` highest-weighted terms, terms found in one paper or in
more than a `max_df` share of papers are skipped, and each term's posting list keeps only its
`candidates` highest-weighted papers. Scoring a paper then touches at most
top_terms * candidates postings, so the whole run stays near-linear in the number of papers.
Counting, weighing and scoring can be spread over forked worker processes.
"""

from __future__ import annotations

import math
import multiprocessing
import re
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from heapq import nlargest
from itertools import chain
from operator import itemgetter, mul

from scholarsite.lifetime import Workers

TOP_TERMS = 16
MAX_DF = 0.05
MIN_DF_CAP = 100
TITLE_BOOST = 2
CHUNK = 5_000  # papers per task when work is spread over processes

_WORD = re.compile(r"[^\W_]+")
# For ASCII text, translating non-alphanumerics to spaces and splitting gives the same words faster.
_ASCII_SPACES = str.maketrans({c: " " for c in map(chr, range(128)) if not c.isalnum()})
_STOPWORDS = frozenset(
    {"a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and"}
    | {"any", "are", "as", "at", "be", "because", "been", "before", "being", "below"}
    | {"between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down"}
    | {"during", "each", "et", "etc", "few", "for", "from", "further", "had", "has", "have"}
    | {"having", "he", "her", "here", "hers", "him", "his", "how", "however", "i", "if", "in"}
    | {"into", "is", "it", "its", "itself", "just", "may", "me", "more", "most", "much"}
    | {"must", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "one", "only"}
    | {"or", "other", "our", "ours", "out", "over", "own", "same", "she", "should", "so"}
    | {"some", "such", "than", "that", "the", "their", "them", "then", "there", "these"}
    | {"they", "this", "those", "through", "thus", "to", "too", "two", "under", "until", "up"}
    | {"upon", "us", "very", "via", "was", "we", "were", "what", "when", "where", "whether"}
    | {"which", "while", "who", "whom", "why", "will", "with", "within", "without", "would"}
    | {"yet", "you", "your", "paper", "propose", "proposed", "present", "show", "shows"}
    | {"using", "use", "used", "based", "new", "novel", "results", "approach", "method"}
)

Vector = tuple[array, array]  # (term ids, weights), highest weight first
Postings = dict[int, Vector]  # term id -> (paper indices, weights)
Counts = list[tuple[array, array]]  # per paper: (term ids, counts)
Chunk = tuple[list[str], Counts, list[int]]  # terms, counts and df, with ids local to a chunk


def related_papers(
    docs: Sequence[str],
    k: int = 5,
    candidates: int = 200,
    *,
    titles: Sequence[str] | None = None,
    top_terms: int = TOP_TERMS,
    max_df: float = MAX_DF,
    workers: int = 1,
) -> list[list[int]]:
    """For each paper, up to k indices of the most similar other papers, best first.

    docs[i] is the plain text (title and abstract) of paper i; the words of titles[i], if
    given, count TITLE_BOOST more times. Each paper is represented by its top_terms
    highest-weighted terms, terms in more than max_df of the papers (and at least
    MIN_DF_CAP papers) are skipped, and each term keeps its `candidates` highest-weighted
    papers. Ties are broken by the lower index; papers sharing no kept term are not related.
    With workers > 1, the work runs in that many forked processes (where the platform can
    fork); the result is the same.
    """
    counts, df = _merge_counts(_map_chunks(_count_terms, (docs, titles), len(docs), workers))
    tables = _weight_tables(counts, df, max(MIN_DF_CAP, int(max_df * len(docs))))
    vectors = _map_chunks(_weigh, (counts, *tables, top_terms), len(docs), workers)
    postings = _invert(vectors, candidates)
    return _map_chunks(_nearest_all, (vectors, postings, k), len(docs), workers)


def _map_chunks(func: Callable[..., list], state: tuple, n: int, workers: int) -> list:
    """func(*state, chunk) over consecutive chunks of range(n), concatenated in order.

    With workers > 1 the chunks run in forked processes, which inherit state without copies.
    """
    if workers <= 1 or n <= CHUNK or "fork" not in multiprocessing.get_all_start_methods():
        return func(*state, range(n))
    chunks = [range(start, min(start + CHUNK, n)) for start in range(0, n, CHUNK)]
    with Workers(workers, partial(func, *state)) as pool:
        return list(chain.from_iterable(pool.map(chunks)))


def _term(word: str) -> str:
    """The index term for a lowercase word, or "" to drop it; plurals fold to singular."""
    if len(word) < 2 or word.isdigit() or word in _STOPWORDS:
        return ""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _count_terms(docs: Sequence[str], titles: Sequence[str] | None, chunk: range) -> list[Chunk]:
    """Term counts and document frequencies of the papers in chunk, as a one-item list."""
    vocabulary = _Vocabulary()
    df: Counter[int] = Counter()
    counts = []
    for i in chunk:
        words = _words(docs[i])
        if titles is not None:
            words += _words(titles[i]) * TITLE_BOOST
        tf = vocabulary.count(words)
        df.update(tf.keys())
        counts.append((array("i", tf.keys()), array("i", tf.values())))
    return [(list(vocabulary.terms), counts, [df[t] for t in range(len(vocabulary.terms))])]


def _words(text: str) -> list[str]:
    """The lowercase runs of letters and digits in text."""
    text = text.lower()
    return text.translate(_ASCII_SPACES).split() if text.isascii() else _WORD.findall(text)


def _merge_counts(chunks: list[Chunk]) -> tuple[Counts, list[int]]:
    """The chunks' counts with one term id space, and the document frequency of each term."""
    term_ids: dict[str, int] = {}
    remaps = [[term_ids.setdefault(term, len(term_ids)) for term in terms] for terms, _, _ in chunks]
    counts: Counts = []
    df = [0] * len(term_ids)
    for remap, (_, part, part_df) in zip(remaps, chunks, strict=True):
        for tid, n in zip(remap, part_df, strict=True):
            df[tid] += n
        if remap == list(range(len(remap))):
            counts += part
        else:
            counts += [(array("i", map(remap.__getitem__, ids)), tfs) for ids, tfs in part]
    return counts, df


class _Vocabulary:
    """Maps words to term ids; words that are dropped map to -1."""

    def __init__(self) -> None:
        self.terms: dict[str, int] = {}
        self.words: dict[str, int] = {}

    def count(self, words: list[str]) -> Counter[int]:
        """Term id counts of the words, without dropped words."""
        for word in set(words).difference(self.words):
            self.words[word] = self._term_id(_term(word))
        tf = Counter(map(self.words.__getitem__, words))
        del tf[-1]
        return tf

    def _term_id(self, term: str) -> int:
        """Id of a term, registering it if new; -1 for the empty (dropped) term."""
        if not term:
            return -1
        return self.terms.setdefault(term, len(self.terms))


def _weight_tables(counts: Counts, df: list[int], cap: int) -> tuple[list, list, list]:
    """IDF per term, the same with 0.0 for terms not kept (df < 2 or df > cap), 1 + log(tf)."""
    n = len(counts)
    idf = [math.log((1 + n) / (1 + f)) + 1.0 for f in df]
    kept_idf = [w if 2 <= f <= cap else 0.0 for w, f in zip(idf, df, strict=True)]
    most = max((max(tfs) for _, tfs in counts if tfs), default=0)
    log_tf = [0.0] + [1.0 + math.log(tf) for tf in range(1, most + 1)]
    return idf, kept_idf, log_tf


def _weigh(
    counts: Counts, idf: list, kept_idf: list, log_tf: list, top_terms: int, chunk: range
) -> list[Vector]:
    """Per paper, the L2-normalised TF-IDF weights of its top_terms kept terms.

    The norm counts every term of the paper, so the kept weights are its share of the cosine.
    """
    vectors = []
    for ids, tfs in map(counts.__getitem__, chunk):
        tf_weights = list(map(log_tf.__getitem__, tfs))
        norm = math.hypot(*map(mul, tf_weights, map(idf.__getitem__, ids))) or 1.0
        weights = list(map(mul, tf_weights, map(kept_idf.__getitem__, ids)))
        best = sorted(range(len(weights)), key=weights.__getitem__, reverse=True)[:top_terms]
        best = [b for b in best if weights[b] > 0.0]
        vectors.append(
            (array("i", map(ids.__getitem__, best)), array("d", (weights[b] / norm for b in best)))
        )
    return vectors


def _invert(vectors: list[Vector], candidates: int) -> Postings:
    """Posting lists per term, each cut to its `candidates` highest-weighted papers."""
    postings: Postings = {}
    for i, (ids, weights) in enumerate(vectors):
        for t, w in zip(ids, weights, strict=True):
            if t not in postings:
                postings[t] = (array("i"), array("d"))
            docs, ws = postings[t]
            docs.append(i)
            ws.append(w)
    for t, (docs, ws) in postings.items():
        if len(docs) > candidates:
            best = sorted(nlargest(candidates, range(len(docs)), key=ws.__getitem__))
            postings[t] = (array("i", (docs[j] for j in best)), array("d", (ws[j] for j in best)))
    return postings


def _nearest_all(vectors: list[Vector], postings: Postings, k: int, chunk: range) -> list:
    """_nearest for each paper in chunk."""
    return [_nearest(i, vectors[i], postings, k) for i in chunk]


def _nearest(i: int, vector: Vector, postings: Postings, k: int) -> list[int]:
    """The k papers with the highest dot product with paper i, excluding i."""
    scores: dict[int, float] = {}
    score = scores.get
    for t, q in zip(*vector, strict=True):
        for j, w in zip(*postings[t], strict=True):
            scores[j] = score(j, 0.0) + q * w
    scores.pop(i, None)
    return _top_k(scores, k)


def _top_k(scores: dict[int, float], k: int) -> list[int]:
    """Indices of the k highest scores, ties broken by the lower index."""
    if k <= 0:
        return []
    top = nlargest(k + 1, scores.items(), key=itemgetter(1))
    if len(top) > k and top[k][1] == top[k - 1][1]:
        edge = top[k - 1][1]
        top = [item for item in top if item[1] > edge]
        top += sorted(item for item in scores.items() if item[1] == edge)
    top.sort(key=lambda item: (-item[1], item[0]))
    return [j for j, _ in top[:k]]
