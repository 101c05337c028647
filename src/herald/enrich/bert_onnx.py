"""A BERT sentence-embedding model as an ONNX graph, assembled from its released weights.

No torch: the weights are read from ``model.safetensors`` as numpy arrays and the network is
written out node by node with onnx's helper API, the way ``transformers``' ``BertModel`` computes
it (absolute positions, post-LayerNorm blocks, exact erf GELU), followed by sentence-transformers'
mean pooling over the real tokens and L2 normalisation. Inputs are the tokenizer's
``input_ids``, ``attention_mask`` and ``token_type_ids`` (int64, batch x tokens); the output
``sentence_embedding`` is batch x hidden, already normalised.

The vectors agree with the original model run by sentence-transformers on torch to cosine
>= 0.99999 (tests/enrich/test_onnx_embedding.py, against stored reference vectors).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# Raised when the graph construction changes, so graphs cached by an older Herald are rebuilt.
BUILDER_VERSION = 1
OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "sentence_embedding"


@dataclass(frozen=True)
class BertShape:
    """What the graph needs from the model's ``config.json``."""

    hidden: int
    heads: int
    layers: int
    layer_norm_eps: float

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> BertShape:
        return cls(
            hidden=int(config["hidden_size"]),
            heads=int(config["num_attention_heads"]),
            layers=int(config["num_hidden_layers"]),
            layer_norm_eps=float(config.get("layer_norm_eps", 1e-12)),
        )


def build_graph(weights_file: Path, shape: BertShape) -> bytes:
    """The serialised ONNX model (float32) of the BERT encoder + mean pooling + normalisation."""
    from safetensors.numpy import load_file

    graph = _Graph(_strip_prefix(load_file(str(weights_file))))
    x = graph.encoder(graph.embeddings(shape), shape)
    graph.pooled_and_normalised(x)
    return graph.serialised("herald-sentence-embedding", INPUTS, OUTPUT, ["batch", shape.hidden])


TAGGER_INPUTS = (*INPUTS, "casing_ids")
TAGGER_OUTPUT = "tag_scores"


def build_tagger_graph(weights: dict[str, Any], shape: BertShape, casing: str) -> bytes:
    """A token tagger: the encoder with a casing embedding (``casing`` "input": added to the word
    pieces' embeddings; "head": concatenated to the encoder's output; "none"), then a linear
    layer and log-softmax. Output ``tag_scores``: batch x tokens x tags (log-probabilities)."""
    graph = _Graph(_strip_prefix(weights))
    extra = "casing_embeddings.weight"
    x = graph.embeddings(shape, added=extra if casing == "input" else None)
    x = graph.encoder(x, shape)
    if casing == "head":
        table = graph.node("Gather", [graph.weight(extra), "casing_ids"])
        x = graph.node("Concat", [x, table], axis=-1)
    scores = graph.linear(x, "classifier")
    graph.nodes.append(_named("LogSoftmax", [scores], TAGGER_OUTPUT, axis=-1))
    tags = int(np.asarray(weights["classifier.bias"]).shape[0])
    return graph.serialised(
        "herald-recognizer", TAGGER_INPUTS, TAGGER_OUTPUT, ["batch", "tokens", tags]
    )


def _strip_prefix(weights: dict[str, Any]) -> dict[str, Any]:
    """Checkpoints saved from a task model name the encoder's weights ``bert.*``."""
    if "embeddings.word_embeddings.weight" in weights:
        return weights
    return {k.removeprefix("bert."): v for k, v in weights.items()}


