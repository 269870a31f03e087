"""`scholarsite deploy --to s3://BUCKET/PREFIX`: publish the site to an S3-compatible store.

AWS S3, Cloudflare R2, MinIO, Backblaze B2...: boto3 finds the endpoint and credentials where
every AWS tool does (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_PROFILE`, ~/.aws/config).
Beside the site, under the prefix, the bucket keeps `.scholarsite-deploy.json`: the sha256 of
every object this tool uploaded. A deploy compares it with the build's manifest and

1. uploads only the files whose bytes changed (or whose object is gone), each checked
   against the manifest's digest as it is read, with its Content-Type and Cache-Control
   (pages first checked, assets before the pages that use them);
2. then deletes the objects it uploaded that the site no longer has;
3. never overwrites or deletes an object it did not upload: it names them.

The record is written before the uploads (a file being uploaded is marked unknown) and
after the deletions, so a deploy cut short is finished by the next one.
"""

from __future__ import annotations

import json
import mimetypes
import re
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, PartialCredentialsError

from scholarsite.commands.publish import Site, verified
from scholarsite.inputs.jsondata import loads

RECORD = ".scholarsite-deploy.json"  # under the prefix: path -> sha256 of what this tool uploaded
PENDING = ""  # the record's digest of an upload under way: its object's bytes are unknown
HTML_CACHE = "no-cache"  # pages: the browser asks each time whether they changed
HASHED_CACHE = "public, max-age=31536000, immutable"  # a name that changes with its content
OTHER_CACHE = "public, max-age=300"  # stable names (style.css, data/*.json): five minutes
HASHED = re.compile(r"\.pf_(fragment|index|filter|meta)$")  # Pagefind's content-addressed files
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".xml": "application/xml",
    ".bib": "application/x-bibtex; charset=utf-8",
    ".ris": "application/x-research-info-systems; charset=utf-8",
    ".svg": "image/svg+xml",
    ".wasm": "application/wasm",
    ".webmanifest": "application/manifest+json",
}
BUILT_IN = mimetypes.MimeTypes()  # Python's own table only, not the machine's /etc/mime.types
UPLOADERS = 8  # uploads at a time
BATCH = 1000  # the most keys one DeleteObjects request takes
SHOWN = 5  # objects named in a refusal


class S3Error(Exception):
    """The store refused, could not be reached, or holds objects this tool must not touch."""


@dataclass(frozen=True)
class Target:
    """Where the site goes: a bucket and a key prefix ("" or ending in "/")."""

    bucket: str
    prefix: str

    @classmethod
    def parse(cls, text: str) -> Target:
        """`s3://BUCKET/PREFIX` (PREFIX may be empty); ValueError saying what was expected."""
        if not text.startswith("s3://"):
            raise ValueError(f"expected s3://BUCKET/PREFIX, not {text!r}")
        bucket, _, prefix = text.removeprefix("s3://").partition("/")
        prefix = prefix.strip("/")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{2,254}", bucket):
            raise ValueError(
                f"{bucket!r} is not a bucket name (3 or more of a-z, 0-9, '.', '-'), in {text!r}"
            )
        if any(part in ("", ".", "..") for part in prefix.split("/")) and prefix:
            raise ValueError(f"the prefix of {text!r} has an empty, '.' or '..' part")
        return cls(bucket, prefix + "/" if prefix else "")

    def key(self, path: str) -> str:
        """The object key of a site path."""
        return self.prefix + path

    def url(self, path: str = "") -> str:
        """`s3://bucket/prefix/path`, as messages name objects."""
        return f"s3://{self.bucket}/{self.key(path)}"


@dataclass(frozen=True)
class Plan:
    """What a deploy does: paths to upload (in order) and to delete, and what it leaves."""

    upload: tuple[str, ...]
    delete: tuple[str, ...]
    unchanged: int
    foreign: tuple[str, ...]  # objects under the prefix this tool never uploaded: left alone
    in_the_way: tuple[str, ...]  # of those, the ones the site would overwrite: a refusal


