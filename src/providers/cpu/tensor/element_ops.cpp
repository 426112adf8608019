#include "providers/cpu/tensor/element_ops.hpp"

#include <algorithm>
#include <complex>

#include "core/float8.hpp"
#include "ep/kernel_registry.hpp"

namespace tessera::cpu {

namespace {

uint32_t raw_bits(const uint8_t* b, int bits, int64_t i) {
  int per = 8 / bits;
  return (b[i / per] >> ((i % per) * bits)) & ((1u << bits) - 1);
}

void set_raw_bits(uint8_t* b, int bits, int64_t i, uint32_t v) {
  int per = 8 / bits;
  uint32_t mask = (1u << bits) - 1;
  int shift = int(i % per) * bits;
  uint8_t& byte = b[i / per];
  byte = uint8_t((byte & ~(mask << shift)) | ((v & mask) << shift));
}

// Output axes [from, r) whose source offsets run on contiguously (each a
// step of the product of the later axes' sizes, no fill): copied as one run
// of `inner` elements from `start` (added to the earlier axes' offsets), so
// a channel slice, or a transpose that keeps the trailing axes, copies long
// runs instead of paying the row loop's overhead per short row (ShuffleNet's
// channel shuffle: rows of 7 to 28 floats).
struct ContiguousTail {
  size_t from;
  int64_t inner, start;
};

ContiguousTail contiguous_tail(const Shape& out, const AxisMaps& maps) {
  const size_t r = out.rank();
  ContiguousTail t{r, 1, 0};
  while (t.from > 0) {
    const auto& m = maps[t.from - 1];
    bool run = m[0] != kFillOffset;
    for (size_t i = 1; i < m.size() && run; ++i) run = m[i] == m[0] + int64_t(i) * t.inner;
    if (!run) break;
    t.start += m[0];
    t.inner *= out[t.from - 1];
    --t.from;
  }
  return t;
}

// Output axes [from, r) that all read one source element (Expand of
// [N, 1, 1, 1] to [N, C, H, W]): each row over the leading axes is then a
// fill of that element, where the per-element loop looked up a map entry
// per value and paid its row set-up per short row.
ContiguousTail broadcast_tail(const Shape& out, const AxisMaps& maps) {
  const size_t r = out.rank();
  ContiguousTail t{r, 1, 0};
  while (t.from > 0) {
    const auto& m = maps[t.from - 1];
    if (m.empty() || m[0] == kFillOffset ||
        std::any_of(m.begin(), m.end(), [&](int64_t v) { return v != m[0]; }))
      break;
    t.start += m[0];
    t.inner *= out[t.from - 1];
    --t.from;
  }
  return t;
}

// The indices over the leading `lead` axes of `out` of one row, stepped row
// by row, and the source offset they select (kFillOffset in any axis's map:
// the row is the fill value).
struct LeadIndex {
  LeadIndex(const Shape& out, const AxisMaps& maps, size_t lead, int64_t row)
      : out_(out), maps_(maps), idx_(lead, 0) {
    for (size_t k = lead; k-- > 0;) {
      idx_[k] = row % out[k];
      row /= out[k];
    }
  }
  void next() {
    for (size_t k = idx_.size(); k-- > 0;) {
      if (++idx_[k] < out_[k]) return;
      idx_[k] = 0;
    }
  }
  // start + the maps' offsets; false when the row is filled.
  bool base(int64_t start, int64_t& base) const {
    base = start;
    bool filled = false;
    for (size_t k = 0; k < idx_.size(); ++k) {
      const int64_t v = maps_[k][size_t(idx_[k])];
      if (v == kFillOffset)
        filled = true;
      else
        base += v;
    }
    return !filled;
  }

