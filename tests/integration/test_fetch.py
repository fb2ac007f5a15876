"""Fetching from real HTTP servers on loopback: limits, redirects, types, robots, retries."""

from __future__ import annotations

import datetime
import gzip
import hashlib
import ssl
import threading
import time
import zlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

import pytest
from httpserver import LoopbackServer, respond

from quotebound.acquisition.fetcher import Fetcher
from quotebound.acquisition.fetchpolicy import FetchPolicy
from quotebound.acquisition.parallel import FetchFailure, fetch_until
from quotebound.errors import FetchError, Reason
from quotebound.storage.rawstore import RawPage

pytestmark = pytest.mark.integration

MB = 1024 * 1024
HTML = "text/html; charset=utf-8"
ARTICLE = (
    "<html><head><title>Quoted page</title><meta name='author' content='Ada Lovelace'></head>"
    "<body><p>The analytical engine weaves algebraic patterns just as the Jacquard loom "
    "weaves flowers and leaves.</p></body></html>"
)


def policy(*servers: LoopbackServer, **overrides: object) -> FetchPolicy:
    """A policy that may contact exactly these servers' origins."""
    return FetchPolicy(
        allow_loopback_origins=frozenset(s.origin for s in servers),
        **overrides,  # type: ignore[arg-type]
    )


def page(body: bytes | str, content_type: str = HTML, **headers: str) -> Callable[..., None]:
    data = body.encode() if isinstance(body, str) else body
    return lambda h: respond(h, 200, data, {"Content-Type": content_type, **headers})


def redirect(location: str, status: int = 302) -> Callable[..., None]:
    return lambda h: respond(h, status, b"", {"Location": location})


def delayed(seconds: float) -> Callable[..., None]:
    """A plain-text page that answers after ``seconds``."""

    def send(h: BaseHTTPRequestHandler) -> None:
        time.sleep(seconds)
        respond(h, 200, f"slept {seconds}".encode(), {"Content-Type": "text/plain"})

    return send


async def failure(fetcher: Fetcher, url: str) -> FetchError:
    with pytest.raises(FetchError) as info:
        await fetcher.fetch(url)
    return info.value


async def test_html_page_becomes_a_raw_page(http_server: LoopbackServer) -> None:
    http_server.routes["/a"] = page(ARTICLE)
    async with Fetcher(policy(http_server)) as fetcher:
        got = await fetcher.fetch(http_server.url("/a?x=1"))
    assert got.url == http_server.url("/a?x=1")
    assert got.final_url == http_server.url("/a?x=1")
    assert (got.status, got.content_type, got.encoding) == (200, "text/html", "utf-8")
    assert got.sha256 == hashlib.sha256(ARTICLE.encode()).hexdigest()
    assert got.title == "Quoted page"
    assert got.provider == "http"
    assert got.html is not None and "Jacquard loom" in got.html
    assert got.text is None and got.pages is None
    assert RawPage.from_value(got.to_value()) == got
    sent = http_server.headers_seen[-1]
    assert sent["Host"] == f"127.0.0.1:{http_server.port}"
    assert sent["User-Agent"] == FetchPolicy().user_agent


async def test_redirects_are_followed_and_recorded(http_server: LoopbackServer) -> None:
    http_server.routes["/old"] = redirect("/new", 301)
    http_server.routes["/new"] = page(ARTICLE)
    async with Fetcher(policy(http_server)) as fetcher:
        got = await fetcher.fetch(http_server.url("/old"))
    assert got.url == http_server.url("/old")
    assert got.final_url == http_server.url("/new")


async def test_a_slow_server_times_out(http_server: LoopbackServer) -> None:
    http_server.routes["/slow"] = delayed(3)
    async with Fetcher(policy(http_server, timeout_s=0.3)) as fetcher:
        err = await failure(fetcher, http_server.url("/slow"))
    assert err.reason is Reason.TIMEOUT


