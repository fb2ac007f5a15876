"""The chat model from configuration, and tolerant JSON parsing of what it says.

See docs/architecture.md §5.

Local OpenAI-compatible servers often lack tool calling and structured output, so models are
asked for JSON in plain text and their answer is repaired where that is cheap and safe: code
fences, prose around the JSON, trailing commas, single-quoted strings.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Sequence
from typing import Any

import httpx
from langchain_core.exceptions import LangChainException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from quotebound.context import DEFAULT_MODEL
from quotebound.errors import QuoteboundError

__all__ = [
    "DEFAULT_MODEL",
    "LOCAL_API_KEY",
    "ModelError",
    "ask_json",
    "chat_model_from_env",
    "parse_json_loosely",
]

LOCAL_API_KEY = "not-needed"
"""The placeholder key sent to a configured base URL when no key is set (local servers)."""

_MAX_RETRIES = 1


def chat_model_from_env(
    *, model: str | None, base_url: str | None, api_key: str | None, timeout_s: float
) -> BaseChatModel | None:
    """A temperature-0 ``ChatOpenAI``, or None when no LLM is configured.

    Explicit arguments beat ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``. A base URL without a key
    is a local server and gets the placeholder key :data:`LOCAL_API_KEY`.
    """
    key = api_key or os.environ.get("OPENAI_API_KEY") or None
    url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    if key is None and url is None:
        return None
    # The OpenAI client and its LangChain wrapper (60 MB) are imported by the runs that use them.
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    return ChatOpenAI(
        model=model or DEFAULT_MODEL,
        base_url=url,
        api_key=SecretStr(key or LOCAL_API_KEY),
        temperature=0,
        timeout=timeout_s,
        max_retries=_MAX_RETRIES,
    )


def _provider_errors() -> tuple[type[BaseException], ...]:
    """What the client, the network and the clock raise; anything else is a bug and surfaces.
    (Only the runs that ask a model import the OpenAI client.)"""
    from openai import OpenAIError

    return (OpenAIError, httpx.HTTPError, LangChainException, OSError, TimeoutError)


class ModelError(QuoteboundError, ValueError):
    """The model could not be asked, or did not answer with JSON. The message names only the
    kind of failure: provider error text can echo the key it was sent."""


async def ask_json(
    model: BaseChatModel, messages: Sequence[BaseMessage], *, timeout_s: float
) -> Any:
    """The JSON value of ``model``'s reply to ``messages``, within ``timeout_s`` seconds.

    Every caller has a deterministic fallback, so any failure of the provider, the client, the
    network, the clock or the reply becomes one :class:`ModelError` that the caller records
    and falls back on, never a crashed run. Other exceptions are bugs and propagate.
    """
    try:
        async with asyncio.timeout(max(0.1, timeout_s)):
            reply = await model.ainvoke(list(messages))
    except _provider_errors() as exc:
        status = getattr(exc, "status_code", None)
        raise ModelError(
            f"model call failed: {type(exc).__name__}" + (f" (HTTP {status})" if status else "")
        ) from None
    try:
        return parse_json_loosely(reply.text)
    except ValueError as exc:
        raise ModelError(f"model reply is not JSON: {exc}") from None


def parse_json_loosely(text: str) -> Any:
    """The JSON value in a model's reply; raises ``ValueError`` with a short reason."""
    stripped = _strip_fences(text.strip())
    span = _outer_json(stripped)
    if span is None:
        raise ValueError("no JSON object or array in the reply")
    reason = ""
    for candidate in dict.fromkeys((stripped, span, _repair(span))):
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            reason = f"invalid JSON ({exc.msg} at char {exc.pos})"
        except RecursionError:
            reason = "JSON nested too deeply"
    raise ValueError(reason)


def _strip_fences(text: str) -> str:
    if not text.startswith("```"):
        return text
    body = text.split("\n", 1)[1] if "\n" in text else ""
    end = body.rfind("```")
    return (body[:end] if end >= 0 else body).strip()


def _outer_json(text: str) -> str | None:
    """The first balanced ``{...}`` or ``[...]`` in ``text``, honouring quoted strings."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return None
    start = min(starts)
    depth = 0
    quote: str | None = None
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return text[start:]


def _repair(text: str) -> str:
    """Rewrite single-quoted strings as JSON strings and drop trailing commas."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            end, value = _read_string(text, i)
            out.append(json.dumps(value, ensure_ascii=False))
            i = end
            continue
        if ch == ",":
            rest = text[i + 1 :].lstrip()
            if not rest or rest[0] in "}]":
                i += 1
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _read_string(text: str, start: int) -> tuple[int, str]:
    """Read the quoted string at ``start``; return the index after it and its value."""
    quote = text[start]
    chars: list[str] = []
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "u" and _HEX4.fullmatch(text[i + 2 : i + 6]):
                chars.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            chars.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        if ch == quote:
            return i + 1, "".join(chars)
        chars.append(ch)
        i += 1
    return i, "".join(chars)


_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/"}
