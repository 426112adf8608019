// The CUDA kernels for Transpose, Concat, Split, Slice, Gather, Expand, Where, Cast and the
// reshaping ops (being written).
#include "providers/cuda/cuda_kernel.hpp"

namespace tessera::cuda {

void register_cuda_shape_ops(CudaOpTable&) {}

}  // namespace tessera::cuda
