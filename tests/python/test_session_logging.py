"""Each session and each run logs through a logger of its own:
SessionOptions.log_severity_level / logid and RunOptions.log_severity_level /
logid filter and name that session's (run's) records only, while the default
logger's severity (set_default_logger_severity) stays process-wide."""
import numpy as np
import pytest

import tessera
import tessera as ort

X = np.array([[1.0, 2.0, 3.0]], dtype=np.float32)
CPU = ["CPUExecutionProvider"]


@pytest.fixture
def records():
    got = []
    ort.set_default_logger_callback(lambda *record: got.append(record), severity=2)
    yield got
    ort.set_default_logger_callback(None)
    ort.set_default_logger_severity(2)


def _session(model, severity=None, logid=None):
    so = ort.SessionOptions()
    if severity is not None:
        so.log_severity_level = severity
    if logid is not None:
        so.logid = logid
    return ort.InferenceSession(model, so, providers=CPU)


def _run(sess, run_options=None):
    sess.run(None, {"x": X, "y": X}, run_options)


def _messages(records, logid):
    return [msg for _, _, lid, _, msg in records if lid == logid]


def test_two_sessions_keep_their_own_severity(add_mul_model, records):
    verbose = _session(add_mul_model, 0, "verbose-session")
    quiet = _session(add_mul_model, 3, "quiet-session")
    _run(verbose)
    _run(quiet)
    _run(verbose)
    assert _messages(records, "verbose-session").count("run finished") == 2
    # Session creation logged its partition at info, under the session's logid.
    assert any(sev == 1 and "partition" in msg
               for sev, _, lid, _, msg in records if lid == "verbose-session")
    assert _messages(records, "quiet-session") == []
    # Neither session changed the default logger's severity.
    assert tessera._C.get_default_logger_severity() == 2
    assert all(sev >= 2 for sev, _, lid, _, _ in records if lid != "verbose-session")


def test_session_without_a_level_follows_the_default_logger(add_mul_model, records):
    sess = _session(add_mul_model, logid="follower")
    _run(sess)
    assert _messages(records, "follower") == []
    ort.set_default_logger_severity(0)
    _run(sess)
    assert "run finished" in _messages(records, "follower")


def test_run_options_give_a_run_its_own_logger(add_mul_model, records):
    sess = _session(add_mul_model, 3, "sess")
    loud = ort.RunOptions()
    loud.log_severity_level = 0
    loud.logid = "loud-run"
    plain = ort.RunOptions()
    plain.logid = "plain-run"
    _run(sess, loud)
    _run(sess, plain)
    assert _messages(records, "loud-run") == ["run started", "run finished"]
    assert _messages(records, "plain-run") == []  # the session's severity (error)
    assert _messages(records, "sess") == []


def test_bad_severity_levels_raise_as_onnxruntime(add_mul_model):
    so = ort.SessionOptions()
    so.log_severity_level = 5
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.RuntimeException,
                       match="Invalid session log severity level"):
        ort.InferenceSession(add_mul_model, so, providers=CPU)
    sess = ort.InferenceSession(add_mul_model, providers=CPU)
    ro = ort.RunOptions()
    ro.log_severity_level = 9
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.RuntimeException,
                       match="Invalid run log severity level.*9"):
        _run(sess, ro)


def test_verbosity_levels_are_kept(add_mul_model):
    so = ort.SessionOptions()
    so.log_verbosity_level = 3
    ro = ort.RunOptions()
    ro.log_verbosity_level = 2
    sess = ort.InferenceSession(add_mul_model, so, providers=CPU)
    assert sess.get_session_options().log_verbosity_level == 3
    _run(sess, ro)
    assert ro.log_verbosity_level == 2
