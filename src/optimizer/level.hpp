// How far the graph optimizer goes. Each level includes the ones below it;
// the values are ONNX Runtime's (SessionOptions and its C API take them).
#pragma once

namespace tessera {

enum class GraphOptimizationLevel { kDisableAll = 0, kBasic = 1, kExtended = 2, kAll = 99 };

}  // namespace tessera
