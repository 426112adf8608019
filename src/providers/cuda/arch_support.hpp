// Which GPUs a build's kernels run on, from the CMAKE_CUDA_ARCHITECTURES list
// it was built with ("75-real;80-real;...;120-virtual", or "90"). Plain C++
// (no CUDA headers), so the rule is tested on machines without a GPU.
#pragma once

#include <string>
#include <vector>

namespace tessera::cuda {

// One entry of the list: machine code (SASS) for sm_<cc>, PTX for
// compute_<cc> (compiled by the driver at first use), or both (a plain
// number). `specific` marks "90a"-style entries, whose code runs on that
// exact architecture only.
struct BuiltArch {
  int cc = 0;  // major * 10 + minor
  bool sass = false;
  bool ptx = false;
  bool specific = false;
};

// Parses the list as CMake writes it (';' or ',' between entries); throws
// tessera::Error naming the entry it cannot read.
std::vector<BuiltArch> parse_built_archs(const std::string& list);

// How a device of compute capability `cc` (major * 10 + minor) gets kernels
// from `built`: "sm_80 machine code", "PTX compute_120, compiled by the
// driver at first use", or "" when it gets none. Machine code runs on its own
// major version at the same or a higher minor; PTX on any later device.
std::string kernels_for_device(const std::vector<BuiltArch>& built, int cc);

// The list as a reader wants it: "sm_75, sm_80, ..., PTX compute_120".
std::string describe_built_archs(const std::vector<BuiltArch>& built);

}  // namespace tessera::cuda
