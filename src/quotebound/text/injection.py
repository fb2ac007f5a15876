"""Page text that addresses the model instead of the reader; page text is data.

See docs/architecture.md §7.

A quote that tells "the AI" to ignore its instructions or to cite something is verbatim page
text, so it would verify; it is still never evidence for an answer. Such candidates are set
aside before composition and counted in the audit.
"""

from __future__ import annotations

import re

__all__ = ["addresses_the_model"]

_PATTERNS = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|other|system)\s+(?:instructions|rules|prompts?|directions)"
    r"|\byou\s+(?:must|should|are\s+required\s+to)\s+(?:now\s+)?(?:cite|say|answer|respond|"
    r"output|reply|include|claim)\b"
    r"|\b(?:system|developer)\s+prompt\b"
    r"|\bas\s+an?\s+(?:ai|llm|language\s+model|assistant)\b",
    re.IGNORECASE,
)


def addresses_the_model(text: str) -> bool:
    """True when ``text`` reads as instructions to a language model (prompt injection)."""
    return _PATTERNS.search(text) is not None
