"""finalize: the report, the findings, the sources and the audit (docs/architecture.md §5, §6)."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from quotebound.context import Context
from quotebound.errors import Reason
from quotebound.evidence.relevance import sub_questions
from quotebound.graph.assessment import relevant_evidence
from quotebound.graph.events import emit
from quotebound.graph.state import ResearchState, merged
from quotebound.records import Finding, SourceInfo, Status
from quotebound.report.audit import AUDIT_SCHEMA_VERSION, evidence_digest, next_record, sha256_text
from quotebound.report.markdown import grounding_confidence, render_report, report_tier

__all__ = ["finalize"]


def _shippable(findings: list[Finding], state: ResearchState) -> list[Finding]:
    """Invariant 5 at the exit: only findings whose every cited id is PASS evidence, whose
    quote is verbatim text of a cited quote, from a URL this thread fetched."""
    passed = {
        e["evidence_id"]: e
        for e in state.get("evidence") or []
        if e["verification"]["status"] == "PASS"
    }
    fetched = {s["url"] for s in state.get("fetched") or []}
    return [
        f
        for f in findings
        if f["evidence_ids"]
        and all(i in passed for i in f["evidence_ids"])
        and f["url"] in fetched
        and any(f["quote"] and f["quote"] in passed[i]["quote"] for i in f["evidence_ids"])
    ]


def _missing(state: ResearchState) -> str:
    """Why a run has no answer: a gate that left it nothing to read; else the quality review
    that rejected its quotes, the code the question names that no document mentions, or what
    the pages it read do not answer. A gate that fails in a later round (its search found
    nothing new) is not why: the pages already read are."""
    read = len(state.get("fetched") or [])
    failed_gates = [g for g in state.get("gates") or [] if not g["passed"]]
    if failed_gates and not read:
        g = failed_gates[-1]
        return f"{g['gate']} gate failed ({g['reason']}): " + "; ".join(g["errors"])
    gaps = state.get("gaps") or sub_questions(state["question"])
    reviews = state.get("reviews") or []
    if reviews and not reviews[-1]["passed"]:
        codes = sorted({p["code"] for p in reviews[-1]["problems"]})
        return (
            "the verified quotes that address it were rejected by quality review ("
            + ", ".join(codes)
            + "); see the audit"
        )
    unknown = state.get("unknown_names") or []
    named = [n for n in unknown if any(n in g for g in gaps)]
    if named:
        return f"no document mentions {', '.join(named)}, which the question names: " + "; ".join(
            gaps
        )
    if read == 0:
        said = "no source could be read to address: "
    elif read == 1:
        said = "the one source read holds no verified quote that addresses: "
    else:
        said = f"none of the {read} sources read holds a verified quote that addresses: "
    return said + "; ".join(gaps)


def _stop_reason(state: ResearchState) -> str:
    if state.get("stop_reason"):
        return str(state["stop_reason"])
    if state.get("verified_disabled"):
        return Reason.ERROR.value
    if time.time() >= float(state.get("deadline") or 0):
        return Reason.TIMEOUT.value
    return Reason.NO_NEW_EVIDENCE.value  # a gate closed before any round could be evaluated


async def finalize(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Assemble the output keys; hashes cover content only, so reruns are byte-identical."""
    composition: dict[str, Any] = dict(state.get("composition") or {})
    findings = _shippable(list(composition.get("findings") or []), state)
    if state.get("verified_disabled"):
        status, findings = Status.VERIFIED_DISABLED, []
    elif findings:
        status = Status.ANSWERED
    else:
        status = Status.INSUFFICIENT_EVIDENCE
    answer = composition.get("answer", "") if status == Status.ANSWERED else ""
    missing = None
    if status == Status.ANSWERED and state.get("gaps"):
        missing = "; ".join(state.get("gaps") or [])
    elif status == Status.INSUFFICIENT_EVIDENCE:
        missing = _missing(state)
    if missing is not None and _stop_reason(state) == Reason.TIMEOUT:
        missing = f"the run's time budget ran out before it was done; {missing}"
    elif status == Status.VERIFIED_DISABLED:
        missing = state.get("disabled_reason") or "verification is disabled"
    sources: list[SourceInfo] = [*(state.get("fetched") or []), *(state.get("failed") or [])]
    if status == Status.VERIFIED_DISABLED:
        sources += [
            SourceInfo(
                source_id=c["source_id"],
                url=c["url"],
                canonical_url=c["canonical_url"],
                title=c["title"],
                trust_tier=0,
                provider=c["provider"],
                fetch_status="lead",
            )
            for c in state.get("candidates") or []
        ]
    conflicts = list(composition.get("conflicts") or []) if status == Status.ANSWERED else []
    report = render_report(
        state["question"],
        status=status,
        answer=answer,
        findings=findings,
        conflicts=conflicts,
        sources=sources,
        missing=missing,
    )
    evidence = state.get("evidence") or []
    settings = state.get("settings") or {}
    record = next_record(
        state,
        "finalize",
        request={"status": status.value},
        response_summary={"findings": len(findings)},
        tier=report_tier(findings),
    )
    records = [*(state.get("records") or []), *record]
    audit = {
        "schema_version": AUDIT_SCHEMA_VERSION,
        "question": state["question"],
        "profile": settings.get("profile"),
        "settings": settings,
        "composer": composition.get("mode"),
        "provider_runs": state.get("provider_runs") or [],
        "sources": sources,
        "evidence": [
            {
                "evidence_id": e["evidence_id"],
                "chunk_id": e["chunk_id"],
                "hash_version": e["hash_version"],
                "source_id": e["source_id"],
                "start": e["start"],
                "end": e["end"],
                "relevance": e["relevance"],
                "retrieved": e.get("retrieved"),
                "round": e["round"],
                "verification": e["verification"],
            }
            for e in evidence
        ],
        "relevant_evidence": len(relevant_evidence(state)),
        "gates": state.get("gates") or [],
        "records": records,
        "record_chain": [r["id"] for r in records],
        "rounds": state.get("rounds") or [],
        "stop_reason": _stop_reason(state),
        "reviews": state.get("reviews") or [],
        "conflicts": conflicts,
        "missing": missing,
        "report_tier": report_tier(findings),
        "warnings": state.get("warnings") or [],
        "evidence_sha256": evidence_digest(evidence),
        "report_sha256": sha256_text(report),
    }
    update = {
        "status": status.value,
        "answer": answer,
        "report_markdown": report,
        "grounding_confidence": grounding_confidence(len(findings)),
        "findings": findings,
        "sources": sources,
        "audit": audit,
        "records": record,
    }
    emit(runtime, merged(state, update), "finalize", status.value)
    return update
