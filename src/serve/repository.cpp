#include "serve/repository.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

#include "serve/batcher.hpp"
#include "serve/datatype.hpp"
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

// Applies a config's "input" or "output" declarations to the model's specs;
// throws naming the tensor when one does not match the model.
void apply_overrides(std::vector<TensorSpec>& specs, const std::vector<TensorOverride>& overrides,
                     const char* kind, int64_t max_batch_size) {
  for (const auto& o : overrides) {
    TensorSpec* spec = nullptr;
    std::string known;
    for (auto& s : specs) {
      if (s.name == o.name) spec = &s;
      known += (known.empty() ? "" : ", ") + s.name;
    }
    const std::string what = std::string("config.json: ") + kind + " '" + o.name + "'";
    if (!spec)
      throw std::runtime_error(what + " is not an " + kind + " of the model (" + kind +
                               "s: " + known + ")");
    if (!o.datatype.empty() && o.datatype != protocol_datatype(spec->type))
      throw std::runtime_error(what + ": data_type " + o.datatype + ", but the model's is " +
                               protocol_datatype(spec->type));
    if (!o.has_dims) continue;
    const size_t skip = max_batch_size > 0 ? 1 : 0;
    if (spec->shape.size() < skip || o.dims.size() != spec->shape.size() - skip)
      throw std::runtime_error(
          what + ": dims has " + std::to_string(o.dims.size()) + " entries, but the model's " +
          kind + " has " + std::to_string(spec->shape.size() - std::min(skip, spec->shape.size())) +
          (skip ? " besides the batch dimension" : ""));
    for (size_t k = 0; k < o.dims.size(); ++k) {
      int64_t& dim = spec->shape[k + skip];
      const int64_t want = o.dims[k];
      if (want < 0) continue;
      if (dim >= 0 && dim != want)
        throw std::runtime_error(what + ": dims[" + std::to_string(k) + "] is " +
                                 std::to_string(want) + ", but the model fixes it at " +
                                 std::to_string(dim));
      dim = want;
    }
  }
}

void log(const std::string& line) { std::cerr << "tessera serve: " << line << std::endl; }

}  // namespace

LoadedModel::LoadedModel() = default;
LoadedModel::~LoadedModel() { batcher.reset(); }

ModelRepository::ModelRepository(api::Env& env, std::string root, ModelControl control)
    : env_(env), root_(std::move(root)), control_(control) {}

void ModelRepository::check_api_allowed(const std::string& what, const std::string& name) const {
  if (control_ != ModelControl::kNone) return;
  throw ServeError(400, ErrorCode::kFailedPrecondition,
                   "cannot " + what + " model '" + name +
                       "': the server runs with --model-control-mode none, which serves the "
                       "models loaded at start and refuses the repository API's load and "
                       "unload (start it with --model-control-mode explicit or poll)");
}

bool ModelRepository::has_folder(const std::string& name) const {
  return is_model_name(name) && fs::is_directory(fs::path(root_) / name);
}

ModelRepository::FileStamp ModelRepository::stamp(const std::string& path) {
  FileStamp s;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return s;
  s.exists = true;
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.size = static_cast<int64_t>(st.st_size);
  s.inode = static_cast<uint64_t>(st.st_ino);
  return s;
}

std::vector<std::string> ModelRepository::model_names() const {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root_, ec))
    if (e.is_directory() && is_model_name(e.path().filename().string()))
      names.push_back(e.path().filename().string());
  if (ec) throw std::runtime_error("model repository " + root_ + ": " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

ModelRepository::FolderScan ModelRepository::scan_folder(const std::string& name) const {
  FolderScan scan;
  const fs::path dir = fs::path(root_) / name;
  scan.config = stamp((dir / "config.json").string());
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory() && is_version_name(e.path().filename().string()))
      found.push_back(e.path().filename().string());
  std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) {
    return std::stoll(a) < std::stoll(b);
  });
  for (const auto& v : found)
    scan.versions.push_back({v, stamp((dir / v / "model.onnx").string())});
  return scan;
}

