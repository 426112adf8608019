// Attention's geometry (attention_plan.hpp): plain C++, tested without a GPU.
#include "providers/cuda/attention_plan.hpp"

#include <cstddef>

namespace tessera::cuda {

namespace {

std::string dims_text(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(d[i]);
  }
  return s + "]";
}

// {batch, head, sequence} strides of a [B, heads, len, dim] tensor stored
// 4-D, or 3-D as [B, len, heads * dim]; the head dim is contiguous.
void set_strides(bool four_d, int64_t heads, int64_t len, int64_t dim, int64_t* st) {
  if (four_d) {
    st[0] = heads * len * dim, st[1] = len * dim, st[2] = dim;
  } else {
    st[0] = len * heads * dim, st[1] = dim, st[2] = heads * dim;
  }
}

}  // namespace

std::string plan_attention(const std::vector<int64_t>& q, const std::vector<int64_t>& k,
                           const std::vector<int64_t>& v, const std::vector<int64_t>* mask,
                           int64_t q_heads, int64_t kv_heads, AttentionShape& s) {
  const std::string all = "Q " + dims_text(q) + ", K " + dims_text(k) + ", V " + dims_text(v);
  const size_t rank = q.size();
  if ((rank != 3 && rank != 4) || k.size() != rank || v.size() != rank)
    return all + " must all be 3-D or all 4-D";
  int64_t kd = 0;  // K's head size
  if (rank == 4) {
    s.batch = q[0], s.q_heads = q[1], s.q_len = q[2], s.head_size = q[3];
    s.kv_heads = k[1], s.kv_len = k[2], kd = k[3];
    s.v_head_size = v[3];
    if (v[1] != s.kv_heads || v[2] != s.kv_len)
      return all + ": V must have K's head count and sequence length";
  } else {
    if (q_heads <= 0 || kv_heads <= 0 || q[2] % q_heads != 0 || k[2] % kv_heads != 0 ||
        v[2] % kv_heads != 0)
      return all + " are 3-D: they need q_num_heads (" + std::to_string(q_heads) +
             ") and kv_num_heads (" + std::to_string(kv_heads) + ") that divide their hidden sizes";
    s.batch = q[0], s.q_len = q[1], s.q_heads = q_heads, s.head_size = q[2] / q_heads;
    s.kv_len = k[1], s.kv_heads = kv_heads, kd = k[2] / kv_heads;
    s.v_head_size = v[2] / kv_heads;
    if (v[1] != s.kv_len) return all + ": V must have K's sequence length";
  }
  if (k[0] != s.batch || v[0] != s.batch || kd != s.head_size || s.kv_heads <= 0 ||
      s.q_heads % s.kv_heads != 0)
    return all +
           " do not fit together (one batch size, one head size for Q and K, and query "
           "heads a multiple of key/value heads)";
  set_strides(rank == 4, s.q_heads, s.q_len, s.head_size, s.q_strides);
  set_strides(rank == 4, s.kv_heads, s.kv_len, s.head_size, s.k_strides);
  set_strides(rank == 4, s.kv_heads, s.kv_len, s.v_head_size, s.v_strides);
  set_strides(rank == 4, s.q_heads, s.q_len, s.v_head_size, s.y_strides);
  if (!mask) return "";
  // The mask right-aligned to [batch, q_heads, q_len, kv_len]: each dim 1 or
  // equal, and the last one may be shorter (the keys after it are masked).
  if (mask->empty() || mask->size() > 4)
    return "attn_mask " + dims_text(*mask) + " must have rank 1 to 4";
  int64_t md[4] = {1, 1, 1, 1};
  for (size_t d = 0; d < mask->size(); ++d) md[4 - mask->size() + d] = (*mask)[d];
  const int64_t want[4] = {s.batch, s.q_heads, s.q_len, s.kv_len};
  for (int d = 0; d < 4; ++d)
    if (md[d] != 1 && md[d] != want[d] && !(d == 3 && md[d] < want[d]))
      return "attn_mask " + dims_text(*mask) + " does not broadcast to " +
             dims_text({want[0], want[1], want[2], want[3]});
  int64_t stride = 1;
  for (int d = 3; d >= 0; --d) {
    s.mask_strides[d] = md[d] == 1 ? 0 : stride;
    stride *= md[d];
  }
  s.mask_keys = md[3] != 1 && md[3] < s.kv_len ? md[3] : INT64_MAX;
  return "";
}

}  // namespace tessera::cuda
