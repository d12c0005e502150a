#include "stream/deduplicate.h"

#include <gtest/gtest.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <random>

#include "base/testing.h"
#include "fs/local_file_system.h"
#include "stream/watermark.h"

namespace weir::stream {
namespace {

namespace stdfs = std::filesystem;
using columnar::Batch;
using columnar::Column;

constexpr int64_t kSecondMs = 1000;
constexpr int64_t kSecondUs = 1000000;

columnar::Schema Ddl(std::string_view ddl) { return columnar::ParseDdlSchema(ddl).ValueOrDie(); }

// Rows of (id STRING, ts TIMESTAMP); ts in seconds, or micros when `micros`.
struct Event {
  std::optional<std::string> id;
  std::optional<int64_t> ts;
};
// dropDuplicatesWithinWatermark on "id" with the watermark on "ts" (the Events() schema).
DeduplicateOptions WithinWatermarkOnId(int64_t delay_ms) {
  DeduplicateOptions options;
  options.mode = DeduplicateMode::kWithinWatermark;
  options.key_columns = {0};
  options.event_time_column = 1;
  options.delay_ms = delay_ms;
  return options;
}

Batch Events(const std::vector<Event>& events, bool micros = false) {
  Batch b(Ddl("id STRING, ts TIMESTAMP"));
  for (const Event& e : events) {
    if (e.id) {
      b.columns[0].AppendString(*e.id);
    } else {
      b.columns[0].AppendNull();
    }
    if (e.ts) {
      b.columns[1].Append<int64_t>(micros ? *e.ts : *e.ts * kSecondUs);
    } else {
      b.columns[1].AppendNull();
    }
  }
  return b;
}

// Rows of (value BIGINT, eventTime TIMESTAMP = value seconds), as Spark's DeduplicateSuite builds
// them with timestamp_seconds($"value").
Batch Values(const std::vector<int64_t>& values) {
  Batch b(Ddl("value BIGINT, eventTime TIMESTAMP"));
  for (int64_t v : values) {
    b.columns[0].Append<int64_t>(v);
    b.columns[1].Append<int64_t>(v * kSecondUs);
  }
  return b;
}

class DeduplicateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/weir-dedup-XXXXXX";
    root_ = mkdtemp(tmpl);
    dir_ = StateStoreDir(root_ + "/cp", 0);
  }
  void TearDown() override { stdfs::remove_all(root_); }

  Result<std::unique_ptr<Deduplicate>> OpenAt(int64_t version, const columnar::Schema& schema,
                                              DeduplicateOptions options) {
    return Deduplicate::Open(&fs_, dir_, version, schema, std::move(options));
  }

  fs::LocalFileSystem fs_;
  std::string root_;
  std::string dir_;
};

// Drives an operator the way MicroBatchExecution does: batch N filters late rows with batch N-1's
// watermark, evicts with its own, commits; the watermark is computed at batch end from every row
// reaching the WATERMARK node; a no-data batch follows whenever the watermark advanced.
class Engine {
 public:
  Engine(Deduplicate* op, int event_time_column, int64_t delay_ms)
      : op_(op), event_time_column_(event_time_column), tracker_({delay_ms}) {}

  // Runs one batch (plus the no-data batches it triggers); returns the kept row indices.
  std::vector<int32_t> Run(const Batch& batch) {
    std::vector<int32_t> keep = op_->Process(batch, previous_watermark_ms_).ValueOrDie();
    EXPECT_OK(tracker_.Observe(0, batch.columns[event_time_column_]));
    FinishBatch();
    while (op_->ShouldRunNoDataBatch(tracker_.watermark_ms(), previous_watermark_ms_)) {
      ++no_data_batches_;
      FinishBatch();
    }
    return keep;
  }
  int64_t batch_id() const { return batch_id_; }
  int64_t watermark_ms() const { return watermark_ms_; }
  int no_data_batches() const { return no_data_batches_; }
  // Sums since the last call, like Spark's assertNumStateRows; total is the latest.
  struct Counts {
    int64_t total, updated, removed, dropped_by_watermark;
  };
  Counts TakeCounts() {
    Counts c{op_->progress().num_rows_total, updated_, removed_, dropped_};
    updated_ = removed_ = dropped_ = 0;
    return c;
  }

 private:
  void FinishBatch() {
    EXPECT_OK(op_->EvictExpired(watermark_ms_));
    EXPECT_OK(op_->Commit(batch_id_));
    updated_ += op_->progress().num_rows_updated;
    removed_ += op_->progress().num_rows_removed;
    dropped_ += op_->progress().num_rows_dropped_by_watermark;
    ++batch_id_;
    previous_watermark_ms_ = watermark_ms_;
    watermark_ms_ = tracker_.EndBatch();
  }

  Deduplicate* op_;
  int event_time_column_;
  WatermarkTracker tracker_;
  int64_t batch_id_ = 0;
  int64_t watermark_ms_ = 0;           // the running batch's (offsets/N batchWatermarkMs)
  int64_t previous_watermark_ms_ = 0;  // the previous batch's: late rows are judged by it
  int no_data_batches_ = 0;
  int64_t updated_ = 0, removed_ = 0, dropped_ = 0;
};

std::vector<int32_t> Keep(std::initializer_list<int32_t> rows) { return rows; }

// ---- dropDuplicates

