"""`scholarsite deploy --to s3://…` against a local S3 stand-in (moto in server mode): every
file uploaded with its type and cache headers, then only what changed; objects this tool did
not upload left alone; store failures are messages, never tracebacks."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests
from moto.server import ThreadedMotoServer

from scholarsite import cli
from scholarsite.commands import s3deploy
from scholarsite.commands.publish import Damaged, published

from .conftest import ROOT, adopt_example

BUCKET = "lab-site"
TARGET = f"s3://{BUCKET}/records"


@pytest.fixture
def s3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, str]]:
    """A moto S3 server on a free local port, with the bucket made; the AWS environment points
    at it (and at no file of this machine's ~/.aws). Its client and address."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    requests.post(f"{url}/moto-api/reset", timeout=10)  # moto keeps its buckets in the process
    for name, value in {
        "AWS_ENDPOINT_URL": url,
        "AWS_ACCESS_KEY_ID": "scholarsite-test",
        "AWS_SECRET_ACCESS_KEY": "scholarsite-test-secret",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": str(tmp_path / "no-aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-aws-credentials"),
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    client = boto3.session.Session().client("s3")
    client.create_bucket(Bucket=BUCKET)
    try:
        yield client, url
    finally:
        requests.post(f"{url}/moto-api/reset-auth", data=b"inf", timeout=10)
        requests.post(f"{url}/moto-api/reset", timeout=10)
        server.stop()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A new project with its example made a real seed."""
    folder = tmp_path / "lab"
    assert cli.main(["new", str(folder)]) == cli.OK
    adopt_example(folder)
    return folder


def deploy(project: Path, *more: str) -> int:
    """`scholarsite deploy --to TARGET` for the project."""
    return cli.main(["--project", str(project), "deploy", "--to", TARGET, *more])


def objects(client: Any) -> dict[str, bytes]:
    """Every object of the bucket: its key and bytes."""
    listed = client.list_objects_v2(Bucket=BUCKET).get("Contents", [])
    return {item["Key"]: client.get_object(Bucket=BUCKET, Key=item["Key"])["Body"].read() for item in listed}


def digests(project: Path) -> dict[str, str]:
    """The site's files and their sha256, from its manifest."""
    return published(project / "site").files


def uploaded(output: str) -> set[str]:
    """The site paths `--verbose` says were uploaded."""
    prefix = f"  uploaded {TARGET}/"
    return {line.removeprefix(prefix) for line in output.splitlines() if line.startswith(prefix)}


def test_first_deploy_uploads_every_file_with_its_type_and_cache_headers(
    s3: tuple[Any, str], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client, _ = s3
    assert deploy(project, "--quiet") == cli.OK
    assert "deployed to s3://lab-site/records/:" in capsys.readouterr().out
    site = digests(project)
    held = objects(client)
    assert set(held) == {f"records/{path}" for path in site} | {"records/.scholarsite-deploy.json"}
    for path, sha in site.items():
        assert hashlib.sha256(held[f"records/{path}"]).hexdigest() == sha, path
    record = json.loads(held["records/.scholarsite-deploy.json"])["files"]
    assert record == site

    def head(path: str) -> tuple[str, str]:
        answer = client.head_object(Bucket=BUCKET, Key=f"records/{path}")
        return answer["ContentType"], answer["CacheControl"]

    assert head("index.html") == ("text/html; charset=utf-8", "no-cache")
    assert head("authors/ada-lovelace/index.html") == ("text/html; charset=utf-8", "no-cache")
    assert head("assets/style.css") == ("text/css; charset=utf-8", "public, max-age=300")
    assert head("assets/site.js") == ("text/javascript; charset=utf-8", "public, max-age=300")
    assert head("data/papers.json")[0] == "application/json"
    assert head("assets/favicon.svg")[0] == "image/svg+xml"
    bibtex = next(path for path in site if path.startswith("data/bibtex/"))  # the authors' BibTeX
    assert head(bibtex)[0] == "application/x-bibtex; charset=utf-8"
    fragment = next(path for path in site if path.endswith(".pf_fragment"))
    assert head(fragment) == ("application/octet-stream", "public, max-age=31536000, immutable")


def test_a_second_deploy_uploads_only_what_changed(
    s3: tuple[Any, str], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client, _ = s3
    assert deploy(project, "--quiet") == cli.OK
    before = digests(project)
    capsys.readouterr()
    assert deploy(project, "--verbose") == cli.OK
    assert uploaded(capsys.readouterr().out) == set()  # nothing changed: nothing sent

    shutil.copy(ROOT / "seeds/000_428d720ed8b996c5.txt", project / "seeds")
    assert deploy(project, "--verbose") == cli.OK
    output = capsys.readouterr().out
    after = digests(project)
    changed = {path for path, sha in after.items() if before.get(path) != sha}
    assert uploaded(output) == changed
    assert 0 < len(changed) < len(after)  # a new author's pages and the listings, not the site
    gone = len(before.keys() - after.keys())  # search shards renamed with their content
    assert f"{len(changed)} uploaded, {gone} deleted, {len(after) - len(changed)} unchanged" in output
    held = objects(client)
    for path, sha in after.items():
        assert hashlib.sha256(held[f"records/{path}"]).hexdigest() == sha, path


def test_removed_pages_are_deleted_and_foreign_objects_left_alone(
    s3: tuple[Any, str], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client, _ = s3
    client.put_object(Bucket=BUCKET, Key="records/notes/keep.txt", Body=b"a person's file")
    client.put_object(Bucket=BUCKET, Key="elsewhere.html", Body=b"outside the prefix")
    shutil.copy(ROOT / "seeds/000_428d720ed8b996c5.txt", project / "seeds")
    assert deploy(project) == cli.OK
    with_both = digests(project)
    assert (
        "s3://lab-site/records/notes/keep.txt: note: not uploaded by scholarsite" in capsys.readouterr().err
    )

    (project / "seeds/000_428d720ed8b996c5.txt").unlink()
    assert deploy(project, "--verbose") == cli.OK
    captured = capsys.readouterr()
    removed = with_both.keys() - digests(project).keys()
    assert removed  # the second author's pages are gone from the site...
    said = {
        line.removeprefix(f"  deleted {TARGET}/")
        for line in captured.out.splitlines()
        if "deleted s3" in line
    }
    assert said == removed
    held = objects(client)
    assert not {f"records/{path}" for path in removed} & held.keys()  # ...and from the bucket
    assert held["records/notes/keep.txt"] == b"a person's file"
    assert held["elsewhere.html"] == b"outside the prefix"
    assert "records/notes/keep.txt: note: not uploaded by scholarsite (left in place)" in captured.err


def test_an_object_it_did_not_upload_is_never_overwritten(
    s3: tuple[Any, str], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client, _ = s3
    client.put_object(Bucket=BUCKET, Key="records/index.html", Body=b"someone's home page")
    assert deploy(project, "--quiet") == cli.FAILED
    err = capsys.readouterr().err
    assert "s3://lab-site/records/index.html already exist but were not uploaded by scholarsite" in err
    assert objects(client) == {"records/index.html": b"someone's home page"}  # nothing was sent


def test_damaged_bytes_are_never_uploaded(s3: tuple[Any, str], project: Path) -> None:
    client, _ = s3
    assert cli.main(["--project", str(project), "build", "--quiet"]) == cli.OK
    page = project / "site/index.html"
    page.write_bytes(page.read_bytes().replace(b"<title>", b"<title>Defaced "))
    store = s3deploy.open_store(s3deploy.Target.parse(TARGET))
    with pytest.raises(Damaged, match=r"site/index.html does not hold the bytes the build wrote"):
        s3deploy.deploy(store, published(project / "site"))
    assert b"Defaced" not in objects(client).get("records/index.html", b"")
    assert deploy(project, "--quiet") in (cli.OK, cli.FAILED)  # a build may repair it, or deploy refuses
    assert b"Defaced" not in objects(client).get("records/index.html", b"")


def free_port() -> int:
    """A local port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("no bucket", "there is no bucket 'no-such-bucket' at http://127.0.0.1:"),
        ("bad credentials", "refused access to bucket 'lab-site' (403"),
        ("no credentials", "no usable AWS credentials"),
        ("unreachable", "cannot use the store at http://127.0.0.1:"),
    ],
)
def test_store_failures_are_messages_and_nothing_is_built(
    s3: tuple[Any, str],
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    case: str,
    expected: str,
) -> None:
    _, url = s3
    target = TARGET
    if case == "no bucket":
        target = "s3://no-such-bucket/records"
    elif case == "bad credentials":
        requests.post(f"{url}/moto-api/reset-auth", data=b"0", timeout=10)  # keys must now be known
    elif case == "no credentials":
        monkeypatch.delenv("AWS_ACCESS_KEY_ID")
        monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    else:
        monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")
    assert cli.main(["--project", str(project), "deploy", "--to", target]) == cli.FAILED
    err = capsys.readouterr().err
    assert "error: not deployed: " in err and expected in err
    assert "Traceback" not in err
    assert not (project / "site").exists()  # the store is checked before the build


@pytest.mark.parametrize("target", ["http://bucket/x", "s3://", "s3://ab", "s3://bucket/a/../b"])
def test_a_target_that_is_no_s3_address_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--project", str(project), "deploy", "--to", target])
    assert stopped.value.code == 2
    assert "--to" in capsys.readouterr().err
