"""What `deploy --to s3://…` sends: a first deploy, a deploy with no change, one after adding a seed.

    python benchmarks/bench_deploy.py [--authors 360] [--papers 1800]

Builds a generated project (`benchmarks.project`), deploys it to a local S3 stand-in (moto in
server mode, started here), adds the newcomer seed of `bench_build.py` (a new paper and an
existing one) and deploys again. Prints, for each deploy, the objects uploaded, deleted and
unchanged, the bytes uploaded and the wall time (the build included).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import boto3  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

from benchmarks.bench_build import NEWCOMER, Changes  # noqa: E402
from benchmarks.corpus import make_corpus, seed_text  # noqa: E402
from benchmarks.project import write_project  # noqa: E402
from scholarsite import cli  # noqa: E402
from scholarsite.commands.publish import published  # noqa: E402

BUCKET = "bench"
SUMMARY = re.compile(r"(\d+) uploaded, (\d+) deleted, (\d+) unchanged")


def deploy(project: Path, before: dict[str, str]) -> str:
    """One measured deploy: its figures as a line."""
    started = time.perf_counter()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["--project", str(project), "deploy", "--quiet", "--to", f"s3://{BUCKET}/site"])
    seconds = time.perf_counter() - started
    if code != cli.OK:
        raise SystemExit(f"deploy failed ({code})")
    match = SUMMARY.search(out.getvalue())
    if match is None:
        raise SystemExit(f"no summary in {out.getvalue()!r}")
    site = published(project / "site")
    sent = sum((project / "site" / p).stat().st_size for p, sha in site.files.items() if before.get(p) != sha)
    uploaded, deleted, unchanged = match.groups()
    return (
        f"{uploaded:>7} uploaded {deleted:>6} deleted {unchanged:>7} unchanged "
        f"{sent / 1e6:8.1f} MB sent {seconds:7.1f} s"
    )


def main() -> None:
    """Run the three deploys and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors", type=int, default=360)
    parser.add_argument("--papers", type=int, default=1800)
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    os.environ.update(
        AWS_ENDPOINT_URL=f"http://{host}:{port}",
        AWS_ACCESS_KEY_ID="bench",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_DEFAULT_REGION="us-east-1",
    )
    boto3.session.Session().client("s3").create_bucket(Bucket=BUCKET)
    with tempfile.TemporaryDirectory(prefix="bench-deploy-") as folder:
        corpus = make_corpus(args.authors, args.papers)
        project = write_project(Path(folder) / "project", corpus)
        changes = Changes.choose(corpus)
        print(f"{args.authors} authors, {len(corpus.papers)} papers (moto at {host}:{port})")
        print(f"first deploy:    {deploy(project, {})}")
        files = published(project / "site").files
        print(f"no change:       {deploy(project, files)}")
        newcomer = seed_text(NEWCOMER, [changes.new_paper, corpus.papers[changes.shared]], 2)
        (project / "seeds/zz_benchmark_newcomer.txt").write_text(newcomer, encoding="utf-8")
        print(f"add one seed:    {deploy(project, files)}")
        print(f"site: {len(files)} files")
    server.stop()


if __name__ == "__main__":
    main()
