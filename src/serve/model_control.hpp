// How the set of served models may change while the server runs
// (--model-control-mode, as Triton's option of the same name):
//
//   none      every model of the repository loads at start, and stays; the
//             repository API's load and unload are refused.
//   poll      every model loads at start, and the repository folder is read
//             again every --repository-poll-secs (ModelRepository::poll);
//             the repository API's load and unload work too.
//   explicit  only the models named by --load-model (or every one, for "*")
//             load at start; the repository API's load and unload are the
//             only way to change what is served.
#pragma once
#include <optional>
#include <string>

namespace tessera::serve {

enum class ModelControl { kNone, kPoll, kExplicit };

// "none", "poll" or "explicit"; nothing for any other text.
inline std::optional<ModelControl> parse_model_control(const std::string& text) {
  if (text == "none") return ModelControl::kNone;
  if (text == "poll") return ModelControl::kPoll;
  if (text == "explicit") return ModelControl::kExplicit;
  return std::nullopt;
}

inline const char* model_control_name(ModelControl mode) {
  switch (mode) {
    case ModelControl::kPoll:
      return "poll";
    case ModelControl::kExplicit:
      return "explicit";
    case ModelControl::kNone:
      break;
  }
  return "none";
}

}  // namespace tessera::serve
