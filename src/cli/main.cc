// weir: one binary for streaming Kafka / Event Hubs into Delta Lake. main() dispatches to the
// commands registered by the other cli/*.cc files.
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
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

// Whether the user set a malloc parameter: by its environment variable or in GLIBC_TUNABLES.
bool UserSetMalloc(const char* variable, const char* tunable) {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return std::getenv(variable) != nullptr ||
         (tunables != nullptr && std::strstr(tunables, tunable) != nullptr);
}

// glibc gives each thread that allocates while another holds its arena a new arena, up to 8 per
// core, and every arena keeps the pages its freed chunks leave between trims. weir's threads
// (fetching, encoding, compressing, RocksDB's, librdkafka's) all take and free batch-sized
// buffers, so a long streaming run spread them over 16 arenas on two cores and its RSS kept
// rising for minutes (anonymous memory 99 -> 240 MiB in 4 minutes at 50,000 events/s, 189 MiB of
// it free in the arenas). Two arenas held it at 150-200 MiB with no loss of speed (bronze and
// silver on two cores; the threads' own caches serve most small allocations). An arena limit set
// by the user is left alone. Must run before any thread.
void LimitMallocArenas() {
  if (!UserSetMalloc("MALLOC_ARENA_MAX", "glibc.malloc.arena_max")) mallopt(M_ARENA_MAX, 2);
}

// glibc gives freed memory back to the system by itself: a block above M_MMAP_THRESHOLD (raised as
// such blocks are freed, up to 32 MiB) is unmapped when freed, and a heap whose free top exceeds
// M_TRIM_THRESHOLD is cut back. A backfill frees column buffers, Parquet pages and decompressed
// column chunks chunk after chunk and allocates the same sizes again a moment later, so the pages
// it gave back were faulted in and cleared by the kernel again and again (silver from a 2,000,000
// row bronze table: ~82,000 page faults, a seventh of its CPU time in the kernel's fault paths;
// ~65,000 when kept). Freed memory now stays in the arenas until weir gives it back itself: a
// streaming query calls malloc_trim after a batch at most every few seconds (StreamingQuery), and
// an availableNow run between its flows, so a long run's RSS still follows what its batches need
// (a query that goes idle keeps its last batch's pages until its next batch). Settings the user
// made are left alone. Must run before any thread.
void KeepFreedMemoryUntilTrimmed() {
  if (!UserSetMalloc("MALLOC_MMAP_THRESHOLD_", "glibc.malloc.mmap_threshold")) {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
  }
  if (!UserSetMalloc("MALLOC_TRIM_THRESHOLD_", "glibc.malloc.trim_threshold")) {
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  }
  if (!UserSetMalloc("MALLOC_TOP_PAD_", "glibc.malloc.top_pad")) mallopt(M_TOP_PAD, 64 << 20);
}

int Main(int argc, char** argv) {
  LimitMallocArenas();
  KeepFreedMemoryUntilTrimmed();
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