TEST_F(DeduplicateTest, FirstRowOfEachKeyIsKeptWithinAndAcrossBatches) {
  DeduplicateOptions options;
  options.key_columns = {0};
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  EXPECT_EQ(op->operator_name(), "dedupe");
  ASSERT_OK_AND_ASSIGN(auto keep, op->Process(Events({{"a", 1}, {"a", 2}, {"b", 3}, {"a", 4}}), 0));
  EXPECT_EQ(keep, Keep({0, 2}));
  ASSERT_OK(op->EvictExpired(0));
  ASSERT_OK(op->Commit(0));
  EXPECT_EQ(op->progress().num_rows_total, 2);
  EXPECT_EQ(op->progress().num_rows_updated, 2);
  EXPECT_EQ(op->progress().custom_metrics.at("numDroppedDuplicateRows"), 2);

  ASSERT_OK_AND_ASSIGN(keep, op->Process(Events({{"b", 9}, {"c", 9}, {"c", 9}}), 0));
  EXPECT_EQ(keep, Keep({1}));
  ASSERT_OK(op->Commit(1));
  EXPECT_EQ(op->progress().num_rows_total, 3);
  EXPECT_EQ(op->progress().num_rows_updated, 1);
  EXPECT_EQ(op->progress().custom_metrics.at("numDroppedDuplicateRows"), 2);
  EXPECT_EQ(op->progress().num_rows_removed, 0);
  EXPECT_EQ(op->progress().num_rows_dropped_by_watermark, 0);

  // After a restart the state still knows a, b and c.
  op.reset();
  ASSERT_OK_AND_ASSIGN(op, OpenAt(1, Ddl("id STRING, ts TIMESTAMP"), options));
  ASSERT_OK_AND_ASSIGN(keep, op->Process(Events({{"c", 1}, {"d", 1}, {"a", 1}}), 0));
  EXPECT_EQ(keep, Keep({1}));
}

TEST_F(DeduplicateTest, NullKeysAreOneKey) {
  DeduplicateOptions options;
  options.key_columns = {0};
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  ASSERT_OK_AND_ASSIGN(
      auto keep,
      op->Process(Events({{std::nullopt, 1}, {"", 1}, {std::nullopt, 2}, {"", 3}, {"null", 4}}),
                  0));
  EXPECT_EQ(keep, Keep({0, 1, 4}));
}

// Spark's DeduplicateSuite "deduplicate with watermark": dropDuplicates() over (value, eventTime)
// with a 10 s watermark on eventTime.
TEST_F(DeduplicateTest, SparkDeduplicateWithWatermark) {
  DeduplicateOptions options;  // keys: every column, the event time among them
  options.event_time_column = 1;
  options.delay_ms = 10 * kSecondMs;
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("value BIGINT, eventTime TIMESTAMP"), options));
  Engine engine(op.get(), 1, options.delay_ms);

  std::vector<int64_t> input;
  for (int i = 0; i < 5; ++i) {
    for (int64_t v = 10; v <= 15; ++v) input.push_back(v);
  }
  EXPECT_EQ(engine.Run(Values(input)), Keep({0, 1, 2, 3, 4, 5}));
  auto c = engine.TakeCounts();
  EXPECT_EQ(c.total, 6);
  EXPECT_EQ(c.updated, 6);

  // Advances the watermark to 15 s; the no-data batch evicts 10..15 (event time <= watermark).
  EXPECT_EQ(engine.Run(Values({25})), Keep({0}));
  c = engine.TakeCounts();
  EXPECT_EQ(c.total, 1);
  EXPECT_EQ(c.updated, 1);
  EXPECT_EQ(c.removed, 6);
  EXPECT_EQ(engine.watermark_ms(), 15 * kSecondMs);

  // 10 <= watermark: late, dropped and counted.
  EXPECT_EQ(engine.Run(Values({10})), Keep({}));
  c = engine.TakeCounts();
  EXPECT_EQ(c.total, 1);
  EXPECT_EQ(c.updated, 0);
  EXPECT_EQ(c.dropped_by_watermark, 1);

  // Advances the watermark to 35 s; 25 is evicted.
  EXPECT_EQ(engine.Run(Values({45})), Keep({0}));
  c = engine.TakeCounts();
  EXPECT_EQ(c.total, 1);
  EXPECT_EQ(c.updated, 1);

  // 45 is still in state: a duplicate, not late.
  EXPECT_EQ(engine.Run(Values({45})), Keep({}));
  c = engine.TakeCounts();
  EXPECT_EQ(c.total, 1);
  EXPECT_EQ(c.dropped_by_watermark, 0);
  EXPECT_EQ(op->progress().custom_metrics.at("numDroppedDuplicateRows"), 1);
}

TEST_F(DeduplicateTest, WithoutTheEventTimeAmongKeysStateIsNeverEvictedButLateRowsAreDropped) {
  DeduplicateOptions options;
  options.key_columns = {0};
  options.event_time_column = 1;
  options.delay_ms = 0;
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  Engine engine(op.get(), 1, 0);
  EXPECT_EQ(engine.Run(Events({{"a", 10}, {"b", 20}})), Keep({0, 1}));
  EXPECT_EQ(engine.Run(Events({{"c", 100}})), Keep({0}));  // watermark 100 s after this
  EXPECT_EQ(engine.watermark_ms(), 100 * kSecondMs);
  auto c = engine.TakeCounts();
  EXPECT_EQ(c.total, 3);
  EXPECT_EQ(c.removed, 0);
  // "a" is still known even far past the watermark; late rows are dropped whatever their key.
  EXPECT_EQ(engine.Run(Events({{"a", 200}, {"z", 50}, {"y", std::nullopt}})), Keep({2}));
  c = engine.TakeCounts();
  EXPECT_EQ(c.dropped_by_watermark, 1);
  EXPECT_EQ(c.total, 4);
}

TEST_F(DeduplicateTest, LateMeansAtOrBeforeTheWatermark) {
  DeduplicateOptions options;
  options.key_columns = {0};
  options.event_time_column = 1;
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  const int64_t w = 15 * kSecondUs;
  ASSERT_OK_AND_ASSIGN(auto keep,
                       op->Process(Events({{"at", w}, {"after", w + 1}, {"before", w - 1}},
                                          /*micros=*/true),
                                   15 * kSecondMs));
  EXPECT_EQ(keep, Keep({1}));
  ASSERT_OK(op->Commit(0));
  EXPECT_EQ(op->progress().num_rows_dropped_by_watermark, 2);
}

TEST_F(DeduplicateTest, TheFirstBatchAlreadyDropsRowsAtOrBeforeTheEpoch) {
  // Spark filters with watermark 0 in batch 0: event times <= 1970-01-01T00:00:00 are late.
  DeduplicateOptions options;
  options.key_columns = {0};
  options.event_time_column = 1;
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  ASSERT_OK_AND_ASSIGN(
      auto keep,
      op->Process(
          Events({{"zero", 0}, {"negative", -5}, {"one-micro", 1}, {"null-time", std::nullopt}},
                 /*micros=*/true),
          0));
  EXPECT_EQ(keep, Keep({2, 3}));
}

