#include "kafka/planner.h"

#include <gtest/gtest.h>

#include <limits>

#include "base/testing.h"

namespace weir::kafka {
namespace {

TopicPartition Tp(const std::string& topic, int32_t p) { return TopicPartition{topic, p}; }

}  // namespace

// Readable failures.
void PrintTo(const OffsetRange& r, std::ostream* os) {
  *os << r.tp.ToString() << "[" << r.from << ", " << r.until << ")";
}
void PrintTo(const TopicPartition& tp, std::ostream* os) { *os << tp.ToString(); }

namespace {

// ---------------------------------------------------------------------------------------------
// rateLimit

TEST(RateLimitTest, SparkSuiteMaxOffsetsPerTriggerFirstTwoBatches) {
  // KafkaMicroBatchSourceSuite "maxOffsetsPerTrigger": 101 records in p0, 11 in p1, 1 in p2,
  // limit 10. Shares: 10*101/113 = 8.94 -> 8, 10*11/113 = 0.97 -> 1 (rounded up), 10*1/113 ->
  // 1 (rounded up).
  PartitionOffsets latest = {{Tp("t", 0), 101}, {Tp("t", 1), 11}, {Tp("t", 2), 1}};
  PartitionOffsets start = {{Tp("t", 0), 0}, {Tp("t", 1), 0}, {Tp("t", 2), 0}};
  PartitionOffsets end1 = RateLimit(10, start, latest, {});
  EXPECT_EQ(end1, (PartitionOffsets{{Tp("t", 0), 8}, {Tp("t", 1), 1}, {Tp("t", 2), 1}}));
  // Next: lags 93 and 10 (p2 is drained): 10*93/103 = 9.03 -> 9, 10*10/103 = 0.97 -> 1.
  PartitionOffsets end2 = RateLimit(10, end1, latest, {});
  EXPECT_EQ(end2, (PartitionOffsets{{Tp("t", 0), 17}, {Tp("t", 1), 2}, {Tp("t", 2), 1}}));
}

TEST(RateLimitTest, UsesSparksDoubleArithmeticBitForBit) {
  // limit * (size / total) = 22 * (15 / 22.0) = 14.999999999999998 in doubles: floor gives 14,
  // where exact arithmetic would give 15. Spark reads 21 of the 22 records.
  PartitionOffsets start = {{Tp("t", 0), 0}, {Tp("t", 1), 0}};
  PartitionOffsets latest = {{Tp("t", 0), 15}, {Tp("t", 1), 7}};
  EXPECT_EQ(RateLimit(22, start, latest, {}),
            (PartitionOffsets{{Tp("t", 0), 14}, {Tp("t", 1), 7}}));
}

TEST(RateLimitTest, SmallSharesRoundUpSoTheCapIsNotHard) {
  // 20 partitions holding 3 records each, cap 5: every share is 5*3/60 = 0.25 -> 1.
  PartitionOffsets start, latest;
  for (int p = 0; p < 20; ++p) {
    start[Tp("t", p)] = 0;
    latest[Tp("t", p)] = 3;
  }
  PartitionOffsets end = RateLimit(5, start, latest, {});
  int64_t total = 0;
  for (const auto& [tp, off] : end) total += off - start[tp];
  EXPECT_EQ(total, 20);
  for (const auto& [tp, off] : end) EXPECT_EQ(off, 1);
}

TEST(RateLimitTest, NothingNewTakesLatestAndNewPartitionsStartAtEarliest) {
  PartitionOffsets same = {{Tp("t", 0), 5}};
  EXPECT_EQ(RateLimit(10, same, same, {}), same);
  // p1 is new: it starts at its earliest offset 5, so its lag is 10; p0 lag 30.
  PartitionOffsets start = {{Tp("t", 0), 0}};
  PartitionOffsets latest = {{Tp("t", 0), 30}, {Tp("t", 1), 15}};
  PartitionOffsets end = RateLimit(8, start, latest, {{Tp("t", 1), 5}});
  EXPECT_EQ(end, (PartitionOffsets{{Tp("t", 0), 6}, {Tp("t", 1), 7}}));
  // A new partition whose earliest offset is unknown is left at latest.
  PartitionOffsets end2 = RateLimit(8, start, latest, {});
  EXPECT_EQ(end2, (PartitionOffsets{{Tp("t", 0), 8}, {Tp("t", 1), 15}}));
}

TEST(RateLimitTest, NegativeLagIsIgnoredAndOverflowSaturates) {
  PartitionOffsets start = {{Tp("t", 0), 50}, {Tp("t", 1), 0}};
  PartitionOffsets latest = {{Tp("t", 0), 40}, {Tp("t", 1), 10}};
  EXPECT_EQ(RateLimit(4, start, latest, {}),
            (PartitionOffsets{{Tp("t", 0), 40}, {Tp("t", 1), 4}}));
  const int64_t max = std::numeric_limits<int64_t>::max();
  PartitionOffsets big_start = {{Tp("t", 0), max - 10}};
  PartitionOffsets big_latest = {{Tp("t", 0), max}};
  EXPECT_EQ(RateLimit(max, big_start, big_latest, {}), big_latest);
}

// ---------------------------------------------------------------------------------------------
// delayBatch / latestOffset

TEST(DelayBatchTest, FirstTriggerRunsThenWaitsForMinOffsets) {
  const int64_t delay = 15 * 60 * 1000;
  int64_t last = 0;
  const int64_t t0 = 1'700'000'000'000;
  PartitionOffsets current = {{Tp("t", 0), 0}};
  PartitionOffsets latest = {{Tp("t", 0), 3}};
  EXPECT_FALSE(DelayBatch(100, latest, current, delay, t0, &last));  // first trigger
  EXPECT_EQ(last, t0);
  EXPECT_TRUE(DelayBatch(100, latest, current, delay, t0 + 1000, &last));  // 3 < 100
  EXPECT_EQ(last, t0);
  PartitionOffsets more = {{Tp("t", 0), 60}, {Tp("t", 1), 40}};  // new partition counts from 0
  EXPECT_FALSE(DelayBatch(100, more, current, delay, t0 + 2000, &last));
  EXPECT_EQ(last, t0 + 2000);
  EXPECT_TRUE(DelayBatch(100, latest, current, delay, t0 + 2000 + delay - 1, &last));
  EXPECT_FALSE(DelayBatch(100, latest, current, delay, t0 + 2000 + delay, &last));  // timed out
  EXPECT_EQ(last, t0 + 2000 + delay);
}

TEST(PlanBatchEndTest, CombinesLimitsLikeSparksLatestOffset) {
  PartitionOffsets start = {{Tp("t", 0), 0}, {Tp("t", 1), 0}};
  PartitionOffsets latest = {{Tp("t", 0), 90}, {Tp("t", 1), 10}};
  const int64_t now = 1'700'000'000'000;
  int64_t last = 0;
  ReadLimits none;
  EXPECT_EQ(PlanBatchEnd(start, latest, {}, none, now, &last), latest);
  ReadLimits max_only;
  max_only.max_offsets = 10;
  EXPECT_EQ(PlanBatchEnd(start, latest, {}, max_only, now, &last),
            (PartitionOffsets{{Tp("t", 0), 9}, {Tp("t", 1), 1}}));
  ReadLimits both = max_only;
  both.min_offsets = 1000;
  last = 0;
  // First trigger runs (and is rate limited) ...
  EXPECT_EQ(PlanBatchEnd(start, latest, {}, both, now, &last),
            (PartitionOffsets{{Tp("t", 0), 9}, {Tp("t", 1), 1}}));
  // ... the next one waits for 1000 records: the end equals the start (no batch).
  EXPECT_EQ(PlanBatchEnd(start, latest, {}, both, now + 1, &last), start);
  ReadLimits once = both;
  once.all_available = true;  // Trigger.Once ignores read limits
  EXPECT_EQ(PlanBatchEnd(start, latest, {}, once, now + 2, &last), latest);
}

TEST(AvailableNowTest, VerifiesEndAgainstPrefetchedAndLatest) {
  PartitionOffsets prefetched = {{Tp("t", 0), 10}, {Tp("t", 1), 20}};
  EXPECT_OK(VerifyAvailableNowEnd(prefetched, {{Tp("t", 0), 5}, {Tp("t", 1), 20}},
                                  {{Tp("t", 0), 12}, {Tp("t", 1), 25}}));
  auto st = VerifyAvailableNowEnd(prefetched, {{Tp("t", 0), 5}}, prefetched);
  ASSERT_STATUS_CODE(kUnavailable, st);
  EXPECT_NE(st.message().find("topic-partitions for pre-fetched offset: Set(t-0, t-1), "
                              "topic-partitions for end offset: Set(t-0)."),
            std::string::npos);
  st = VerifyAvailableNowEnd(prefetched, {{Tp("t", 0), 11}, {Tp("t", 1), 20}}, prefetched);
  EXPECT_NE(st.message().find("end offset should have lower or equal offset"), std::string::npos);
  st = VerifyAvailableNowEnd(prefetched, prefetched, {{Tp("t", 0), 10}});
  EXPECT_NE(st.message().find("have been lost during running query with Trigger.AvailableNow"),
            std::string::npos);
  st = VerifyAvailableNowEnd(prefetched, prefetched, {{Tp("t", 0), 9}, {Tp("t", 1), 20}});
  EXPECT_NE(st.message().find("latest offset: Map(t-0 -> 9, t-1 -> 20), end offset: "
                              "Map(t-0 -> 10, t-1 -> 20)"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// KafkaOffsetRangeCalculator (worked examples from Spark's KafkaOffsetRangeCalculatorSuite)

std::vector<OffsetRange> Split(std::vector<OffsetRange> ranges, std::optional<int32_t> min_parts,
                               std::optional<int64_t> max_records = std::nullopt) {
  return SplitRanges(ranges, RangeSplit{min_parts, max_records});
}

const TopicPartition tp1{"t1", 1}, tp2{"t2", 1}, tp3{"t3", 1};

TEST(SplitRangesTest, NoMinPartitionsKeepsOneRangePerPartitionAndDropsEmpty) {
  EXPECT_EQ(Split({{tp1, 1, 2}}, std::nullopt), (std::vector<OffsetRange>{{tp1, 1, 2}}));
  EXPECT_EQ(Split({{tp1, 1, 2}, {tp2, 1, 1}}, std::nullopt),
            (std::vector<OffsetRange>{{tp1, 1, 2}}));
  EXPECT_EQ(Split({{tp1, 1, 2}, {tp2, 1, 2}, {tp3, 1, 2}}, 3),
            (std::vector<OffsetRange>{{tp1, 1, 2}, {tp2, 1, 2}, {tp3, 1, 2}}));
  EXPECT_EQ(Split({{tp1, 1, 5}, {tp2, 1, 21}}, 1),
            (std::vector<OffsetRange>{{tp1, 1, 5}, {tp2, 1, 21}}));
}

TEST(SplitRangesTest, MinPartitionsSplitsProportionally) {
  EXPECT_EQ(Split({{tp1, 1, 5}}, 4),
            (std::vector<OffsetRange>{{tp1, 1, 2}, {tp1, 2, 3}, {tp1, 3, 4}, {tp1, 4, 5}}));
  EXPECT_EQ(Split({{tp1, 1, 5}, {tp2, 1, 21}}, 4),
            (std::vector<OffsetRange>{{tp1, 1, 5}, {tp2, 1, 7}, {tp2, 7, 14}, {tp2, 14, 21}}));
  EXPECT_EQ(Split({{tp1, 1, 1}, {tp2, 1, 21}}, 4),
            (std::vector<OffsetRange>{{tp2, 1, 6}, {tp2, 6, 11}, {tp2, 11, 16}, {tp2, 16, 21}}));
  EXPECT_EQ(Split({{tp1, 1, 2}, {tp2, 1, 1001}}, 4),
            (std::vector<OffsetRange>{{tp1, 1, 2}, {tp2, 1, 334}, {tp2, 334, 667}, {tp2, 667, 1001}}));
  // Inexact multiple: the last piece takes the remainder.
  EXPECT_EQ(Split({{tp1, 1, 11}}, 3),
            (std::vector<OffsetRange>{{tp1, 1, 4}, {tp1, 4, 7}, {tp1, 7, 11}}));
  EXPECT_EQ(Split({{tp1, 1, 5}, {tp2, 1, 21}, {tp3, 1, 1}}, 4),
            (std::vector<OffsetRange>{{tp1, 1, 5}, {tp2, 1, 7}, {tp2, 7, 14}, {tp2, 14, 21}}));
}

TEST(SplitRangesTest, NeverDropsOffsets) {  // SPARK-28489
  EXPECT_EQ(Split({{tp1, 0, 10}, {tp2, 0, 10}, {tp3, 0, 1}}, 6),
            (std::vector<OffsetRange>{{tp1, 0, 3}, {tp1, 3, 6}, {tp1, 6, 10}, {tp2, 0, 3},
                                      {tp2, 3, 6}, {tp2, 6, 10}, {tp3, 0, 1}}));
}

TEST(SplitRangesTest, UnsplitRangesLeftOutOfTheProportions) {  // SPARK-36576
  EXPECT_EQ(Split({{tp1, 0, 10000}, {tp2, 0, 15000}, {tp3, 0, 20000}}, 9),
            (std::vector<OffsetRange>{{tp1, 0, 5000}, {tp1, 5000, 10000}, {tp2, 0, 5000},
                                      {tp2, 5000, 10000}, {tp2, 10000, 15000}, {tp3, 0, 5000},
                                      {tp3, 5000, 10000}, {tp3, 10000, 15000},
                                      {tp3, 15000, 20000}}));
  EXPECT_EQ(Split({{tp1, 0, 500}, {tp2, 0, 12000}, {tp3, 0, 15001}}, 6),
            (std::vector<OffsetRange>{{tp1, 0, 500}, {tp2, 0, 6000}, {tp2, 6000, 12000},
                                      {tp3, 0, 5000}, {tp3, 5000, 10000}, {tp3, 10000, 15001}}));
  EXPECT_EQ(Split({{tp1, 0, 1}, {tp2, 0, 1}, {tp3, 0, 10000}}, 6),
            (std::vector<OffsetRange>{{tp1, 0, 1}, {tp2, 0, 1}, {tp3, 0, 2500}, {tp3, 2500, 5000},
                                      {tp3, 5000, 7500}, {tp3, 7500, 10000}}));
  EXPECT_EQ(Split({{tp1, 0, 1}, {tp2, 0, 1}, {tp3, 0, 2}}, 4),
            (std::vector<OffsetRange>{{tp1, 0, 1}, {tp2, 0, 1}, {tp3, 0, 1}, {tp3, 1, 2}}));
}

TEST(SplitRangesTest, MaxRecordsPerPartitionCapsEachPiece) {
  // ceil(5 / 4) = 2 pieces: 5/2 = 2, then the remaining 3.
  EXPECT_EQ(Split({{tp1, 1, 6}}, std::nullopt, 4),
            (std::vector<OffsetRange>{{tp1, 1, 3}, {tp1, 3, 6}}));
  EXPECT_EQ(Split({{tp1, 0, 10}, {tp2, 0, 3}}, std::nullopt, 10),
            (std::vector<OffsetRange>{{tp1, 0, 10}, {tp2, 0, 3}}));
  // ceil(10 / 3) = 4 pieces: 10/4 = 2, 8/3 = 2, 6/2 = 3, then 3.
  EXPECT_EQ(Split({{tp1, 0, 10}}, std::nullopt, 3),
            (std::vector<OffsetRange>{{tp1, 0, 2}, {tp1, 2, 4}, {tp1, 4, 7}, {tp1, 7, 10}}));
  // Both: max records first (t1 -> 3 pieces of 3), then minPartitions 6 over the 4 pieces:
  // t2's piece rounds to 1 part (unsplit), t1's pieces share 5 parts: round(3/9*5) = 2 each.
  EXPECT_EQ(Split({{tp1, 0, 9}, {tp2, 0, 1}}, 6, 3),
            (std::vector<OffsetRange>{{tp1, 0, 1}, {tp1, 1, 3}, {tp1, 3, 4}, {tp1, 4, 6},
                                      {tp1, 6, 7}, {tp1, 7, 9}, {tp2, 0, 1}}));
}

// ---------------------------------------------------------------------------------------------
// Data loss while planning ranges

TEST(PlanBatchRangesTest, OrdinaryBatch) {
  DataLossReporter reporter(true);
  ASSERT_OK_AND_ASSIGN(auto ranges,
                       PlanBatchRanges({{Tp("t", 0), 5}, {Tp("t", 1), 0}},
                                       {{Tp("t", 0), 9}, {Tp("t", 1), 0}}, {}, false, {},
                                       &reporter));
  EXPECT_EQ(ranges, (std::vector<OffsetRange>{{Tp("t", 0), 5, 9}}));
  EXPECT_TRUE(reporter.events().empty());
}

TEST(PlanBatchRangesTest, NewPartitionFromEarliestAndItsDataLossConditions) {
  PartitionOffsets from = {{Tp("t", 0), 5}};
  PartitionOffsets until = {{Tp("t", 0), 9}, {Tp("t", 1), 20}};
  {
    DataLossReporter reporter(true);
    ASSERT_OK_AND_ASSIGN(auto ranges, PlanBatchRanges(from, until, {{Tp("t", 1), 0}}, false, {},
                                                      &reporter));
    EXPECT_EQ(ranges, (std::vector<OffsetRange>{{Tp("t", 0), 5, 9}, {Tp("t", 1), 0, 20}}));
  }
  {
    DataLossReporter reporter(true);
    auto r = PlanBatchRanges(from, until, {{Tp("t", 1), 7}}, false, {}, &reporter);
    ASSERT_STATUS_CODE(kDataLoss, r);
    EXPECT_EQ(r.status().message(),
              "[KAFKA_DATA_LOSS.ADDED_PARTITION_DOES_NOT_START_FROM_OFFSET_ZERO] Some data may have "
              "been lost because they are not available in Kafka any more; either the data was "
              "aged out by Kafka or the topic may have been deleted before all the data in the "
              "topic was processed. If you don't want your streaming query to fail on such cases, "
              "set the source option failOnDataLoss to false. Reason: Added partition t-1 starts "
              "from 7 instead of 0.");
  }
  {
    DataLossReporter reporter(false);
    ASSERT_OK_AND_ASSIGN(auto ranges, PlanBatchRanges(from, until, {{Tp("t", 1), 7}}, false, {},
                                                      &reporter));
    EXPECT_EQ(ranges, (std::vector<OffsetRange>{{Tp("t", 0), 5, 9}, {Tp("t", 1), 7, 20}}));
    ASSERT_EQ(reporter.Warnings().size(), 1u);
    EXPECT_EQ(reporter.Warnings()[0],
              "Added partition t-1 starts from 7 instead of 0. Some data may have been missed. "
              "Some data may have been lost because they are not available in Kafka any more; "
              "either the data was aged out by Kafka or the topic may have been deleted before all "
              "the data in the topic was processed. If you want your streaming query to fail on "
              "such cases, set the source option \"failOnDataLoss\" to \"true\".");
    EXPECT_EQ(reporter.skipped_offsets(), 7);
  }
  {
    DataLossReporter reporter(true);
    auto r = PlanBatchRanges(from, until, {}, false, {}, &reporter);  // t-1 vanished again
    ASSERT_STATUS_CODE(kDataLoss, r);
    EXPECT_NE(r.status().message().find("INITIAL_OFFSET_NOT_FOUND_FOR_PARTITIONS] "),
              std::string::npos);
    EXPECT_NE(r.status().message().find(
                  "Reason: Cannot find initial offsets for partitions Set(t-1). They may have been "
                  "deleted."),
              std::string::npos);
  }
}

TEST(PlanBatchRangesTest, DeletedPartitionsAndOffsetChanges) {
  PartitionOffsets from = {{Tp("t", 0), 5}, {Tp("t", 1), 3}};
  {
    DataLossReporter reporter(true);
    auto r = PlanBatchRanges(from, {{Tp("t", 0), 9}}, {}, false, {}, &reporter);
    ASSERT_STATUS_CODE(kDataLoss, r);
    EXPECT_NE(r.status().message().find("Reason: Partitions Set(t-1) have been deleted."),
              std::string::npos);
    DataLossReporter with_group(true);
    r = PlanBatchRanges(from, {{Tp("t", 0), 9}}, {}, true, {}, &with_group);
    EXPECT_NE(r.status().message().find("PARTITIONS_DELETED_AND_GROUP_ID_CONFIG_PRESENT"),
              std::string::npos);
  }
  {
    DataLossReporter reporter(false);
    ASSERT_OK_AND_ASSIGN(auto ranges, PlanBatchRanges(from, {{Tp("t", 0), 9}}, {}, false, {},
                                                      &reporter));
    EXPECT_EQ(ranges, (std::vector<OffsetRange>{{Tp("t", 0), 5, 9}}));
    EXPECT_EQ(reporter.Warnings()[0].substr(0, 55),
              "Set(t-1) are gone. Some data may have been missed.. Som");
  }
  {
    DataLossReporter reporter(true);
    auto r = PlanBatchRanges(from, {{Tp("t", 0), 2}, {Tp("t", 1), 3}}, {}, false, {}, &reporter);
    ASSERT_STATUS_CODE(kDataLoss, r);
    EXPECT_NE(r.status().message().find(
                  "Reason: Partition t-0 offset was changed from 5 to 2. This could either be a "
                  "user error that the start offset is set too high and this is the first batch, "
                  "or the kafka topic-partition is broken, and some data may have been missed."),
              std::string::npos);
    DataLossReporter lenient(false);
    ASSERT_OK_AND_ASSIGN(auto ranges, PlanBatchRanges(from, {{Tp("t", 0), 2}, {Tp("t", 1), 3}}, {},
                                                      false, {}, &lenient));
    EXPECT_TRUE(ranges.empty());  // the negative range is dropped, as getRanges does
    EXPECT_EQ(lenient.Warnings()[0].substr(0, 68),
              "Partition t-0's offset was changed from 5 to 2, some data may have b");
  }
}

TEST(PlanBatchRangesTest, ClampsRangesBelowEarliest) {
  std::vector<OffsetRange> ranges = {{Tp("t", 0), 0, 100}, {Tp("t", 1), 0, 10}, {Tp("t", 2), 5, 9}};
  PartitionOffsets earliest = {{Tp("t", 0), 40}, {Tp("t", 1), 50}, {Tp("t", 2), 0}};
  DataLossReporter strict(true);
  auto r = ClampRangesToEarliest(ranges, earliest, "g1", &strict);
  ASSERT_STATUS_CODE(kDataLoss, r);
  EXPECT_NE(r.status().message().find("[KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE]"),
            std::string::npos);
  EXPECT_NE(r.status().message().find(
                "Reason: Could not read records in offset [0, 40) for topic partition t-0 with "
                "consumer group g1."),
            std::string::npos);
  DataLossReporter lenient(false);
  ASSERT_OK_AND_ASSIGN(auto clamped, ClampRangesToEarliest(ranges, earliest, "g1", &lenient));
  EXPECT_EQ(clamped, (std::vector<OffsetRange>{{Tp("t", 0), 40, 100}, {Tp("t", 2), 5, 9}}));
  EXPECT_EQ(lenient.skipped_offsets(), 40 + 10);
  EXPECT_EQ(lenient.Warnings()[0].substr(0, 67),
            "Skip missing records in [0, 40) (GroupId: g1, TopicPartition: t-0).");
}

// ---------------------------------------------------------------------------------------------
// Starting offsets against a fake broker

class FakeLookup : public OffsetLookup {
 public:
  PartitionOffsets earliest, latest, by_time;
  int time_queries = 0;
  Result<PartitionOffsets> EarliestOffsets(const std::set<TopicPartition>& tps) override {
    return Pick(earliest, tps);
  }
  Result<PartitionOffsets> LatestOffsets(const std::set<TopicPartition>& tps) override {
    return Pick(latest, tps);
  }
  Result<PartitionOffsets> OffsetsForTimes(const PartitionTimestamps& ts) override {
    ++time_queries;
    PartitionOffsets out;
    for (const auto& [tp, t] : ts) {
      auto it = by_time.find(tp);
      out[tp] = it == by_time.end() ? kNoOffsetForTime : it->second;
    }
    return out;
  }

 private:
  static PartitionOffsets Pick(const PartitionOffsets& from, const std::set<TopicPartition>& tps) {
    PartitionOffsets out;
    for (const auto& tp : tps) out[tp] = from.at(tp);
    return out;
  }
};

class StartingOffsetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lookup_.earliest = {{Tp("t", 0), 10}, {Tp("t", 1), 0}};
    lookup_.latest = {{Tp("t", 0), 100}, {Tp("t", 1), 50}};
    lookup_.by_time = {{Tp("t", 0), 42}};
  }
  std::set<TopicPartition> assigned_ = {Tp("t", 0), Tp("t", 1)};
  FakeLookup lookup_;
  DataLossReporter strict_{true};
};

TEST_F(StartingOffsetsTest, EarliestLatestAndSpecific) {
  OffsetSpec spec;
  spec.kind = OffsetSpec::Kind::kEarliest;
  EXPECT_EQ(*ResolveStartingOffsets(spec, NoMatchStrategy::kError, assigned_, lookup_, &strict_),
            lookup_.earliest);
  spec.kind = OffsetSpec::Kind::kLatest;
  EXPECT_EQ(*ResolveStartingOffsets(spec, NoMatchStrategy::kError, assigned_, lookup_, &strict_),
            lookup_.latest);
  spec.kind = OffsetSpec::Kind::kSpecificOffsets;
  spec.offsets = {{Tp("t", 0), -1}, {Tp("t", 1), -2}};
  EXPECT_EQ(*ResolveStartingOffsets(spec, NoMatchStrategy::kError, assigned_, lookup_, &strict_),
            (PartitionOffsets{{Tp("t", 0), 100}, {Tp("t", 1), 0}}));
  spec.offsets = {{Tp("t", 0), 23}, {Tp("t", 1), 7}};
  EXPECT_EQ(*ResolveStartingOffsets(spec, NoMatchStrategy::kError, assigned_, lookup_, &strict_),
            spec.offsets);
}

TEST_F(StartingOffsetsTest, SpecificOffsetsMustNameEveryAssignedPartition) {
  OffsetSpec spec;
  spec.kind = OffsetSpec::Kind::kSpecificOffsets;
  spec.offsets = {{Tp("t", 0), 23}};
  auto r = ResolveStartingOffsets(spec, NoMatchStrategy::kError, assigned_, lookup_, &strict_);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(),
            "Partitions specified for Kafka start offsets don't match what are assigned. Maybe "
            "topic partitions are created or deleted while the query is running. Use -1 for "
            "latest, -2 for earliest. Specified: Set(t-0) Assigned: Set(t-0, t-1)");
}

TEST_F(StartingOffsetsTest, SpecificOffsetBelowEarliestIsStartOffsetReset) {
  OffsetSpec spec;
  spec.kind = OffsetSpec::Kind::kSpecificOffsets;
  spec.offsets = {{Tp("t", 0), 3}, {Tp("t", 1), 7}};
  auto r = ResolveStartingOffsets(spec, NoMatchStrategy::kError, assigned_, lookup_, &strict_);
  ASSERT_STATUS_CODE(kDataLoss, r);
  EXPECT_NE(r.status().message().find(
                "Reason: Starting offset for t-0 was 3 but consumer reset to 10."),
            std::string::npos);
  DataLossReporter lenient(false);
  ASSERT_OK_AND_ASSIGN(auto offsets, ResolveStartingOffsets(spec, NoMatchStrategy::kError,
                                                            assigned_, lookup_, &lenient));
  EXPECT_EQ(offsets, (PartitionOffsets{{Tp("t", 0), 10}, {Tp("t", 1), 7}}));
  EXPECT_EQ(lenient.Warnings()[0].substr(0, 52), "startingOffsets for t-0 was 3 but consumer reset to ");
}

TEST_F(StartingOffsetsTest, TimestampsWithBothStrategies) {
  OffsetSpec spec;
  spec.kind = OffsetSpec::Kind::kGlobalTimestamp;
  spec.timestamp_ms = 1000;
  // t-1 has no record at or after the timestamp.
  auto r = ResolveStartingOffsets(spec, NoMatchStrategy::kError, assigned_, lookup_, &strict_);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(),
            "No offset matched from request of topic-partition t-1 and timestamp 1000.");
  ASSERT_OK_AND_ASSIGN(auto offsets, ResolveStartingOffsets(spec, NoMatchStrategy::kLatest,
                                                            assigned_, lookup_, &strict_));
  EXPECT_EQ(offsets, (PartitionOffsets{{Tp("t", 0), 42}, {Tp("t", 1), 50}}));