async def test_a_drip_fed_body_times_out_as_a_whole(http_server: LoopbackServer) -> None:
    """Each byte arrives well within a read timeout; the request as a whole still ends."""

    def drip(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        h.end_headers()
        try:
            for _ in range(300):
                h.wfile.write(b"x")
                h.wfile.flush()
                time.sleep(0.05)
        except OSError:
            return

    http_server.routes["/drip"] = drip
    async with Fetcher(policy(http_server, timeout_s=0.5)) as fetcher:
        err = await failure(fetcher, http_server.url("/drip"))
    assert err.reason is Reason.TIMEOUT


async def test_the_run_budget_ends_pending_and_later_fetches(http_server: LoopbackServer) -> None:
    http_server.routes["/slow"] = delayed(3)
    http_server.routes["/fast"] = page("fast", "text/plain")
    async with Fetcher(policy(http_server, timeout_s=10, run_budget_s=0.4)) as fetcher:
        pending = await failure(fetcher, http_server.url("/slow"))
        later = await failure(fetcher, http_server.url("/fast"))
    assert pending.reason is Reason.TIMEOUT and "run budget" in pending.detail
    assert later.reason is Reason.TIMEOUT and "run budget" in later.detail
    assert http_server.hits["/fast"] == 0


def _endless(total: int, state: dict[str, object], *, declare_length: bool) -> Callable[..., None]:
    """A handler that streams ``total`` bytes in 64 KiB chunks and records how far it got."""

    def send(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        if declare_length:
            h.send_header("Content-Length", str(total))
        h.end_headers()
        chunk = b"a" * 65536
        sent = 0
        try:
            while sent < total:
                h.wfile.write(chunk)
                sent += len(chunk)
            state["completed"] = True
        except OSError:
            state["completed"] = False
        finally:
            state["sent"] = sent
            done = state["done"]
            assert isinstance(done, threading.Event)
            done.set()

    return send


@pytest.mark.parametrize("declare_length", [False, True], ids=["streamed", "content-length"])
async def test_a_50_mb_body_is_cut_off_at_the_cap(
    http_server: LoopbackServer, declare_length: bool
) -> None:
    state: dict[str, object] = {"done": threading.Event()}
    http_server.routes["/big"] = _endless(50 * MB, state, declare_length=declare_length)
    async with Fetcher(policy(http_server, max_bytes=1 * MB)) as fetcher:
        err = await failure(fetcher, http_server.url("/big"))
    assert err.reason is Reason.TOO_LARGE
    done = state["done"]
    assert isinstance(done, threading.Event) and done.wait(20)
    assert state["completed"] is False  # the client closed the connection early
    assert isinstance(state["sent"], int) and state["sent"] < 50 * MB


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    """64 MiB of spaces, gzip-compressed to well under 100 KiB."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b" " * MB
    return b"".join(packer.compress(block) for _ in range(64)) + packer.flush()


async def test_a_gzip_bomb_stops_at_the_decompressed_cap(
    http_server: LoopbackServer, gzip_bomb: bytes
) -> None:
    assert len(gzip_bomb) < 100_000
    http_server.routes["/bomb"] = page(gzip_bomb, HTML, **{"Content-Encoding": "gzip"})
    async with Fetcher(policy(http_server, max_decompressed_bytes=2 * MB)) as fetcher:
        err = await failure(fetcher, http_server.url("/bomb"))
    assert err.reason is Reason.TOO_LARGE
    assert "inflates" in err.detail


async def test_a_gzip_page_is_decoded_and_hashed_as_received(http_server: LoopbackServer) -> None:
    http_server.routes["/z"] = page(
        gzip.compress(ARTICLE.encode()), HTML, **{"Content-Encoding": "gzip"}
    )
    async with Fetcher(policy(http_server)) as fetcher:
        got = await fetcher.fetch(http_server.url("/z"))
    assert got.html is not None and "Jacquard loom" in got.html
    assert got.sha256 == hashlib.sha256(ARTICLE.encode()).hexdigest()


async def test_a_redirect_loop_fails_with_http_status(http_server: LoopbackServer) -> None:
    http_server.routes["/a"] = redirect("/b")
    http_server.routes["/b"] = redirect("/a")
    async with Fetcher(policy(http_server)) as fetcher:
        err = await failure(fetcher, http_server.url("/a"))
    assert err.reason is Reason.HTTP_STATUS and "redirect loop" in err.detail
    assert http_server.hits["/a"] == 1 and http_server.hits["/b"] == 1


async def test_too_many_redirects_fail_with_http_status(http_server: LoopbackServer) -> None:
    for n in range(10):
        http_server.routes[f"/r{n}"] = redirect(f"/r{n + 1}")
    async with Fetcher(policy(http_server, max_redirects=3)) as fetcher:
        err = await failure(fetcher, http_server.url("/r0"))
    assert err.reason is Reason.HTTP_STATUS and "too many redirects" in err.detail
    assert http_server.hits["/r3"] == 1 and http_server.hits["/r4"] == 0


@pytest.mark.parametrize("second_host", ["127.0.0.1", "::1"])
async def test_a_redirect_to_another_loopback_origin_is_refused(
    make_server: Callable[..., LoopbackServer], second_host: str
) -> None:
    """Only the exact allowed origin is exempt; the second server is never contacted."""
    allowed, other = make_server(), make_server(second_host)
    other.routes["/secret"] = page("internal admin page", "text/plain")
    allowed.routes["/hop"] = redirect(other.url("/secret"))
    # The other server's port is allowed, so only the loopback rule can refuse it.
    rules = policy(allowed, allowed_ports=frozenset({80, 443, other.port}))
    async with Fetcher(rules) as fetcher:
        err = await failure(fetcher, allowed.url("/hop"))
    assert err.reason is Reason.BLOCKED_SSRF
    assert allowed.hits["/hop"] == 1
    assert other.connections == 0


@pytest.mark.parametrize("status", [404, 500])
async def test_error_statuses_fail_with_the_status(
    http_server: LoopbackServer, status: int
) -> None:
    http_server.routes["/e"] = lambda h: respond(h, status, b"oops", {"Content-Type": "text/html"})
    async with Fetcher(policy(http_server)) as fetcher:
        err = await failure(fetcher, http_server.url("/e?api_key=SECRET123"))
    assert err.reason is Reason.HTTP_STATUS
    assert str(status) in err.detail
    assert "SECRET123" not in err.detail and "oops" not in err.detail


PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (PNG, "image/png"),
        (b"\x00\x01\x02binary", "application/octet-stream"),
        (PNG, "text/html"),  # mislabelled: sniffed
        (b"MZ\x90\x00\x03\x00\x00\x00\x04\x00", "text/plain"),  # NULs in "text"
        (b"<p>hello</p>", ""),  # no Content-Type at all
        (b"<html>not a pdf</html>", "application/pdf"),
    ],
    ids=["png", "octet-stream", "png-as-html", "nul-text", "no-type", "fake-pdf"],
)
async def test_binary_or_undeclared_content_is_refused(
    http_server: LoopbackServer, body: bytes, content_type: str
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    http_server.routes["/bin"] = lambda h: respond(h, 200, body, headers)
    async with Fetcher(policy(http_server)) as fetcher:
        err = await failure(fetcher, http_server.url("/bin"))
    assert err.reason is Reason.UNSUPPORTED_TYPE


FRENCH = (
    "<html><head><title>Café résumé</title></head><body><p>Les élèves déjà très "
    "fâchés préfèrent le thé à la crème brûlée; où est la clé du château?</p></body></html>"
)


@pytest.mark.parametrize(
    ("encoding", "content_type", "meta"),
    [
        ("utf-8", "text/html", ""),  # no charset anywhere: must not become mojibake
        ("utf-8", "text/html; charset=iso-8859-1", ""),  # wrong header on a UTF-8 page
        ("latin-1", "text/html; charset=iso-8859-1", ""),
        ("cp1252", "text/html", "windows-1252"),  # declared only in <meta charset>
        ("latin-1", "text/html; charset=utf-8", ""),  # a wrong utf-8 header on a Latin-1 page
        ("cp1252", "text/html", ""),  # undeclared legacy bytes: detected
    ],
)
async def test_charsets_decode_without_mojibake(
    http_server: LoopbackServer, encoding: str, content_type: str, meta: str
) -> None:
    markup = FRENCH.replace("<head>", f"<head><meta charset='{meta}'>") if meta else FRENCH
    http_server.routes["/fr"] = page(markup.encode(encoding), content_type)
    async with Fetcher(policy(http_server)) as fetcher:
        got = await fetcher.fetch(http_server.url("/fr"))
    assert got.html is not None and "crème brûlée" in got.html
    assert got.title == "Café résumé"


@pytest.mark.parametrize("charset", ["base64", "rot13", "zlib", "cp500"])
async def test_a_charset_browsers_do_not_know_is_detected_instead(
    http_server: LoopbackServer, charset: str
) -> None:
    http_server.routes["/odd"] = page(FRENCH.encode("utf-8"), f"text/html; charset={charset}")
    async with Fetcher(policy(http_server)) as fetcher:
        got = await fetcher.fetch(http_server.url("/odd"))
    assert got.html is not None and "crème brûlée" in got.html
    assert got.encoding == "utf-8"


async def test_a_pdf_becomes_page_texts(
    http_server: LoopbackServer, make_pdf: Callable[[str], bytes]
) -> None:
    body = make_pdf("Verbatim quotes only")
    http_server.routes["/doc.pdf"] = page(body, "application/pdf")
    async with Fetcher(policy(http_server)) as fetcher:
        got = await fetcher.fetch(http_server.url("/doc.pdf"))
    assert got.content_type == "application/pdf" and got.encoding is None
    assert got.pages is not None and len(got.pages) == 1
    assert "Verbatim quotes only" in got.pages[0]
    assert got.sha256 == hashlib.sha256(body).hexdigest()


async def test_robots_txt_is_honoured_and_fetched_once(http_server: LoopbackServer) -> None:
    http_server.routes["/robots.txt"] = page("User-agent: *\nDisallow: /private\n", "text/plain")
    http_server.routes["/private/x"] = page(ARTICLE)
    http_server.routes["/public"] = page(ARTICLE)
    async with Fetcher(policy(http_server)) as fetcher:
        results = await fetcher.fetch_many(
            [
                http_server.url("/private/x"),
                http_server.url("/public"),
                http_server.url("/private/x?page=2"),
            ]
        )
    assert [getattr(r, "reason", None) for r in results] == [Reason.ROBOTS, None, Reason.ROBOTS]
    assert http_server.hits["/robots.txt"] == 1
    assert http_server.hits["/private/x"] == 0

    async with Fetcher(policy(http_server, respect_robots=False)) as fetcher:
        got = await fetcher.fetch(http_server.url("/private/x"))
    assert got.title == "Quoted page"


@pytest.mark.parametrize("status", [401, 403, 404, 410])
async def test_an_unavailable_robots_txt_allows_everything(
    http_server: LoopbackServer, status: int
) -> None:
    """RFC 9309: a 4xx robots.txt means the site has none."""
    http_server.routes["/robots.txt"] = lambda h: respond(h, status, b"no", {})
    http_server.routes["/a"] = page(ARTICLE)
    async with Fetcher(policy(http_server)) as fetcher:
        await fetcher.fetch(http_server.url("/a"))
    assert http_server.hits["/robots.txt"] == 1


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_a_robots_txt_server_error_disallows_everything(
    http_server: LoopbackServer, status: int
) -> None:
    """RFC 9309: a 5xx robots.txt is unreachable, so the whole site is off limits."""
    http_server.routes["/robots.txt"] = lambda h: respond(h, status, b"busy", {})
    http_server.routes["/a"] = page(ARTICLE)
    async with Fetcher(policy(http_server)) as fetcher:
        err = await failure(fetcher, http_server.url("/a"))
    assert err.reason is Reason.ROBOTS and "unreachable" in err.detail
    assert http_server.hits["/a"] == 0


async def test_an_unreachable_robots_txt_disallows_everything(http_server: LoopbackServer) -> None:
    """A connection dropped without an answer to robots.txt blocks the site."""
    http_server.routes["/robots.txt"] = lambda h: setattr(h, "close_connection", True)
    http_server.routes["/a"] = page(ARTICLE)
    async with Fetcher(policy(http_server)) as fetcher:
        err = await failure(fetcher, http_server.url("/a"))
    assert err.reason is Reason.ROBOTS
    assert http_server.hits["/a"] == 0


async def test_429_then_200_is_retried(http_server: LoopbackServer) -> None:
    calls = []

    def flaky(h: BaseHTTPRequestHandler) -> None:
        calls.append(1)
        if len(calls) == 1:
            respond(h, 429, b"slow down", {"Retry-After": "0", "Content-Type": "text/plain"})
        else:
            respond(h, 200, ARTICLE.encode(), {"Content-Type": HTML})

    http_server.routes["/flaky"] = flaky
    async with Fetcher(policy(http_server, backoff_s=0.01)) as fetcher:
        got = await fetcher.fetch(http_server.url("/flaky"))
    assert got.status == 200 and len(calls) == 2


async def test_503_is_retried_a_bounded_number_of_times(http_server: LoopbackServer) -> None:
    http_server.routes["/down"] = lambda h: respond(h, 503, b"", {"Content-Type": "text/plain"})
    async with Fetcher(policy(http_server, backoff_s=0.01, max_retries=2)) as fetcher:
        err = await failure(fetcher, http_server.url("/down"))
    assert err.reason is Reason.HTTP_STATUS and "503" in err.detail
    assert http_server.hits["/down"] == 3


async def test_a_retry_after_longer_than_the_timeout_is_not_waited_for(
    http_server: LoopbackServer,
) -> None:
    http_server.routes["/busy"] = lambda h: respond(h, 429, b"", {"Retry-After": "3600"})
    async with Fetcher(policy(http_server, timeout_s=2)) as fetcher:
        err = await failure(fetcher, http_server.url("/busy"))
    assert err.reason is Reason.HTTP_STATUS and "Retry-After" in err.detail
    assert http_server.hits["/busy"] == 1


async def test_fetch_many_keeps_input_order(http_server: LoopbackServer) -> None:
    http_server.routes["/s1"] = delayed(0.3)
    http_server.routes["/s2"] = delayed(0.0)
    urls = [http_server.url("/s1"), http_server.url("/missing"), http_server.url("/s2")]
    async with Fetcher(policy(http_server)) as fetcher:
        results = await fetcher.fetch_many(urls)
    first, missing, last = results
    assert isinstance(first, RawPage) and first.text == "slept 0.3"
    assert isinstance(missing, FetchFailure)
    assert (missing.url, missing.reason) == (urls[1], Reason.HTTP_STATUS)
    assert isinstance(last, RawPage) and last.text == "slept 0.0"


async def test_fetch_until_replaces_dead_links_with_the_next_candidates(
    http_server: LoopbackServer,
) -> None:
    for name in ("ok1", "ok2", "ok3"):
        http_server.routes[f"/{name}"] = page(f"page {name}", "text/plain")
    candidates = [{"url": http_server.url(p)} for p in ("/dead", "/ok1", "/gone", "/ok2", "/ok3")]
    async with Fetcher(policy(http_server)) as fetcher:
        pages, failures = await fetch_until(
            candidates, 2, lambda c: fetcher.fetch(c["url"]), concurrency=4
        )
    assert [p.text for _, p in pages] == ["page ok1", "page ok2"]
    assert [(c["url"], f.reason) for c, f in failures] == [
        (http_server.url("/dead"), Reason.HTTP_STATUS),
        (http_server.url("/gone"), Reason.HTTP_STATUS),
    ]
    assert failures[0][1].url == http_server.url("/dead")
    assert http_server.hits["/ok3"] == 0


@pytest.fixture(scope="module")
def untrusted_tls(tmp_path_factory: pytest.TempPathFactory) -> ssl.SSLContext:
    """A server TLS context with a self-signed certificate for ``localhost``."""
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .sign(key, hashes.SHA256())
    )
    folder = tmp_path_factory.mktemp("tls")
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return context


async def test_https_connects_to_the_vetted_address_and_verifies_the_name(
    make_server: Callable[..., LoopbackServer], untrusted_tls: ssl.SSLContext
) -> None:
    """The request goes to the resolved IP, SNI carries the host name, and an untrusted
    certificate fails with ``tls`` (verification is never turned off)."""
    sni: list[str | None] = []
    untrusted_tls.sni_callback = lambda sock, server_name, ctx: sni.append(server_name)
    server = make_server(tls=untrusted_tls)
    server.routes["/a"] = page(ARTICLE)
    asked: list[str] = []

    async def resolver(host: str, port: int) -> list[str]:
        asked.append(host)
        return ["127.0.0.1"]

    origin = f"https://localhost:{server.port}"
    rules = FetchPolicy(allow_loopback_origins=frozenset({origin}), respect_robots=False)
    async with Fetcher(rules, resolver=resolver) as fetcher:
        err = await failure(fetcher, f"{origin}/a")
    assert err.reason is Reason.TLS
    assert asked == ["localhost"]
    assert sni == ["localhost"]
    assert server.hits["/a"] == 0
