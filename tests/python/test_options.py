"""SessionOptions and RunOptions attributes round-trip."""

import pytest

import tessera as ort


@pytest.mark.parametrize("name,value", [
    ("graph_optimization_level", ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED),
    ("intra_op_num_threads", 3),
    ("inter_op_num_threads", 2),
    ("execution_mode", ort.ExecutionMode.ORT_PARALLEL),
    ("enable_profiling", True),
    ("profile_file_prefix", "myprof"),
    ("optimized_model_filepath", "/tmp/x.onnx"),
    ("log_severity_level", 0),
    ("log_verbosity_level", 1),
    ("logid", "session-7"),
    ("enable_mem_pattern", False),
    ("enable_mem_reuse", False),
    ("enable_cpu_mem_arena", False),
    ("use_deterministic_compute", True),
])
def test_session_option_round_trip(name, value):
    so = ort.SessionOptions()
    setattr(so, name, value)
    assert getattr(so, name) == value


def test_session_option_defaults():
    so = ort.SessionOptions()
    assert so.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert so.execution_mode == ort.ExecutionMode.ORT_SEQUENTIAL
    assert so.intra_op_num_threads == 0
    assert so.enable_profiling is False
    assert so.log_severity_level == 2
    assert so.enable_mem_pattern is True and so.enable_cpu_mem_arena is True


def test_session_option_types_are_checked():
    so = ort.SessionOptions()
    with pytest.raises(TypeError):
        so.intra_op_num_threads = "four"
    with pytest.raises(TypeError):
        so.graph_optimization_level = "all"


def test_session_config_entries():
    so = ort.SessionOptions()
    so.add_session_config_entry("session.use_env_allocators", "1")
    assert so.get_session_config_entry("session.use_env_allocators") == "1"
    with pytest.raises(ort.InvalidArgument, match="does not have configuration with key: missing"):
        so.get_session_config_entry("missing")


def test_free_dimension_overrides_are_recorded():
    so = ort.SessionOptions()
    so.add_free_dimension_override_by_name("batch", 4)
    so.add_free_dimension_override_by_denotation("DATA_BATCH", 8)
    assert so.get_free_dimension_overrides() == {"batch": 4}
    with pytest.raises(ort.InvalidArgument):
        so.add_free_dimension_override_by_name("batch", -1)


def test_add_initializer_needs_a_tensor():
    so = ort.SessionOptions()
    with pytest.raises(ort.InvalidArgument, match="holding a tensor"):
        so.add_initializer("w", ort.OrtValue.ortvalue_none())


def test_run_options():
    ro = ort.RunOptions()
    assert ro.terminate is False
    ro.terminate = True
    assert ro.terminate is True
    ro.log_severity_level = 1
    ro.log_verbosity_level = 2
    ro.logid = "r"
    ro.only_execute_path_to_fetches = True
    assert (ro.log_severity_level, ro.log_verbosity_level, ro.logid) == (1, 2, "r")
    assert ro.only_execute_path_to_fetches is True
    ro.add_run_config_entry("k", "v")
    assert ro.get_run_config_entry("k") == "v"
    with pytest.raises(ort.InvalidArgument):
        ro.get_run_config_entry("nope")


def test_get_session_options_returns_the_options_the_session_used(add_mul_model):
    so = ort.SessionOptions()
    so.use_deterministic_compute = True
    so.enable_mem_pattern = False
    so.enable_cpu_mem_arena = False
    so.intra_op_num_threads = 1
    so.logid = "first"
    so.add_session_config_entry("session.k", "v")
    s = ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])
    # Changes after creation do not rewrite what the session reports.
    so.use_deterministic_compute = False
    so.intra_op_num_threads = 4
    so.logid = "later"
    used = s.get_session_options()
    assert used.use_deterministic_compute is True
    assert used.enable_mem_pattern is False and used.enable_cpu_mem_arena is False
    assert used.intra_op_num_threads == 1 and used.logid == "first"
    assert used.get_session_config_entry("session.k") == "v"


def test_deterministic_compute_gives_identical_runs(add_mul_model):
    import numpy as np
    so = ort.SessionOptions()
    so.use_deterministic_compute = True
    s = ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).standard_normal((64, 3)).astype(np.float32)
    first = s.run(None, {"x": x, "y": x})
    for _ in range(3):
        for a, b in zip(first, s.run(None, {"x": x, "y": x})):
            assert a.tobytes() == b.tobytes()


def test_add_initializer_and_external_initializers_replace_weights(add_mul_model):
    import numpy as np
    x = np.ones((2, 3), np.float32)
    so = ort.SessionOptions()
    w = np.array([5, 6, 7], np.float32)
    so.add_initializer("w", ort.OrtValue.ortvalue_from_numpy(w))
    s = ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(s.run(["prod"], {"x": x, "y": x})[0], x * w)

    so2 = ort.SessionOptions()
    w2 = np.array([-1, 0, 2], np.float32)
    so2.add_external_initializers(["w"], [ort.OrtValue.ortvalue_from_numpy(w2)])
    s2 = ort.InferenceSession(add_mul_model, so2, providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(s2.run(["prod"], {"x": x, "y": x})[0], x * w2)
    with pytest.raises(ort.InvalidArgument, match="1 names but 2 OrtValues"):
        so2.add_external_initializers(["w"], [ort.OrtValue.ortvalue_from_numpy(w2)] * 2)
