"""The exit codes of the ``quotebound`` command, and the code a finished run exits with.

0 answered (or PASS, or done), 1 an unexpected error (or a quote that FAILs), 2 bad usage or
configuration, with a one-line reason on stderr (and a file that is not an evidence bundle),
3 insufficient evidence, 4 an evidence bundle whose hashes or quotes no longer hold.
"""

from __future__ import annotations

__all__ = [
    "EXIT_ALTERED",
    "EXIT_ERROR",
    "EXIT_INSUFFICIENT",
    "EXIT_OK",
    "EXIT_USAGE",
    "run_exit",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INSUFFICIENT = 3
EXIT_ALTERED = 4

_STATUS_EXIT = {
    "answered": EXIT_OK,
    "insufficient_evidence": EXIT_INSUFFICIENT,
    "verified_disabled": EXIT_INSUFFICIENT,
}


def run_exit(status: object) -> int:
    """The exit code of a run that ended with ``status``; an unknown status is an error."""
    return _STATUS_EXIT.get(str(status), EXIT_ERROR)
