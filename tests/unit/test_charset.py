"""decode_bytes: BOM, then the header charset, then <meta>, then detection; never raises."""

from __future__ import annotations

import codecs

import pytest

from quotebound.text.charset import decode_bytes

TEXT = "<meta charset={cs}><p>Grüße – “quoted” €</p>"


def test_bom_wins_over_header_and_meta() -> None:
    body = codecs.BOM_UTF8 + TEXT.format(cs="iso-8859-1").encode("utf-8")
    assert decode_bytes(body, content_type="text/html; charset=koi8-r") == (
        TEXT.format(cs="iso-8859-1"),
        "utf-8",
    )
    text, enc = decode_bytes(TEXT.format(cs="x").encode("utf-16"))
    assert (text, enc) == (TEXT.format(cs="x"), "utf-16")


def test_header_charset_wins_over_meta() -> None:
    body = "<meta charset=windows-1251><p>Привет</p>".encode("koi8-r")
    assert decode_bytes(body, content_type='text/html; charset="koi8-r"')[0].endswith("Привет</p>")


def test_meta_charset_and_http_equiv() -> None:
    body = TEXT.format(cs="windows-1252").encode("cp1252")
    assert decode_bytes(body) == (TEXT.format(cs="windows-1252"), "cp1252")
    equiv = '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-15"><p>€</p>'
    assert decode_bytes(equiv.encode("iso8859-15"))[0].endswith("<p>€</p>")


def test_latin1_and_ascii_labels_mean_windows_1252() -> None:
    for label in ("iso-8859-1", "latin1", "us-ascii"):
        body = TEXT.format(cs=label).encode("cp1252")
        assert decode_bytes(body) == (TEXT.format(cs=label), "cp1252")


def test_meta_cannot_declare_utf16_for_ascii_compatible_bytes() -> None:
    body = TEXT.format(cs="utf-16").encode("utf-8")
    assert decode_bytes(body) == (TEXT.format(cs="utf-16"), "utf-8")


def test_undeclared_utf8_and_legacy_bytes() -> None:
    assert decode_bytes("<p>naïve 日本語</p>".encode()) == ("<p>naïve 日本語</p>", "utf-8")
    text, _ = decode_bytes("<p>Grüße aus Köln, schöne Straße</p>".encode("cp1252"))
    assert text == "<p>Grüße aus Köln, schöne Straße</p>"


@pytest.mark.parametrize(
    "body", [b"", b"\xff\xfe\xfd", bytes(range(256)), b"\xc3(" * 1000, b"\x00" * 100]
)
def test_never_raises(body: bytes) -> None:
    text, enc = decode_bytes(body, content_type="text/html; charset=no-such-codec")
    assert isinstance(text, str) and enc


BYTES_CODECS = ["base64", "hex", "rot13", "zlib", "idna", "bz2", "uu", "quopri", "punycode"]


@pytest.mark.parametrize("label", [*BYTES_CODECS, "cp500", "utf-7", "no-such-codec"])
def test_labels_browsers_do_not_know_are_undeclared(label: str) -> None:
    """Bytes-to-bytes codecs and non-WHATWG encodings such as EBCDIC fall through to detection."""
    legacy = "<p>Grüße aus Köln, schöne Straße</p>"
    for body, content_type in (
        (legacy.encode("utf-8"), f"text/html; charset={label}"),
        (f"<meta charset={label}>{legacy}".encode("cp1252"), "text/html"),
        (legacy.encode("utf-8"), f"text/plain; charset={label}"),
    ):
        text, enc = decode_bytes(body, content_type=content_type)
        assert text.endswith(legacy), (label, text)
        assert enc in ("utf-8", "cp1252")


def test_every_whatwg_label_decodes_arbitrary_bytes_without_raising() -> None:
    from quotebound.text.charset import _BY_LABEL

    body = bytes(range(256)) * 4
    for label in _BY_LABEL:
        text, enc = decode_bytes(body, content_type=f"text/html; charset={label}")
        assert isinstance(text, str) and enc
