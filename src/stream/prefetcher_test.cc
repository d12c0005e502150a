#include "stream/prefetcher.h"

#include <atomic>
#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::stream {
namespace {

using columnar::Batch;
using columnar::DataType;
using columnar::Field;
using columnar::Schema;

Batch OneRow(int64_t value) {
  Batch batch(Schema{{Field{"v", DataType::Int64()}}});
  batch.columns[0].Append<int64_t>(value);
  return batch;
}

TEST(BatchPrefetcherTest, DeliversEveryBatchInOrderThenEnds) {
  int64_t produced = 0;
  BatchPrefetcher prefetcher(
      [&]() -> Result<std::optional<Batch>> {
        if (produced == 50) return std::optional<Batch>();
        return std::optional<Batch>(OneRow(produced++));
      },
      2);
  for (int64_t i = 0; i < 50; ++i) {
    ASSERT_OK_AND_ASSIGN(std::optional<Batch> batch, prefetcher.Next());
    ASSERT_TRUE(batch.has_value());
    EXPECT_EQ(batch->columns[0].values<int64_t>()[0], i);
  }
  ASSERT_OK_AND_ASSIGN(std::optional<Batch> end, prefetcher.Next());
  EXPECT_FALSE(end.has_value());
  ASSERT_OK_AND_ASSIGN(end, prefetcher.Next());
  EXPECT_FALSE(end.has_value());
}

TEST(BatchPrefetcherTest, ErrorComesAfterTheBatchesBeforeIt) {
  int calls = 0;
  BatchPrefetcher prefetcher(
      [&]() -> Result<std::optional<Batch>> {
        if (++calls == 3) return Status::Unavailable("broker gone at offset 7");
        return std::optional<Batch>(OneRow(calls));
      },
      4);
  ASSERT_OK(prefetcher.Next().status());
  ASSERT_OK(prefetcher.Next().status());
  auto third = prefetcher.Next();
  ASSERT_STATUS_CODE(kUnavailable, third);
  EXPECT_NE(third.status().message().find("offset 7"), std::string::npos);
}

TEST(BatchPrefetcherTest, StaysAtMostDepthAheadAndStopsMidStream) {
  std::atomic<int64_t> produced{0};
  std::atomic<int64_t> consumed{0};
  std::atomic<int64_t> max_ahead{0};
  BatchPrefetcher prefetcher(
      [&]() -> Result<std::optional<Batch>> {
        int64_t ahead = produced.load() - consumed.load();
        if (ahead > max_ahead.load()) max_ahead.store(ahead);
        return std::optional<Batch>(OneRow(produced++));
      },
      1);
  for (int i = 0; i < 20; ++i) {
    ASSERT_OK_AND_ASSIGN(std::optional<Batch> batch, prefetcher.Next());
    ASSERT_TRUE(batch.has_value());
    ++consumed;
  }
  prefetcher.Stop();
  // One batch queued plus the one being produced, measured before the producer's own increment.
  EXPECT_LE(max_ahead.load(), 2);
  ASSERT_OK_AND_ASSIGN(std::optional<Batch> after, prefetcher.Next());
  if (after) {  // a batch queued before Stop() may still be delivered; then the end
    ASSERT_OK_AND_ASSIGN(after, prefetcher.Next());
  }
  EXPECT_FALSE(after.has_value());
}

}  // namespace
}  // namespace weir::stream
