#!/usr/bin/env node
// ONNX Runtime's own per-node profile of one model, for bench/profile_compare.py:
//
//   node ort_profile.js MODEL.onnx THREADS RUNS PREFIX
//
// Runs the model RUNS times (inputs from test_data_set_0/ beside it) with
// profiling on; ONNX Runtime writes PREFIX_<date>.json. onnxruntime-node is
// resolved from NODE_PATH (the benchmark kit's node_modules): it is never
// part of this repository.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

// The TensorProto fields the kit's test inputs use: dims (1), data_type (2),
// raw_data (9), read with a minimal protobuf walk.
function readTensor(file) {
  const b = fs.readFileSync(file);
  let i = 0;
  const varint = () => {
    let v = 0n, s = 0n;
    for (;;) {
      const c = b[i++];
      v |= BigInt(c & 0x7f) << s;
      if (!(c & 0x80)) return v;
      s += 7n;
    }
  };
  const dims = [];
  let type = 0, raw = null;
  while (i < b.length) {
    const key = Number(varint()), field = key >> 3, wire = key & 7;
    if (wire === 0) {
      const v = varint();
      if (field === 1) dims.push(Number(v));
      else if (field === 2) type = Number(v);
    } else if (wire === 2) {
      const n = Number(varint());
      const body = b.subarray(i, i + n);
      i += n;
      if (field === 1) {  // packed dims
        let j = 0;
        while (j < body.length) {
          let v = 0, s = 0, c;
          do { c = body[j++]; v += (c & 0x7f) * 2 ** s; s += 7; } while (c & 0x80);
          dims.push(v);
        }
      } else if (field === 9) raw = Buffer.from(body);
    } else if (wire === 5) i += 4;
    else if (wire === 1) i += 8;
    else throw new Error(`${file}: unsupported wire type ${wire}`);
  }
  const kinds = {1: ['float32', Float32Array], 6: ['int32', Int32Array], 7: ['int64', BigInt64Array],
                 9: ['bool', Uint8Array]};
  if (!kinds[type] || !raw) throw new Error(`${file}: need raw_data of a float/int32/int64/bool tensor`);
  const [name, Arr] = kinds[type];
  const ab = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length);
  return new ort.Tensor(name, new Arr(ab), dims);
}

async function main() {
  const [model, threads, runs, prefix] = process.argv.slice(2);
  if (!prefix) throw new Error('usage: ort_profile.js MODEL.onnx THREADS RUNS PREFIX');
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], graphOptimizationLevel: 'all', intraOpNumThreads: Number(threads),
    interOpNumThreads: 1, executionMode: 'sequential', enableProfiling: true,
    profileFilePrefix: prefix, logSeverityLevel: 3,
  });
  const dir = path.join(path.dirname(model), 'test_data_set_0');
  const feeds = {};
  session.inputNames.forEach((n, k) => { feeds[n] = readTensor(path.join(dir, `input_${k}.pb`)); });
  for (let r = 0; r < Number(runs); r++) await session.run(feeds);
  session.endProfiling();
}
main().catch((e) => { console.error(e.message); process.exit(1); });
