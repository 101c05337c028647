"""Fixed activation scales: the same parameters ONNX Runtime's per-batch quantiser derives, and a
product's answer for a row that does not depend on the other rows."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from herald.enrich.onnx_graphs import quantize
from herald.enrich.onnx_static import scale_and_zero_point, with_fixed_scales


def _graph(rng: np.random.Generator) -> bytes:
    """x (rows x 16) -> MatMul(16 x 8) + bias, as a float32 ONNX graph."""
    weight = numpy_helper.from_array(rng.normal(size=(16, 8)).astype(np.float32), "w")
    bias = numpy_helper.from_array(rng.normal(size=(8,)).astype(np.float32), "b")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["p"]), helper.make_node("Add", ["p", "b"], ["y"])],
        "product",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["rows", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows", 8])],
        [weight, bias],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    return bytes(model.SerializeToString())


def test_the_parameters_of_a_range_are_the_dynamic_quantisers() -> None:
    values = np.array([[-1.7, 0.2, 3.9, 2.5]], dtype=np.float32)
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["q", "s", "z"])
    graph = helper.make_graph(
        [node],
        "dq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [
            helper.make_tensor_value_info("s", TensorProto.FLOAT, []),
            helper.make_tensor_value_info("z", TensorProto.UINT8, []),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    scale, zero = session.run(None, {"x": values})
    assert scale_and_zero_point(-1.7, 3.9) == (np.float32(scale), np.uint8(zero))
    assert scale_and_zero_point(0.5, 2.0)[1] == 0  # the range always holds 0


def test_a_rows_answer_does_not_depend_on_its_batch() -> None:
    rng = np.random.default_rng(7)
    exact = _graph(rng)
    dynamic = quantize(exact, reduce_range=True)
    fixed = with_fixed_scales(dynamic, {"x": (-4.0, 4.0)})
    rows = rng.normal(size=(6, 16)).astype(np.float32)
    rows[5] *= 10  # one row of large values: a per-batch scale changes the other rows' answers
    exact_all, dynamic_all, fixed_all, dynamic_few, fixed_few = (
        ort.InferenceSession(g, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
        for g, x in (
            (exact, rows),
            (dynamic, rows),
            (fixed, rows),
            (dynamic, rows[:5]),
            (fixed, rows[:5]),
        )
    )
    assert np.array_equal(fixed_all[:5], fixed_few)
    assert not np.array_equal(dynamic_all[:5], dynamic_few)
    assert np.allclose(fixed_all[:5], exact_all[:5], atol=0.3)
