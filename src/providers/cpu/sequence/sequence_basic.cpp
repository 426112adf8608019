// SequenceConstruct, SequenceEmpty, SequenceAt, SequenceInsert, SequenceErase,
// SequenceLength. Tensors are immutable once produced, so sequences share
// their elements' buffers instead of copying them.
#include <algorithm>
#include <cstring>
#include <string>

#include "providers/cpu/sequence/sequence_kernels.hpp"

namespace tessera::cpu::seq {

const std::vector<DataType>& sequence_elem_types() {
  static const std::vector<DataType> t = ep::types::join(
      {ep::types::kInts,
       {DataType::kFloat16, DataType::kFloat, DataType::kDouble, DataType::kString,
        DataType::kBool, DataType::kComplex64, DataType::kComplex128}});
  return t;
}

void copy_elems(DataType t, const void* src, int64_t src_off, void* dst, int64_t dst_off,
                int64_t n) {
  if (n <= 0) return;
  if (t == DataType::kString) {
    const auto* s = static_cast<const std::string*>(src) + src_off;
    auto* d = static_cast<std::string*>(dst) + dst_off;
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
    return;
  }
  check(!is_sub_byte_type(t), "copying ", data_type_name(t), " elements is not supported");
  size_t es = size_t(data_type_bits(t) / 8);
  std::memcpy(static_cast<char*>(dst) + size_t(dst_off) * es,
              static_cast<const char*>(src) + size_t(src_off) * es, size_t(n) * es);
}

int64_t read_position(const ep::KernelContext& ctx, const Tensor& t, const char* what) {
  if (t.dtype() != DataType::kInt32 && t.dtype() != DataType::kInt64)
    ctx.fail_node(what, " must be int32 or int64, got ", t.description());
  if (t.num_elements() != 1 || t.rank() > 1)
    ctx.fail_node(what, " must be a scalar, got ", t.description());
  return t.element_as_int64(0);
}

namespace {

const Value& require_sequence(const ep::KernelContext& ctx, size_t i) {
  const Value* v = ctx.input_value(i);
  if (!v || v->is_none()) ctx.fail_node("input ", i, " (a sequence) is missing");
  if (!v->is_sequence()) ctx.fail_node("input ", i, " is a ", v->kind_name(), ", expected a sequence");
  return *v;
}

// The sequence's element type, taken from its declaration or its first item.
DataType elem_type_of(const Value& s) {
  if (s.seq_elem_type() != DataType::kUndefined) return s.seq_elem_type();
  for (const auto& item : s.seq())
    if (item.is_tensor()) return item.tensor().dtype();
  return DataType::kUndefined;
}

class SequenceConstructKernel : public ep::OpKernel {
 public:
  explicit SequenceConstructKernel(const ep::KernelInfo& info) {
    if (info.num_inputs() == 0) info.fail_node("needs at least one input tensor");
  }
  void compute(ep::KernelContext& ctx) const override {
    Sequence items;
    DataType t = DataType::kUndefined;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.required_input(i);
      if (i == 0) t = x.dtype();
      if (x.dtype() != t)
        ctx.fail_node("all inputs must have one type: input 0 is ", data_type_name(t),
                      ", input ", i, " is ", x.description());
      items.emplace_back(x);
    }
    ctx.set_output(0, Value::sequence(std::move(items), t));
  }
};

class SequenceEmptyKernel : public ep::OpKernel {
 public:
  explicit SequenceEmptyKernel(const ep::KernelInfo& info) {
    int64_t d = info.attr_int("dtype", int64_t(DataType::kFloat));
    if (!is_valid_data_type(int32_t(d)) || d == 0) info.fail_node("dtype ", d, " is not a data type");
    dtype_ = static_cast<DataType>(d);
    const auto& allowed = sequence_elem_types();
    if (std::find(allowed.begin(), allowed.end(), dtype_) == allowed.end())
      info.fail_node("dtype ", data_type_name(dtype_), " is not allowed in a sequence");
  }
  void compute(ep::KernelContext& ctx) const override {
    ctx.set_output(0, Value::sequence({}, dtype_));
  }

