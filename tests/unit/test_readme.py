"""The README documents what the code does: every configuration field, and the CI command."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from quotebound.context import Context

ROOT = Path(__file__).resolve().parents[2]


def test_every_context_field_is_in_the_readme_table() -> None:
    readme = (ROOT / "README.md").read_text()
    for f in fields(Context):
        assert f"| `{f.name}` | `QUOTEBOUND_{f.name.upper()}` |" in readme, f.name


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci == "make test"
    assert "make test" in (ROOT / "README.md").read_text()
