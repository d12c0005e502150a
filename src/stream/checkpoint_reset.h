// A deliberate restart of a Kafka flow from other positions than where it stands: an incident
// runbook's "controlled restart from a later position, plus a backfill of the skipped range"
// (`weir checkpoint reset`, docs/migration.md). Planned first (nothing written), refused when
// ambiguous, and recorded where the flow and its readers look:
//
//   - the flow's table gets one Delta commit without data: commitInfo operation
//     WEIR CHECKPOINT RESET (operationParameters: the flow, the position asked for, the reason,
//     the previous and the new offsets, the skipped and re-read ranges [from, to) per partition)
//     with the txns weir:<flow>:<topic>:<partition> moved to the new positions. The commit
//     expects each of those txns unchanged since the plan (Conflict otherwise), so it cannot
//     overtake a batch that committed meanwhile;
//   - then the flow's checkpoint gets one more committed, empty batch: offsets/N and commits/N
//     whose end offsets are the new positions (Spark's layout, so weir or Spark resume batch N+1
//     from them; the confs and watermark the checkpoint recorded are kept). A flow without a
//     checkpoint gets a new one whose batch 0 is that batch (and sources/0/0 the positions).
//
// A crash between the two leaves the table's record and the old checkpoint: the next run reads
// from the old positions (nothing is lost), and running the same reset again finishes it.
// `weir validate` reads the records back (ReadResetSkips) and names the offsets they skipped
// as deliberate instead of as gaps, until a backfill writes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "fs/file_system.h"
#include "kafka/offsets.h"
#include "kafka/options.h"
#include "kafka/planner.h"
#include "stream/checkpoint.h"
#include "stream/streaming_query.h"

namespace weir::stream {

inline constexpr char kResetOperation[] = "WEIR CHECKPOINT RESET";

// Where the flow restarts, as a Spark starting position.
struct ResetTarget {
  kafka::OffsetSpec spec;
  kafka::NoMatchStrategy strategy = kafka::NoMatchStrategy::kError;
  std::string description;  // as given, e.g. "startingTimestamp=1731484800000"
};

// Parses one Spark starting option (startingOffsets, startingTimestamp or
// startingOffsetsByTimestamp, names case-insensitive) with Spark's rules and messages, and
// startingOffsetsByTimestampStrategy (error | latest) when given.
Result<ResetTarget> ParseResetTarget(const std::string& option, const std::string& value,
                                     const std::optional<std::string>& strategy = std::nullopt);

// One partition's move.
struct ResetPartition {
  kafka::TopicPartition tp;
  std::optional<int64_t> table;       // the table's txn for the partition (none: never written)
  std::optional<int64_t> checkpoint;  // where the checkpoint's next batch would start it
  // The position moved from: the table's, else the checkpoint's, else the earliest offset.
  int64_t current = 0;
  std::string current_from;           // "table", "checkpoint" or "earliest"
  int64_t earliest = 0;               // on the broker, when planned
  int64_t latest = 0;
  int64_t target = 0;                 // the new position
  int64_t skipped() const { return target > current ? target - current : 0; }
  int64_t reprocessed() const { return target < current ? current - target : 0; }
};

struct ResetPlan {
  std::string flow;
  std::string table_path;
  std::string checkpoint_dir;
  std::string position;      // ResetTarget::description
  int64_t table_version = -1;  // the table version planned from
  bool checkpoint_exists = false;
  int64_t batch_id = 0;      // the batch the reset writes (0 for a new checkpoint)
  int64_t watermark_ms = 0;  // the checkpoint's watermark, kept
  std::vector<ResetPartition> partitions;  // the subscription's partitions now, sorted
  std::vector<std::string> notes;     // worth knowing; do not stop the reset
  std::vector<std::string> refusals;  // why it cannot be confirmed (empty: it can)

  int64_t skipped() const;
  int64_t reprocessed() const;
  // Some partition's txn differs from its new position, or the next run would start it elsewhere.
  bool changes() const;
  bool table_changes() const;       // some txn is not at its new position (or absent)
  bool checkpoint_changes() const;  // the checkpoint (or its absence) starts a partition elsewhere
  // {"topic":{"0":n,...}} of the positions before / after.
  std::string CurrentJson() const;
  std::string TargetJson() const;
  // The backfill of the skipped offsets as a batch read's startingOffsets / endingOffsets
  // (`weir kafka read`): from the old to the new position where a partition skips, an empty
  // range elsewhere.
  std::string BackfillStartJson() const;
  std::string BackfillEndJson() const;
};

struct ResetRequest {
  ResetTarget target;
  bool allow_reprocess = false;  // a position behind the table's progress re-reads rows
};

// InvalidArgument naming the source for a flow that does not read Kafka.
Status CheckResettable(const FlowSpec& flow);

// Plans a reset of the Kafka flow `flow` (a FlowSpec from MakeFlow) without writing anything:
// resolves the target over `partitions` (the subscription's partitions now) through `lookup`,
// exactly as the flow's first start resolves startingOffsets (kafka::ResolveStartingOffsets: a
// specific position must name every partition). Errors: InvalidArgument for a flow that does not
// read Kafka or a target that does not resolve, NotFound when the table does not exist yet; the
// reasons a reset would be refused (a running flow, a batch not committed, state in the
// checkpoint, a move backwards without allow_reprocess, a position past the end) are the plan's
// refusals.
Result<ResetPlan> PlanReset(fs::FileSystem* fs, const FlowSpec& flow, const ResetRequest& request,
                            const std::set<kafka::TopicPartition>& partitions,
                            kafka::OffsetLookup& lookup);

struct ResetResult {
  int64_t table_version = -1;  // the WEIR CHECKPOINT RESET commit
  int64_t batch_id = 0;        // the checkpoint batch written
};

// Carries out `plan`: the Delta commit (unless every txn is already at its new position: a reset
// that stopped before its checkpoint batch), then the checkpoint batch (unless the checkpoint
// already starts there). InvalidArgument when the plan has refusals or changes nothing, or a flow
// started running on the checkpoint; Conflict when the table or the checkpoint moved since the
// plan (plan again).
Result<ResetResult> ApplyReset(fs::FileSystem* fs, const ResetPlan& plan,
                               const std::string& reason);

// The offsets one reset skipped in one partition: [from, to).
struct ResetSkip {
  int64_t version = 0;  // the table version of the WEIR CHECKPOINT RESET commit
  std::string topic;
  int32_t partition = 0;
  int64_t from = 0;
  int64_t to = 0;
};

// Every range the WEIR CHECKPOINT RESET commits of the table at `table_path` skipped, in version
// order. Only commits the log still holds (a log cleanup after delta.logRetentionDuration forgets
// older ones, and their ranges read as gaps again). Corruption for a reset commit whose
// parameters do not parse.
Result<std::vector<ResetSkip>> ReadResetSkips(fs::FileSystem* fs, const std::string& table_path);

// Of the missing offsets [from, to) of `partition` (its value in the table, as text), the parts
// `skips` explain: disjoint, ascending, each with the reset that skipped it. Topics are not
// compared (a table's partition column does not name them).
std::vector<ResetSkip> ExplainMissing(const std::vector<ResetSkip>& skips,
                                      std::string_view partition, int64_t from, int64_t to);

// "skipped by checkpoint reset at version 7: partition 0 offsets [100, 250)"
std::string DescribeSkip(const ResetSkip& skip);

}  // namespace weir::stream
