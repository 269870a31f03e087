"""Development tools (not shipped in the wheel): the quality gate, `python -m tools.qa`."""
