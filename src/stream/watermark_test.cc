#include "stream/watermark.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::stream {
namespace {

constexpr int64_t kSecond = 1000;  // ms
constexpr int64_t kMicrosPerSecond = 1000000;

columnar::Column Timestamps(std::vector<std::optional<int64_t>> seconds) {
  columnar::Column col(columnar::DataType::Timestamp());
  for (auto s : seconds) {
    if (s.has_value()) {
      col.Append<int64_t>(*s * kMicrosPerSecond);
    } else {
      col.AppendNull();
    }
  }
  return col;
}

TEST(WatermarkTrackerTest, MaxEventTimeMinusDelayAppliesToTheNextBatch) {
  WatermarkTracker tracker({10 * kSecond});
  EXPECT_EQ(tracker.watermark_ms(), 0);
  ASSERT_OK(tracker.Observe(0, Timestamps({10, 15, 12})));
  EXPECT_EQ(tracker.watermark_ms(), 0);  // not during the batch
  EXPECT_EQ(tracker.EndBatch(), 5 * kSecond);
  ASSERT_OK(tracker.Observe(0, Timestamps({25})));
  EXPECT_EQ(tracker.EndBatch(), 15 * kSecond);
}

TEST(WatermarkTrackerTest, NeverMovesBack) {
  WatermarkTracker tracker({2 * kSecond});
  ASSERT_OK(tracker.Observe(0, Timestamps({17})));
  EXPECT_EQ(tracker.EndBatch(), 15 * kSecond);
  ASSERT_OK(tracker.Observe(0, Timestamps({13})));
  EXPECT_EQ(tracker.EndBatch(), 15 * kSecond);
  EXPECT_EQ(tracker.EndBatch(), 15 * kSecond);  // a batch without rows changes nothing
}

TEST(WatermarkTrackerTest, MinPolicyWaitsForEveryInput) {
  WatermarkTracker tracker({0, 0});
  ASSERT_OK(tracker.Observe(0, Timestamps({100})));
  // Input 1 has seen nothing: it counts as 0, so the global watermark stays at 0.
  EXPECT_EQ(tracker.EndBatch(), 0);
  ASSERT_OK(tracker.Observe(1, Timestamps({40})));
  EXPECT_EQ(tracker.EndBatch(), 40 * kSecond);
  ASSERT_OK(tracker.Observe(1, Timestamps({70})));
  EXPECT_EQ(tracker.EndBatch(), 70 * kSecond);
}

TEST(WatermarkTrackerTest, MaxPolicyFollowsTheFastestInput) {
  WatermarkTracker tracker({0, 5 * kSecond}, MultipleWatermarkPolicy::kMax);
  ASSERT_OK(tracker.Observe(0, Timestamps({30})));
  ASSERT_OK(tracker.Observe(1, Timestamps({100})));
  EXPECT_EQ(tracker.EndBatch(), 95 * kSecond);
}

TEST(WatermarkTrackerTest, RestoredWatermarkHoldsUntilInputsCatchUp) {
  WatermarkTracker tracker({2 * kSecond});
  tracker.SetWatermark(20 * kSecond);  // offsets/N's batchWatermarkMs after a restart
  ASSERT_OK(tracker.Observe(0, Timestamps({10})));
  EXPECT_EQ(tracker.EndBatch(), 20 * kSecond);
  ASSERT_OK(tracker.Observe(0, Timestamps({30})));
  EXPECT_EQ(tracker.EndBatch(), 28 * kSecond);
}

TEST(WatermarkTrackerTest, StatsInMillisecondsTruncatedTowardZeroAndNullAsZero) {
  WatermarkTracker tracker({0});
  tracker.ObserveMicros(0, -1500);  // -1.5 ms: Spark's long division gives -1
  tracker.ObserveMicros(0, 2999);   // 2 ms
  ASSERT_OK(tracker.Observe(0, Timestamps({std::nullopt})));  // Spark reads 0
  const EventTimeStats& stats = tracker.batch_stats(0);
  EXPECT_EQ(stats.count, 3);
  EXPECT_EQ(stats.min_ms, -1);
  EXPECT_EQ(stats.max_ms, 2);
  EXPECT_DOUBLE_EQ(stats.avg_ms, 1.0 / 3.0);
  EXPECT_EQ(tracker.EndBatch(), 2);
  EXPECT_EQ(tracker.batch_stats(0).count, 0);  // cleared for the next batch
}

TEST(WatermarkTrackerTest, MergedStatsCoverAllInputs) {
  WatermarkTracker tracker({0, 0});
  ASSERT_OK(tracker.Observe(0, Timestamps({1, 3})));
  ASSERT_OK(tracker.Observe(1, Timestamps({5})));
  EventTimeStats merged = tracker.MergedBatchStats();
  EXPECT_EQ(merged.count, 3);
  EXPECT_EQ(merged.min_ms, 1 * kSecond);
  EXPECT_EQ(merged.max_ms, 5 * kSecond);
  EXPECT_DOUBLE_EQ(merged.avg_ms, 3.0 * kSecond);
}

TEST(WatermarkTrackerTest, RejectsANonTimestampColumn) {
  WatermarkTracker tracker({0});
  columnar::Column ints(columnar::DataType::Int64());
  ints.Append<int64_t>(5);
  ASSERT_STATUS_CODE(kInvalidArgument, tracker.Observe(0, ints));
}

TEST(WatermarkTrackerTest, PolicyNamesAreCaseInsensitive) {
  ASSERT_OK_AND_ASSIGN(auto min, ParseMultipleWatermarkPolicy("MIN"));
  EXPECT_EQ(min, MultipleWatermarkPolicy::kMin);
  ASSERT_OK_AND_ASSIGN(auto max, ParseMultipleWatermarkPolicy("max"));
  EXPECT_EQ(max, MultipleWatermarkPolicy::kMax);
  auto bad = ParseMultipleWatermarkPolicy("median");
  ASSERT_STATUS_CODE(kInvalidArgument, bad);
  EXPECT_NE(bad.status().message().find("Could not recognize watermark policy 'median'"),
            std::string::npos);
}

}  // namespace
}  // namespace weir::stream
