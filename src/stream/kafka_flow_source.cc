#include "stream/kafka_flow_source.h"

#include "base/text.h"
#include "kafka/offsets.h"
#include "stream/kafka_rows.h"

namespace weir::stream {

std::string PartitionAppId(const std::string& flow, const kafka::TopicPartition& tp) {
  return "weir:" + flow + ":" + tp.topic + ":" + std::to_string(tp.partition);
}

Result<kafka::PartitionOffsets> TableProgress(const delta::Snapshot& table,
                                              const std::string& flow) {
  const std::string prefix = "weir:" + flow + ":";
  kafka::PartitionOffsets progress;
  for (const auto& [app_id, txn] : table.transactions()) {
    if (app_id.rfind(prefix, 0) != 0) continue;
    std::string rest = app_id.substr(prefix.size());
    size_t colon = rest.rfind(':');
    Result<int32_t> partition =
        colon == std::string::npos || colon == 0
            ? Result<int32_t>(Status::InvalidArgument("no topic:partition"))
            : ParseInt32(std::string_view(rest).substr(colon + 1), "partition");
    if (!partition.ok() || *partition < 0) {
      return Status::Corruption("Delta table " + table.table_root() + " holds the txn appId '" +
                                app_id + "', which is not of the form weir:" + flow +
                                ":<topic>:<partition>; the flow cannot tell where that partition "
                                "stands: remove or correct that txn, or write to a new table");
    }
    progress[kafka::TopicPartition{rest.substr(0, colon), *partition}] = txn.version;
  }
  return progress;
}

KafkaFlowSource::KafkaFlowSource(kafka::KafkaSourceOptions options, std::string flow,
                                 std::function<void(const std::string&)> log)
    : options_(std::move(options)),
      flow_(std::move(flow)),
      log_(std::move(log)),
      schema_(KafkaSourceSchema(options_.include_headers)) {}

Result<std::unique_ptr<KafkaFlowSource>> KafkaFlowSource::Open(
    kafka::KafkaSourceOptions options, std::string flow,
    std::function<void(const std::string&)> log) {
  std::unique_ptr<KafkaFlowSource> source(
      new KafkaFlowSource(std::move(options), std::move(flow), std::move(log)));
  WEIR_ASSIGN_OR_RETURN(source->source_, kafka::KafkaSource::Open(source->options_));
  if (source->options_.commit_offsets_to_group) {
    KafkaFlowSource* self = source.get();  // outlives the committer (its last member)
    auto warn = [self](const std::string& w) { self->Log("WARN " + w); };
    WEIR_ASSIGN_OR_RETURN(source->group_offsets_,
                          kafka::GroupOffsetCommitter::Open(
                              source->options_, *source->options_.commit_offsets_to_group, warn));
  }
  return source;
}

std::string KafkaFlowSource::description() const {
  return "KafkaV2[" + options_.subscription.ToString() + "]";
}

void KafkaFlowSource::ReportWarnings(const kafka::DataLossReporter& reporter) {
  for (const auto& w : reporter.Warnings()) Log("WARN " + w);
  skipped_offsets_ += reporter.skipped_offsets();
}

Result<kafka::PartitionOffsets> KafkaFlowSource::Parse(const std::string& json) const {
  return kafka::PartitionOffsetsFromJson(json);
}

// Resumes from the table's per-partition txns of this flow when it has some (the checkpoint was
// lost or replaced), else from the starting offsets an earlier run logged, else from the
// source's starting offsets.
Status KafkaFlowSource::StartFresh(Checkpoint& checkpoint, const delta::Snapshot& table) {
  if (group_) {  // every batch starts where the table says
    Status st = checkpoint.WriteInitialOffsets(0, kafka::PartitionOffsetsToJson({}));
    return st.IsAlreadyExists() ? Status::OK() : st;
  }
  WEIR_ASSIGN_OR_RETURN(const kafka::PartitionOffsets from_table, TableProgress(table, flow_));
  if (!from_table.empty()) {
    WEIR_ASSIGN_OR_RETURN(std::set<kafka::TopicPartition> partitions, source_->ListPartitions());
    kafka::PartitionOffsets start;
    std::set<kafka::TopicPartition> missing;
    for (const auto& tp : partitions) {
      auto it = from_table.find(tp);
      if (it != from_table.end()) {
        start[tp] = it->second;
      } else {
        missing.insert(tp);
      }
    }
    if (!missing.empty()) {  // partitions this flow never wrote: from the earliest offset
      WEIR_ASSIGN_OR_RETURN(auto earliest, source_->EarliestOffsets(missing));
      for (const auto& [tp, offset] : earliest) start[tp] = offset;
    }
    start_ = start;
    Log("no checkpoint for " + flow_ + " in " + checkpoint.dir() +
        ": resuming every partition from the table's per-partition progress " +
        kafka::PartitionOffsetsToJson(start_) +
        " (startingOffsets is ignored; to restart from another position on purpose, use `weir "
        "checkpoint reset`)");
  } else {
    // A run that stopped before its first batch left the starting offsets it resolved (Spark's
    // sources/0/0): they hold, so 'latest' means latest when the query first started.
    WEIR_ASSIGN_OR_RETURN(auto logged, checkpoint.ReadInitialOffsets(0));
    if (logged) {
      WEIR_ASSIGN_OR_RETURN(start_, Parse(*logged));
      return CheckSameSubscription(start_, checkpoint);
    }
    kafka::DataLossReporter reporter(options_.fail_on_data_loss);
    WEIR_ASSIGN_OR_RETURN(start_, source_->InitialOffsets(&reporter));
    ReportWarnings(reporter);
  }
  Status st = checkpoint.WriteInitialOffsets(0, kafka::PartitionOffsetsToJson(start_));
  if (st.IsAlreadyExists()) st = Status::OK();
  if (st.ok()) CommitGroupOffsets();
  return st;
}

Status KafkaFlowSource::Restore(const std::optional<std::string>& end_json,
                                Checkpoint& checkpoint) {
  if (group_) {  // every batch starts where the table says
    start_.clear();
    return Status::OK();
  }
  if (end_json) {
    WEIR_ASSIGN_OR_RETURN(start_, Parse(*end_json));
    WEIR_RETURN_NOT_OK(CheckSameSubscription(start_, checkpoint));
    CommitGroupOffsets();  // a previous run may have stopped before its last commit
    return Status::OK();
  }
  WEIR_ASSIGN_OR_RETURN(auto json, checkpoint.ReadInitialOffsets(0));
  if (json) {
    WEIR_ASSIGN_OR_RETURN(start_, Parse(*json));
    WEIR_RETURN_NOT_OK(CheckSameSubscription(start_, checkpoint));
    return Status::OK();
  }
  kafka::DataLossReporter reporter(options_.fail_on_data_loss);
  WEIR_ASSIGN_OR_RETURN(start_, source_->InitialOffsets(&reporter));
  ReportWarnings(reporter);
  return Status::OK();
}

// Spark refuses a checkpoint whose source subscribed to other topics: the offsets it holds mean
// nothing for the new topics, and planning a batch would first log an offsets/N for them. A
// pattern subscription may see topics come and go; it is not checked.
Status KafkaFlowSource::CheckSameSubscription(const kafka::PartitionOffsets& logged,
                                              const Checkpoint& checkpoint) const {
  const kafka::Subscription& sub = options_.subscription;
  if (sub.kind == kafka::Subscription::Kind::kSubscribePattern || logged.empty()) {
    return Status::OK();
  }
  std::set<std::string> now;
  if (sub.kind == kafka::Subscription::Kind::kSubscribe) {
    now.insert(sub.topics.begin(), sub.topics.end());
  } else {
    for (const auto& tp : sub.partitions) now.insert(tp.topic);
  }
  std::set<std::string> before;
  for (const auto& [tp, offset] : logged) before.insert(tp.topic);
  if (before == now) return Status::OK();
  auto list = [](const std::set<std::string>& topics) {
    std::string out;
    for (const std::string& t : topics) out += (out.empty() ? "" : ", ") + t;
    return "[" + out + "]";
  };
  return Status::InvalidArgument(
      "the checkpoint " + checkpoint.dir() + " of " + flow_ + " was written for the topics " +
      list(before) + ", but the query now reads " + sub.ToString() +
      ": changing the subscribed topics is not compatible with an existing checkpoint. Go back "
      "to the old subscription, or start the flow with a new checkpoint folder (it then resumes "
      "each partition from the table's per-partition progress, or from startingOffsets)");
}

Status KafkaFlowSource::LookUpNewPartitions(const kafka::PartitionOffsets& end) {
  std::set<kafka::TopicPartition> added;
  for (const auto& [tp, offset] : end) {
    if (!start_.count(tp) && !new_partition_earliest_.count(tp)) added.insert(tp);
  }
  if (added.empty()) return Status::OK();
  WEIR_ASSIGN_OR_RETURN(auto earliest, source_->EarliestOffsets(added));
  for (const auto& [tp, offset] : earliest) new_partition_earliest_[tp] = offset;
  return Status::OK();
}

Result<std::optional<std::string>> KafkaFlowSource::PlanNext(const Trigger& trigger,
                                                             int64_t trigger_start_ms) {
  if (group_offsets_) group_offsets_->Poll();  // held-back commits that became due
  if (group_) return PlanNextInGroup(trigger, trigger_start_ms);
  kafka::ReadLimits limits;  // Trigger.Once: everything available, whatever the options say
  if (trigger.kind == Trigger::Kind::kOnce) {
    limits.all_available = true;
  } else {
    limits = kafka::ReadLimits::FromOptions(options_);
  }
  const bool capped = trigger.kind == Trigger::Kind::kAvailableNow && available_now_cap_;
  if (capped) {
    // Spark's availableNow reads up to the offsets it took at the start and asks the broker for
    // nothing more (an offsets request queued behind a fetch waiting at the end of the data costs
    // up to fetch.wait.max.ms per batch). New partitions wait for the next run, as in Spark.
    latest_ = *available_now_cap_;
  } else {
    WEIR_ASSIGN_OR_RETURN(std::set<kafka::TopicPartition> partitions, source_->ListPartitions());
    WEIR_ASSIGN_OR_RETURN(latest_, source_->LatestOffsets(partitions, start_));
    new_partition_earliest_.clear();
    WEIR_RETURN_NOT_OK(LookUpNewPartitions(latest_));
  }
  if (trigger.kind == Trigger::Kind::kAvailableNow && !available_now_cap_) {
    available_now_cap_ = latest_;  // taken once, at the start
    backlog_ = 0;
    for (const auto& [tp, cap] : latest_) {
      auto from = start_.find(tp);
      auto earliest = new_partition_earliest_.find(tp);
      int64_t first = from != start_.end()                        ? from->second
                      : earliest != new_partition_earliest_.end() ? earliest->second
                                                                  : cap;
      if (cap > first) backlog_ += cap - first;
    }
  }
  const kafka::PartitionOffsets& target = available_now_cap_ ? *available_now_cap_ : latest_;
  kafka::PartitionOffsets end = kafka::PlanBatchEnd(start_, target, new_partition_earliest_, limits,
                                                    trigger_start_ms, &last_trigger_ms_);
  // Spark runs a batch when the end offsets differ from the start in any way: new data, new
  // partitions, or partitions gone (which the batch then reports as data loss).
  if (end == start_) return std::optional<std::string>();
  return std::optional<std::string>(kafka::PartitionOffsetsToJson(end));
}

Status KafkaFlowSource::JoinGroup(
    const std::string& group,
    std::function<Result<std::shared_ptr<const delta::Snapshot>>()> table) {
  if (options_.subscription.kind == kafka::Subscription::Kind::kAssign) {
    return Status::InvalidArgument(
        "worker mode (--workers-group) needs read_kafka's subscribe or subscribePattern: the "
        "group assigns partitions to workers, and " + description() + " lists them itself");
  }
  if (options_.commit_offsets_to_group == group) {
    return Status::InvalidArgument(
        "weir.commitOffsetsToGroup names the workers' own group " + group +
        "; use another group name for lag monitoring");
  }
  WEIR_ASSIGN_OR_RETURN(std::set<kafka::TopicPartition> partitions, source_->ListPartitions());
  std::set<std::string> topics;
  for (const auto& tp : partitions) topics.insert(tp.topic);
  if (topics.empty()) {
    return Status::NotFound("worker mode: no topic matches " + description() +
                            " yet; create the topic first");
  }
  auto log = [this](const std::string& line) { Log(line); };
  WEIR_ASSIGN_OR_RETURN(group_, kafka::GroupMember::Open(options_, group, {topics.begin(), topics.end()},
                                                         log));
  table_ = std::move(table);
  return Status::OK();
}

Status KafkaFlowSource::ResolveUntracked(const std::set<kafka::TopicPartition>& partitions) {
  std::set<kafka::TopicPartition> unknown;
  for (const auto& tp : partitions) {
    if (!untracked_start_.count(tp)) unknown.insert(tp);
  }
  if (unknown.empty()) return Status::OK();
  kafka::DataLossReporter reporter(options_.fail_on_data_loss);
  WEIR_ASSIGN_OR_RETURN(kafka::PartitionOffsets initial, source_->InitialOffsets(&reporter));
  ReportWarnings(reporter);
  std::set<kafka::TopicPartition> later;  // created after the flow's start: from their earliest
  for (const auto& tp : unknown) {
    auto it = initial.find(tp);
    if (it != initial.end()) {
      untracked_start_[tp] = it->second;
    } else {
      later.insert(tp);
    }
  }
  if (later.empty()) return Status::OK();
  WEIR_ASSIGN_OR_RETURN(auto earliest, source_->EarliestOffsets(later));
  for (const auto& [tp, offset] : earliest) untracked_start_[tp] = offset;
  return Status::OK();
}

Result<std::optional<std::string>> KafkaFlowSource::PlanNextInGroup(const Trigger& trigger,
                                                                    int64_t trigger_start_ms) {
  (void)trigger;  // processingTime (StreamingQuery checks): no availableNow cap
  // A subscribePattern source follows topics that appear or go.
  WEIR_ASSIGN_OR_RETURN(std::set<kafka::TopicPartition> partitions, source_->ListPartitions());
  std::set<std::string> topic_set;
  for (const auto& tp : partitions) topic_set.insert(tp.topic);
  std::vector<std::string> topics(topic_set.begin(), topic_set.end());
  if (!topics.empty() && topics != group_->topics()) {
    WEIR_RETURN_NOT_OK(group_->Subscribe(topics));
  }
  std::set<kafka::TopicPartition> owned;
  for (const auto& tp : group_->Assignment()) {
    if (partitions.count(tp)) owned.insert(tp);
  }
  start_.clear();
  latest_.clear();
  table_progress_.clear();
  if (owned.empty()) return std::optional<std::string>();
  WEIR_ASSIGN_OR_RETURN(std::shared_ptr<const delta::Snapshot> table, table_());
  WEIR_ASSIGN_OR_RETURN(const kafka::PartitionOffsets progress, TableProgress(*table, flow_));
  std::set<kafka::TopicPartition> untracked;
  for (const auto& tp : owned) {
    auto it = progress.find(tp);
    if (it != progress.end()) {
      start_[tp] = table_progress_[tp] = it->second;
    } else {
      untracked.insert(tp);
    }
  }
  WEIR_RETURN_NOT_OK(ResolveUntracked(untracked));
  for (const auto& tp : untracked) start_[tp] = untracked_start_.at(tp);
  WEIR_ASSIGN_OR_RETURN(latest_, source_->LatestOffsets(owned, start_));
  kafka::PartitionOffsets end =
      kafka::PlanBatchEnd(start_, latest_, {}, kafka::ReadLimits::FromOptions(options_),
                          trigger_start_ms, &last_trigger_ms_);
  // A partition the table has no txn for yet gets one with the next batch, data or not: its
  // starting offset is then the table's, so a new owner cannot pick a later "latest".
  if (end == start_ && table_progress_.size() == owned.size()) return std::optional<std::string>();
  return std::optional<std::string>(kafka::PartitionOffsetsToJson(end));
}

Status KafkaFlowSource::PlanRead(const std::string& end_json) {
  WEIR_ASSIGN_OR_RETURN(kafka::PartitionOffsets end, Parse(end_json));
  // Partitions new in the batch start from their earliest offset, as when it was first planned.
  WEIR_RETURN_NOT_OK(LookUpNewPartitions(end));
  if (latest_.empty()) latest_ = end;  // a re-run batch: its end is the latest we know
  kafka::DataLossReporter reporter(options_.fail_on_data_loss);
  WEIR_ASSIGN_OR_RETURN(ranges_, kafka::PlanBatchRanges(start_, end, new_partition_earliest_,
                                                        options_.group_id.has_value(),
                                                        kafka::RangeSplit{}, &reporter));
  ReportWarnings(reporter);
  return Status::OK();
}

int64_t KafkaFlowSource::PlannedRows() const {
  int64_t rows = 0;
  for (const auto& r : ranges_) rows += r.size();
  return rows;
}

Result<BatchPrefetcher::Producer> KafkaFlowSource::Read(int64_t chunk_rows) {
  WEIR_ASSIGN_OR_RETURN(reader_, source_->Read(ranges_));
  std::shared_ptr<kafka::RangeReader> reader = reader_;
  const bool headers = options_.include_headers;
  columnar::Schema schema = schema_;
  return BatchPrefetcher::Producer(
      [reader, headers, schema, chunk_rows]() -> Result<std::optional<columnar::Batch>> {
        while (!reader->done()) {
          WEIR_ASSIGN_OR_RETURN(kafka::RecordBatch records,
                                reader->Next(static_cast<size_t>(chunk_rows)));
          if (records.empty()) continue;
          auto shared = std::make_shared<const kafka::RecordBatch>(std::move(records));
          columnar::Batch input(schema);
          AppendKafkaRecords(shared, headers, &input);
          return std::optional<columnar::Batch>(std::move(input));
        }
        return std::optional<columnar::Batch>();
      });
}

void KafkaFlowSource::FinishRead() {
  if (!reader_) return;
  for (const auto& w : reader_->stats().warnings) Log("WARN " + w);
  skipped_offsets_ += reader_->stats().skipped_offsets;
  avg_record_bytes_ = reader_->stats().AvgRecordBytes();
  reader_.reset();
}

std::map<std::string, int64_t> KafkaFlowSource::SinkTxns(const std::string& end_json) const {
  std::map<std::string, int64_t> txns;
  auto end = kafka::PartitionOffsetsFromJson(end_json);
  if (!end.ok()) return txns;
  // Only partitions the batch advanced: an idle partition's txn is already at its offset, and
  // repeating it would read as "this batch is already committed". In worker mode also those the
  // table has no txn for (PlanNextInGroup).
  for (const auto& [tp, offset] : *end) {
    if (!Advanced(tp, offset) && !Unpinned(tp)) continue;
    txns[PartitionAppId(flow_, tp)] = offset;
  }
  return txns;
}

bool KafkaFlowSource::Advanced(const kafka::TopicPartition& tp, int64_t end) const {
  auto started = start_.find(tp);
  return started == start_.end() || started->second != end;
}

bool KafkaFlowSource::Unpinned(const kafka::TopicPartition& tp) const {
  return group_ != nullptr && !table_progress_.count(tp);
}

std::map<std::string, std::optional<int64_t>> KafkaFlowSource::SinkExpectedTxns(
    const std::string& end_json) const {
  std::map<std::string, std::optional<int64_t>> expected;
  if (!group_) return expected;
  auto end = kafka::PartitionOffsetsFromJson(end_json);
  if (!end.ok()) return expected;
  for (const auto& [tp, offset] : *end) {
    if (!Advanced(tp, offset) && !Unpinned(tp)) continue;
    auto from_table = table_progress_.find(tp);
    expected[PartitionAppId(flow_, tp)] =
        from_table != table_progress_.end() ? std::optional<int64_t>(from_table->second)
                                            : std::nullopt;
  }
  return expected;
}

void KafkaFlowSource::Report(const std::string& end_json, SourceProgress* progress) const {
  progress->description = description();
  progress->start_offset = kafka::PartitionOffsetsToJson(start_);
  progress->end_offset = end_json;
  progress->latest_offset = kafka::PartitionOffsetsToJson(latest_);
  auto end = kafka::PartitionOffsetsFromJson(end_json);
  if (end.ok()) {
    auto lag = kafka::ComputeLag(
        *end, latest_,
        avg_record_bytes_ > 0 ? std::optional<double>(avg_record_bytes_) : std::nullopt);
    if (lag) progress->metrics = lag->ToSparkMetrics();
  }
  if (skipped_offsets_ > 0)
    progress->metrics["weir.skippedOffsets"] = std::to_string(skipped_offsets_);
}

Status KafkaFlowSource::Advance(const std::string& end_json) {
  WEIR_ASSIGN_OR_RETURN(start_, Parse(end_json));
  ranges_.clear();
  CommitGroupOffsets();
  return Status::OK();
}

// Best effort: failures are logged warnings (the checkpoint and the table are the truth).
void KafkaFlowSource::CommitGroupOffsets() {
  if (group_offsets_) group_offsets_->Commit(start_);
}

std::string KafkaFlowSource::StartJson() const { return kafka::PartitionOffsetsToJson(start_); }

}  // namespace weir::stream