def plan(local: dict[str, str], uploaded: dict[str, str], listed: set[str]) -> Plan:
    """Compare the site's files and digests (`local`) with the record of what was uploaded
    and with the objects under the prefix (`listed`, site paths)."""
    changed = [path for path, sha in local.items() if uploaded.get(path) != sha or path not in listed]
    foreign = sorted(listed - uploaded.keys() - {RECORD})
    return Plan(
        upload=tuple(sorted(changed, key=lambda path: (path.endswith(".html"), path))),
        delete=tuple(sorted(uploaded.keys() - local.keys())),
        unchanged=len(local) - len(changed),
        foreign=tuple(path for path in foreign if path not in local),
        in_the_way=tuple(path for path in foreign if path in local),
    )


def headers(path: str) -> dict[str, str]:
    """The Content-Type and Cache-Control of a site path's object."""
    suffix = PurePosixPath(path).suffix.lower()
    kind = TYPES.get(suffix) or BUILT_IN.guess_type(path, strict=False)[0] or "application/octet-stream"
    cache = HTML_CACHE if suffix == ".html" else HASHED_CACHE if HASHED.search(path) else OTHER_CACHE
    return {"ContentType": kind, "CacheControl": cache}


def connect() -> Any:
    """An S3 client configured from the environment, that gives up on a dead endpoint quickly."""
    config = Config(connect_timeout=10, read_timeout=60, retries={"max_attempts": 3, "mode": "standard"})
    return boto3.session.Session().client("s3", config=config)


class Store:
    """The bucket, through one client, as this deploy sees it."""

    def __init__(self, client: Any, target: Target) -> None:
        self.client, self.target = client, target

    def check(self) -> None:
        """S3Error unless the bucket exists and these credentials may use it."""
        try:
            self.client.head_bucket(Bucket=self.target.bucket)
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in ("404", "NoSuchBucket"):
                raise S3Error(
                    f"there is no bucket {self.target.bucket!r} at {self.endpoint()}; create it first"
                ) from None
            raise

    def endpoint(self) -> str:
        """The store's address, as boto3 resolved it."""
        return str(self.client.meta.endpoint_url)

    def record(self) -> dict[str, str]:
        """What this tool uploaded here before (path -> sha256); none on a first deploy."""
        try:
            body = self.client.get_object(Bucket=self.target.bucket, Key=self.target.key(RECORD))["Body"]
        except ClientError as exc:
            if str(exc.response.get("Error", {}).get("Code", "")) in ("404", "NoSuchKey"):
                return {}
            raise
        try:
            files = loads(body.read())["files"]
            if not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
                raise TypeError("not paths and digests")
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise S3Error(
                f"{self.target.url(RECORD)} is damaged ({exc}): it cannot say which objects this tool "
                "uploaded; delete the objects under the prefix and that file, then deploy again"
            ) from None
        return dict(files)

    def write_record(self, files: dict[str, str]) -> None:
        """Record what this tool uploaded."""
        body = json.dumps({"files": dict(sorted(files.items()))}, separators=(",", ":")).encode()
        self.client.put_object(
            Bucket=self.target.bucket,
            Key=self.target.key(RECORD),
            Body=body,
            ContentType="application/json",
            CacheControl=HTML_CACHE,
        )

    def listed(self) -> set[str]:
        """The site paths of the objects under the prefix."""
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.target.bucket, Prefix=self.target.prefix
        )
        return {
            item["Key"].removeprefix(self.target.prefix)
            for page in pages
            for item in page.get("Contents", ())
        }

    def upload(self, site: Site, path: str) -> None:
        """Upload a file of the site, checked against its digest as it is read."""
        with verified(site, path) as (content, _):
            self.client.upload_fileobj(
                content, self.target.bucket, self.target.key(path), ExtraArgs=headers(path)
            )

    def delete(self, paths: Iterable[str]) -> None:
        """Delete the objects of these site paths; S3Error naming any the store kept."""
        keys = [self.target.key(path) for path in paths]
        for start in range(0, len(keys), BATCH):
            objects = [{"Key": key} for key in keys[start : start + BATCH]]
            answer = self.client.delete_objects(
                Bucket=self.target.bucket, Delete={"Objects": objects, "Quiet": True}
            )
            if kept := answer.get("Errors"):
                named = ", ".join(f"{e.get('Key')} ({e.get('Code')})" for e in kept[:SHOWN])
                raise S3Error(f"the store did not delete {len(kept)} objects: {named}")


