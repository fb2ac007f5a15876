"""Evidence records, content hashes and the audit trail (docs/architecture.md §3, §6).

Hashes are computed over content (quotes, offsets, verifications, the report), never over run
ids or the clock, so the same Store contents and inputs give the same hashes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from quotebound.records import EvidenceItem
from quotebound.storage.rawstore import utc_now

__all__ = ["AUDIT_SCHEMA_VERSION", "evidence_digest", "next_record", "sha256_text"]

AUDIT_SCHEMA_VERSION = 1


def _new_record(
    records: Sequence[dict[str, Any]],
    stage: str,
    *,
    request: Any,
    response_summary: Any,
    tier: int | None = None,
    gate: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The next record of a run's evidence chain.

    Fields: ``{id, stage, request, response_summary, tier, gate, at}``.
    """
    return {
        "id": f"rec-{len(records) + 1:03d}-{stage}",
        "stage": stage,
        "request": request,
        "response_summary": response_summary,
        "tier": tier,
        "gate": gate,
        "at": utc_now(),
    }


def next_record(
    state: Mapping[str, Any],
    stage: str,
    *,
    request: Any,
    response_summary: Any,
    tier: int | None = None,
    gate: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The next record of the state's chain, for ``stage``, as a one-item list: the state's
    ``records`` are appended to, never rewritten."""
    records = state.get("records") or []
    return [
        _new_record(
            records, stage, request=request, response_summary=response_summary, tier=tier, gate=gate
        )
    ]


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def evidence_digest(evidence: Sequence[EvidenceItem]) -> str:
    """sha256 of the evidence set: ids, chunk ids, offsets, quotes and verifications, sorted."""
    rows = sorted(
        (
            {
                "evidence_id": e["evidence_id"],
                "chunk_id": e["chunk_id"],
                "source_id": e["source_id"],
                "start": e["start"],
                "end": e["end"],
                "quote": e["quote"],
                "verification": e["verification"],
            }
            for e in evidence
        ),
        key=lambda r: (r["evidence_id"], r["start"]),
    )
    return sha256_text(json.dumps(rows, sort_keys=True, ensure_ascii=False))
