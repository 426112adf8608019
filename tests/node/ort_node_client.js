// Drives npm's onnxruntime-node (whose native binding loads Tessera's
// libonnxruntime.so.1) through its public JavaScript API only, and compares
// every output with what `tessera run` computes for the same inputs.
//
// usage: node ort_node_client.js TESSERA_CLI WORK_DIR MODEL.onnx...
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const ort = require('onnxruntime-node');

const [cli, work, ...models] = process.argv.slice(2);
let failures = 0;
function fail(what) { failures++; console.log(`FAIL ${what}`); }

// .npy files: what `tessera run --input` reads and `--output-dir` writes.
const NPY = {
  float32: ['<f4', Float32Array], float64: ['<f8', Float64Array], int8: ['|i1', Int8Array],
  uint8: ['|u1', Uint8Array], int16: ['<i2', Int16Array], uint16: ['<u2', Uint16Array],
  int32: ['<i4', Int32Array], uint32: ['<u4', Uint32Array], int64: ['<i8', BigInt64Array],
  uint64: ['<u8', BigUint64Array], bool: ['|b1', Uint8Array], float16: ['<f2', Uint16Array],
};
function writeNpy(file, tensor) {
  const [descr] = NPY[tensor.type];
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${tensor.dims.join(', ')}${tensor.dims.length === 1 ? ',' : ''}), }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1; head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const data = tensor.data;
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), body]));
}
function readNpy(file) {
  const buf = fs.readFileSync(file);
  const len = buf.readUInt16LE(8);
  const header = buf.toString('latin1', 10, 10 + len);
  const descr = /'descr': '([^']+)'/.exec(header)[1];
  const shape = /'shape': \(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
  const entry = Object.entries(NPY).find(([, [d]]) => d === descr);
  if (!entry) throw new Error(`${file}: dtype ${descr} not handled`);
  const body = buf.subarray(10 + len);
  const copy = new Uint8Array(body.length);
  copy.set(body);
  return { type: entry[0], dims: shape, data: new entry[1][1](copy.buffer) };
}

// Inputs of the declared type; symbolic dims are 1 (as `tessera run` does).
function makeInput(meta, index) {
  const dims = meta.shape.map(d => (typeof d === 'number' && d >= 0 ? d : 1));
  const n = dims.reduce((a, b) => a * b, 1);
  const T = NPY[meta.type] && NPY[meta.type][1];
  if (!T) throw new Error(`input type ${meta.type} not handled`);
  const data = new T(n);
  for (let i = 0; i < n; i++) {
    const v = ((i * 7 + index * 3) % 11) - 5;
    if (meta.type === 'float32' || meta.type === 'float64') data[i] = v / 4;
    else if (meta.type === 'int64') data[i] = BigInt(Math.abs(v) % 4);
    else if (meta.type === 'uint64') data[i] = BigInt(Math.abs(v) % 4);
    else if (meta.type === 'bool') data[i] = v > 0 ? 1 : 0;
    else if (meta.type === 'float16') data[i] = 0x3c00;  // 1.0
    else data[i] = Math.abs(v) % 4;
  }
  return new ort.Tensor(meta.type, data, dims);
}

function close(a, b) {
  if (typeof a === 'bigint' || typeof b === 'bigint') return a === b;
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  return Math.abs(a - b) <= 1e-5 + 1e-4 * Math.abs(b);
}

