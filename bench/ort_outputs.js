#!/usr/bin/env node
// ONNX Runtime's outputs for one model on one test set, for bench/accuracy.py:
//
//   node ort_outputs.js MODEL.onnx DATA_DIR OUT_DIR [THREADS]
//
// Reads DATA_DIR/input_*.pb (TensorProto, raw_data), runs the model once and
// writes OUT_DIR/<k>.npy for the k-th graph output. onnxruntime-node is
// resolved from NODE_PATH (the benchmark kit's node_modules): it is never
// part of this repository.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const {parseTensorProto} = require('./tensor_proto.js');

// ONNX data type -> [onnxruntime-node type, typed array, numpy descr]
const TYPES = {
  1: ['float32', Float32Array, '<f4'], 2: ['uint8', Uint8Array, '|u1'],
  3: ['int8', Int8Array, '|i1'], 6: ['int32', Int32Array, '<i4'],
  7: ['int64', BigInt64Array, '<i8'], 9: ['bool', Uint8Array, '|b1'],
  10: ['float16', Uint16Array, '<f2'], 11: ['float64', Float64Array, '<f8'],
};
const BY_NAME = Object.fromEntries(Object.values(TYPES).map((t) => [t[0], t]));

// A test set's tensor as onnxruntime-node's Tensor, with its name.
function readTensor(file) {
  const {dims, type, raw, name} = parseTensorProto(file);
  if (!TYPES[type]) throw new Error(`${file}: data type ${type} not supported`);
  const [tname, Arr] = TYPES[type];
  const n = dims.reduce((x, y) => x * y, 1);
  const ab = new ArrayBuffer(n * Arr.BYTES_PER_ELEMENT);
  if (n > 0) {
    if (!raw) throw new Error(`${file}: no raw_data`);
    new Uint8Array(ab).set(raw.subarray(0, ab.byteLength));
  }
  return {name, tensor: new ort.Tensor(tname, new Arr(ab), dims)};
}

function writeNpy(file, t) {
  const kind = BY_NAME[t.type];
  if (!kind) throw new Error(`output type ${t.type} not supported`);
  const shape = t.dims.length === 1 ? `(${t.dims[0]},)` : `(${t.dims.join(', ')})`;
  let header = `{'descr': '${kind[2]}', 'fortran_order': False, 'shape': ${shape}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), data]));
}

async function main() {
  const [model, dataDir, outDir, threads] = process.argv.slice(2);
  if (!outDir) throw new Error('usage: node ort_outputs.js MODEL.onnx DATA_DIR OUT_DIR [THREADS]');
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: parseInt(threads || '1', 10), interOpNumThreads: 1,
    graphOptimizationLevel: 'all', executionMode: 'sequential'});
  const files = fs.readdirSync(dataDir).filter((f) => /^input_\d+\.pb$/.test(f))
      .sort((a, b) => parseInt(a.slice(6), 10) - parseInt(b.slice(6), 10));
  const feeds = {};
  files.forEach((f, k) => {
    const {name, tensor} = readTensor(path.join(dataDir, f));
    feeds[session.inputNames.includes(name) ? name : session.inputNames[k]] = tensor;
  });
  const outs = await session.run(feeds);
  fs.mkdirSync(outDir, {recursive: true});
  session.outputNames.forEach((n, k) => writeNpy(path.join(outDir, `${k}.npy`), outs[n]));
}

main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
