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
            # In float64: an 8-bit difference must not wrap around.
            np.testing.assert_allclose(have.astype(np.float64), want.astype(np.float64),
                                       rtol=case.rtol, atol=case.atol, err_msg=name)


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


def _session(node, inputs, outputs, initializers=()):
    model = contrib_cases.model_of(node, inputs, outputs, initializers)
    return tessera.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def test_embedding_id_out_of_range_names_the_id():
    from onnx import helper
    ids = np.array([[1, 2, 40]], np.int32)
    word, pos = np.ones((30, 4), np.float32), np.ones((3, 4), np.float32)
    g = np.ones(4, np.float32)
    node = helper.make_node("EmbedLayerNormalization",
                            ["ids", "", "word", "pos", "", "g", "g"], ["y"], domain="com.microsoft",
                            name="embed")
    sess = _session(node, [("ids", ids)], [("y", np.zeros((1, 3, 4), np.float32))],
                    [("word", word), ("pos", pos), ("g", g)])
    with pytest.raises(Exception, match=r"embed.*input_ids \[0, 2\] = 40 is outside"):
        sess.run(None, {"ids": ids})


def test_attention_rejects_a_key_value_cache_and_bad_masks():
    from onnx import helper
    x = np.zeros((1, 2, 4), np.float32)
    w, past = np.zeros((4, 12), np.float32), np.zeros((2, 1, 2, 0, 2), np.float32)
    y = np.zeros((1, 2, 4), np.float32)
    node = helper.make_node("Attention", ["x", "w", "", "", "past"], ["y"],
                            domain="com.microsoft", num_heads=2, name="att")
    with pytest.raises(Exception, match="att.*past / present"):
        _session(node, [("x", x), ("past", past)], [("y", y)], [("w", w)])
    node = helper.make_node("Attention", ["x", "w", "", "m"], ["y"], domain="com.microsoft",
                            num_heads=2, name="att")
    m = np.ones((1, 3), np.int32)
    sess = _session(node, [("x", x), ("m", m)], [("y", y)], [("w", w)])
    with pytest.raises(Exception, match=r"att.*mask_index .* none of the supported forms"):
        sess.run(None, {"x": x, "m": m})


def test_matmul_nbits_rejects_what_it_does_not_define():
    from onnx import helper
    a = np.zeros((1, 32), np.float32)
    b = np.zeros((2, 2, 8), np.uint8)
    s = np.ones((2, 2), np.float32)
    y = np.zeros((1, 2), np.float32)
    g = np.zeros(32, np.int32)
    node = helper.make_node("MatMulNBits", ["a", "b", "s", "", "g"], ["y"], domain="com.microsoft",
                            K=32, N=2, bits=4, block_size=16, name="mm4")
    with pytest.raises(Exception, match="mm4.*g_idx"):
        _session(node, [("a", a)], [("y", y)], [("b", b), ("s", s), ("g", g)])
    node = helper.make_node("MatMulNBits", ["a", "b", "s"], ["y"], domain="com.microsoft",
                            K=32, N=2, bits=4, block_size=24, name="mm4")
    with pytest.raises(Exception, match="mm4.*block_size must be a power of two"):
        _session(node, [("a", a)], [("y", y)], [("b", b), ("s", s)])
    node = helper.make_node("MatMulNBits", ["a", "b", "s"], ["y"], domain="com.microsoft",
                            K=32, N=3, bits=4, block_size=16, name="mm4")
    with pytest.raises(Exception, match=r"mm4.*B uint8\[2,2,8\] must be uint8 \[3, 2, 8\]"):
        _session(node, [("a", a)], [("y", np.zeros((1, 3), np.float32))], [("b", b), ("s", s)])


def test_an_output_a_body_does_not_compute_is_an_error():
    # QAttention's body has no key/value cache: binding `present` is refused
    # by name instead of returning nothing for it.
    from onnx import helper
    x = np.zeros((2, 4, 16), np.uint8)
    node = helper.make_node("QAttention", ["x", "w", "b", "s", "s"], ["y", "present"],
                            domain="com.microsoft", num_heads=2, name="qatt")
    with pytest.raises(Exception, match=r"qatt.*output 1 \('present'\) is not computed"):
        _session(node, [("x", x)],
                 [("y", np.zeros((2, 4, 16), np.float32)),
                  ("present", np.zeros((2, 2, 2, 4, 8), np.float32))],
                 [("w", np.zeros((16, 48), np.int8)), ("b", np.zeros(48, np.float32)),
                  ("s", np.array(np.float32(0.1)))])


