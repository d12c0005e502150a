#include "kafka/planner.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace weir::kafka {

namespace {

constexpr const char* kDataLossPreamble =
    "Some data may have been lost because they are not available in Kafka any more; either the "
    "data was aged out by Kafka or the topic may have been deleted before all the data in the "
    "topic was processed. If you don't want your streaming query to fail on such cases, set the "
    "source option failOnDataLoss to false. Reason: ";

// KafkaSourceProvider.INSTRUCTION_FOR_FAIL_ON_DATA_LOSS_FALSE (whitespace normalised).
constexpr const char* kInstructionForFailOnDataLossFalse =
    "Some data may have been lost because they are not available in Kafka any more; either the "
    "data was aged out by Kafka or the topic may have been deleted before all the data in the "
    "topic was processed. If you want your streaming query to fail on such cases, set the source "
    "option \"failOnDataLoss\" to \"true\".";

constexpr const char* kCustomGroupIdReason =
    "Kafka option 'kafka.group.id' has been set on this query, it is not recommended to set this "
    "option. This option is unsafe to use since multiple concurrent queries or sources using the "
    "same group id will interfere with each other as they are part of the same consumer group. "
    "Restarted queries may also suffer interference from the previous run having the same group "
    "id. The user should have only one query per group id, and/or set the option "
    "'kafka.session.timeout.ms' to be very small so that the Kafka consumers from the previous "
    "query are marked dead by the Kafka group coordinator before the restarted query starts "
    "running.";

DataLossEvent MakeEvent(DataLossKind kind, const std::string& reason,
                        const std::string& driver_message) {
  DataLossEvent e;
  e.kind = kind;
  e.error = "[" + DataLossConditionName(kind) + "] " + kDataLossPreamble + reason;
  e.warning = driver_message + ". " + kInstructionForFailOnDataLossFalse;
  return e;
}

// Scala's Double.toLong: truncation, saturating at the Long range, NaN -> 0.
int64_t DoubleToLong(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

// java.lang.Math.round(double): nearest, ties towards positive infinity.
int64_t JavaRound(double x) {
  double f = std::floor(x);
  if (x - f >= 0.5) f += 1.0;
  return DoubleToLong(f);
}

// KafkaOffsetRangeCalculator.getDividedPartition.
void DivideRange(int64_t parts, const OffsetRange& range, std::vector<OffsetRange>* out) {
  int64_t remaining = range.size();
  int64_t start = range.from;
  for (int64_t part = 0; part < parts; ++part) {
    int64_t this_partition = remaining / (parts - part);
    remaining -= this_partition;
    int64_t end = std::min(start + this_partition, range.until);
    if (end - start > 0) out->push_back(OffsetRange{range.tp, start, end});
    start = end;
  }
}

// KafkaOffsetRangeCalculator.getPartCount.
int64_t PartCount(int64_t size, int64_t total_size, int32_t min_parts) {
  double share = static_cast<double>(size) / static_cast<double>(total_size) * min_parts;
  return static_cast<int32_t>(std::max<int64_t>(JavaRound(share), 1));
}

void SortRanges(std::vector<OffsetRange>* ranges) {
  std::stable_sort(ranges->begin(), ranges->end(), [](const OffsetRange& a, const OffsetRange& b) {
    if (!(a.tp == b.tp)) return a.tp < b.tp;
    return a.from < b.from;
  });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Data loss

std::string DataLossConditionName(DataLossKind kind) {
  switch (kind) {
    case DataLossKind::kInitialOffsetNotFoundForPartitions:
      return "KAFKA_DATA_LOSS.INITIAL_OFFSET_NOT_FOUND_FOR_PARTITIONS";
    case DataLossKind::kAddedPartitionDoesNotStartFromOffsetZero:
      return "KAFKA_DATA_LOSS.ADDED_PARTITION_DOES_NOT_START_FROM_OFFSET_ZERO";
    case DataLossKind::kPartitionsDeleted:
      return "KAFKA_DATA_LOSS.PARTITIONS_DELETED";
    case DataLossKind::kPartitionsDeletedAndGroupIdConfigPresent:
      return "KAFKA_DATA_LOSS.PARTITIONS_DELETED_AND_GROUP_ID_CONFIG_PRESENT";
    case DataLossKind::kPartitionOffsetChanged:
      return "KAFKA_DATA_LOSS.PARTITION_OFFSET_CHANGED";
    case DataLossKind::kStartOffsetReset:
      return "KAFKA_DATA_LOSS.START_OFFSET_RESET";
    case DataLossKind::kCouldNotReadOffsetRange:
      return "KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE";
  }
  return "KAFKA_DATA_LOSS";
}

DataLossEvent InitialOffsetNotFound(const std::set<TopicPartition>& partitions) {
  std::string set = FormatPartitionSet(partitions);
  return MakeEvent(DataLossKind::kInitialOffsetNotFoundForPartitions,
                   "Cannot find initial offsets for partitions " + set +
                       ". They may have been deleted.",
                   "Cannot find earliest offsets of " + set + ". Some data may have been missed");
}

DataLossEvent AddedPartitionNotFromZero(const TopicPartition& tp, int64_t start_offset) {
  std::string so = std::to_string(start_offset);
  DataLossEvent e = MakeEvent(
      DataLossKind::kAddedPartitionDoesNotStartFromOffsetZero,
      "Added partition " + tp.ToString() + " starts from " + so + " instead of 0.",
      "Added partition " + tp.ToString() + " starts from " + so +
          " instead of 0. Some data may have been missed");
  e.tp = tp;
  e.skipped_offsets = start_offset;
  return e;
}

DataLossEvent PartitionsDeleted(const std::set<TopicPartition>& partitions,
                                bool custom_group_id) {
  std::string set = FormatPartitionSet(partitions);
  if (custom_group_id) {
    return MakeEvent(DataLossKind::kPartitionsDeletedAndGroupIdConfigPresent,
                     "Partitions " + set + " have been deleted. " + kCustomGroupIdReason,
                     set + " are gone. " + kCustomGroupIdReason);
  }
  return MakeEvent(DataLossKind::kPartitionsDeleted, "Partitions " + set + " have been deleted.",
                   set + " are gone. Some data may have been missed.");
}

DataLossEvent PartitionOffsetChanged(const TopicPartition& tp, int64_t prev, int64_t now) {
  std::string p = std::to_string(prev), n = std::to_string(now);
  DataLossEvent e = MakeEvent(
      DataLossKind::kPartitionOffsetChanged,
      "Partition " + tp.ToString() + " offset was changed from " + p + " to " + n +
          ". This could either be a user error that the start offset is set too high and this is "
          "the first batch, or the kafka topic-partition is broken, and some data may have been "
          "missed.",
      "Partition " + tp.ToString() + "'s offset was changed from " + p + " to " + n +
          ", some data may have been missed");
  e.tp = tp;
  return e;
}

DataLossEvent StartOffsetReset(const TopicPartition& tp, int64_t offset, int64_t fetched) {
  std::string o = std::to_string(offset), f = std::to_string(fetched);
  DataLossEvent e = MakeEvent(
      DataLossKind::kStartOffsetReset,
      "Starting offset for " + tp.ToString() + " was " + o + " but consumer reset to " + f + ".",
      "startingOffsets for " + tp.ToString() + " was " + o + " but consumer reset to " + f);
  e.tp = tp;
  e.skipped_offsets = fetched > offset ? fetched - offset : 0;
  return e;
}

DataLossEvent CouldNotReadOffsetRange(const TopicPartition& tp, int64_t start, int64_t end,
                                      const std::string& group_id, const std::string& detail) {
  std::string group = group_id.empty() ? "null" : group_id;
  DataLossEvent e;
  e.kind = DataLossKind::kCouldNotReadOffsetRange;
  e.error = "[" + DataLossConditionName(e.kind) + "] " + kDataLossPreamble +
            "Could not read records in offset [" + std::to_string(start) + ", " +
            std::to_string(end) + ") for topic partition " + tp.ToString() +
            " with consumer group " + group + ".";
  // KafkaDataConsumer.logOnDataLoss: "$message (GroupId: g, TopicPartition: tp). $INSTRUCTION"
  e.warning = detail + " (GroupId: " + group + ", TopicPartition: " + tp.ToString() + "). " +
              kInstructionForFailOnDataLossFalse;
  e.tp = tp;
  e.skipped_offsets = std::max<int64_t>(end - start, 0);
  return e;
}

Status DataLossReporter::Report(DataLossEvent event) {
  if (fail_) return Status::DataLoss(event.error);
  events_.push_back(std::move(event));
  return Status::OK();
}

std::vector<std::string> DataLossReporter::Warnings() const {
  std::vector<std::string> out;
  for (const auto& e : events_) out.push_back(e.warning);
  return out;
}

int64_t DataLossReporter::skipped_offsets() const {
  int64_t n = 0;
  for (const auto& e : events_) n += e.skipped_offsets;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Rate limits

PartitionOffsets RateLimit(int64_t limit, const PartitionOffsets& from,
                           const PartitionOffsets& until,
                           const PartitionOffsets& new_partition_earliest) {
  auto begin_of = [&](const TopicPartition& tp) -> std::optional<int64_t> {
    if (auto it = from.find(tp); it != from.end()) return it->second;
    // Spark's fromNew only holds partitions of `until` that are not in `from`.
    if (auto it = new_partition_earliest.find(tp); it != new_partition_earliest.end()) {
      return it->second;
    }
    return std::nullopt;
  };
  std::map<TopicPartition, int64_t> sizes;
  for (const auto& [tp, end] : until) {
    if (auto begin = begin_of(tp)) {
      int64_t size = end - *begin;
      if (size > 0) sizes[tp] = size;
    }
  }
  uint64_t sum = 0;  // Scala Long addition wraps; so does this
  for (const auto& [tp, size] : sizes) sum += static_cast<uint64_t>(size);
  const double total = static_cast<double>(static_cast<int64_t>(sum));
  if (total < 1) return until;

  PartitionOffsets out;
  for (const auto& [tp, end] : until) {
    auto size_it = sizes.find(tp);
    if (size_it == sizes.end()) {
      out[tp] = end;
      continue;
    }
    const int64_t begin = *begin_of(tp);
    const double prorate = static_cast<double>(limit) * (static_cast<double>(size_it->second) / total);
    // Don't completely starve small topic-partitions.
    const int64_t prorate_long = DoubleToLong(prorate < 1 ? std::ceil(prorate) : std::floor(prorate));
    const int64_t off = prorate_long > std::numeric_limits<int64_t>::max() - begin
                            ? std::numeric_limits<int64_t>::max()
                            : begin + prorate_long;
    out[tp] = std::min(end, off);
  }
  return out;
}

bool DelayBatch(int64_t min_limit, const PartitionOffsets& latest,
                const PartitionOffsets& current, int64_t max_trigger_delay_ms, int64_t now_ms,
                int64_t* last_trigger_ms) {
  if (now_ms - *last_trigger_ms >= max_trigger_delay_ms) {
    *last_trigger_ms = now_ms;
    return false;
  }
  uint64_t sum = 0;
  for (const auto& [tp, offset] : latest) {
    auto it = current.find(tp);
    sum += static_cast<uint64_t>(offset - (it == current.end() ? 0 : it->second));
  }
  const double new_records = static_cast<double>(static_cast<int64_t>(sum));
  if (new_records < static_cast<double>(min_limit)) return true;
  *last_trigger_ms = now_ms;
  return false;
}

ReadLimits ReadLimits::FromOptions(const KafkaSourceOptions& options) {
  ReadLimits limits;
  limits.max_offsets = options.max_offsets_per_trigger;
  limits.min_offsets = options.min_offsets_per_trigger;
  limits.max_trigger_delay_ms = options.max_trigger_delay_ms;
  return limits;
}

PartitionOffsets PlanBatchEnd(const PartitionOffsets& start, const PartitionOffsets& latest,
                              const PartitionOffsets& new_partition_earliest,
                              const ReadLimits& limits, int64_t now_ms,
                              int64_t* last_trigger_ms) {
  if (limits.all_available) return latest;
  if (limits.min_offsets && DelayBatch(*limits.min_offsets, latest, start,
                                       limits.max_trigger_delay_ms, now_ms, last_trigger_ms)) {
    return start;
  }
  if (limits.max_offsets) return RateLimit(*limits.max_offsets, start, latest, new_partition_earliest);
  return latest;
}

Status VerifyAvailableNowEnd(const PartitionOffsets& prefetched, const PartitionOffsets& end,
                             const PartitionOffsets& latest_now) {
  const std::string transient =
      " The error could be transient - restart your query, and report if you still see the same "
      "issue. ";
  if (KeysOf(prefetched) != KeysOf(end)) {
    return Status::Unavailable(
        "Kafka data source in Trigger.AvailableNow should provide the same topic partitions in "
        "pre-fetched offset to end offset for each microbatch." +
        transient + "topic-partitions for pre-fetched offset: " +
        FormatPartitionSet(KeysOf(prefetched)) +
        ", topic-partitions for end offset: " + FormatPartitionSet(KeysOf(end)) + ".");
  }
  for (const auto& [tp, offset] : prefetched) {
    if (end.at(tp) > offset) {
      return Status::Unavailable(
          "For Kafka data source with Trigger.AvailableNow, end offset should have lower or equal "
          "offset per each topic partition than pre-fetched offset." +
          transient + "pre-fetched offset: " + FormatOffsetMap(prefetched) +
          ", end offset: " + FormatOffsetMap(end) + ".");
    }
  }
  for (const auto& [tp, offset] : end) {
    if (!latest_now.count(tp)) {
      return Status::Unavailable(
          "Some of partitions in Kafka topic(s) have been lost during running query with "
          "Trigger.AvailableNow." +
          transient + "topic-partitions for latest offset: " +
          FormatPartitionSet(KeysOf(latest_now)) +
          ", topic-partitions for end offset: " + FormatPartitionSet(KeysOf(end)));
    }
  }
  for (const auto& [tp, offset] : end) {
    if (offset > latest_now.at(tp)) {
      return Status::Unavailable(
          "Some of partitions in Kafka topic(s) report available offset which is less than end "
          "offset during running query with Trigger.AvailableNow." +
          transient + "latest offset: " + FormatOffsetMap(latest_now) +
          ", end offset: " + FormatOffsetMap(end));
    }
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Ranges

RangeSplit RangeSplit::FromOptions(const KafkaSourceOptions& options) {
  return RangeSplit{options.min_partitions, options.max_records_per_partition};
}

std::vector<OffsetRange> SplitRanges(const std::vector<OffsetRange>& ranges,
                                     const RangeSplit& split) {
  std::vector<OffsetRange> offset_ranges;
  for (const auto& r : ranges) {
    if (r.size() > 0) offset_ranges.push_back(r);
  }
  SortRanges(&offset_ranges);
  const auto& min_partitions = split.min_partitions;
  const auto& max_records = split.max_records_per_partition;

  if ((!min_partitions || static_cast<int64_t>(offset_ranges.size()) >= *min_partitions) &&
      !max_records) {
    return offset_ranges;
  }
  std::vector<OffsetRange> divided;
  if (max_records) {
    for (const auto& r : offset_ranges) {
      int64_t parts = static_cast<int32_t>(
          DoubleToLong(std::ceil(static_cast<double>(r.size()) / static_cast<double>(*max_records))));
      DivideRange(parts, r, &divided);
    }
  } else {
    divided = offset_ranges;
  }
  if (!min_partitions || *min_partitions <= static_cast<int64_t>(divided.size())) {
    SortRanges(&divided);
    return divided;
  }
  // Split ranges with relatively large amounts of data; ranges that would get one part keep it,
  // and are left out of the proportional math for the others (SPARK-36576).
  int64_t total_size = 0;
  for (const auto& r : divided) total_size += r.size();
  std::set<TopicPartition> unsplit_partitions;
  int64_t unsplit_count = 0;
  int64_t unsplit_size = 0;
  for (const auto& r : divided) {
    if (PartCount(r.size(), total_size, *min_partitions) == 1) {
      unsplit_partitions.insert(r.tp);
      ++unsplit_count;
      unsplit_size += r.size();
    }
  }
  const int64_t split_total = total_size - unsplit_size;
  const int32_t split_min_partitions =
      static_cast<int32_t>(std::max<int64_t>(*min_partitions - unsplit_count, 1));
  std::vector<OffsetRange> out;
  for (const auto& r : divided) {
    int64_t parts = unsplit_partitions.count(r.tp)
                        ? 1
                        : PartCount(r.size(), split_total, split_min_partitions);
    DivideRange(parts, r, &out);
  }
  SortRanges(&out);
  return out;
}

Result<std::vector<OffsetRange>> PlanBatchRanges(const PartitionOffsets& from,
                                                 const PartitionOffsets& until,
                                                 const PartitionOffsets& new_partition_earliest,
                                                 bool custom_group_id, const RangeSplit& split,
                                                 DataLossReporter* reporter) {
  // New partitions and their first offsets.
  std::set<TopicPartition> new_partitions;
  for (const auto& [tp, offset] : until) {
    if (!from.count(tp)) new_partitions.insert(tp);
  }
  PartitionOffsets new_initial;
  for (const auto& tp : new_partitions) {
    if (auto it = new_partition_earliest.find(tp); it != new_partition_earliest.end()) {
      new_initial[tp] = it->second;
    }
  }
  if (new_initial.size() != new_partitions.size()) {
    std::set<TopicPartition> deleted;
    for (const auto& tp : new_partitions) {
      if (!new_initial.count(tp)) deleted.insert(tp);
    }
    WEIR_RETURN_NOT_OK(reporter->Report(InitialOffsetNotFound(deleted)));
  }
  for (const auto& [tp, offset] : new_initial) {
    if (offset != 0) WEIR_RETURN_NOT_OK(reporter->Report(AddedPartitionNotFromZero(tp, offset)));
  }
  std::set<TopicPartition> deleted;
  for (const auto& [tp, offset] : from) {
    if (!until.count(tp)) deleted.insert(tp);
  }
  if (!deleted.empty()) {
    WEIR_RETURN_NOT_OK(reporter->Report(PartitionsDeleted(deleted, custom_group_id)));
  }
  std::vector<OffsetRange> ranges;
  for (const auto& [tp, until_offset] : until) {
    int64_t from_offset;
    if (auto it = from.find(tp); it != from.end()) {
      from_offset = it->second;
    } else if (auto nit = new_initial.find(tp); nit != new_initial.end()) {
      from_offset = nit->second;
    } else {
      continue;  // deleted before we learnt its first offset
    }
    if (until_offset < from_offset) {
      WEIR_RETURN_NOT_OK(
          reporter->Report(PartitionOffsetChanged(tp, from_offset, until_offset)));
    }
    ranges.push_back(OffsetRange{tp, from_offset, until_offset});
  }
  return SplitRanges(ranges, split);
}

Result<std::vector<OffsetRange>> ClampRangesToEarliest(std::vector<OffsetRange> ranges,
                                                       const PartitionOffsets& earliest,
                                                       const std::string& group_id,
                                                       DataLossReporter* reporter) {
  std::vector<OffsetRange> out;
  for (auto& r : ranges) {
    auto it = earliest.find(r.tp);
    if (it != earliest.end() && r.size() > 0 && r.from < it->second) {
      int64_t resume = std::min(it->second, r.until);
      WEIR_RETURN_NOT_OK(reporter->Report(CouldNotReadOffsetRange(
          r.tp, r.from, resume, group_id,
          "Skip missing records in [" + std::to_string(r.from) + ", " + std::to_string(resume) +
              ")")));
      r.from = resume;
      if (r.size() <= 0) continue;
    }
    out.push_back(r);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Starting and ending offsets

namespace {

Result<PartitionOffsets> ResolveSentinels(const PartitionOffsets& offsets, OffsetLookup& lookup) {
  std::set<TopicPartition> want_earliest, want_latest;
  for (const auto& [tp, off] : offsets) {
    if (off == kEarliestOffset) want_earliest.insert(tp);
    if (off == kLatestOffset) want_latest.insert(tp);
  }
  PartitionOffsets earliest, latest;
  if (!want_earliest.empty()) {
    WEIR_ASSIGN_OR_RETURN(earliest, lookup.EarliestOffsets(want_earliest));
  }
  if (!want_latest.empty()) {
    WEIR_ASSIGN_OR_RETURN(latest, lookup.LatestOffsets(want_latest));
  }
  PartitionOffsets out;
  for (const auto& [tp, off] : offsets) {
    const PartitionOffsets* source = off == kEarliestOffset ? &earliest
                                     : off == kLatestOffset ? &latest
                                                            : nullptr;
    if (source == nullptr) {
      out[tp] = off;
      continue;
    }
    auto it = source->find(tp);
    if (it == source->end()) {
      return Status::NotFound("no " + std::string(off == kEarliestOffset ? "earliest" : "latest") +
                              " offset returned for topic-partition " + tp.ToString());
    }
    out[tp] = it->second;
  }
  return out;
}

PartitionTimestamps AllAt(const std::set<TopicPartition>& partitions, int64_t ts) {
  PartitionTimestamps out;
  for (const auto& tp : partitions) out[tp] = ts;
  return out;
}

}  // namespace

// The per-partition timestamps of a timestamp spec; InvalidArgument (Spark's text) when a
// specific-timestamps spec does not name exactly the assigned partitions. `which`: start or end.
static Result<PartitionTimestamps> TimestampsFor(const OffsetSpec& spec,
                                                 const std::set<TopicPartition>& assigned,
                                                 const char* which) {
  PartitionTimestamps timestamps = spec.kind == OffsetSpec::Kind::kGlobalTimestamp
                                       ? AllAt(assigned, spec.timestamp_ms)
                                       : spec.timestamps;
  if (spec.kind == OffsetSpec::Kind::kSpecificTimestamps && KeysOf(timestamps) != assigned) {
    return Status::InvalidArgument(
        std::string("Partitions specified for Kafka timestamp based ") + which +
        " offsets don't match what are assigned. Maybe topic partitions are created or deleted "
        "while the query is running, or you didn't specify all the partitions. Specified: " +
        FormatPartitionSet(KeysOf(timestamps)) + " Assigned: " + FormatPartitionSet(assigned));
  }
  return timestamps;
}

Result<PartitionOffsets> ResolveStartingOffsets(const OffsetSpec& spec, NoMatchStrategy strategy,
                                                const std::set<TopicPartition>& assigned,
                                                OffsetLookup& lookup,
                                                DataLossReporter* reporter) {
  switch (spec.kind) {
    case OffsetSpec::Kind::kEarliest:
      return lookup.EarliestOffsets(assigned);
    case OffsetSpec::Kind::kLatest:
      return lookup.LatestOffsets(assigned);
    case OffsetSpec::Kind::kSpecificOffsets: {
      if (KeysOf(spec.offsets) != assigned) {
        return Status::InvalidArgument(
            "Partitions specified for Kafka start offsets don't match what are assigned. Maybe "
            "topic partitions are created or deleted while the query is running. Use -1 for "
            "latest, -2 for earliest. Specified: " +
            FormatPartitionSet(KeysOf(spec.offsets)) + " Assigned: " + FormatPartitionSet(assigned));
      }
      WEIR_ASSIGN_OR_RETURN(PartitionOffsets resolved, ResolveSentinels(spec.offsets, lookup));
      std::set<TopicPartition> explicit_partitions;
      for (const auto& [tp, off] : spec.offsets) {
        if (off >= 0) explicit_partitions.insert(tp);
      }
      if (!explicit_partitions.empty()) {
        WEIR_ASSIGN_OR_RETURN(PartitionOffsets earliest, lookup.EarliestOffsets(explicit_partitions));
        for (const auto& tp : explicit_partitions) {
          auto it = earliest.find(tp);
          if (it != earliest.end() && resolved[tp] < it->second) {
            WEIR_RETURN_NOT_OK(reporter->Report(StartOffsetReset(tp, resolved[tp], it->second)));
            resolved[tp] = it->second;
          }
        }
      }
      return resolved;
    }
    case OffsetSpec::Kind::kSpecificTimestamps:
    case OffsetSpec::Kind::kGlobalTimestamp: {
      WEIR_ASSIGN_OR_RETURN(PartitionTimestamps timestamps, TimestampsFor(spec, assigned, "start"));
      WEIR_ASSIGN_OR_RETURN(PartitionOffsets found, lookup.OffsetsForTimes(timestamps));
      PartitionOffsets with_markers;
      for (const auto& [tp, ts] : timestamps) {
        auto it = found.find(tp);
        int64_t offset = it == found.end() ? kNoOffsetForTime : it->second;
        if (offset == kNoOffsetForTime) {
          if (strategy == NoMatchStrategy::kError) {
            return Status::InvalidArgument("No offset matched from request of topic-partition " +
                                           tp.ToString() + " and timestamp " + std::to_string(ts) +
                                           ".");
          }
          offset = kLatestOffset;
        }
        with_markers[tp] = offset;
      }
      return ResolveSentinels(with_markers, lookup);
    }
  }
  return Status::Internal("unknown starting offset kind");
}

Result<PartitionOffsets> ResolveEndingOffsets(const OffsetSpec& spec,
                                              const std::set<TopicPartition>& assigned,
                                              OffsetLookup& lookup) {
  switch (spec.kind) {
    case OffsetSpec::Kind::kEarliest:
      return lookup.EarliestOffsets(assigned);
    case OffsetSpec::Kind::kLatest:
      return lookup.LatestOffsets(assigned);
    case OffsetSpec::Kind::kSpecificOffsets:
      if (KeysOf(spec.offsets) != assigned) {
        return Status::InvalidArgument(
            "Partitions specified for Kafka end offsets don't match what are assigned. Use -1 for "
            "latest. Specified: " +
            FormatPartitionSet(KeysOf(spec.offsets)) + " Assigned: " + FormatPartitionSet(assigned));
      }
      return ResolveSentinels(spec.offsets, lookup);
    case OffsetSpec::Kind::kSpecificTimestamps:
    case OffsetSpec::Kind::kGlobalTimestamp: {
      WEIR_ASSIGN_OR_RETURN(PartitionTimestamps timestamps, TimestampsFor(spec, assigned, "end"));
      WEIR_ASSIGN_OR_RETURN(PartitionOffsets found, lookup.OffsetsForTimes(timestamps));
      PartitionOffsets with_markers;
      for (const auto& [tp, ts] : timestamps) {
        auto it = found.find(tp);
        with_markers[tp] =
            it == found.end() || it->second == kNoOffsetForTime ? kLatestOffset : it->second;
      }
      return ResolveSentinels(with_markers, lookup);
    }
  }
  return Status::Internal("unknown ending offset kind");
}

// ---------------------------------------------------------------------------------------------
// Lag

std::optional<LagMetrics> ComputeLag(const PartitionOffsets& end, const PartitionOffsets& latest,
                                     std::optional<double> avg_record_bytes) {
  if (end.empty() || latest.empty()) return std::nullopt;
  LagMetrics m;
  for (const auto& [tp, latest_offset] : latest) {
    auto it = end.find(tp);
    if (it == end.end()) continue;
    m.offsets_behind[tp] = latest_offset - it->second;
  }
  if (m.offsets_behind.empty()) return std::nullopt;
  int64_t sum = 0;
  m.min_offsets_behind = std::numeric_limits<int64_t>::max();
  m.max_offsets_behind = std::numeric_limits<int64_t>::min();
  for (const auto& [tp, behind] : m.offsets_behind) {
    sum += behind;
    m.min_offsets_behind = std::min(m.min_offsets_behind, behind);
    m.max_offsets_behind = std::max(m.max_offsets_behind, behind);
  }
  m.avg_offsets_behind = static_cast<double>(sum) / static_cast<double>(m.offsets_behind.size());
  if (avg_record_bytes) m.estimated_total_bytes_behind = *avg_record_bytes * static_cast<double>(sum);
  return m;
}

std::map<std::string, std::string> LagMetrics::ToSparkMetrics() const {
  std::map<std::string, std::string> out = {
      {"minOffsetsBehindLatest", std::to_string(min_offsets_behind)},
      {"maxOffsetsBehindLatest", std::to_string(max_offsets_behind)},
      {"avgOffsetsBehindLatest", JavaDoubleToString(avg_offsets_behind)},
  };
  if (estimated_total_bytes_behind) {
    out["estimatedTotalBytesBehindLatest"] = JavaDoubleToString(*estimated_total_bytes_behind);
  }
  return out;
}

std::string JavaDoubleToString(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci = sci.substr(1);
  }
  size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  int exponent = std::stoi(sci.substr(e + 1));
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits.push_back(c);
  }
  double magnitude = std::fabs(value);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    std::string out;
    if (exponent < 0) {
      out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    } else {
      size_t int_len = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= int_len) {
        out = digits + std::string(int_len - digits.size(), '0') + ".0";
      } else {
        out = digits.substr(0, int_len) + "." + digits.substr(int_len);
      }
    }
    return sign + out;
  }
  std::string frac = digits.size() > 1 ? digits.substr(1) : "0";
  return sign + digits.substr(0, 1) + "." + frac + "E" + std::to_string(exponent);
}

}  // namespace weir::kafka
