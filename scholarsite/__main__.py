"""`python -m scholarsite`: the same program as `python build.py` and `scholarsite`."""

from scholarsite.cli import entry

if __name__ == "__main__":  # not when a spawned build process imports it
    entry()
