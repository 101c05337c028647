"""Record the activation ranges of Herald's recogniser on CoNLL-2003's training split.

    .venv/bin/python scripts/recognizer_ranges.py --data DATA/conll2003 \
        [--model src/herald/data/models/recognizer] [--out MODEL/activation_ranges.json]

The int8 graph quantises the input of each matrix product with a fixed scale
(herald.enrich.onnx_static); this script fits those scales. It reads every training document as
Herald reads an article (title and body, its sentence windows of 128 word pieces), runs the
float32 graph and records, for each tensor the int8 graph quantises, the lowest and highest
value over the real word pieces (padding left out). Deterministic: the same data and model give
the same file. Only the training split is read; the development split is for judging the result.
Afterwards, record the file's SHA-256 in src/herald/data/models/digests.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.conll_data import read_split  # noqa: E402

from herald.enrich.bert_onnx import BUILDER_VERSION  # noqa: E402
from herald.enrich.model_files import bundled_recognizer_folder  # noqa: E402
from herald.enrich.ner_model import RANGES, TrainedRecognizer, float_graph  # noqa: E402
from herald.enrich.onnx_graphs import quantize, session_options  # noqa: E402
from herald.enrich.onnx_static import quantized_activations  # noqa: E402


class _Recorder:
    """Stands in for the recogniser's session: runs the float32 graph with the tensors to
    record as extra outputs, keeps their ranges over real word pieces, returns the tag scores."""

    def __init__(self, graph: bytes, names: list[str]) -> None:
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper

        model = onnx.load_from_string(graph)
        for name in names:
            model.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
        self._session = ort.InferenceSession(
            model.SerializeToString(), session_options(ort), providers=["CPUExecutionProvider"]
        )
        self._names = names
        self.ranges = {name: [np.inf, -np.inf] for name in names}
        self.pieces = 0

    def run(self, _: Any, feed: dict[str, Any]) -> list[Any]:
        scores, *values = self._session.run(None, feed)
        real = feed["attention_mask"].astype(bool)
        self.pieces += int(real.sum())
        for name, value in zip(self._names, values, strict=True):
            kept = value[real]
            low, high = self.ranges[name]
            self.ranges[name] = [min(low, float(kept.min())), max(high, float(kept.max()))]
        return [scores]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the conll2003 folder")
    parser.add_argument(
        "--model", type=Path, default=bundled_recognizer_folder(), help="the recogniser's folder"
    )
    parser.add_argument("--out", type=Path, help="default: the model folder's " + RANGES)
    args = parser.parse_args()
    documents = read_split(args.data, "train")
    folder = args.model
    out = args.out or folder / RANGES
    graph = float_graph(folder)
    names = quantized_activations(quantize(graph, reduce_range=True))
    recognizer = TrainedRecognizer(folder, precision="float32")
    recorder = _Recorder(graph, names)
    recognizer._session = recorder
    recognizer.names([d.text for d in documents])
    recorded = {
        "builder_version": BUILDER_VERSION,
        "calibration": (
            f"CoNLL-2003 English training split (eng.train): {len(documents)} documents read as "
            f"Herald reads an article, {recorder.pieces} word pieces in windows of 128; lowest "
            "and highest value of each tensor over the real word pieces, float32 graph"
        ),
        "ranges": {
            name: [round(low, 6), round(high, 6)] for name, (low, high) in recorder.ranges.items()
        },
    }
    out.write_text(json.dumps(recorded, indent=2) + "\n", "utf-8")
    print(f"{out}: {len(names)} ranges from {recorder.pieces} word pieces")


if __name__ == "__main__":
    main()
