// Which GPUs a build's kernels run on, from its CMAKE_CUDA_ARCHITECTURES
// list: machine code within its major version, PTX on any later device.
// Plain C++: runs without a GPU.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "providers/cuda/arch_support.hpp"

using namespace tessera;
using namespace tessera::cuda;

TEST(CudaArchSupport, DefaultListCoversEveryArchitectureFromTuring) {
  const auto built = parse_built_archs(
      "75-real;80-real;86-real;89-real;90-real;100-real;110-real;120-real;120-virtual");
  EXPECT_EQ(kernels_for_device(built, 75), "sm_75 machine code");    // T4, RTX 20
  EXPECT_EQ(kernels_for_device(built, 80), "sm_80 machine code");    // A100
  EXPECT_EQ(kernels_for_device(built, 87), "sm_86 machine code");    // Orin: 8.6 code
  EXPECT_EQ(kernels_for_device(built, 89), "sm_89 machine code");    // L4, RTX 40
  EXPECT_EQ(kernels_for_device(built, 90), "sm_90 machine code");    // H100, H200
  EXPECT_EQ(kernels_for_device(built, 103), "sm_100 machine code");  // B300
  EXPECT_EQ(kernels_for_device(built, 121), "sm_120 machine code");  // DGX Spark
  EXPECT_EQ(kernels_for_device(built, 130),                          // a later GPU
            "PTX compute_120, compiled by the driver at first use");
  EXPECT_EQ(kernels_for_device(built, 70), "");  // Volta: too old
  EXPECT_EQ(describe_built_archs(built),
            "sm_75, sm_80, sm_86, sm_89, sm_90, sm_100, sm_110, sm_120, PTX compute_120");
}

TEST(CudaArchSupport, HopperOnlyBuildHasNothingForOtherFamilies) {
  // A plain number is machine code and PTX; the PTX reaches later GPUs only.
  const auto built = parse_built_archs("90");
  EXPECT_EQ(kernels_for_device(built, 90), "sm_90 machine code");
  EXPECT_EQ(kernels_for_device(built, 80), "");
  EXPECT_EQ(kernels_for_device(built, 86), "");
  EXPECT_EQ(kernels_for_device(built, 120), "PTX compute_90, compiled by the driver at first use");
  EXPECT_EQ(kernels_for_device(parse_built_archs("90-real"), 120), "");
  EXPECT_EQ(describe_built_archs(built), "sm_90, PTX compute_90");
}

TEST(CudaArchSupport, ArchitectureSpecificCodeRunsOnItsOwnArchitectureOnly) {
  const auto built = parse_built_archs("90a-real,80-real");
  EXPECT_EQ(kernels_for_device(built, 90), "sm_90a machine code");
  EXPECT_EQ(kernels_for_device(built, 100), "");
  EXPECT_EQ(kernels_for_device(built, 86), "sm_80 machine code");
}

TEST(CudaArchSupport, UnreadableEntryIsNamed) {
  for (const char* bad : {"sm_90", "90-realish", "native", "9"}) {
    try {
      parse_built_archs(std::string("80;") + bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
}