 private:
  const Shape& out_;
  const AxisMaps& maps_;
  std::vector<int64_t> idx_;
};

template <typename T>
void axis_copy(const T* s, T* d, const Shape& out, const AxisMaps& maps, const T* fill,
               ThreadPool& pool) {
  const size_t r = out.rank();
  if (r == 0) {
    d[0] = s[0];
    return;
  }
  const ContiguousTail tail = contiguous_tail(out, maps);
  const ContiguousTail same = broadcast_tail(out, maps);
  if (tail.from == r && same.from < r && same.inner > 1) {
    const size_t lead = same.from;
    const int64_t rows = out.size_to(lead), inner = same.inner;
    pool.parallel_for(rows, double(inner), [&](int64_t begin, int64_t end) {
      LeadIndex at(out, maps, lead, begin);
      for (int64_t row = begin; row < end; ++row, at.next()) {
        int64_t base = 0;
        const bool copied = at.base(same.start, base);
        std::fill(d + row * inner, d + (row + 1) * inner, copied ? s[base] : *fill);
      }
    });
    return;
  }
  if (tail.from < r) {
    // Rows over the leading axes, each one run; long runs with few rows are
    // cut into pieces so the threads share them.
    const size_t lead = tail.from;
    const int64_t rows = out.size_to(lead), inner = tail.inner;
    constexpr int64_t kPiece = 16384;  // elements
    const int64_t pieces = rows < 2 * int64_t(pool.num_threads()) && inner > 2 * kPiece
                               ? (inner + kPiece - 1) / kPiece
                               : 1;
    const int64_t len = (inner + pieces - 1) / pieces;
    pool.parallel_for(rows * pieces, double(len), [&](int64_t begin, int64_t end) {
      // The leading axes' indices of the current row, stepped as rows advance.
      LeadIndex at(out, maps, lead, begin / pieces);
      for (int64_t job = begin; job < end; ++job) {
        const int64_t row = job / pieces, p = job % pieces;
        if (p == 0 && job != begin) at.next();
        int64_t base = 0;
        const bool filled = !at.base(tail.start, base);
        const int64_t b = p * len, e = std::min(inner, b + len);
        if (b >= e) continue;
        T* drow = d + row * inner;
        if (filled)
          std::fill(drow + b, drow + e, *fill);
        else
          std::copy(s + base + b, s + base + e, drow + b);
      }
    });
    return;
  }
  const int64_t inner = out[r - 1];
  const int64_t rows = out.size_to(r - 1);
  if (inner == 0 || rows == 0) return;
  const auto& im = maps[r - 1];
  const bool row_fills = std::find(im.begin(), im.end(), kFillOffset) != im.end();
  // Each source element repeated `rep` times in order (nearest upsampling of
  // the last axis by an integer factor): filled by runs, not gathered.
  int64_t rep = 0;
  if (!row_fills && inner > 1 && im[1] == 0) {
    rep = 1;
    while (rep < inner && im[size_t(rep)] == 0) ++rep;
    for (int64_t i = 0; i < inner && rep; ++i)
      if (im[size_t(i)] != i / rep) rep = 0;
  }
  // A last-axis map made of long runs, each a fill or consecutive source
  // elements (a constant Pad or a crop of the last axis): each row is then a
  // few fills and copies, where the gather looked up and tested every entry.
  struct Run {
    int64_t at, len, src;  // src: kFillOffset for a fill
  };
  std::vector<Run> runs;
  if (row_fills) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t v = im[size_t(i)];
      Run* last = runs.empty() ? nullptr : &runs.back();
      if (last && (v == kFillOffset ? last->src == kFillOffset
                                    : last->src != kFillOffset && v == last->src + last->len))
        ++last->len;
      else
        runs.push_back({i, 1, v});
    }
    constexpr int64_t kMinRun = 8;  // mean elements per run worth a fill or copy call
    if (int64_t(runs.size()) * kMinRun > inner) runs.clear();
  }
  pool.parallel_for(rows, double(inner), [&](int64_t begin, int64_t end) {
    LeadIndex at(out, maps, r - 1, begin);
    int64_t last_base = -1;  // the source offset of the row gathered last
    for (int64_t row = begin; row < end; ++row, at.next()) {
      int64_t base = 0;
      const bool filled = !at.base(0, base);
      T* drow = d + row * inner;
      if (filled) {
        std::fill(drow, drow + inner, *fill);
        last_base = -1;
      } else if (base == last_base) {
        // A row that reads what the previous one read (nearest upsampling
        // repeats each input row): one contiguous copy instead of a gather.
        std::copy(drow - inner, drow, drow);
      } else if (!runs.empty()) {
        for (const Run& run : runs) {
          if (run.src == kFillOffset)
            std::fill(drow + run.at, drow + run.at + run.len, *fill);
          else
            std::copy(s + base + run.src, s + base + run.src + run.len, drow + run.at);
        }
        last_base = base;
      } else if (row_fills) {
        for (int64_t i = 0; i < inner; ++i) {
          int64_t v = im[size_t(i)];
          drow[i] = v == kFillOffset ? *fill : s[base + v];
        }
        last_base = base;
      } else if (rep == 2) {
        const T* srow = s + base;
        for (int64_t j = 0; j < inner / 2; ++j) drow[2 * j] = drow[2 * j + 1] = srow[j];
        if (inner % 2) drow[inner - 1] = srow[inner / 2];
        last_base = base;
      } else if (rep > 2) {
        const T* srow = s + base;
        for (int64_t i = 0; i < inner; i += rep)
          std::fill(drow + i, drow + std::min(inner, i + rep), srow[i / rep]);
        last_base = base;
      } else {
        const T* srow = s + base;
        for (int64_t i = 0; i < inner; ++i) drow[i] = srow[im[size_t(i)]];
        last_base = base;
      }
    }
  });
}

}  // namespace

