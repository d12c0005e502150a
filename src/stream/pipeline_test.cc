#include "stream/pipeline.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "base/testing.h"
#include "delta/table.h"
#include "delta/testing.h"
#include "fs/local_file_system.h"

namespace weir::stream {
namespace {

Result<std::unique_ptr<Pipeline>> OpenPipeline(const std::string& text, const std::string& lake,
                                               sql::Pipeline* definition) {
  WEIR_ASSIGN_OR_RETURN(*definition, sql::ParsePipeline(text, {}, sql::SecretResolver()));
  PipelineOptions options;
  options.lakehouse.root = lake;
  WEIR_ASSIGN_OR_RETURN(options.trigger, Trigger::Parse("availableNow"));
  return Pipeline::Open(fs::LocalFileSystem::Default(), *definition, options);
}

bool IsEmptyDir(const std::string& dir) {
  std::error_code ec;
  return !std::filesystem::exists(dir, ec) || std::filesystem::is_empty(dir, ec);
}

constexpr char kBronze[] = R"(
CREATE OR REFRESH STREAMING TABLE sales.bronze.raw AS
SELECT CAST(value AS STRING) AS raw_value, partition AS eh_partition, offset AS eh_offset
FROM STREAM read_kafka(bootstrapServers => '127.0.0.1:1', subscribe => 'orders');
)";

// A pipeline whose second flow fails to bind writes nothing: no table, no checkpoint folder, for
// the first flow either.
TEST(PipelineTest, APipelineThatFailsValidationWritesNothing) {
  delta::testing::ScratchDir dir;
  sql::Pipeline definition;
  auto opened = OpenPipeline(std::string(kBronze) + R"(
CREATE OR REFRESH STREAMING TABLE sales.silver.parsed AS
SELECT no_such_column FROM STREAM(sales.bronze.raw);
)", dir.path(), &definition);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().ToString().find("no_such_column"), std::string::npos)
      << opened.status().ToString();
  EXPECT_NE(opened.status().ToString().find("sales.silver.parsed"), std::string::npos);
  EXPECT_TRUE(IsEmptyDir(dir.path())) << "the failed pipeline wrote into " << dir.path();
}

// A flow whose output does not fit its existing table is refused before anything is written.
// SET weir.trigger.coalesceMs takes milliseconds; anything else is refused before anything runs.
TEST(PipelineTest, ABadCoalesceSettingIsRefused) {
  for (const char* value : {"-1", "soon", "60001"}) {
    delta::testing::ScratchDir dir;
    sql::Pipeline definition;
    auto opened = OpenPipeline(std::string("SET weir.trigger.coalesceMs = ") + value + ";\n" +
                                   kBronze,
                               dir.path(), &definition);
    ASSERT_FALSE(opened.ok()) << value;
    EXPECT_NE(opened.status().ToString().find("weir.trigger.coalesceMs"), std::string::npos)
        << opened.status().ToString();
    EXPECT_TRUE(IsEmptyDir(dir.path()));
  }
  delta::testing::ScratchDir dir;
  sql::Pipeline definition;
  EXPECT_TRUE(OpenPipeline(std::string("SET weir.trigger.coalesceMs = 0;\n") + kBronze, dir.path(),
                           &definition)
                  .ok());
}

TEST(PipelineTest, ASchemaMismatchWithAnExistingTableIsFoundBeforeWriting) {
  delta::testing::ScratchDir dir;
  ASSERT_OK(delta::Table::Create(fs::LocalFileSystem::Default(), dir.Sub("sales/bronze/raw"),
                                 delta::testing::Ddl("raw_value BIGINT"), {})
                .status());
  sql::Pipeline definition;
  auto opened = OpenPipeline(kBronze, dir.path(), &definition);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().ToString().find("schema mismatch"), std::string::npos)
      << opened.status().ToString();
  EXPECT_TRUE(IsEmptyDir(dir.Sub("_checkpoints")));
}

// A source table the pipeline neither defines nor finds is named.
TEST(PipelineTest, AMissingSourceTableIsNamed) {
  delta::testing::ScratchDir dir;
  sql::Pipeline definition;
  auto opened = OpenPipeline(R"(
CREATE OR REFRESH STREAMING TABLE sales.silver.parsed AS SELECT * FROM STREAM(sales.bronze.gone);
)", dir.path(), &definition);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().ToString().find("sales.bronze.gone does not exist"), std::string::npos)
      << opened.status().ToString();
  EXPECT_TRUE(IsEmptyDir(dir.path()));
}

