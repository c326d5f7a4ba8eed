"""``evaluate lm`` runs lm-eval offline: every library's own flag is set for the run and restored after it,
the ``evaluate`` library's too (lm-eval looks some metrics up there, and it ignores the Hub's flag: it
retried HTTP with sleeps)."""
from __future__ import annotations

import os

import pytest

from builder.evaluation import lm_run


def test_the_run_is_offline_for_every_library_and_restored_after(tmp_path, monkeypatch):
    if not os.environ.get("CI"):  # .ci/run installs the lmeval extra: there a missing library fails
        pytest.importorskip("evaluate")
    import datasets.config
    import evaluate.config  # imported before the run: its flag is read at import
    import huggingface_hub.constants

    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_EVALUATE_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(evaluate.config, "HF_EVALUATE_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    with lm_run._quiet_libraries(tmp_path / "run.log"):
        assert all(os.environ[n] == "1" for n in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE",
                                                  "HF_EVALUATE_OFFLINE"))
        assert evaluate.config.HF_EVALUATE_OFFLINE is True and huggingface_hub.constants.HF_HUB_OFFLINE is True
        assert datasets.config.HF_DATASETS_OFFLINE is True
        os.write(2, b"to the log\n")  # what the libraries write to the process's stderr
    assert "HF_EVALUATE_OFFLINE" not in os.environ and evaluate.config.HF_EVALUATE_OFFLINE is False
    assert huggingface_hub.constants.HF_HUB_OFFLINE is False
    assert "to the log" in (tmp_path / "run.log").read_text()


def test_a_gguf_file_is_parsed_once_while_lm_eval_runs(tmp_path):
    gguf = pytest.importorskip("gguf") if not os.environ.get("CI") else __import__("gguf")
    import numpy as np

    path = tmp_path / "tiny.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(1)
    writer.add_tensor("w", np.ones((2, 2), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    real = gguf.GGUFReader
    with lm_run._gguf_read_once():
        first, again = gguf.GGUFReader(path), gguf.GGUFReader(str(path))
        assert first is again and isinstance(first, real)  # config, tokenizer and weights share one parse
        assert [t.name for t in first.tensors] == ["w"]
    assert gguf.GGUFReader is real and gguf.GGUFReader(path) is not first


def test_transformers_parses_a_gguf_files_fields_once_and_each_caller_gets_its_own_copy(monkeypatch):
    if not os.environ.get("CI"):
        pytest.importorskip("transformers")
        pytest.importorskip("gguf")
    from transformers import modeling_gguf_pytorch_utils as gguf_utils

    calls = []

    def load(path, return_tensors=False, model_to_load=None, torch_dtype=None):
        calls.append((os.fspath(path), return_tensors))
        return {"config": {"model_type": "llama"}, "tokenizer": {"tokens": ["a", "b"]},
                "tensors": {"w": 1} if return_tensors else {}}

    monkeypatch.setattr(gguf_utils, "load_gguf_checkpoint", load)
    with lm_run._gguf_read_once():
        first = gguf_utils.load_gguf_checkpoint("m.gguf", return_tensors=False)  # the config
        first["config"]["model_type"] = "changed by its caller"
        second = gguf_utils.load_gguf_checkpoint(os.path.abspath("m.gguf"))     # the tokenizer
        assert second["config"]["model_type"] == "llama" and second is not first
        weights = gguf_utils.load_gguf_checkpoint("m.gguf", return_tensors=True, model_to_load=object())
        assert weights["tensors"] == {"w": 1}
        gguf_utils.load_gguf_checkpoint("other.gguf")
    assert calls == [("m.gguf", False), ("m.gguf", True), ("other.gguf", False)]
    assert gguf_utils.load_gguf_checkpoint is load  # restored after the run
