"""The real ChatOpenAI request path against a loopback OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from langchain_openai import ChatOpenAI

from quotebound.evidence.relevance import relevance, sub_questions
from quotebound.evidence.verification import verify_quote
from quotebound.model.chat import LOCAL_API_KEY, chat_model_from_env
from quotebound.records import EvidenceItem
from quotebound.report.quality import review_composition
from quotebound.report.selector import ComposeError, compose_llm
from quotebound.urls import source_id

pytestmark = pytest.mark.integration

QUESTION = "What does shutil.rmtree do?"
URL = "https://docs.python.org/3/library/shutil.html"
PAGE = (
    "shutil.rmtree(path, ignore_errors=False) deletes an entire directory tree; path must point "
    "to a directory (but not a symbolic link to a directory). If ignore_errors is true, errors "
    "resulting from failed removals will be ignored."
)
QUOTE = PAGE.split("; ")[0] + "."


class FakeOpenAI:
    """Answers ``POST .../chat/completions`` like the OpenAI API; records what it received."""

    def __init__(self) -> None:
        self.replies: list[str] = []
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
                )
                if not self.path.endswith("/chat/completions"):
                    self.send_response(404)
                    self.end_headers()
                    return
                payload = json.dumps(
                    {
                        "id": "chatcmpl-loopback",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", ""),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": owner.replies.pop(0)},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                """Silence per-request logging."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)


@pytest.fixture
def fake_openai(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    server = FakeOpenAI()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


def _evidence() -> EvidenceItem:
    check = verify_quote(QUOTE, PAGE)
    assert check.status == "PASS"
    return EvidenceItem(
        evidence_id=f"{source_id(URL)}-rmtree",
        chunk_id="0" * 64,
        hash_version=1,
        source_id=source_id(URL),
        url=URL,
        title="shutil - High-level file operations",
        trust_tier=2,
        quote=QUOTE,
        start=check.start,
        end=check.end,
        words=len(QUOTE.split()),
        relevance=relevance(QUESTION, QUOTE),
        parts=[relevance(p, QUOTE) for p in sub_questions(QUESTION)],
        score=relevance(QUESTION, QUOTE),
        context="shutil - High-level file operations",
        verification=check.to_dict(),
        round=1,
    )


def _reply(claim: str, quote: str) -> str:
    return json.dumps(
        {"answer": claim, "claims": [{"claim": claim, "evidence_ids": [1], "quote": quote}]}
    )


async def test_compose_llm_over_the_real_openai_client(fake_openai: FakeOpenAI) -> None:
    model = chat_model_from_env(
        model="local-model", base_url=fake_openai.base_url, api_key=None, timeout_s=10
    )
    assert isinstance(model, ChatOpenAI)
    fake_openai.replies.append(
        "```json\n" + _reply("shutil.rmtree deletes an entire directory tree.", QUOTE) + "\n```"
    )
    evidence = _evidence()
    composition = await compose_llm(QUESTION, [evidence], model=model)

    (finding,) = composition["findings"]
    assert finding["quote"] == QUOTE and finding["url"] == URL
    review = review_composition(
        composition,
        evidence={evidence["evidence_id"]: evidence},
        source_texts={evidence["source_id"]: PAGE},
        fetched_urls=[URL],
    )
    assert review.passed, review.feedback()

    (request,) = fake_openai.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["auth"] == f"Bearer {LOCAL_API_KEY}"
    body = request["body"]
    assert body["model"] == "local-model" and body["temperature"] == 0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert json.dumps(QUOTE) in body["messages"][1]["content"]


async def test_environment_configures_the_endpoint_and_key(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback")
    model = chat_model_from_env(model=None, base_url=None, api_key=None, timeout_s=10)
    assert model is not None
    fake_openai.replies.append("not json at all")
    with pytest.raises(ComposeError):
        await compose_llm(QUESTION, [_evidence()], model=model)
    assert fake_openai.requests[0]["auth"] == "Bearer sk-test-loopback"
    assert fake_openai.requests[0]["body"]["model"] == "gpt-4o-mini"


def test_no_key_and_no_base_url_means_no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert chat_model_from_env(model=None, base_url=None, api_key=None, timeout_s=5) is None


def test_the_command_uses_the_endpoint_in_the_environment(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """`quotebound research` with OPENAI_BASE_URL set plans and composes through the real
    client: the same command as without keys, now with an LLM."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "shutil.html").write_text(
        f"<html><head><title>shutil</title></head><body><main><p>{PAGE}</p></main></body></html>"
    )
    fake_openai.replies += [
        json.dumps({"queries": ["shutil rmtree directory tree"], "coverage_gaps": []}),
        _reply("shutil.rmtree deletes an entire directory tree.", QUOTE),
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUOTEBOUND_", "TAVILY"))}
    env.update(
        OPENAI_BASE_URL=fake_openai.base_url,
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_DATA_HOME=str(tmp_path / "data"),
    )
    command = [str(Path(sys.executable).with_name("quotebound")), "research", QUESTION,
               "--corpus", str(corpus), "--base-url", "https://docs.example.org/",
               "--store", "memory", "--format", "json", "--quiet"]  # fmt: skip
    done = subprocess.run(
        command,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["audit"]["composer"] == "llm"
    assert out["findings"][0]["quote"] == QUOTE.rstrip(".")  # the page's own words
    assert out["findings"][0]["claim"].startswith("shutil.rmtree deletes an entire directory")
    assert [r["path"] for r in fake_openai.requests] == ["/v1/chat/completions"] * 2
