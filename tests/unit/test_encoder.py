"""The sentence encoder: closeness in meaning that shares no term, the same every time, and off
when asked or not installed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from quotebound.errors import ConfigError
from quotebound.evidence import encoder

QUESTION = "How do I get rid of a prefix at the start of a string?"
PARAPHRASE = "Return a copy of the text with the leading characters removed if present."
UNRELATED = "The garbage collector frees cycles of unreachable objects."


def test_a_paraphrase_is_closer_than_an_unrelated_sentence() -> None:
    close = encoder.similarities([QUESTION], [UNRELATED, PARAPHRASE])
    assert close is not None
    assert close[1] > close[0] + 0.2
    assert all(-1.0 <= s <= 1.0 for s in close)


def test_similarities_are_identical_across_calls_and_processes() -> None:
    texts = [PARAPHRASE, UNRELATED, QUESTION * 40]  # the last is cut at the model's length
    here = encoder.similarities([QUESTION], texts)
    assert here == encoder.similarities([QUESTION], list(reversed(texts)))[::-1]
    code = (
        "from quotebound.evidence import encoder;"
        f"print(encoder.similarities([{QUESTION!r}], {texts!r}))"
    )
    there = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert there.strip() == repr(here)


def test_a_texts_similarity_does_not_depend_on_the_texts_beside_it() -> None:
    alone = encoder.similarities([QUESTION], [PARAPHRASE])
    among = encoder.similarities([QUESTION], [UNRELATED * 9, PARAPHRASE, "x"])
    assert alone is not None and among is not None
    assert alone[0] == among[1]


def test_texts_encoded_side_by_side_are_encoded_as_each_alone() -> None:
    # New texts (none in the cache yet), encoded in the process's encoding threads at once.
    texts = [f"{PARAPHRASE} (side by side, {i})" for i in range(12)]
    together = encoder.similarities([QUESTION], texts)
    model = encoder.sentence_encoder()
    assert model is not None
    question = model.encode(QUESTION)
    assert together == [round(float(model.encode(t) @ question), 4) for t in texts]
    threads = [t for t in threading.enumerate() if t.name.startswith("quotebound-encoder")]
    assert 1 <= len(threads) <= min(4, os.cpu_count() or 1)


def test_no_texts_no_similarities() -> None:
    assert encoder.similarities([QUESTION], []) == []


def test_a_text_is_as_close_as_the_closest_part_of_a_question() -> None:
    part = "Which objects does the garbage collector free?"
    alone = encoder.similarities([QUESTION], [UNRELATED, PARAPHRASE])
    either = encoder.similarities([QUESTION, part], [UNRELATED, PARAPHRASE])
    by_part = encoder.similarities([part], [UNRELATED])
    assert alone is not None and either is not None and by_part is not None
    assert either == [max(alone[0], by_part[0]), alone[1]]
    assert either[0] > alone[0] + 0.2


@pytest.mark.parametrize("value", ["off", "0", "false", "OFF"])
def test_off_when_asked(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("QUOTEBOUND_MEANING", value)
    assert encoder.similarities([QUESTION], [PARAPHRASE]) is None


def test_a_malformed_setting_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUOTEBOUND_MEANING", "maybe")
    with pytest.raises(ConfigError, match="QUOTEBOUND_MEANING must be on or off"):
        encoder.similarities([QUESTION], [PARAPHRASE])


def test_off_when_the_model_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, encoder.MODEL_PACKAGE, None)  # import fails
    assert encoder.model_dir() is None
    assert encoder.similarities([QUESTION], [PARAPHRASE]) is None


def test_the_vocabularys_rows_read_from_the_file_are_the_tables_and_layers_are_in_place() -> None:
    import numpy as np
    from safetensors import safe_open

    model = encoder.sentence_encoder()
    assert model is not None
    ids = np.array([101, 7592, 0, 30521, 7592, 102])
    with safe_open(model._path, framework="np") as f:
        table = f.get_slice("embeddings.word_embeddings.weight")
        expected = np.stack([table[i : i + 1][0] for i in ids.tolist()])
        dense = f.get_tensor("encoder.layer.0.intermediate.dense.weight")
    got = model._token_vectors(ids)
    assert got.dtype == np.float32
    assert got.tobytes() == expected.astype(np.float16).astype(np.float32).tobytes()
    layer = model._w["encoder.layer.0.intermediate.dense.weight"]
    assert layer.flags.c_contiguous and layer.tobytes() == np.ascontiguousarray(dense.T).tobytes()


def test_passage_vectors_are_each_texts_own_cut_to_its_first_tokens() -> None:
    import numpy as np

    model = encoder.sentence_encoder()
    assert model is not None
    # Texts of one length are encoded together, and more than a batch of them.
    texts = [f"{PARAPHRASE} ({i})" for i in range(70)] + [UNRELATED, QUESTION * 40, "x"]
    made: list[int] = []
    vectors = model.passage_vectors(texts, tokens=12, done=made.append)
    assert vectors.shape == (len(texts), 384) and vectors.dtype == np.float16
    assert made[-1] == len(texts) and made == sorted(made)
    for i in (0, 69, 70, 71, 72):
        ids = model._tokenizer.encode(texts[i]).ids
        cut = ids if len(ids) <= 12 else [*ids[:11], ids[-1]]  # [CLS] ... [SEP], as truncation
        alone = model._encoded(np.array([cut]))[0]
        assert np.abs(vectors[i].astype(np.float32) - alone).max() < 1e-3
    # The same texts, the same vectors, byte for byte.
    assert model.passage_vectors(texts, tokens=12).tobytes() == vectors.tobytes()
    # Cut to its first 12 tokens, a sentence still says much of what it says whole.
    close = vectors[:2].astype(np.float32) @ model.encode(PARAPHRASE)
    assert close.min() > 0.8