 private:
  DataType dtype_;
};

class SequenceAtKernel : public ep::OpKernel {
 public:
  explicit SequenceAtKernel(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Value& s = require_sequence(ctx, 0);
    int64_t n = int64_t(s.seq().size());
    int64_t pos = read_position(ctx, ctx.required_input(1), "position");
    if (pos < -n || pos >= n)
      ctx.fail_node("position ", pos, " is out of range [", -n, ", ", n - 1,
                    "] for a sequence of ", n, " tensors");
    if (pos < 0) pos += n;
    ctx.set_output(0, s.seq()[size_t(pos)]);
  }
};

class SequenceInsertKernel : public ep::OpKernel {
 public:
  explicit SequenceInsertKernel(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Value& s = require_sequence(ctx, 0);
    const Tensor& x = ctx.required_input(1);
    DataType t = elem_type_of(s);
    if (t != DataType::kUndefined && t != x.dtype())
      ctx.fail_node("cannot insert ", x.description(), " into a sequence of ", data_type_name(t));
    int64_t n = int64_t(s.seq().size());
    int64_t pos = n;
    if (const Tensor* p = ctx.input(2)) {
      pos = read_position(ctx, *p, "position");
      if (pos < -n || pos > n)
        ctx.fail_node("position ", pos, " is out of range [", -n, ", ", n,
                      "] for a sequence of ", n, " tensors");
      if (pos < 0) pos += n;
    }
    Sequence items = s.seq();
    items.insert(items.begin() + pos, Value(x));
    ctx.set_output(0, Value::sequence(std::move(items), x.dtype()));
  }
};

class SequenceEraseKernel : public ep::OpKernel {
 public:
  explicit SequenceEraseKernel(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Value& s = require_sequence(ctx, 0);
    int64_t n = int64_t(s.seq().size());
    if (n == 0) ctx.fail_node("cannot erase from an empty sequence");
    int64_t pos = n - 1;
    if (const Tensor* p = ctx.input(1)) {
      pos = read_position(ctx, *p, "position");
      if (pos < -n || pos >= n)
        ctx.fail_node("position ", pos, " is out of range [", -n, ", ", n - 1,
                      "] for a sequence of ", n, " tensors");
      if (pos < 0) pos += n;
    }
    Sequence items = s.seq();
    items.erase(items.begin() + pos);
    ctx.set_output(0, Value::sequence(std::move(items), elem_type_of(s)));
  }
};

class SequenceLengthKernel : public ep::OpKernel {
 public:
  explicit SequenceLengthKernel(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Value& s = require_sequence(ctx, 0);
    ctx.output(0, Shape{}, DataType::kInt64).mutable_data<int64_t>()[0] = int64_t(s.seq().size());
  }
};

}  // namespace

void register_sequence_basic(ep::KernelRegistry& r) {
  using ep::TypeConstraint;
  const std::vector<DataType> kIdx = {DataType::kInt32, DataType::kInt64};
  const auto& T = sequence_elem_types();
  r.add<SequenceConstructKernel>({"", "SequenceConstruct", 11, ep::kOpsetMax,
                                  {TypeConstraint{"T", {0}, T, true}}});
  r.add<SequenceEmptyKernel>({"", "SequenceEmpty", 11, ep::kOpsetMax, {}});
  r.add<SequenceAtKernel>({"", "SequenceAt", 11, ep::kOpsetMax, {TypeConstraint{"I", {1}, kIdx}}});
  r.add<SequenceInsertKernel>({"", "SequenceInsert", 11, ep::kOpsetMax,
                               {TypeConstraint{"T", {1}, T}, TypeConstraint{"I", {2}, kIdx}}});
  r.add<SequenceEraseKernel>(
      {"", "SequenceErase", 11, ep::kOpsetMax, {TypeConstraint{"I", {1}, kIdx}}});
  r.add<SequenceLengthKernel>({"", "SequenceLength", 11, ep::kOpsetMax, {}});
}

}  // namespace tessera::cpu::seq
