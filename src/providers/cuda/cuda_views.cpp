// Reshape, Flatten, Squeeze, Unsqueeze, Identity, Shape and Size on the GPU:
// the CPU provider's kernels, which only make views (the output is the
// input's device buffer under new dims) and read dims, so a reshape costs no
// copy and no launch and Shape reads no device memory. Their shape and axes
// inputs and Shape/Size's outputs are host values (ep::view_kernels).
#include "ep/view_kernels.hpp"
#include "providers/cuda/cuda_shape_ops.hpp"

namespace tessera::cuda {

namespace {

std::string check_flatten(const ep::ClaimQuery& q) {
  const int64_t axis = q.attr_int("axis", 1);
  const auto rank = q.rank(0);
  if (rank && (axis < -int64_t(*rank) || axis > int64_t(*rank)))
    return str_cat("axis ", axis, " is out of range for rank ", *rank);
  return "";
}

// Identity 14+ also passes sequences and optionals, whose static type names
// only their element type: a tensor is known by its static rank.
std::string check_identity(const ep::ClaimQuery& q) {
  if (q.opset() >= 14 && !q.rank(0))
    return "input 0 may not be a tensor (its static rank is not known); the CUDA provider "
           "passes tensors only";
  return "";
}

std::string check_unsqueeze(const ep::ClaimQuery& q) {
  if (q.opset() >= 13 && !q.has_input(1)) return "the axes input is missing";
  return "";
}

ep::ClaimCheck check_for(const std::string& op) {
  if (op == "Flatten") return check_flatten;
  if (op == "Identity") return check_identity;
  if (op == "Unsqueeze") return check_unsqueeze;
  return no_check;
}

}  // namespace

void register_cuda_views(CudaOpTable& t) {
  for (auto& e : ep::view_kernels(/*device=*/true)) {
    // Strings never live in device memory.
    for (auto& c : e.def.constraints)
      if (c.name == "T") c.allowed = kCudaAnyFixed;
    ep::ClaimCheck check = check_for(e.def.op_type);
    t.add(
        std::move(e.def),
        [f = std::move(e.factory)](const ep::KernelInfo& info, const EnvPtr&) { return f(info); },
        std::move(check));
  }
}

}  // namespace tessera::cuda
