// `weir checkpoint inspect DIR`: a streaming checkpoint's query id, batches, offsets per source and
// whether each batch was committed.
// `weir checkpoint reset PIPELINE.sql --flow NAME --starting-...`: a deliberate restart of a Kafka
// flow from another position, planned (dry run) or carried out with --confirm and recorded in the
// table's history (stream/checkpoint_reset.h, docs/migration.md).
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/file_systems.h"
#include "cli/flags.h"
#include "kafka/consumer.h"
#include "sql/pipeline.h"
#include "stream/checkpoint.h"
#include "stream/checkpoint_reset.h"
#include "stream/sql_flow.h"

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

// --- weir checkpoint reset -----------------------------------------------------------------------

std::string Optional(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; }

std::string Change(const stream::ResetPartition& p) {
  if (p.skipped() > 0) {
    return "skips " + std::to_string(p.skipped()) + " [" + std::to_string(p.current) + ", " +
           std::to_string(p.target) + ")";
  }
  if (p.reprocessed() > 0) {
    return "BACKWARDS: re-reads " + std::to_string(p.reprocessed()) + " [" +
           std::to_string(p.target) + ", " + std::to_string(p.current) + ")";
  }
  return p.table == p.target ? "stays" : "stays (sets the table's progress)";
}

nlohmann::json PlanJson(const stream::ResetPlan& plan) {
  nlohmann::json partitions = nlohmann::json::array();
  for (const auto& p : plan.partitions) {
    partitions.push_back({{"topic", p.tp.topic},
                          {"partition", p.tp.partition},
                          {"table", p.table ? nlohmann::json(*p.table) : nlohmann::json()},
                          {"checkpoint",
                           p.checkpoint ? nlohmann::json(*p.checkpoint) : nlohmann::json()},
                          {"current", p.current},
                          {"current_from", p.current_from},
                          {"new", p.target},
                          {"earliest", p.earliest},
                          {"latest", p.latest},
                          {"skipped", p.skipped()},
                          {"reprocessed", p.reprocessed()}});
  }
  return {{"flow", plan.flow},
          {"table", plan.table_path},
          {"table_version", plan.table_version},
          {"checkpoint", plan.checkpoint_dir},
          {"checkpoint_exists", plan.checkpoint_exists},
          {"batch", plan.batch_id},
          {"position", plan.position},
          {"partitions", partitions},
          {"skipped", plan.skipped()},
          {"reprocessed", plan.reprocessed()},
          {"current_offsets", plan.CurrentJson()},
          {"new_offsets", plan.TargetJson()},
          {"backfill", {{"startingOffsets", plan.BackfillStartJson()},
                        {"endingOffsets", plan.BackfillEndJson()}}},
          {"notes", plan.notes},
          {"refusals", plan.refusals}};
}

void PrintPlan(const stream::ResetPlan& plan) {
  std::printf("reset of %s to %s\n", plan.flow.c_str(), plan.position.c_str());
  std::printf("  table       %s (version %lld)\n", plan.table_path.c_str(),
              static_cast<long long>(plan.table_version));
  if (plan.checkpoint_exists) {
    std::printf("  checkpoint  %s (the reset is its batch %lld)\n", plan.checkpoint_dir.c_str(),
                static_cast<long long>(plan.batch_id));
  } else {
    std::printf("  checkpoint  %s (none yet: a new one, whose batch 0 is the reset)\n",
                plan.checkpoint_dir.c_str());
  }
  std::printf("%-24s %12s %12s %12s %12s %12s  %s\n", "partition", "table", "checkpoint", "new",
              "earliest", "latest", "change");
  for (const auto& p : plan.partitions) {
    std::printf("%-24s %12s %12s %12lld %12lld %12lld  %s\n", p.tp.ToString().c_str(),
                Optional(p.table).c_str(), Optional(p.checkpoint).c_str(),
                static_cast<long long>(p.target), static_cast<long long>(p.earliest),
                static_cast<long long>(p.latest), Change(p).c_str());
  }
  std::printf("total: %lld offsets skipped, %lld re-read (moving from the table's progress; "
              "else the checkpoint's; else the earliest offset)\n",
              static_cast<long long>(plan.skipped()), static_cast<long long>(plan.reprocessed()));
  for (const auto& n : plan.notes) std::printf("note: %s\n", n.c_str());
  if (plan.skipped() > 0) {
    std::printf("backfill of the skipped offsets (a batch read: weir kafka read --option ...):\n"
                "  startingOffsets=%s\n  endingOffsets=%s\n",
                plan.BackfillStartJson().c_str(), plan.BackfillEndJson().c_str());
  }
}

