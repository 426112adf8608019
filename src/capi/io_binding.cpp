// IO binding: inputs and outputs bound ahead of runs, in the memory the
// application chooses.
#include <cstring>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"

namespace tessera::capi {
namespace {

IoBinding& binding(OrtIoBinding* b) {
  need(b, "binding");
  return *b->binding;
}
const IoBinding& binding(const OrtIoBinding* b) {
  need(b, "binding");
  return *b->binding;
}

}  // namespace

OrtStatus* ORT_API_CALL CreateIoBinding(OrtSession* session, OrtIoBinding** out) noexcept {
  return guard("CreateIoBinding", [&] {
    need(session, "session");
    need(out, "out");
    *out = new OrtIoBinding{std::make_unique<IoBinding>(session->get())};
  });
}

void ORT_API_CALL ReleaseIoBinding(OrtIoBinding* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL BindInput(OrtIoBinding* binding_ptr, const char* name,
                                  const OrtValue* val_ptr) noexcept {
  return guard("BindInput", [&] {
    need(name, "name");
    need(val_ptr, "value");
    binding(binding_ptr).bind_input(name, val_ptr->value);
  });
}

OrtStatus* ORT_API_CALL BindOutput(OrtIoBinding* binding_ptr, const char* name,
                                   const OrtValue* val_ptr) noexcept {
  return guard("BindOutput", [&] {
    need(name, "name");
    need(val_ptr, "value");
    binding(binding_ptr).bind_output(name, val_ptr->value);
  });
}

OrtStatus* ORT_API_CALL BindOutputToDevice(OrtIoBinding* binding_ptr, const char* name,
                                           const OrtMemoryInfo* mem_info_ptr) noexcept {
  return guard("BindOutputToDevice", [&] {
    need(name, "name");
    need(mem_info_ptr, "memory info");
    binding(binding_ptr).bind_output(name, mem_info_ptr->info);
  });
}

void ORT_API_CALL ClearBoundInputs(OrtIoBinding* binding_ptr) noexcept {
  if (binding_ptr != nullptr) binding_ptr->binding->clear_inputs();
}

void ORT_API_CALL ClearBoundOutputs(OrtIoBinding* binding_ptr) noexcept {
  if (binding_ptr != nullptr) binding_ptr->binding->clear_outputs();
}

OrtStatus* ORT_API_CALL SynchronizeBoundInputs(OrtIoBinding* binding_ptr) noexcept {
  return guard("SynchronizeBoundInputs", [&] { binding(binding_ptr).synchronize_inputs(); });
}

OrtStatus* ORT_API_CALL SynchronizeBoundOutputs(OrtIoBinding* binding_ptr) noexcept {
  return guard("SynchronizeBoundOutputs", [&] { binding(binding_ptr).synchronize_outputs(); });
}

OrtStatus* ORT_API_CALL RunWithBinding(OrtSession* session, const OrtRunOptions* run_options,
                                       const OrtIoBinding* binding_ptr) noexcept {
  return guard("RunWithBinding", [&] {
    need(session, "session");
    need(binding_ptr, "binding");
    check(&binding_ptr->binding->session() == &session->get(),
          "the binding was made for another session");
    session->get().run_with_binding(*binding_ptr->binding,
                                    run_options != nullptr ? run_options->options : RunOptions{});
  });
}

OrtStatus* ORT_API_CALL GetBoundOutputNames(const OrtIoBinding* binding_ptr,
                                            OrtAllocator* allocator, char** buffer,
                                            size_t** lengths, size_t* count) noexcept {
  return guard("GetBoundOutputNames", [&] {
    need(allocator, "allocator");
    need(buffer, "buffer");
    need(lengths, "lengths");
    need(count, "count");
    const auto& names = binding(binding_ptr).output_names();
    *buffer = nullptr;
    *lengths = nullptr;
    *count = names.size();
    if (names.empty()) return;
    size_t total = 0;
    for (const auto& n : names) total += n.size();
    auto* chars = static_cast<char*>(allocator->Alloc(allocator, total == 0 ? 1 : total));
    auto* lens = static_cast<size_t*>(allocator->Alloc(allocator, names.size() * sizeof(size_t)));
    if (chars == nullptr || lens == nullptr) {
      if (chars != nullptr) allocator->Free(allocator, chars);
      if (lens != nullptr) allocator->Free(allocator, lens);
      fail(ErrorCode::kOutOfMemory, "the allocator returned null");
    }
    size_t at = 0;
    for (size_t i = 0; i < names.size(); ++i) {
      std::memcpy(chars + at, names[i].data(), names[i].size());
      lens[i] = names[i].size();
      at += names[i].size();
    }
    *buffer = chars;
    *lengths = lens;
  });
}

OrtStatus* ORT_API_CALL GetBoundOutputValues(const OrtIoBinding* binding_ptr,
                                             OrtAllocator* allocator, OrtValue*** output,
                                             size_t* output_count) noexcept {
  return guard("GetBoundOutputValues", [&] {
    need(allocator, "allocator");
    need(output, "output");
    need(output_count, "output_count");
    const auto& values = binding(binding_ptr).outputs();
    *output = nullptr;
    *output_count = values.size();
    if (values.empty()) return;
    auto** list =
        static_cast<OrtValue**>(allocator->Alloc(allocator, values.size() * sizeof(OrtValue*)));
    check_code(list != nullptr, ErrorCode::kOutOfMemory, "the allocator returned null");
    for (size_t i = 0; i < values.size(); ++i) list[i] = new OrtValue{values[i]};
    *output = list;
  });
}

}  // namespace tessera::capi
