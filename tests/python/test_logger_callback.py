"""set_default_logger_callback: the runtime's log records go to a Python
callable as (severity, category, logid, code_location, message)."""

import sys
import threading

import numpy as np
import pytest

import tessera
import tessera as ort

X = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
Y = np.full((2, 3), 10.0, dtype=np.float32)


@pytest.fixture(autouse=True)
def restore_default_logger():
    yield
    ort.set_default_logger_callback(None)
    ort.set_default_logger_severity(2)


def run_once(sess):
    total, prod = sess.run(None, {"x": X, "y": Y})
    np.testing.assert_array_equal(total, X + Y)
    np.testing.assert_array_equal(prod, X * np.array([1, 2, 3], dtype=np.float32))


def test_records_reach_the_callback_with_their_fields(add_mul_model):
    records = []
    ort.set_default_logger_callback(lambda *record: records.append(record), severity=0)
    assert tessera._C.get_default_logger_severity() == 0
    so = ort.SessionOptions()
    so.logid = "callback-session"
    sess = ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])
    run_once(sess)

    assert records, "no record reached the callback"
    for severity, category, logid, code_location, message in records:
        assert isinstance(severity, int) and 0 <= severity <= 4
        assert category == "tessera"
        assert isinstance(logid, str)
        assert code_location == ""
        assert isinstance(message, str) and message
    # Session creation logs its partition at info level; each run logs its
    # start and end at verbose level under the session's logid.
    assert any(sev == 1 and "partition" in msg for sev, _, _, _, msg in records)
    run_records = [(sev, msg) for sev, _, logid, _, msg in records if logid == "callback-session"]
    assert (0, "run started") in run_records
    assert (0, "run finished") in run_records


def test_run_options_logid_names_the_run(add_mul_model):
    records = []
    ort.set_default_logger_callback(lambda *record: records.append(record), severity=0)
    sess = ort.InferenceSession(add_mul_model, providers=["CPUExecutionProvider"])
    ro = ort.RunOptions()
    ro.logid = "the-run"
    sess.run(None, {"x": X, "y": Y}, ro)
    assert ("the-run", "run finished") in [(logid, msg) for _, _, logid, _, msg in records]


def test_severity_filters_what_the_callback_sees(add_mul_model):
    records = []
    ort.set_default_logger_callback(lambda *record: records.append(record), severity=3)
    sess = ort.InferenceSession(add_mul_model, providers=["CPUExecutionProvider"])
    run_once(sess)
    assert [r for r in records if r[0] < 3] == []
    # The same calls at verbose do produce records, so the empty list above is the filter.
    ort.set_default_logger_callback(lambda *record: records.append(record), severity=0)
    run_once(sess)
    assert any(r[0] == 0 for r in records)


def test_session_without_its_own_severity_keeps_the_default_logger_severity(add_mul_model):
    ort.set_default_logger_callback(lambda *record: None, severity=1)
    ort.InferenceSession(add_mul_model, providers=["CPUExecutionProvider"])
    assert tessera._C.get_default_logger_severity() == 1
    so = ort.SessionOptions()
    assert so.log_severity_level == 2
    ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])
    assert tessera._C.get_default_logger_severity() == 1


def test_none_sends_records_to_stderr_again(add_mul_model, capfd):
    records = []
    ort.set_default_logger_callback(lambda *record: records.append(record), severity=0)
    ort.set_default_logger_callback(None, severity=0)
    sess = ort.InferenceSession(add_mul_model, providers=["CPUExecutionProvider"])
    run_once(sess)
    assert records == []
    assert "[tessera V" in capfd.readouterr().err


def test_bad_arguments_raise_runtime_error_and_keep_the_callback(add_mul_model):
    records = []
    ort.set_default_logger_callback(lambda *record: records.append(record), severity=0)
    for severity in (5, -1):
        with pytest.raises(RuntimeError, match=f"severity must be 0 .verbose. to 4 .fatal., got {severity}"):
            ort.set_default_logger_callback(lambda *record: None, severity=severity)
    with pytest.raises(RuntimeError, match="must be callable or None, got an object of type str"):
        ort.set_default_logger_callback("not a callable")
    assert tessera._C.get_default_logger_severity() == 0
    run_once(ort.InferenceSession(add_mul_model, providers=["CPUExecutionProvider"]))
    assert records


def test_boundary_severities_are_accepted():
    for severity in (0, 4):
        ort.set_default_logger_callback(lambda *record: None, severity=severity)
        assert tessera._C.get_default_logger_severity() == severity


def test_raising_callback_goes_to_unraisablehook(add_mul_model, monkeypatch):
    raised = []
    monkeypatch.setattr(sys, "unraisablehook", lambda info: raised.append(info.exc_value))

    def callback(severity, category, logid, code_location, message):
        raise ValueError("callback failed on purpose")

    ort.set_default_logger_callback(callback, severity=0)
    sess = ort.InferenceSession(add_mul_model, providers=["CPUExecutionProvider"])
    run_once(sess)
    assert raised
    assert all(isinstance(e, ValueError) and str(e) == "callback failed on purpose" for e in raised)


def test_records_from_concurrent_runs_all_arrive(add_mul_model):
    lock = threading.Lock()
    finished = []

    def callback(severity, category, logid, code_location, message):
        if message == "run finished":
            with lock:
                finished.append(logid)

    ort.set_default_logger_callback(callback, severity=0)
    sess = ort.InferenceSession(add_mul_model, providers=["CPUExecutionProvider"])

    def worker(index):
        ro = ort.RunOptions()
        ro.logid = f"thread{index}"
        for _ in range(20):
            sess.run(None, {"x": X, "y": Y}, ro)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert sorted(finished) == sorted(f"thread{i}" for i in range(4) for _ in range(20))


def test_exposed_where_onnxruntime_has_it():
    from tessera.capi import _pybind_state as C
    assert C.set_default_logger_callback is ort.set_default_logger_callback
    assert "set_default_logger_callback" in ort.__all__
