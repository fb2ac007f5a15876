"""The SSRF guard: hostile URLs are refused before any connection, public ones pass."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quotebound.acquisition.fetcher import Fetcher
from quotebound.acquisition.fetchpolicy import FetchPolicy
from quotebound.acquisition.netguard import (
    NetGuard,
    address_problem,
    normalize_origin,
    parse_target,
    safe_url,
)
from quotebound.errors import ConfigError, FetchError, Reason

DNS = {
    "localhost": ["127.0.0.1"],
    "internal.example": ["10.1.2.3"],
    "corp.example": ["172.16.5.4"],
    "home.example": ["192.168.0.10"],
    "linklocal.example": ["169.254.10.10"],
    "meta.example": ["169.254.169.254"],
    "v6loop.example": ["::1"],
    "mapped.example": ["::ffff:10.0.0.1"],
    "ula.example": ["fd12:3456::1"],
    "rebind.example": ["127.0.0.1", "93.184.216.34"],  # one bad answer is enough
    "mixed.example": ["93.184.216.34", "10.0.0.7"],
    "public.example": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
    "ports.example": ["127.0.0.1"],
}


class RecordingResolver:
    """Answers from :data:`DNS` and remembers every question."""

    def __init__(self, answers: dict[str, list[str]] | None = None) -> None:
        self.answers = DNS if answers is None else answers
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        if host not in self.answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.answers[host]


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    """A loopback socket that hostile URLs point at: it must never see a connection."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.setblocking(False)
    yield sock
    sock.close()


# (url, expected reason, whether the resolver may be asked). "{port}" is the listener's port,
# which the policy allows, so that only the address rules stand between the URL and a connection.
SSRF_CASES = [
    ("ftp://example.com/file", Reason.INVALID_URL, False),
    ("file:///etc/passwd", Reason.INVALID_URL, False),
    ("gopher://127.0.0.1:{port}/_GET", Reason.INVALID_URL, False),
    ("http://user:pass@public.example/", Reason.INVALID_URL, False),
    ("http://public.example\\@127.0.0.1:{port}/", Reason.INVALID_URL, False),
    ("http:///only-a-path", Reason.INVALID_URL, False),
    ("http://public.example:99999/", Reason.INVALID_URL, False),
    ("http://1.2.3.999/", Reason.INVALID_URL, False),
    ("http://127.0.0.1:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://2130706433:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://0x7f000001:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://0177.0.0.1:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://127.1:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://0x7f.0.0.1:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://0:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://0.0.0.0:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://127.0.0.1.:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://[::1]:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://[::]:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://[::ffff:127.0.0.1]:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://[::ffff:7f00:1]:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://[::127.0.0.1]:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://[2002:7f00:1::]:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://[64:ff9b::a9fe:a9fe]/", Reason.BLOCKED_SSRF, False),
    ("http://[fe80::1%25eth0]:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://[fe80::1]/", Reason.BLOCKED_SSRF, False),
    ("http://[fc00::1]/", Reason.BLOCKED_SSRF, False),
    ("http://[fec0::1]/", Reason.BLOCKED_SSRF, False),
    ("http://[ff02::1]/", Reason.BLOCKED_SSRF, False),
    ("http://[2001:db8::1]/", Reason.BLOCKED_SSRF, False),
    ("http://[fd00:ec2::254]/latest/meta-data/", Reason.BLOCKED_SSRF, False),
    ("http://169.254.169.254/latest/meta-data/", Reason.BLOCKED_SSRF, False),
    ("http://100.100.100.200/latest/meta-data/", Reason.BLOCKED_SSRF, False),
    ("http://192.0.0.192/opc/v2/instance/", Reason.BLOCKED_SSRF, False),
    ("http://10.0.0.1/", Reason.BLOCKED_SSRF, False),
    ("http://172.16.0.1/", Reason.BLOCKED_SSRF, False),
    ("http://192.168.1.1/", Reason.BLOCKED_SSRF, False),
    ("http://100.64.0.1/", Reason.BLOCKED_SSRF, False),
    ("http://198.18.0.1/", Reason.BLOCKED_SSRF, False),
    ("http://192.0.2.1/", Reason.BLOCKED_SSRF, False),
    ("http://224.0.0.1/", Reason.BLOCKED_SSRF, False),
    ("http://255.255.255.255/", Reason.BLOCKED_SSRF, False),
    ("http://metadata.google.internal/computeMetadata/v1/", Reason.BLOCKED_SSRF, False),
    ("http://metadata/computeMetadata/v1/", Reason.BLOCKED_SSRF, False),
    ("http://localhost:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://admin.localhost:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://printer.local:{port}/", Reason.BLOCKED_SSRF, False),
    ("http://internal.example:{port}/", Reason.BLOCKED_SSRF, True),
    ("http://corp.example/", Reason.BLOCKED_SSRF, True),
    ("http://home.example/", Reason.BLOCKED_SSRF, True),
    ("http://linklocal.example:{port}/", Reason.BLOCKED_SSRF, True),
    ("http://meta.example/latest/meta-data/", Reason.BLOCKED_SSRF, True),
    ("http://v6loop.example:{port}/", Reason.BLOCKED_SSRF, True),
    ("http://mapped.example/", Reason.BLOCKED_SSRF, True),
    ("http://ula.example/", Reason.BLOCKED_SSRF, True),
    ("http://rebind.example:{port}/", Reason.BLOCKED_SSRF, True),
    ("http://ports.example:22/", Reason.BLOCKED_PORT, False),
    ("http://ports.example:8080/", Reason.BLOCKED_PORT, False),
    ("https://ports.example:0/", Reason.BLOCKED_PORT, False),
]


