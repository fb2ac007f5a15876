"""How long a fetched page stays fresh, and how it is asked about, by its response headers."""

from __future__ import annotations

import pytest

from quotebound.acquisition.freshness import CacheHeaders, http_date_seconds

DAY = 86400.0


@pytest.mark.parametrize(
    ("headers", "lifetime"),
    [
        ({}, DAY),  # says nothing: the run's default
        ({"cache-control": "public, max-age=600"}, 600.0),
        ({"cache-control": "max-age=600", "age": "100"}, 500.0),
        ({"cache-control": 'max-age="60"'}, 60.0),
        ({"cache-control": "max-age=soon"}, 0.0),  # malformed: stale
        ({"cache-control": "no-cache, max-age=600"}, 0.0),
        ({"cache-control": "max-age=60", "expires": "Thu, 01 Jan 2099 00:00:00 GMT"}, 60.0),
        (
            {"expires": "Tue, 03 Nov 2026 11:00:00 GMT", "date": "Tue, 03 Nov 2026 10:00:00 GMT"},
            3600.0,
        ),
        ({"expires": "0", "date": "Tue, 03 Nov 2026 10:00:00 GMT"}, 0.0),
        ({"cache-control": "max-age=60", "age": "600"}, 0.0),
    ],
)
def test_lifetime(headers: dict[str, str], lifetime: float) -> None:
    assert CacheHeaders.of(headers).lifetime(DAY) == lifetime


def test_no_store_and_must_revalidate() -> None:
    assert CacheHeaders.of({"cache-control": "private, No-Store"}).no_store
    assert not CacheHeaders.of({"cache-control": "max-age=5"}).no_store
    assert CacheHeaders.of({}).stale_allowed
    assert not CacheHeaders.of({"cache-control": "max-age=5, must-revalidate"}).stale_allowed
    assert not CacheHeaders.of({"cache-control": "no-cache"}).stale_allowed


def test_validators_and_a_304_updating_them() -> None:
    kept = CacheHeaders.of(
        {"etag": '"a"', "last-modified": "Tue, 03 Nov 2026 10:00:00 GMT", "cache-control": "x"}
    )
    assert kept.validators == {
        "If-None-Match": '"a"',
        "If-Modified-Since": "Tue, 03 Nov 2026 10:00:00 GMT",
    }
    assert CacheHeaders.of({}).validators == {}
    renewed = kept.updated(CacheHeaders.of({"cache-control": "max-age=9"}))
    assert (renewed.etag, renewed.cache_control) == ('"a"', "max-age=9")
    assert CacheHeaders.from_value(renewed.to_value()) == renewed


def test_http_dates() -> None:
    assert http_date_seconds("Thu, 01 Jan 1970 00:01:00 GMT") == 60.0
    assert http_date_seconds("soon") is None
    assert http_date_seconds(None) is None
