#include "runtime/copy_tensors.hpp"

#include "runtime/environment.hpp"

namespace tessera {

namespace {

const ep::DataTransfer* find_transfer(const MemoryInfo& src, const MemoryInfo& dst) {
  static const ep::HostDataTransfer host;
  if (host.can_copy(src, dst)) return &host;
  for (const auto& p : Environment::global().provider_instances())
    if (const auto* t = p->data_transfer(); t && t->can_copy(src, dst)) return t;
  return nullptr;
}

}  // namespace

void copy_tensors(const std::vector<const Tensor*>& src, const std::vector<Tensor*>& dst,
                  ep::Stream* stream) {
  check(src.size() == dst.size(), "copy_tensors: ", src.size(), " sources but ", dst.size(),
        " destinations");
  // Batch by transfer, in first-seen order, so a provider sees all its copies at once.
  std::vector<const ep::DataTransfer*> order;
  std::vector<std::pair<std::vector<const Tensor*>, std::vector<Tensor*>>> batches;
  for (size_t i = 0; i < src.size(); ++i) {
    check(src[i] && dst[i], "copy_tensors: tensor ", i, " is null");
    const Tensor& s = *src[i];
    Tensor& d = *dst[i];
    check(s.dtype() == d.dtype() && s.shape() == d.shape(), "copy_tensors: source ", i, " (",
          s.description(), ") cannot be copied into destination ", i, " (", d.description(), ")");
    const MemoryInfo& from = s.memory_info();
    const MemoryInfo& to = d.memory_info();
    const ep::DataTransfer* t = find_transfer(from, to);
    if (!t) {
      // No provider copies this pair directly: stage through host memory.
      const ep::DataTransfer* down = find_transfer(from, cpu_memory_info());
      const ep::DataTransfer* up = find_transfer(cpu_memory_info(), to);
      if (!down || !up)
        fail(ErrorCode::kEPFail, "copy_tensors: no registered provider can copy tensor ", i,
             " from ", from.to_string(), " to ", to.to_string());
      Tensor staged(s.dtype(), s.shape());
      down->copy_tensors({&s}, {&staged}, nullptr);
      up->copy_tensors({&staged}, {&d}, nullptr);
      continue;
    }
    size_t k = 0;
    while (k < order.size() && order[k] != t) ++k;
    if (k == order.size()) {
      order.push_back(t);
      batches.emplace_back();
    }
    batches[k].first.push_back(&s);
    batches[k].second.push_back(&d);
  }
  for (size_t k = 0; k < order.size(); ++k)
    order[k]->copy_tensors(batches[k].first, batches[k].second, stream);
}

std::unique_ptr<ep::Stream> create_stream(const MemoryInfo& memory) {
  if (memory.device_type == DeviceType::kCPU) return nullptr;
  auto p = Environment::global().provider_for(memory);
  check_code(p != nullptr, ErrorCode::kEPFail, "create_stream: no registered provider serves ",
             memory.to_string());
  return p->create_stream();
}

Tensor allocate_tensor(DataType dtype, Shape shape, const MemoryInfo& memory) {
  return Tensor(dtype, std::move(shape), Environment::global().allocator(memory));
}

Tensor copy_to(const Tensor& t, const MemoryInfo& memory) {
  Tensor d = allocate_tensor(t.dtype(), t.shape(), memory);
  copy_tensors({&t}, {&d});
  return d;
}

}  // namespace tessera
