"""A language model in ONNX Runtime's model-builder form (4-bit weights,
GroupQueryAttention with a key/value cache; bench/models/make_tiny_llm.py)
runs token by token: the logits of a prompt fed in pieces, each step reading
the previous step's present as its past, equal those of the whole prompt in
one run, for every position and every batch entry; greedy generation agrees
either way. A cache bug (a row written at the wrong position, a rotary angle
off by one, a stale past) changes the logits of every later step."""
import os
import sys

import numpy as np
import pytest

import tessera

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "models"))
import make_tiny_llm  # noqa: E402

LAYERS, KV_HEADS, HEAD = 2, 2, 16


@pytest.fixture(scope="module")
def session():
    model = make_tiny_llm.build(layers=LAYERS, hidden=64, heads=4, kv_heads=KV_HEADS, vocab=96)
    return tessera.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def empty_past(batch):
    z = np.zeros((batch, KV_HEADS, 0, HEAD), np.float32)
    return {f"past_key_values.{i}.{kv}": z for i in range(LAYERS) for kv in ("key", "value")}


def step(sess, ids, past, total):
    feeds = {"input_ids": ids, "attention_mask": np.ones((ids.shape[0], total), np.int64)}
    feeds.update(past)
    names = [o.name for o in sess.get_outputs()]
    out = dict(zip(names, sess.run(names, feeds)))
    present = {f"past_key_values.{i}.{kv}": out[f"present.{i}.{kv}"] for i in range(LAYERS)
               for kv in ("key", "value")}
    return out["logits"], present


def run_in_pieces(sess, ids, pieces):
    """Feeds ids [B, S] in consecutive pieces of the given lengths."""
    past, pos, logits = empty_past(ids.shape[0]), 0, []
    for n in pieces:
        lg, past = step(sess, ids[:, pos:pos + n], past, pos + n)
        logits.append(lg)
        pos += n
    return np.concatenate(logits, axis=1), past


def test_cached_steps_match_the_whole_prompt(session):
    ids = np.random.default_rng(3).integers(0, 96, (2, 9)).astype(np.int64)
    whole, whole_present = run_in_pieces(session, ids, [9])
    assert whole.shape == (2, 9, 96)
    assert np.abs(whole).max() > 0.1  # a live network, not zeros
    # A prompt of 5, then one token at a time (batch 2 with S > 1 and a past
    # is where ONNX Runtime refuses; it is the same computation).
    stepped, stepped_present = run_in_pieces(session, ids, [5, 1, 1, 1, 1])
    np.testing.assert_allclose(stepped, whole, rtol=1e-4, atol=1e-4)
    pieces, _ = run_in_pieces(session, ids[:1], [3, 4, 2])
    np.testing.assert_allclose(pieces, whole[:1], rtol=1e-4, atol=1e-4)
    for name, v in whole_present.items():
        assert v.shape == (2, KV_HEADS, 9, HEAD), name
        np.testing.assert_allclose(stepped_present[name], v, rtol=1e-4, atol=1e-5, err_msg=name)


def test_greedy_generation_is_the_same_with_and_without_the_cache(session):
    prompt = np.array([[5, 17, 42, 8]], np.int64)
    # With the cache: one new token a step.
    logits, past = step(session, prompt, empty_past(1), 4)
    tokens = list(prompt[0])
    for _ in range(6):
        nxt = int(logits[0, -1].argmax())
        tokens.append(nxt)
        logits, past = step(session, np.array([[nxt]], np.int64), past, len(tokens))
    # Without: the whole sequence each time.
    again = list(prompt[0])
    for _ in range(6):
        lg, _ = step(session, np.array([again], np.int64), empty_past(1), len(again))
        again.append(int(lg[0, -1].argmax()))
    assert tokens == again


def test_a_cache_of_the_wrong_length_is_named(session):
    ids = np.array([[1, 2]], np.int64)
    past = empty_past(1)
    past["past_key_values.0.key"] = np.zeros((1, KV_HEADS, 3, HEAD), np.float32)
    with pytest.raises(Exception, match="past_key / past_value"):
        step(session, ids, past, 5)


def test_float_weight_copies_give_the_same_logits(session):
    # matmul_nbits_float_weights=1 keeps packed float copies for many-row
    # products; the default dequantizes panels of the 4-bit weights per call.
    model = make_tiny_llm.build(layers=LAYERS, hidden=64, heads=4, kv_heads=KV_HEADS, vocab=96)
    floats = tessera.InferenceSession(
        model.SerializeToString(),
        providers=[("CPUExecutionProvider", {"matmul_nbits_float_weights": "1"})])
    ids = np.random.default_rng(5).integers(0, 96, (2, 7)).astype(np.int64)
    want, _ = run_in_pieces(floats, ids, [7])
    have, _ = run_in_pieces(session, ids, [7])
    np.testing.assert_allclose(have, want, rtol=1e-4, atol=1e-4)
    with pytest.raises(Exception, match="matmul_nbits_float_weights' must be 0 or 1, got 'yes'"):
        tessera.InferenceSession(
            model.SerializeToString(),
            providers=[("CPUExecutionProvider", {"matmul_nbits_float_weights": "yes"})])


@pytest.mark.parametrize("isa", ["avx2", "portable"])
def test_four_bit_kernels_of_narrower_vector_units(isa):
    # The AVX-512 kernels run above (on this project's machines); these run
    # the same decoder checks and the 4-bit MatMulNBits cases with the CPU
    # kernels capped (TESSERA_CPU_ISA is read once a process, so in a child).
    import subprocess
    here = os.path.dirname(__file__)
    env = dict(os.environ, TESSERA_CPU_ISA=isa)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        os.path.join(here, "test_llm_decoder.py"),
                        os.path.join(here, "test_contrib_ops.py"), "-k", "not narrower"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert " passed" in r.stdout


def test_one_preallocated_cache_bound_as_past_and_present(session):
    # The shared-buffer form: each layer's cache is one [1, kv, MAX, head]
    # buffer bound both as the past input and as the present output; a step
    # writes its token's row in place and the logits equal those of the
    # growing caches above.
    MAX = 16
    ids = np.random.default_rng(9).integers(0, 96, (1, 8)).astype(np.int64)
    want, _ = run_in_pieces(session, ids, [5, 1, 1, 1])
    caches = {f"{i}.{kv}": np.zeros((1, KV_HEADS, MAX, HEAD), np.float32)
              for i in range(LAYERS) for kv in ("key", "value")}
    values = {k: tessera.OrtValue.ortvalue_from_numpy(v) for k, v in caches.items()}
    got, pos = [], 0
    for n in (5, 1, 1, 1):
        b = session.io_binding()
        b.bind_cpu_input("input_ids", ids[:, pos:pos + n])
        b.bind_cpu_input("attention_mask", np.ones((1, pos + n), np.int64))
        for k, v in values.items():
            b.bind_ortvalue_input(f"past_key_values.{k}", v)
            b.bind_ortvalue_output(f"present.{k}", v)
        b.bind_output("logits")
        session.run_with_iobinding(b)
        got.append(b.copy_outputs_to_cpu()[-1])
        pos += n
    np.testing.assert_allclose(np.concatenate(got, axis=1), want, rtol=1e-4, atol=1e-4)
    assert np.abs(caches["0.key"][0, :, :8]).max() > 0  # the rows were written in place
    assert not caches["0.key"][0, :, 8:].any()
