"""One lexicon per language the claim reader reads: `LEXICONS[code]`, loaded on first use."""

from __future__ import annotations

import importlib

from freshpass.evidence.claims.lexicon import Lexicon

LANGUAGES = ("en", "zh", "es", "de", "ja", "fr", "pt", "ru")


def lexicon(language: str) -> Lexicon:
    """The lexicon of `language` (English for one the reader does not know)."""
    module = importlib.import_module(f"freshpass.evidence.claims.lang.{language if language in LANGUAGES else 'en'}")
    found: Lexicon = module.LEXICON
    return found
