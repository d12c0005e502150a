#include "stream/delta_flow_source.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <string>
#include <thread>

#include "base/testing.h"
#include "delta/snapshot.h"
#include "delta/table.h"
#include "delta/transaction.h"
#include "fs/local_file_system.h"
#include "stream/commit_signal.h"
#include "stream/trigger.h"

namespace weir::stream {
namespace {

using columnar::Batch;

class DeltaFlowSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/weir-delta-flow-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { (void)fs_.DeleteDirRecursive(dir_); }

  // Appends one data file of rows [first, first + count) as one commit. A first batch reads the
  // table's snapshot ordered by (modificationTime, path), as Spark's DeltaSourceSnapshot: each
  // file is finished in a later millisecond than the one before, or two could go by their
  // (random) names.
  void AppendFile(delta::Table& table, int64_t first, int64_t count) {
    while (delta::NowMillis() <= last_modification_time_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    Batch batch(table.snapshot()->schema());
    for (int64_t i = first; i < first + count; ++i) {
      batch.columns[0].Append<int64_t>(i);
      batch.columns[1].AppendString("row-" + std::to_string(i));
    }
    auto txn = table.NewTransaction();
    ASSERT_OK_AND_ASSIGN(delta::DataFileWriter * writer, txn->NewDataFileWriter());
    ASSERT_OK(writer->Write(batch));
    ASSERT_OK(txn->FinishDataFiles());
    ASSERT_EQ(txn->adds().size(), 1u);
    last_modification_time_ = txn->adds()[0].modification_time;
    ASSERT_OK(txn->Commit().status());
  }

  // A new table of (id BIGINT, s STRING) at dir_/t.
  std::unique_ptr<delta::Table> NewTable() {
    auto table = delta::Table::Create(&fs_, dir_ + "/t",
                                      columnar::ParseDdlSchema("id BIGINT, s STRING").ValueOrDie(), {});
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return std::move(*table);
  }

  // Reads the planned batch in chunks of `chunk_rows`; checks ids count up from 0 and `s` matches
  // them; returns the chunks' sizes.
  std::vector<int64_t> ReadChunks(DeltaFlowSource& source, int64_t chunk_rows, int64_t* rows) {
    std::vector<int64_t> sizes;
    *rows = 0;
    auto produce = source.Read(chunk_rows);
    EXPECT_TRUE(produce.ok());
    while (true) {
      auto chunk = (*produce)();
      EXPECT_TRUE(chunk.ok()) << chunk.status().ToString();
      if (!chunk.ok() || !*chunk) break;
      sizes.push_back((*chunk)->num_rows());
      EXPECT_EQ((*chunk)->columns.size(), 2u);
      for (int64_t r = 0; r < (*chunk)->num_rows(); ++r, ++*rows) {
        EXPECT_EQ((*chunk)->columns[0].Value<int64_t>(r), *rows);
        EXPECT_EQ((*chunk)->columns[1].StringAt(r), "row-" + std::to_string(*rows));
      }
    }
    return sizes;
  }

  // A source over the table at `path`, its first availableNow batch planned.
  std::unique_ptr<DeltaFlowSource> PlannedSource(const std::string& path) {
    auto source = DeltaFlowSource::Open(&fs_, "t", path, {});
    EXPECT_TRUE(source.ok()) << source.status().ToString();
    Trigger trigger;
    trigger.kind = Trigger::Kind::kAvailableNow;
    auto end = (*source)->PlanNext(trigger, 0);
    EXPECT_TRUE(end.ok() && end->has_value());
    EXPECT_TRUE((*source)->PlanRead(**end).ok());
    return std::move(*source);
  }

  fs::LocalFileSystem fs_;
  std::string dir_;
  int64_t last_modification_time_ = 0;
};

// Under processingTime=0 an idle source waits for its table's next commit from this process
// instead of reading the table's log again and again.
TEST_F(DeltaFlowSourceTest, AnIdleSourceIsWokenByACommitInThisProcess) {
  auto table = NewTable();
  AppendFile(*table, 0, 10);
  ASSERT_OK_AND_ASSIGN(auto source, DeltaFlowSource::Open(&fs_, "t", table->path(), {}));
  Trigger trigger;  // processingTime=0
  ASSERT_OK_AND_ASSIGN(auto first, source->PlanNext(trigger, 0));
  ASSERT_TRUE(first.has_value());
  ASSERT_OK(source->PlanRead(*first));
  ASSERT_OK(source->Advance(*first));
  ASSERT_OK_AND_ASSIGN(auto none, source->PlanNext(trigger, 0));
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(source->MaxIdleWaitMs(), 100);  // no writer of the table in this process
  CommitSignals::Global().AddWriter(table->path());
  EXPECT_EQ(source->MaxIdleWaitMs(), 1000);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    AppendFile(*table, 10, 5);
    CommitSignals::Global().Notify(table->path());  // as TableSink::Commit does
  });
  // Far longer than the test takes: the wait ends with the commit.
  EXPECT_TRUE(source->WaitForData(/*max_wait_ms=*/120000, nullptr));
  writer.join();
  CommitSignals::Global().RemoveWriter(table->path());
  ASSERT_OK_AND_ASSIGN(auto next, source->PlanNext(trigger, 0));
  ASSERT_TRUE(next.has_value());
  ASSERT_OK(source->PlanRead(*next));
  EXPECT_EQ(source->PlannedRows(), 5);
  // Nothing new: a wait times out.
  ASSERT_OK(source->Advance(*next));
  ASSERT_OK_AND_ASSIGN(none, source->PlanNext(trigger, 0));
  EXPECT_FALSE(none.has_value());
  EXPECT_FALSE(source->WaitForData(20, nullptr));
}

TEST_F(DeltaFlowSourceTest, HandsFilesOnInChunksInOrder) {
  auto table = NewTable();
  AppendFile(*table, 0, 50000);  // three chunks of at most 20,000 rows
  AppendFile(*table, 50000, 7);  // one small chunk, handed on whole
  auto source = PlannedSource(table->path());
  EXPECT_EQ(source->PlannedRows(), 50007);
  int64_t rows = 0;
  EXPECT_EQ(ReadChunks(*source, 20000, &rows), (std::vector<int64_t>{20000, 20000, 10000, 7}));
  EXPECT_EQ(rows, 50007);
}

// A file of several row groups is read one group at a time (memory: one group), each sliced.
TEST_F(DeltaFlowSourceTest, ReadsAFileOneRowGroupAtATime) {
  auto table = NewTable();
  AppendFile(*table, 0, 300000);  // row groups of 122,880, 122,880 and 54,240 rows
  auto source = PlannedSource(table->path());
  int64_t rows = 0;
  EXPECT_EQ(ReadChunks(*source, 50000, &rows),
            (std::vector<int64_t>{50000, 50000, 22880, 50000, 50000, 22880, 50000, 4240}));
  EXPECT_EQ(rows, 300000);
}

}  // namespace
}  // namespace weir::stream