TEST_F(DeduplicateTest, EventTimeKeyEvictionBoundaryIsInclusive) {
  DeduplicateOptions options;
  options.key_columns = {0, 1};
  options.event_time_column = 1;
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  const int64_t w = 15 * kSecondUs;
  ASSERT_OK(op->Process(Events({{"a", w}, {"a", w + 1}, {"b", std::nullopt}}, true), 0).status());
  ASSERT_OK(op->EvictExpired(15 * kSecondMs));
  ASSERT_OK(op->Commit(0));
  EXPECT_EQ(op->progress().num_rows_removed, 1);
  EXPECT_EQ(op->progress().num_rows_total, 2);  // (a, w+1) and (b, NULL): NULL never expires
  // (a, w) was evicted: it would pass again if it were not late; (a, w+1) is still a duplicate.
  ASSERT_OK_AND_ASSIGN(auto keep,
                       op->Process(Events({{"a", w}, {"a", w + 1}, {"b", std::nullopt}}, true), 0));
  EXPECT_EQ(keep, Keep({0}));
  ASSERT_OK(op->EvictExpired(std::numeric_limits<int64_t>::max()));  // no overflow at the top
  ASSERT_OK(op->Commit(1));
  EXPECT_EQ(op->progress().num_rows_total, 1);
}

// ---- dropDuplicatesWithinWatermark

// Spark's DeduplicateWithinWatermarkSuite: dropDuplicatesWithinWatermark("_1") with a 2 s
// watermark.
TEST_F(DeduplicateTest, SparkDeduplicateWithinWatermark) {
  DeduplicateOptions options = WithinWatermarkOnId(2 * kSecondMs);
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  EXPECT_EQ(op->operator_name(), "dedupeWithinWatermark");
  Engine engine(op.get(), 1, options.delay_ms);

  // Advances the watermark to 15; "a" expires at 19.
  EXPECT_EQ(engine.Run(Events({{"a", 17}})), Keep({0}));
  auto c = engine.TakeCounts();
  EXPECT_EQ(c.total, 1);
  EXPECT_EQ(c.updated, 1);
  EXPECT_EQ(engine.watermark_ms(), 15 * kSecondMs);

  // A duplicate (not late: 16 > 15).
  EXPECT_EQ(engine.Run(Events({{"a", 16}})), Keep({}));
  c = engine.TakeCounts();
  EXPECT_EQ(c.total, 1);
  EXPECT_EQ(c.updated, 0);
  EXPECT_EQ(c.dropped_by_watermark, 0);

  // Late: 13 <= 15.
  EXPECT_EQ(engine.Run(Events({{"a", 13}})), Keep({}));
  c = engine.TakeCounts();
  EXPECT_EQ(c.total, 1);
  EXPECT_EQ(c.dropped_by_watermark, 1);

  // Advances the watermark to 20: the no-data batch evicts "a" (expires 19 <= 20).
  EXPECT_EQ(engine.Run(Events({{"b", 22}, {"c", 21}})), Keep({0, 1}));
  c = engine.TakeCounts();
  EXPECT_EQ(c.total, 2);
  EXPECT_EQ(c.updated, 2);
  EXPECT_EQ(c.removed, 1);

  // "a" passes again: its state row was evicted. It expires at 23.
  EXPECT_EQ(engine.Run(Events({{"a", 21}})), Keep({0}));
  c = engine.TakeCounts();
  EXPECT_EQ(c.total, 3);
  EXPECT_EQ(c.updated, 1);

  // Advances the watermark to 23: "a" and "c" expire exactly at 23 and are evicted.
  EXPECT_EQ(engine.Run(Events({{"d", 25}})), Keep({0}));
  c = engine.TakeCounts();
  EXPECT_EQ(c.total, 2);
  EXPECT_EQ(c.updated, 1);
  EXPECT_EQ(c.removed, 2);
  EXPECT_EQ(engine.watermark_ms(), 23 * kSecondMs);
}

TEST_F(DeduplicateTest, WithinWatermarkKeyStaysOneMicrosecondPastTheWatermark) {
  DeduplicateOptions options = WithinWatermarkOnId(1 * kSecondMs);
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  // expiresAt: x = 10 s exactly, y = 10 s + 1 µs.
  ASSERT_OK(
      op->Process(Events({{"x", 9 * kSecondUs}, {"y", 9 * kSecondUs + 1}}, true), 0).status());
  ASSERT_OK(op->EvictExpired(10 * kSecondMs));
  ASSERT_OK(op->Commit(0));
  EXPECT_EQ(op->progress().num_rows_removed, 1);
  ASSERT_OK_AND_ASSIGN(
      auto keep,
      op->Process(Events({{"x", 11 * kSecondUs}, {"y", 11 * kSecondUs}}, true), 10 * kSecondMs));
  EXPECT_EQ(keep, Keep({0}));
}

TEST_F(DeduplicateTest, WithinWatermarkNullEventTimeExpiresAtTheDelay) {
  // Spark reads a NULL event time as 0 when it computes expiresAt.
  DeduplicateOptions options = WithinWatermarkOnId(5 * kSecondMs);
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  ASSERT_OK(op->Process(Events({{"n", std::nullopt}}), 0).status());
  ASSERT_OK(op->EvictExpired(4 * kSecondMs));
  ASSERT_OK(op->Commit(0));
  EXPECT_EQ(op->progress().num_rows_total, 1);
  ASSERT_OK(op->EvictExpired(5 * kSecondMs));
  ASSERT_OK(op->Commit(1));
  EXPECT_EQ(op->progress().num_rows_total, 0);
}