def sync(store: Store, site: Site) -> Plan:
    """Make the prefix hold the site, as the module says; what was done."""
    uploaded = store.record()
    done = plan(site.files, uploaded, store.listed())
    if done.in_the_way:
        named = ", ".join(store.target.url(path) for path in done.in_the_way[:SHOWN])
        more = f" and {len(done.in_the_way) - SHOWN} more" if len(done.in_the_way) > SHOWN else ""
        raise S3Error(
            f"{named}{more} already exist but were not uploaded by scholarsite: they will not be "
            "overwritten; delete them, or deploy to another prefix"
        )
    if done.upload:
        store.write_record(uploaded | dict.fromkeys(done.upload, PENDING))
        with ThreadPoolExecutor(UPLOADERS) as pool:
            for _ in pool.map(lambda path: store.upload(site, path), done.upload):
                pass
    if done.delete:
        store.delete(done.delete)
    if done.upload or done.delete or uploaded != site.files:
        store.write_record(site.files)
    return done


def explained(exc: BotoCoreError | ClientError, store: Store) -> S3Error:
    """What a boto3 failure means for the person deploying."""
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        code, message = str(error.get("Code", "")), str(error.get("Message", ""))
        if code in ("403", "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "Forbidden"):
            return S3Error(
                f"{store.endpoint()} refused access to bucket {store.target.bucket!r} ({code}"
                f"{': ' + message if message else ''}); check the credentials (AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY, or AWS_PROFILE) and that they may write to the bucket"
            )
        return S3Error(f"{store.endpoint()} refused a request ({code}: {message or 'no message'})")
    if isinstance(exc, NoCredentialsError | PartialCredentialsError):
        return S3Error(
            f"no usable AWS credentials ({exc}): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
            "or AWS_PROFILE naming a profile of ~/.aws/credentials"
        )
    return S3Error(f"cannot use the store at {store.endpoint()}: {exc}")


@contextmanager
def explaining(store: Store) -> Iterator[None]:
    """A context in which boto3's failures become S3Errors that say what to do."""
    try:
        yield
    except (BotoCoreError, ClientError) as exc:
        raise explained(exc, store) from None


def open_store(target: Target) -> Store:
    """The bucket of `target`, checked (before the build: a deploy that cannot happen fails
    first); S3Error when it cannot be reached or used."""
    try:
        client = connect()
    except BotoCoreError as exc:
        raise S3Error(f"cannot configure the S3 client: {exc}") from None
    store = Store(client, target)
    with explaining(store):
        store.check()
    return store


def deploy(store: Store, site: Site) -> Plan:
    """Sync the site into the bucket; what was done."""
    with explaining(store):
        return sync(store, site)


def lines(target: Target, done: Plan, verbose: bool) -> Iterator[str]:
    """What a deploy prints: each change when `verbose`, then the summary."""
    if verbose:
        yield from (f"  uploaded {target.url(path)}" for path in done.upload)
        yield from (f"  deleted {target.url(path)}" for path in done.delete)
    yield (
        f"deployed to {target.url()}: {len(done.upload)} uploaded, {len(done.delete)} deleted, "
        f"{done.unchanged} unchanged"
    )
