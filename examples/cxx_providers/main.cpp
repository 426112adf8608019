// Runs a model through Tessera's C++ API (tessera::api, header-only over the
// C ABI): a provider plugin registered with the environment and appended with
// options, the CPU provider last. Prints each output and checks it against a
// session that runs on the CPU provider alone; exits 1 on any error or
// mismatch.
//
//   cxx_providers MODEL PLUGIN_LIBRARY [BATCH]
//
// e.g. cxx_providers demo_transformer/model.onnx libtessera_sandbox_ep.so 2
// (inputs must be float tensors; symbolic dimensions are taken as BATCH).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tessera/tessera.hpp>
#include <vector>

namespace api = tessera::api;

namespace {

// Every input as a float tensor of deterministic values. The Value does not
// own `storage`, which must outlive it.
std::vector<api::Value> make_inputs(const api::Session& session, int64_t batch,
                                    std::vector<std::vector<float>>& storage) {
  std::vector<api::Value> inputs;
  const auto names = session.input_names();
  storage.resize(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    api::TensorInfo info = session.input_info(i);
    if (info.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT)
      throw api::Error(ORT_INVALID_ARGUMENT, "input '" + names[i] + "' is not a float tensor");
    size_t count = 1;
    for (int64_t& d : info.shape) {
      if (d < 1) d = batch;  // a symbolic dimension
      count *= static_cast<size_t>(d);
    }
    storage[i].resize(count);
    for (size_t k = 0; k < count; ++k)
      storage[i][k] = static_cast<float>(std::cos(0.21 * static_cast<double>(k) + i));
    inputs.push_back(
        api::Value::tensor(api::MemoryInfo::cpu(), storage[i].data(), count, info.shape));
  }
  return inputs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: cxx_providers MODEL PLUGIN_LIBRARY [BATCH]\n");
    return 2;
  }
  const std::string model = argv[1];
  const int64_t batch = argc > 3 ? std::atoll(argv[3]) : 2;
  try {
    api::Env env(ORT_LOGGING_LEVEL_WARNING, "cxx_providers");
    env.register_provider_library("sandbox", argv[2]);

    // Providers in priority order, each with its options; the CPU provider
    // last takes whatever the others decline.
    api::SessionOptions options;
    options.intra_op_threads(2)
        .provider("SandboxExecutionProvider", {{"fuse", "1"}, {"stream_delay_ms", "0"}})
        .provider("CPU");
    api::Session session(env, model, options);
    api::Session reference(env, model);  // the CPU provider alone

    std::vector<std::vector<float>> storage;
    std::vector<api::Value> inputs = make_inputs(session, batch, storage);
    const auto in_names = session.input_names();
    const auto out_names = session.output_names();
    auto outputs = session.run(in_names, inputs, out_names);
    auto expected = reference.run(in_names, inputs, out_names);

    size_t bad = 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::vector<float> got = outputs[i].to_vector<float>();
      const std::vector<float> want = expected[i].to_vector<float>();
      std::printf("output %s [", out_names[i].c_str());
      const auto shape = outputs[i].info().shape;
      for (size_t d = 0; d < shape.size(); ++d)
        std::printf("%s%lld", d ? ", " : "", static_cast<long long>(shape[d]));
      std::printf("]:");
      for (size_t k = 0; k < got.size() && k < 6; ++k) std::printf(" %.5f", got[k]);
      std::printf("%s\n", got.size() > 6 ? " ..." : "");
      double worst = 0;
      size_t mismatched = got.size() == want.size() ? 0 : got.size() + want.size();
      for (size_t k = 0; k < got.size() && k < want.size(); ++k) {
        const double diff = std::fabs(static_cast<double>(got[k]) - want[k]);
        worst = std::max(worst, diff);
        if (!(diff <= 1e-3 + 1e-3 * std::fabs(static_cast<double>(want[k])))) ++mismatched;
      }
      std::printf("  %zu elements, largest difference from the CPU provider alone %.3g: %s\n",
                  got.size(), worst, mismatched ? "MISMATCH" : "ok");
      bad += mismatched;
    }
    std::printf("cxx_providers: %s\n", bad ? "FAILED" : "ok");
    return bad ? 1 : 0;
  } catch (const api::Error& e) {
    std::fprintf(stderr, "cxx_providers: error %d: %s\n", static_cast<int>(e.code()), e.what());
    return 1;
  }
}