// Eviction scans only above what earlier batches evicted; a row that expires below that (a NULL
// event time expires at the delay) must still be found, in this batch and after a reopen.
TEST_F(DeduplicateTest, RowsExpiringBelowAnEarlierEvictionAreStillEvicted) {
  DeduplicateOptions options = WithinWatermarkOnId(5 * kSecondMs);
  {
    ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
    ASSERT_OK(op->Process(Events({{"a", 10}, {"b", 100}}), 0).status());
    ASSERT_OK(op->EvictExpired(50 * kSecondMs));  // "a" expires at 15
    ASSERT_OK(op->Commit(0));
    EXPECT_EQ(op->progress().num_rows_removed, 1);
    ASSERT_OK(op->Process(Events({{"n", std::nullopt}, {"c", 60}}), 50 * kSecondMs).status());
    ASSERT_OK(op->EvictExpired(60 * kSecondMs));  // "n" expires at 5, "c" at 65
    ASSERT_OK(op->Commit(1));
    EXPECT_EQ(op->progress().num_rows_removed, 1);
    EXPECT_EQ(op->progress().num_rows_total, 2);
    // An aborted eviction is done again by the next batch.
    ASSERT_OK(op->EvictExpired(70 * kSecondMs));
    ASSERT_OK(op->Abort());
    ASSERT_OK(op->Process(Events({{"m", std::nullopt}}), 60 * kSecondMs).status());
    ASSERT_OK(op->Commit(2));  // without an eviction: "m" stays below the evicted 60 s
    EXPECT_EQ(op->progress().num_rows_total, 3);
    ASSERT_OK(op->EvictExpired(70 * kSecondMs));
    ASSERT_OK(op->Commit(3));
    EXPECT_EQ(op->progress().num_rows_removed, 2);  // "c" and "m"
    EXPECT_EQ(op->progress().num_rows_total, 1);
  }
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(3, Ddl("id STRING, ts TIMESTAMP"), options));
  ASSERT_OK(op->Process(Events({{"o", std::nullopt}}), 70 * kSecondMs).status());
  ASSERT_OK(op->EvictExpired(200 * kSecondMs));
  ASSERT_OK(op->Commit(4));
  EXPECT_EQ(op->progress().num_rows_removed, 2);  // "b" and "o"
  EXPECT_EQ(op->progress().num_rows_total, 0);
}

// Rows added after the batch's eviction (the engine never does, but the operator allows it) below
// its watermark are evicted by the next batch.
TEST_F(DeduplicateTest, RowsAddedAfterTheBatchEvictionAreEvictedNextBatch) {
  DeduplicateOptions options = WithinWatermarkOnId(kSecondMs);
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  ASSERT_OK(op->EvictExpired(10 * kSecondMs));
  ASSERT_OK(op->Process(Events({{"a", 4}}), 0).status());  // expires at 5 s
  ASSERT_OK(op->Commit(0));
  EXPECT_EQ(op->progress().num_rows_total, 1);
  ASSERT_OK(op->EvictExpired(10 * kSecondMs));
  ASSERT_OK(op->Commit(1));
  EXPECT_EQ(op->progress().num_rows_removed, 1);
  EXPECT_EQ(op->progress().num_rows_total, 0);
}

// The speed of it: the entries earlier batches evicted stay in RocksDB as tombstones, and an
// eviction must not walk over them (one scanning from the start of the index took most of each
// batch in a long streaming run). Nor may a NULL event time (a straggler below the bound) send it
// back to the start.
TEST_F(DeduplicateTest, EvictionDoesNotWalkOverEarlierEvictions) {
  DeduplicateOptions options = WithinWatermarkOnId(kSecondMs);
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  constexpr int kBatches = 30, kRows = 2000;
  uint64_t skipped = 0;
  for (int b = 0; b < kBatches; ++b) {
    std::vector<Event> events;
    for (int i = 0; i < kRows; ++i) {  // times b*10 s + 1..3 s: evicted by the next batch
      events.push_back({"k" + std::to_string(b) + "-" + std::to_string(i),
                        int64_t{b} * 10 * kSecondUs + kSecondUs + i * 1000});
    }
    if (b == kBatches - 1) events.push_back({"null-time", std::nullopt});
    ASSERT_OK(op->Process(Events(events, /*micros=*/true), int64_t{b - 1} * 10 * kSecondMs).status());
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
    rocksdb::get_perf_context()->Reset();
    ASSERT_OK(op->EvictExpired(int64_t{b} * 10 * kSecondMs));
    skipped = rocksdb::get_perf_context()->internal_delete_skipped_count;
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
    ASSERT_OK(op->Commit(b));
    if (b > 0) {
      EXPECT_EQ(op->progress().num_rows_removed, kRows + (b == kBatches - 1 ? 1 : 0));
    }
  }
  // The last eviction: the previous batch's rows and the NULL-time row, past about nothing.
  EXPECT_LT(skipped, uint64_t{kRows}) << "tombstones walked over";
  EXPECT_EQ(op->progress().num_rows_total, kRows);
}

TEST_F(DeduplicateTest, WithinWatermarkNeedsAnEventTimeColumn) {
  DeduplicateOptions options;
  options.mode = DeduplicateMode::kWithinWatermark;
  options.key_columns = {0};
  auto opened = OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options);
  ASSERT_STATUS_CODE(kInvalidArgument, opened);
  EXPECT_NE(opened.status().message().find("needs a watermark"), std::string::npos);
}

TEST_F(DeduplicateTest, BadOptionsAreRejected) {
  DeduplicateOptions out_of_range;
  out_of_range.key_columns = {2};
  ASSERT_STATUS_CODE(kInvalidArgument, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), out_of_range));
  DeduplicateOptions not_a_time;
  not_a_time.key_columns = {0};
  not_a_time.event_time_column = 0;
  ASSERT_STATUS_CODE(kInvalidArgument, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), not_a_time));
  DeduplicateOptions negative;
  negative.event_time_column = 1;
  negative.delay_ms = -1;
  ASSERT_STATUS_CODE(kInvalidArgument, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), negative));
}

TEST_F(DeduplicateTest, ProcessRejectsABatchOfAnotherSchema) {
  DeduplicateOptions options;
  options.key_columns = {0};
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  ASSERT_STATUS_CODE(kInvalidArgument, op->Process(Values({1}), 0));
}

// ---- Keys: every type, unambiguous

