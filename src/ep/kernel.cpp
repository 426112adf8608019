#include "ep/kernel.hpp"

namespace tessera::ep {

namespace {
const ir::TypeInfo& unknown_type() {
  static const ir::TypeInfo t;
  return t;
}
DataType elem_of(const ir::TypeInfo& t) {
  if (t.kind == ir::TypeInfo::Kind::kTensor || t.kind == ir::TypeInfo::Kind::kSparseTensor)
    return t.elem_type;
  if ((t.kind == ir::TypeInfo::Kind::kSequence || t.kind == ir::TypeInfo::Kind::kOptional) &&
      t.inner)
    return elem_of(*t.inner);
  return DataType::kUndefined;
}
}  // namespace

KernelInfo::KernelInfo(const ir::Node& node, int64_t opset, std::vector<ir::TypeInfo> input_types,
                       std::vector<ir::TypeInfo> output_types,
                       std::vector<const Tensor*> constant_inputs,
                       std::function<const SubgraphRunner*(const std::string&)> subgraphs)
    : node_(node),
      opset_(opset),
      input_types_(std::move(input_types)),
      output_types_(std::move(output_types)),
      constant_inputs_(std::move(constant_inputs)),
      subgraphs_(std::move(subgraphs)) {}

DataType KernelInfo::input_type(size_t i) const { return elem_of(input_type_info(i)); }
DataType KernelInfo::output_type(size_t i) const { return elem_of(output_type_info(i)); }
const ir::TypeInfo& KernelInfo::input_type_info(size_t i) const {
  return i < input_types_.size() ? input_types_[i] : unknown_type();
}
const ir::TypeInfo& KernelInfo::output_type_info(size_t i) const {
  return i < output_types_.size() ? output_types_[i] : unknown_type();
}
const Tensor* KernelInfo::constant_input(size_t i) const {
  return i < constant_inputs_.size() ? constant_inputs_[i] : nullptr;
}

const ir::Attribute* KernelInfo::find(const std::string& name, ir::AttrType type) const {
  const ir::Attribute* a = node_.attr(name);
  if (!a) return nullptr;
  if (a->type != type)
    fail_node("attribute '", name, "' has type ", ir::attr_type_name(a->type), ", expected ",
              ir::attr_type_name(type));
  return a;
}

const ir::Attribute& KernelInfo::require(const std::string& name, ir::AttrType type) const {
  const ir::Attribute* a = find(name, type);
  if (!a) fail_node("required attribute '", name, "' is missing");
  return *a;
}

int64_t KernelInfo::attr_int(const std::string& name, int64_t def) const {
  const auto* a = find(name, ir::AttrType::kInt);
  return a ? a->i : def;
}
int64_t KernelInfo::attr_int(const std::string& name) const {
  return require(name, ir::AttrType::kInt).i;
}
float KernelInfo::attr_float(const std::string& name, float def) const {
  const auto* a = find(name, ir::AttrType::kFloat);
  return a ? a->f : def;
}
float KernelInfo::attr_float(const std::string& name) const {
  return require(name, ir::AttrType::kFloat).f;
}
std::string KernelInfo::attr_string(const std::string& name, const std::string& def) const {
  const auto* a = find(name, ir::AttrType::kString);
  return a ? a->s : def;
}
std::string KernelInfo::attr_string(const std::string& name) const {
  return require(name, ir::AttrType::kString).s;
}
std::vector<int64_t> KernelInfo::attr_ints(const std::string& name,
                                           std::vector<int64_t> def) const {
  const auto* a = find(name, ir::AttrType::kInts);
  return a ? a->ints : def;
}
std::vector<float> KernelInfo::attr_floats(const std::string& name, std::vector<float> def) const {
  const auto* a = find(name, ir::AttrType::kFloats);
  return a ? a->floats : def;
}
std::vector<std::string> KernelInfo::attr_strings(const std::string& name,
                                                  std::vector<std::string> def) const {
  const auto* a = find(name, ir::AttrType::kStrings);
  return a ? a->strings : def;
}
const Tensor* KernelInfo::attr_tensor(const std::string& name) const {
  const ir::Attribute* a = node_.attr(name);
  if (!a) return nullptr;
  if (a->type != ir::AttrType::kTensor && a->type != ir::AttrType::kSparseTensor)
    fail_node("attribute '", name, "' has type ", ir::attr_type_name(a->type), ", expected tensor");
  return &a->t;
}
const ir::Graph* KernelInfo::attr_graph(const std::string& name) const {
  const auto* a = find(name, ir::AttrType::kGraph);
  return a ? a->g.get() : nullptr;
}
const SubgraphRunner& KernelInfo::subgraph(const std::string& attr_name) const {
  const SubgraphRunner* r = subgraphs_ ? subgraphs_(attr_name) : nullptr;
  if (!r) fail_node("graph attribute '", attr_name, "' is missing");
  return *r;
}

const Tensor* KernelContext::input(size_t i) const {
  const Value* v = input_value(i);
  if (!v || v->is_none()) return nullptr;
  if (!v->is_tensor()) fail_node("input ", i, " is a ", v->kind_name(), ", expected a tensor");
  return &v->tensor();
}

const Tensor& KernelContext::required_input(size_t i) const {
  const Tensor* t = input(i);
  if (!t) fail_node("required input ", i, " is missing");
  return *t;
}

Tensor& KernelContext::output(size_t i, const Shape& shape, DataType dtype) {
  if (dtype == DataType::kUndefined) dtype = output_type(i);
  if (dtype == DataType::kUndefined)
    fail_node("output ", i, " has no known type; the kernel must pass one");
  const bool host = host_outputs_ && i < host_outputs_->size() && (*host_outputs_)[i];
  const std::shared_ptr<Allocator> cpu = host ? default_cpu_allocator() : nullptr;
  const std::shared_ptr<Allocator>& alloc = host ? cpu : allocator_;
  if (!has_output(i)) {
    scratch_ = Value(Tensor(dtype, shape, alloc));
    return scratch_.tensor();
  }
  // An output bound to a preallocated tensor (IO binding) arrives already in
  // the slot: the kernel writes into it when type, shape and memory fit.
  // Otherwise, and for every other output, the slot is empty and is allocated.
  if (outputs_[i]->is_tensor()) {
    const Tensor& t = outputs_[i]->tensor();
    const MemoryInfo& m = t.memory_info();
    const MemoryInfo& a = alloc->info();
    if (t.dtype() == dtype && t.shape() == shape &&
        (m.same_space(a) || (m.host_accessible() && a.host_accessible())))
      return outputs_[i]->tensor();
  }
  *outputs_[i] = Value(Tensor(dtype, shape, alloc));
  return outputs_[i]->tensor();
}

const std::string* KernelContext::run_config(const std::string& key) const {
  if (!run_config_) return nullptr;
  auto it = run_config_->find(key);
  return it == run_config_->end() ? nullptr : &it->second;
}

bool KernelContext::can_reuse(size_t i, size_t in, const Shape& shape) const {
  const DataType dtype = output_type(i);
  const Value* v = input_value(in);
  if (!has_output(i) || !outputs_[i]->is_none() || !donatable_ || in >= donatable_->size() ||
      !(*donatable_)[in] || !v || !v->is_tensor())
    return false;
  const Tensor& t = v->tensor();
  // The frame's slot must be the buffer's only owner: a view of it held
  // elsewhere (an Identity's or Reshape's output, a user's array) would
  // see the output's values.
  return t.dtype() == dtype && t.buffer() && t.buffer().use_count() == 1 &&
         t.byte_size() == data_type_storage_bytes(dtype, size_t(shape.num_elements())) &&
         t.memory_info().same_space(allocator_->info()) && t.memory_info().host_accessible();
}

Tensor& KernelContext::output_reusing(size_t i, size_t in, const Shape& shape) {
  if (!can_reuse(i, in, shape)) return output(i, shape);
  const Tensor& t = input_value(in)->tensor();
  *outputs_[i] = Value(Tensor(t.dtype(), shape, t.buffer(), t.byte_offset()));
  return outputs_[i]->tensor();
}

void KernelContext::set_output(size_t i, Value v) {
  if (has_output(i)) *outputs_[i] = std::move(v);
}

ThreadPool& KernelContext::thread_pool() const {
  static ThreadPool single(1);
  return pool_ ? *pool_ : single;
}

}  // namespace tessera::ep
