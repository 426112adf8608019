// The model repository, laid out like Triton's:
//
//   DIR/<model>/config.json          optional (model_config.hpp)
//   DIR/<model>/<version>/model.onnx  <version> a number; requests without a
//                                     version go to the highest loaded one
//
// Every model is loaded at start; one that fails is kept with its reason (in
// the log, the repository index and model readiness) while the others serve.
// Loads and unloads swap whole models under a lock; a request holds its
// model (shared_ptr) for its run, so an unload never pulls a session from
// under a run in progress.
//
// poll() brings the served models in line with the folder: new models and
// versions are loaded, versions whose model.onnx changed (or all of a
// model's, when its config.json changed) are loaded again and swapped in,
// and models and versions whose folders are gone are unloaded. A file is
// changed when its modification time, size or inode is; a replacement that
// fails to load leaves the version it would replace serving. A change is
// acted on once the folder reads the same on two polls in a row, so a file
// still being written (copied in place rather than renamed in) is not read
// half-written.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "serve/model_config.hpp"
#include "serve/model_control.hpp"
#include "serve/model_stats.hpp"
#include "tessera/tessera.hpp"

namespace tessera::serve {

// An input or output as the model declares it (-1 for a dynamic dimension).
struct TensorSpec {
  std::string name;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  // -1 for a dynamic dimension; requests are checked against it (after a
  // config's "input" entry fixes dims the model leaves dynamic).
  std::vector<int64_t> shape;
};

class Batcher;

struct LoadedModel {
  LoadedModel();
  ~LoadedModel();  // the batcher first, then the session it runs
  std::string name;
  std::string version;
  ModelConfig config;
  std::unique_ptr<api::Session> session;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::unique_ptr<Batcher> batcher;  // with dynamic batching only
  // Requests admitted and not yet answered (config.max_queue_size bounds it).
  mutable std::atomic<int64_t> in_flight{0};
  // The statistics extension's figures of this load of the version.
  mutable ModelStats stats;
};

// One version of one model as the index reports it.
struct IndexEntry {
  std::string name;
  std::string version;  // "" when the model folder has no usable version
  std::string state;    // READY or UNAVAILABLE
  std::string reason;   // why it is unavailable ("unloaded", the load error)
};

class ModelRepository {
 public:
  // `control` decides whether load() and unload() may be asked for
  // (model_control.hpp).
  ModelRepository(api::Env& env, std::string root, ModelControl control = ModelControl::kNone);

  // Scans the repository and loads every model found.
  void load_all();
  // The repository API's load: (re)loads one model from its folder; throws
  // ServeError: 404 when the repository has no such folder, 400 with the
  // load error when it fails, and kFailedPrecondition when the model control
  // mode is none.
  void load(const std::string& name);
  // The repository API's unload: unloads a model (its runs in progress
  // finish); 404 when unknown, kFailedPrecondition in model control mode none.
  void unload(const std::string& name);
  // Whether the repository has a model folder of that name.
  bool has_folder(const std::string& name) const;
  // Reads the repository folder again and loads, reloads and unloads what
  // changed since the last load or poll (above). Models unloaded on request
  // are left alone while their folder exists.
  void poll();

  // The model to serve for `version` ("" for the highest loaded); throws
  // ServeError 404 for an unknown model or version, 503 for one that is not
  // loaded (with the reason).
  std::shared_ptr<const LoadedModel> find(const std::string& name,
                                          const std::string& version) const;
  // Whether that model (version) is loaded; throws ServeError 404 if unknown.
  bool ready(const std::string& name, const std::string& version) const;
  // Every model version known, sorted by name then version, and each model
  // folder of the repository that was never loaded (version "", state
  // UNAVAILABLE, reason "not loaded").
  std::vector<IndexEntry> index() const;
  // True when every model not unloaded on request is loaded.
  bool all_ready() const;
  // Every loaded model version.
  std::vector<std::shared_ptr<const LoadedModel>> loaded() const;
  // The loaded versions of `name` ("": of every model), or only `version`
  // when given; throws as find() does for an unknown model or version, or a
  // named model with no version loaded.
  std::vector<std::shared_ptr<const LoadedModel>> loaded(const std::string& name,
                                                         const std::string& version) const;
  // The versions known for `name`, in ascending order.
  std::vector<std::string> versions(const std::string& name) const;

 private:
  // What tells a file's versions apart.
  struct FileStamp {
    bool exists = false;
    int64_t mtime_ns = 0;
    int64_t size = 0;
    uint64_t inode = 0;
    bool operator==(const FileStamp&) const = default;
  };
  // A model folder as it was read: its config.json and each version's
  // model.onnx, ascending by version number.
  struct FolderScan {
    FileStamp config;
    std::vector<std::pair<std::string, FileStamp>> versions;
    bool operator==(const FolderScan&) const = default;
  };
  struct VersionSlot {
    std::string version;
    std::shared_ptr<const LoadedModel> model;  // null when not loaded
    std::string reason;
    FileStamp file;  // the model.onnx last read for it
  };
  struct ModelSlot {
    std::vector<VersionSlot> versions;  // ascending by number
    std::string reason;                 // set when the folder itself is unusable
    bool unloaded = false;              // unloaded on request
    FolderScan scan;                    // the folder as last read
  };

  // The stamp of the file at `path` (exists: false when it cannot be read).
  static FileStamp stamp(const std::string& path);
  std::vector<std::string> model_names() const;  // the model folders, sorted
  FolderScan scan_folder(const std::string& name) const;
  VersionSlot load_version(const std::string& name, const std::string& version,
                           const ModelConfig& config, const FileStamp& file) const;
  ModelSlot load_folder(const std::string& name) const;
  // `old` brought in line with `now`: what did not change is kept.
  ModelSlot reload_folder(const std::string& name, const ModelSlot& old,
                          const FolderScan& now) const;
  // Puts `slot` in place of `name`'s, and returns what it replaced, to be
  // released after the lock (a model's release may wait for its batch).
  ModelSlot replace(const std::string& name, ModelSlot slot);
  const ModelSlot& slot(const std::string& name) const;  // caller holds mutex_
  // ServeError kFailedPrecondition naming `what` when the control mode
  // refuses the repository API.
  void check_api_allowed(const std::string& what, const std::string& name) const;

  api::Env& env_;
  std::string root_;
  ModelControl control_;
  // Held through every load, reload and unload, so that they apply in turn;
  // requests take only mutex_.
  std::mutex load_mutex_;
  // Folders that changed at the last poll, as read then (under load_mutex_).
  std::map<std::string, FolderScan> settling_;
  mutable std::mutex mutex_;
  std::map<std::string, ModelSlot> models_;
};

}  // namespace tessera::serve
