"""Decoding page bytes to text without mojibake.

Order: byte-order mark, then the HTTP content-type charset, then ``<meta charset>`` /
``http-equiv`` in the first bytes, then detection (many real pages declare nothing), then
UTF-8 with replacement characters. Never raises.

A declared charset counts only when it is a label of the WHATWG Encoding Standard, the list
browsers honour: anything else (``base64``, ``rot13``, ``zlib``, EBCDIC ``cp500``, a typo) is
treated as undeclared, so the bytes are detected instead of decoded with a codec no browser
would apply.
"""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

__all__ = ["charset_from_content_type", "decode_bytes"]

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_CT_CHARSET = re.compile(r"""charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.I)
_SNIFF_BYTES = 4096
_DETECT_BYTES = 256 * 1024


# The WHATWG Encoding Standard's labels (https://encoding.spec.whatwg.org/#names-and-labels),
# grouped by the Python codec that decodes them. "replacement" and "x-user-defined" are left
# out: a page declaring them is treated as undeclared.
_WHATWG_LABELS = {
    "utf-8": "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8",
    "cp866": "866 cp866 csibm866 ibm866",
    "iso8859-2": "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 "
    "iso_8859-2:1987 l2 latin2",
    "iso8859-3": "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 "
    "iso_8859-3:1988 l3 latin3",
    "iso8859-4": "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 "
    "iso_8859-4:1988 l4 latin4",
    "iso8859-5": "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 "
    "iso_8859-5 iso_8859-5:1988",
    "iso8859-6": "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 "
    "iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987",
    "iso8859-7": "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 "
    "iso8859-7 iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek",
    "iso8859-8": "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 "
    "iso8859-8 iso88598 iso_8859-8 iso_8859-8:1988 visual csiso88598i iso-8859-8-i logical",
    "iso8859-10": "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6",
    "iso8859-13": "iso-8859-13 iso8859-13 iso885913",
    "iso8859-14": "iso-8859-14 iso8859-14 iso885914",
    "iso8859-15": "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9",
    "iso8859-16": "iso-8859-16",
    "koi8-r": "cskoi8r koi koi8 koi8-r koi8_r",
    "koi8-u": "koi8-ru koi8-u",
    "mac-roman": "csmacintosh mac macintosh x-mac-roman",
    "cp874": "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874",
    "cp1250": "cp1250 windows-1250 x-cp1250",
    "cp1251": "cp1251 windows-1251 x-cp1251",
    "cp1252": "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 "
    "iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252",
    "cp1253": "cp1253 windows-1253 x-cp1253",
    "cp1254": "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 "
    "iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254",
    "cp1255": "cp1255 windows-1255 x-cp1255",
    "cp1256": "cp1256 windows-1256 x-cp1256",
    "cp1257": "cp1257 windows-1257 x-cp1257",
    "cp1258": "cp1258 windows-1258 x-cp1258",
    "mac-cyrillic": "x-mac-cyrillic x-mac-ukrainian",
    "gb18030": "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk "
    "gb18030",
    "big5hkscs": "big5 big5-hkscs cn-big5 csbig5 x-x-big5",
    "euc_jp": "cseucpkdfmtjapanese euc-jp x-euc-jp",
    "iso2022_jp": "csiso2022jp iso-2022-jp",
    "cp932": "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
    "cp949": "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 "
    "ksc5601 ksc_5601 windows-949",
    "utf-16-be": "unicodefffe utf-16be",
    "utf-16-le": "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le",
}
_BY_LABEL = {
    label: codecs.lookup(codec).name
    for codec, labels in _WHATWG_LABELS.items()
    for label in labels.split()
}


def charset_from_content_type(content_type: str | None) -> str | None:
    """The codec for the charset parameter of a Content-Type header, if it is a WHATWG label."""
    if not content_type:
        return None
    m = _CT_CHARSET.search(content_type)
    return _label(m.group(1)) if m else None


def _label(name: str) -> str | None:
    """The Python codec of a WHATWG encoding label, or None for any other name."""
    return _BY_LABEL.get(name.strip().lower())


def _text_codec(name: str) -> str | None:
    """The canonical name of a codec that decodes bytes to text, or None (unknown, or a
    bytes-to-bytes codec such as base64)."""
    try:
        b"".decode(name)
    except LookupError:
        return None
    return codecs.lookup(name).name


def decode_bytes(body: bytes, *, content_type: str | None = None) -> tuple[str, str]:
    """Decode ``body``; returns ``(text, encoding used)``. Never raises."""
    for bom, enc in _BOMS:
        if body.startswith(bom):
            return body.decode(enc, errors="replace"), enc.replace("-sig", "")
    declared = charset_from_content_type(content_type)
    if declared is None:
        m = _META_CHARSET.search(body[:_SNIFF_BYTES])
        declared = _label(m.group(1).decode("ascii", "replace")) if m else None
        # A <meta> that could be read as ASCII cannot be right about UTF-16/32 (WHATWG).
        if declared is not None and declared.startswith(("utf-16", "utf-32")):
            declared = "utf-8"
    utf8 = _utf8(body)  # decoded once: a large page is not decoded twice
    if declared == "utf-8" and utf8 is None:
        declared = None  # mislabelled: what it says cannot be true, so detect instead
    if declared is not None:
        # Browsers read Latin-1 and ASCII labels as windows-1252; a page that says so but is
        # valid UTF-8 is UTF-8 in practice.
        if declared in ("cp1252", "utf-8") and utf8 is not None:
            return utf8, "utf-8"
        del utf8  # not the page's text: not held beside it
        return body.decode(declared, errors="replace"), declared
    if utf8 is not None:
        return utf8, "utf-8"
    return _detect(body)


def _detect(body: bytes) -> tuple[str, str]:
    """Detection for undeclared legacy bytes. Among Latin-script single-byte code pages the
    detector cannot tell apart reliably, windows-1252 (by far the most common) wins."""
    best = from_bytes(body[:_DETECT_BYTES]).best()
    enc = _text_codec(best.encoding) if best is not None else None
    if (enc is None or enc in _LATIN_SINGLE_BYTE) and _decodes(body, "cp1252"):
        enc = "cp1252"
    if enc is not None:
        return body.decode(enc, errors="replace"), enc
    return body.decode("utf-8", errors="replace"), "utf-8"


_LATIN_SINGLE_BYTE = frozenset(
    {"cp1250", "cp1252", "cp1254", "cp1257", "cp1258", "latin-1", "mac-roman", "mac-latin2"}
    | {f"iso8859-{n}" for n in (1, 2, 3, 4, 9, 10, 13, 14, 15, 16)}
)


def _decodes(body: bytes, encoding: str) -> bool:
    try:
        body.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def _utf8(body: bytes) -> str | None:
    """``body`` decoded as UTF-8, or None when it is not valid UTF-8."""
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None
