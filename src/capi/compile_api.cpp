// The compile table (GetCompileApi). ONNX Runtime's compile step writes a
// model in which providers that compile ahead of time have replaced the parts
// they took by EPContext nodes. No Tessera provider compiles ahead of time,
// so a compiled model is what remains of that step without them: the input
// model optimized at the options' level, saved as a session saves its
// optimized model (Session::create with an optimized model path), which is
// also what the Python package's ModelCompiler writes (docs/python.md).
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "capi/api_status.hpp"
#include "capi/handles.hpp"

// What CompileModel is asked to do: the session options it creates the
// session with, one input and at most one output.
struct OrtModelCompilationOptions {
  const OrtEnv* env = nullptr;
  OrtSessionOptions session;
  // The input: exactly one of a path, bytes (the application's, which must
  // stay alive until CompileModel) or an editor model.
  std::string input_path;
  const void* input_data = nullptr;
  size_t input_size = 0;
  const OrtModel* input_model = nullptr;
  // The output: a path, a buffer from an allocator, or a write function; with
  // none, a path derived from the input's.
  std::string output_path;
  OrtAllocator* buffer_allocator = nullptr;
  void** buffer = nullptr;
  size_t* buffer_size = nullptr;
  OrtWriteBufferFunc write_func = nullptr;
  void* write_state = nullptr;
  std::string external_file;
  size_t external_threshold = 1024;
  uint32_t flags = OrtCompileApiFlags_NONE;
  // Kept for the EPContext nodes a provider would write; Tessera's write none.
  bool embed_ep_context = false;
  std::string ep_context_directory, ep_context_model_name;

  void clear_input() {
    input_path.clear();
    input_data = nullptr;
    input_size = 0;
    input_model = nullptr;
  }
  void clear_output() {
    output_path.clear();
    buffer_allocator = nullptr;
    buffer = nullptr;
    buffer_size = nullptr;
    write_func = nullptr;
    write_state = nullptr;
  }
};