// The streaming-table definition named `flow` of the pipeline file, made into a flow.
Result<stream::FlowSpec> LoadFlow(const Flags& flags, const std::string& flow,
                                  stream::LakehouseLayout* lakehouse) {
  const std::string path = flags.positional()[0];
  WEIR_ASSIGN_OR_RETURN(std::string text, ReadText(path));
  sql::Variables vars;
  for (const auto& kv : flags.GetAll("set")) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--set expects name=value, got a value without '='");
    }
    vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  sql::SecretResolver secrets;
  if (flags.Has("secrets")) {
    WEIR_ASSIGN_OR_RETURN(std::string json, ReadText(flags.Get("secrets")));
    WEIR_RETURN_NOT_OK(secrets.AddSecretsJson(json, flags.Get("secrets")));
  }
  auto pipeline = sql::ParsePipeline(text, vars, secrets);
  if (!pipeline.ok()) return pipeline.status().WithContext(path);
  WEIR_RETURN_NOT_OK(ConfigureStorageFromFlags(flags, pipeline->settings));
  lakehouse->root = flags.Get("lakehouse");
  while (lakehouse->root.size() > 1 && lakehouse->root.back() == '/') lakehouse->root.pop_back();
  std::string names;
  for (const sql::StreamingTableDefinition& table : pipeline->tables) {
    if (table.name.ToString() == flow) {
      auto spec = stream::MakeFlow(table, *lakehouse, pipeline->settings);
      if (!spec.ok()) return spec.status().WithContext(path);
      return spec;
    }
    names += (names.empty() ? "" : ", ") + table.name.ToString();
  }
  return Status::InvalidArgument("unknown flow " + flow + ": " + path +
                                 " defines the streaming tables " +
                                 (names.empty() ? std::string("(none)") : names) +
                                 " (give the full name, as weir run --tables takes it)");
}

Result<stream::ResetTarget> TargetFromFlags(const Flags& flags) {
  std::vector<std::pair<std::string, std::string>> given;
  if (flags.Has("starting-offsets")) {
    given.push_back({"startingOffsets", flags.Get("starting-offsets")});
  }
  if (flags.Has("starting-timestamp")) {
    given.push_back({"startingTimestamp", flags.Get("starting-timestamp")});
  }
  if (flags.Has("starting-offsets-by-timestamp")) {
    given.push_back({"startingOffsetsByTimestamp", flags.Get("starting-offsets-by-timestamp")});
  }
  if (flags.Has("latest")) given.push_back({"startingOffsets", "latest"});
  if (given.size() != 1) {
    return Status::InvalidArgument(
        "give exactly one new position: --starting-offsets JSON, --starting-timestamp MS, "
        "--starting-offsets-by-timestamp JSON or --latest" +
        std::string(given.empty() ? "" : " (got " + std::to_string(given.size()) + ")"));
  }
  std::optional<std::string> strategy;
  if (flags.Has("strategy")) {
    if (given[0].first != "startingOffsetsByTimestamp" && given[0].first != "startingTimestamp") {
      return Status::InvalidArgument("--strategy applies to a position by timestamp");
    }
    strategy = flags.Get("strategy");
  }
  return stream::ParseResetTarget(given[0].first, given[0].second, strategy);
}

