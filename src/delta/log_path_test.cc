#include "delta/log_path.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::delta {
namespace {

TEST(LogPathTest, FormatsNames) {
  EXPECT_EQ(CommitFileName(0), "00000000000000000000.json");
  EXPECT_EQ(CommitFileName(1234), "00000000000000001234.json");
  EXPECT_EQ(ClassicCheckpointFileName(10), "00000000000000000010.checkpoint.parquet");
  EXPECT_EQ(MultiPartCheckpointFileName(10, 2, 3),
            "00000000000000000010.checkpoint.0000000002.0000000003.parquet");
  EXPECT_EQ(LogDirPath("/t"), "/t/_delta_log");
}

TEST(LogPathTest, ParsesEveryKindOfLogFile) {
  auto commit = ParseLogFileName("00000000000000000007.json");
  ASSERT_TRUE(commit);
  EXPECT_EQ(commit->type, LogFileType::kCommit);
  EXPECT_EQ(commit->version, 7);
  auto classic = ParseLogFileName("00000000000000000010.checkpoint.parquet");
  ASSERT_TRUE(classic);
  EXPECT_EQ(classic->type, LogFileType::kClassicCheckpoint);
  auto part = ParseLogFileName("00000000000000000010.checkpoint.0000000002.0000000003.parquet");
  ASSERT_TRUE(part);
  EXPECT_EQ(part->type, LogFileType::kMultiPartCheckpoint);
  EXPECT_EQ(part->part, 2);
  EXPECT_EQ(part->num_parts, 3);
  auto uuid = ParseLogFileName("00000000000000000002.checkpoint.6374b053-df23-479b-b2cf-c9c550132b49.json");
  ASSERT_TRUE(uuid);
  EXPECT_EQ(uuid->type, LogFileType::kUuidCheckpoint);
  EXPECT_TRUE(uuid->is_json);
  auto crc = ParseLogFileName("00000000000000000001.crc");
  ASSERT_TRUE(crc);
  EXPECT_EQ(crc->type, LogFileType::kChecksum);
  auto compaction = ParseLogFileName("00000000000000000004.00000000000000000006.compacted.json");
  ASSERT_TRUE(compaction);
  EXPECT_EQ(compaction->type, LogFileType::kCompaction);
  EXPECT_EQ(compaction->end_version, 6);
}

TEST(LogPathTest, RejectsOtherNames) {
  for (const char* name :
       {"_last_checkpoint", ".00000000000000000000.json.crc", "0000000000000000000.json",
        "00000000000000000000.jsonx", "0000000000000000000a.json", ".weir-tmp-abc",
        "00000000000000000010.checkpoint.0000000004.0000000003.parquet",
        "00000000000000000010.checkpoint.0000000000.0000000003.parquet",
        "00000000000000000010.checkpoint.notauuid.parquet", "_sidecars"}) {
    EXPECT_FALSE(ParseLogFileName(name)) << name;
  }
}

TEST(LogPathTest, LastCheckpointHint) {
  ASSERT_OK_AND_ASSIGN(auto hint, ParseLastCheckpoint(
      R"({"version":10,"size":13,"parts":2,"sizeInBytes":14800,"numOfAddFiles":1,"checkpointSchema":{"type":"struct"},"checksum":"x"})",
      "f"));
  EXPECT_EQ(hint.version, 10);
  EXPECT_EQ(hint.size, 13);
  EXPECT_EQ(hint.parts, 2);
  EXPECT_EQ(hint.size_in_bytes, 14800);
  EXPECT_EQ(hint.num_of_add_files, 1);
  // delta-rs writes size_in_bytes.
  ASSERT_OK_AND_ASSIGN(auto rs, ParseLastCheckpoint(R"({"size":6,"size_in_bytes":23521,"version":1})", "f"));
  EXPECT_EQ(rs.size_in_bytes, 23521);
  ASSERT_STATUS_CODE(kCorruption, ParseLastCheckpoint("", "f"));
  ASSERT_STATUS_CODE(kCorruption, ParseLastCheckpoint(R"({"size":6})", "f"));
  ASSERT_STATUS_CODE(kCorruption, ParseLastCheckpoint("[1]", "f"));
  ASSERT_OK_AND_ASSIGN(auto back, ParseLastCheckpoint(SerializeLastCheckpoint(hint), "f"));
  EXPECT_EQ(back.version, 10);
  EXPECT_EQ(back.num_of_add_files, 1);
}

TEST(LogPathTest, PathUris) {
  // Spark: Hive-escaped directory "letter=%2F%2520%25f" appears in add.path as "%252F%252520%2525f".
  EXPECT_EQ(EncodePathUri("letter=%2F%2520%25f/part.parquet"), "letter=%252F%252520%2525f/part.parquet");
  EXPECT_EQ(DecodePathUri("letter=%252F%252520%2525f/part.parquet"), "letter=%2F%2520%25f/part.parquet");
  EXPECT_EQ(EncodePathUri("data=😈/x y"), "data=😈/x%20y");
  EXPECT_EQ(DecodePathUri("test%file%prefix-part"), "test%file%prefix-part");
  EXPECT_EQ(DecodePathUri("a%2"), "a%2");
  for (std::string s : {"a b", "100%", "{x}|^`", "plain/path.parquet", "a#b?c"}) {
    EXPECT_EQ(DecodePathUri(EncodePathUri(s)), s);
  }
}

TEST(LogPathTest, ResolvesDataFilePaths) {
  ASSERT_OK_AND_ASSIGN(auto rel, ResolveDataFilePath("/t", "a%3Db/part.parquet"));
  EXPECT_EQ(rel, "/t/a=b/part.parquet");
  ASSERT_OK_AND_ASSIGN(auto file3, ResolveDataFilePath("/t", "file:///data/x%20y.parquet"));
  EXPECT_EQ(file3, "/data/x y.parquet");
  ASSERT_OK_AND_ASSIGN(auto file1, ResolveDataFilePath("/t", "file:/data/x.parquet"));
  EXPECT_EQ(file1, "/data/x.parquet");
  ASSERT_OK_AND_ASSIGN(auto abs, ResolveDataFilePath("/t", "/abs/x.parquet"));
  EXPECT_EQ(abs, "/abs/x.parquet");
  ASSERT_STATUS_CODE(kInvalidArgument, ResolveDataFilePath("/t", "s3://bucket/x.parquet"));
  // A colon after a slash is not a scheme.
  ASSERT_OK_AND_ASSIGN(auto colon, ResolveDataFilePath("/t", "a/b:c.parquet"));
  EXPECT_EQ(colon, "/t/a/b:c.parquet");
}

}  // namespace
}  // namespace weir::delta
