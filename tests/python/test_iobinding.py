"""IOBinding over run_with_ort_values."""

import numpy as np
import pytest

import tessera as ort

# On a machine where the CUDA provider runs, 'gpu'/'cuda' memory is its own:
# the checks below of a device no provider serves (or the sandbox's) do not apply.
CUDA_HERE = "CUDAExecutionProvider" in ort.get_available_providers()
CUDA_REASON = "the CUDA provider serves 'gpu'/'cuda' memory on this machine"

X = np.arange(6, dtype=np.float32).reshape(2, 3)
Y = np.ones((2, 3), dtype=np.float32)


def test_bind_cpu_input_and_output(session):
    b = session.io_binding()
    b.bind_cpu_input("x", X)
    b.bind_input("y", Y)
    b.bind_output("sum")
    b.synchronize_inputs()
    session.run_with_iobinding(b)
    b.synchronize_outputs()
    assert b.get_outputs_names() == ["sum"]
    outputs = b.get_outputs()
    assert len(outputs) == 1 and isinstance(outputs[0], ort.OrtValue)
    np.testing.assert_array_equal(outputs[0].numpy(), X + Y)
    copied = b.copy_outputs_to_cpu()
    np.testing.assert_array_equal(copied[0], X + Y)


def test_bind_ortvalues_and_preallocated_output(session):
    b = session.io_binding()
    b.bind_ortvalue_input("x", ort.OrtValue.ortvalue_from_numpy(X))
    b.bind_input("y", ort.OrtValue.ortvalue_from_numpy(Y))
    target = np.zeros((2, 3), np.float32)
    out = ort.OrtValue.ortvalue_from_numpy(target)
    b.bind_ortvalue_output("prod", out)
    session.run_with_iobinding(b)
    np.testing.assert_array_equal(target, X * [1, 2, 3])  # written into the bound memory
    assert b.get_outputs()[0] is out


def test_onnxruntime_style_bind_input_with_buffer_ptr(session):
    b = session.io_binding()
    b.bind_input("x", "cpu", 0, np.float32, list(X.shape), X.ctypes.data)
    b.bind_input("y", "cpu", 0, np.float32, list(Y.shape), Y.ctypes.data)
    result = np.zeros((2, 3), np.float32)
    b.bind_output("sum", "cpu", 0, np.float32, list(result.shape), result.ctypes.data)
    session.run_with_iobinding(b)
    np.testing.assert_array_equal(result, X + Y)


def test_unbound_outputs_mean_all_and_clearing(session):
    b = session.io_binding()
    b.bind_cpu_input("x", X)
    b.bind_cpu_input("y", Y)
    session.run_with_iobinding(b)
    assert len(b.get_outputs()) == 2
    b.clear_binding_outputs()
    assert b.get_outputs() == []
    b.bind_output("sum")
    b.clear_binding_inputs()
    with pytest.raises(ort.InvalidArgument, match="was not fed"):
        session.run_with_iobinding(b)


def test_mismatched_bound_output(session):
    b = session.io_binding()
    b.bind_cpu_input("x", X)
    b.bind_cpu_input("y", Y)
    with pytest.raises(ort.InvalidArgument, match="'sum' has shape .* bound tensor is float\\[5\\]"):
        b.bind_ortvalue_output("sum", ort.OrtValue.ortvalue_from_shape_and_type([5], np.float32))
    # Same rank, other size: known only when the run produces it.
    b.bind_ortvalue_output("sum", ort.OrtValue.ortvalue_from_shape_and_type([3, 3], np.float32))
    with pytest.raises(ort.InvalidArgument, match="'sum' is float\\[2,3\\] in this run"):
        session.run_with_iobinding(b)


@pytest.mark.skipif(CUDA_HERE, reason=CUDA_REASON)
def test_output_on_missing_device_stays_on_cpu(session):
    # As a provider this build lacks is skipped with a warning, an output bound
    # to a device no provider serves stays on the CPU, with a warning.
    b = session.io_binding()
    b.bind_cpu_input("x", X)
    b.bind_cpu_input("y", Y)
    with pytest.warns(RuntimeWarning, match="'cuda' is not available"):
        b.bind_output("sum", "cuda")
    session.run_with_iobinding(b)
    assert b.get_outputs()[0].device_name() == "cpu"
    np.testing.assert_array_equal(b.copy_outputs_to_cpu()[0], X + Y)
    # Device memory handed in by pointer cannot be moved: that is an error.
    with pytest.raises(ort.EPFail, match="'npu' is not available in this build \\(id 0\\)"):
        b.bind_input("x", "npu", 0, np.float32, [2, 3], X.ctypes.data)
    with pytest.raises(ort.InvalidArgument, match="unknown device type 'tpu'"):
        b.bind_output("sum", "tpu")


def test_bad_bindings_name_the_problem(session):
    b = session.io_binding()
    with pytest.raises(ort.InvalidArgument, match="'z' is not an input of the model"):
        b.bind_cpu_input("z", X)
    with pytest.raises(ort.InvalidArgument, match="'x' is tensor\\(float\\)"):
        b.bind_cpu_input("x", X.astype(np.int64))
    # As in onnxruntime, the shape of a bound input is checked by the run.
    b.bind_cpu_input("x", np.zeros((2, 4), np.float32))
    b.bind_cpu_input("y", Y)
    b.bind_output("sum")
    with pytest.raises(ort.InvalidArgument, match="'x'"):
        session.run_with_iobinding(b)
    with pytest.raises(ort.InvalidArgument, match="'nope' is not an output"):
        b.bind_output("nope")


def test_run_many_times_with_one_binding(session):
    b = session.io_binding()
    x = ort.OrtValue.ortvalue_from_numpy(X.copy())
    b.bind_ortvalue_input("x", x)
    b.bind_cpu_input("y", Y)
    b.bind_output("prod", "cpu")
    for k in range(3):
        x.numpy()[...] = X + k  # the bound OrtValue is read in place at each run
        session.run_with_iobinding(b)
        np.testing.assert_array_equal(b.get_outputs()[0].numpy(), (X + k) * [1, 2, 3])