int ResetMain(const Flags& flags) {
  const std::string format = flags.Get("format");
  if (format != "text" && format != "json") {
    return Fail(Status::InvalidArgument("--format must be text or json, got '" + format + "'"));
  }
  if (!flags.Has("flow")) return Fail(Status::InvalidArgument("--flow NAME is required"));
  const bool confirm = flags.GetBool("confirm");
  if (confirm && flags.Get("reason").empty()) {
    return Fail(Status::InvalidArgument(
        "--confirm needs --reason TEXT: the table's history records why the flow skipped (or "
        "re-read) offsets"));
  }
  auto target = TargetFromFlags(flags);
  if (!target.ok()) return Fail(target.status());
  stream::LakehouseLayout lakehouse;
  auto spec = LoadFlow(flags, flags.Get("flow"), &lakehouse);
  if (!spec.ok()) return Fail(spec.status());
  if (Status st = stream::CheckResettable(*spec); !st.ok()) return Fail(st);
  auto fs = FlowFileSystem(lakehouse.root);
  if (!fs.ok()) return Fail(fs.status());
  auto source = kafka::KafkaSource::Open(*spec->kafka);
  if (!source.ok()) return Fail(source.status().WithContext(spec->name));
  auto partitions = (*source)->ListPartitions();
  if (!partitions.ok()) return Fail(partitions.status().WithContext(spec->name));
  stream::ResetRequest request;
  request.target = *target;
  request.allow_reprocess = flags.GetBool("allow-reprocess");
  auto plan = stream::PlanReset(*fs, *spec, request, *partitions, **source);
  if (!plan.ok()) return Fail(plan.status());
  nlohmann::json json;
  if (format == "json") {
    json = PlanJson(*plan);
  } else {
    PrintPlan(*plan);
  }
  auto finish = [&](int code) {
    if (format == "json") std::printf("%s\n", json.dump(1).c_str());
    return code;
  };
  if (!plan->refusals.empty()) {
    finish(0);
    std::string why;
    for (const auto& r : plan->refusals) why += "\n  - " + r;
    const std::string when = confirm ? "" : " (and would be with --confirm)";
    return Fail(Status::InvalidArgument("the reset is refused" + when + ", nothing was changed:" +
                                        why));
  }
  if (!plan->changes()) {
    if (format == "text") {
      std::printf("nothing to do: every partition already starts at its new position\n");
    }
    return finish(0);
  }
  if (!confirm) {
    if (format == "json") {
      json["confirmed"] = false;
    } else {
      std::printf("dry run: nothing was changed. --confirm --reason TEXT %s\n",
                  plan->table_changes()
                      ? "commits the reset to the table and then writes the checkpoint's batch"
                      : "writes the checkpoint's batch (the table already records the reset)");
    }
    return finish(0);
  }
  auto result = stream::ApplyReset(*fs, *plan, flags.Get("reason"));
  if (!result.ok()) {
    finish(0);
    return Fail(result.status());
  }
  if (format == "json") {
    json["confirmed"] = true;
    json["committed_version"] = result->table_version >= 0 ? nlohmann::json(result->table_version)
                                                          : nlohmann::json();
    json["checkpoint_batch"] = plan->checkpoint_changes() ? nlohmann::json(result->batch_id)
                                                          : nlohmann::json();
    return finish(0);
  }
  if (result->table_version >= 0) {
    std::printf("committed version %lld to %s (%s: the txns of every partition at the new "
                "positions, the skipped ranges and the reason)\n",
                static_cast<long long>(result->table_version), plan->table_path.c_str(),
                stream::kResetOperation);
  }
  if (plan->checkpoint_changes()) {
    std::printf("wrote batch %lld to %s (offsets/%lld and commits/%lld end at the new positions)\n",
                static_cast<long long>(result->batch_id), plan->checkpoint_dir.c_str(),
                static_cast<long long>(result->batch_id), static_cast<long long>(result->batch_id));
  }
  std::printf("the next `weir run` starts %s at %s\n", plan->flow.c_str(),
              plan->TargetJson().c_str());
  if (plan->skipped() > 0) {
    std::printf("`weir validate %s` names the skipped offsets as deliberate until a backfill "
                "writes them (docs/migration.md)\n",
                plan->table_path.c_str());
  }
  return 0;
}