TEST(KeyEncodingTest, DistinctTuplesNeverShareAnEncoding) {
  Batch b(Ddl("a STRING, b STRING"));
  auto add = [&](std::optional<std::string> x, std::optional<std::string> y) {
    if (x) {
      b.columns[0].AppendString(*x);
    } else {
      b.columns[0].AppendNull();
    }
    if (y) {
      b.columns[1].AppendString(*y);
    } else {
      b.columns[1].AppendNull();
    }
  };
  add("ab", "c");
  add("a", "bc");
  add(std::nullopt, "x");
  add("", "x");
  add(std::string("\x00", 1), "x");
  add(std::nullopt, std::nullopt);
  add(std::nullopt, std::nullopt);
  std::vector<std::string> keys(b.num_rows());
  for (int64_t r = 0; r < b.num_rows(); ++r) EncodeKey(b, r, {0, 1}, &keys[r]);
  for (int64_t i = 0; i < b.num_rows(); ++i) {
    for (int64_t j = i + 1; j < b.num_rows(); ++j) {
      if (i == 5 && j == 6) {
        EXPECT_EQ(keys[i], keys[j]);  // (NULL, NULL) twice
      } else {
        EXPECT_NE(keys[i], keys[j]) << i << " vs " << j;
      }
    }
  }
  // The documented bytes: tag 1, varint 2, "ab"; tag 1, varint 1, "c".
  EXPECT_EQ(keys[0], std::string("\x01\x02"
                                 "ab"
                                 "\x01\x01"
                                 "c",
                                 7));
  EXPECT_EQ(keys[5], std::string("\x00\x00", 2));
}

TEST(KeyEncodingTest, FloatingPointValuesSqlCallsEqualShareAKey) {
  Batch b(Ddl("d DOUBLE, f FLOAT"));
  auto add = [&](double d, float f) {
    b.columns[0].Append<double>(d);
    b.columns[1].Append<float>(f);
  };
  add(0.0, 0.0f);
  add(-0.0, -0.0f);
  add(std::nan("1"), std::nanf("1"));
  add(-std::nan("7"), std::nanf("3"));
  add(1.0, 1.0f);
  std::vector<std::string> k(5);
  for (int r = 0; r < 5; ++r) EncodeKey(b, r, {0, 1}, &k[r]);
  EXPECT_EQ(k[0], k[1]);
  EXPECT_EQ(k[2], k[3]);
  EXPECT_NE(k[0], k[2]);
  EXPECT_NE(k[0], k[4]);
}

TEST(KeyEncodingTest, NestedValuesAreDelimited) {
  Batch b(Ddl("s STRUCT<x: INT, y: STRING>, l ARRAY<STRING>"));
  Column& s = b.columns[0];
  Column& l = b.columns[1];
  auto add = [&](std::optional<std::pair<std::optional<int32_t>, std::string>> sv,
                 std::optional<std::vector<std::string>> lv) {
    if (sv) {
      if (sv->first) {
        s.mutable_child(0).Append<int32_t>(*sv->first);
      } else {
        s.mutable_child(0).AppendNull();
      }
      s.mutable_child(1).AppendString(sv->second);
      s.AppendStructEntry();
    } else {
      s.AppendNull();
    }
    if (lv) {
      for (const auto& e : *lv) l.mutable_child(0).AppendString(e);
      l.AppendListEntry();
    } else {
      l.AppendNull();
    }
  };
  add(std::make_pair(std::optional<int32_t>(1), std::string("a")),
      std::vector<std::string>{"a", "b"});
  add(std::make_pair(std::optional<int32_t>(1), std::string("a")), std::vector<std::string>{"ab"});
  add(std::make_pair(std::optional<int32_t>(), std::string("a")), std::vector<std::string>{});
  add(std::nullopt, std::nullopt);
  add(std::make_pair(std::optional<int32_t>(1), std::string("a")),
      std::vector<std::string>{"a", "b"});
  std::vector<std::string> k(5);
  for (int r = 0; r < 5; ++r) EncodeKey(b, r, {0, 1}, &k[r]);
  EXPECT_NE(k[0], k[1]);
  EXPECT_NE(k[1], k[2]);
  EXPECT_NE(k[2], k[3]);  // empty list vs NULL list, NULL field vs NULL struct
  EXPECT_EQ(k[0], k[4]);
}

TEST_F(DeduplicateTest, MultiColumnKeysOfSeveralTypes) {
  columnar::Schema schema = Ddl(
      "s STRING, l BIGINT, i INT, d DOUBLE, dec DECIMAL(10,2), dt DATE, bo BOOLEAN, bin BINARY, "
      "ts TIMESTAMP");
  auto batch = [&](const std::vector<int>& variants) {
    Batch b(schema);
    for (int v : variants) {
      // Variant 0 is the base row; each other variant changes one column (or makes it NULL).
      if (v == 1) {
        b.columns[0].AppendNull();
      } else {
        b.columns[0].AppendString("k");
      }
      b.columns[1].Append<int64_t>(v == 2 ? 8 : 7);
      if (v == 3) {
        b.columns[2].AppendNull();
      } else {
        b.columns[2].Append<int32_t>(1);
      }
      b.columns[3].Append<double>(v == 4 ? 2.5 : 1.5);
      b.columns[4].Append<columnar::Int128>(v == 5 ? 12346 : 12345);
      b.columns[5].Append<int32_t>(v == 6 ? 19000 : 19001);
      b.columns[6].Append<uint8_t>(v == 7 ? 0 : 1);
      b.columns[7].AppendString(v == 8 ? std::string("\x00\x01", 2) : std::string("\x00", 1));
      b.columns[8].Append<int64_t>(1000);
    }
    return b;
  };
  DeduplicateOptions options;
  options.key_columns = {0, 1, 2, 3, 4, 5, 6, 7};
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, schema, options));
  ASSERT_OK_AND_ASSIGN(auto keep, op->Process(batch({0, 1, 0, 2, 3, 1, 4}), 0));
  EXPECT_EQ(keep, Keep({0, 1, 3, 4, 6}));
  ASSERT_OK(op->Commit(0));
  ASSERT_OK_AND_ASSIGN(keep, op->Process(batch({5, 6, 7, 8, 0, 3, 8}), 0));
  EXPECT_EQ(keep, Keep({0, 1, 2, 3}));
  ASSERT_OK(op->Commit(1));
  EXPECT_EQ(op->progress().num_rows_total, 9);
}

// ---- Against a model

