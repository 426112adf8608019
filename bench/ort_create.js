#!/usr/bin/env node
// ONNX Runtime's session creation and first run on one model, in CPU time:
//
//   node ort_create.js MODEL.onnx [THREADS]
//
// Prints {load_cpu_ms, first_run_cpu_ms, load_ms, first_run_ms, peak_rss_mb}.
// CPU time (process.cpuUsage: user + system of every thread) rather than
// wall time, because a shared machine deschedules the process at random.
// Inputs are MODEL's folder's test_data_set_0/input_*.pb. onnxruntime-node
// is resolved from NODE_PATH (the benchmark kit's node_modules).
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const {parseTensorProto} = require('./tensor_proto.js');

const TYPES = {
  1: ['float32', Float32Array], 6: ['int32', Int32Array], 7: ['int64', BigInt64Array],
  9: ['bool', Uint8Array], 11: ['float64', Float64Array],
};

function readTensor(file) {
  const {dims, type, raw, name} = parseTensorProto(file);
  if (!TYPES[type]) throw new Error(`${file}: data type ${type} not supported`);
  const [tname, Arr] = TYPES[type];
  const n = dims.reduce((x, y) => x * y, 1);
  const ab = new ArrayBuffer(n * Arr.BYTES_PER_ELEMENT);
  if (n > 0) new Uint8Array(ab).set(raw.subarray(0, ab.byteLength));
  return {name, tensor: new ort.Tensor(tname, new Arr(ab), dims)};
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;
};
const wallMs = () => Number(process.hrtime.bigint()) / 1e6;

async function main() {
  const [model, threads] = process.argv.slice(2);
  if (!model) throw new Error('usage: node ort_create.js MODEL.onnx [THREADS]');
  const c0 = cpuMs(), w0 = wallMs();
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: parseInt(threads || '1', 10), interOpNumThreads: 1,
    graphOptimizationLevel: 'all', executionMode: 'sequential', logSeverityLevel: 3});
  const c1 = cpuMs(), w1 = wallMs();
  const dataDir = path.join(path.dirname(model), 'test_data_set_0');
  const feeds = {};
  fs.readdirSync(dataDir).filter((f) => /^input_\d+\.pb$/.test(f)).forEach((f) => {
    const {name, tensor} = readTensor(path.join(dataDir, f));
    feeds[name] = tensor;
  });
  const c2 = cpuMs(), w2 = wallMs();
  await session.run(feeds);
  const c3 = cpuMs(), w3 = wallMs();
  const r = (x) => Math.round(x * 1000) / 1000;
  console.log(JSON.stringify({
    runtime: 'onnxruntime', model, load_cpu_ms: r(c1 - c0), first_run_cpu_ms: r(c3 - c2),
    load_ms: r(w1 - w0), first_run_ms: r(w3 - w2),
    peak_rss_mb: r(process.resourceUsage().maxRSS / 1024)}));
}

main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
