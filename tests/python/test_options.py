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
    with pytest.raises(ort.InvalidArgument, match="no configuration entry 'missing'"):
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
