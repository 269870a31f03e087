"""scholarsite: a static site generator for research publication records."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("scholarsite")
except PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0+unknown"
