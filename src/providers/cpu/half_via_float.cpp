#include "providers/cpu/half_via_float.hpp"

#include <deque>

#include "providers/cpu/recurrent/float_io.hpp"

namespace tessera::cpu {

namespace {

bool is_half(DataType t) { return t == DataType::kFloat16 || t == DataType::kBFloat16; }

Tensor to_float(const Tensor& t, const std::shared_ptr<Allocator>& allocator) {
  Tensor out = allocator ? Tensor(DataType::kFloat, t.shape(), allocator)
                         : Tensor(DataType::kFloat, t.shape());
  load_float_elems<float>(t.dtype(), t.raw_data(), t.num_elements(), out.mutable_data<float>());
  return out;
}

class HalfViaFloat : public ep::OpKernel {
 public:
  HalfViaFloat(const ep::KernelInfo& info, const ep::KernelFactory& float_factory)
      : node_(info.node()) {
    std::vector<ir::TypeInfo> in_types, out_types;
    std::vector<const Tensor*> constants;
    for (size_t i = 0; i < info.num_inputs(); ++i) {
      ir::TypeInfo t = info.input_type_info(i);
      if (is_half(t.elem_type)) t.elem_type = DataType::kFloat;
      in_types.push_back(std::move(t));
      const Tensor* c = info.constant_input(i);
      if (c && is_half(c->dtype())) {
        converted_.push_back(to_float(*c, nullptr));
        c = &converted_.back();
      }
      constants.push_back(c);
    }
    for (size_t i = 0; i < info.num_outputs(); ++i) {
      ir::TypeInfo t = info.output_type_info(i);
      if (is_half(t.elem_type)) t.elem_type = DataType::kFloat;
      out_types.push_back(std::move(t));
    }
    ep::KernelInfo inner(node_, info.opset(), std::move(in_types), std::move(out_types),
                         std::move(constants));
    inner_ = float_factory(inner);
  }

  void compute(ep::KernelContext& ctx) const override {
    std::vector<Value> converted(ctx.num_inputs());
    std::vector<const Value*> inputs;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Value* v = ctx.input_value(i);
      if (v && v->is_tensor() && is_half(v->tensor().dtype())) {
        converted[i] = Value(to_float(v->tensor(), ctx.allocator()));
        v = &converted[i];
      }
      inputs.push_back(v);
    }
    std::vector<Value> outs(ctx.num_outputs());
    std::vector<Value*> out_ptrs;
    std::vector<DataType> out_types;
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      out_ptrs.push_back(ctx.has_output(i) ? &outs[i] : nullptr);
      const DataType t = ctx.output_type(i);
      out_types.push_back(is_half(t) ? DataType::kFloat : t);
    }
    ep::KernelContext inner(node_, std::move(inputs), std::move(out_ptrs), std::move(out_types),
                            ctx.allocator(), &ctx.thread_pool());
    inner_->compute(inner);
    for (size_t i = 0; i < outs.size(); ++i) {
      if (!ctx.has_output(i)) continue;
      const DataType want = ctx.output_type(i);
      if (is_half(want) && outs[i].is_tensor() && outs[i].tensor().dtype() == DataType::kFloat) {
        const Tensor& f = outs[i].tensor();
        Tensor& y = ctx.output(i, f.shape(), want);
        store_float_elems<float>(f.data<float>(), f.num_elements(), want, y.mutable_raw_data());
      } else {
        ctx.set_output(i, std::move(outs[i]));
      }
    }
  }

 private:
  ir::Node node_;                 // the inner kernel may keep a reference to it
  std::deque<Tensor> converted_;  // float copies of half constants (stable addresses)
  std::unique_ptr<ep::OpKernel> inner_;
};

}  // namespace

ep::KernelFactory half_via_float(ep::KernelFactory float_factory) {
  return [float_factory = std::move(float_factory)](const ep::KernelInfo& info) {
    return std::make_unique<HalfViaFloat>(info, float_factory);
  };
}

ep::KernelFactory float_or_half_via_float(ep::KernelFactory float_factory) {
  ep::KernelFactory half = half_via_float(float_factory);
  return [float_factory = std::move(float_factory),
          half = std::move(half)](const ep::KernelInfo& info) {
    return is_half(info.input_type(0)) ? half(info) : float_factory(info);
  };
}

}  // namespace tessera::cpu
