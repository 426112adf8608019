// IO binding: a session's inputs and outputs bound ahead of runs, in the
// memory the application chooses. Inputs bound in the memory where their
// first consumer runs are used in place (no copy at run time); inputs bound
// in host memory are copied to the device once per run. Outputs bound to a
// memory space are left there (no copy back to the host); outputs bound to a
// preallocated tensor are written into it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/value.hpp"
#include "runtime/session.hpp"

namespace tessera {

class IoBinding {
 public:
  explicit IoBinding(const Session& session);

  // Binds a graph input (a tensor in any memory the session's providers can
  // read or copy from). Checks the name, element type and shape against the
  // model. Binding a name again replaces it.
  void bind_input(const std::string& name, const Value& value);
  // Binds a graph output to a memory space: after a run the output is there.
  // kEPFail when no provider of the session serves that memory.
  void bind_output(const std::string& name, const MemoryInfo& memory);
  // Binds a graph output to a preallocated tensor: each run writes into it.
  void bind_output(const std::string& name, const Value& preallocated);
  void clear_inputs();
  void clear_outputs();

  // Waits for copies in flight into the bound inputs / out of the outputs.
  // Runs are synchronous today (a run returns when its kernels and copies are
  // done), so these only matter once a provider copies on streams; they are
  // the points where an application may rely on the data being in place.
  void synchronize_inputs() const;
  void synchronize_outputs() const;

  // The outputs of the last run, in binding order (all graph outputs, in
  // graph order and in host memory, when none was bound).
  const std::vector<std::string>& output_names() const { return output_names_; }
  const std::vector<Value>& outputs() const { return results_; }
  // The outputs of the last run, copied to host memory where they are not.
  std::vector<Value> copy_outputs_to_cpu() const;

  // Called by Session::run_with_binding.
  void run(const RunOptions& options);
  const Session& session() const { return session_; }

 private:
  struct Output {
    std::string name;
    MemoryInfo memory;
    std::optional<Value> preallocated;
  };
  const IoInfo& find(const std::vector<IoInfo>& infos, const std::string& name,
                     const char* what) const;
  void check_tensor(const IoInfo& info, const Value& v, const char* what, bool check_shape) const;
  void bind(Output out);
  Value place_output(const Output& out, Value v) const;

  const Session& session_;
  std::vector<std::pair<std::string, Value>> inputs_;
  std::vector<Output> outputs_;
  std::vector<std::string> output_names_;
  std::vector<Value> results_;
};

}  // namespace tessera
