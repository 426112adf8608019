// The native session under tessera.InferenceSession (shared with the IO
// binding's bindings).
#pragma once
#include <pybind11/pybind11.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "options.hpp"
#include "runtime/session.hpp"

namespace tessera::python {
namespace py = pybind11;

using ProviderList = std::vector<std::pair<std::string, std::map<std::string, std::string>>>;

class PySession {
 public:
  // `options_from_metadata`, when not None, is called with the model's
  // metadata_props (a dict) once the model is loaded and may return other
  // options to create the session with (None keeps `options`).
  PySession(const py::object& model, const PySessionOptions& options, const ProviderList& providers,
            const py::object& options_from_metadata = py::none());
  std::vector<Value> run(const std::vector<std::pair<std::string, Value>>& feeds,
                         const std::vector<std::string>& output_names,
                         const PyRunOptions* run_options) const;
  py::dict modelmeta() const;
  std::map<std::string, std::map<std::string, std::string>> provider_options() const;

  const Session& session() const { return *session_; }
  std::string end_profiling() { return session_->end_profiling(); }
  int64_t profiling_start_ns() const { return start_ns_; }

 private:
  std::unique_ptr<Session> session_;
  int64_t start_ns_ = 0;
};

}  // namespace tessera::python
