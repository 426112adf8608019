// The TensorProto fields the bench scripts' test sets use, read with a
// minimal protobuf walk: dims (1, plain or packed), data_type (2), name (8),
// raw_data (9). Shared by ort_outputs.js and ort_profile.js.
const fs = require('fs');

function parseTensorProto(file) {
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
  let type = 0, raw = null, name = '';
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
      } else if (field === 8) name = body.toString('utf8');
      else if (field === 9) raw = Buffer.from(body);
    } else if (wire === 5) i += 4;
    else if (wire === 1) i += 8;
    else throw new Error(`${file}: unsupported wire type ${wire}`);
  }
  return {dims, type, raw, name};
}

module.exports = {parseTensorProto};
