"""The Content-Security-Policy's text (what it allows is checked in Chromium in test_safety_content)."""

from scholarsite.outputs.policy import content_security_policy, source_hash


def directives(policy: str) -> dict[str, list[str]]:
    """The policy's directives by name."""
    named = (part.split() for part in policy.split("; "))
    return {name: sources for name, *sources in named}


def test_a_page_without_inline_styles_or_base_repeats_no_default() -> None:
    policy = directives(content_security_policy())
    assert "style-src" not in policy  # default-src 'self' holds for stylesheets
    assert policy["default-src"] == ["'self'"] and policy["base-uri"] == ["'self'"]
    assert policy["form-action"] == ["'self'"] and policy["object-src"] == ["'none'"]  # no fallback


def test_the_404_page_allows_its_inline_style_and_base() -> None:
    policy = directives(content_security_policy(["go()"], ["p{}"], "https://example.org/lab/"))
    assert policy["style-src"] == ["'self'", source_hash("p{}")]
    assert policy["script-src"] == ["'self'", "'wasm-unsafe-eval'", source_hash("go()")]
    assert policy["base-uri"] == ["'self'", "https://example.org"]
