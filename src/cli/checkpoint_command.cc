// `weir checkpoint inspect DIR`: a streaming checkpoint's query id, batches, offsets per source and
// whether each batch was committed.
#include <algorithm>
#include <cstdio>

#include "cli/command.h"
#include "cli/file_systems.h"
#include "cli/flags.h"
#include "stream/checkpoint.h"

namespace weir::cli {
namespace {

int InspectMain(const Flags& flags) {
  auto fs = FileSystemFor(flags, flags.positional()[0]);
  if (!fs.ok()) return Fail(fs.status());
  auto cp = stream::Checkpoint::OpenExisting(*fs, flags.positional()[0]);
  if (!cp.ok()) return Fail(cp.status());
  auto offsets = (*cp)->OffsetIds();
  if (!offsets.ok()) return Fail(offsets.status());
  auto commits = (*cp)->CommitIds();
  if (!commits.ok()) return Fail(commits.status());
  std::printf("checkpoint: %s\nquery id: %s\n", (*cp)->dir().c_str(), (*cp)->query_id().c_str());
  int64_t limit = 20;
  if (flags.Has("all")) limit = -1;
  size_t first = limit < 0 || offsets->size() <= static_cast<size_t>(limit) ? 0 : offsets->size() - limit;
  if (first > 0) std::printf("(%zu older batches not shown; --all shows them)\n", first);
  for (size_t i = first; i < offsets->size(); ++i) {
    int64_t id = (*offsets)[i];
    bool committed = std::binary_search(commits->begin(), commits->end(), id);
    auto seq = (*cp)->ReadOffsets(id);
    if (!seq.ok()) return Fail(seq.status());
    std::printf("batch %lld: %s, timestamp %lld, watermark %lld\n", static_cast<long long>(id),
                committed ? "committed" : "NOT committed", static_cast<long long>(seq->batch_timestamp_ms),
                static_cast<long long>(seq->batch_watermark_ms));
    for (size_t s = 0; s < seq->sources.size(); ++s) {
      std::printf("  source %zu end offsets: %s\n", s, seq->sources[s] ? seq->sources[s]->c_str() : "-");
    }
  }
  for (int s = 0;; ++s) {
    auto initial = (*cp)->ReadInitialOffsets(s);
    if (!initial.ok()) return Fail(initial.status());
    if (!initial->has_value()) break;
    std::printf("source %d initial offsets: %s\n", s, (*initial)->c_str());
  }
  auto plan = (*cp)->PlanRestart();
  if (!plan.ok()) return Fail(plan.status());
  switch (plan->kind) {
    case stream::RestartPlan::Kind::kFresh: std::printf("next: batch 0 (no batch yet)\n"); break;
    case stream::RestartPlan::Kind::kNextBatch:
      std::printf("next: batch %lld\n", static_cast<long long>(plan->batch_id));
      break;
    case stream::RestartPlan::Kind::kRerun:
      std::printf("next: re-run batch %lld over its logged range\n", static_cast<long long>(plan->batch_id));
      break;
  }
  if (Status state = (*cp)->CheckNoSparkState(); !state.ok()) {
    std::printf("state: %s\n", state.message().c_str());
  }
  return 0;
}

int RunInspect(const std::vector<std::string>& args) {
  Flags flags("weir checkpoint inspect DIR|URL [--all]",
              "Prints a streaming checkpoint (Spark's layout, written by weir or by Spark): the query\n"
              "id, each batch's end offsets per source and whether it was committed, the initial\n"
              "offsets, and what a restart would do.");
  flags.Positional("DIR", 1, 1);
  flags.Bool("all", "show every batch (default: the last 20)");
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, InspectMain);
}

WEIR_REGISTER_COMMAND(inspect_cmd, "checkpoint inspect", "show a streaming checkpoint's batches and offsets",
                      RunInspect);

}  // namespace
}  // namespace weir::cli