int RunReset(const std::vector<std::string>& args) {
  Flags flags(
      "weir checkpoint reset PIPELINE.sql --flow NAME\n"
      "                      (--starting-timestamp MS | --starting-offsets-by-timestamp JSON\n"
      "                       | --starting-offsets JSON | --latest) [--strategy error|latest]\n"
      "                      [--lakehouse DIR|URL] [--set name=value ...] [--allow-reprocess]\n"
      "                      [--format text|json] [--confirm --reason TEXT]",
      "Restarts a Kafka flow from another position on purpose (an incident runbook's \"controlled\n"
      "restart from a later position, plus a backfill\"). Without --confirm it prints the plan and\n"
      "changes nothing: per partition the table's progress (its txn weir:<flow>:<topic>:<p>), where\n"
      "the checkpoint would start, the new position (resolved against the broker as the flow's\n"
      "startingOffsets, startingTimestamp or startingOffsetsByTimestamp are, with Spark's rules: a\n"
      "JSON position names every partition), the broker's earliest and latest offsets, and the\n"
      "offsets skipped (or re-read), with the backfill's startingOffsets / endingOffsets.\n"
      "With --confirm it commits to the flow's table a commit without data (WEIR CHECKPOINT RESET:\n"
      "the partitions' txns at the new positions; the skipped ranges, the position and --reason\n"
      "in operationParameters), then writes one committed, empty batch to the flow's checkpoint\n"
      "(<lakehouse>/_checkpoints/<table>; a new checkpoint when there is none) whose end offsets\n"
      "are the new positions, so that the next `weir run` (or Spark) continues from there, and\n"
      "`weir validate` names the skipped offsets as deliberate until a backfill writes them.\n"
      "Refused, changing nothing: a flow that is running (a weir process holds its checkpoint),\n"
      "a checkpoint whose last batch was not committed, a checkpoint with state (DROP\n"
      "DUPLICATES, or Spark's), a position past a partition's end, a position behind the table's\n"
      "progress (re-reads rows) without --allow-reprocess, a flow that does not read Kafka, an\n"
      "unknown flow, a table that does not exist yet. The procedure, with the backfill:\n"
      "docs/migration.md (\"Restarting from a later position\").");
  flags.Positional("PIPELINE.sql", 1, 1);
  flags.Value("flow", "NAME", "the streaming table's full name, e.g. sales.bronze.orders_raw");
  flags.Value("starting-timestamp", "MS",
              "the first offset at or after this time (ms since the epoch) in every partition "
              "(Spark's startingTimestamp)");
  flags.Value("starting-offsets-by-timestamp", "JSON",
              "per partition, the first offset at or after its time: {\"topic\":{\"0\":MS,...}} "
              "(Spark's startingOffsetsByTimestamp)");
  flags.Value("starting-offsets", "JSON",
              "the offsets themselves: {\"topic\":{\"0\":N,...}}, -1 latest, -2 earliest "
              "(Spark's startingOffsets)");
  flags.Bool("latest", "every partition's end: skip everything not read yet");
  flags.Value("strategy", "STRATEGY",
              "no offset at or after the time: error (the default) or latest "
              "(Spark's startingOffsetsByTimestampStrategy)");
  flags.Value("lakehouse", "DIR|URL", "where the flow's table and checkpoint live (as weir run)",
              "./lakehouse");
  flags.Repeated("set", "name=value",
                 "a value for ${name} in the pipeline file, or a storage setting (as weir run)");
  flags.Value("secrets", "FILE",
              "JSON {\"scope\": {\"key\": \"value\"}} for secret('scope','key')");
  flags.Bool("allow-reprocess",
             "allow a position behind the table's progress (its rows are read and written again)");
  flags.Value("reason", "TEXT", "why: recorded in the table's history (required with --confirm)");
  flags.Bool("confirm", "carry the reset out (default: print the plan only)");
  flags.Value("format", "FORMAT", "text or json", "text");
  return RunWithFlags(flags, args, ResetMain);
}

WEIR_REGISTER_COMMAND(reset_cmd, "checkpoint reset",
                      "restart a Kafka flow from another position on purpose (recorded)", RunReset);

}  // namespace
}  // namespace weir::cli