namespace tessera::capi {

extern const OrtCompileApi kOrtCompileApi;  // the generated table

// Entries of the main table that compiling goes through.
OrtStatus* ORT_API_CALL SetSessionGraphOptimizationLevel(
    OrtSessionOptions* options, ::GraphOptimizationLevel graph_optimization_level) noexcept;
OrtStatus* ORT_API_CALL CreateSession(const OrtEnv* env, const ORTCHAR_T* model_path,
                                      const OrtSessionOptions* options, OrtSession** out) noexcept;
OrtStatus* ORT_API_CALL CreateSessionFromArray(const OrtEnv* env, const void* model_data,
                                               size_t model_data_length,
                                               const OrtSessionOptions* options,
                                               OrtSession** out) noexcept;
OrtStatus* ORT_API_CALL CreateSessionFromModel(const OrtEnv* env, const OrtModel* model,
                                               const OrtSessionOptions* options,
                                               OrtSession** out) noexcept;
void ORT_API_CALL ReleaseSession(OrtSession* input) noexcept;

namespace {

OrtModelCompilationOptions& compile_opts(OrtModelCompilationOptions* o) {
  need(o, "model_compile_options");
  return *o;
}

// A status from an entry compiling called, its message prefixed with the
// compile entry's name so the application sees where it came from.
OrtStatus* rename(OrtStatus* s, const char* entry) {
  if (s != nullptr) s->message = std::string(entry) + ": " + s->message;
  return s;
}

// The path written when no output was set: the input's, with "_ctx.onnx"
// in place of its extension (ONNX Runtime's choice).
std::string derived_output_path(const std::string& input) {
  std::filesystem::path p(input);
  p.replace_extension();
  return p.string() + "_ctx.onnx";
}

// A folder of its own under the system's temporary folder, removed when the
// object goes: a model compiled to memory is written there first.
class TempFolder {
 public:
  TempFolder() {
    std::random_device rd;
    const auto base = std::filesystem::temp_directory_path();
    for (int attempt = 0; attempt < 16; ++attempt) {
      auto p = base / ("tessera_compile_" + std::to_string(rd()));
      if (std::filesystem::create_directory(p)) {
        path_ = p;
        return;
      }
    }
    fail(ErrorCode::kFail, "could not create a temporary folder under ", base.string(),
         " for the compiled model");
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::vector<char> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  check(in.good(), "could not read the compiled model back from ", p.string());
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

// Which input was set; fails unless exactly one was.
void check_input(const OrtModelCompilationOptions& o) {
  const int inputs = (o.input_path.empty() ? 0 : 1) + (o.input_data != nullptr ? 1 : 0) +
                     (o.input_model != nullptr ? 1 : 0);
  check(inputs == 1,
        "the input model must be set by exactly one of ModelCompilationOptions_SetInputModelPath, "
        "_SetInputModelFromBuffer and _SetInputModel");
  if (!o.input_path.empty())
    check(std::filesystem::exists(o.input_path), "the input model '", o.input_path,
          "' does not exist");
  if (o.input_model != nullptr)
    check(o.input_model->graph != nullptr,
          "the input OrtModel has no graph (AddGraphToModel adds one)");
}

// Creates (and drops) the session whose optimized model is the compiled
// model, written to `path`.
OrtStatus* save_optimized(const OrtModelCompilationOptions& o, const std::string& path,
                          const char* entry) {
  OrtSessionOptions options = o.session;
  options.options.optimized_model_filepath = path;
  if (!o.external_file.empty()) {
    options.options.config_entries["session.optimized_model_external_initializers_file_name"] =
        o.external_file;
    options.options
        .config_entries["session.optimized_model_external_initializers_min_size_in_bytes"] =
        std::to_string(o.external_threshold);
  }
  OrtSession* session = nullptr;
  OrtStatus* s = nullptr;
  if (!o.input_path.empty())
    s = CreateSession(o.env, o.input_path.c_str(), &options, &session);
  else if (o.input_data != nullptr)
    s = CreateSessionFromArray(o.env, o.input_data, o.input_size, &options, &session);
  else
    s = CreateSessionFromModel(o.env, o.input_model, &options, &session);
  ReleaseSession(session);
  return rename(s, entry);
}

}  // namespace

const OrtCompileApi* ORT_API_CALL GetCompileApi() noexcept { return &kOrtCompileApi; }

void ORT_API_CALL ReleaseModelCompilationOptions(OrtModelCompilationOptions* input) noexcept {
  delete input;
}

OrtStatus* ORT_API_CALL CreateModelCompilationOptionsFromSessionOptions(
    const OrtEnv* env, const OrtSessionOptions* session_options,
    OrtModelCompilationOptions** out) noexcept {
  return guard("CreateModelCompilationOptionsFromSessionOptions", [&] {
    need(out, "out");
    *out = nullptr;
    need(env, "env");
    need(session_options, "session_options");
    auto o = std::make_unique<OrtModelCompilationOptions>();
    o->env = env;
    o->session = *session_options;
    // Compiling starts from the unoptimized graph unless the application
    // asks for a level (ModelCompilationOptions_SetGraphOptimizationLevel).
    o->session.options.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
    *out = o.release();
  });
}

OrtStatus* ORT_API_CALL ModelCompilationOptions_SetInputModelPath(
    OrtModelCompilationOptions* model_compile_options, const ORTCHAR_T* input_model_path) noexcept {
  return guard("ModelCompilationOptions_SetInputModelPath", [&] {
    auto& o = compile_opts(model_compile_options);
    need(input_model_path, "input_model_path");
    check(input_model_path[0] != '\0', "input_model_path is empty");
    o.clear_input();
    o.input_path = input_model_path;
  });
}

OrtStatus* ORT_API_CALL ModelCompilationOptions_SetInputModelFromBuffer(
    OrtModelCompilationOptions* model_compile_options, const void* input_model_data,
    size_t input_model_data_size) noexcept {
  return guard("ModelCompilationOptions_SetInputModelFromBuffer", [&] {
    auto& o = compile_opts(model_compile_options);
    need(input_model_data, "input_model_data");
    check(input_model_data_size > 0, "input_model_data_size is 0");
    o.clear_input();
    o.input_data = input_model_data;
    o.input_size = input_model_data_size;
  });
}

OrtStatus* ORT_API_CALL ModelCompilationOptions_SetInputModel(
    OrtModelCompilationOptions* model_compile_options, const OrtModel* model) noexcept {
  return guard("ModelCompilationOptions_SetInputModel", [&] {
    auto& o = compile_opts(model_compile_options);
    need(model, "model");
    o.clear_input();
    o.input_model = model;
  });
}

OrtStatus* ORT_API_CALL
ModelCompilationOptions_SetOutputModelPath(OrtModelCompilationOptions* model_compile_options,
                                           const ORTCHAR_T* output_model_path) noexcept {
  return guard("ModelCompilationOptions_SetOutputModelPath", [&] {
    auto& o = compile_opts(model_compile_options);
    need(output_model_path, "output_model_path");
    check(output_model_path[0] != '\0', "output_model_path is empty");
    o.clear_output();
    o.output_path = output_model_path;
  });
}

OrtStatus* ORT_API_CALL ModelCompilationOptions_SetOutputModelBuffer(
    OrtModelCompilationOptions* model_compile_options, OrtAllocator* allocator,
    void** output_model_buffer_ptr, size_t* output_model_buffer_size_ptr) noexcept {
  return guard("ModelCompilationOptions_SetOutputModelBuffer", [&] {
    auto& o = compile_opts(model_compile_options);
    need(allocator, "allocator");
    need(output_model_buffer_ptr, "output_model_buffer_ptr");
    need(output_model_buffer_size_ptr, "output_model_buffer_size_ptr");
    o.clear_output();
    o.buffer_allocator = allocator;
    o.buffer = output_model_buffer_ptr;
    o.buffer_size = output_model_buffer_size_ptr;
  });
}

OrtStatus* ORT_API_CALL ModelCompilationOptions_SetOutputModelWriteFunc(
    OrtModelCompilationOptions* model_compile_options, OrtWriteBufferFunc write_func,
    void* state) noexcept {
  return guard("ModelCompilationOptions_SetOutputModelWriteFunc", [&] {
    auto& o = compile_opts(model_compile_options);
    need(reinterpret_cast<const void*>(write_func), "write_func");
    o.clear_output();
    o.write_func = write_func;
    o.write_state = state;
  });
}

OrtStatus* ORT_API_CALL ModelCompilationOptions_SetOutputModelExternalInitializersFile(
    OrtModelCompilationOptions* model_compile_options,
    const ORTCHAR_T* external_initializers_file_path,
    size_t external_initializers_size_threshold) noexcept {
  return guard("ModelCompilationOptions_SetOutputModelExternalInitializersFile", [&] {
    auto& o = compile_opts(model_compile_options);
    need(external_initializers_file_path, "external_initializers_file_path");
    check(external_initializers_file_path[0] != '\0', "external_initializers_file_path is empty");
    o.external_file = external_initializers_file_path;
    o.external_threshold = external_initializers_size_threshold;
  });
}

OrtStatus* ORT_API_CALL ModelCompilationOptions_SetEpContextEmbedMode(
    OrtModelCompilationOptions* model_compile_options, bool embed_ep_context_in_model) noexcept {
  return guard("ModelCompilationOptions_SetEpContextEmbedMode", [&] {
    compile_opts(model_compile_options).embed_ep_context = embed_ep_context_in_model;
  });
}

OrtStatus* ORT_API_CALL ModelCompilationOptions_SetFlags(
    OrtModelCompilationOptions* model_compile_options, uint32_t flags) noexcept {
  return guard("ModelCompilationOptions_SetFlags", [&] {
    auto& o = compile_opts(model_compile_options);
    constexpr uint32_t kKnown = OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED |
                                OrtCompileApiFlags_ERROR_IF_OUTPUT_FILE_EXISTS;
    check((flags & ~kKnown) == 0, "flags ", flags, " has bits no OrtCompileApiFlags value names (",
          flags & ~kKnown, ")");
    o.flags = flags;
  });
}

OrtStatus* ORT_API_CALL ModelCompilationOptions_SetEpContextBinaryInformation(
    OrtModelCompilationOptions* model_compile_options, const ORTCHAR_T* output_directory,
    const ORTCHAR_T* model_name) noexcept {
  return guard("ModelCompilationOptions_SetEpContextBinaryInformation", [&] {
    auto& o = compile_opts(model_compile_options);
    need(output_directory, "output_directory");
    need(model_name, "model_name");
    check(output_directory[0] != '\0' && model_name[0] != '\0',
          "output_directory and model_name must not be empty");
    o.ep_context_directory = output_directory;
    o.ep_context_model_name = model_name;
  });
}

OrtStatus* ORT_API_CALL ModelCompilationOptions_SetGraphOptimizationLevel(
    OrtModelCompilationOptions* model_compile_options,
    ::GraphOptimizationLevel graph_optimization_level) noexcept {
  if (model_compile_options == nullptr)
    return make_status(ORT_INVALID_ARGUMENT,
                       "ModelCompilationOptions_SetGraphOptimizationLevel: "
                       "model_compile_options is null");
  return rename(
      SetSessionGraphOptimizationLevel(&model_compile_options->session, graph_optimization_level),
      "ModelCompilationOptions_SetGraphOptimizationLevel");
}

OrtStatus* ORT_API_CALL ModelCompilationOptions_SetWeightlessEnabled(
    OrtModelCompilationOptions* model_compile_options, bool use_weightless) noexcept {
  if (use_weightless)
    return make_status(
        ORT_NOT_IMPLEMENTED,
        "ModelCompilationOptions_SetWeightlessEnabled: weightless compilation asks providers to "
        "compile without the weights; no Tessera provider compiles models ahead of time");
  return guard("ModelCompilationOptions_SetWeightlessEnabled",
               [&] { compile_opts(model_compile_options); });
}

OrtStatus* ORT_API_CALL CompileModel(const OrtEnv* env,
                                     const OrtModelCompilationOptions* model_options) noexcept {
  constexpr const char* kEntry = "CompileModel";
  std::string path;
  bool to_memory = false;
  OrtStatus* s = guard(kEntry, [&] {
    need(env, "env");
    need(model_options, "model_options");
    const auto& o = *model_options;
    check_input(o);
    to_memory = o.buffer != nullptr || o.write_func != nullptr;
    path = o.output_path;
    if (!to_memory && path.empty()) {
      check(!o.input_path.empty(),
            "no output was set (a path, a buffer or a write function), and none can be derived "
            "from an input model that has no path");
      path = derived_output_path(o.input_path);
    }
    if (!to_memory && (o.flags & OrtCompileApiFlags_ERROR_IF_OUTPUT_FILE_EXISTS) != 0)
      check_code(!std::filesystem::exists(path), ErrorCode::kFail, "the output model '", path,
                 "' exists already (OrtCompileApiFlags_ERROR_IF_OUTPUT_FILE_EXISTS)");
    check_code((o.flags & OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED) == 0, ErrorCode::kFail,
               "no node was compiled (OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED): no Tessera "
               "provider compiles nodes ahead of time into EPContext nodes");
    check(!to_memory || o.external_file.empty(),
          "an external initializers file needs an output model path: a model compiled to a "
          "buffer or a write function has no folder for it");
  });
  if (s != nullptr) return s;
  const auto& o = *model_options;
  if (!to_memory) return save_optimized(o, path, kEntry);

  // A model compiled to memory is written to a temporary file first and
  // read back.
  std::unique_ptr<TempFolder> folder;
  s = guard(kEntry, [&] { folder = std::make_unique<TempFolder>(); });
  if (s != nullptr) return s;
  const std::string file = (folder->path() / "compiled.onnx").string();
  if (s = save_optimized(o, file, kEntry); s != nullptr) return s;
  std::vector<char> bytes;
  s = guard(kEntry, [&] { bytes = read_file(file); });
  if (s != nullptr) return s;
  if (o.write_func != nullptr) {
    OrtStatus* w = o.write_func(o.write_state, bytes.data(), bytes.size());
    if (w != nullptr)
      w->message =
          std::string(kEntry) + ": the output model's write function failed: " + w->message;
    return w;
  }
  return guard(kEntry, [&] {
    void* p = o.buffer_allocator->Alloc(o.buffer_allocator, bytes.size());
    check_code(p != nullptr, ErrorCode::kFail, "the output buffer's allocator returned NULL for ",
               bytes.size(), " bytes");
    std::memcpy(p, bytes.data(), bytes.size());
    *o.buffer = p;
    *o.buffer_size = bytes.size();
  });
}

}  // namespace tessera::capi
