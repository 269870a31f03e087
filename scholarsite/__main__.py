"""`python -m scholarsite`: the same program as `python build.py` and `scholarsite`."""

import sys

from scholarsite.cli import main

sys.exit(main())
