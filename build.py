"""Entry point: `python build.py [build|serve|check] ...` (see `python build.py --help`)."""

import sys

from scholarsite.cli import main

if __name__ == "__main__":
    sys.exit(main())