def test_a_missing_activation_parameter_names_the_attribute():
    from onnx import helper
    x = np.zeros((1, 1, 3, 3), np.float32)
    node = helper.make_node("FusedConv", ["x", "w"], ["y"], domain="com.microsoft",
                            activation="Clip", name="fc")
    with pytest.raises(Exception, match="fc.*needs attribute 'activation_params'"):
        _session(node, [("x", x)], [("y", x)], [("w", np.ones((1, 1, 1, 1), np.float32))])


def _as_float16(case):
    from onnx import ModelProto, TensorProto, numpy_helper
    model = ModelProto()
    model.CopyFrom(case.model)  # the shared case stays float
    for v in list(model.graph.input) + list(model.graph.output):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            v.type.tensor_type.elem_type = TensorProto.FLOAT16
    for i, t in enumerate(model.graph.initializer):
        a = numpy_helper.to_array(t)
        if a.dtype == np.float32:
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(a.astype(np.float16), t.name))
    inputs = {k: v.astype(np.float16) if v.dtype == np.float32 else v
              for k, v in case.inputs.items()}
    return model, inputs


@pytest.mark.parametrize("name", ["attention_raw_mask", "matmul_nbits_4bit",
                                  "matmul_nbits_4bit_rows_block32",
                                  "gqa_rotary_decode_interleaved", "gqa_decode_shared_buffer",
                                  "rotary_ms_halves", "gather_block_quantized_4bit"])
def test_ops_in_float16(name):
    # The case's float tensors as float16 (the kernels compute in float).
    case = next(c for c in CASES if c.name == name)
    model, inputs = _as_float16(case)
    sess = tessera.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = sess.run([n for n, _ in case.outputs], inputs)
    for (out, want), have in zip(case.outputs, got):
        assert have.dtype == np.float16, out
        np.testing.assert_allclose(have.astype(np.float32), want,
                                   atol=1e-2 * np.abs(want).max(), err_msg=out)


def test_group_query_attention_names_what_does_not_fit():
    from onnx import helper
    q = np.zeros((1, 1, 16), np.float32)
    kv = np.zeros((1, 1, 8), np.float32)
    past = np.zeros((1, 1, 3, 8), np.float32)
    y = np.zeros((1, 1, 16), np.float32)
    names = ["q", "k", "v", "pk", "pv", "seqlens", "total"]
    node = helper.make_node("GroupQueryAttention", names, ["y", "ok", "ov"], domain="com.microsoft",
                            num_heads=2, kv_num_heads=1, name="gqa")
    outs = [("y", y), ("ok", past), ("ov", past)]
    ins = [("q", q), ("k", kv), ("v", kv), ("pk", past), ("pv", past),
           ("seqlens", np.array([3], np.int32)), ("total", np.array(4, np.int32))]
    sess = _session(node, ins, outs)
    feeds = dict(ins)
    sess.run(None, feeds)  # fits: 3 cached + 1 new
    feeds["seqlens"] = np.array([9], np.int32)
    with pytest.raises(Exception, match=r"gqa.*seqlens_k\[0\] = 9 does not fit"):
        sess.run(None, feeds)
    feeds["seqlens"], feeds["total"] = np.array([3], np.int32), np.array(0, np.int32)
    with pytest.raises(Exception, match=r"gqa.*total_sequence_length 0 must be between the 1 new"):
        sess.run(None, feeds)
    # A total beyond the past and the new tokens would size the present.
    feeds["total"] = np.array(2**31 - 1, np.int32)
    with pytest.raises(Exception, match=r"gqa.*total_sequence_length 2147483647 must be between "
                                        r"the 1 new tokens and the past's 3 rows plus them"):
        sess.run(None, feeds)
    bad = helper.make_node("GroupQueryAttention", names, ["y", "ok", "ov"],
                           domain="com.microsoft", num_heads=3, kv_num_heads=2, name="gqa3")
    with pytest.raises(Exception, match="gqa3.*num_heads .3. must be a positive multiple"):
        _session(bad, ins, outs)
    quant = helper.make_node("GroupQueryAttention", names, ["y", "ok", "ov"],
                             domain="com.microsoft", num_heads=2, kv_num_heads=1,
                             k_quant_type="PER_TENSOR", name="gqa_q")
    with pytest.raises(Exception, match="gqa_q.*quantized key/value caches are not supported"):
        _session(quant, ins, outs)
    rotary = helper.make_node("GroupQueryAttention", names, ["y", "ok", "ov"],
                              domain="com.microsoft", num_heads=2, kv_num_heads=1, do_rotary=1,
                              name="gqa_r")
    with pytest.raises(Exception, match="gqa_r.*do_rotary = 1 needs cos_cache and sin_cache"):
        _session(rotary, ins, outs)


