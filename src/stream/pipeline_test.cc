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

}  // namespace
}  // namespace weir::stream