class _Graph:
    """Collects nodes and initialisers; every method returns the name of its output tensor."""

    def __init__(self, weights: dict[str, Any]) -> None:
        self._weights = weights
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._count = 0
        self._constants: dict[str, str] = {}

    # -- building blocks -------------------------------------------------------------------

    def node(self, op: str, inputs: list[str], **attributes: Any) -> str:
        from onnx import helper

        self._count += 1
        out = f"{op.lower()}_{self._count}"
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attributes))
        return out

    def tensor(self, name: str, value: Any) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def weight(self, key: str, *, transpose: bool = False) -> str:
        value = np.asarray(self._weights[key], dtype=np.float32)
        return self.tensor(key, value.T if transpose else value)

    def constant(self, value: float | list[int], dtype: Any = np.float32) -> str:
        key = f"{np.dtype(dtype).name}:{value}"
        if key not in self._constants:
            name = f"const_{len(self._constants)}"
            self._constants[key] = self.tensor(name, np.array(value, dtype=dtype))
        return self._constants[key]

    def linear(self, x: str, prefix: str) -> str:
        # torch stores (out, in); MatMul wants (in, out). The quantiser finds the weight of each
        # MatMul as its second input.
        product = self.node("MatMul", [x, self.weight(f"{prefix}.weight", transpose=True)])
        return self.node("Add", [product, self.weight(f"{prefix}.bias")])

    def layer_norm(self, x: str, prefix: str, eps: float) -> str:
        scale, bias = self.weight(f"{prefix}.weight"), self.weight(f"{prefix}.bias")
        return self.node("LayerNormalization", [x, scale, bias], axis=-1, epsilon=eps)

    # -- the network -----------------------------------------------------------------------

    def embeddings(self, shape: BertShape, added: str | None = None) -> str:
        """Word pieces + positions + token types (+ the ``added`` table, indexed by casing_ids)."""
        ids, types = "input_ids", "token_type_ids"
        words = self.node("Gather", [self.weight("embeddings.word_embeddings.weight"), ids])
        if added is not None:
            words = self.node(
                "Add", [words, self.node("Gather", [self.weight(added), "casing_ids"])]
            )
        # Positions 0..tokens-1 of the padded batch, as BertModel numbers them: the first rows
        # of the position table (a Slice, the pattern ONNX Runtime's embedding fusion expects).
        length = self.node("Gather", [self.node("Shape", [ids]), self.constant([1], np.int64)])
        position_table = self.weight("embeddings.position_embeddings.weight")
        start = self.constant([0], np.int64)
        places = self.node("Slice", [position_table, start, length, start])
        kinds = self.node("Gather", [self.weight("embeddings.token_type_embeddings.weight"), types])
        summed = self.node("Add", [self.node("Add", [words, places]), kinds])
        # The additive attention mask: 0 for real tokens, float32's lowest for padding (as
        # BertModel), shaped batch x 1 x 1 x tokens to broadcast over heads and query positions.
        self.mask = self.node("Cast", ["attention_mask"], to=1)  # 1 = FLOAT
        padding = self.node("Sub", [self.constant(1.0), self.mask])
        lowest = self.constant(float(np.finfo(np.float32).min))
        additive = self.node("Mul", [padding, lowest])
        self.additive_mask = self.node("Unsqueeze", [additive, self.constant([1, 2], np.int64)])
        return self.layer_norm(summed, "embeddings.LayerNorm", shape.layer_norm_eps)

    def encoder(self, x: str, shape: BertShape) -> str:
        for layer in range(shape.layers):
            x = self.encoder_layer(x, f"encoder.layer.{layer}", shape)
        return x

    def serialised(self, name: str, inputs: tuple[str, ...], output: str, dims: list[Any]) -> bytes:
        from onnx import TensorProto, helper

        batch_tokens = ["batch", "tokens"]
        onnx_graph = helper.make_graph(
            self.nodes,
            name,
            [helper.make_tensor_value_info(i, TensorProto.INT64, batch_tokens) for i in inputs],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, dims)],
            self.initializers,
        )
        model = helper.make_model(
            onnx_graph,
            opset_imports=[helper.make_opsetid("", OPSET)],
            producer_name="herald",
            ir_version=8,  # what ONNX Runtime 1.22 and the quantiser read for opset 17
        )
        return bytes(model.SerializeToString())

    def encoder_layer(self, x: str, prefix: str, shape: BertShape) -> str:
        head_size = shape.hidden // shape.heads
        split = self.constant([0, 0, shape.heads, head_size], np.int64)  # 0: keep that dimension

        def heads(projection: str, perm: list[int]) -> str:
            return self.node("Transpose", [self.node("Reshape", [projection, split])], perm=perm)

        attention = f"{prefix}.attention"
        query = heads(self.linear(x, f"{attention}.self.query"), [0, 2, 1, 3])
        key = heads(self.linear(x, f"{attention}.self.key"), [0, 2, 3, 1])
        value = heads(self.linear(x, f"{attention}.self.value"), [0, 2, 1, 3])
        scores = self.node("MatMul", [query, key])
        scores = self.node("Div", [scores, self.constant(math.sqrt(head_size))])
        scores = self.node("Add", [scores, self.additive_mask])
        probabilities = self.node("Softmax", [scores], axis=-1)
        context = self.node("MatMul", [probabilities, value])
        context = self.node("Transpose", [context], perm=[0, 2, 1, 3])
        context = self.node("Reshape", [context, self.constant([0, 0, shape.hidden], np.int64)])
        attended = self.linear(context, f"{attention}.output.dense")
        attended = self.node("Add", [attended, x])
        eps = shape.layer_norm_eps
        attended = self.layer_norm(attended, f"{attention}.output.LayerNorm", eps)

        inner = self.linear(attended, f"{prefix}.intermediate.dense")
        activated = self.gelu(inner)
        out = self.linear(activated, f"{prefix}.output.dense")
        return self.layer_norm(self.node("Add", [out, attended]), f"{prefix}.output.LayerNorm", eps)

    def gelu(self, x: str) -> str:
        """0.5 x (1 + erf(x / sqrt 2)): BERT's exact GELU (ONNX Runtime fuses the pattern)."""
        scaled = self.node("Div", [x, self.constant(math.sqrt(2.0))])
        shifted = self.node("Add", [self.node("Erf", [scaled]), self.constant(1.0)])
        return self.node("Mul", [self.node("Mul", [x, shifted]), self.constant(0.5)])

    def pooled_and_normalised(self, hidden: str) -> None:
        """Mean over the real tokens (sentence-transformers' mean pooling), then unit length."""
        mask = self.node("Unsqueeze", [self.mask, self.constant([2], np.int64)])
        tokens_axis = self.constant([1], np.int64)
        summed = self.node("ReduceSum", [self.node("Mul", [hidden, mask]), tokens_axis], keepdims=0)
        counts = self.node("ReduceSum", [mask, tokens_axis], keepdims=0)
        counts = self.node("Max", [counts, self.constant(1e-9)])
        pooled = self.node("Div", [summed, counts])
        # Opset 17: ReduceSum takes its axes as an input, ReduceL2 still as an attribute.
        norms = self.node("ReduceL2", [pooled], axes=[1], keepdims=1)
        norms = self.node("Max", [norms, self.constant(1e-12)])
        self.nodes.append(_named("Div", [pooled, norms], OUTPUT))


def _named(op: str, inputs: list[str], output: str, **attributes: Any) -> Any:
    from onnx import helper

    return helper.make_node(op, inputs, [output], name=output, **attributes)
