"""ONNX Runtime's com.microsoft operators run as their bodies (src/ops/
contrib_bodies.cpp): each case's outputs against numpy's (contrib_cases.py),
at every optimization level, so the bodies are checked both as written and
after the optimizer has fused them."""
import numpy as np
import pytest

import contrib_cases
import tessera

CASES = list(contrib_cases.all_cases())


@pytest.mark.parametrize("level", ["DISABLE_ALL", "ENABLE_ALL"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_contrib_op(case, level):
    opts = tessera.SessionOptions()
    opts.graph_optimization_level = getattr(tessera.GraphOptimizationLevel, f"ORT_{level}")
    sess = tessera.InferenceSession(case.model.SerializeToString(), opts,
                                    providers=["CPUExecutionProvider"])
    got = sess.run([n for n, _ in case.outputs], case.inputs)
    for (name, want), have in zip(case.outputs, got):
        assert have.dtype == want.dtype, name
        assert have.shape == want.shape, name
        if case.exact:
            np.testing.assert_array_equal(have, want, err_msg=name)
        else:
            np.testing.assert_allclose(have, want, rtol=case.rtol, atol=case.atol, err_msg=name)


def test_unsupported_form_names_the_node():
    # channels_last = 1 has no body: the session says which node cannot run.
    import onnx
    from onnx import helper
    x = np.zeros((1, 4, 4, 3), np.uint8)
    f = np.float32(0.1)
    node = helper.make_node("QLinearGlobalAveragePool", ["x", "s", "z", "s", "z"], ["y"],
                            domain="com.microsoft", channels_last=1, name="gap_nhwc")
    model = contrib_cases.model_of(node, [("x", x)], [("y", np.zeros((1, 1, 1, 3), np.uint8))],
                                   [("s", np.array(f)), ("z", np.array(np.uint8(0)))])
    with pytest.raises(Exception, match="gap_nhwc"):
        tessera.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
