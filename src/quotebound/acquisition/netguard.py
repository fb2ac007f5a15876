"""The SSRF guard: which URLs the fetcher may contact, and at which address.

See docs/architecture.md §7.

A URL passes in two steps. :meth:`NetGuard.check` is static (no DNS): http/https only, no
credentials, a valid host, numeric host forms decoded the way browsers do (``2130706433``,
``0x7f000001``, ``0177.0.0.1``, ``127.1``), literal addresses and internal host names refused,
ports 80/443 unless configured. :meth:`NetGuard.vet` then resolves the host with an injectable
resolver and refuses it if ANY address is not publicly routable. The fetcher connects to the
vetted address itself, so a second DNS answer can never redirect it (no DNS rebinding).
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from quotebound.errors import ConfigError, FetchError, Reason

__all__ = [
    "IPAddress",
    "NetGuard",
    "Resolver",
    "Target",
    "address_problem",
    "normalize_origin",
    "parse_target",
    "safe_url",
    "system_resolver",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]
"""``(host, port) -> IP address strings``; the default asks the system via getaddrinfo."""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_HOST_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")
_NUMERIC_PART = re.compile(r"^(?:0[xX][0-9a-fA-F]*|[0-9]+)$")
_BAD_URL_CHARS = re.compile(r"[\x00-\x20\x7f\\]")

_METADATA_HOSTS = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.internal",
    }
)
"""Cloud metadata service names, refused before any lookup."""
_INTERNAL_SUFFIXES = (".localhost", ".internal", ".local", ".home.arpa")
"""Name suffixes reserved for private networks (RFC 6761, RFC 6762, RFC 8375, ICANN .internal)."""

_METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",
        "169.254.170.2",
        "100.100.100.200",
        "192.0.0.192",
        "168.63.129.16",
        "fd00:ec2::254",
    )
)
"""Cloud metadata and host-agent endpoints (AWS, ECS, Alibaba, Oracle, Azure, AWS IPv6)."""

_BLOCKED_NETWORKS = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",
        "100.64.0.0/10",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "240.0.0.0/4",
        "64:ff9b:1::/48",
        "100::/64",
        "2001::/23",
        "2001:db8::/32",
        "3fff::/20",
        "5f00::/16",
    )
)
"""Special-purpose ranges that Python's ``is_global`` does not cover in every version."""
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def safe_url(url: str) -> str:
    """``url`` without credentials, query or fragment: safe to put in details and logs."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]
    except ValueError:
        return "<malformed url>"
    return f"{parts.scheme}://{netloc}{parts.path}" if parts.scheme else "<malformed url>"


@dataclass(frozen=True)
class Target:
    """A URL that passed the static checks, split into what a connection needs."""

    url: str
    """The URL as given."""
    scheme: str
    """``http`` or ``https``."""
    host: str
    """Lower-case host name (IDNA ASCII form), or the canonical text of an IP literal."""
    port: int
    """The port, explicit or the scheme's default."""
    ip: IPAddress | None
    """The address when the host is an IP literal (in any numeric form), else None."""
    path_query: str
    """Path and query to send in the request line (``/`` when the path is empty)."""

    @property
    def origin(self) -> str:
        """``scheme://host:port`` with the port always explicit."""
        return f"{self.scheme}://{self._netloc_host}:{self.port}"

    @property
    def host_header(self) -> str:
        """The Host header: the host, and the port when it is not the scheme's default."""
        if self.port == _DEFAULT_PORTS[self.scheme]:
            return self._netloc_host
        return f"{self._netloc_host}:{self.port}"

    @property
    def _netloc_host(self) -> str:
        return f"[{self.host}]" if isinstance(self.ip, ipaddress.IPv6Address) else self.host


@dataclass(frozen=True)
class Vetted:
    """A target and the one address the fetcher will connect to."""

    target: Target
    """The checked URL."""
    address: IPAddress
    """The resolved, allowed address to connect to."""

    @property
    def connect_url(self) -> str:
        """The request URL with the vetted address in place of the host name."""
        host = f"[{self.address}]" if self.address.version == 6 else str(self.address)
        return f"{self.target.scheme}://{host}:{self.target.port}{self.target.path_query}"


