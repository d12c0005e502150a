// Offset planning for the Kafka source as pure functions reproducing Spark bit for bit:
// the maxOffsetsPerTrigger split (KafkaMicroBatchStream.rateLimit, Double arithmetic included),
// minOffsetsPerTrigger/maxTriggerDelay (delayBatch), the Trigger.AvailableNow cap and checks,
// minPartitions/maxRecordsPerPartition splitting (KafkaOffsetRangeCalculator.getRanges),
// starting-offset resolution (KafkaOffsetReaderAdmin) and the data-loss conditions with Spark's
// messages (KAFKA_DATA_LOSS.*, kafka-error-conditions.json). No I/O: broker facts come in as
// arguments or through the OffsetLookup interface. Thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "kafka/offsets.h"
#include "kafka/options.h"

namespace weir::kafka {

// ---------------------------------------------------------------------------------------------
// Data loss

// Spark's KAFKA_DATA_LOSS sub-conditions.
enum class DataLossKind {
  kInitialOffsetNotFoundForPartitions,
  kAddedPartitionDoesNotStartFromOffsetZero,
  kPartitionsDeleted,
  kPartitionsDeletedAndGroupIdConfigPresent,
  kPartitionOffsetChanged,
  kStartOffsetReset,
  kCouldNotReadOffsetRange,
};

// "KAFKA_DATA_LOSS.PARTITIONS_DELETED" etc.
std::string DataLossConditionName(DataLossKind kind);

// A detected loss. `error` is the failOnDataLoss=true text (Spark's KAFKA_DATA_LOSS message:
// aged out / topic deleted, how to set failOnDataLoss=false, then the reason); `warning` is the
// failOnDataLoss=false log line (Spark's message + its "set failOnDataLoss to true" instruction).
struct DataLossEvent {
  DataLossKind kind;
  std::string error;
  std::string warning;
  std::optional<TopicPartition> tp;
  int64_t skipped_offsets = 0;  // offsets known to be skipped (0 when unknown)
};

// Builders for each condition with Spark's parameters.
DataLossEvent InitialOffsetNotFound(const std::set<TopicPartition>& partitions);
DataLossEvent AddedPartitionNotFromZero(const TopicPartition& tp, int64_t start_offset);
DataLossEvent PartitionsDeleted(const std::set<TopicPartition>& partitions, bool custom_group_id);
DataLossEvent PartitionOffsetChanged(const TopicPartition& tp, int64_t prev, int64_t now);
DataLossEvent StartOffsetReset(const TopicPartition& tp, int64_t offset, int64_t fetched);
// `group_id` as Spark prints it ("null" when empty). `detail` is the warning's lead
// ("Skip missing records in [a, b)" / "Cannot fetch offset a").
DataLossEvent CouldNotReadOffsetRange(const TopicPartition& tp, int64_t start, int64_t end,
                                      const std::string& group_id, const std::string& detail);

// Collects data-loss events for one planning step. With fail_on_data_loss the first event is
// the result (Status::DataLoss with the event's error text); otherwise events are kept as
// warnings and counted, and planning continues.
class DataLossReporter {
 public:
  explicit DataLossReporter(bool fail_on_data_loss) : fail_(fail_on_data_loss) {}
  // Returns DataLoss when failing; OK after recording a warning otherwise.
  Status Report(DataLossEvent event);
  const std::vector<DataLossEvent>& events() const { return events_; }
  std::vector<std::string> Warnings() const;
  int64_t skipped_offsets() const;
  bool fail_on_data_loss() const { return fail_; }

