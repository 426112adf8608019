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
const path = require('path');
const ort = require('onnxruntime-node');
const {parseTensorProto} = require('./tensor_proto.js');

// A test input as onnxruntime-node's Tensor (float, int32, int64 or bool raw_data).
function readTensor(file) {
  const {dims, type, raw} = parseTensorProto(file);
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
