"""The Tern documentation corpus (``graph_corpus/``) that graph and prune tests run on."""

from __future__ import annotations

import shutil
from pathlib import Path

from quotebound.acquisition.corpus import LocalCorpus

CORPUS = Path(__file__).parent / "graph_corpus"
BASE = "https://tern.example.org/docs/"


def tern_corpus(tmp_path: Path) -> LocalCorpus:
    """A copy of the corpus under ``tmp_path``, indexed there."""
    root = tmp_path / "docs"
    shutil.copytree(CORPUS, root)
    corpus = LocalCorpus(root, base_url=BASE, index_path=tmp_path / "index.sqlite")
    corpus.refresh()
    return corpus
