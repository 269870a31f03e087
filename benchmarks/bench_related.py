"""Benchmark scholarsite.related.related_papers on synthetic abstracts.

Usage: python benchmarks/bench_related.py [--docs N] [--words W] [--repeats R] [--workers P]
       [--top-terms T]
Each abstract mixes words of one of many topics with words from a Zipf-distributed
vocabulary. Prints the median wall and CPU time with the load average (other work on the
machine inflates the wall time), the peak memory traced during one extra run (tracemalloc)
and the peak RSS over the timed runs; asserts nothing.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import resource
import statistics
import time
import tracemalloc

from scholarsite.model.related import TOP_TERMS, related_papers

VOCABULARY = 60_000
TOPICS = 2_000
TOPIC_WORDS = 40
TOPIC_SHARE = 0.25


def make_vocabulary(rng: random.Random, size: int) -> list[str]:
    """Distinct pseudo-words of 3 to 10 letters."""
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 10))))
    return sorted(words)


def make_docs(count: int, words: int, seed: int = 0) -> list[str]:
    """Synthetic abstracts: a topic's words plus Zipf-distributed background words."""
    rng = random.Random(seed)
    vocabulary = make_vocabulary(rng, VOCABULARY)
    rng.shuffle(vocabulary)
    cumulative = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(vocabulary))))
    topics = [rng.sample(vocabulary, TOPIC_WORDS) for _ in range(TOPICS)]
    topical = int(words * TOPIC_SHARE)
    docs = []
    for _ in range(count):
        topic = rng.choices(topics[rng.randrange(TOPICS)], k=topical)
        background = rng.choices(vocabulary, cum_weights=cumulative, k=words - topical)
        docs.append(" ".join(topic + background))
    return docs


def main() -> None:
    """Time related_papers --repeats times and print the median and peak memory."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--words", type=int, default=150)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--top-terms", type=int, default=TOP_TERMS)
    args = parser.parse_args()

    docs = make_docs(args.docs, args.words)
    corpus_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times, cpu_times = [], []
    for _ in range(args.repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        related = related_papers(docs, top_terms=args.top_terms, workers=args.workers)
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    found = sum(map(len, related)) / len(related)
    wall, cpu = statistics.median(times), statistics.median(cpu_times)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"docs={args.docs} words={args.words} top_terms={args.top_terms} workers={args.workers}"
        f" related/doc={found:.2f}"
    )
    print(f"median seconds: {wall:.2f} wall, {cpu:.2f} CPU of the main process ({args.repeats} runs)")
    print(f"load average (1, 5, 15 min) after the runs: {load}")

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worker_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    tracemalloc.start()
    related_papers(docs, top_terms=args.top_terms)  # in this process only, so that tracemalloc sees it all
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"peak traced memory of one run: {peak / 2**20:.0f} MiB")
    print(f"peak RSS of the process: {corpus_rss:.0f} MiB with the corpus, {rss:.0f} MiB over the timed runs")
    if args.workers > 1:
        print(f"peak RSS of the largest worker: {worker_rss:.0f} MiB")


if __name__ == "__main__":
    main()
