"""Generate a synthetic collection of seed files: shared papers, TeX, non-Latin names, `< > &`.

    python benchmarks/corpus.py OUT_DIR --authors 20000 --papers 100000

Deterministic for a given `--seed`. Used by the benchmarks and by the quality-gate tests;
`make_corpus` gives the same collection as data (names, distinct papers, seed files).
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass
from pathlib import Path

GIVEN = [
    "Ada",
    "Alan",
    "Grace",
    "Edsger",
    "Barbara",
    "Donald",
    "Frances",
    "John",
    "Leslie",
    "Radia",
    "José",
    "Zoë",
    "Søren",
    "Ángel",
    "François",
    "Łukasz",
    "Žofia",
    "Nguyễn",
    "Ingrid",
    "Kwame",
]
FAMILY = [
    "Lovelace",
    "Turing",
    "Hopper",
    "Dijkstra",
    "Liskov",
    "Knuth",
    "Allen",
    "McCarthy",
    "Lamport",
    "Perlman",
    "García",
    "Müller",
    "O'Brien",
    "van der Berg",
    "Øster",
    "Đorđević",
]
NON_LATIN = [
    "张伟",
    "王芳",
    "李娜",
    "Иван Петров",
    "Мария Иванова",
    "山田太郎",
    "김민준",
    "Γιώργος Παπαδόπουλος",
    "محمد علي",
    "אברהם כהן",
]
WORDS = [
    "efficient",
    "scalable",
    "distributed",
    "training",
    "inference",
    "attention",
    "sparse",
    "mixture",
    "experts",
    "model",
    "language",
    "vision",
    "graph",
    "kernel",
    "compiler",
    "memory",
    "communication",
    "overlap",
    "pipeline",
    "parallel",
    "quantum",
    "photonic",
    "lattice",
    "optimisation",
    "learning",
    "reinforcement",
    "federated",
    "robust",
    "adaptive",
    "benchmark",
    "latency",
    "throughput",
    "cache",
    "scheduling",
    "hardware",
    "accelerator",
    "tensor",
    "gradient",
]
TITLE_EXTRAS = [
    "$\\alpha$-Nets",
    "$O(n^2)$ Bounds",
    "Q&A",
    "<Think> Tokens",
    "x < y > z",
    "\\textit{In situ}",
    "Über-Scale",
    "Cost--Benefit",
    "C++ & Rust",
]
ABSTRACT_EXTRAS = [
    "a speedup of $1.27\\times$",
    "error below $10^{-3}$",
    "\\textit{e.g.} GPUs",
    "$^{167}\\mathrm{Er}^{3+}$ ions",
    "about 20~MHz",
    "light--matter interfaces",
    "inputs with <tags> & ampersands",
]
SUBJECTS = [
    "cs.DC",
    "cs.LG",
    "cs.CL",
    "cs.CV",
    "cs.AI",
    "cs.PL",
    "cs.AR",
    "cs.NI",
    "cs.DB",
    "cs.CR",
    "stat.ML",
    "math.OC",
    "quant-ph",
    "eess.IV",
    "eess.SP",
    "physics.optics",
    "cond-mat.mes-hall",
]


def suffix(number: int) -> str:
    """A short letter code that keeps generated names distinct: A, B, ..., Z, Ba, Bb, ..."""
    letters = ""
    while True:
        number, rest = divmod(number, 26)
        letters = chr(ord("a") + rest) + letters
        if number == 0:
            return letters.capitalize()


def author_names(count: int, rng: random.Random) -> list[str]:
    """Distinct author names, about one in ten in a non-Latin script."""
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < count:
        tag = suffix(len(names))
        if rng.random() < 0.1:
            name = f"{rng.choice(NON_LATIN)} {tag}"
        else:
            name = f"{rng.choice(GIVEN)} {tag}. {rng.choice(FAMILY)}"
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


def title(number: int, rng: random.Random) -> str:
    """A paper title; some carry TeX or markup characters."""
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 10))).capitalize()
    extra = f" with {rng.choice(TITLE_EXTRAS)}" if rng.random() < 0.15 else ""
    return f"{words}{extra} ({number})"


def abstract(rng: random.Random) -> str:
    """A ~150-word abstract; some carry TeX."""
    sentences = []
    for _ in range(rng.randint(5, 9)):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 22)))
        if rng.random() < 0.2:
            body += f" with {rng.choice(ABSTRACT_EXTRAS)}"
        sentences.append(body.capitalize() + ".")
    return " ".join(sentences)


@dataclass(frozen=True)
class Paper:
    """One distinct generated paper and the authors (indices into ``Corpus.names``) who list it."""

    number: int
    year: int
    title: str
    abstract: str
    subjects: tuple[str, ...]
    authors: tuple[int, ...]


@dataclass(frozen=True)
class Seed:
    """One seed file: its author, the papers it lists (indices into ``Corpus.papers``), its claim."""

    file_name: str
    author: int
    papers: tuple[int, ...]
    claimed: int


@dataclass(frozen=True)
class Corpus:
    """Everything `generate` writes, as data: author names, distinct papers and seed files."""

    names: list[str]
    papers: list[Paper]
    seeds: list[Seed]

    def seed_text(self, seed: Seed) -> str:
        """The text of one seed file in the scraped format."""
        return seed_text(self.names[seed.author], [self.papers[i] for i in seed.papers], seed.claimed)

    def write_seeds(self, out: Path) -> None:
        """Write every seed file into ``out`` (created if needed)."""
        out.mkdir(parents=True, exist_ok=True)
        for seed in self.seeds:
            (out / seed.file_name).write_text(self.seed_text(seed), encoding="utf-8")


def seed_text(name: str, papers: list[Paper], claimed: int) -> str:
    """One seed file in the scraped format: header, name, claimed count, records newest first."""
    count = f"At least {claimed} records" if claimed > len(papers) else f"{len(papers)} records"
    parts = [
        "arXiv subjects",
        name,
        f"Publications and source records attributed to {name}.",
        f"{count}Linked to original sources",
    ]
    for paper in sorted(papers, key=lambda p: -p.year):
        subjects = " ".join(f"{s}↗" for s in paper.subjects)
        parts += [f"arXiv{paper.year}", paper.title, paper.abstract, subjects]
    return "\n\n".join(parts) + "\n"


def make_corpus(authors: int, papers: int, seed: int = 1) -> Corpus:
    """`papers` distinct papers (1-4 authors each) listed by up to `authors` authors.

    Deterministic for a given ``seed``; the random draws happen in the same order as they
    always have, so seed files keep their exact bytes.
    """
    rng = random.Random(seed)
    names = author_names(authors, rng)
    listed: list[list[int]] = [[] for _ in names]
    generated: list[Paper] = []
    for number in range(papers):
        year, paper_title, text = rng.randint(1995, 2026), title(number, rng), abstract(rng)
        subjects = tuple(rng.sample(SUBJECTS, rng.choice([1, 1, 1, 2, 3])))
        first = min(int(rng.paretovariate(1.2)) - 1, authors - 1)
        team = {(first * 7919 + number) % authors}
        while len(team) < min(rng.choice([1, 2, 2, 3, 4]), authors):
            team.add(rng.randrange(authors))
        generated.append(Paper(number, year, paper_title, text, subjects, tuple(sorted(team))))
        for member in team:
            listed[member].append(number)
    seeds = []
    for index, numbers in enumerate(listed):
        if numbers:
            claimed = len(numbers) + (rng.randint(0, 3) if rng.random() < 0.3 else 0)
            seeds.append(Seed(f"{index:06d}.txt", index, tuple(numbers), claimed))
    return Corpus(names, generated, seeds)


def generate(out: Path, authors: int, papers: int, seed: int = 1) -> Corpus:
    """Write `authors` seed files listing `papers` distinct papers (1-4 authors each) into `out`.

    Returns the generated corpus as data.
    """
    corpus = make_corpus(authors, papers, seed)
    corpus.write_seeds(out)
    return corpus


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--authors", type=int, default=300)
    parser.add_argument("--papers", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    generate(args.out, args.authors, args.papers, args.seed)


if __name__ == "__main__":
    main()
