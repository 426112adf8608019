#include "runtime/io_binding.hpp"

#include "ep/data_transfer.hpp"
#include "runtime/copy_tensors.hpp"

namespace tessera {

namespace {

bool same_place(const MemoryInfo& a, const MemoryInfo& b) {
  return a.same_space(b) || (a.host_accessible() && b.host_accessible());
}

// Copies with the session's own providers when one can, else with the
// environment's (the same provider kinds, created with default options).
void copy(const Session& session, const Tensor& src, Tensor& dst) {
  if (const auto* t = session.data_transfer(src.memory_info(), dst.memory_info()))
    t->copy_tensors({&src}, {&dst}, nullptr);
  else
    copy_tensors({&src}, {&dst});
}

}  // namespace

IoBinding::IoBinding(const Session& session) : session_(session) {}

const IoInfo& IoBinding::find(const std::vector<IoInfo>& infos, const std::string& name,
                              const char* what) const {
  for (const auto& i : infos)
    if (i.name == name) return i;
  std::string list;
  for (const auto& i : infos) list += str_cat(list.empty() ? "" : ", ", i.name);
  fail(ErrorCode::kInvalidArgument, "IoBinding: '", name, "' is not an ", what,
       " of the model; its ", what, "s are: ", list);
}

void IoBinding::check_tensor(const IoInfo& info, const Value& v, const char* what,
                             bool check_shape) const {
  if (!info.type.is_tensor()) return;
  check(v.is_tensor(), "IoBinding: ", what, " '", info.name, "' is ", info.type.to_string(),
        " but the bound value is a ", v.kind_name());
  const Tensor& t = v.tensor();
  check(info.type.elem_type == DataType::kUndefined || t.dtype() == info.type.elem_type,
        "IoBinding: ", what, " '", info.name, "' is ", info.type.to_string(),
        " but the bound tensor is ", t.description());
  if (check_shape && info.type.shape) {
    const auto& dims = *info.type.shape;
    bool ok = dims.size() == t.rank();
    for (size_t d = 0; ok && d < dims.size(); ++d)
      ok = !dims[d].value || *dims[d].value == t.shape()[d];
    check(ok, "IoBinding: ", what, " '", info.name, "' has shape ", info.type.shape_string(),
          " but the bound tensor is ", t.description());
  }
  const MemoryInfo& m = t.memory_info();
  check_code(m.host_accessible() || session_.allocator_for(m) != nullptr, ErrorCode::kEPFail,
             "IoBinding: ", what, " '", info.name, "' is in ", m.to_string(),
             ", which no provider of this session serves");
}

void IoBinding::bind_input(const std::string& name, const Value& value) {
  const IoInfo* info = nullptr;
  for (const auto* list : {&session_.inputs(), &session_.overridable_initializers()})
    for (const auto& i : *list)
      if (i.name == name) info = &i;
  if (!info) find(session_.inputs(), name, "input");  // throws, listing the inputs
  // As in onnxruntime, an input's shape is checked by the run that reads it:
  // a binding may be filled before its shape is the one a run needs.
  check_tensor(*info, value, "input", /*check_shape=*/false);
  for (auto& [n, v] : inputs_)
    if (n == name) {
      v = value;
      return;
    }
  inputs_.emplace_back(name, value);
}

void IoBinding::bind(Output out) {
  results_.clear();
  for (auto& o : outputs_)
    if (o.name == out.name) {
      o = std::move(out);
      return;
    }
  output_names_.push_back(out.name);
  outputs_.push_back(std::move(out));
}

void IoBinding::bind_output(const std::string& name, const MemoryInfo& memory) {
  find(session_.outputs(), name, "output");
  check_code(memory.host_accessible() || session_.allocator_for(memory) != nullptr,
             ErrorCode::kEPFail, "IoBinding: output '", name, "' is bound to ", memory.to_string(),
             ", which no provider of this session serves");
  bind({name, memory, std::nullopt});
}

void IoBinding::bind_output(const std::string& name, const Value& preallocated) {
  const IoInfo& info = find(session_.outputs(), name, "output");
  check(preallocated.is_tensor(), "IoBinding: output '", name,
        "' can be bound only to a preallocated tensor, not a ", preallocated.kind_name());
  check_tensor(info, preallocated, "output", /*check_shape=*/true);
  check(preallocated.tensor().dtype() != DataType::kString ||
            preallocated.tensor().memory_info().host_accessible(),
        "IoBinding: output '", name, "': string tensors live in host memory");
  bind({name, preallocated.tensor().memory_info(), preallocated});
}

void IoBinding::clear_inputs() { inputs_.clear(); }

void IoBinding::clear_outputs() {
  outputs_.clear();
  output_names_.clear();
  results_.clear();
}

void IoBinding::synchronize_inputs() const {}
void IoBinding::synchronize_outputs() const {}

Value IoBinding::place_output(const Output& out, Value v) const {
  if (!v.is_tensor()) {
    check(!out.preallocated && out.memory.host_accessible(), "IoBinding: output '", out.name,
          "' is a ", v.kind_name(), "; only tensors can be bound to device memory");
    return v;
  }
  const Tensor& t = v.tensor();
  if (out.preallocated) {
    Tensor dst = out.preallocated->tensor();
    check(dst.dtype() == t.dtype() && dst.shape() == t.shape(), "IoBinding: output '", out.name,
          "' is ", t.description(), " in this run but the bound tensor is ", dst.description());
    if (dst.raw_data() != t.raw_data()) copy(session_, t, dst);
    return *out.preallocated;
  }
  if (same_place(t.memory_info(), out.memory)) return v;
  auto alloc = session_.allocator_for(out.memory);
  Tensor dst(t.dtype(), t.shape(), alloc ? alloc : default_cpu_allocator());
  copy(session_, t, dst);
  return Value(std::move(dst));
}

void IoBinding::run(const RunOptions& options) {
  results_.clear();
  if (outputs_.empty()) {
    results_ = session_.run(inputs_, {}, options);
    output_names_.clear();
    for (const auto& o : session_.outputs()) output_names_.push_back(o.name);
    return;
  }
  std::vector<Value> preallocated;
  for (const auto& o : outputs_) preallocated.push_back(o.preallocated ? *o.preallocated : Value());
  std::vector<Value> produced =
      session_.run_on_devices(inputs_, output_names_, options, &preallocated);
  std::vector<Value> placed;
  placed.reserve(produced.size());
  for (size_t i = 0; i < produced.size(); ++i)
    placed.push_back(place_output(outputs_[i], std::move(produced[i])));
  results_ = std::move(placed);
}

std::vector<Value> IoBinding::copy_outputs_to_cpu() const {
  std::vector<Value> out;
  for (const auto& v : results_) {
    if (!v.is_tensor() || v.tensor().memory_info().host_accessible()) {
      out.push_back(v);
      continue;
    }
    Tensor h(v.tensor().dtype(), v.tensor().shape());
    copy(session_, v.tensor(), h);
    out.push_back(Value(std::move(h)));
  }
  return out;
}

void Session::run_with_binding(IoBinding& binding, const RunOptions& run_options) const {
  check(&binding.session() == this, "run_with_binding: the IoBinding belongs to another session");
  binding.run(run_options);
}

}  // namespace tessera
