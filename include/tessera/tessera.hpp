// Tessera's C++ API: RAII classes over the C ABI
// (tessera/onnxruntime_c_api.h). Failed calls throw tessera::api::Error,
// which carries the OrtErrorCode and the runtime's full message. Programs
// using it link libtessera.so (CMake: find_package(Tessera), target
// Tessera::tessera; pkg-config: tessera).
//
//   tessera::api::Env env;
//   tessera::api::Session session(env, "model.onnx",
//                                 tessera::api::SessionOptions().intra_op_threads(2));
//   std::vector<float> x(3 * 224 * 224);
//   auto input = tessera::api::Value::tensor(tessera::api::MemoryInfo::cpu(), x.data(), x.size(),
//                                            {1, 3, 224, 224});
//   std::vector<tessera::api::Value> inputs;
//   inputs.push_back(std::move(input));
//   auto outputs = session.run({"input"}, inputs, session.output_names());
#pragma once

#include "tessera/cxx/base.hpp"
#include "tessera/cxx/env.hpp"
#include "tessera/cxx/session.hpp"
#include "tessera/cxx/tessera_table.hpp"
#include "tessera/cxx/type_info.hpp"
#include "tessera/cxx/value.hpp"
