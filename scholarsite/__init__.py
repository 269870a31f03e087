"""scholarsite: a static site generator for research publication records."""


def __getattr__(name: str) -> str:
    """`__version__`, looked up when first asked for (`importlib.metadata` costs every command
    a few hundredths of a second to import)."""
    if name != "__version__":
        raise AttributeError(f"module 'scholarsite' has no attribute {name!r}")
    from importlib import metadata

    try:
        found = metadata.version("scholarsite")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found
