"""One session, many Python threads: runs release the GIL and share the session."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from onnx import TensorProto, helper

import tessera as ort
from conftest import make_model, save


def test_threads_share_one_session(session):
    def work(i):
        x = np.full((64, 3), i, np.float32)
        y = np.arange(192, dtype=np.float32).reshape(64, 3)
        for _ in range(20):
            total, prod = session.run(None, {"x": x, "y": y})
            np.testing.assert_array_equal(total, x + y)
            np.testing.assert_array_equal(prod, x * [1, 2, 3])
        return i

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert sorted(pool.map(work, range(16))) == list(range(16))


@pytest.fixture
def long_model(tmp_path):
    """x -> 3000 chained Mul nodes over 1M floats: a run of a second or more."""
    nodes, prev = [], "x"
    for i in range(3000):
        nodes.append(helper.make_node("Mul", [prev, "one"], ["t%d" % i]))
        prev = "t%d" % i
    nodes.append(helper.make_node("Identity", [prev], ["y"]))
    model = make_model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1 << 20]),
         helper.make_tensor_value_info("one", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1 << 20])])
    return save(model, tmp_path / "long.onnx")


def test_run_releases_the_gil_so_terminate_can_stop_it(long_model):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    s = ort.InferenceSession(long_model, so, providers=["CPUExecutionProvider"])
    ro = ort.RunOptions()
    started = threading.Event()
    errors = []

    def run():
        started.set()
        try:
            s.run(None, {"x": np.ones(1 << 20, np.float32), "one": np.ones(1, np.float32)}, ro)
        except ort.Fail as e:
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    started.wait()
    time.sleep(0.2)
    # Were the GIL held through the run, this line would only execute after the
    # run had finished (successfully); with it released, the run stops midway.
    ro.terminate = True
    t.join()
    assert len(errors) == 1 and "terminated" in str(errors[0])
