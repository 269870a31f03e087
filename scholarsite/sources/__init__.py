"""`scholarsite link-sources`: look the papers up on arXiv and record what was found in
`sources.yaml` (the only part of scholarsite that uses the network; builds stay offline).

This module holds only the defaults the command line shows, so `--help` stays quick.
"""

API_URL = "https://export.arxiv.org/api/query"
MAX_AGE_DAYS = 180
OPENALEX_URL = "https://api.openalex.org"
