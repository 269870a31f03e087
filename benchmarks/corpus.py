"""Generate a synthetic collection of seed files: shared papers, TeX, non-Latin names, `< > &`.

    python benchmarks/corpus.py OUT_DIR --authors 20000 --papers 100000

Deterministic for a given `--seed`. Used by the benchmarks and by the quality-gate tests.
"""

from __future__ import annotations

import argparse
import random
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


def seed_text(name: str, records: list[tuple[int, str, str, list[str]]], rng: random.Random) -> str:
    """One seed file in the scraped format."""
    claimed = len(records) + (rng.randint(0, 3) if rng.random() < 0.3 else 0)
    count = f"At least {claimed} records" if claimed > len(records) else f"{len(records)} records"
    parts = [
        "arXiv subjects",
        name,
        f"Publications and source records attributed to {name}.",
        f"{count}Linked to original sources",
    ]
    for year, paper_title, text, subjects in sorted(records, key=lambda r: -r[0]):
        parts += [f"arXiv{year}", paper_title, text, " ".join(f"{s}↗" for s in subjects)]
    return "\n\n".join(parts) + "\n"


def generate(out: Path, authors: int, papers: int, seed: int = 1) -> None:
    """Write `authors` seed files listing `papers` distinct papers (1-4 authors each) into `out`."""
    rng = random.Random(seed)
    names = author_names(authors, rng)
    listed: list[list[tuple[int, str, str, list[str]]]] = [[] for _ in names]
    for number in range(papers):
        record = (
            rng.randint(1995, 2026),
            title(number, rng),
            abstract(rng),
            rng.sample(SUBJECTS, rng.choice([1, 1, 1, 2, 3])),
        )
        first = min(int(rng.paretovariate(1.2)) - 1, authors - 1)
        team = {(first * 7919 + number) % authors}
        while len(team) < min(rng.choice([1, 2, 2, 3, 4]), authors):
            team.add(rng.randrange(authors))
        for member in team:
            listed[member].append(record)
    out.mkdir(parents=True, exist_ok=True)
    for index, (name, records) in enumerate(zip(names, listed, strict=True)):
        if records:
            (out / f"{index:06d}.txt").write_text(seed_text(name, records, rng), encoding="utf-8")


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
