// The ONNX backend-test runner behind `tessera test`: finds cases (folders
// with model.onnx and test_data_set_N/{input,output}_K.pb), runs each in
// isolation and compares outputs.
#pragma once
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compare.hpp"
#include "runtime/session_options.hpp"

namespace tessera::cli {

struct TestCase {
  std::string name;  // the case folder's name
  std::string dir;
};

struct CaseResult {
  enum class Status { kPass, kFail, kError };
  std::string name;
  Status status = Status::kPass;
  std::string message;  // why it failed, one line
  double seconds = 0;
};
const char* status_name(CaseResult::Status s);  // "PASS", "FAIL", "ERROR"

struct RunnerOptions {
  SessionOptions session;
  std::vector<ProviderSpec> providers;
  Tolerance tolerance;
  double timeout_seconds = 60;
  // Runs of each data set, each compared: later runs take other paths in
  // some providers (CUDA graphs are captured on the second run of a shape
  // and replayed after).
  int repeat = 1;
};

// Each path is a case (has model.onnx) or a folder whose subfolders with
// model.onnx are cases (sorted by name). Throws kNoSuchFile for a missing
// path and kInvalidArgument for a folder with no cases.
std::vector<TestCase> discover_cases(const std::vector<std::string>& paths);

// Runs one case; never throws (errors become kError results).
CaseResult run_case(const TestCase& test_case, const RunnerOptions& options);

// One listed case: why it fails, and whether it may also pass (a case that
// draws random numbers can match its reference by chance).
struct ExpectedFailure {
  std::string reason;
  bool may_pass = false;
};

// `case_name  # reason` lines, or `case_name ?  # reason` for a case that may
// pass or fail; blank and '#' lines ignored.
std::map<std::string, ExpectedFailure> read_expected_failures(const std::string& path);

// [{"name":..., "status":..., "message":..., "seconds":...}, ...]
void write_json_report(const std::string& path, const std::vector<CaseResult>& results);

}  // namespace tessera::cli