ModelRepository::VersionSlot ModelRepository::load_version(const std::string& name,
                                                           const std::string& v,
                                                           const ModelConfig& config,
                                                           const FileStamp& stamp) const {
  VersionSlot vs{v, nullptr, "", stamp};
  const fs::path file = fs::path(root_) / name / v / "model.onnx";
  try {
    if (!fs::exists(file)) throw std::runtime_error(file.string() + " does not exist");
    auto m = std::make_shared<LoadedModel>();
    m->name = name;
    m->version = v;
    m->config = config;
    m->session = std::make_unique<api::Session>(env_, file.string(), config.session_options());
    m->inputs = specs(*m->session, true);
    m->outputs = specs(*m->session, false);
    apply_overrides(m->inputs, config.input_overrides, "input", config.max_batch_size);
    apply_overrides(m->outputs, config.output_overrides, "output", config.max_batch_size);
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
                                    std::chrono::microseconds(config.max_queue_delay_us), m->stats,
                                    config.preferred_batch_sizes, config.instance_count);
    }
    vs.model = std::move(m);
    log("model '" + name + "' version " + v + ": loaded from " + file.string());
  } catch (const std::exception& e) {
    vs.reason = e.what();
    log("model '" + name + "' version " + v + ": failed to load: " + vs.reason);
  }
  return vs;
}

ModelRepository::ModelSlot ModelRepository::load_folder(const std::string& name) const {
  ModelSlot empty;
  return reload_folder(name, empty, scan_folder(name));
}

ModelRepository::ModelSlot ModelRepository::reload_folder(const std::string& name,
                                                          const ModelSlot& old,
                                                          const FolderScan& now) const {
  ModelSlot slot;
  slot.scan = now;
  const fs::path dir = fs::path(root_) / name;
  if (now.versions.empty()) {
    slot.reason = "no version folder (" + dir.string() + "/<number>/model.onnx)";
    log("model '" + name + "': " + slot.reason);
    return slot;
  }
  ModelConfig config;
  try {
    config = read_model_config((dir / "config.json").string());
  } catch (const std::exception& e) {
    // A config.json that no longer reads leaves what it configured serving.
    bool serving = false;
    for (const auto& v : old.versions) serving = serving || v.model != nullptr;
    if (!serving) {
      slot.reason = e.what();
      log("model '" + name + "': " + slot.reason);
      return slot;
    }
    slot.versions = old.versions;
    for (auto& v : slot.versions)
      if (v.model) v.reason = std::string("still serving; its new config.json: ") + e.what();
    log("model '" + name +
        "': its new config.json does not load; its loaded versions go on: " + e.what());
    return slot;
  }
  // Versions of a folder read before keep what they had when neither their
  // model.onnx nor the model's config.json changed.
  const bool config_changed = old.scan.config != now.config || !old.reason.empty();
  for (const auto& [v, file] : now.versions) {
    const VersionSlot* before = nullptr;
    for (const auto& o : old.versions)
      if (o.version == v) before = &o;
    if (before && !config_changed && before->file == file) {
      slot.versions.push_back(*before);
      continue;
    }
    VersionSlot vs = load_version(name, v, config, file);
    if (!vs.model && before && before->model) {
      vs.model = before->model;
      vs.reason = "still serving the model loaded before; the new one failed to load: " + vs.reason;
      log("model '" + name + "' version " + v + ": the version loaded before goes on serving");
    }
    slot.versions.push_back(std::move(vs));
  }
  for (const auto& o : old.versions) {
    bool kept = false;
    for (const auto& [v, file] : now.versions) kept = kept || v == o.version;
    if (!kept) log("model '" + name + "' version " + o.version + ": its folder is gone; unloaded");
  }
  return slot;
}

ModelRepository::ModelSlot ModelRepository::replace(const std::string& name, ModelSlot slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::swap(models_[name], slot);
  return slot;
}

void ModelRepository::load_all() {
  std::lock_guard<std::mutex> loading(load_mutex_);
  for (const auto& n : model_names()) replace(n, load_folder(n));
}