// ALTER TABLE ... SET TBLPROPERTIES on an existing table is one metadata commit recorded as SET
// TBLPROPERTIES; running the same pipeline again changes nothing (its UNSET of a property already
// gone is not an error: a pipeline file is applied at every run).
TEST(PipelineTest, AlterTableSetsPropertiesOnAnExistingTableOnce) {
  delta::testing::ScratchDir dir;
  fs::FileSystem* local = fs::LocalFileSystem::Default();
  const std::string table = dir.Sub("sales/bronze/raw");
  ASSERT_OK(delta::Table::Create(local, table,
                                 delta::testing::Ddl("raw_value STRING, eh_partition INT, "
                                                     "eh_offset BIGINT"),
                                 {}, {{"owner", "ops"}})
                .status());
  const std::string text = std::string(kBronze) + R"(
ALTER TABLE sales.bronze.raw SET TBLPROPERTIES ('delta.autoOptimize.optimizeWrite' = 'true', 'delta.autoOptimize.autoCompact' = 'true');
ALTER TABLE sales.bronze.raw UNSET TBLPROPERTIES ('owner');
)";
  for (int run = 0; run < 2; ++run) {
    sql::Pipeline definition;
    ASSERT_OK(OpenPipeline(text, dir.path(), &definition).status());
  }
  ASSERT_OK_AND_ASSIGN(auto snapshot, delta::Snapshot::Load(local, table));
  EXPECT_EQ(snapshot->version(), 2) << "one SET and one UNSET commit, none on the second run";
  EXPECT_EQ(snapshot->properties(),
            (delta::StringMap{{"delta.autoOptimize.autoCompact", "true"},
                              {"delta.autoOptimize.optimizeWrite", "true"}}));
  ASSERT_OK_AND_ASSIGN(auto v1, delta::Snapshot::Load(local, table, 1));
  ASSERT_TRUE(v1->commit_info().has_value());
  EXPECT_EQ(v1->commit_info()->operation, "SET TBLPROPERTIES");
  EXPECT_EQ(v1->commit_info()->operation_parameters.at("properties"),
            R"({"delta.autoOptimize.autoCompact":"true","delta.autoOptimize.optimizeWrite":"true"})");
  EXPECT_EQ(snapshot->commit_info()->operation, "UNSET TBLPROPERTIES");
}

// A property weir does not know under delta.* is refused before anything is written, as is
// altering a table that neither exists nor is defined.
TEST(PipelineTest, AlterTableRefusalsWriteNothing) {
  delta::testing::ScratchDir dir;
  fs::FileSystem* local = fs::LocalFileSystem::Default();
  const std::string table = dir.Sub("sales/bronze/raw");
  ASSERT_OK(delta::Table::Create(local, table, delta::testing::Ddl("raw_value STRING"), {})
                .status());
  struct Case {
    std::string alter;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"ALTER TABLE sales.bronze.raw SET TBLPROPERTIES ('delta.noSuchThing' = 'x');",
            "delta.noSuchThing"},
           {"ALTER TABLE sales.bronze.other SET TBLPROPERTIES ('a' = 'b');",
            "ALTER TABLE sales.bronze.other: the table does not exist and the pipeline does not "
            "define it"},
       }) {
    sql::Pipeline definition;
    auto opened = OpenPipeline(R"(
CREATE OR REFRESH STREAMING TABLE sales.silver.parsed AS SELECT raw_value FROM STREAM(sales.bronze.raw);
)" + c.alter, dir.path(), &definition);
    ASSERT_FALSE(opened.ok()) << c.alter;
    EXPECT_NE(opened.status().ToString().find(c.message), std::string::npos)
        << opened.status().ToString();
    EXPECT_FALSE(std::filesystem::exists(dir.Sub("sales/silver/parsed"))) << c.alter;
  }
  ASSERT_OK_AND_ASSIGN(auto snapshot, delta::Snapshot::Load(local, table));
  EXPECT_EQ(snapshot->version(), 0);
}

}  // namespace
}  // namespace weir::stream
