// weir: one binary for streaming Kafka / Event Hubs into Delta Lake. main() dispatches to the
// commands registered by the other cli/*.cc files.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"

namespace weir::cli {

CommandRegistry& CommandRegistry::Instance() {
  static CommandRegistry registry;
  return registry;
}

void CommandRegistry::Add(Command command) { commands_.push_back(std::move(command)); }

namespace {

void PrintUsage(FILE* out) {
  std::fprintf(out, "weir %s: stream Kafka / Azure Event Hubs into Delta Lake tables, exactly once.\n\n"
                    "usage: weir COMMAND [ARGS] (weir COMMAND --help for details)\n\ncommands:\n",
               WEIR_VERSION);
  auto commands = CommandRegistry::Instance().commands();
  std::sort(commands.begin(), commands.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  for (const auto& c : commands) {
    std::string name = c.name;
    name.resize(std::max<size_t>(name.size() + 2, 22), ' ');
    std::fprintf(out, "  %s%s\n", name.c_str(), c.summary.c_str());
  }
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    PrintUsage(args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version" || args[0] == "version") {
    std::printf("weir %s\n", WEIR_VERSION);
    return 0;
  }
  // Prefer the longest match: "parquet cat" before "parquet".
  const Command* best = nullptr;
  size_t best_words = 0;
  for (const auto& c : CommandRegistry::Instance().commands()) {
    size_t words = 1 + std::count(c.name.begin(), c.name.end(), ' ');
    if (words > args.size() || words <= best_words) continue;
    std::string joined = args[0];
    for (size_t i = 1; i < words; ++i) joined += " " + args[i];
    if (joined == c.name) {
      best = &c;
      best_words = words;
    }
  }
  if (best == nullptr) {
    // A group word alone ("weir kafka", "weir table --help"): list the group's commands.
    std::vector<const Command*> group;
    for (const auto& c : CommandRegistry::Instance().commands()) {
      if (c.name.rfind(args[0] + " ", 0) == 0) group.push_back(&c);
    }
    if (!group.empty()) {
      bool asked = args.size() > 1 && (args[1] == "--help" || args[1] == "-h");
      FILE* out = asked ? stdout : stderr;
      std::fprintf(out, "usage: weir %s COMMAND [ARGS] (weir %s COMMAND --help for details)\n\ncommands:\n",
                   args[0].c_str(), args[0].c_str());
      std::sort(group.begin(), group.end(), [](const Command* a, const Command* b) { return a->name < b->name; });
      for (const Command* c : group) {
        std::string name = c->name;
        name.resize(std::max<size_t>(name.size() + 2, 22), ' ');
        std::fprintf(out, "  %s%s\n", name.c_str(), c->summary.c_str());
      }
      return asked ? 0 : 2;
    }
    std::fprintf(stderr, "weir: unknown command '%s' (weir --help lists the commands)\n",
                 args[0].c_str());
    return 2;
  }
  return best->run(std::vector<std::string>(args.begin() + best_words, args.end()));
}

}  // namespace
}  // namespace weir::cli

int main(int argc, char** argv) { return weir::cli::Main(argc, argv); }
