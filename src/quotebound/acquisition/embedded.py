"""The embedded default corpus: the standard library's own documentation, rendered by pydoc.

With no search key, quotebound still researches real text it did not write and that exists on
every machine with Python (docs/architecture.md §8): pydoc HTML pages of a curated list of
standard-library modules. Each page is cited as the rendered file its quotes come from, and its
title names the CPython source file its docstrings live in, at the running version's tag.

Rendering must be reproducible, so it runs in a fresh interpreter (``-S``: no site-packages;
fixed hash seed, UTF-8 mode, UTC) that imports only the curated modules, and the HTML is
scrubbed of memory addresses, machine paths and values that describe the machine rather than
the module. Pages are built on first use into the user's cache directory, into a temporary
directory renamed into place with a completion marker, so concurrent builders never see or leave
a half-written corpus.

This module runs as that rendering script, so it imports only the standard library at the top.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quotebound.acquisition.corpus import LocalCorpus

__all__ = ["MODULES", "RENDER_VERSION", "build_pages", "embedded_corpus", "embedded_dir"]

log = logging.getLogger(__name__)

RENDER_VERSION = 1
"""Bump when rendering changes: the cache path includes it, so old pages are not reused."""

MODULES: tuple[str, ...] = (
    "abc", "argparse", "ast", "asyncio", "asyncio.events", "asyncio.locks", "asyncio.queues",
    "asyncio.streams", "asyncio.subprocess", "asyncio.tasks", "base64", "bdb", "bisect",
    "bz2", "calendar", "cmd", "code", "codecs", "codeop", "collections",
    "collections.abc", "colorsys", "compileall", "concurrent.futures",
    "concurrent.futures.process", "concurrent.futures.thread", "configparser", "contextlib",
    "copy", "copyreg", "csv", "dataclasses", "datetime", "decimal", "difflib", "dis", "doctest",
    "email", "email.charset", "email.contentmanager", "email.encoders", "email.errors",
    "email.generator", "email.header", "email.headerregistry", "email.message",
    "email.mime.multipart", "email.mime.text", "email.parser", "email.policy", "email.utils",
    "enum", "filecmp", "fileinput", "fnmatch", "fractions", "ftplib", "functools", "getopt",
    "gettext", "glob", "graphlib", "gzip", "heapq", "hmac", "html", "html.parser", "http",
    "http.client", "http.cookiejar", "http.cookies", "http.server", "imaplib", "inspect", "io",
    "ipaddress", "itertools", "json", "json.decoder", "json.encoder", "keyword", "linecache",
    "logging", "logging.config", "logging.handlers", "lzma", "mailbox", "math", "mimetypes",
    "numbers", "operator", "optparse", "pathlib", "pickle", "pickletools", "pkgutil", "plistlib",
    "poplib", "posixpath", "pprint", "profile", "pstats", "queue", "quopri", "random", "re",
    "reprlib", "sched", "secrets", "selectors", "shelve", "shlex", "shutil", "smtplib",
    "socketserver", "sqlite3", "stat", "statistics", "string", "stringprep", "struct",
    "subprocess", "tarfile", "tempfile", "textwrap", "threading", "timeit", "token", "tokenize",
    "tomllib", "trace", "traceback", "types", "typing", "unittest", "unittest.mock",
    "urllib.error", "urllib.parse", "urllib.request", "urllib.robotparser", "uuid", "warnings",
    "wave", "weakref", "xml.dom.minidom", "xml.etree.ElementTree", "xml.sax", "xml.sax.saxutils",
    "zipapp", "zipfile", "zipimport",
)  # fmt: skip
"""Standard-library modules that import without side effects; missing ones are skipped."""

_C_SOURCES = {"itertools": "Modules/itertoolsmodule.c", "math": "Modules/mathmodule.c"}
"""Built-in modules worth having, and the CPython file their docstrings live in."""

_MACHINE_DATA = {
    "sqlite3": frozenset({"sqlite_version", "sqlite_version_info"}),
}
"""Module data that describes the machine (library versions), not the module: not rendered."""

_ADDRESS = re.compile(r"(?:\s|&nbsp;)at(?:\s|&nbsp;)0x[0-9A-Fa-f]+")
_MANIFEST = "manifest.json"
_MARKER = ".complete"
_INDEX = ".index.sqlite"


def _tag_url() -> str:
    return f"https://github.com/python/cpython/blob/v{platform.python_version()}"


def embedded_dir(cache_dir: Path | None = None) -> Path:
    """Where the embedded pages of this Python and render version live."""
    if cache_dir is None:
        import platformdirs

        cache_dir = Path(platformdirs.user_cache_dir("quotebound"))
    v = sys.version_info
    return Path(cache_dir) / f"embedded-py{v.major}{v.minor}-r{RENDER_VERSION}"


def embedded_corpus(*, cache_dir: Path | None = None) -> LocalCorpus:
    """The embedded corpus (provider ``embedded``, tier PRIMARY_SOURCE), built on first use.

    A page is cited as the local file the quotes come from, since no public URL shows pydoc's
    rendering; its title names the upstream source file at the running Python's tag.
    """
    from quotebound.acquisition.corpus import LocalCorpus

    pages = _ensure_built(embedded_dir(cache_dir))
    manifest: dict[str, str] = json.loads((pages / _MANIFEST).read_text("utf-8"))
    return LocalCorpus(
        pages,
        index_path=pages / _INDEX,
        name="embedded",
        note_for=lambda document: f"pydoc rendering of {manifest[document]}",
        endpoint=f"embedded:python-{platform.python_version()}",
    )


def _marker() -> str:
    return json.dumps({"python": platform.python_version(), "render": RENDER_VERSION})


def _complete(pages: Path) -> bool:
    marker = pages / _MARKER
    return marker.is_file() and marker.read_text("utf-8") == _marker()


def _ensure_built(target: Path) -> Path:
    """Build the pages into ``target`` unless they are complete: once, whatever the number of
    processes asking at the same moment (they wait on a lock on the cache directory), into a
    temporary directory renamed into place. Temporary directories left by a build that was
    killed are removed by the next build."""
    from quotebound.storage.filelock import file_lock

    if _complete(target):
        return target
    cache = target.parent
    cache.mkdir(parents=True, exist_ok=True)
    with file_lock(cache):
        if _complete(target):  # built by another process while this one waited
            return target
        for leftover in [*cache.glob(".embedded-build-*"), *cache.glob(".embedded-stale-*")]:
            shutil.rmtree(leftover, ignore_errors=True)
        log.info("rendering the embedded corpus into %s", target)
        tmp = Path(tempfile.mkdtemp(prefix=".embedded-build-", dir=cache))
        try:
            build_pages(tmp)
            (tmp / _MARKER).write_text(_marker(), "utf-8")
            if target.exists():  # an old or unfinished render, maybe still read by a process
                stale = Path(tempfile.mkdtemp(prefix=".embedded-stale-", dir=cache))
                target.rename(stale / "pages")
                shutil.rmtree(stale, ignore_errors=True)
            tmp.rename(target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def build_pages(out_dir: Path, *, members: bool = False) -> dict[str, str]:
    """Render the pages into ``out_dir`` in a clean interpreter; returns page → public URL.

    With ``members``, classes and functions also get pages of their own (for benchmarks).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    env = {"PYTHONHASHSEED": "0", "TZ": "UTC", "PATH": os.defpath}
    args = [sys.executable, "-S", "-P", "-X", "utf8", "-W", "ignore", __file__, str(out_dir)]
    proc = subprocess.run(
        [*args, *(["--members"] if members else [])],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no error output"]
        raise RuntimeError(f"rendering the embedded corpus failed: {tail[0]}")
    manifest: dict[str, str] = json.loads((out_dir / _MANIFEST).read_text("utf-8"))
    return manifest


# -- the rendering script (runs in the clean interpreter) ------------------------------------


def _render_all(out_dir: Path, members: bool) -> None:
    import importlib
    import inspect
    import pydoc
    import sysconfig

    stdlib = Path(sysconfig.get_path("stdlib")).resolve()

    def source_path(name: str, module: Any) -> str | None:
        if name in _C_SOURCES:
            return _C_SOURCES[name]
        file = getattr(module, "__file__", None)
        if not file or not file.endswith(".py"):
            return None
        path = Path(file).resolve()
        return f"Lib/{path.relative_to(stdlib).as_posix()}" if path.is_relative_to(stdlib) else None

    modules: dict[str, tuple[Any, str]] = {}
    for name in MODULES:  # import everything first: pages then don't depend on render order
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        src = source_path(name, module)
        if src is not None:
            modules[name] = (module, src)

    class Doc(pydoc.HTMLDoc):
        source = ""
        hidden: frozenset[str] = frozenset()

        def filelink(self, url: str, path: str) -> str:
            return f'<a href="{_tag_url()}/{self.source}">{self.source}</a>'

        def docother(self, object: Any, name: str | None = None, *_: Any) -> str:
            if name in self.hidden or not _plain(object):
                lhs = f"<strong>{name}</strong> = " if name else ""
                return lhs + self.escape(f"<{type(object).__name__}>")
            return str(super().docother(object, name))

    doc = Doc()
    manifest: dict[str, str] = {}

    def write(page: str, title: str, obj: Any, name: str, src: str) -> None:
        doc.source = src
        html = doc.page(title, doc.document(obj, name))
        (out_dir / page).write_text(_ADDRESS.sub("", html), "utf-8")
        manifest[page] = f"{_tag_url()}/{src}"

    for name, (module, src) in modules.items():
        doc.hidden = _MACHINE_DATA.get(name, frozenset())
        write(f"{name}.html", pydoc.describe(module), module, name, src)
        if not members:
            continue
        for attr, obj in inspect.getmembers(module):
            if attr.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isclass(obj) or inspect.isfunction(obj):
                write(f"{name}.{attr}.html", pydoc.describe(obj), obj, attr, src)
    (out_dir / _MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True), "utf-8")


def _plain(value: object, depth: int = 0) -> bool:
    """Literal values whose repr is the same on every machine and in every process."""
    if value is None or isinstance(value, bool | int | float | complex | str | bytes):
        return True
    if depth < 3 and isinstance(value, tuple | list | frozenset | set):
        return all(_plain(v, depth + 1) for v in value)
    if depth < 3 and isinstance(value, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return False


if __name__ == "__main__":
    _render_all(Path(sys.argv[1]), "--members" in sys.argv[2:])
