#include "stream/delta_flow_source.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "base/testing.h"
#include "delta/table.h"
#include "delta/transaction.h"
#include "fs/local_file_system.h"
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

  // Appends one data file of rows [first, first + count) as one commit.
  void AppendFile(delta::Table& table, int64_t first, int64_t count) {
    Batch batch(table.snapshot()->schema());
    for (int64_t i = first; i < first + count; ++i) {
      batch.columns[0].Append<int64_t>(i);
      batch.columns[1].AppendString("row-" + std::to_string(i));
    }
    ASSERT_OK_AND_ASSIGN(auto writer, table.NewDataFileWriter());
    ASSERT_OK(writer->Write(batch));
    ASSERT_OK_AND_ASSIGN(std::vector<delta::AddFile> adds, writer->Finish());
    ASSERT_EQ(adds.size(), 1u);
    auto txn = table.NewTransaction();
    txn->AddFiles(std::move(adds));
    ASSERT_OK(txn->Commit().status());
  }

  fs::LocalFileSystem fs_;
  std::string dir_;
};

TEST_F(DeltaFlowSourceTest, HandsFilesOnInChunksInOrder) {
  const std::string path = dir_ + "/t";
  ASSERT_OK_AND_ASSIGN(
      auto table,
      delta::Table::Create(&fs_, path, columnar::ParseDdlSchema("id BIGINT, s STRING").ValueOrDie(),
                           {}));
  AppendFile(*table, 0, 50000);  // three chunks of at most 20,000 rows
  AppendFile(*table, 50000, 7);  // one small chunk, handed on whole
  ASSERT_OK_AND_ASSIGN(auto source, DeltaFlowSource::Open(&fs_, "t", path, {}));
  Trigger trigger;
  trigger.kind = Trigger::Kind::kAvailableNow;
  ASSERT_OK_AND_ASSIGN(std::optional<std::string> end, source->PlanNext(trigger, 0));
  ASSERT_TRUE(end.has_value());
  ASSERT_OK(source->PlanRead(*end));
  EXPECT_EQ(source->PlannedRows(), 50007);
  ASSERT_OK_AND_ASSIGN(BatchPrefetcher::Producer produce, source->Read(20000));
  std::vector<int64_t> sizes;
  int64_t next = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(std::optional<Batch> chunk, produce());
    if (!chunk) break;
    sizes.push_back(chunk->num_rows());
    ASSERT_EQ(chunk->columns.size(), 2u);
    for (int64_t r = 0; r < chunk->num_rows(); ++r, ++next) {
      ASSERT_EQ(chunk->columns[0].Value<int64_t>(r), next);
      ASSERT_EQ(chunk->columns[1].StringAt(r), "row-" + std::to_string(next));
    }
  }
  EXPECT_EQ(next, 50007);
  EXPECT_EQ(sizes, (std::vector<int64_t>{20000, 20000, 10000, 7}));
}

// A file of several row groups is read one group at a time (memory: one group), each sliced.
TEST_F(DeltaFlowSourceTest, ReadsAFileOneRowGroupAtATime) {
  const std::string path = dir_ + "/t";
  ASSERT_OK_AND_ASSIGN(
      auto table,
      delta::Table::Create(&fs_, path, columnar::ParseDdlSchema("id BIGINT, s STRING").ValueOrDie(),
                           {}));
  AppendFile(*table, 0, 300000);  // row groups of 122,880, 122,880 and 54,240 rows
  ASSERT_OK_AND_ASSIGN(auto source, DeltaFlowSource::Open(&fs_, "t", path, {}));
  Trigger trigger;
  trigger.kind = Trigger::Kind::kAvailableNow;
  ASSERT_OK_AND_ASSIGN(std::optional<std::string> end, source->PlanNext(trigger, 0));
  ASSERT_TRUE(end.has_value());
  ASSERT_OK(source->PlanRead(*end));
  ASSERT_OK_AND_ASSIGN(BatchPrefetcher::Producer produce, source->Read(50000));
  std::vector<int64_t> sizes;
  int64_t next = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(std::optional<Batch> chunk, produce());
    if (!chunk) break;
    sizes.push_back(chunk->num_rows());
    for (int64_t r = 0; r < chunk->num_rows(); ++r, ++next) {
      ASSERT_EQ(chunk->columns[0].Value<int64_t>(r), next);
    }
  }
  EXPECT_EQ(next, 300000);
  EXPECT_EQ(sizes, (std::vector<int64_t>{50000, 50000, 22880, 50000, 50000, 22880, 50000, 4240}));
}

}  // namespace
}  // namespace weir::stream
