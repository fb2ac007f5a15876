"""The Markdown report: layout, confidence, tier, fail-safe variants, escaping, determinism."""

from __future__ import annotations

import html
import re
from typing import Any, Literal

import pytest
from h6_compose.factory import SHUTIL, SUBPROCESS, TIMEOUT_A, TIMEOUT_B, Page, evidence_for
from markdown_it import MarkdownIt

from quotebound.records import Finding, SourceInfo
from quotebound.report.extractive import compose_extractive
from quotebound.report.markdown import grounding_confidence, render_report, report_tier

QUESTION = "What does shutil.copytree do?"


def _source(
    page: Page,
    status: Literal["fetched", "failed", "lead"] = "fetched",
    at: str = "2025-01-02T03:04:05Z",
) -> SourceInfo:
    info = SourceInfo(
        source_id=page.source_id,
        url=page.url,
        canonical_url=page.url,
        title=page.title,
        trust_tier=page.tier,
        provider="corpus",
        fetch_status=status,
    )
    if status == "fetched":
        info["fetched_at"] = at
    return info


def _finding(claim: str, quote: str, page: Page, tier: int | None = None) -> Finding:
    item = evidence_for(QUESTION, page, quote)
    return Finding(
        claim=claim,
        quote=quote,
        evidence_ids=[item["evidence_id"]],
        url=page.url,
        title=page.title,
        trust_tier=page.tier if tier is None else tier,
        verification={
            "status": "PASS",
            "method": "exact",
            "start": item["start"],
            "end": item["end"],
        },
    )


COPY_QUOTE = "recursively copies an entire directory tree rooted at src"
FINDINGS = [
    _finding("copytree copies a tree.", COPY_QUOTE, SHUTIL),
    _finding(
        "Use shutil.copytree first.",
        "use shutil.copytree to copy a directory tree recursively",
        SUBPROCESS,
        tier=1,
    ),
]
SOURCES = [_source(SUBPROCESS), _source(SHUTIL), _source(TIMEOUT_A), _source(TIMEOUT_B, "failed")]


def _answered(**kw: Any) -> str:
    args: dict[str, Any] = {
        "status": "answered",
        "answer": "copytree copies a tree.",
        "findings": FINDINGS,
        "conflicts": [],
        "sources": SOURCES,
    }
    return render_report(QUESTION, **{**args, **kw})


@pytest.mark.parametrize(
    ("n", "level"),
    [(0, "insufficient"), (1, "low"), (2, "medium"), (4, "medium"), (5, "high"), (9, "high")],
)
def test_grounding_confidence_levels(n: int, level: str) -> None:
    assert grounding_confidence(n) == level


def test_a_partial_answer_names_the_part_left_unanswered_under_the_answer() -> None:
    report = _answered(missing="how long does copytree take")
    answer = report.split("## Direct answer", 1)[1].split("## Verified findings", 1)[0]
    assert "copytree copies a tree." in answer
    assert "Not answered: how long does copytree take." in answer
    assert "Not answered" not in report.split("## Conflicts and uncertainty", 1)[1]
    assert "(2 verified findings; part of the question not answered)" in report
    assert "Not answered" not in _answered()


def test_report_tier_is_the_lowest_cited_tier() -> None:
    assert report_tier(FINDINGS) == 1
    assert report_tier(FINDINGS[:1]) == 2
    assert report_tier([]) is None


def test_answered_report_layout() -> None:
    report = _answered()
    headings = [line for line in report.splitlines() if line.startswith("#")]
    assert headings == [
        f"# {QUESTION}",
        "## Direct answer",
        "## Verified findings",
        "## Conflicts and uncertainty",
        "## Sources",
    ]
    assert "\ncopytree copies a tree.\n" in report
    assert f'* copytree copies a tree. - [{SHUTIL.title}]({SHUTIL.url}) - "{COPY_QUOTE}"' in report
    assert "None found." in report
    sources = report.split("## Sources", 1)[1]
    assert sources.index(SHUTIL.url) < sources.index(SUBPROCESS.url) < sources.index(TIMEOUT_A.url)
    assert "PRIMARY_SOURCE (tier 2) - cited, accessed 2025-01-02T03:04:05Z" in sources
    assert "- read, accessed" in sources
    assert TIMEOUT_B.url not in report
    assert report.rstrip().endswith(
        "Grounding confidence: medium (2 verified findings); report tier: EXTERNAL_SOURCE (tier 1)."
    )