def parse_target(url: str) -> Target:
    """Split and validate ``url``; raises FetchError(invalid_url) with the rule that failed."""
    if not isinstance(url, str) or not url or _BAD_URL_CHARS.search(url):
        raise FetchError(Reason.INVALID_URL, "URL is empty or contains spaces, controls or '\\'")
    try:
        parts = urlsplit(url)
        explicit_port = parts.port
    except ValueError as exc:
        raise FetchError(Reason.INVALID_URL, f"malformed URL {safe_url(url)}: {exc}") from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise FetchError(Reason.INVALID_URL, f"only http and https are fetched, got {scheme!r}")
    if "@" in parts.netloc:
        raise FetchError(Reason.INVALID_URL, f"credentials in URLs are refused: {safe_url(url)}")
    raw_host = parts.hostname or ""
    if not raw_host:
        raise FetchError(Reason.INVALID_URL, f"URL has no host: {safe_url(url)}")
    host, ip = _parse_host(raw_host, bracketed=parts.netloc.startswith("["))
    port = _DEFAULT_PORTS[scheme] if explicit_port is None else explicit_port
    path_query = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(url=url, scheme=scheme, host=host, port=port, ip=ip, path_query=path_query)


def _parse_host(raw: str, *, bracketed: bool) -> tuple[str, IPAddress | None]:
    if bracketed:
        if "%" in raw:
            raise FetchError(Reason.BLOCKED_SSRF, "IPv6 literals with a zone id are refused")
        try:
            ip6 = ipaddress.IPv6Address(raw)
        except ValueError as exc:
            raise FetchError(Reason.INVALID_URL, f"bad IPv6 literal [{raw}]") from exc
        return str(ip6), ip6
    host = raw[:-1] if raw.endswith(".") else raw
    labels = host.split(".")
    if _NUMERIC_PART.match(labels[-1]):
        ip4 = _parse_ipv4(labels)
        return str(ip4), ip4
    try:
        ascii_host = host.encode("idna").decode("ascii").lower()
    except UnicodeError as exc:
        raise FetchError(Reason.INVALID_URL, f"host {raw!r} is not a valid name") from exc
    if len(ascii_host) > 253 or not all(_HOST_LABEL.match(x) for x in ascii_host.split(".")):
        raise FetchError(Reason.INVALID_URL, f"host {raw!r} is not a valid name")
    return ascii_host, None


def _parse_ipv4(labels: list[str]) -> ipaddress.IPv4Address:
    """A host ending in a number is an IPv4 address, in the WHATWG URL standard's forms."""
    if len(labels) > 4 or not all(_NUMERIC_PART.match(x) for x in labels):
        raise FetchError(Reason.INVALID_URL, f"host {'.'.join(labels)!r} is not a valid IPv4")
    numbers = [_ipv4_number(x) for x in labels]
    last_limit = 256 ** (5 - len(numbers))
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= last_limit:
        raise FetchError(Reason.INVALID_URL, f"IPv4 host {'.'.join(labels)!r} is out of range")
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n * 256 ** (3 - i)
    return ipaddress.IPv4Address(value)


def _ipv4_number(part: str) -> int:
    if part[:2].lower() == "0x":
        return int(part[2:] or "0", 16)
    if len(part) > 1 and part.startswith("0"):
        if not set(part) <= set("01234567"):
            raise FetchError(Reason.INVALID_URL, f"bad octal IPv4 part {part!r}")
        return int(part, 8)
    return int(part)


def address_problem(ip: IPAddress) -> str | None:
    """Why ``ip`` must not be contacted, or None when it is publicly routable."""
    if ip in _METADATA_ADDRESSES:
        return "cloud metadata address"
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            inner = address_problem(embedded)
            return f"embeds {embedded}: {inner}" if inner else None
        if ip.teredo is not None:
            return "Teredo tunnel address"
        if ip.is_site_local:
            return "site-local address"
    checks = (
        (ip.is_loopback, "loopback address"),
        (ip.is_unspecified, "unspecified address"),
        (ip.is_link_local, "link-local address"),
        (ip.is_multicast, "multicast address"),
        (ip.is_private, "private address"),
        (ip.is_reserved, "reserved address"),
        (any(ip in n for n in _BLOCKED_NETWORKS), "special-purpose address"),
        (not ip.is_global, "not a global address"),
    )
    return next((why for hit, why in checks if hit), None)


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address inside an IPv4-mapped, IPv4-compatible, 6to4 or NAT64 address."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    low32 = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip in _NAT64 or (int(ip) >> 32 == 0 and int(ip) > 1):
        return low32
    return None


