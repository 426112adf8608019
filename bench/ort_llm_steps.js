#!/usr/bin/env node
// ONNX Runtime's side of bench/llm_compare.py: a prompt, then one token a
// step with the key/value cache fed back, timing each run:
//
//   node ort_llm_steps.js MODEL.onnx PROMPT STEPS THREADS
//
// Prints one JSON line {prompt_ms, decode_ms: [...]}: the second of two
// passes (the first warms up). onnxruntime-node is resolved from NODE_PATH
// (the benchmark kit's node_modules): it is never part of this repository.
'use strict';
const ort = require('onnxruntime-node');

async function main() {
  const [model, P, N, T] = process.argv.slice(2);
  const prompt = +P, steps = +N;
  const s = await ort.InferenceSession.create(model, {intraOpNumThreads: +T,
                                                      graphOptimizationLevel: 'all'});
  const caches = s.inputNames.filter((n) => n.startsWith('past_key_values.'));
  const pass = async () => {
    let past = {};
    for (const n of caches) {
      const dims = s.inputMetadata.find((m) => m.name === n).shape;  // [batch, kv_heads, past, head]
      past[n] = new ort.Tensor('float32', new Float32Array(0), [1, dims[1], 0, dims[3]]);
    }
    const times = [];
    let pos = 0;
    for (let i = 0; i <= steps; ++i) {
      const n = i === 0 ? prompt : 1;
      const ids = BigInt64Array.from({length: n}, (_, j) => BigInt((pos + j * 7) % 90));
      const feeds = Object.assign({
        input_ids: new ort.Tensor('int64', ids, [1, n]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(pos + n).fill(1n), [1, pos + n]),
      }, past);
      const t0 = process.hrtime.bigint();
      const r = await s.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      past = {};
      for (const c of caches) past[c] = r[c.replace('past_key_values.', 'present.')];
      pos += n;
    }
    return times;
  };
  await pass();
  const t = await pass();
  console.log(JSON.stringify({prompt_ms: t[0], decode_ms: t.slice(1)}));
}

main().catch((e) => { console.error(e.message); process.exit(1); });
