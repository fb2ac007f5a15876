"""Raw paragraph text, with its internal marks, folded into the paragraphs a reader sees.

The walk keeps paragraph text raw, with a mark for each ``<br>`` and between the cells of a
table row. Here whitespace is folded to one space within a line, lines are trimmed (or, in
preformatted text, only stripped of trailing whitespace), runs of lines between empty ones become
paragraphs and a row's cells are joined by a tab (docs/architecture.md §4). The marks are
Unicode noncharacters; :data:`MARKS` are removed from the input before the walk.
"""

from __future__ import annotations

__all__ = [
    "BR_MARK",
    "CELL_MARK",
    "CELL_SEPARATOR",
    "MARKS",
    "clean_value",
    "fold",
    "fold_many",
    "group_lines",
    "join_cells",
    "split_paragraphs",
]

BR_MARK = "\ufdd0"
"""Marks a ``<br>`` in raw paragraph text (a Unicode noncharacter, removed from input)."""
_PARA_MARK = "\ufdd1"
"""Separates raw paragraphs while they are folded together (also a noncharacter)."""
CELL_MARK = "\ufdd2"
"""Separates the cells of a table row in raw text (also a noncharacter)."""
MARKS = (BR_MARK, _PARA_MARK, CELL_MARK)
CELL_SEPARATOR = "\t"
"""What stands between the cells of a row in the page's text: whitespace, as a browser's text
of a table has, so that a quote of a row is found, whitespace aside, by a reader of the page; a
visible mark (`` | ``) would be in the quote and not on the page."""

_FOLD_BATCH = 1 << 18
"""Characters folded at once."""


def fold(line: str) -> str:
    return " ".join(line.split())


def clean_value(value: str | None) -> str | None:
    """A metadata value folded, without marks; None when empty."""
    return fold((value or "").replace(BR_MARK, " ")) or None


def fold_many(raws: list[str]) -> list[str]:
    """Fold whitespace in many raw paragraphs, each with visible text, a batch at a time.

    Each batch is one C-level split and join (bounded, since splitting makes an object per
    word). ``<br>`` marks stay; :func:`group_lines` trims the lines between them.
    """
    separator = f" {_PARA_MARK} "  # folding leaves exactly these spaces around each mark
    folded: list[str] = []
    batch: list[str] = []
    size = 0
    for raw in raws:
        batch.append(raw)
        size += len(raw)
        if size > _FOLD_BATCH:
            folded += " ".join(separator.join(batch).split()).split(separator)
            batch.clear()
            size = 0
    if batch:
        folded += " ".join(separator.join(batch).split()).split(separator)
    return folded


def join_cells(row: str) -> str:
    """The cells of a folded row joined by :data:`CELL_SEPARATOR`; empty cells and their edge
    breaks go."""
    cells = (cell.strip(" " + BR_MARK) for cell in row.split(CELL_MARK))
    return CELL_SEPARATOR.join(cell for cell in cells if cell)


def group_lines(lines: list[str]) -> list[str]:
    """Runs of non-empty lines joined by newlines; empty lines separate the runs."""
    paragraphs: list[str] = []
    run: list[str] = []
    for line in lines:
        if line:
            run.append(line)
        elif run:
            paragraphs.append("\n".join(run))
            run = []
    if run:
        paragraphs.append("\n".join(run))
    return paragraphs


def split_paragraphs(raw: str, *, pre: bool) -> list[str]:
    """Paragraphs of raw text split into lines at newlines (pre) or ``<br>`` marks.

    Lines are folded and trimmed, or, when ``pre``, only stripped of trailing whitespace.
    """
    raw = raw.replace("\r\n", "\n").replace("\r", "\n").replace(CELL_MARK, CELL_SEPARATOR)
    if pre:
        return group_lines([line.rstrip() for line in raw.replace(BR_MARK, "\n").split("\n")])
    return group_lines([fold(line) for line in raw.split("\n")])
