// `tessera run`: runs a model once on given or random inputs and reports the
// outputs (and writes them as .npy files).
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <set>

#include "cli_args.hpp"
#include "commands.hpp"
#include "core/npy.hpp"
#include "runtime/session.hpp"
#include "value_format.hpp"

namespace fs = std::filesystem;

namespace tessera::cli {

namespace {

std::map<std::string, int64_t> parse_dims(const Args& args) {
  std::map<std::string, int64_t> dims;
  for (const auto& d : args.all("--dim")) {
    auto [name, value] = split_assignment(d, "--dim");
    try {
      size_t used = 0;
      long long v = std::stoll(value, &used);
      if (used == value.size() && v >= 0) {
        dims[name] = v;
        continue;
      }
    } catch (const std::exception&) {
    }
    throw UsageError(
        str_cat("--dim ", name, ": size must be a non-negative integer, got '", value, "'"));
  }
  return dims;
}

// Output names may hold characters a file name cannot ("/", ":").
std::string file_stem(const std::string& name) {
  std::string s = name.empty() ? "output" : name;
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  if (s == "." || s == "..") s = str_cat("_", s);
  return s;
}

void write_output(const fs::path& dir, const std::string& name, const Value& v) {
  if (v.is_sequence()) {  // one file per element: NAME_0.npy, NAME_1.npy, ...
    for (size_t i = 0; i < v.seq().size(); ++i)
      write_output(dir, str_cat(name, "_", i), v.seq()[i]);
    return;
  }
  if (!v.is_tensor()) {
    std::cout << "    not written: " << v.kind_name() << " values have no .npy form\n";
    return;
  }
  Tensor t = v.tensor().memory_info().host_accessible() ? v.tensor() : v.tensor().clone();
  fs::path path = dir / str_cat(file_stem(name), ".npy");
  if (!npy_supports(t.dtype())) {
    if (!is_float_type(t.dtype())) {
      std::cout << "    not written: NumPy has no dtype for " << data_type_name(t.dtype()) << "\n";
      return;
    }
    // bfloat16 / float8: said out loud, never stored under another type's name.
    Tensor f(DataType::kFloat, t.shape());
    float* d = f.mutable_data<float>();
    for (int64_t i = 0; i < t.num_elements(); ++i) d[i] = float(t.element_as_double(i));
    std::cout << "    note: NumPy has no " << data_type_name(t.dtype())
              << " dtype; written as float32\n";
    t = f;
  }
  write_npy(path.string(), t);
  std::cout << "    wrote " << path.string() << "\n";
}

}  // namespace

int cmd_run(const std::vector<std::string>& argv) {
  Args args("run", argv,
            {"--input", "--output-dir", "--providers", "--threads", "--opt-level", "--dim",
             "--seed", "--provider-library", "--config"},
            {"--help"});
  if (args.has("--help")) {
    print_usage(std::cout);
    return 0;
  }
  if (args.positional().size() != 1) throw UsageError("tessera run needs exactly one MODEL");
  const std::string model_path = args.positional()[0];
  SessionOptions options = session_options_from(args);
  std::vector<ProviderSpec> providers;
  if (auto p = args.get("--providers")) providers = parse_providers(*p);
  add_provider_libraries(args, providers);
  auto dims = parse_dims(args);
  std::mt19937_64 rng(uint64_t(args.get_int("--seed", 0, 0)));

  std::map<std::string, std::string> input_files;
  for (const auto& in : args.all("--input")) {
    auto [name, file] = split_assignment(in, "--input");
    if (!input_files.emplace(name, file).second)
      throw UsageError(str_cat("--input ", name, " given twice"));
  }

  auto t0 = std::chrono::steady_clock::now();
  auto session = Session::create(model_path, options, providers);
  auto t1 = std::chrono::steady_clock::now();

  std::set<std::string> known;
  for (const auto& in : session->inputs()) known.insert(in.name);
  for (const auto& in : session->overridable_initializers()) known.insert(in.name);
  for (const auto& [name, file] : input_files) {
    if (known.count(name)) continue;
    std::string list;
    for (const auto& in : session->inputs()) list += str_cat(list.empty() ? "" : ", ", in.name);
    fail(ErrorCode::kInvalidArgument, "--input ", name, ": the model has no input named '", name,
         "' (its inputs: ", list.empty() ? "none" : list, ")");
  }

  std::vector<std::pair<std::string, Value>> feeds;
  std::cout << "model " << model_path << "\n";
  auto feed = [&](const IoInfo& in, bool required) {
    auto it = input_files.find(in.name);
    if (it != input_files.end()) {
      Tensor t = read_npy(it->second);
      check(!in.type.is_tensor() || t.dtype() == in.type.elem_type, "--input ", in.name, ": '",
            it->second, "' holds ", data_type_name(t.dtype()), " but the input is ",
            in.type.to_string());
      std::cout << "  input  " << in.name << ": " << t.description() << " from " << it->second
                << "\n";
      feeds.emplace_back(in.name, Value(t));
    } else if (required) {
      Value v;
      try {
        v = random_value(in.type, dims, rng);
      } catch (const Error& e) {
        // Which input could not be made (a declared shape too large for memory).
        fail(e.code(), "random input '", in.name, "' (declared ", declared_type(in.type),
             "): ", e.what());
      }
      std::cout << "  input  " << in.name << ": " << describe_value(v) << " random (declared "
                << declared_type(in.type) << ")\n";
      feeds.emplace_back(in.name, std::move(v));
    }
  };
  for (const auto& in : session->inputs()) feed(in, true);
  for (const auto& in : session->overridable_initializers()) feed(in, false);

  auto t2 = std::chrono::steady_clock::now();
  std::vector<Value> outputs = session->run(feeds);
  auto t3 = std::chrono::steady_clock::now();

  auto out_dir = args.get("--output-dir");
  if (out_dir) fs::create_directories(*out_dir);
  const auto& infos = session->outputs();
  for (size_t i = 0; i < outputs.size() && i < infos.size(); ++i) {
    const Value& v = outputs[i];
    std::cout << "  output " << infos[i].name << ": " << describe_value(v) << "\n";
    if (v.is_tensor()) {
      Tensor t = v.tensor().memory_info().host_accessible() ? v.tensor() : v.tensor().clone();
      std::cout << "    " << summarize_tensor(t) << "\n";
    }
    if (out_dir) write_output(*out_dir, infos[i].name, v);
  }
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::string used;
  for (const auto& p : session->providers()) used += str_cat(used.empty() ? "" : ", ", p);
  std::cout << std::fixed << std::setprecision(3) << "session created in " << ms(t0, t1)
            << " ms (providers: " << used << "); run took " << ms(t2, t3) << " ms\n";
  return 0;
}

}  // namespace tessera::cli