// Random batches with duplicates (within a block of rows, across blocks and across batches), late
// rows and NULL event times, against a model of Spark's semantics. Process works on blocks of
// rows, prefetching before judging them; the store's pending updates are written out often
// (small pending_bytes: as write batches, or as ingested files) while blocks are in flight.
Batch Rows(const Batch& batch, int64_t offset, int64_t length) {
  Batch part(batch.schema);
  for (size_t c = 0; c < batch.columns.size(); ++c) {
    part.columns[c] = batch.columns[c].Slice(offset, length);
  }
  return part;
}

class DeduplicateModelTest : public DeduplicateTest,
                             public ::testing::WithParamInterface<std::tuple<bool, size_t>> {};

TEST_P(DeduplicateModelTest, RandomBatchesMatchAModel) {
  const auto [within, pending_bytes] = GetParam();
  DeduplicateOptions options;
  options.mode = within ? DeduplicateMode::kWithinWatermark : DeduplicateMode::kDropDuplicates;
  options.key_columns = within ? std::vector<int>{0} : std::vector<int>{0, 1};
  options.event_time_column = 1;
  options.delay_ms = 5 * kSecondMs;
  options.store.pending_bytes = pending_bytes;
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  std::mt19937_64 random(within ? 11 : 12);
  // key -> eviction time (micros; dropDuplicates: the event time, or none for a NULL one).
  std::map<std::pair<std::string, std::optional<int64_t>>, std::optional<int64_t>> model;
  int64_t previous_watermark_ms = 0;
  for (int64_t batch = 0; batch < 4; ++batch) {
    const int64_t watermark_ms = (batch + 1) * 10 * kSecondMs;
    std::vector<Event> events;
    std::vector<int32_t> expected;
    const int rows = 15000 + static_cast<int>(random() % 100);
    for (int row = 0; row < rows; ++row) {
      Event e;
      e.id = "id-" + std::to_string(random() % 20000);
      // Whole seconds (dropDuplicates keys include the time: equal times make duplicates).
      if (random() % 100 != 0) e.ts = batch * 10 + static_cast<int64_t>(random() % 30) - 10;
      events.push_back(e);
      const std::optional<int64_t> micros =
          e.ts ? std::optional<int64_t>(*e.ts * kSecondUs) : std::nullopt;
      if (micros && *micros <= previous_watermark_ms * 1000) continue;  // late
      auto key = std::make_pair(*e.id, within ? std::nullopt : micros);
      if (model.count(key) > 0) continue;  // duplicate
      model[key] = within ? std::optional<int64_t>(micros.value_or(0) + options.delay_ms * 1000)
                          : micros;
      expected.push_back(row);
    }
    Batch b = Events(events);
    // Two calls per batch (Process may get a batch in parts).
    const int64_t half = rows / 2;
    ASSERT_OK_AND_ASSIGN(auto first, op->Process(Rows(b, 0, half), previous_watermark_ms));
    ASSERT_OK_AND_ASSIGN(auto second,
                         op->Process(Rows(b, half, rows - half), previous_watermark_ms));
    std::vector<int32_t> kept = first;
    for (int32_t r : second) kept.push_back(static_cast<int32_t>(r + half));
    ASSERT_EQ(kept, expected) << "batch " << batch;
    ASSERT_OK(op->EvictExpired(watermark_ms));
    ASSERT_OK(op->Commit(batch));
    for (auto it = model.begin(); it != model.end();) {
      if (it->second && *it->second <= watermark_ms * 1000) {
        it = model.erase(it);
      } else {
        ++it;
      }
    }
    ASSERT_EQ(op->progress().num_rows_total, static_cast<int64_t>(model.size()))
        << "batch " << batch;
    previous_watermark_ms = watermark_ms;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, DeduplicateModelTest,
    ::testing::Combine(::testing::Bool(),
                       // Write batches of a few KB; ingested files (256 KiB and up).
                       ::testing::Values(size_t{4} << 10, size_t{300} << 10)));

// ---- Restart, crash, schema change

TEST_F(DeduplicateTest, ReRunOfAnUncommittedBatchGivesTheSameResult) {
  DeduplicateOptions options = WithinWatermarkOnId(10 * kSecondMs);
  columnar::Schema schema = Ddl("id STRING, ts TIMESTAMP");
  Batch batch1 = Events({{"a", 30}, {"c", 31}, {"d", 5}, {"c", 32}});
  std::vector<int32_t> first_try;
  {
    ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, schema, options));
    ASSERT_OK(op->Process(Events({{"a", 20}, {"b", 21}}), 0).status());
    ASSERT_OK(op->EvictExpired(0));
    ASSERT_OK(op->Commit(0));
    ASSERT_OK_AND_ASSIGN(first_try, op->Process(batch1, 0));
    ASSERT_OK(op->EvictExpired(30 * kSecondMs));
    // Crash before Commit(1).
  }
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(0, schema, options));
  EXPECT_EQ(op->store().metrics().num_rows_total, 2);
  ASSERT_OK_AND_ASSIGN(auto second_try, op->Process(batch1, 0));
  EXPECT_EQ(second_try, first_try);
  EXPECT_EQ(second_try, Keep({1, 2}));
  ASSERT_OK(op->EvictExpired(30 * kSecondMs));
  ASSERT_OK(op->Commit(1));
  // a (expires 30 s) and d (15 s) are evicted; b (31 s) and c (41 s) stay.
  EXPECT_EQ(op->progress().num_rows_total, 2);
  EXPECT_EQ(op->progress().num_rows_removed, 2);
  ASSERT_OK_AND_ASSIGN(auto after, op->Process(Events({{"a", 40}, {"b", 40}, {"d", 40}}), 30000));
  EXPECT_EQ(after, Keep({0, 2}));
}

TEST_F(DeduplicateTest, AbortDropsTheBatchUpdates) {
  DeduplicateOptions options;
  options.key_columns = {0};
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  ASSERT_OK(op->Process(Events({{"a", 1}}), 0).status());
  ASSERT_OK(op->Commit(0));
  ASSERT_OK(op->Process(Events({{"b", 1}}), 0).status());
  ASSERT_OK(op->Abort());
  ASSERT_OK_AND_ASSIGN(auto keep, op->Process(Events({{"a", 1}, {"b", 1}}), 0));
  EXPECT_EQ(keep, Keep({1}));
}