def test_gather_block_quantized_out_of_range_ids_give_zeros():
    case = next(c for c in CASES if c.name == "gather_block_quantized_4bit")
    sess = tessera.InferenceSession(case.model.SerializeToString(),
                                    providers=["CPUExecutionProvider"])
    ids = np.array([[1, -1, 10], [-10, -11, 0]], np.int64)  # 10 rows: 10 and -11 are outside
    (y,) = sess.run(None, {"ids": ids})
    (rows,) = sess.run(None, {"ids": np.array([[1, 9, 0], [0, 0, 0]], np.int64)})
    np.testing.assert_array_equal(y[0, :2], rows[0, :2])
    np.testing.assert_array_equal(y[1, 0], rows[1, 0])  # -10 is row 0
    assert not y[0, 2].any() and not y[1, 1].any()
    assert rows[0, 0].any()


def test_language_model_ops_name_bad_inputs():
    from onnx import helper
    ms = "com.microsoft"
    # GatherBlockQuantized: scales of the wrong shape, a bad block size.
    data = np.zeros((4, 16), np.uint8)  # 4 rows of 32 4-bit values
    ids = np.array([0, 3], np.int64)
    y = np.zeros((2, 32), np.float32)
    node = helper.make_node("GatherBlockQuantized", ["d", "ids", "s"], ["y"], domain=ms,
                            block_size=16, name="gbq")
    sess = _session(node, [("ids", ids)], [("y", y)],
                    [("d", data), ("s", np.ones((4, 3), np.float32))])
    with pytest.raises(Exception, match=r"gbq.*scales float\[4,3\] must be \[4,2\]"):
        sess.run(None, {"ids": ids})
    node = helper.make_node("GatherBlockQuantized", ["d", "ids", "s"], ["y"], domain=ms,
                            block_size=24, name="gbq24")
    with pytest.raises(Exception, match="gbq24.*block_size must be a power of 2"):
        _session(node, [("ids", ids)], [("y", y)],
                 [("d", data), ("s", np.ones((4, 2), np.float32))])
    # RotaryEmbedding: a position past the cache.
    x = np.zeros((1, 2, 8), np.float32)
    cache = np.zeros((4, 4), np.float32)
    node = helper.make_node("RotaryEmbedding", ["x", "pos", "c", "s"], ["y"], domain=ms,
                            name="rope")
    sess = _session(node, [("x", x), ("pos", np.array([[1, 9]], np.int64))], [("y", x)],
                    [("c", cache), ("s", cache)])
    with pytest.raises(Exception, match="rope.*position id 9 out of range"):
        sess.run(None, {"x": x, "pos": np.array([[1, 9]], np.int64)})
    # One start position: checked before the positions after it are formed.
    sess = _session(node, [("x", x), ("pos", np.array([0], np.int64))], [("y", x)],
                    [("c", cache), ("s", cache)])
    for start in (2**63 - 1, -1):
        with pytest.raises(Exception, match=f"rope.*start position {start} out of range"):
            sess.run(None, {"x": x, "pos": np.array([start], np.int64)})
    # GroupQueryAttention: a rotary cache shorter than the sequence.
    q = np.zeros((1, 3, 32), np.float32)
    node = helper.make_node("GroupQueryAttention",
                            ["q", "k", "v", "", "", "sl", "tot", "c", "s"], ["o"], domain=ms,
                            num_heads=2, kv_num_heads=2, do_rotary=1, name="gqa_rope")
    short = np.zeros((2, 8), np.float32)
    feeds = {"q": q, "k": q, "v": q, "sl": np.array([2], np.int32),
             "tot": np.array(3, np.int32)}
    sess = _session(node, list(feeds.items()), [("o", q)], [("c", short), ("s", short)])
    with pytest.raises(Exception, match="gqa_rope.*positions up to 2 are past the rotary cache"):
        sess.run(None, feeds)