async function checkModel(model, k) {
  const name = path.basename(path.dirname(model)) + '/' + path.basename(model);
  const fromPath = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], graphOptimizationLevel: 'all', intraOpNumThreads: 1,
    interOpNumThreads: 1, executionMode: 'sequential', enableCpuMemArena: true,
    enableMemPattern: true, logSeverityLevel: 3, extra: { session: { keep_packed_initializers: '1' } },
  });
  const fromBuffer = await ort.InferenceSession.create(fs.readFileSync(model));
  if (JSON.stringify(fromPath.inputNames) !== JSON.stringify(fromBuffer.inputNames) ||
      JSON.stringify(fromPath.outputNames) !== JSON.stringify(fromBuffer.outputNames)) {
    fail(`${name}: sessions from a path and from a buffer disagree on names`);
  }
  const dir = path.join(work, `model_${k}`);
  fs.mkdirSync(dir, { recursive: true });
  const feeds = {};
  const args = ['run', model, '--output-dir', path.join(dir, 'out')];
  fromPath.inputMetadata.forEach((meta, i) => {
    feeds[meta.name] = makeInput(meta, i);
    const file = path.join(dir, `in_${i}.npy`);
    writeNpy(file, feeds[meta.name]);
    args.push('--input', `${meta.name}=${file}`);
  });
  const results = await fromBuffer.run(feeds);
  execFileSync(cli, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  let compared = 0;
  for (const out of fromPath.outputNames) {
    const mine = results[out];
    const ref = readNpy(path.join(dir, 'out', `${out}.npy`));
    if (JSON.stringify(mine.dims) !== JSON.stringify(ref.dims)) {
      fail(`${name}: output ${out} has shape [${mine.dims}] but tessera run gives [${ref.dims}]`);
      continue;
    }
    for (let i = 0; i < ref.data.length; i++) {
      if (!close(mine.data[i], ref.data[i])) {
        fail(`${name}: output ${out}[${i}] is ${mine.data[i]}, tessera run gives ${ref.data[i]}`);
        break;
      }
    }
    compared++;
  }
  console.log(`ok ${name}: ${compared} outputs equal to tessera run`);
  await fromPath.release();
  await fromBuffer.release();
}

// Every tensor type the binding carries goes in and comes back unchanged.
async function checkTypes(folder) {
  for (const [type] of Object.entries(NPY).concat([['string']])) {
    const file = path.join(folder, `identity_${type}.onnx`);
    const s = await ort.InferenceSession.create(file);
    const data = type === 'string' ? ['a', 'bc', ''] : makeInput({ type, shape: [3] }, 1).data;
    const t = new ort.Tensor(type, data, [3]);
    const r = (await s.run({ x: t })).y;
    if (r.type !== type || r.dims.join() !== '3' ||
        Array.from(r.data).some((v, i) => v !== data[i])) {
      fail(`identity of ${type}: got ${r.type} [${r.dims}] ${Array.from(r.data)}`);
    }
  }
  console.log('ok every tensor type round-trips');
}

async function checkErrors(folder) {
  try {
    await ort.InferenceSession.create('/no/such/model.onnx');
    fail('a missing model file did not throw');
  } catch (e) {
    if (!/\/no\/such\/model\.onnx/.test(e.message)) fail(`missing file: ${e.message}`);
  }
  const s = await ort.InferenceSession.create(path.join(folder, 'add_mul.onnx'));
  try {
    await s.run({ x: new ort.Tensor('int32', new Int32Array(3), [1, 3]),
                  y: new ort.Tensor('float32', new Float32Array(3), [1, 3]) });
    fail('a feed of the wrong type did not throw');
  } catch (e) {
    if (!/'x'/.test(e.message)) fail(`wrong type: ${e.message}`);
  }
  console.log('ok errors surface as exceptions with Tessera\'s messages');
}

(async () => {
  const typesFolder = process.env.TESSERA_CAPI_MODELS;
  if (typesFolder) {
    await checkTypes(typesFolder);
    await checkErrors(typesFolder);
  }
  for (let k = 0; k < models.length; k++) {
    try {
      await checkModel(models[k], k);
    } catch (e) {
      fail(`${models[k]}: ${e.message}`);
    }
  }
  console.log(failures === 0 ? 'onnxruntime-node on Tessera: all checks passed'
                             : `onnxruntime-node on Tessera: ${failures} failures`);
  process.exit(failures === 0 ? 0 : 1);
})();
