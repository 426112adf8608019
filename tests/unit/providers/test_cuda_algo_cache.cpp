// The on-disk cache of tuned cuDNN algorithms (option cudnn_conv_algo_cache):
// file format, reuse across opens, bad files. Needs no GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "providers/cuda/algo_cache.hpp"
#include "providers/cuda/cuda_provider.hpp"

using namespace tessera;
using tessera::cuda::AlgoCache;
using tessera::cuda::TunedAlgo;

namespace {

namespace fs = std::filesystem;

fs::path fresh_path(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("tessera_algo_cache_" + name);
  fs::remove(p);
  return p;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string error_of(const std::string& path) {
  try {
    AlgoCache::open(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "opened " << path;
  return "";
}

}  // namespace

TEST(CudaAlgoCache, TunedChoicesSurviveInTheFile) {
  const fs::path p = fresh_path("survive");
  {
    auto cache = AlgoCache::open(p.string());
    EXPECT_EQ(read_all(p), std::string(cuda::kAlgoCacheHeader) + "\n");
    EXPECT_FALSE(cache->find("conv|a").has_value());
    cache->put("conv|a", {1, 4096, 12.5});
    cache->put("conv|b", {6, 0, 3.0});
    // The same file opened again while in use is the same cache.
    EXPECT_EQ(AlgoCache::open(p.string()), cache);
    auto s = cache->stats();
    EXPECT_EQ(s.tuned, 2);
    EXPECT_DOUBLE_EQ(s.tune_ms, 15.5);
    EXPECT_EQ(s.from_file, 0);
  }
  // Opened anew (as by another process): read back from the file.
  auto again = AlgoCache::open(p.string());
  EXPECT_EQ(again->stats().from_file, 2);
  EXPECT_EQ(again->stats().tuned, 0);
  auto a = again->find("conv|a");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->algo, 1);
  EXPECT_EQ(a->workspace, 4096u);
  EXPECT_DOUBLE_EQ(a->tune_ms, 12.5);
  again->count_reuse();
  EXPECT_EQ(again->stats().reused, 1);
  fs::remove(p);
}

TEST(CudaAlgoCache, BadLinesAreSkippedAndTheLastLineWins) {
  const fs::path p = fresh_path("bad_lines");
  {
    std::ofstream out(p);
    out << cuda::kAlgoCacheHeader << "\n"
        << "k1\t2\t100\t1.5\n"
        << "k2\tnot-a-number\t0\t1\n"
        << "k3\t1\t-5\t1\n"
        << "k4\t1\t5\n"
        << "\n"
        << "k1\t3\t200\t2.5\n";
  }
  auto cache = AlgoCache::open(p.string());
  EXPECT_EQ(cache->stats().from_file, 2);
  ASSERT_TRUE(cache->find("k1").has_value());
  EXPECT_EQ(cache->find("k1")->algo, 3);
  EXPECT_EQ(cache->find("k1")->workspace, 200u);
  for (const char* k : {"k2", "k3", "k4"}) EXPECT_FALSE(cache->find(k).has_value()) << k;
  fs::remove(p);
}

TEST(CudaAlgoCache, AForeignOrUnwritableFileIsRefused) {
  const fs::path p = fresh_path("foreign");
  {
    std::ofstream out(p);
    out << "precious notes\n";
  }
  std::string e = error_of(p.string());
  EXPECT_NE(e.find("is not a Tessera algorithm cache"), std::string::npos) << e;
  EXPECT_NE(e.find(p.string()), std::string::npos) << e;
  EXPECT_EQ(read_all(p), "precious notes\n");  // left as it was
  fs::remove(p);
  e = error_of("/nonexistent-dir/cache.txt");
  EXPECT_NE(e.find("cannot create '/nonexistent-dir/cache.txt'"), std::string::npos) << e;
  // Through the provider's option: creating the provider fails (no GPU needed).
  {
    std::ofstream out(p);
    out << "precious notes\n";
  }
  try {
    cuda::make_cuda_provider_unchecked({{"cudnn_conv_algo_cache", p.string()}});
    ADD_FAILURE() << "a provider was made on a foreign cache file";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(err.what()).find("cudnn_conv_algo_cache"), std::string::npos);
  }
  fs::remove(p);
}

TEST(CudaAlgoCache, WithoutAPathItLivesInMemory) {
  auto a = AlgoCache::open("");
  auto b = AlgoCache::open("");
  EXPECT_NE(a, b);
  a->put("k", {1, 2, 3});
  EXPECT_TRUE(a->find("k").has_value());
  EXPECT_FALSE(b->find("k").has_value());
  EXPECT_THROW(a->put("bad\tkey", {1, 2, 3}), Error);
}
