// Command registry for the `weir` binary. Each cli/*.cc file registers its commands with
// WEIR_REGISTER_COMMAND; main() dispatches on the first one or two words ("parquet cat").
// cli/ is the only code that prints to the terminal or exits the process.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace weir::cli {

// A command receives the arguments after its name. It returns the process exit status:
// 0 success, 1 "found problems" (e.g. validate), 2 errors (bad usage or a failed operation).
using CommandFn = int (*)(const std::vector<std::string>& args);

struct Command {
  std::string name;     // "parquet cat"
  std::string summary;  // one line for `weir --help`
  CommandFn run;
};

class CommandRegistry {
 public:
  static CommandRegistry& Instance();
  void Add(Command command);
  const std::vector<Command>& commands() const { return commands_; }

 private:
  std::vector<Command> commands_;
};

struct CommandRegistration {
  CommandRegistration(std::string name, std::string summary, CommandFn fn) {
    CommandRegistry::Instance().Add({std::move(name), std::move(summary), fn});
  }
};

}  // namespace weir::cli

#define WEIR_REGISTER_COMMAND(var, name, summary, fn) \
  static ::weir::cli::CommandRegistration var(name, summary, fn)