// The in-memory fingerprints must follow the store through an abort: an eviction that was
// aborted leaves the key in the state, so a later duplicate of it is still dropped.
TEST_F(DeduplicateTest, AbortedEvictionKeepsTheKeyADuplicate) {
  DeduplicateOptions options = WithinWatermarkOnId(2 * kSecondMs);
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  ASSERT_OK(op->Process(Events({{"a", 10}}), 0).status());
  ASSERT_OK(op->EvictExpired(0));
  ASSERT_OK(op->Commit(0));
  ASSERT_OK(op->EvictExpired(100 * kSecondMs));  // "a" expires at 12
  ASSERT_OK(op->Abort());
  ASSERT_OK_AND_ASSIGN(auto keep, op->Process(Events({{"a", 11}, {"b", 11}}), 0));
  EXPECT_EQ(keep, Keep({1}));
  // Committed evictions do free the key.
  ASSERT_OK(op->EvictExpired(100 * kSecondMs));
  ASSERT_OK(op->Commit(1));
  ASSERT_OK_AND_ASSIGN(keep, op->Process(Events({{"a", 200}}), 0));
  EXPECT_EQ(keep, Keep({0}));
}

// Reopening rebuilds the fingerprints from the committed state.
TEST_F(DeduplicateTest, KeysSurviveAReopen) {
  DeduplicateOptions options;
  options.key_columns = {0};
  {
    ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
    std::vector<Event> events;
    for (int i = 0; i < 5000; ++i) {
      std::string id(1, 'k');
      id.append(std::to_string(i));
      events.push_back({id, 1});
    }
    ASSERT_OK(op->Process(Events(events), 0).status());
    ASSERT_OK(op->Commit(0));
  }
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(0, Ddl("id STRING, ts TIMESTAMP"), options));
  ASSERT_OK_AND_ASSIGN(auto keep, op->Process(Events({{"k17", 1}, {"k4999", 1}, {"k5000", 1}}), 0));
  EXPECT_EQ(keep, Keep({2}));
}

TEST_F(DeduplicateTest, ChangedKeysAreRefusedOnRestart) {
  columnar::Schema schema = Ddl("id STRING, n BIGINT, ts TIMESTAMP");
  DeduplicateOptions by_id;
  by_id.key_columns = {0};
  {
    ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, schema, by_id));
    ASSERT_OK(op->Commit(0));
  }
  DeduplicateOptions by_n;
  by_n.key_columns = {1};
  ASSERT_STATUS_CODE(kInvalidArgument, OpenAt(0, schema, by_n));
  DeduplicateOptions within = by_id;
  within.mode = DeduplicateMode::kWithinWatermark;
  within.event_time_column = 2;
  ASSERT_STATUS_CODE(kInvalidArgument, OpenAt(0, schema, within));
  ASSERT_OK(OpenAt(0, schema, by_id).status());
}

// Within-watermark state written in the earlier layout (rows key -> expiresAt, index entries
// time(expiresAt) + key; docs/state-format.md) opens, is converted, and behaves as before: its
// keys are duplicates until evicted, the next commit records the current layout, and an abort
// returns to the old version and converts it again.
class DeduplicateUpgradeTest : public DeduplicateTest {
 protected:
  static constexpr std::string_view kOldSchema =
      "dedupeWithinWatermark keys=(STRING) value=expiresAtMicros index=expiresAt";

  // Commits version 0 of the old layout: ids with their expiresAt (seconds); `extra_index_entry`
  // adds an index entry without a row (a damaged state).
  void WriteOldState(const std::vector<std::pair<std::string, int64_t>>& rows,
                     bool extra_index_entry = false) {
    StateStoreOptions store_options;
    store_options.schema = std::string(kOldSchema);
    auto store = StateStore::Open(&fs_, dir_, -1, store_options).ValueOrDie();
    for (const auto& [id, expires_s] : rows) {
      Batch b = Events({{id, 0}});
      std::string key;
      EncodeKey(b, 0, {0}, &key);
      std::string value(8, '\0');
      const int64_t expires_us = expires_s * kSecondUs;
      std::memcpy(value.data(), &expires_us, 8);  // little-endian
      ASSERT_OK(store->Put(key, value));
      std::string index_key;
      AppendOrderedTime(expires_us, &index_key);
      index_key += key;
      ASSERT_OK(store->Put(index_key, {}, StateStore::Keyspace::kIndex));
    }
    if (extra_index_entry) {
      std::string index_key;
      AppendOrderedTime(5 * kSecondUs, &index_key);
      index_key += "\x01\x01z";
      ASSERT_OK(store->Put(index_key, {}, StateStore::Keyspace::kIndex));
    }
    ASSERT_OK(store->Commit(0));
  }
};

