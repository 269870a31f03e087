"""Related papers by content: cosine over rare terms, updated by the change, standard library only.

What "related" means: each paper is represented by its `TOP_TERMS` highest-weighted terms
(words of its title and abstract, titles counted `TITLE_BOOST` more times, stop words and
plurals folded). A term's weight is 1 + log(tf) times an inverse document frequency that depends
only on the *power of two* the term's document frequency falls in (1, 2-3, 4-7, ... papers),
divided by the norm of the paper's 1 + log(tf) (over all its terms), and only terms found in 2
to `MAX_DF` papers are kept: a term in one paper relates nothing and a term in hundreds says
little. The related papers of a paper are the k others with the highest dot product of those
vectors (ties: the smaller paper key first).

Every quantity is local: a paper's vector depends on its own text and on the df *buckets* of
its terms, and its list on the vectors that share a kept term with it (at most MAX_DF papers
a term). So an edit re-weighs one paper, re-weighs the holders of a term only when that term's
bucket changes (and then only that term's weight in each: the norm leaves idf out), and
re-ranks only the papers that share a term whose weight changed; a value that comes out equal
stops the ripple. `RelatedIndex.update` is the same function of the texts
whether it starts empty (a clean build) or from the last build's state.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from heapq import nsmallest
from itertools import chain
from operator import attrgetter
from typing import Protocol, TypeVar

from scholarsite.lifetime import Workers
from scholarsite.model.ondemand import OnDemand

TOP_TERMS = 16
MAX_DF = 255  # a term in more papers than this is not kept (its bucket: 2**8 and over)
TITLE_BOOST = 2
CHUNK = 5_000  # papers per task when ranking is spread over processes
FEW_MOVED = 1024  # up to this many re-weighed papers, lists are updated, not ranked anew
IDF_BASE = 21  # idf of a term in bucket b: 1 + (IDF_BASE - b) * ln 2 (positive up to ~10**6 papers)
Item = TypeVar("Item")
HELD_BUCKET = MAX_DF.bit_length() + 1  # the store keeps the papers of a term up to this bucket

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

Counts = tuple[tuple[str, int], ...]  # a paper's terms and their counts, by term
Vector = tuple[tuple[str, float], ...]  # its kept terms and weights, highest first
Ranked = tuple[tuple[str, ...], tuple[float, ...]]  # related papers, best first, and their scores


def _term(word: str) -> str:
    """The index term for a lowercase word, or "" to drop it; plurals fold to singular."""
    if len(word) < 2 or word.isdigit() or word in _STOPWORDS:
        return ""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _words(text: str) -> list[str]:
    """The lowercase runs of letters and digits in text."""
    text = text.lower()
    return text.translate(_ASCII_SPACES).split() if text.isascii() else _WORD.findall(text)


def term_counts(title: str, text: str) -> Counts:
    """The terms of a paper's text (its title and abstract), the title's words counted
    TITLE_BOOST more times."""
    counts = Counter(filter(None, map(_term, _words(text) + _words(title) * TITLE_BOOST)))
    return tuple(sorted(counts.items()))


def bucket(df: int) -> int:
    """The power-of-two bucket of a document frequency (0 for none, 1 for one paper, 2 for
    two or three, ...): weights change only when a term's bucket does."""
    return df.bit_length()


def idf(bucket_: int) -> float:
    """The inverse document frequency of a term in `bucket_`."""
    return 1.0 + (IDF_BASE - bucket_) * math.log(2)


def kept(bucket_: int) -> bool:
    """Whether terms of this bucket relate papers (found in 2 to MAX_DF papers)."""
    return 2 <= bucket_ <= MAX_DF.bit_length()


