#include "providers/cpu/recurrent/rnn_common.hpp"

#include <algorithm>

namespace tessera::cpu::rnn {

RnnDims check_rnn_inputs(const ep::KernelContext& ctx, const RnnAttrs& a, int64_t gates) {
  std::vector<const Tensor*> inputs;
  for (size_t i = 0; i < 8; ++i) inputs.push_back(ctx.input(i));
  return ops::rnn::check_rnn_inputs(ctx.node(), a, gates, inputs);
}

std::vector<int64_t> sequence_lengths(const ep::KernelContext& ctx, const RnnDims& d) {
  std::vector<int64_t> lens(size_t(d.batch), d.seq);
  if (const Tensor* l = ctx.input(4)) {
    const int32_t* p = l->data<int32_t>();
    for (int64_t b = 0; b < d.batch; ++b) {
      if (p[b] < 0 || p[b] > d.seq)
        ctx.fail_node("sequence_lens[", b, "] = ", p[b], " is outside [0, ", d.seq, "]");
      lens[size_t(b)] = p[b];
    }
  }
  return lens;
}

}  // namespace tessera::cpu::rnn