TEST_F(DeduplicateUpgradeTest, EarlierWithinWatermarkLayoutIsConverted) {
  WriteOldState({{"a", 20}, {"b", 30}, {"c", 40}});
  const columnar::Schema schema = Ddl("id STRING, ts TIMESTAMP");
  DeduplicateOptions options = WithinWatermarkOnId(10 * kSecondMs);
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(0, schema, options));
  EXPECT_EQ(op->store().metrics().num_rows_total, 3);
  EXPECT_EQ(op->store().loaded_schema(), kOldSchema);
  // The old keys are duplicates whatever the new row's time; "d" is new.
  ASSERT_OK_AND_ASSIGN(auto keep, op->Process(Events({{"a", 15}, {"b", 12}, {"d", 15}}), 0));
  EXPECT_EQ(keep, Keep({2}));
  // Aborted: back at the old version, converted again.
  ASSERT_OK(op->Abort());
  EXPECT_EQ(op->store().metrics().num_rows_total, 3);
  ASSERT_OK_AND_ASSIGN(keep, op->Process(Events({{"c", 15}, {"d", 35}, {"d", 36}}), 0));
  EXPECT_EQ(keep, Keep({1}));
  // The watermark at 30 s evicts "a" (20) and "b" (30), kept in the old layout's rows.
  ASSERT_OK(op->EvictExpired(30 * kSecondMs));
  ASSERT_OK(op->Commit(1));
  EXPECT_EQ(op->progress().num_rows_removed, 2);
  EXPECT_EQ(op->progress().num_rows_total, 2);  // c, d
  EXPECT_EQ(op->store().loaded_schema(), "dedupeWithinWatermark keys=(STRING) rows=expiresAt+key");
  // Version 1 holds the new layout alone: rows by time, no index entries.
  op.reset();
  {
    StateStoreOptions store_options;
    store_options.schema = "dedupeWithinWatermark keys=(STRING) rows=expiresAt+key";
    ASSERT_OK_AND_ASSIGN(auto store, StateStore::Open(&fs_, dir_, 1, store_options));
    ASSERT_OK_AND_ASSIGN(auto index, store->Scan(StateStore::Keyspace::kIndex));
    EXPECT_FALSE(index->Valid());
    ASSERT_OK_AND_ASSIGN(auto rows, store->Scan(StateStore::Keyspace::kRows));
    std::vector<int64_t> times;
    for (; rows->Valid(); rows->Next()) times.push_back(DecodeOrderedTime(rows->key()));
    EXPECT_EQ(times, (std::vector<int64_t>{40 * kSecondUs, 45 * kSecondUs}));  // c, d
  }
  ASSERT_OK_AND_ASSIGN(op, OpenAt(1, schema, options));
  ASSERT_OK_AND_ASSIGN(keep, op->Process(Events({{"a", 40}, {"b", 40}, {"c", 40}, {"d", 40}}),
                                         30 * kSecondMs));
  EXPECT_EQ(keep, Keep({0, 1}));
}

TEST_F(DeduplicateUpgradeTest, EarlierLayoutWithRowsAndIndexDisagreeingIsCorruption) {
  WriteOldState({{"a", 20}}, /*extra_index_entry=*/true);
  auto op = OpenAt(0, Ddl("id STRING, ts TIMESTAMP"), WithinWatermarkOnId(10 * kSecondMs));
  ASSERT_STATUS_CODE(kCorruption, op);
  EXPECT_NE(op.status().message().find("1 rows but 2 index entries"), std::string::npos)
      << op.status().ToString();
}

// ---- Scale: 1M rows, 10% duplicates; memory stays bounded by RocksDB's budget.

// Sanitizer builds (CI) run a fifth of the rows: they are ~10x slower.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

TEST_F(DeduplicateTest, MillionRowsStayWithinTheMemoryBudget) {
  constexpr int64_t kRows = kSanitized ? 200000 : 1000000;
  constexpr int64_t kUnique = kRows / 10 * 9;
  constexpr int64_t kBatchRows = 100000;
  DeduplicateOptions options = WithinWatermarkOnId(3600 * kSecondMs);
  ASSERT_OK_AND_ASSIGN(auto op, OpenAt(-1, Ddl("id STRING, ts TIMESTAMP"), options));
  const int64_t base = int64_t{1767225600} * kSecondUs;  // 2026-01-01
  int64_t kept = 0;
  int64_t next_id = 0;
  double process_seconds = 0;
  double process_cpu_seconds = 0;  // of the whole process, RocksDB's background threads included
  int64_t max_memory = 0;
  int64_t max_store_memory = 0;
  for (int64_t start = 0, batch_id = 0; start < kRows; start += kBatchRows, ++batch_id) {
    Batch b(Ddl("id STRING, ts TIMESTAMP"));
    b.columns[0].Reserve(kBatchRows);
    b.columns[1].Reserve(kBatchRows);
    for (int64_t r = start; r < start + kBatchRows; ++r) {
      // Every 10th row repeats an earlier id (half-way back: mostly in an earlier batch).
      int64_t id = r % 10 == 9 ? next_id / 2 : next_id++;
      b.columns[0].AppendString("order-" + std::to_string(id));
      b.columns[1].Append<int64_t>(base + r * 1000);
    }
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    ASSERT_OK_AND_ASSIGN(auto keep, op->Process(b, 0));
    process_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    process_cpu_seconds += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    kept += static_cast<int64_t>(keep.size());
    ASSERT_OK(op->EvictExpired(0));
    ASSERT_OK(op->Commit(batch_id));
    max_memory = std::max(max_memory, op->progress().memory_used_bytes);
    max_store_memory = std::max(max_store_memory, op->store().metrics().memory_used_bytes);
  }
  EXPECT_EQ(kept, next_id);
  EXPECT_EQ(kept, kUnique);
  EXPECT_EQ(op->progress().num_rows_total, kUnique);
  // The store: block cache 8 MiB + at most two 4 MiB memtables + table readers + pending
  // updates: not growing with the state. The fingerprints with their expiresAt: 16 bytes a slot,
  // 2^21 slots for 900,000 keys (32 MiB).
  EXPECT_LT(max_store_memory, int64_t{16} << 20);
  EXPECT_LT(max_memory, int64_t{52} << 20);
  EXPECT_GT(op->progress().custom_metrics.at("rocksdbSstFileSize"), kRows * 5);
  std::printf(
      "[ dedup   ] %lld rows in %.2f s of Process (%.2f s CPU): %.0f rows/s (%.0f per CPU "
      "second); max memory %.1f MiB; SST %.1f MiB\n",
      static_cast<long long>(kRows), process_seconds, process_cpu_seconds, kRows / process_seconds,
      kRows / process_cpu_seconds, max_memory / 1048576.0,
      op->progress().custom_metrics.at("rocksdbSstFileSize") / 1048576.0);

  // Every key expires once the watermark passes the last event time plus the delay.
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_OK(op->EvictExpired((base / 1000) + kRows + 3601 * kSecondMs));
  double evict_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_OK(op->Commit(100));
  EXPECT_EQ(op->progress().num_rows_removed, kUnique);
  EXPECT_EQ(op->progress().num_rows_total, 0);
  std::printf("[ dedup   ] evicted %lld keys in %.2f s; commit %lld ms\n",
              static_cast<long long>(kUnique), evict_seconds,
              static_cast<long long>(op->progress().commit_time_ms));
}

}  // namespace
}  // namespace weir::stream