@lru_cache(maxsize=2**18)  # a collection's texts, in a process that builds again
def text_digest(title: str, text: str) -> str:
    """A digest of a paper's text (or of the TeX it is made from: any two strings that give
    the text)."""
    return hashlib.sha256(f"{title}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def digests_of(texts: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """The digest of each text."""
    return {key: text_digest(*text) for key, text in texts.items()}


RowColumns = tuple[str, str, str, str, str]  # `Row.columns`
TermColumns = tuple[int, str | None, str]  # a term's df, papers and postings (`Term.columns`)
TermRow = tuple[str, int, str | None, str]  # the term with them


@dataclass(frozen=True)
class Row:
    """What the index keeps of one paper between builds."""

    key: str
    digest: str
    counts: Counts
    vector: Vector
    related: tuple[str, ...]
    scores: tuple[float, ...]  # of the related papers, as ranking found them

    def columns(self) -> RowColumns:
        """The row as the state store keeps it: terms and numbers separated by spaces (a term
        has none; `repr` of a float reads back exactly), the related papers as lines of score
        and key (a key has no newline). Twice as fast to read back as JSON, which matters at
        37,000 rows a build."""
        counts = " ".join(f"{term} {n}" for term, n in self.counts)
        vector = " ".join(f"{term} {weight!r}" for term, weight in self.vector)
        found = "\n".join(f"{score!r} {key}" for key, score in zip(self.related, self.scores, strict=True))
        return self.key, self.digest, counts, vector, found

    @classmethod
    def of_columns(cls, columns: RowColumns) -> Row:
        """A row from the state store."""
        key, digest, counts, vector, found = columns
        count_parts = counts.split()
        related, scores = related_of(found)
        return cls(
            key,
            digest,
            tuple(zip(count_parts[::2], map(int, count_parts[1::2]), strict=True)),
            vector_of(vector),
            related,
            scores,
        )


def vector_of(column: str) -> Vector:
    """A vector from the store's column."""
    parts = column.split()
    return tuple(zip(parts[::2], map(float, parts[1::2]), strict=True))


def related_of(column: str) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """Related papers and their scores from the store's column (lines of score and key, as
    `postings_of` reads them)."""
    found = postings_of(column)
    return tuple(key for key, _ in found), tuple(score for _, score in found)


@dataclass(frozen=True)
class Term:
    """What the store keeps of one term: its document frequency, the papers holding it (only
    up to `HELD_BUCKET`: a commoner term's papers are found from the rows, when its bucket
    changes) and its posting list (kept terms only)."""

    df: int
    holders: tuple[str, ...] | None
    postings: tuple[tuple[str, float], ...]

    def columns(self, term: str) -> TermRow:
        """The term as the state store keeps it: papers by newlines, postings as lines of
        weight and paper key."""
        holders = None if self.holders is None else "\n".join(self.holders)
        return term, self.df, holders, "\n".join(f"{weight!r} {key}" for key, weight in self.postings)

    @classmethod
    def of_columns(cls, columns: TermColumns) -> Term:
        """A term from the state store (its df, papers and postings columns)."""
        df, holders, postings = columns
        papers = None if holders is None else tuple(filter(None, holders.split("\n")))
        return cls(df, papers, postings_of(postings))


def postings_of(column: str) -> tuple[tuple[str, float], ...]:
    """A term's postings from the store's column (lines of weight and paper key)."""
    lines = (line.split(" ", 1) for line in column.split("\n")) if column else ()
    return tuple((key, float(weight)) for weight, key in lines)


class Store(Protocol):
    """Where an index kept between builds is read from, a row or a term at a time."""

    def related_digests(self) -> dict[str, str]:
        """Every paper's text digest."""

    def related_row(self, key: str) -> RowColumns | None:
        """A paper's row."""

    def related_term(self, term: str) -> TermColumns | None:
        """A term's entry."""

    def related_rows(self) -> Iterable[RowColumns]:
        """Every paper's row."""

    def related_rows_of(self, keys: Sequence[str]) -> Iterable[RowColumns]:
        """The rows of these papers (those that have one)."""

    def related_lists_of(self, keys: Sequence[str]) -> Iterable[tuple[str, str, str]]:
        """The key, vector and related columns of these papers' rows (those that have one)."""

    def related_dfs_of(self, terms: Sequence[str]) -> Iterable[tuple[str, int]]:
        """The document frequencies of these terms (of those that have one)."""

    def related_postings_of(self, terms: Sequence[str]) -> Iterable[tuple[str, str]]:
        """The posting lists of these terms (of those that have one), as `Term.columns` has them."""


def all_in_memory(keys: Iterable[str]) -> None:
    """Nothing to bring in: every row is in memory."""


@dataclass
class RelatedIndex:
    """Every paper's terms, vector and related list, with the tables derived from them;
    `update` brings it to new texts doing only the work the change needs.

    An index `kept` between builds reads its store on demand: the texts' digests whole, then
    only the rows and terms the change reaches (`OnDemand`). A change that would need the
    papers of a term commoner than `HELD_BUCKET` (its bucket changes), or a new k, reads the
    rest first (`_read_whole`); either way the index is the one a clean build makes."""

    k: int = 5
    digests: dict[str, str] = field(default_factory=dict)
    counts: dict[str, Counts] = field(default_factory=dict)
    vectors: dict[str, Vector] = field(default_factory=dict)
    related: dict[str, tuple[str, ...]] = field(default_factory=dict)
    scores: dict[str, tuple[float, ...]] = field(default_factory=dict)  # of the related papers
    df: dict[str, int] = field(default_factory=Counter)
    holders: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # term -> papers
    postings: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    unsaved: set[str] = field(default_factory=set)  # papers changed or removed since `saved`
    unsaved_terms: set[str] = field(default_factory=set)  # terms changed since `saved`
    seen: object = None  # the warm model's mark it was last brought up to (`model.warm.Changes`)
    store: Store | None = None  # what the index has not read yet is there
    read_rows: Callable[[Iterable[str]], None] = all_in_memory  # brings rows from the store at once (`kept`)
    read_lists: Callable[[Iterable[str]], None] = all_in_memory  # ... rows' vectors and lists only
    read_dfs: Callable[[Iterable[str]], None] = all_in_memory  # ... terms' document frequencies
    read_postings: Callable[[Iterable[str]], None] = all_in_memory  # ... and terms' posting lists

    @classmethod
    def kept(cls, k: int, store: Store) -> RelatedIndex:
        """The index the last build kept in `store`, whose lists hold up to k papers."""
        terms: dict[str, Term | None] = {}
        rows: dict[str, Row | None] = {}  # each read once, for the three tables that part it

        def term(name: str) -> Term | None:
            if name not in terms:
                found = store.related_term(name)
                terms[name] = None if found is None else Term.of_columns(found)
            return terms[name]

        def row(key: str) -> Row | None:
            if key not in rows:
                found = store.related_row(key)
                rows[key] = None if found is None else Row.of_columns(found)
            return rows[key]

        def read_rows(keys: Iterable[str]) -> None:  # one query for many: ten times faster a row
            wanted = sorted(set(keys) - rows.keys())
            found = {row.key: row for row in map(Row.of_columns, store.related_rows_of(wanted))}
            rows.update((key, found.get(key)) for key in wanted)

        def read_lists(keys: Iterable[str]) -> None:  # what ranking in reads, the terms' counts unread
            wanted = sorted(set(keys) - rows.keys() - related.looked)
            for key, vector, found in store.related_lists_of(wanted):
                vectors[key] = vector_of(vector)
                related[key], scores[key] = related_of(found)

        def read_dfs(names: Iterable[str]) -> None:  # one query for many, postings left unread
            wanted = sorted(set(names) - df.looked)
            found = dict(store.related_dfs_of(wanted))
            for name in wanted:
                df[name] = found.get(name, 0)

        def read_postings(names: Iterable[str]) -> None:  # one query for many, papers left unread
            wanted = sorted(set(names) - postings.looked)
            found = dict(store.related_postings_of(wanted))
            for name in wanted:
                postings[name] = dict(postings_of(found[name])) if name in found else {}

        def row_part(part: Callable[[Row], object]) -> OnDemand:  # type: ignore[type-arg]
            return OnDemand(lambda key: None if (found := row(key)) is None else part(found))

        def papers(name: str) -> set[str] | None:
            found = term(name)
            return set() if found is None else None if found.holders is None else set(found.holders)

        vectors, related, scores = (row_part(attrgetter(name)) for name in ("vector", "related", "scores"))
        df = OnDemand(lambda name: found.df if (found := term(name)) else 0)
        postings = OnDemand(lambda name: dict(found.postings) if (found := term(name)) else {})
        return cls(
            k,
            store.related_digests(),
            row_part(lambda row: row.counts),
            vectors,
            related,
            scores,
            df,
            OnDemand(papers),
            postings,
            store=store,
            read_rows=read_rows,
            read_lists=read_lists,
            read_dfs=read_dfs,
            read_postings=read_postings,
        )

    def _read_whole(self) -> None:
        """Read every row not read yet from the store and make the term tables from all rows:
        the index is whole from here on."""
        if self.store is None:
            return
        stored = {row.key: row for row in map(Row.of_columns, self.store.related_rows())}
        self.store, self.read_rows, self.read_lists = None, all_in_memory, all_in_memory
        self.read_dfs, self.read_postings = all_in_memory, all_in_memory

        def merged(table: dict[str, Item], part: Callable[[Row], Item], empty: Item) -> dict[str, Item]:
            looked = getattr(table, "looked", ())
            return {
                key: dict.get(table, key, empty)
                if key in looked
                else part(stored[key])
                if key in stored
                else empty
                for key in self.digests
            }

        self.counts = merged(self.counts, lambda row: row.counts, ())
        self.vectors = merged(self.vectors, lambda row: row.vector, ())
        self.related = merged(self.related, lambda row: row.related, ())
        self.scores = merged(self.scores, lambda row: row.scores, ())
        self.df, self.holders, self.postings = Counter(), defaultdict(set), defaultdict(dict)
        for key, terms in self.counts.items():
            for term, _ in terms:
                self.df[term] += 1
                self.holders[term].add(key)
        for key, vector in self.vectors.items():
            for term, weight in vector:
                self.postings[term][key] = weight

    def saved(self) -> tuple[list[RowColumns], list[str], list[tuple[str, TermRow | None]]]:
        """What changed since the last call, as the store keeps it: the rows changed, the keys
        removed, and the terms changed (None: no paper holds it now)."""
        keys, self.unsaved = sorted(self.unsaved), set()
        parts = (self.counts, self.vectors, self.related, self.scores)
        rows = [
            Row(key, self.digests[key], *(part[key] for part in parts)).columns()
            for key in keys
            if key in self.digests
        ]
        names, self.unsaved_terms = sorted(self.unsaved_terms), set()
        terms = [(name, (term := self._term(name)) and term.columns(name)) for name in names]
        return rows, [key for key in keys if key not in self.digests], terms

    def _term(self, name: str) -> Term | None:
        """What the store keeps of a term (None when no paper holds it)."""
        df = self.df[name]
        if not df:
            return None
        holders = tuple(sorted(self.holders[name])) if bucket(df) <= HELD_BUCKET else None
        return Term(df, holders, tuple(sorted(self.postings[name].items())))

    def update(
        self,
        texts: Mapping[str, tuple[str, str]],
        k: int,
        workers: int = 1,
        digests: Mapping[str, str] | None = None,
    ) -> set[str]:
        """Bring the index to `texts` (paper key -> title and text) with k related papers
        each; the keys whose related list changed (or that are gone). With `digests` (paper
        key -> a digest of whatever its text is made from), the text of a paper is looked up
        only when its digest is new: `texts` may make them on demand."""
        digests = digests if digests is not None else digests_of(texts)
        return self.update_some(texts, self.digests.keys() - digests.keys(), k, workers, True, digests)

    def update_some(
        self,
        texts: Mapping[str, tuple[str, str]],
        gone: set[str],
        k: int,
        workers: int = 1,
        everything: bool = False,
        digests: Mapping[str, str] | None = None,
    ) -> set[str]:
        """`update`, told only what changed: the texts of the papers that may have (new or
        edited; every other paper's text is the one the index has) and the keys of the papers
        gone. A change of k needs every text (`everything`)."""
        if k != self.k and not everything:
            raise ValueError("a change of k ranks every paper again: give every text")
        gone = gone & self.digests.keys()
        digests = digests if digests is not None else digests_of(texts)
        edited = {key for key, d in digests.items() if self.digests.get(key) != d}
        counts = {key: term_counts(*texts[key]) for key in edited}
        if k != self.k or not self._in_reach(gone, counts):
            self._read_whole()
        reweighed = self._count(gone, counts)
        for key in gone:
            del self.digests[key], self.related[key], self.scores[key]
        self.digests.update((key, digests[key]) for key in edited)
        revector = (edited | set().union(*(self.holders[t] for t in reweighed))) - gone
        self.read_rows(revector)
        self.read_dfs(term for key in revector for term, _ in self.counts[key])
        vectors = {key: self._vector(self.counts[key]) for key in revector}
        self.read_postings(term for key in gone | vectors.keys() for term, _ in self.vectors.get(key, ()))
        self.read_postings(term for vector in vectors.values() for term, _ in vector)
        changes = self._post(gone, vectors)
        moved = {key: terms for key, terms in changes.items() if key not in gone}
        touched = set().union(*changes.values())
        rerank = moved.keys() | edited | set().union(*(self.postings[t].keys() for t in touched))
        self.read_lists(rerank)
        whole = set(rerank) if len(moved) + len(gone) > FEW_MOVED else set(edited)
        if k != self.k:
            self.k, rerank, whole = k, set(digests), set(digests)
        self.unsaved |= gone | edited | moved.keys()
        whole |= {key for key in rerank - whole if not gone.isdisjoint(self.related.get(key, ()))}
        holding: dict[str, list[str]] = defaultdict(list)  # term -> the moved papers whose weight of it moved
        for key in sorted(moved):
            for term in moved[key]:
                holding[term].append(key)
        others = {key: self._rescored(key, moved.get(key, ()), holding) for key in sorted(rerank - whole)}
        self.read_lists(set().union(*others.values()))
        weights = OnDemand(lambda key: dict(self.vectors[key]))  # each vector as a dict, made once
        ranked_in = {key: self._rank_in(key, found, weights) for key, found in others.items()}
        whole |= {key for key, found in ranked_in.items() if found is None}
        changed = self._rank(sorted(whole), workers)
        kept_lists = ((key, found) for key, found in ranked_in.items() if found is not None)
        return self._keep(kept_lists) | changed | gone

    def _keep(self, ranked: Iterable[tuple[str, Ranked]]) -> set[str]:
        """Keep the lists and scores ranking found; the keys whose list changed."""
        changed = set()
        for key, (found, scores) in ranked:
            if self.related.get(key) != found:
                changed.add(key)
            elif self.scores.get(key) == scores:
                continue
            self.related[key], self.scores[key] = found, scores
            self.unsaved.add(key)
        return changed

    def _in_reach(self, gone: set[str], counts: dict[str, Counts]) -> bool:
        """Whether the change needs no term's papers that the store does not list: no term
        changes bucket above `HELD_BUCKET` (always, for a whole index)."""
        if self.store is None:
            return True
        moves: Counter[str] = Counter()
        for key in gone | counts.keys():
            moves.subtract(term for term, _ in self.counts.get(key, ()))
        for terms in counts.values():
            moves.update(term for term, _ in terms)
        for term, move in moves.items():
            before, after = bucket(self.df[term]), bucket(self.df[term] + move)
            if before != after and max(before, after) > HELD_BUCKET:
                return False
        return True

    def _count(self, gone: set[str], counts: dict[str, Counts]) -> set[str]:
        """Move the document frequencies to the new texts; the terms whose bucket changed.
        The papers of a term above `HELD_BUCKET` are followed only by a whole index."""
        before: dict[str, int] = {}

        def papers(term: str) -> set[str]:
            held = self.store is None or bucket(before[term]) <= HELD_BUCKET
            return self.holders[term] if held else set()

        for key in gone | counts.keys():
            for term, _ in self.counts.pop(key, ()):
                before.setdefault(term, self.df[term])
                self.df[term] -= 1
                papers(term).discard(key)
        for key, terms in counts.items():
            self.counts[key] = terms
            for term, _ in terms:
                before.setdefault(term, self.df[term])
                self.df[term] += 1
                papers(term).add(key)
        self.unsaved_terms |= before.keys()
        return {term for term, df in before.items() if bucket(df) != bucket(self.df[term])}

    def _vector(self, counts: Counts) -> Vector:
        """A paper's TOP_TERMS kept terms with their weights, divided by the L2 norm of the
        paper's term frequencies (1 + log tf of every term, without idf: a term whose bucket
        changes changes its own weight only)."""
        frequencies = [(1.0 + math.log(n), t) for t, n in counts]
        norm = math.hypot(*(f for f, _ in frequencies)) or 1.0
        weights = ((f * idf(bucket(self.df[t])), t) for f, t in frequencies if kept(bucket(self.df[t])))
        best = sorted((-w, t) for w, t in weights)[:TOP_TERMS]
        return tuple((t, -w / norm) for w, t in best)

    def _post(self, gone: set[str], vectors: dict[str, Vector]) -> dict[str, set[str]]:
        """Move the posting lists to the new vectors; each paper whose vector changed (gone
        papers too) with the terms whose weight in it changed (came, went or moved)."""
        moved: dict[str, set[str]] = {}
        for key in sorted(gone | vectors.keys()):
            old = dict(self.vectors.pop(key, ()))
            new = vectors.get(key)
            if new is not None:
                self.vectors[key] = new
            weights = dict(new or ())
            changed = {term for term in old.keys() | weights.keys() if old.get(term) != weights.get(term)}
            if not changed:
                continue
            for term in old.keys() - weights.keys():
                del self.postings[term][key]
            for term in changed & weights.keys():
                self.postings[term][key] = weights[term]
            self.unsaved_terms |= changed
            moved[key] = changed
        return moved

    def _rank(self, keys: list[str], workers: int) -> set[str]:
        """Rank the related papers of `keys` again; the keys whose list changed."""
        if self.store is not None and len(keys) > CHUNK:  # forked workers must not read the store
            for key in keys:
                for term, _ in self.vectors.get(key, ()):
                    self.postings.get(term)
        return self._keep(zip(keys, _map_chunks(self._nearest_all, keys, workers), strict=True))

    def _rescored(self, key: str, changed: Iterable[str], holding: Mapping[str, list[str]]) -> set[str]:
        """The papers whose score with this one may have changed: those holding a term whose
        weight changed in this paper (`changed`), and the moved papers whose weight of one of
        this paper's terms changed (`holding`: by term)."""
        terms = {term for term, _ in self.vectors[key]} | set(changed)
        found = {other for term in changed for other in self.postings[term]}
        found.update(other for term in terms for other in holding.get(term, ()))
        found.discard(key)
        return found

    def _rank_in(self, key: str, others: set[str], weights: Mapping[str, dict[str, float]]) -> Ranked | None:
        """The related papers of a paper from its list before and the scores of `others` (the
        papers whose score with it may have changed, `_rescored`) found again: every paper
        outside the list ranked below it before and, its score unchanged, still does, unless a
        paper of the list lost score (then None: rank it anew). `weights`: each vector as a dict."""
        vector = self.vectors[key]
        before = dict(zip(self.related[key], self.scores[key], strict=True))
        scores = dict(before)
        for other in sorted(others):
            found, total, shared = weights[other], 0.0, False
            for term, q in vector:  # in the order `_nearest` adds them: the same float
                if term in found:
                    total, shared = total + q * found[term], True
            if shared:
                scores[other] = total
            else:
                scores.pop(other, None)
        if any(scores.get(other, -1.0) < score for other, score in before.items()):
            return None
        return top_k(scores, self.k)

    def _nearest_all(self, keys: Sequence[str]) -> list[Ranked]:
        """`_nearest` of each key."""
        return [self._nearest(key) for key in keys]

    def _nearest(self, key: str) -> Ranked:
        """The k papers whose vectors have the highest dot product with this paper's, and those."""
        scores: dict[str, float] = {}
        score = scores.get
        for term, q in self.vectors[key]:
            for other, w in self.postings[term].items():
                scores[other] = score(other, 0.0) + q * w
        scores.pop(key, None)
        return top_k(scores, self.k)


def top_k(scores: dict[str, float], k: int) -> Ranked:
    """The k keys of highest score, ties broken by the smaller key, and their scores."""
    best = nsmallest(max(k, 0), scores.items(), key=lambda item: (-item[1], item[0]))
    return tuple(key for key, _ in best), tuple(score for _, score in best)


def _map_chunks(func, keys: Sequence[str], workers: int) -> list:  # type: ignore[no-untyped-def]
    """func(chunk) over consecutive chunks of keys, concatenated in order; in forked processes
    (which inherit the index without copies) when there are many and several workers."""
    if workers <= 1 or len(keys) <= CHUNK or "fork" not in multiprocessing.get_all_start_methods():
        return func(keys)
    chunks = [keys[start : start + CHUNK] for start in range(0, len(keys), CHUNK)]
    with Workers(workers, func) as pool:
        return list(chain.from_iterable(pool.map(chunks)))


def related_papers(
    docs: Sequence[str], k: int = 5, *, titles: Sequence[str] | None = None, workers: int = 1
) -> list[list[int]]:
    """For each paper, up to k indices of the most similar other papers, best first (the index
    of a clean build over docs[i], with titles[i] as the title if given)."""
    keys = [f"{i:09d}" for i in range(len(docs))]
    texts = {key: ((titles[i] if titles is not None else ""), docs[i]) for i, key in enumerate(keys)}
    index = RelatedIndex(k)
    index.update(texts, k, workers)
    return [[int(other) for other in index.related[key]] for key in keys]
