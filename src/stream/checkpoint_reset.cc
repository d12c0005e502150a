#include "stream/checkpoint_reset.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>

#include "delta/actions.h"
#include "delta/log_path.h"
#include "delta/log_segment.h"
#include "delta/table.h"
#include "delta/transaction.h"
#include "stream/kafka_flow_source.h"

namespace weir::stream {

namespace {

std::string Range(int64_t from, int64_t to) {
  return "[" + std::to_string(from) + ", " + std::to_string(to) + ")";
}

std::string Plural(int64_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// [{"topic":"t","partition":0,"from":a,"to":b}, ...] of the partitions where `size` is positive.
std::string RangesJson(const std::vector<ResetPartition>& partitions, bool skipped) {
  nlohmann::json out = nlohmann::json::array();
  for (const ResetPartition& p : partitions) {
    if ((skipped ? p.skipped() : p.reprocessed()) <= 0) continue;
    const int64_t from = skipped ? p.current : p.target;
    const int64_t to = skipped ? p.target : p.current;
    out.push_back(
        {{"topic", p.tp.topic}, {"partition", p.tp.partition}, {"from", from}, {"to", to}});
  }
  return out.dump();
}

// The positions where the checkpoint's next batch starts each partition, or nullopt when the
// checkpoint does not say (no checkpoint, or none logged yet). Refusals for checkpoints a reset
// must not extend.
Status ReadCheckpointStart(fs::FileSystem* fs, const FlowSpec& flow, ResetPlan* plan,
                           std::optional<kafka::PartitionOffsets>* start) {
  auto cp = Checkpoint::OpenExisting(fs, flow.checkpoint_dir);
  if (!cp.ok()) {
    if (cp.status().IsNotFound()) return Status::OK();  // no checkpoint: a new one is made
    return cp.status();
  }
  plan->checkpoint_exists = true;
  Status state = (*cp)->CheckNoSparkState();
  if (!state.ok()) plan->refusals.push_back(state.message());
  if (flow.drop_duplicates) {
    plan->refusals.push_back(
        "the flow keeps DROP DUPLICATES state in its checkpoint " + flow.checkpoint_dir +
        ", versioned by batch, which a reset batch cannot carry: move that folder away (the "
        "state then starts empty) and reset again, which starts a new checkpoint");
  }
  WEIR_ASSIGN_OR_RETURN(RestartPlan restart, (*cp)->PlanRestart());
  std::optional<std::string> json;
  switch (restart.kind) {
    case RestartPlan::Kind::kFresh: {
      plan->batch_id = 0;
      WEIR_ASSIGN_OR_RETURN(json, (*cp)->ReadInitialOffsets(0));
      break;
    }
    case RestartPlan::Kind::kNextBatch: {
      plan->batch_id = restart.batch_id;
      plan->watermark_ms = restart.watermark_ms;
      if (restart.start->sources.size() != 1) {
        return Status::InvalidArgument(
            "offsets/" + std::to_string(restart.batch_id - 1) + " in " + flow.checkpoint_dir +
            " has " + std::to_string(restart.start->sources.size()) +
            " sources; a weir flow has one");
      }
      json = restart.start->sources[0];
      break;
    }
    case RestartPlan::Kind::kRerun:
      plan->batch_id = restart.batch_id;
      plan->refusals.push_back(
          "batch " + std::to_string(restart.batch_id) + " is logged in " + flow.checkpoint_dir +
          " (offsets/" + std::to_string(restart.batch_id) +
          ") but not committed: the flow is running, or stopped in the middle of that batch. "
          "Stop it, or finish the batch (`weir run PIPELINE --tables " + flow.name +
          " --trigger once` re-runs exactly it and stops), then reset; or move the checkpoint "
          "folder away and reset, which starts a new checkpoint");
      return Status::OK();
  }
  if (json) {
    WEIR_ASSIGN_OR_RETURN(kafka::PartitionOffsets offsets, kafka::PartitionOffsetsFromJson(*json));
    *start = std::move(offsets);
  }
  return Status::OK();
}

}  // namespace

Result<ResetTarget> ParseResetTarget(const std::string& option, const std::string& value,
                                     const std::optional<std::string>& strategy) {
  static const char* const kNames[] = {"startingOffsets", "startingTimestamp",
                                       "startingOffsetsByTimestamp"};
  const char* name = nullptr;
  for (const char* n : kNames) {
    if (std::equal(option.begin(), option.end(), n, n + std::char_traits<char>::length(n),
                   [](char a, char b) { return std::tolower(a) == std::tolower(b); })) {
      name = n;
    }
  }
  if (name == nullptr) {
    return Status::InvalidArgument("a reset position is startingOffsets, startingTimestamp or "
                                   "startingOffsetsByTimestamp, not " + option);
  }
  // Spark's own parsing and messages, on options that only name a position.
  std::map<std::string, std::string> options = {{"kafka.bootstrap.servers", "unused:9092"},
                                                {"subscribe", "unused"},
                                                {name, value}};
  if (strategy) options["startingOffsetsByTimestampStrategy"] = *strategy;
  WEIR_ASSIGN_OR_RETURN(kafka::KafkaSourceOptions parsed,
                        kafka::KafkaSourceOptions::Parse(options));
  ResetTarget target;
  target.spec = parsed.starting;
  target.strategy = parsed.no_match_strategy;
  target.description = std::string(name) + "=" + value;
  if (strategy) target.description += " (startingOffsetsByTimestampStrategy=" + *strategy + ")";
  return target;
}

int64_t ResetPlan::skipped() const {
  int64_t n = 0;
  for (const auto& p : partitions) n += p.skipped();
  return n;
}

int64_t ResetPlan::reprocessed() const {
  int64_t n = 0;
  for (const auto& p : partitions) n += p.reprocessed();
  return n;
}

bool ResetPlan::table_changes() const {
  for (const auto& p : partitions) {
    if (p.table != p.target) return true;
  }
  return false;
}

bool ResetPlan::checkpoint_changes() const {
  if (!checkpoint_exists) return true;
  for (const auto& p : partitions) {
    if (p.checkpoint != p.target) return true;
  }
  return false;
}

bool ResetPlan::changes() const { return table_changes() || checkpoint_changes(); }

std::string ResetPlan::CurrentJson() const {
  kafka::PartitionOffsets offsets;
  for (const auto& p : partitions) offsets[p.tp] = p.current;
  return kafka::PartitionOffsetsToJson(offsets);
}

std::string ResetPlan::TargetJson() const {
  kafka::PartitionOffsets offsets;
  for (const auto& p : partitions) offsets[p.tp] = p.target;
  return kafka::PartitionOffsetsToJson(offsets);
}

std::string ResetPlan::BackfillStartJson() const {
  kafka::PartitionOffsets offsets;
  for (const auto& p : partitions) offsets[p.tp] = p.skipped() > 0 ? p.current : p.target;
  return kafka::PartitionOffsetsToJson(offsets);
}

std::string ResetPlan::BackfillEndJson() const { return TargetJson(); }

Status CheckResettable(const FlowSpec& flow) {
  if (flow.kafka) return Status::OK();
  return Status::InvalidArgument(
      "the flow " + flow.name + " reads " +
      (flow.delta ? "the Delta table " + flow.delta->name : std::string("no Kafka topic")) +
      ", not Kafka: weir checkpoint reset moves a Kafka flow's positions only");
}

Result<ResetPlan> PlanReset(fs::FileSystem* fs, const FlowSpec& flow, const ResetRequest& request,
                            const std::set<kafka::TopicPartition>& partitions,
                            kafka::OffsetLookup& lookup) {
  WEIR_RETURN_NOT_OK(CheckResettable(flow));
  ResetPlan plan;
  plan.flow = flow.name;
  plan.table_path = flow.table_path;
  plan.checkpoint_dir = flow.checkpoint_dir;
  plan.position = request.target.description;

  auto table = delta::Table::Open(fs, flow.table_path);
  if (!table.ok()) {
    if (table.status().IsNotFound()) {
      return Status::NotFound("the table of " + flow.name + " does not exist yet (" +
                              flow.table_path +
                              "): the flow never ran, so there is no position to move from; give "
                              "its read_kafka startingOffsets or startingTimestamp instead");
    }
    return table.status();
  }
  std::shared_ptr<const delta::Snapshot> snapshot = (*table)->snapshot();
  plan.table_version = snapshot->version();
  WEIR_ASSIGN_OR_RETURN(kafka::PartitionOffsets progress, TableProgress(*snapshot, flow.name));

  std::optional<kafka::PartitionOffsets> checkpoint_start;
  WEIR_RETURN_NOT_OK(ReadCheckpointStart(fs, flow, &plan, &checkpoint_start));
  WEIR_ASSIGN_OR_RETURN(std::optional<std::string> running,
                        Checkpoint::RunningQuery(fs, flow.checkpoint_dir));
  if (running) {
    plan.refusals.push_back("the flow is running: " + *running + " holds its checkpoint " +
                            flow.checkpoint_dir + "; stop it (SIGTERM waits for the batch) and "
                            "reset again");
  } else if (flow.checkpoint_dir.find("://") != std::string::npos) {
    plan.notes.push_back("weir cannot tell whether the flow runs elsewhere on " +
                         flow.checkpoint_dir +
                         " (object storage has no locks): make sure it is stopped");
  }

  if (partitions.empty()) {
    return Status::NotFound("the subscription of " + flow.name + " (" +
                            flow.kafka->subscription.ToString() + ") has no partition now");
  }
  kafka::DataLossReporter reporter(flow.kafka->fail_on_data_loss);
  auto resolved = kafka::ResolveStartingOffsets(request.target.spec, request.target.strategy,
                                                partitions, lookup, &reporter);
  if (!resolved.ok()) {
    return resolved.status().WithContext("the new position " + request.target.description +
                                         " of " + flow.name);
  }
  for (const std::string& w : reporter.Warnings()) plan.notes.push_back(w);
  WEIR_ASSIGN_OR_RETURN(kafka::PartitionOffsets earliest, lookup.EarliestOffsets(partitions));
  WEIR_ASSIGN_OR_RETURN(kafka::PartitionOffsets latest, lookup.LatestOffsets(partitions));

  std::vector<std::string> backwards, beyond;
  for (const kafka::TopicPartition& tp : partitions) {
    ResetPartition p;
    p.tp = tp;
    if (auto it = progress.find(tp); it != progress.end()) p.table = it->second;
    if (checkpoint_start) {
      if (auto it = checkpoint_start->find(tp); it != checkpoint_start->end()) {
        p.checkpoint = it->second;
      }
    }
    p.earliest = earliest.count(tp) ? earliest.at(tp) : 0;
    p.latest = latest.count(tp) ? latest.at(tp) : 0;
    p.target = resolved->count(tp) ? resolved->at(tp) : p.latest;
    if (p.table) {
      p.current = *p.table;
      p.current_from = "table";
    } else if (p.checkpoint && *p.checkpoint >= 0) {
      p.current = *p.checkpoint;
      p.current_from = "checkpoint";
    } else {
      p.current = p.earliest;
      p.current_from = "earliest";
    }
    if (p.table && p.checkpoint && *p.table != *p.checkpoint) {
      plan.notes.push_back(tp.ToString() + ": the checkpoint's next batch starts at " +
                           std::to_string(*p.checkpoint) + ", the table's progress is " +
                           std::to_string(*p.table) + "; the reset moves from the table's");
    }
    if (p.skipped() > 0 && p.current < p.earliest) {
      plan.notes.push_back(tp.ToString() + ": offsets " +
                           Range(p.current, std::min(p.earliest, p.target)) +
                           " are no longer on the broker (retention): a backfill cannot read them");
    }
    if (p.target > p.latest) {
      beyond.push_back(tp.ToString() + " at " + std::to_string(p.target) + " (its end is " +
                       std::to_string(p.latest) + ")");
    }
    if (p.reprocessed() > 0) {
      backwards.push_back(tp.ToString() + " " + std::to_string(p.current) + " -> " +
                          std::to_string(p.target));
    }
    plan.partitions.push_back(std::move(p));
  }
  for (const auto& [tp, offset] : progress) {
    if (!partitions.count(tp)) {
      plan.notes.push_back("the table also holds progress for " + tp.ToString() + " (at " +
                           std::to_string(offset) +
                           "), which the subscription does not have now: left as it is");
    }
  }
  auto join = [](const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
    return out;
  };
  if (!beyond.empty()) {
    plan.refusals.push_back("the new position is past the end of " + join(beyond) +
                            ": a flow cannot start after the last record");
  }
  if (!backwards.empty() && !request.allow_reprocess) {
    plan.refusals.push_back(
        "the new position is behind the table's progress (" + join(backwards) + "): the flow "
        "would read " + Plural(plan.reprocessed(), "offset") + " again, duplicating their rows "
        "unless it MERGEs on (partition, offset); add --allow-reprocess if that is intended");
  }
  return plan;
}

Result<ResetResult> ApplyReset(fs::FileSystem* fs, const ResetPlan& plan,
                               const std::string& reason) {
  if (!plan.refusals.empty()) {
    std::string why;
    for (const auto& r : plan.refusals) why += (why.empty() ? "" : "; ") + r;
    return Status::InvalidArgument("the reset of " + plan.flow + " is refused: " + why);
  }
  if (!plan.changes()) {
    return Status::InvalidArgument("the reset of " + plan.flow +
                                   " changes nothing: every partition already starts at its new "
                                   "position");
  }
  // The checkpoint first: opening it takes its run lock, so a flow starting now is seen.
  WEIR_ASSIGN_OR_RETURN(bool folder_existed, fs->Exists(plan.checkpoint_dir));
  WEIR_ASSIGN_OR_RETURN(std::unique_ptr<Checkpoint> cp, Checkpoint::Open(fs, plan.checkpoint_dir));
  auto undo = [&](Status st) {
    // What this reset made of a new checkpoint (its metadata, maybe the folder) goes again.
    if (!plan.checkpoint_exists) {
      cp.reset();
      if (folder_existed) {
        static_cast<void>(fs->Delete(fs::JoinPath(plan.checkpoint_dir, "metadata")));
      } else {
        static_cast<void>(fs->DeleteDirRecursive(plan.checkpoint_dir));
      }
    }
    return st;
  };
  WEIR_ASSIGN_OR_RETURN(std::optional<std::string> running,
                        Checkpoint::RunningQuery(fs, plan.checkpoint_dir));
  if (running) {
    return Status::InvalidArgument("the flow " + plan.flow + " started running (" + *running +
                                   " holds its checkpoint): stop it and plan the reset again");
  }
  WEIR_ASSIGN_OR_RETURN(RestartPlan restart, cp->PlanRestart());
  const int64_t next_batch = restart.kind == RestartPlan::Kind::kFresh ? 0 : restart.batch_id;
  if (restart.kind == RestartPlan::Kind::kRerun || next_batch != plan.batch_id) {
    return undo(Status::Conflict("the checkpoint " + plan.checkpoint_dir +
                                 " moved since the reset was planned (its next batch is " +
                                 std::to_string(next_batch) + ", planned " +
                                 std::to_string(plan.batch_id) + "): plan the reset again"));
  }

  ResetResult result;
  result.batch_id = plan.batch_id;
  if (plan.table_changes()) {
    WEIR_ASSIGN_OR_RETURN(std::unique_ptr<delta::Table> table,
                          delta::Table::Open(fs, plan.table_path));
    delta::Transaction txn(table->snapshot());
    for (const ResetPartition& p : plan.partitions) {
      const std::string app_id = PartitionAppId(plan.flow, p.tp);
      txn.ExpectTxn(app_id, p.table);  // a batch that committed since the plan: Conflict
      WEIR_RETURN_NOT_OK(txn.SetTxn(app_id, p.target));
    }
    txn.SetOperation(kResetOperation,
                     {{"flow", plan.flow},
                      {"position", plan.position},
                      {"reason", reason},
                      {"previousOffsets", plan.CurrentJson()},
                      {"startingOffsets", plan.TargetJson()},
                      {"skipped", RangesJson(plan.partitions, /*skipped=*/true)},
                      {"reprocessed", RangesJson(plan.partitions, /*skipped=*/false)},
                      {"checkpoint", plan.checkpoint_dir},
                      {"batchId", std::to_string(plan.batch_id)}});
    txn.SetOperationMetrics({{"numPartitions", std::to_string(plan.partitions.size())},
                             {"numSkippedOffsets", std::to_string(plan.skipped())},
                             {"numReprocessedOffsets", std::to_string(plan.reprocessed())}});
    auto committed = txn.Commit();
    if (!committed.ok()) {
      Status st = committed.status();
      if (st.IsConflict()) {
        st = Status::Conflict(st.message() + " (the table moved since the reset was planned: "
                              "plan it again)");
      }
      return undo(st.WithContext("the reset commit to " + plan.table_path));
    }
    result.table_version = committed->version;
  }

  if (plan.checkpoint_changes()) {
    auto finish_advice = [&](Status st) {
      if (result.table_version < 0) return st;
      return st.WithContext("the table records the reset at version " +
                            std::to_string(result.table_version) +
                            ", but its checkpoint batch was not written; run the same reset "
                            "again to finish it");
    };
    const std::string target = plan.TargetJson();
    if (plan.batch_id == 0) {
      Status st = cp->WriteInitialOffsets(0, target);
      if (!st.ok() && !st.IsAlreadyExists()) return finish_advice(st);
    }
    OffsetSeq seq;
    seq.batch_watermark_ms = plan.watermark_ms;
    seq.batch_timestamp_ms = NowMs();
    // As every batch records them (StreamingQuery); a checkpoint's own values are carried.
    seq.conf = {{"spark.sql.streaming.multipleWatermarkPolicy", "min"},
                {"spark.sql.shuffle.partitions", "200"}};
    seq.sources.push_back(target);
    if (Status st = cp->WriteOffsets(plan.batch_id, seq); !st.ok()) return finish_advice(st);
    CommitMetadata commit;
    commit.next_batch_watermark_ms = plan.watermark_ms;
    if (Status st = cp->WriteCommit(plan.batch_id, commit); !st.ok()) return finish_advice(st);
  }
  return result;
}

Result<std::vector<ResetSkip>> ReadResetSkips(fs::FileSystem* fs, const std::string& table_path) {
  WEIR_ASSIGN_OR_RETURN(std::vector<delta::LogFile> files,
                        delta::ListLogFiles(fs, delta::LogDirPath(table_path)));
  std::vector<ResetSkip> skips;
  for (const delta::LogFile& f : files) {
    if (f.name.type != delta::LogFileType::kCommit) continue;
    auto text = fs::ReadFileToString(fs, f.path);
    if (!text.ok()) {
      if (text.status().IsNotFound()) continue;  // cleaned up meanwhile
      return text.status();
    }
    if (text->find(kResetOperation) == std::string::npos) continue;
    WEIR_ASSIGN_OR_RETURN(std::vector<delta::Action> actions, delta::ParseActions(*text, f.path));
    for (const delta::Action& a : actions) {
      const auto* info = std::get_if<delta::CommitInfo>(&a);
      if (info == nullptr || info->operation != kResetOperation) continue;
      auto it = info->operation_parameters.find("skipped");
      if (it == info->operation_parameters.end()) continue;
      auto ranges = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
      auto bad = [&]() {
        return Status::Corruption("the " + std::string(kResetOperation) + " commit " + f.path +
                                  " has skipped ranges that do not parse: " + it->second);
      };
      if (!ranges.is_array()) return bad();
      for (const auto& r : ranges) {
        if (!r.is_object() || !r.contains("topic") || !r["topic"].is_string() ||
            !r.contains("partition") || !r["partition"].is_number_integer() ||
            !r.contains("from") || !r["from"].is_number_integer() || !r.contains("to") ||
            !r["to"].is_number_integer()) {
          return bad();
        }
        ResetSkip skip;
        skip.version = f.version();
        skip.topic = r["topic"].get<std::string>();
        skip.partition = r["partition"].get<int32_t>();
        skip.from = r["from"].get<int64_t>();
        skip.to = r["to"].get<int64_t>();
        if (skip.to > skip.from) skips.push_back(std::move(skip));
      }
    }
  }
  return skips;
}

std::vector<ResetSkip> ExplainMissing(const std::vector<ResetSkip>& skips,
                                      std::string_view partition, int64_t from, int64_t to) {
  std::vector<ResetSkip> parts;
  for (const ResetSkip& s : skips) {
    if (std::to_string(s.partition) != partition) continue;
    ResetSkip part = s;
    part.from = std::max(from, s.from);
    part.to = std::min(to, s.to);
    if (part.from < part.to) parts.push_back(std::move(part));
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [](const ResetSkip& a, const ResetSkip& b) { return a.from < b.from; });
  std::vector<ResetSkip> out;
  int64_t covered = from;  // offsets below are explained already
  for (ResetSkip& part : parts) {
    part.from = std::max(part.from, covered);
    if (part.from >= part.to) continue;
    covered = part.to;
    out.push_back(std::move(part));
  }
  return out;
}

std::string DescribeSkip(const ResetSkip& skip) {
  return "skipped by checkpoint reset at version " + std::to_string(skip.version) +
         ": partition " + std::to_string(skip.partition) + " offsets " + Range(skip.from, skip.to);
}

}  // namespace weir::stream