const std::vector<DataType>& byte_types() {
  static const std::vector<DataType> v = [] {
    std::vector<DataType> out;
    for (DataType t : ep::types::kAll)
      if (!is_sub_byte_type(t)) out.push_back(t);
    return out;
  }();
  return v;
}

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.rank(), 1);
  for (size_t k = s.rank(); k-- > 1;) st[k - 1] = st[k] * s[k];
  return st;
}

void copy_elems(const Tensor& src, int64_t si, Tensor& dst, int64_t di, int64_t n) {
  if (n <= 0) return;
  DataType t = src.dtype();
  if (t != dst.dtype())
    fail(ErrorCode::kInvalidArgument, "copy between ", src.description(), " and ",
         dst.description());
  if (t == DataType::kString) {
    const auto* s = src.data<std::string>() + si;
    auto* d = dst.mutable_data<std::string>() + di;
    std::copy(s, s + n, d);
    return;
  }
  if (is_sub_byte_type(t)) {
    int bits = data_type_bits(t);
    const auto* s = static_cast<const uint8_t*>(src.raw_data());
    auto* d = static_cast<uint8_t*>(dst.mutable_raw_data());
    for (int64_t k = 0; k < n; ++k) set_raw_bits(d, bits, di + k, raw_bits(s, bits, si + k));
    return;
  }
  size_t es = size_t(data_type_bits(t) / 8);
  std::memmove(static_cast<char*>(dst.mutable_raw_data()) + size_t(di) * es,
               static_cast<const char*>(src.raw_data()) + size_t(si) * es, size_t(n) * es);
}

void copy_runs(const std::vector<CopyRun>& runs, ThreadPool& pool) {
  if (runs.empty()) return;
  int64_t total = 0;
  for (const CopyRun& r : runs) total += r.n;
  const DataType dt = runs[0].src->dtype();
  constexpr int64_t kPiece = 65536;  // elements
  if (dt == DataType::kString || is_sub_byte_type(dt) || total < 4 * kPiece) {
    for (const CopyRun& r : runs) copy_elems(*r.src, r.from, *r.dst, r.to, r.n);
    return;
  }
  std::vector<CopyRun> pieces;
  for (const CopyRun& r : runs)
    for (int64_t k = 0; k < r.n; k += kPiece)
      pieces.push_back({r.src, r.from + k, r.dst, r.to + k, std::min(kPiece, r.n - k)});
  pool.parallel_for(int64_t(pieces.size()), double(kPiece), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const CopyRun& p = pieces[size_t(i)];
      copy_elems(*p.src, p.from, *p.dst, p.to, p.n);
    }
  });
}

void fill_elems(Tensor& dst, const Tensor& value) {
  check(value.num_elements() >= 1 && value.dtype() == dst.dtype(), "fill value ",
        value.description(), " does not suit ", dst.description());
  if (dst.num_elements() == 0) return;
  if (is_sub_byte_type(dst.dtype())) {
    int bits = data_type_bits(dst.dtype());
    uint32_t v = raw_bits(static_cast<const uint8_t*>(value.raw_data()), bits, 0);
    uint8_t byte = 0;
    for (int k = 0; k < 8 / bits; ++k) byte = uint8_t(byte | (v << (k * bits)));
    std::memset(dst.mutable_raw_data(), byte, dst.byte_size());
    return;
  }
  dispatch_storage(dst.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T& v = *static_cast<const T*>(value.raw_data());
    T* d = static_cast<T*>(dst.mutable_raw_data());
    std::fill(d, d + dst.num_elements(), v);
  });
}