 private:
  bool fail_;
  std::vector<DataLossEvent> events_;
};

// ---------------------------------------------------------------------------------------------
// Batch end offsets: rate limits

// KafkaMicroBatchStream.rateLimit. `from`: the batch start; `until`: latest offsets;
// `new_partition_earliest`: earliest offsets of partitions in `until` but not in `from`
// (partitions missing there are left at `until`). Exact Spark arithmetic:
// prorate = limit * (size / total) in doubles, ceil if < 1 else floor, saturating adds.
PartitionOffsets RateLimit(int64_t limit, const PartitionOffsets& from,
                           const PartitionOffsets& until,
                           const PartitionOffsets& new_partition_earliest);

// KafkaMicroBatchStream.delayBatch: true = skip this trigger. Updates *last_trigger_ms when the
// batch runs. New records are summed as latest - current (0 for partitions not in current).
bool DelayBatch(int64_t min_limit, const PartitionOffsets& latest,
                const PartitionOffsets& current, int64_t max_trigger_delay_ms, int64_t now_ms,
                int64_t* last_trigger_ms);

// The read limits of a trigger (Spark's ReadLimit): Trigger.Once reads all available.
struct ReadLimits {
  bool all_available = false;
  std::optional<int64_t> max_offsets;  // maxOffsetsPerTrigger
  std::optional<int64_t> min_offsets;  // minOffsetsPerTrigger
  int64_t max_trigger_delay_ms = 15 * 60 * 1000;
  static ReadLimits FromOptions(const KafkaSourceOptions& options);
};

// KafkaMicroBatchStream.latestOffset(start, readLimit): the end offsets of the next batch.
// `latest` is the broker's latest offsets (for Trigger.AvailableNow: the offsets taken once at
// query start). Returns `start` when minOffsetsPerTrigger delays the batch. `last_trigger_ms`
// is the delayBatch state (starts at 0, so the first trigger always runs).
PartitionOffsets PlanBatchEnd(const PartitionOffsets& start, const PartitionOffsets& latest,
                              const PartitionOffsets& new_partition_earliest,
                              const ReadLimits& limits, int64_t now_ms, int64_t* last_trigger_ms);

// KafkaMicroBatchStream.verifyEndOffsetForTriggerAvailableNow: `prefetched` are the latest
// offsets taken at query start, `end` a batch end, `latest_now` the broker's latest offsets now.
// Errors are Internal with Spark's texts (MISMATCHED_TOPIC_PARTITIONS_BETWEEN_END_OFFSET_AND_
// PREFETCHED, END_OFFSET_HAS_GREATER_OFFSET_..., LOST_TOPIC_PARTITIONS_IN_END_OFFSET_...).
Status VerifyAvailableNowEnd(const PartitionOffsets& prefetched, const PartitionOffsets& end,
                             const PartitionOffsets& latest_now);

// ---------------------------------------------------------------------------------------------
// Batch ranges

struct RangeSplit {
  std::optional<int32_t> min_partitions;
  std::optional<int64_t> max_records_per_partition;
  static RangeSplit FromOptions(const KafkaSourceOptions& options);
};

// KafkaOffsetRangeCalculator.getRanges: drops empty/negative ranges, then splits by
// maxRecordsPerPartition (ceil(size / max) parts) and/or minPartitions (proportional, with the
// unsplit-range exclusion of SPARK-36576). Output is sorted by (topic, partition, from).
std::vector<OffsetRange> SplitRanges(const std::vector<OffsetRange>& ranges,
                                     const RangeSplit& split);

// KafkaOffsetReaderAdmin.getOffsetRangesFromResolvedOffsets: the ranges of a batch
// [from, until). New partitions (in `until`, not in `from`) start at their earliest offset
// (`new_partition_earliest`; missing = deleted -> INITIAL_OFFSET_NOT_FOUND_FOR_PARTITIONS;
// non-zero -> ADDED_PARTITION_DOES_NOT_START_FROM_OFFSET_ZERO); partitions in `from` but not
// in `until` -> PARTITIONS_DELETED; until < from -> PARTITION_OFFSET_CHANGED. Each goes through
// `reporter` (fails on the first when failOnDataLoss). Then SplitRanges.
Result<std::vector<OffsetRange>> PlanBatchRanges(const PartitionOffsets& from,
                                                 const PartitionOffsets& until,
                                                 const PartitionOffsets& new_partition_earliest,
                                                 bool custom_group_id, const RangeSplit& split,
                                                 DataLossReporter* reporter);

// Checks planned ranges against the broker's earliest offsets (retention): a range starting
// below earliest lost [from, min(earliest, until)) -> COULD_NOT_READ_OFFSET_RANGE. With
// failOnDataLoss=false the range is moved to start at min(earliest, until) ("Skip missing
// records in [a, b)"), as Spark's executor does. Ranges of partitions absent from `earliest`
// are left alone.
Result<std::vector<OffsetRange>> ClampRangesToEarliest(std::vector<OffsetRange> ranges,
                                                       const PartitionOffsets& earliest,
                                                       const std::string& group_id,
                                                       DataLossReporter* reporter);

// ---------------------------------------------------------------------------------------------
// Starting offsets

// Broker offset queries. KafkaSource implements it against librdkafka; tests use fakes.
class OffsetLookup {
 public:
  virtual ~OffsetLookup() = default;
  virtual Result<PartitionOffsets> EarliestOffsets(const std::set<TopicPartition>& partitions) = 0;
  virtual Result<PartitionOffsets> LatestOffsets(const std::set<TopicPartition>& partitions) = 0;
  // Per partition, the earliest offset whose timestamp is >= the given one, or kNoOffsetForTime
  // (-1) when there is none (Kafka's ListOffsets / offsetsForTimes).
  virtual Result<PartitionOffsets> OffsetsForTimes(const PartitionTimestamps& timestamps) = 0;
};
inline constexpr int64_t kNoOffsetForTime = -1;

// The first offsets of a query from startingOffsets / startingTimestamp /
// startingOffsetsByTimestamp (+ strategy) over the partitions assigned now, as Spark resolves
// them: specific offsets must name exactly the assigned partitions (else InvalidArgument with
// KAFKA_START_OFFSET_DOES_NOT_MATCH_ASSIGNED's text), -2/-1 become earliest/latest; a timestamp
// with no matching offset fails ("No offset matched from request of topic-partition $tp and
// timestamp $ts.") or takes latest per the strategy. A specific offset below the earliest
// available one is START_OFFSET_RESET through `reporter` (continuing from earliest).
Result<PartitionOffsets> ResolveStartingOffsets(const OffsetSpec& spec, NoMatchStrategy strategy,
                                                const std::set<TopicPartition>& assigned,
                                                OffsetLookup& lookup, DataLossReporter* reporter);

// For batch reads (weir kafka read): endingOffsets/endingTimestamp/endingOffsetsByTimestamp.
// A timestamp with no match resolves to latest (Spark's rule for ending offsets).
Result<PartitionOffsets> ResolveEndingOffsets(const OffsetSpec& spec,
                                              const std::set<TopicPartition>& assigned,
                                              OffsetLookup& lookup);

// ---------------------------------------------------------------------------------------------
// Lag metrics

// Spark's source metrics (KafkaMicroBatchStream.metrics) plus Databricks'
// estimatedTotalBytesBehindLatest. offsets behind = latest - end, per partition of `latest`.
struct LagMetrics {
  std::map<TopicPartition, int64_t> offsets_behind;
  int64_t min_offsets_behind = 0;
  int64_t max_offsets_behind = 0;
  double avg_offsets_behind = 0;
  std::optional<double> estimated_total_bytes_behind;  // avg record bytes x total behind

  // {"minOffsetsBehindLatest":"0","maxOffsetsBehindLatest":"5","avgOffsetsBehindLatest":"2.5"}
  // as Spark formats them (Java Long/Double toString); bytes when known.
  std::map<std::string, std::string> ToSparkMetrics() const;
};

// nullopt when there is nothing to report (no end offsets or no latest offsets), as Spark.
// `avg_record_bytes` (key + value + headers) enables the bytes estimate.
std::optional<LagMetrics> ComputeLag(const PartitionOffsets& end, const PartitionOffsets& latest,
                                     std::optional<double> avg_record_bytes = std::nullopt);

// Java's Double.toString (shortest round-trip digits; "1.0E7" style outside [1e-3, 1e7)).
std::string JavaDoubleToString(double value);

}  // namespace weir::kafka