def _name_problem(host: str) -> str | None:
    if host == "localhost" or host.endswith(_INTERNAL_SUFFIXES):
        return "internal host name"
    if host in _METADATA_HOSTS:
        return "cloud metadata host name"
    return None


def normalize_origin(origin: str) -> str:
    """``scheme://host:port`` of an allow-list entry; raises ConfigError if it is not one."""
    try:
        target = parse_target(origin)
    except FetchError as exc:
        if exc.reason is not Reason.BLOCKED_SSRF:
            raise ConfigError(f"allowed origin {origin!r} is not an http(s) origin") from exc
        raise ConfigError(f"allowed origin {origin!r} cannot carry an IPv6 zone id") from exc
    if target.path_query != "/" or urlsplit(origin).fragment:
        raise ConfigError(f"allowed origin {origin!r} must not have a path, query or fragment")
    return target.origin


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses the system resolver gives for ``host`` (TCP), in its order."""
    infos = await asyncio.get_running_loop().getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class NetGuard:
    """Checks URLs against the SSRF rules of one fetch policy."""

    def __init__(
        self,
        *,
        allowed_ports: Iterable[int],
        allow_loopback_origins: Iterable[str] = (),
        resolver: Resolver | None = None,
    ) -> None:
        self._ports = frozenset(allowed_ports)
        self._loopback_origins = frozenset(normalize_origin(o) for o in allow_loopback_origins)
        self._resolver = resolver or system_resolver

    def check(self, url: str) -> Target:
        """The static checks (no DNS); raises FetchError(invalid_url|blocked_ssrf|blocked_port)."""
        target = parse_target(url)
        exempt = target.origin in self._loopback_origins
        if target.ip is not None:
            self._refuse_address(target, target.ip, exempt=exempt)
        elif not exempt and (why := _name_problem(target.host)) is not None:
            raise FetchError(Reason.BLOCKED_SSRF, f"{why}: {safe_url(url)}")
        if not exempt and target.port not in self._ports:
            raise FetchError(
                Reason.BLOCKED_PORT,
                f"port {target.port} is not allowed (allowed: {sorted(self._ports)}): "
                f"{safe_url(url)}",
            )
        return target

    def problem(self, url: str) -> Reason | None:
        """The reason code :meth:`check` would refuse ``url`` with, or None (for gate 1)."""
        try:
            self.check(url)
        except FetchError as exc:
            return exc.reason
        return None

    async def vet(self, url: str) -> Vetted:
        """Check ``url``, resolve its host and refuse it if ANY address is not public."""
        target = self.check(url)
        if target.ip is not None:
            return Vetted(target, target.ip)
        try:
            answers = await self._resolver(target.host, target.port)
        except OSError as exc:
            raise FetchError(
                Reason.DNS, f"cannot resolve {target.host}: {type(exc).__name__}"
            ) from exc
        addresses = [_address(target, a) for a in answers]
        if not addresses:
            raise FetchError(Reason.DNS, f"no address for {target.host}")
        exempt = target.origin in self._loopback_origins
        for address in addresses:
            self._refuse_address(target, address, exempt=exempt)
        return Vetted(target, addresses[0])

    @staticmethod
    def _refuse_address(target: Target, ip: IPAddress, *, exempt: bool) -> None:
        if exempt and ip.is_loopback:
            return
        why = address_problem(ip)
        if why is not None:
            raise FetchError(
                Reason.BLOCKED_SSRF, f"{target.host} -> {ip}: {why}: {safe_url(target.url)}"
            )


def _address(target: Target, text: str) -> IPAddress:
    try:
        ip = ipaddress.ip_address(text)
    except ValueError as exc:
        raise FetchError(Reason.DNS, f"resolver gave a non-address for {target.host}") from exc
    if isinstance(ip, ipaddress.IPv6Address) and ip.scope_id:
        raise FetchError(Reason.BLOCKED_SSRF, f"{target.host} -> scoped IPv6 address {ip}")
    return ip
