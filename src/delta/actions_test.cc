#include "delta/actions.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::delta {
namespace {

TEST(ActionsTest, ParsesEveryActionOfASparkCommit) {
  const std::string text =
      R"({"commitInfo":{"timestamp":1673493638300,"operation":"WRITE","operationParameters":{"mode":"Append","partitionBy":"[]"},"readVersion":0,"isBlindAppend":true,"operationMetrics":{"numFiles":"2"},"engineInfo":"Apache-Spark/3.3.1 Delta-Lake/2.1.1"}})"
      "\n"
      R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["timestampNtz"],"writerFeatures":["timestampNtz"]}})"
      "\n"
      R"({"metaData":{"id":"abc","format":{"provider":"parquet","options":{}},"schemaString":"{}","partitionColumns":["letter"],"configuration":{"delta.appendOnly":"true"},"createdTime":12}})"
      "\n"
      R"({"add":{"path":"letter=a/part-0.parquet","partitionValues":{"letter":"a","other":null},"size":490,"modificationTime":7,"dataChange":true,"stats":"{\"numRecords\":3}","tags":{"k":"v"}}})"
      "\n"
      R"({"remove":{"path":"x.parquet","deletionTimestamp":9,"dataChange":false,"extendedFileMetadata":true,"partitionValues":{},"size":10}})"
      "\n"
      R"({"txn":{"appId":"query-1","version":42,"lastUpdated":99}})"
      "\n\n";
  ASSERT_OK_AND_ASSIGN(auto actions, ParseActions(text, "00000000000000000001.json"));
  ASSERT_EQ(actions.size(), 6u);
  const auto& ci = std::get<CommitInfo>(actions[0]);
  EXPECT_EQ(ci.timestamp, 1673493638300);
  EXPECT_EQ(ci.operation, "WRITE");
  EXPECT_EQ(ci.operation_parameters.at("mode"), "Append");
  EXPECT_EQ(ci.read_version, 0);
  EXPECT_EQ(ci.is_blind_append, true);
  const auto& p = std::get<Protocol>(actions[1]);
  EXPECT_EQ(p.min_reader_version, 3);
  EXPECT_EQ(p.reader_features, std::vector<std::string>{"timestampNtz"});
  const auto& m = std::get<Metadata>(actions[2]);
  EXPECT_EQ(m.id, "abc");
  EXPECT_EQ(m.partition_columns, std::vector<std::string>{"letter"});
  EXPECT_EQ(m.configuration.at("delta.appendOnly"), "true");
  EXPECT_EQ(m.created_time, 12);
  const auto& add = std::get<AddFile>(actions[3]);
  EXPECT_EQ(add.path, "letter=a/part-0.parquet");
  EXPECT_EQ(add.partition_values.at("letter"), "a");
  EXPECT_EQ(add.partition_values.at("other"), std::nullopt);
  EXPECT_EQ(add.size, 490);
  EXPECT_EQ(add.NumRecords(), 3);
  EXPECT_EQ(add.tags->at("k"), "v");
  const auto& remove = std::get<RemoveFile>(actions[4]);
  EXPECT_FALSE(remove.data_change);
  EXPECT_EQ(remove.deletion_timestamp, 9);
  const auto& txn = std::get<SetTransaction>(actions[5]);
  EXPECT_EQ(txn.app_id, "query-1");
  EXPECT_EQ(txn.version, 42);
  EXPECT_EQ(txn.last_updated, 99);
}