@pytest.mark.parametrize("domain", ["com.microsoft", ""])
def test_integer_convolution_rejects_negative_pads(domain):
    # A negative pad once reached the 8-bit im2col, which wrote outside its
    # buffer (found by scripts/fuzz_models.py).
    from onnx import ModelProto, helper
    case = next(c for c in CASES if c.name == "ms_qlinear_conv")
    model = ModelProto()
    model.CopyFrom(case.model)
    node = model.graph.node[0]
    node.domain = domain
    del node.attribute[:]
    node.attribute.append(helper.make_attribute("pads", [-2, 1, 1, 1]))
    with pytest.raises(Exception, match=r"pads must be non-negative, got \[-2,1,1,1\]"):
        tessera.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def test_integer_products_of_an_empty_batch():
    # A batch of 0 rows once read past an empty list (found by
    # scripts/fuzz_models.py); the product is empty.
    from onnx import ModelProto
    case = next(c for c in CASES if c.name == "dynamic_quantize_matmul")
    model = ModelProto()
    model.CopyFrom(case.model)
    for v in (model.graph.input[0], model.graph.output[0]):
        v.type.tensor_type.shape.dim[0].dim_param = "n"
    sess = tessera.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    a = case.inputs["a"]
    (y,) = sess.run(None, {"a": np.zeros((0,) + a.shape[1:], np.float32)})
    assert y.shape == (0,) + case.outputs[0][1].shape[1:]


def test_matmul_nbits_checks_weights_before_making_its_output():
    # Zero points fed at run time leave the weights unchecked at creation; an
    # N far beyond B must fail on B's shape, not first allocate [.., N].
    from onnx import helper
    a = np.zeros((1, 256), np.float32)
    node = helper.make_node("MatMulNBits", ["a", "b", "s", "z"], ["y"], domain="com.microsoft",
                            K=256, N=2**31 - 1, bits=4, block_size=128, name="huge_n")
    sess = _session(node, [("a", a), ("z", np.zeros((17, 2), np.float32))],
                    [("y", np.zeros((1, 17), np.float32))],
                    [("b", np.zeros((17, 2, 64), np.uint8)), ("s", np.ones((17, 2), np.float32))])
    with pytest.raises(Exception, match=r"huge_n.*B uint8\[17,2,64\] must be uint8 \[2147483647"):
        sess.run(None, {"a": a, "z": np.zeros((17, 2), np.float32)})


def test_gather_block_quantized_int4_tables_along_any_axes():
    # int4 data and zero points (two to a byte, low nibble first, over the
    # flat order), gathered along axis 0 with blocks along axis 1, and the
    # transposed table gathered along axis 1 with blocks along axis 0.
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(1)
    V, E, block = 6, 32, 16
    q = rng.integers(-8, 8, (V, E))
    scales = rng.uniform(0.01, 0.1, (V, E // block)).astype(np.float32)
    z = rng.integers(-8, 8, (V, E // block))

    def int4(name, a):
        flat = (a.reshape(-1) & 15).astype(np.uint8)
        t = TensorProto(name=name, data_type=22, dims=a.shape)  # INT4 (after onnx 1.12)
        t.raw_data = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).tobytes()
        return t

    ids = np.array([[0, 5, -1], [2, 3, 7]], np.int64)  # -1 is row 5, 7 is outside
    table = (q - np.repeat(z, block, 1)) * np.repeat(scales, block, 1)
    want = np.stack([[table[r] if -V <= r < V else np.zeros(E) for r in row] for row in ids])
    for axes, data, s, zp, out_shape, expect in (
            ((0, 1), q, scales, z, [2, 3, E], want),
            ((1, 0), q.T, scales.T, z.T, [E, 2, 3], want.transpose(2, 0, 1))):
        node = helper.make_node("GatherBlockQuantized", ["d", "ids", "s", "z"], ["y"],
                                domain="com.microsoft", bits=4, block_size=block,
                                gather_axis=axes[0], quantize_axis=axes[1])
        graph = helper.make_graph(
            [node], "g", [helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 3])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
            initializer=[int4("d", np.ascontiguousarray(data)),
                         numpy_helper.from_array(np.ascontiguousarray(s), "s"),
                         int4("z", np.ascontiguousarray(zp))])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                        helper.make_opsetid("com.microsoft", 1)])
        sess = tessera.InferenceSession(model.SerializeToString(),
                                        providers=["CPUExecutionProvider"])
        (y,) = sess.run(None, {"ids": ids})
        np.testing.assert_allclose(y, expect.astype(np.float32), rtol=1e-6, atol=1e-7)