@pytest.mark.parametrize(("template", "reason", "resolves"), SSRF_CASES)
async def test_hostile_urls_are_refused_without_a_connection(
    listener: socket.socket, template: str, reason: Reason, resolves: bool
) -> None:
    port = listener.getsockname()[1]
    url = template.replace("{port}", str(port))
    resolver = RecordingResolver()
    rules = FetchPolicy(allowed_ports=frozenset({80, 443, port}), timeout_s=2, run_budget_s=5)
    async with Fetcher(rules, resolver=resolver) as fetcher:
        with pytest.raises(FetchError) as info:
            await fetcher.fetch(url)
    assert info.value.reason is reason, info.value.detail
    assert bool(resolver.asked) is resolves
    with pytest.raises(BlockingIOError):
        listener.accept()  # nothing ever connected to the loopback listener


def test_the_table_is_large_enough() -> None:
    assert len(SSRF_CASES) >= 25


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.1", "10.0.0.1"),
        ("192.168.257", "192.168.1.1"),
        ("0xA9.0xFE.0xA9.0xFE", "169.254.169.254"),
        ("8.8.8.8.", "8.8.8.8"),
        ("[::ffff:a9fe:a9fe]", "::ffff:a9fe:a9fe"),
    ],
)
def test_numeric_host_forms_decode_like_a_browser(host: str, address: str) -> None:
    assert parse_target(f"http://{host}/").ip == ipaddress.ip_address(address)


@given(
    st.sampled_from(["127.0.0.0/8", "10.0.0.0/8", "169.254.0.0/16", "192.168.0.0/16"]).flatmap(
        lambda net: st.integers(
            int(ipaddress.ip_network(net)[0]), int(ipaddress.ip_network(net)[-1])
        )
    ),
    st.sampled_from(["decimal", "hex", "octal-dotted", "dotted"]),
)
def test_every_spelling_of_a_private_address_is_refused(value: int, form: str) -> None:
    octets = ipaddress.IPv4Address(value).packed
    host = {
        "decimal": str(value),
        "hex": hex(value),
        "octal-dotted": ".".join(f"0{b:o}" for b in octets),
        "dotted": ".".join(str(b) for b in octets),
    }[form]
    guard = NetGuard(allowed_ports={80, 443})
    assert guard.problem(f"http://{host}/") is Reason.BLOCKED_SSRF


@pytest.mark.parametrize(
    "address",
    ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2002:808:808::1"],
)
def test_public_addresses_pass(address: str) -> None:
    assert address_problem(ipaddress.ip_address(address)) is None


async def test_a_public_name_is_vetted_to_its_first_address() -> None:
    resolver = RecordingResolver()
    guard = NetGuard(allowed_ports={80, 443}, resolver=resolver)
    vetted = await guard.vet("https://Public.Example/a%20b?q=1#frag")
    assert resolver.asked == ["public.example"]
    assert vetted.address == ipaddress.ip_address("93.184.216.34")
    assert vetted.connect_url == "https://93.184.216.34:443/a%20b?q=1"
    assert vetted.target.host_header == "public.example"
    assert vetted.target.origin == "https://public.example:443"


async def test_one_private_answer_among_public_ones_is_refused() -> None:
    """Checked on the guard alone: a broken check must not connect to a public address."""
    guard = NetGuard(allowed_ports={443}, resolver=RecordingResolver())
    with pytest.raises(FetchError) as info:
        await guard.vet("https://mixed.example/")
    assert info.value.reason is Reason.BLOCKED_SSRF and "10.0.0.7" in info.value.detail


async def test_dns_failures_are_reported_as_dns() -> None:
    guard = NetGuard(allowed_ports={80}, resolver=RecordingResolver({"empty.example": []}))
    for url in ("http://unknown.example/", "http://empty.example/"):
        with pytest.raises(FetchError) as info:
            await guard.vet(url)
        assert info.value.reason is Reason.DNS
    assert guard.problem("http://unknown.example/") is None  # static checks need no DNS


async def test_the_loopback_allow_list_exempts_exact_origins_only() -> None:
    resolver = RecordingResolver({"localhost": ["127.0.0.1"], "evil.localhost": ["10.0.0.1"]})
    guard = NetGuard(
        allowed_ports={80, 443},
        allow_loopback_origins={"http://127.0.0.1:8765", "HTTP://LocalHost:9000/"},
        resolver=resolver,
    )
    assert (await guard.vet("http://127.0.0.1:8765/page")).address.is_loopback
    assert (await guard.vet("http://localhost:9000/")).address.is_loopback
    for other in (
        "http://127.0.0.1:8766/",  # another port
        "https://127.0.0.1:8765/",  # another scheme
        "http://127.0.0.2:8765/",  # another host
        "http://[::1]:8765/",
    ):
        assert guard.problem(other) in (Reason.BLOCKED_SSRF, Reason.BLOCKED_PORT), other
    only_loopback = NetGuard(
        allowed_ports={80}, allow_loopback_origins={"http://evil.localhost:80"}, resolver=resolver
    )
    with pytest.raises(FetchError) as info:  # the exemption covers loopback, not 10.0.0.0/8
        await only_loopback.vet("http://evil.localhost/")
    assert info.value.reason is Reason.BLOCKED_SSRF


@pytest.mark.parametrize(
    "origin", ["127.0.0.1:8000", "http://127.0.0.1:8000/path", "ftp://127.0.0.1", "http://"]
)
def test_malformed_allowed_origins_are_configuration_errors(origin: str) -> None:
    with pytest.raises(ConfigError):
        normalize_origin(origin)


def test_safe_url_drops_credentials_query_and_fragment() -> None:
    assert safe_url("https://u:pw@x.example/p?key=SECRET#f") == "https://x.example/p"
