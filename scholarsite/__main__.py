"""`python -m scholarsite`: the same program as `python build.py` and `scholarsite`."""

import sys

from scholarsite.cli import main

if __name__ == "__main__":  # not when a spawned build process imports it
    sys.exit(main())