TEST(ActionsTest, SerializeThenParseRoundTrips) {
  AddFile add;
  add.path = "a=%25/part-00000-x.c000.zstd.parquet";
  add.partition_values = {{"a", "%"}, {"b", std::nullopt}};
  add.size = 1234;
  add.modification_time = 5;
  add.stats = R"({"numRecords":2})";
  SetTransaction txn{"weir:main.bronze:orders:3", 1001, 77};
  Metadata m;
  m.id = "id";
  m.schema_string = R"({"type":"struct","fields":[]})";
  m.configuration = {{"delta.checkpointInterval", "5"}};
  std::vector<Action> in = {Protocol{}, m, txn, add, MakeRemove(add, 9, true)};
  std::string text = SerializeActions(in);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5);
  ASSERT_OK_AND_ASSIGN(auto out, ParseActions(text, "t"));
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(std::get<AddFile>(out[3]).partition_values, add.partition_values);
  EXPECT_EQ(std::get<AddFile>(out[3]).stats, add.stats);
  EXPECT_EQ(std::get<SetTransaction>(out[2]).version, 1001);
  EXPECT_EQ(std::get<Metadata>(out[1]).configuration, m.configuration);
  const auto& r = std::get<RemoveFile>(out[4]);
  EXPECT_EQ(r.path, add.path);
  EXPECT_EQ(r.size, 1234);
  EXPECT_EQ(r.extended_file_metadata, true);
  // Spark's field order.
  EXPECT_EQ(SerializeAction(add).substr(0, 16), R"({"add":{"path":")");
}

TEST(ActionsTest, MalformedLineIsCorruptionNamingFileAndLine) {
  std::string text = "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n{\"add\":{\"path\":";
  auto r = ParseActions(text, "_delta_log/00000000000000000003.json");
  ASSERT_STATUS_CODE(kCorruption, r);
  EXPECT_NE(r.status().message().find("00000000000000000003.json line 2"), std::string::npos)
      << r.status().message();
}

TEST(ActionsTest, MissingOrMistypedRequiredFieldsAreCorruption) {
  const char* bad[] = {
      R"({"add":{"partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}})",
      R"({"add":{"path":"a","size":"big"}})",
      R"({"txn":{"appId":"a"}})",
      R"({"txn":{"appId":"a","version":1.5}})",
      R"({"metaData":{"id":"a"}})",
      R"({"protocol":{"minReaderVersion":1}})",
      R"({"remove":{"path":""}})",
      R"([1,2])",
      R"({"add":[]})",
  };
  for (const char* line : bad) {
    auto r = ParseActions(line, "f.json");
    ASSERT_STATUS_CODE(kCorruption, r);
    EXPECT_NE(r.status().message().find("f.json line 1"), std::string::npos) << line;
  }
  auto r = ParseActions(R"({"txn":{"appId":"a"}})", "f.json");
  EXPECT_NE(r.status().message().find("txn.version is missing"), std::string::npos) << r.status().message();
}

TEST(ActionsTest, UnknownActionsAndFieldsAreIgnored) {
  std::string text =
      R"({"cdc":{"path":"x","partitionValues":{},"size":1,"dataChange":false}})"
      "\n"
      R"({"futureAction":{"x":1}})"
      "\n"
      R"({"add":{"path":"p","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true,"newField":[1,2,3]}})"
      "\n"
      R"({"add":null})"
      "\n";
  ASSERT_OK_AND_ASSIGN(auto actions, ParseActions(text, "f"));
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(std::get<AddFile>(actions[0]).path, "p");
}

TEST(ActionsTest, DeeplyNestedJsonIsRefusedBeforeParsing) {
  std::string deep = R"({"commitInfo":{"x":)" + std::string(100000, '[') + std::string(100000, ']') + "}}";
  ASSERT_STATUS_CODE(kCorruption, ParseActions(deep, "f"));
}

TEST(ActionsTest, DeletionVectorIdentity) {
  DeletionVectorDescriptor dv{"u", "ab^-aqEH.-t@S}K{vb[*k^", 4, 40, 6};
  EXPECT_EQ(dv.UniqueId(), "uab^-aqEH.-t@S}K{vb[*k^@4");
  dv.offset.reset();
  EXPECT_EQ(dv.UniqueId(), "uab^-aqEH.-t@S}K{vb[*k^");
}

}  // namespace
}  // namespace weir::delta
