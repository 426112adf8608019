#include "ep/provider_modules.hpp"

#include <dlfcn.h>

#include <filesystem>

#include "core/error.hpp"

namespace tessera::ep {
namespace {

// A provider whose module could not be loaded: listed, never available.
class MissingModuleFactory : public ProviderFactory {
 public:
  MissingModuleFactory(std::string name, std::string why)
      : name_(std::move(name)), why_(std::move(why)) {}
  const std::string& name() const override { return name_; }
  bool is_available(std::string* why_not) const override {
    if (why_not != nullptr) *why_not = why_;
    return false;
  }
  std::shared_ptr<ExecutionProvider> create(const ProviderOptions&) const override {
    fail(ErrorCode::kEPFail, name_, " is not available: ", why_);
  }
  std::vector<HardwareDevice> devices() const override { return {}; }

 private:
  std::string name_, why_;
};

// The folder of the library this code is in (the core), where modules live.
std::filesystem::path own_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&load_provider_modules), &info) == 0 ||
      info.dli_fname == nullptr)
    return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}

}  // namespace

void load_provider_modules(const std::vector<ProviderModule>& modules,
                           std::vector<std::shared_ptr<ProviderFactory>>& out) {
  const std::filesystem::path folder = own_folder();
  for (const ProviderModule& m : modules) {
    const std::string path = (folder / (std::string("lib") + m.file + ".so")).string();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* err = dlerror();
      out.push_back(std::make_shared<MissingModuleFactory>(
          m.provider,
          str_cat("its module ", path, " could not be loaded: ", err != nullptr ? err : "?")));
      continue;
    }
    auto entry = reinterpret_cast<ProviderModuleEntry>(dlsym(handle, kProviderModuleEntry));
    if (entry == nullptr) {
      out.push_back(std::make_shared<MissingModuleFactory>(
          m.provider, str_cat("its module ", path, " does not export ", kProviderModuleEntry)));
      continue;
    }
    // The module stays loaded for the life of the process: its factories'
    // code lives there.
    entry(&out);
  }
}

}  // namespace tessera::ep
