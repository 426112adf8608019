#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/recurrent/recurrent_kernels.hpp"

namespace tessera::cpu {

namespace {

using ep::TypeConstraint;
const std::vector<DataType> kF16FD = {DataType::kFloat16, DataType::kFloat, DataType::kDouble};
const std::vector<DataType> kF16FDBF = {DataType::kFloat16, DataType::kFloat, DataType::kDouble,
                                        DataType::kBFloat16};
const std::vector<DataType> kHalfF = {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat};

// T on X, W, R, B, initial_h (, initial_c, P); T1 (int32) on sequence_lens.
std::vector<TypeConstraint> rnn_types(const std::vector<DataType>& t, bool lstm) {
  std::vector<int> ts = {0, 1, 2, 3, 5};
  if (lstm) ts.insert(ts.end(), {6, 7});
  return {{"T", ts, t}, {"T1", {4}, {DataType::kInt32}}};
}

void add_versions(ep::KernelRegistry& r, const std::string& op,
                  const std::vector<int64_t>& versions, ep::KernelFactory f, bool lstm) {
  for (size_t i = 0; i < versions.size(); ++i) {
    int64_t until = i + 1 < versions.size() ? versions[i + 1] - 1 : ep::kOpsetMax;
    r.add({"", op, versions[i], until, rnn_types(versions[i] >= 22 ? kF16FDBF : kF16FD, lstm)}, f);
  }
}

}  // namespace

void register_recurrent_kernels(ep::KernelRegistry& r) {
  add_versions(r, "RNN", {1, 7, 14, 22}, make_rnn_kernel, false);
  add_versions(r, "GRU", {1, 3, 7, 14, 22}, make_gru_kernel, false);
  add_versions(r, "LSTM", {1, 7, 14, 22}, make_lstm_kernel, true);
  r.add({"", "LinearAttention", 27, ep::kOpsetMax,
         {{"T", {0, 1, 2, 4, 5}, kHalfF}, {"S", {3}, kHalfF}}},
        make_linear_attention_kernel);
  r.add({"", "CausalConvWithState", 27, ep::kOpsetMax, {{"T", {0, 1, 2, 3}, kHalfF}}},
        make_causal_conv_with_state_kernel);
}

}  // namespace tessera::cpu