Tensor make_scalar(DataType t, double v) {
  Tensor s(t, Shape{});
  void* p = s.mutable_raw_data();
  switch (t) {
    case DataType::kFloat:
      *static_cast<float*>(p) = float(v);
      break;
    case DataType::kDouble:
      *static_cast<double*>(p) = v;
      break;
    case DataType::kFloat16:
      *static_cast<Float16*>(p) = Float16(float(v));
      break;
    case DataType::kBFloat16:
      *static_cast<BFloat16*>(p) = BFloat16(float(v));
      break;
    case DataType::kInt8:
      *static_cast<int8_t*>(p) = int8_t(v);
      break;
    case DataType::kInt16:
      *static_cast<int16_t*>(p) = int16_t(v);
      break;
    case DataType::kInt32:
      *static_cast<int32_t*>(p) = int32_t(v);
      break;
    case DataType::kInt64:
      *static_cast<int64_t*>(p) = int64_t(v);
      break;
    case DataType::kUInt8:
      *static_cast<uint8_t*>(p) = uint8_t(v);
      break;
    case DataType::kUInt16:
      *static_cast<uint16_t*>(p) = uint16_t(v);
      break;
    case DataType::kUInt32:
      *static_cast<uint32_t*>(p) = uint32_t(v);
      break;
    case DataType::kUInt64:
      *static_cast<uint64_t*>(p) = uint64_t(v);
      break;
    case DataType::kBool:
      *static_cast<bool*>(p) = v != 0;
      break;
    case DataType::kComplex64:
      *static_cast<std::complex<float>*>(p) = {float(v), 0.f};
      break;
    case DataType::kComplex128:
      *static_cast<std::complex<double>*>(p) = {v, 0.0};
      break;
    case DataType::kString:
      break;
    default:
      *static_cast<uint8_t*>(p) = 0;
      small_type_from_float(t, p, 0, float(v));
      break;
  }
  return s;
}

Tensor unpack_sub_byte(const Tensor& t) {
  Tensor w(DataType::kUInt8, t.shape());
  int bits = data_type_bits(t.dtype());
  const auto* s = static_cast<const uint8_t*>(t.raw_data());
  auto* d = w.mutable_data<uint8_t>();
  for (int64_t i = 0; i < t.num_elements(); ++i) d[i] = uint8_t(raw_bits(s, bits, i));
  return w;
}

void pack_sub_byte(const Tensor& wide, Tensor& dst) {
  check(wide.num_elements() == dst.num_elements(), "pack: element counts differ");
  int bits = data_type_bits(dst.dtype());
  const auto* s = wide.data<uint8_t>();
  auto* d = static_cast<uint8_t*>(dst.mutable_raw_data());
  if (dst.byte_size()) std::memset(d, 0, dst.byte_size());
  for (int64_t i = 0; i < dst.num_elements(); ++i) set_raw_bits(d, bits, i, s[i]);
}

void copy_by_axis_maps(const Tensor& src, Tensor& dst, const AxisMaps& maps, const Tensor* fill,
                       ThreadPool& pool) {
  check(maps.size() == dst.rank(), "copy_by_axis_maps: ", maps.size(), " maps for ",
        dst.description());
  if (dst.num_elements() == 0) return;
  if (!fill)
    for (const auto& m : maps)
      check(std::find(m.begin(), m.end(), kFillOffset) == m.end(),
            "copy_by_axis_maps: a fill position without a fill value");
  if (is_sub_byte_type(src.dtype())) {
    Tensor wfill = fill ? unpack_sub_byte(*fill) : Tensor();
    with_byte_storage(src, dst, [&](const Tensor& s, Tensor& d) {
      copy_by_axis_maps(s, d, maps, fill ? &wfill : nullptr, pool);
    });
    return;
  }
  dispatch_storage(src.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* f = fill ? static_cast<const T*>(fill->raw_data()) : nullptr;
    axis_copy<T>(static_cast<const T*>(src.raw_data()), static_cast<T*>(dst.mutable_raw_data()),
                 dst.shape(), maps, f, pool);
  });
}

}  // namespace tessera::cpu
