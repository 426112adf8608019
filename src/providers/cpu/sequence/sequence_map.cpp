// SequenceMap: runs the body once per element of the first input sequence.
// Sequence inputs are walked element by element (all as long as the first);
// tensor inputs are passed unchanged to every iteration. Output k collects
// body output k of every iteration into a sequence.
#include "providers/cpu/sequence/sequence_kernels.hpp"

namespace tessera::cpu::seq {

namespace {

class SequenceMapKernel : public ep::OpKernel {
 public:
  explicit SequenceMapKernel(const ep::KernelInfo& info) : body_(info.subgraph("body")) {
    if (body_.input_names().size() != info.num_inputs())
      info.fail_node("the body takes ", body_.input_names().size(), " inputs but the node has ",
                     info.num_inputs());
    if (body_.output_names().size() != info.num_outputs())
      info.fail_node("the body has ", body_.output_names().size(), " outputs but the node has ",
                     info.num_outputs());
    for (size_t k = 0; k < info.num_outputs(); ++k) out_types_.push_back(info.output_type(k));
  }

  void compute(ep::KernelContext& ctx) const override {
    const Value* first = ctx.input_value(0);
    if (!first || !first->is_sequence())
      ctx.fail_node("input 0 must be a sequence, got ", first ? first->kind_name() : "nothing");
    size_t n = first->seq().size();
    for (size_t i = 1; i < ctx.num_inputs(); ++i) {
      const Value* v = ctx.input_value(i);
      if (!v || v->is_none()) ctx.fail_node("input ", i, " is missing");
      if (v->is_sequence() && v->seq().size() != n)
        ctx.fail_node("input ", i, " is a sequence of ", v->seq().size(),
                      " items but input 0 has ", n);
    }
    std::vector<Sequence> outs(out_types_.size());
    for (size_t it = 0; it < n; ++it) {
      std::vector<Value> in;
      in.reserve(ctx.num_inputs());
      for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        const Value& v = *ctx.input_value(i);
        in.push_back(v.is_sequence() ? v.seq()[it] : v);
      }
      auto res = body_.run(ctx, std::move(in));
      if (res.size() != outs.size())
        ctx.fail_node("the body returned ", res.size(), " values, expected ", outs.size());
      for (size_t k = 0; k < outs.size(); ++k) {
        if (!res[k].is_tensor())
          ctx.fail_node("body output ", k, " is a ", res[k].kind_name(), ", expected a tensor");
        outs[k].push_back(std::move(res[k]));
      }
    }
    for (size_t k = 0; k < outs.size(); ++k) {
      DataType t = out_types_[k];
      if (!outs[k].empty()) t = outs[k][0].tensor().dtype();
      ctx.set_output(k, Value::sequence(std::move(outs[k]), t));
    }
  }

 private:
  const ep::SubgraphRunner& body_;
  std::vector<DataType> out_types_;
};

}  // namespace

void register_sequence_map(ep::KernelRegistry& r) {
  // Sequence inputs carry no tensor type to check; tensor inputs may be any type.
  r.add<SequenceMapKernel>({"", "SequenceMap", 17, ep::kOpsetMax,
                            {ep::TypeConstraint{"V", {1}, sequence_elem_types(), true}}});
}

}  // namespace tessera::cpu::seq
