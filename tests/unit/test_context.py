"""Configuration precedence and validation (docs/architecture.md §8)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from quotebound.context import PROFILES, Context, make_context
from quotebound.errors import ConfigError
from quotebound.graph.deps import Deps


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("QUOTEBOUND_"):
            monkeypatch.delenv(name)


def test_defaults_are_the_chat_profile() -> None:
    ctx = make_context().resolved()
    assert ctx.profile == "chat"
    for name, value in PROFILES["chat"].items():
        assert getattr(ctx, name) == value


def test_environment_beats_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUOTEBOUND_MAX_SOURCES", "7")
    assert make_context().resolved().max_sources == 7


def test_explicit_profile_beats_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUOTEBOUND_MAX_SOURCES", "7")
    assert make_context("deep").resolved().max_sources == PROFILES["deep"]["max_sources"]


def test_environment_beats_a_profile_chosen_in_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QUOTEBOUND_PROFILE", "deep")
    monkeypatch.setenv("QUOTEBOUND_MAX_SOURCES", "7")
    ctx = make_context().resolved()
    assert (ctx.profile, ctx.max_sources, ctx.max_rounds) == (
        "deep",
        7,
        PROFILES["deep"]["max_rounds"],
    )


def test_explicit_argument_beats_profile() -> None:
    assert make_context("deep", max_sources=3).resolved().max_sources == 3
    assert Context(max_rounds=1).resolved(profile="deep").max_rounds == 1


def test_resolution_is_idempotent() -> None:
    ctx = make_context("deep", max_sources=5).resolved()
    assert ctx.resolved() == ctx


@pytest.mark.parametrize(
    ("env", "value", "message"),
    [
        ("QUOTEBOUND_MAX_SOURCES", "many", "must be an integer"),
        ("QUOTEBOUND_TIME_BUDGET_S", "soon", "must be a number"),
        ("QUOTEBOUND_RESPECT_ROBOTS", "perhaps", "true or false"),
        ("QUOTEBOUND_PROFILE", "turbo", "profile must be one of"),
        ("QUOTEBOUND_PROVIDER", "bing", "provider must be .auto. or a comma-separated list"),
        ("QUOTEBOUND_MAX_ROUNDS", "0", "positive"),
        ("QUOTEBOUND_MAX_ROUNDS", "99999999999999999999", "up to"),
        ("QUOTEBOUND_TIME_BUDGET_S", "nan", "positive"),
        ("QUOTEBOUND_MODEL", "gpt-\udcff", "model must be valid UTF-8"),
    ],
)
def test_malformed_environment_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str, message: str
) -> None:
    monkeypatch.setenv(env, value)
    with pytest.raises(ConfigError, match=message):
        make_context()


def test_undecodable_bytes_in_a_setting_are_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="corpus_base_url must be valid UTF-8 text"):
        make_context(corpus_base_url="https://example.org/\udcff/")


def test_unknown_option_and_corpus_without_dir() -> None:
    with pytest.raises(ConfigError, match="unknown configuration option"):
        make_context(colour="blue")
    with pytest.raises(ConfigError, match="needs corpus_dir"):
        make_context(provider="corpus")


def test_every_field_has_a_description() -> None:
    from dataclasses import fields

    assert all(f.metadata.get("description") for f in fields(Context))


def test_make_context_keeps_only_the_choices_so_run_options_still_apply() -> None:
    ctx = make_context(max_sources=3)
    assert ctx.max_rounds is None
    resolved = ctx.resolved(profile="deep")  # e.g. a profile in the graph input
    assert (resolved.max_sources, resolved.max_rounds) == (3, PROFILES["deep"]["max_rounds"])


def test_the_page_size_cap_reaches_the_fetcher_and_the_corpus(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from quotebound.graph.deps import Deps

    monkeypatch.setenv("QUOTEBOUND_MAX_PAGE_MB", "0.5")
    settings = Context(provider="corpus", corpus_dir=str(tmp_path)).resolved()
    toolkit = Deps().toolkit(settings)
    assert toolkit.fetch_policy.max_bytes == 500_000
    assert [c.max_bytes for c in toolkit.corpora.values()] == [500_000]
    monkeypatch.setenv("QUOTEBOUND_MAX_PAGE_MB", "0")
    with pytest.raises(ConfigError, match="max_page_mb"):
        Context().resolved()


def test_threads_asking_for_the_same_toolkit_at_once_build_it_once(tmp_path: Path) -> None:
    class Counting(Deps):
        builds = 0

        def _build(self, settings: Context):  # type: ignore[no-untyped-def]
            type(self).builds += 1
            time.sleep(0.05)  # a slow build: every thread arrives while it runs
            return super()._build(settings)

    deps = Counting()
    settings = Context(provider="corpus", corpus_dir=str(tmp_path)).resolved()
    barrier = threading.Barrier(6)
    got: list[object] = []

    def ask() -> None:
        barrier.wait()
        got.append(deps.toolkit(settings))

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert Counting.builds == 1
    assert all(t is got[0] for t in got)


def test_a_provider_ladder_is_a_comma_list_of_known_providers() -> None:
    assert make_context(provider="searxng, wikipedia,gdelt").resolved().providers() == (
        "searxng",
        "wikipedia",
        "gdelt",
    )
    assert make_context(provider="auto").resolved().providers() == ()
    for bad, says in (
        ("bing", "bing"),
        ("auto,tavily", "auto"),
        ("gdelt,gdelt", "twice"),
        ("", "provider must be"),
    ):
        with pytest.raises(ConfigError, match=says):
            make_context(provider=bad).resolved()
    with pytest.raises(ConfigError, match="corpus_dir"):
        make_context(provider="wikipedia,corpus").resolved()
