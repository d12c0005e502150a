// KafkaFlowSource: a Kafka / Event Hubs subscription as a flow source, planned as Spark's
// KafkaMicroBatchStream plans it (kafka/planner.h): rate limits, availableNow cap, new and
// deleted partitions, data-loss checks. With the batch it commits one txn per partition,
// appId "weir:<flow>:<topic>:<partition>" with the next offset, so a flow whose checkpoint was
// lost resumes every partition from its table. With weir.commitOffsetsToGroup it also commits
// each committed batch's end offsets to that consumer group for external lag monitors (best
// effort, rate limited; kafka/group_offsets.h).
//
// Worker mode (JoinGroup): several processes share one flow and one table. The consumer group
// decides which partitions this worker reads (kafka/group_member.h); every batch starts each of
// them at the table's per-partition txn (else at startingOffsets, remembered for the partition),
// and its commit expects those txns unchanged, so a batch that raced another worker for a
// partition fails with Conflict and nothing is written twice or skipped.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "kafka/consumer.h"
#include "kafka/group_member.h"
#include "kafka/group_offsets.h"
#include "kafka/options.h"
#include "kafka/planner.h"
#include "stream/flow_source.h"

namespace weir::stream {

// The per-partition progress txn's appId: "weir:<flow>:<topic>:<partition>".
std::string PartitionAppId(const std::string& flow, const kafka::TopicPartition& tp);
// The flow's per-partition progress in its table: the next offset of every partition it wrote
// (or that `weir checkpoint reset` moved). Corruption naming the table and the appId when one of
// the flow's txns is not of that form.
Result<kafka::PartitionOffsets> TableProgress(const delta::Snapshot& table,
                                              const std::string& flow);

class KafkaFlowSource : public FlowSource {
 public:
  // `flow` is the streaming table's full name; `log` gets one line per warning.
  static Result<std::unique_ptr<KafkaFlowSource>> Open(kafka::KafkaSourceOptions options,
                                                       std::string flow,
                                                       std::function<void(const std::string&)> log);

  // Worker mode: joins consumer group `group`; `table` returns the flow's table as of now.
  // Refused for an assign subscription (the group assigns partitions) and for
  // weir.commitOffsetsToGroup naming the same group.
  Status JoinGroup(const std::string& group,
                   std::function<Result<std::shared_ptr<const delta::Snapshot>>()> table);
  bool in_group() const { return group_ != nullptr; }

  const columnar::Schema& schema() const override { return schema_; }
  std::string description() const override;
  Status StartFresh(Checkpoint& checkpoint, const delta::Snapshot& table) override;
  Status Restore(const std::optional<std::string>& end_json, Checkpoint& checkpoint) override;
  Result<std::optional<std::string>> PlanNext(const Trigger& trigger, int64_t trigger_start_ms) override;
  int64_t BacklogRows() const override { return backlog_; }
  Status PlanRead(const std::string& end_json) override;
  int64_t PlannedRows() const override;
  Result<BatchPrefetcher::Producer> Read(int64_t chunk_rows) override;
  void FinishRead() override;
  std::map<std::string, int64_t> SinkTxns(const std::string& end_json) const override;
  std::map<std::string, std::optional<int64_t>> SinkExpectedTxns(
      const std::string& end_json) const override;
  void Report(const std::string& end_json, SourceProgress* progress) const override;
  Status Advance(const std::string& end_json) override;
  // Not in worker mode (the table decides each batch's start) nor when Advance commits the
  // consumer group's offsets.
  bool CanPlanAhead() const override { return group_ == nullptr && group_offsets_ == nullptr; }
  std::string StartJson() const override;

 private:
  KafkaFlowSource(kafka::KafkaSourceOptions options, std::string flow,
                  std::function<void(const std::string&)> log);
  void Log(const std::string& line) const {
    if (log_) log_(line);
  }
  void ReportWarnings(const kafka::DataLossReporter& reporter);
  Result<kafka::PartitionOffsets> Parse(const std::string& json) const;
  // Earliest offsets of the partitions in `end` that are not in start_ (new in the batch).
  Status CheckSameSubscription(const kafka::PartitionOffsets& logged,
                               const Checkpoint& checkpoint) const;
  Status LookUpNewPartitions(const kafka::PartitionOffsets& end);
  // Commits start_ to the weir.commitOffsetsToGroup group (if set; rate limited, best effort).
  void CommitGroupOffsets();
  // Whether the batch ending at `end` moves partition `tp`.
  bool Advanced(const kafka::TopicPartition& tp, int64_t end) const;
  // Worker mode: the table has no txn for `tp` yet (the batch being planned sets one).
  bool Unpinned(const kafka::TopicPartition& tp) const;
  // Worker mode's PlanNext: the owned partitions from where the table says.
  Result<std::optional<std::string>> PlanNextInGroup(const Trigger& trigger, int64_t trigger_start_ms);
  // Worker mode: where owned partitions without a txn in the table start (startingOffsets, looked
  // up once per partition and kept).
  Status ResolveUntracked(const std::set<kafka::TopicPartition>& partitions);

  kafka::KafkaSourceOptions options_;
  std::string flow_;
  std::function<void(const std::string&)> log_;
  columnar::Schema schema_;
  std::unique_ptr<kafka::KafkaSource> source_;
  kafka::PartitionOffsets start_;
  kafka::PartitionOffsets latest_;  // as of the last PlanNext (or the re-run batch's end)
  kafka::PartitionOffsets new_partition_earliest_;
  std::optional<kafka::PartitionOffsets> available_now_cap_;
  int64_t last_trigger_ms_ = 0;
  int64_t backlog_ = 0;
  std::vector<kafka::OffsetRange> ranges_;
  std::shared_ptr<kafka::RangeReader> reader_;
  int64_t skipped_offsets_ = 0;
  double avg_record_bytes_ = 0;
  // Worker mode.
  std::function<Result<std::shared_ptr<const delta::Snapshot>>()> table_;
  kafka::PartitionOffsets table_progress_;  // the owned partitions' txns the batch started from
  kafka::PartitionOffsets untracked_start_;  // partitions without a txn: their starting offsets
  // weir.commitOffsetsToGroup; last, so it flushes while the rest is alive.
  std::unique_ptr<kafka::GroupOffsetCommitter> group_offsets_;
  std::unique_ptr<kafka::GroupMember> group_;  // worker mode; last: leaves the group first
};

}  // namespace weir::stream
