"""A real PostgreSQL server on loopback for the test session.

The server runs from a temporary directory: it listens only on 127.0.0.1 on a free port, keeps
its unix socket inside that directory and trusts local connections. When running as root (CI)
it runs as the ``postgres`` system user. The tests install nothing: ``make test`` installs
Debian's ``postgresql`` first when it is missing. If PostgreSQL cannot be had, tests that need it
FAIL with the reason; they never skip.

Import the fixture into a test module: ``from postgres import postgres_server``.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["PostgresServer", "postgres_server"]

DATABASE = "quotebound_test"
_SYSTEM_USER = "postgres"


class PostgresUnavailable(RuntimeError):
    """PostgreSQL could not be found, installed, initialized or started."""


def _is_root() -> bool:
    return os.geteuid() == 0


def _find_bindir() -> Path | None:
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[4]) if Path(p).parts[4].isdigit() else 0,
        reverse=True,
    )
    candidates += ["/usr/local/bin/initdb", shutil.which("initdb") or ""]
    for initdb in candidates:
        bindir = Path(initdb).resolve().parent
        if initdb and all((bindir / tool).is_file() for tool in ("initdb", "pg_ctl", "postgres")):
            return bindir
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One PostgreSQL cluster in a temporary directory; ``uri`` names its test database."""

    def __init__(self) -> None:
        bindir = _find_bindir()
        if bindir is None:
            raise PostgresUnavailable(
                "PostgreSQL binaries (initdb, pg_ctl, postgres) not found in "
                "/usr/lib/postgresql/*/bin or /usr/local/bin: run `make test` as root (it "
                "installs Debian's postgresql) or `apt-get install postgresql`"
            )
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="quotebound-pg-", dir="/tmp"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = _free_port()
        if _is_root():
            shutil.chown(self.root, _SYSTEM_USER, _SYSTEM_USER)
        self.root.chmod(0o700)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "-E", "UTF8", "--no-locale", "--no-sync")  # fmt: skip
        self.start()
        self._create_database()

    @property
    def uri(self) -> str:
        """The connection URI of the test database, over TCP on loopback."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bindir / tool), *args]
        if _is_root():
            cmd = ["runuser", "-u", _SYSTEM_USER, "--", *cmd]
        done = subprocess.run(
            cmd, cwd=self.root, capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise PostgresUnavailable(
                f"{tool} {' '.join(args[:2])} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()[-2000:]}\n{log}"
            )

    def start(self) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} "
            "-c fsync=off -c full_page_writes=off"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w",
                  "start")  # fmt: skip

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def restart(self) -> None:
        """Stop and start the server: connections drop, committed data stays."""
        self.stop()
        self.start()

    def _create_database(self) -> None:
        import psycopg

        admin = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f"CREATE DATABASE {DATABASE}")

    def close(self) -> None:
        """Stop the server and remove its directory."""
        try:
            self.stop()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


_server: PostgresServer | None = None


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server (one per process, shared by every module importing it)."""
    global _server
    if _server is None:
        try:
            _server = PostgresServer()
        except (PostgresUnavailable, OSError, subprocess.SubprocessError) as exc:
            pytest.fail(f"a real PostgreSQL server is required for this test: {exc}")
    yield _server
    if _server is not None:
        _server.close()
        _server = None
