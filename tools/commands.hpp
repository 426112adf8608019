// The subcommands of `tessera`. Each takes the arguments after its name and
// returns the process exit status; bad usage throws UsageError (exit 2).
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace tessera::cli {

int cmd_run(const std::vector<std::string>& argv);
int cmd_inspect(const std::vector<std::string>& argv);
int cmd_test(const std::vector<std::string>& argv);
int cmd_partition(const std::vector<std::string>& argv);
int cmd_doctor(const std::vector<std::string>& argv);
int cmd_ops(const std::vector<std::string>& argv);
int cmd_bench(const std::vector<std::string>& argv);
int cmd_serve(const std::vector<std::string>& argv);

void print_usage(std::ostream& os);

}  // namespace tessera::cli
