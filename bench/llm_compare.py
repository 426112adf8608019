"""A language model's prompt and decode steps, Tessera against ONNX Runtime,
side by side: the model bench/models/make_tiny_llm.py writes (ONNX Runtime's
model-builder form: 4-bit weights, GroupQueryAttention with a key/value
cache), a prompt of PROMPT tokens, then STEPS tokens one at a time with the
cache fed back. Each round runs both runtimes (alternating which goes first);
the table gives the best-of-rounds prompt time and median decode-step time,
and Tessera / ONNX Runtime.

    /usr/bin/python3 bench/llm_compare.py [--model F.onnx | --size mid] [--threads 1,2]
        [--prompt 64] [--steps 32] [--rounds 3] [--float-weights]

ONNX Runtime is the benchmark kit's onnxruntime-node (KIT_NODE_MODULES,
default /tmp/tessera_bench_kit/node_modules, as bench/run_compare.sh sets it
up); it never enters this repository.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "models"))
SIZES = {  # layers, hidden, heads, kv heads, intermediate, vocab
    "tiny": (2, 64, 4, 2, 128, 96),
    "mid": (4, 1024, 16, 4, 2816, 8000),
    "large": (8, 2048, 32, 8, 5632, 32000),
}


def tessera_steps(model, prompt, steps, threads, float_weights=False):
    import tessera
    so = tessera.SessionOptions()
    so.intra_op_num_threads = threads
    opts = {"matmul_nbits_float_weights": "1" if float_weights else "0"}
    sess = tessera.InferenceSession(model, so, providers=[("CPUExecutionProvider", opts)])
    caches = [i for i in sess.get_inputs() if i.name.startswith("past_key_values.")]
    outs = [o.name for o in sess.get_outputs()]

    def one_pass():
        past = {c.name: np.zeros((1, c.shape[1], 0, c.shape[3]), np.float32) for c in caches}
        times, pos = [], 0
        for i in range(steps + 1):
            n = prompt if i == 0 else 1
            ids = np.array([[(pos + j * 7) % 90 for j in range(n)]], np.int64)
            feeds = {"input_ids": ids, "attention_mask": np.ones((1, pos + n), np.int64), **past}
            t0 = time.perf_counter()
            r = dict(zip(outs, sess.run(outs, feeds)))
            times.append((time.perf_counter() - t0) * 1e3)
            past = {c.name: r[c.name.replace("past_key_values.", "present.")] for c in caches}
            pos += n
        return times

    one_pass()
    t = one_pass()
    return {"prompt_ms": t[0], "decode_ms": t[1:]}


def ort_steps(model, prompt, steps, threads, node_modules):
    env = dict(os.environ, NODE_PATH=node_modules)
    out = subprocess.run(["node", os.path.join(HERE, "ort_llm_steps.js"), model, str(prompt),
                          str(steps), str(threads)], env=env, check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model")
    ap.add_argument("--size", choices=sorted(SIZES), default="mid")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--prompt", type=int, default=64)
    ap.add_argument("--steps", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--float-weights", action="store_true",
                    help="Tessera's CPU option matmul_nbits_float_weights=1 (faster prompts, "
                         "4 bytes a weight)")
    ap.add_argument("--node-modules",
                    default=os.environ.get("KIT_NODE_MODULES",
                                           "/tmp/tessera_bench_kit/node_modules"))
    a = ap.parse_args()
    model = a.model
    if not model:
        import make_tiny_llm
        import onnx
        L, H, NH, KV, I, V = SIZES[a.size]
        model = f"/tmp/tessera_llm_{a.size}.onnx"
        if not os.path.exists(model):
            onnx.save(make_tiny_llm.build(L, H, NH, KV, V, I, max_pos=1024), model)
    print(f"model {model}: prompt {a.prompt} tokens, then {a.steps} steps of one; "
          f"best of {a.rounds} rounds")
    print("| threads | Tessera prompt ms | ORT prompt ms | ratio | Tessera step ms | "
          "ORT step ms | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for threads in [int(t) for t in a.threads.split(",")]:
        best = {"tessera": [1e9, 1e9], "ort": [1e9, 1e9]}
        for r in range(a.rounds):
            order = ["tessera", "ort"] if r % 2 == 0 else ["ort", "tessera"]
            for who in order:
                res = (tessera_steps(model, a.prompt, a.steps, threads, a.float_weights)
                       if who == "tessera"
                       else ort_steps(model, a.prompt, a.steps, threads, a.node_modules))
                best[who][0] = min(best[who][0], res["prompt_ms"])
                best[who][1] = min(best[who][1], float(np.median(res["decode_ms"])))
        t, o = best["tessera"], best["ort"]
        print(f"| {threads} | {t[0]:.2f} | {o[0]:.2f} | {t[0] / o[0]:.2f} | {t[1]:.3f} | "
              f"{o[1]:.3f} | {t[1] / o[1]:.2f} |")


if __name__ == "__main__":
    main()