def test_conflicts_show_both_sides_with_quotes_and_sources() -> None:
    question = "What is the default timeout of the HTTP client library?"
    evidence = [
        evidence_for(question, TIMEOUT_A, TIMEOUT_A.text.split(". ", 1)[1]),
        evidence_for(question, TIMEOUT_B, TIMEOUT_B.text.split(". ", 1)[1]),
    ]
    composition = compose_extractive(question, evidence)
    report = render_report(
        question,
        status="answered",
        answer=composition["answer"],
        findings=composition["findings"],
        conflicts=composition["conflicts"],
        sources=[_source(TIMEOUT_A), _source(TIMEOUT_B)],
        warnings=["source https://x.example/ timed out (timeout)"],
    )
    section = report.split("## Conflicts and uncertainty", 1)[1].split("## Sources", 1)[0]
    assert "Sources disagree on default timeout (seconds)" in section
    assert f"[{TIMEOUT_A.title}]({TIMEOUT_A.url}) (states 30)" in section
    assert f"[{TIMEOUT_B.title}]({TIMEOUT_B.url}) (states 60)" in section
    assert '"The default timeout is 30 seconds' in section
    assert "* Warning: source https://x.example/ timed out (timeout)" in section
    assert "None found." not in section


def test_insufficient_evidence_never_shows_an_answer() -> None:
    report = _answered(
        status="insufficient_evidence",
        answer="An invented answer.",
        missing="a page that states what copytree does",
    )
    assert "An invented answer." not in report
    assert "Insufficient evidence" in report
    assert "Missing: a page that states what copytree does." in report
    findings = report.split("## Verified findings", 1)[1].split("##", 1)[0]
    assert findings.strip() == "None."
    assert "Grounding confidence: insufficient (0 verified findings); report tier: none." in report


def test_verified_disabled_lists_unverified_leads() -> None:
    leads = [_source(SHUTIL, "lead"), _source(SUBPROCESS, "lead")]
    report = render_report(
        QUESTION,
        status="verified_disabled",
        answer="",
        findings=FINDINGS,
        conflicts=[],
        sources=leads,
        missing="no thread_id was given, so pages could not be stored",
    )
    assert "Nothing in this report is verified: no thread_id was given" in report
    assert "Unverified leads" in report
    assert f"[{SHUTIL.title}]({SHUTIL.url}) - unverified lead (corpus)" in report
    assert COPY_QUOTE not in report
    assert "insufficient (0 verified findings)" in report


def test_page_text_cannot_add_links_or_break_layout() -> None:
    finding = _finding("Claim [x](http://evil.example)\n## Fake", COPY_QUOTE, SHUTIL)
    finding["title"] = "Title ](http://evil.example) [\nline"
    finding["quote"] = "a [link](http://evil.example)\n\n# Heading"
    report = _answered(findings=[finding], answer="Answer\n# Not a heading")
    assert not re.search(r"(?<!\\)\]\(http://evil", report)
    assert "\\[link\\](http://evil.example)" in report
    assert not any(line.startswith("# Not") or line == "## Fake" for line in report.splitlines())


def test_page_text_reads_as_written_where_it_forms_no_markup() -> None:
    quote = "D.copy() -> a shallow copy of D; 3 > 2 and 1. is a number"
    finding = _finding("D.copy() -> a shallow copy of D.", COPY_QUOTE, SHUTIL)
    finding["quote"] = quote
    report = _answered(findings=[finding], answer="D.copy() -> a shallow copy of D.")
    assert f'"{quote}"' in report
    assert "\\>" not in report


def _tags(markdown: str) -> list[str]:
    return re.findall(r"</?\w+", MarkdownIt("commonmark").render(markdown))


@pytest.mark.parametrize(
    "start", ["> a quote", "# a heading", "- an item", "+ an item", "1. an item", "2) an item",
              "```python", "~~~", "---", "***", "___"]
)  # fmt: skip
def test_page_text_opens_no_block_where_a_line_or_item_begins(start: str) -> None:
    def report(text: str) -> str:
        finding = _finding(f"{text} claim", COPY_QUOTE, SHUTIL)
        finding["quote"], finding["title"] = f"{text} quote", f"{text} title"
        return _answered(findings=[finding], answer=f"{text} answer")

    assert _tags(report(start)) == _tags(report("plain"))  # the report's own layout only
    rendered = MarkdownIt("commonmark").render(report(start))
    for role in ("answer", "claim", "quote", "title"):
        assert html.escape(f"{start} {role}", quote=False) in rendered  # shown as written


def test_urls_with_parentheses_and_spaces_stay_one_link() -> None:
    finding = _finding("copytree copies a tree.", COPY_QUOTE, SHUTIL)
    finding["url"] = "https://en.example.org/wiki/Tree (data structure)"
    assert "(https://en.example.org/wiki/Tree%20%28data%20structure%29)" in _answered(
        findings=[finding]
    )


def test_report_is_deterministic() -> None:
    assert _answered() == _answered()
    assert _answered().endswith("\n")


def test_a_missing_question_keeps_its_own_question_mark() -> None:
    report = _answered(
        status="insufficient_evidence", answer="", missing="what does copytree return?"
    )
    assert "Missing: what does copytree return?\n" in report
    assert "return?." not in report