  spec.kind = OffsetSpec::Kind::kSpecificTimestamps;
  spec.timestamps = {{Tp("t", 0), 5}, {Tp("t", 1), 6}};
  lookup_.by_time[Tp("t", 1)] = 3;
  ASSERT_OK_AND_ASSIGN(offsets, ResolveStartingOffsets(spec, NoMatchStrategy::kError, assigned_,
                                                       lookup_, &strict_));
  EXPECT_EQ(offsets, (PartitionOffsets{{Tp("t", 0), 42}, {Tp("t", 1), 3}}));
  spec.timestamps = {{Tp("t", 0), 5}};
  r = ResolveStartingOffsets(spec, NoMatchStrategy::kError, assigned_, lookup_, &strict_);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_NE(r.status().message().find("Partitions specified for Kafka timestamp based start "
                                      "offsets don't match what are assigned"),
            std::string::npos);
}

TEST_F(StartingOffsetsTest, EndingTimestampWithoutMatchIsLatest) {
  OffsetSpec spec;
  spec.kind = OffsetSpec::Kind::kGlobalTimestamp;
  spec.timestamp_ms = 99;
  ASSERT_OK_AND_ASSIGN(auto offsets, ResolveEndingOffsets(spec, assigned_, lookup_));
  EXPECT_EQ(offsets, (PartitionOffsets{{Tp("t", 0), 42}, {Tp("t", 1), 50}}));
}

// ---------------------------------------------------------------------------------------------
// Lag metrics

TEST(LagTest, SparkSourceMetrics) {
  auto m = ComputeLag({{Tp("t", 0), 10}, {Tp("t", 1), 20}}, {{Tp("t", 0), 15}, {Tp("t", 1), 20}},
                      100.0);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->min_offsets_behind, 0);
  EXPECT_EQ(m->max_offsets_behind, 5);
  EXPECT_DOUBLE_EQ(m->avg_offsets_behind, 2.5);
  EXPECT_EQ(m->ToSparkMetrics(),
            (std::map<std::string, std::string>{{"minOffsetsBehindLatest", "0"},
                                                {"maxOffsetsBehindLatest", "5"},
                                                {"avgOffsetsBehindLatest", "2.5"},
                                                {"estimatedTotalBytesBehindLatest", "500.0"}}));
  EXPECT_FALSE(ComputeLag({}, {{Tp("t", 0), 1}}).has_value());
}

TEST(LagTest, JavaDoubleFormatting) {
  EXPECT_EQ(JavaDoubleToString(0.0), "0.0");
  EXPECT_EQ(JavaDoubleToString(3.0), "3.0");
  EXPECT_EQ(JavaDoubleToString(2.5), "2.5");
  EXPECT_EQ(JavaDoubleToString(100.0 / 3), "33.333333333333336");
  EXPECT_EQ(JavaDoubleToString(0.001), "0.001");
  EXPECT_EQ(JavaDoubleToString(0.0001), "1.0E-4");
  EXPECT_EQ(JavaDoubleToString(1e7), "1.0E7");
  EXPECT_EQ(JavaDoubleToString(12345678.9), "1.23456789E7");
  EXPECT_EQ(JavaDoubleToString(9999999.0), "9999999.0");
  EXPECT_EQ(JavaDoubleToString(-1.5), "-1.5");
}

}  // namespace
}  // namespace weir::kafka
