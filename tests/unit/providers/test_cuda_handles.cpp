// The CUDA provider's library handles (cuDNN, cuBLASLt) as kernels lease
// them through Scratch. Needs a CUDA device; without one it is skipped and
// says why. This file sees the CUDA headers (CMakeLists.txt), as the
// provider's own files do.
#include <memory>

#include "providers/cuda/cuda_kernel.hpp"
#include "providers/cuda/cuda_options.hpp"
#include "providers/cuda/cuda_transfer.hpp"
#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

// Kernels queued on one stream reuse one library handle (a run needs one per
// thread queueing at once, not one per kernel call); a handle idle on one
// stream is not lent to another stream before that stream's wait.
TEST(CudaHandles, KernelsOnOneStreamShareALibraryHandle) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  auto env = std::make_shared<cuda::CudaEnv>(cuda::CudaOptions{}, 0);
  cuda::CudaStream stream(0), other(0);
  const void* first = nullptr;
  {
    cuda::Scratch call(nullptr, &stream);
    first = call.cudnn(*env).get();
  }
  {
    cuda::Scratch call(nullptr, &stream);
    EXPECT_EQ(call.cudnn(*env).get(), first) << "the stream's idle handle is reused";
    cuda::Scratch concurrent(nullptr, &stream);  // another thread of the same run
    EXPECT_NE(concurrent.cudnn(*env).get(), first) << "a handle in use is not shared";
  }
  {
    cuda::Scratch call(nullptr, &other);
    EXPECT_NE(call.cudnn(*env).get(), first) << "lent to another stream before the wait";
  }
  stream.synchronize();  // the stream's handles go back to the pool
  other.synchronize();
  {
    cuda::Scratch call(nullptr, &other);
    auto lease = call.cudnn(*env);
    EXPECT_NE(lease.get(), nullptr);
  }
  // cuBLASLt handles follow the same rule, from their own pool.
  const void* lt = nullptr;
  {
    cuda::Scratch call(nullptr, &stream);
    lt = call.cublaslt(*env).get();
  }
  {
    cuda::Scratch call(nullptr, &stream);
    EXPECT_EQ(call.cublaslt(*env).get(), lt);
  }
}
