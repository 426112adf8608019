// `tessera test`: runs ONNX backend-test cases and checks the result against
// an optional expected-failures list (the conformance ratchet).
#include <iostream>
#include <set>

#include "cli_args.hpp"
#include "commands.hpp"
#include "test_runner.hpp"

namespace tessera::cli {

namespace {

// Compares what failed with what was expected to; prints each surprise.
// Only cases that ran count: a listed case outside --filter is not a surprise.
bool ratchet_holds(const std::vector<CaseResult>& results,
                   const std::map<std::string, ExpectedFailure>& expected,
                   const std::string& file) {
  bool ok = true;
  size_t failed_as_expected = 0, passed_by_chance = 0;
  for (const auto& r : results) {
    bool failed = r.status != CaseResult::Status::kPass;
    const auto it = expected.find(r.name);
    bool listed = it != expected.end();
    if (!failed && listed && it->second.may_pass) {
      ++passed_by_chance;  // listed with '?': a random case that matched this time
    } else if (failed && !listed) {
      std::cout << "UNEXPECTED FAILURE " << r.name << " (not in " << file << "): " << r.message
                << "\n";
      ok = false;
    } else if (!failed && listed) {
      std::cout << "NEWLY PASSING " << r.name << " (listed in " << file
                << "; remove it from the list)\n";
      ok = false;
    } else if (failed) {
      ++failed_as_expected;
    }
  }
  std::cout << "expected failures: " << failed_as_expected << " failed as listed in " << file;
  if (passed_by_chance) std::cout << ", " << passed_by_chance << " listed as may-pass passed";
  std::cout << (ok ? "; no surprises" : "; the list does not match (see above)") << "\n";
  return ok;
}

// Keeps a case on one readable line; --json has the whole message.
std::string console_text(const std::string& message) {
  constexpr size_t kMax = 1000;
  if (message.size() <= kMax) return message;
  return str_cat(message.substr(0, kMax), " ... (", message.size() - kMax,
                 " more characters; the --json report has all of it)");
}

}  // namespace

int cmd_test(const std::vector<std::string>& argv) {
  Args args("test", argv,
            {"--json", "--expected-failures", "--filter", "--providers", "--threads", "--timeout",
             "--rtol", "--atol", "--opt-level", "--provider-library", "--config", "--repeat"},
            {"--verbose", "--help"});
  if (args.has("--help")) {
    print_usage(std::cout);
    return 0;
  }
  if (args.positional().empty()) throw UsageError("tessera test needs at least one DIR");

  RunnerOptions options;
  options.session = session_options_from(args);
  options.session.log_severity_level = 3;  // warnings would drown the PASS/FAIL lines
  if (auto p = args.get("--providers")) options.providers = parse_providers(*p);
  // A plugin goes first: every case runs with it, the CPU taking the rest.
  add_provider_libraries(args, options.providers);
  options.timeout_seconds = args.get_double("--timeout", 60);
  options.repeat = args.get_int("--repeat", 1, 1);
  if (options.repeat > 100) throw UsageError("--repeat takes 1 to 100 runs");
  options.tolerance.rtol = args.get_double("--rtol", options.tolerance.rtol);
  options.tolerance.atol = args.get_double("--atol", options.tolerance.atol);
  const bool verbose = args.has("--verbose");

  // Read the list before running so a bad path fails at once, not after the suite.
  std::map<std::string, ExpectedFailure> expected;
  auto expected_file = args.get("--expected-failures");
  if (expected_file) expected = read_expected_failures(*expected_file);

  std::vector<TestCase> cases;
  try {
    cases = discover_cases(args.positional());
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  auto filters = args.all("--filter");
  if (!filters.empty()) {
    std::vector<TestCase> kept;
    for (auto& c : cases)
      for (const auto& f : filters)
        if (c.name.find(f) != std::string::npos) {
          kept.push_back(c);
          break;
        }
    cases = std::move(kept);
  }

  std::vector<CaseResult> results;
  size_t passed = 0, failed = 0;
  for (const auto& c : cases) {
    CaseResult r = run_case(c, options);
    if (r.status == CaseResult::Status::kPass) {
      ++passed;
      std::cout << "PASS " << r.name;
    } else {
      ++failed;
      std::cout << status_name(r.status) << " " << r.name << ": " << console_text(r.message);
    }
    if (verbose) std::cout << "  (" << r.seconds << " s, " << c.dir << ")";
    std::cout << std::endl;  // flush per case: a crash or hang still shows what ran
    results.push_back(std::move(r));
  }

  if (auto json = args.get("--json")) write_json_report(*json, results);
  bool ok = failed == 0;
  if (expected_file) ok = ratchet_holds(results, expected, *expected_file);
  std::cout << passed << " passed, " << failed << " failed" << std::endl;
  return ok ? 0 : 1;
}

}  // namespace tessera::cli
