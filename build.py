"""Entry point: `python build.py [build|serve|check] ...` (see `python build.py --help`)."""

from scholarsite.cli import entry

if __name__ == "__main__":
    entry()
