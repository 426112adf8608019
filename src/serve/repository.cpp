#include "serve/repository.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

#include "serve/batcher.hpp"
#include "serve/serve_error.hpp"

namespace tessera::serve {
namespace fs = std::filesystem;
namespace {

bool is_version_name(const std::string& s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Folder names that can appear in a URL path segment unescaped.
bool is_model_name(const std::string& s) {
  return !s.empty() && s[0] != '.' && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

std::vector<TensorSpec> specs(const api::Session& s, bool inputs) {
  std::vector<TensorSpec> out;
  const auto names = inputs ? s.input_names() : s.output_names();
  for (size_t i = 0; i < names.size(); ++i) {
    api::TensorInfo info = inputs ? s.input_info(i) : s.output_info(i);
    out.push_back({names[i], info.type, info.shape});
  }
  return out;
}

void log(const std::string& line) { std::cerr << "tessera serve: " << line << std::endl; }

}  // namespace

LoadedModel::LoadedModel() = default;
LoadedModel::~LoadedModel() { batcher.reset(); }

ModelRepository::ModelRepository(api::Env& env, std::string root)
    : env_(env), root_(std::move(root)) {}

ModelRepository::ModelSlot ModelRepository::load_folder(const std::string& name) const {
  ModelSlot slot;
  const fs::path dir = fs::path(root_) / name;
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory() && is_version_name(e.path().filename().string()))
      found.push_back(e.path().filename().string());
  std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) {
    return std::stoll(a) < std::stoll(b);
  });
  if (found.empty()) {
    slot.reason = "no version folder (" + dir.string() + "/<number>/model.onnx)";
    log("model '" + name + "': " + slot.reason);
    return slot;
  }
  ModelConfig config;
  try {
    config = read_model_config((dir / "config.json").string());
  } catch (const std::exception& e) {
    slot.reason = e.what();
    log("model '" + name + "': " + slot.reason);
    return slot;
  }
  for (const auto& v : found) {
    VersionSlot vs{v, nullptr, ""};
    const fs::path file = dir / v / "model.onnx";
    try {
      if (!fs::exists(file)) throw std::runtime_error(file.string() + " does not exist");
      auto m = std::make_shared<LoadedModel>();
      m->name = name;
      m->version = v;
      m->config = config;
      m->session = std::make_unique<api::Session>(env_, file.string(), config.session_options());
      m->inputs = specs(*m->session, true);
      m->outputs = specs(*m->session, false);
      if (config.max_queue_delay_us >= 0) {
        for (const auto& t : m->inputs)
          if (t.shape.empty() || t.shape[0] >= 0)
            throw std::runtime_error(
                "dynamic_batching: input '" + t.name + "' " +
                (t.shape.empty() ? std::string("is a scalar")
                                 : "has the fixed first dimension " + std::to_string(t.shape[0])) +
                "; batching joins requests along a dynamic first dimension");
        m->batcher =
            std::make_unique<Batcher>(*m->session, m->inputs, m->outputs, config.max_batch_size,
                                      std::chrono::microseconds(config.max_queue_delay_us));
      }
      vs.model = std::move(m);
      log("model '" + name + "' version " + v + ": loaded from " + file.string());
    } catch (const std::exception& e) {
      vs.reason = e.what();
      log("model '" + name + "' version " + v + ": failed to load: " + vs.reason);
    }
    slot.versions.push_back(std::move(vs));
  }
  return slot;
}

void ModelRepository::load_all() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root_, ec))
    if (e.is_directory() && is_model_name(e.path().filename().string()))
      names.push_back(e.path().filename().string());
  if (ec) throw std::runtime_error("model repository " + root_ + ": " + ec.message());
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    ModelSlot s = load_folder(n);
    std::lock_guard<std::mutex> lock(mutex_);
    models_[n] = std::move(s);
  }
}

void ModelRepository::load(const std::string& name) {
  if (!is_model_name(name) || !fs::is_directory(fs::path(root_) / name))
    throw ServeError(404, "model '" + name + "' is not in the repository " + root_);
  ModelSlot s = load_folder(name);
  std::string failure = s.reason;
  for (const auto& v : s.versions)
    if (!v.model && failure.empty()) failure = "version " + v.version + ": " + v.reason;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    models_[name] = std::move(s);
  }
  if (!failure.empty()) throw ServeError(400, "failed to load model '" + name + "': " + failure);
}

void ModelRepository::unload(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = models_.find(name);
  if (it == models_.end()) throw ServeError(404, "unknown model '" + name + "'");
  for (auto& v : it->second.versions) {
    v.model.reset();
    v.reason = "unloaded";
  }
  it->second.unloaded = true;
  log("model '" + name + "': unloaded");
}

const ModelRepository::ModelSlot& ModelRepository::slot(const std::string& name) const {
  auto it = models_.find(name);
  if (it == models_.end()) throw ServeError(404, "unknown model '" + name + "'");
  return it->second;
}

std::shared_ptr<const LoadedModel> ModelRepository::find(const std::string& name,
                                                         const std::string& version) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const ModelSlot& s = slot(name);
  if (version.empty()) {
    for (auto it = s.versions.rbegin(); it != s.versions.rend(); ++it)
      if (it->model) return it->model;
    std::string why = s.reason;
    if (why.empty() && !s.versions.empty()) why = s.versions.back().reason;
    throw ServeError(503, "model '" + name + "' is not ready: " + why);
  }
  for (const auto& v : s.versions)
    if (v.version == version) {
      if (!v.model)
        throw ServeError(503,
                         "model '" + name + "' version " + version + " is not ready: " + v.reason);
      return v.model;
    }
  throw ServeError(404, "model '" + name + "' has no version " + version);
}

bool ModelRepository::ready(const std::string& name, const std::string& version) const {
  try {
    find(name, version);
    return true;
  } catch (const ServeError& e) {
    if (e.status() == 404) throw;
    return false;
  }
}

std::vector<IndexEntry> ModelRepository::index() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<IndexEntry> out;
  for (const auto& [name, s] : models_) {
    if (s.versions.empty()) out.push_back({name, "", "UNAVAILABLE", s.reason});
    for (const auto& v : s.versions)
      out.push_back({name, v.version, v.model ? "READY" : "UNAVAILABLE", v.reason});
  }
  return out;
}

bool ModelRepository::all_ready() const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [name, s] : models_) {
    if (s.unloaded) continue;
    if (s.versions.empty()) return false;
    for (const auto& v : s.versions)
      if (!v.model) return false;
  }
  return true;
}

std::vector<std::shared_ptr<const LoadedModel>> ModelRepository::loaded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<const LoadedModel>> out;
  for (const auto& [name, s] : models_)
    for (const auto& v : s.versions)
      if (v.model) out.push_back(v.model);
  return out;
}

std::vector<std::string> ModelRepository::versions(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& v : slot(name).versions) out.push_back(v.version);
  return out;
}

}  // namespace tessera::serve