void ModelRepository::load(const std::string& name) {
  check_api_allowed("load", name);
  if (!has_folder(name))
    throw ServeError(404, "model '" + name + "' is not in the repository " + root_);
  std::lock_guard<std::mutex> loading(load_mutex_);
  ModelSlot s = load_folder(name);
  std::string failure = s.reason;
  for (const auto& v : s.versions)
    if (!v.model && failure.empty()) failure = "version " + v.version + ": " + v.reason;
  replace(name, std::move(s));
  if (!failure.empty()) throw ServeError(400, "failed to load model '" + name + "': " + failure);
}

void ModelRepository::unload(const std::string& name) {
  check_api_allowed("unload", name);
  std::lock_guard<std::mutex> loading(load_mutex_);
  std::vector<std::shared_ptr<const LoadedModel>> released;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = models_.find(name);
    if (it == models_.end()) throw ServeError(404, "unknown model '" + name + "'");
    for (auto& v : it->second.versions) {
      released.push_back(std::move(v.model));
      v.model.reset();
      v.reason = "unloaded";
    }
    it->second.unloaded = true;
  }
  log("model '" + name + "': unloaded");
}

void ModelRepository::poll() {
  std::lock_guard<std::mutex> loading(load_mutex_);
  std::vector<std::string> names;
  try {
    names = model_names();
  } catch (const std::exception& e) {
    log(std::string("polling: ") + e.what() + "; the models loaded go on serving");
    return;
  }
  std::erase_if(settling_, [&](const auto& entry) {
    return !std::binary_search(names.begin(), names.end(), entry.first);
  });
  std::vector<ModelSlot> released;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = models_.begin(); it != models_.end();) {
      if (std::binary_search(names.begin(), names.end(), it->first)) {
        ++it;
        continue;
      }
      log("model '" + it->first + "': its folder is gone; unloaded");
      released.push_back(std::move(it->second));
      it = models_.erase(it);
    }
  }
  for (const auto& name : names) {
    const FolderScan now = scan_folder(name);
    ModelSlot old;
    bool known = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = models_.find(name);
      if (it != models_.end()) {
        known = true;
        old = it->second;
      }
    }
    if (known && (old.unloaded || old.scan == now)) {
      settling_.erase(name);
      continue;
    }
    // Act on a change only when this poll reads what the last one read.
    auto settled = settling_.find(name);
    if (settled == settling_.end() || !(settled->second == now)) {
      settling_[name] = now;
      continue;
    }
    settling_.erase(settled);
    if (!known) log("model '" + name + "': new in the repository");
    released.push_back(replace(name, reload_folder(name, old, now)));
  }
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
  // Folders never loaded are listed too, so that a client of an explicit
  // server can see what it may load. A folder that cannot be read lists none.
  std::vector<std::string> folders;
  try {
    folders = model_names();
  } catch (const std::exception&) {
  }
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<IndexEntry> out;
  for (const auto& f : folders)
    if (!models_.count(f)) out.push_back({f, "", "UNAVAILABLE", "not loaded"});
  for (const auto& [name, s] : models_) {
    if (s.versions.empty()) out.push_back({name, "", "UNAVAILABLE", s.reason});
    for (const auto& v : s.versions)
      out.push_back({name, v.version, v.model ? "READY" : "UNAVAILABLE", v.reason});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const IndexEntry& a, const IndexEntry& b) { return a.name < b.name; });
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

std::vector<std::shared_ptr<const LoadedModel>> ModelRepository::loaded(
    const std::string& name, const std::string& version) const {
  if (name.empty()) return loaded();
  if (!version.empty()) return {find(name, version)};
  std::vector<std::shared_ptr<const LoadedModel>> out;
  for (auto& m : loaded())
    if (m->name == name) out.push_back(std::move(m));
  // None loaded: the unknown model's 404, or why it is not ready.
  if (out.empty()) find(name, "");
  return out;
}

std::vector<std::string> ModelRepository::versions(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& v : slot(name).versions) out.push_back(v.version);
  return out;
}

}  // namespace tessera::serve
