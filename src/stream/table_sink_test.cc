#include "stream/table_sink.h"

#include <gtest/gtest.h>

#include "base/testing.h"
#include "delta/testing.h"
#include "fs/local_file_system.h"
#include "stream/commit_signal.h"

namespace weir::stream {
namespace {

using columnar::DataType;
using delta::testing::Ddl;

// (at TIMESTAMP NOT NULL, props MAP<STRING, STRING> whose values are never null): what
// current_timestamp() and map(...) produce.
columnar::Schema NotNullFlow() {
  return columnar::Schema{{{"at", DataType::Timestamp(), false},
                           {"props", DataType::Map(DataType::String(), DataType::String(), false)}}};
}

TEST(CheckFlowFitsTableTest, NullabilityFollowsDeltasRule) {
  // A NOT NULL value (current_timestamp(), a map with non-null values) fits a nullable column.
  ASSERT_OK_AND_ASSIGN(auto none, CheckFlowFitsTable(Ddl("at TIMESTAMP, props MAP<STRING, STRING>"),
                                                     NotNullFlow(), "/t", "f"));
  EXPECT_TRUE(none.empty());
  // A nullable value into a NOT NULL column: checked per row.
  ASSERT_OK_AND_ASSIGN(auto checked, CheckFlowFitsTable(Ddl("id BIGINT NOT NULL, s STRING"),
                                                        Ddl("s STRING, id BIGINT"), "/t", "f"));
  EXPECT_EQ(checked, std::vector<std::string>{"id"});
  // Types, names and nested NOT NULL fields the flow may leave null are a mismatch.
  for (const auto& [table, flow] : std::vector<std::pair<std::string, std::string>>{
           {"a INT", "a BIGINT"},
           {"a INT", "b INT"},
           {"a INT", "a INT, b INT"}}) {
    auto r = CheckFlowFitsTable(Ddl(table), Ddl(flow), "/t", "f");
    ASSERT_FALSE(r.ok()) << table << " <- " << flow;
    EXPECT_NE(r.status().message().find("schema mismatch"), std::string::npos);
  }
  auto nested = CheckFlowFitsTable(NotNullFlow(), Ddl("at TIMESTAMP, props MAP<STRING, STRING>"),
                                   "/t", "f");
  ASSERT_FALSE(nested.ok());
  EXPECT_NE(nested.status().message().find("NOT NULL fields"), std::string::npos);
}

// A flow producing NOT NULL columns appends to an existing table whose columns are nullable (every
// Spark-created table), and its rows read back.
TEST(TableSinkTest, WritesNotNullColumnsIntoANullableTable) {
  delta::testing::ScratchDir dir;
  fs::FileSystem* local = fs::LocalFileSystem::Default();
  const std::string path = dir.Sub("t");
  ASSERT_OK(delta::Table::Create(local, path, Ddl("at TIMESTAMP, props MAP<STRING, STRING>"), {})
                .status());
  const columnar::Schema flow = NotNullFlow();
  TableSinkOptions options;
  options.name = "sales.bronze.t";
  options.path = path;
  options.schema = flow;
  const uint64_t announced = CommitSignals::Global().Count(path);
  ASSERT_OK_AND_ASSIGN(auto sink, TableSink::Open(local, options));
  EXPECT_TRUE(CommitSignals::Global().HasWriter(path));
  ASSERT_OK_AND_ASSIGN(auto rows, delta::testing::BatchFromJson(
                                      flow, {R"({"at":"2026-06-08T09:00:00Z","props":{"k":"v"}})"}));
  ASSERT_OK(sink->Write(rows));
  ASSERT_OK_AND_ASSIGN(int64_t files, sink->Commit("query", 0, {}));
  EXPECT_EQ(files, 1);
  // The commit is announced to this process's readers of the table.
  EXPECT_EQ(CommitSignals::Global().Count(path), announced + 1);
  sink.reset();
  EXPECT_FALSE(CommitSignals::Global().HasWriter(path));
  ASSERT_OK_AND_ASSIGN(auto snapshot, delta::Snapshot::Load(local, path));
  EXPECT_EQ(snapshot->schema().ToDdl(), "at TIMESTAMP, props MAP<STRING, STRING>");
  ASSERT_OK_AND_ASSIGN(auto read, delta::testing::SortedRows(snapshot));
  EXPECT_EQ(read, std::vector<std::string>{R"({"at":"2026-06-08T09:00:00.000000Z","props":{"k":"v"}})"});
}

// A definition whose TBLPROPERTIES or COMMENT changed since the table was created changes the
// table when its flow opens it (one metadata commit, as a pipeline update does), never silently
// keeps the old ones; opening it again changes nothing.
TEST(TableSinkTest, AppliesChangedTblpropertiesAndCommentToAnExistingTable) {
  delta::testing::ScratchDir dir;
  fs::FileSystem* local = fs::LocalFileSystem::Default();
  const std::string path = dir.Sub("t");
  ASSERT_OK(delta::Table::Create(local, path, Ddl("v STRING"), {},
                                 {{"quality", "bronze"}, {"owner", "ops"}}, "old comment")
                .status());
  TableSinkOptions options;
  options.name = "sales.bronze.t";
  options.path = path;
  options.schema = Ddl("v STRING");
  options.table_properties = {{"quality", "silver"}, {"delta.autoOptimize.autoCompact", "true"}};
  options.description = "raw events, as received";
  for (int open = 0; open < 2; ++open) {
    ASSERT_OK_AND_ASSIGN(auto sink, TableSink::Open(local, options));
  }
  ASSERT_OK_AND_ASSIGN(auto snapshot, delta::Snapshot::Load(local, path));
  EXPECT_EQ(snapshot->version(), 1);
  EXPECT_EQ(snapshot->properties(),
            (delta::StringMap{{"delta.autoOptimize.autoCompact", "true"},
                              {"owner", "ops"},
                              {"quality", "silver"}}))
      << "a property only the table has is kept: weir unsets nothing a definition omits";
  EXPECT_EQ(snapshot->metadata().description, "raw events, as received");
  EXPECT_EQ(snapshot->commit_info()->operation, "SET TBLPROPERTIES");
}

}  // namespace
}  // namespace weir::stream
