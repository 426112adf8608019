// Signal processing: DFT, STFT, the Hann/Hamming/Blackman windows and
// MelWeightMatrix. Signals end in a dim of 1 (real) or 2 (complex); sizes
// given as scalar inputs are known only when those inputs are.
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::AttrType;

// Input i's single value: nullopt when unknown; fails when not a scalar.
std::optional<int64_t> scalar(const ShapeQuery& q, size_t i, const char* what) {
  auto v = q.ints(i);
  if (!v) return std::nullopt;
  if (v->size() != 1) q.fail(what, " must be a scalar: ", q.input_desc(i));
  return (*v)[0];
}

// Opset 17: axis attribute (default 1); 20: axis input 2 (default -2), in
// [-r, -2] or [0, r-2]. dft_length (input 1) defaults to the axis' size (an
// inverse one-sided DFT: twice the size less one); onesided keeps n/2 + 1.
OutShapes dft(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  const int64_t r = int64_t(x->rank());
  if (r < 2 || ((*x)[size_t(r - 1)] != 1 && (*x)[size_t(r - 1)] != 2))
    q.fail("the signal must have rank >= 2 and end in 1 (real) or 2 (complex): ", q.input_desc(0));
  int64_t axis = q.schema().attr_def("axis") ? q.attr_int("axis") : -2;
  if (!q.schema().attr_def("axis") && q.has_input(2)) {
    auto a = scalar(q, 2, "axis");
    if (!a) return {};
    axis = *a;
  }
  if (!((axis >= -r && axis <= -2) || (axis >= 0 && axis <= r - 2)))
    q.fail("axis ", axis, " is out of range [", -r, ", -2] U [0, ", r - 2, "] for ",
           q.input_desc(0));
  if (axis < 0) axis += r;
  const bool inverse = q.attr_int("inverse") != 0, onesided = q.attr_int("onesided") != 0;
  const bool irfft = inverse && onesided;
  const int64_t dim = (*x)[size_t(axis)];
  int64_t n = irfft ? 2 * (dim - 1) : dim;
  if (q.has_input(1)) {
    auto l = scalar(q, 1, "dft_length");
    if (!l) return {};
    n = *l;
  }
  if (n <= 0) q.fail("dft_length ", n, " is not positive for ", q.input_desc(0));
  std::vector<int64_t> out = x->dims();
  out[size_t(axis)] = onesided && !inverse ? n / 2 + 1 : n;
  out.back() = irfft ? 1 : 2;
  return {Shape(out)};
}

// signal [batch, length, 1|2] -> [batch, frames, bins, 2]; the frame length
// is frame_length (input 3) or the window's (input 2).
OutShapes stft(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  if (x->rank() != 3 || ((*x)[2] != 1 && (*x)[2] != 2))
    q.fail("the signal must be [batch, length, 1 or 2]: ", q.input_desc(0));
  auto step = scalar(q, 1, "frame_step");
  std::optional<int64_t> n;
  if (q.has_input(3)) {
    n = scalar(q, 3, "frame_length");
  } else if (const Shape* w = shape_of(q, 2)) {
    if (w->rank() != 1) q.fail("the window must be 1-D: ", q.input_desc(2));
    n = (*w)[0];
  }
  if (!step || !n) return {};
  if (*step <= 0) q.fail("frame_step ", *step, " is not positive");
  if (*n <= 0 || *n > (*x)[1])
    q.fail("frame length ", *n, " is not in [1, ", (*x)[1], "] for ", q.input_desc(0));
  const int64_t frames = ((*x)[1] - *n) / *step + 1;
  return {Shape{(*x)[0], frames, q.attr_int("onesided") != 0 ? *n / 2 + 1 : *n, 2}};
}

OutShapes window(const ShapeQuery& q) {
  auto size = scalar(q, 0, "size");
  if (!size) return {};
  if (*size < 0) q.fail("size ", *size, " is negative");
  return {Shape{*size}};
}

// [dft_length / 2 + 1, num_mel_bins]
OutShapes mel_weight_matrix(const ShapeQuery& q) {
  auto mels = scalar(q, 0, "num_mel_bins");
  auto len = scalar(q, 1, "dft_length");
  if (!mels || !len) return {};
  if (*mels <= 0 || *len <= 0)
    q.fail("num_mel_bins (", *mels, ") and dft_length (", *len, ") must be positive");
  return {Shape{*len / 2 + 1, *mels}};
}

}  // namespace

void add_signal_schemas(std::vector<OpSchema>& t) {
  const TypeParam signal{"T1", {0}, {0}, float_types()};
  const TypeParam length{"T2", {1}, {}, index_types()};
  t.push_back({"",
               "DFT",
               17,
               {int_attr("axis", 1), int_attr("inverse", 0), int_attr("onesided", 0)},
               {signal, length},
               type_of_input0,
               dft});
  t.push_back({"",
               "DFT",
               20,
               {int_attr("inverse", 0), int_attr("onesided", 0)},
               {signal, length, {"axis", {2}, {}, int64_type()}},
               type_of_input0,
               dft});
  t.push_back({"",
               "STFT",
               17,
               {int_attr("onesided", 1)},
               {{"T1", {0, 2}, {0}, float_types()}, {"T2", {1, 3}, {}, index_types()}},
               type_of_input0,
               stft});
  const TypeParam sizes{"T1", {0}, {}, index_types()};
  for (const char* op : {"BlackmanWindow", "HammingWindow", "HannWindow"})
    t.push_back({"",
                 op,
                 17,
                 {int_attr("output_datatype", 1), int_attr("periodic", 1)},
                 {sizes, {"T2", {}, {0}, numeric_types(), false, "output_datatype"}},
                 nullptr,
                 window});
  t.push_back({"",
               "MelWeightMatrix",
               17,
               {int_attr("output_datatype", 1)},
               {{"T1", {0, 1, 2}, {}, index_types()},
                {"T2", {3, 4}, {}, float_types()},
                {"T3", {}, {0}, numeric_types(), false, "output_datatype"}},
               nullptr,
               mel_weight_matrix});
}

}  // namespace tessera::ops
