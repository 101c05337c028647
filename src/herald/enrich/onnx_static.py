"""int8 with fixed activation scales: an ONNX graph's answers for a text that do not depend on
what else is in its batch.

Dynamic int8 quantisation (:func:`herald.enrich.onnx_graphs.quantize`) quantises the input of
each matrix product with one scale per batch, taken from that batch's own smallest and largest
values: a window's tags then depend on the other windows run beside it. Here each such
``DynamicQuantizeLinear`` becomes a ``QuantizeLinear`` whose scale and zero point are constants,
derived from a recorded range per tensor (fitted once on training text, shipped with the
model), and each integer product with its rescaling and bias becomes one
``MatMulIntegerToFloat`` (ONNX Runtime's fused kernel). Integer products are exact and every
other step works row by row, so a window gives the same numbers in any batch, at any padding.
Values outside a recorded range are clipped to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

QUANTIZED = "DynamicQuantizeLinear"
_MICROSOFT = "com.microsoft"


def quantized_activations(int8_graph: bytes) -> list[str]:
    """The tensors the dynamically quantised graph quantises per batch, in graph order: what
    needs a recorded range."""
    import onnx

    model = onnx.load_from_string(int8_graph)
    return [n.input[0] for n in model.graph.node if n.op_type == QUANTIZED]


def scale_and_zero_point(low: float, high: float) -> tuple[np.float32, np.uint8]:
    """Unsigned 8-bit parameters of the range ``low..high`` widened to hold 0, as
    ``DynamicQuantizeLinear`` derives them from a batch."""
    lowest, highest = np.float32(min(0.0, low)), np.float32(max(0.0, high))
    if highest == lowest:
        return np.float32(1.0), np.uint8(0)
    scale = np.float32((highest - lowest) / np.float32(255.0))
    return scale, np.uint8(np.clip(np.rint(-lowest / scale), 0, 255))


def with_fixed_scales(int8_graph: bytes, ranges: dict[str, tuple[float, float]]) -> bytes:
    """The dynamically quantised ``int8_graph`` with the activation ranges ``ranges`` (tensor
    name -> (lowest, highest)) fixed in place of each batch's own."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load_from_string(int8_graph)
    graph = model.graph
    missing = [t for t in quantized_activations(int8_graph) if t not in ranges]
    if missing:
        raise ValueError(f"no recorded activation range for {', '.join(missing)}")
    nodes = []
    for node in graph.node:
        if node.op_type != QUANTIZED:
            nodes.append(node)
            continue
        quantized, scale_name, zero_name = node.output
        scale, zero = scale_and_zero_point(*ranges[node.input[0]])
        graph.initializer.extend(
            [
                numpy_helper.from_array(np.array(scale, np.float32), scale_name),
                numpy_helper.from_array(np.array(zero, np.uint8), zero_name),
            ]
        )
        nodes.append(
            helper.make_node(
                "QuantizeLinear", [node.input[0], scale_name, zero_name], [quantized], node.name
            )
        )
    del graph.node[:]
    graph.node.extend(_fused_products(nodes, {i.name for i in graph.initializer}))
    if not any(o.domain == _MICROSOFT for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid(_MICROSOFT, 1))
    return bytes(model.SerializeToString())


def _fused_products(nodes: list[Any], constants: set[str]) -> list[Any]:
    """Each ``MatMulInteger -> Cast -> Mul(scale) [-> Add(bias)]`` of the quantiser as one
    ``MatMulIntegerToFloat`` (ONNX Runtime fuses it only after a dynamic quantisation); the
    products of the two scales it no longer needs are left out."""
    from onnx import helper

    users: dict[str, list[Any]] = {}
    for node in nodes:
        for name in node.input:
            users.setdefault(name, []).append(node)
    made_by = {out: node for node in nodes for out in node.output}
    replaced: dict[int, Any] = {}
    dropped: set[int] = set()
    for node in nodes:
        if node.op_type != "MatMulInteger":
            continue
        (cast,) = users[node.output[0]]
        (rescale,) = users[cast.output[0]]
        if cast.op_type != "Cast" or rescale.op_type != "Mul":
            raise ValueError(
                f"unexpected nodes after {node.name}: {cast.op_type}, {rescale.op_type}"
            )
        combined = next(i for i in rescale.input if i != cast.output[0])
        scales = made_by[combined]  # Mul(activation scale, weight scales)
        last, bias = rescale, []
        after = users.get(rescale.output[0], [])
        if len(after) == 1 and after[0].op_type == "Add":
            other = next(i for i in after[0].input if i != rescale.output[0])
            if other in constants:
                last, bias = after[0], [other]
        a, b, a_zero, b_zero = node.input
        replaced[id(node)] = helper.make_node(
            "MatMulIntegerToFloat",
            [a, b, *scales.input, a_zero, b_zero, *bias],
            [last.output[0]],
            name=f"{node.name}_to_float",
            domain=_MICROSOFT,
        )
        dropped.update({id(cast), id(rescale), id(last)})
        if len(users[combined]) == 1:
            dropped.add(id(scales))
    return [replaced.get(id(n), n) for n in nodes if id(n) not in dropped]
