"""Every test runs with none of the developer's quotebound settings or provider keys.

``QUOTEBOUND_*`` variables and the providers' keys and endpoints are removed from the
environment for each test (and so for the processes it starts); a test that needs one sets it
itself.
"""

from __future__ import annotations

import os

import pytest

_PROVIDER_VARIABLES = ("TAVILY_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL")


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("QUOTEBOUND_") or name in _PROVIDER_VARIABLES:
            monkeypatch.delenv(name)
