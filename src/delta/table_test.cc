#include "delta/table.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "delta/log_path.h"
#include "delta/testing.h"
#include "fs/local_file_system.h"
#include "parquet/reader.h"

namespace weir::delta {
namespace {

using testing::BatchFromJson;
using testing::Ddl;
using testing::ScratchDir;
using testing::SortedRows;
namespace stdfs = std::filesystem;

fs::FileSystem* Local() { return fs::LocalFileSystem::Default(); }

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Rows as the scan prints them: JSON with the batch's own conventions.
std::vector<std::string> RowsOf(const columnar::Batch& b) { return Sorted(testing::JsonRows(b)); }

using testing::ActionsOf;
using testing::ReadCommit;

const char* kAllTypes =
    "id BIGINT NOT NULL, i INT, s SMALLINT, t TINYINT, f FLOAT, d DOUBLE, b BOOLEAN, str STRING, "
    "bin BINARY, dec DECIMAL(10,3), big DECIMAL(30,5), dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, "
    "st STRUCT<x: INT, y: STRING>, arr ARRAY<INT>, m MAP<STRING, DOUBLE>";

std::vector<std::string> AllTypesRows() {
  return {
      R"({"id":1,"i":-7,"s":300,"t":-8,"f":1.5,"d":2.25,"b":true,"str":"héllo","bin":"AAEC","dec":"12.345","big":"123456789012345678901234.56789","dt":"2024-02-29","ts":"2024-05-01T12:30:45.123456Z","ntz":"2024-05-01 12:30:45","st":{"x":1,"y":"a"},"arr":[1,null,3],"m":{"k":1.0}})",
      R"({"id":2})",
      R"({"id":3,"i":2147483647,"s":-32768,"t":127,"f":-0.0,"d":-1e300,"b":false,"str":"","bin":"","dec":"-0.001","big":"0","dt":"1970-01-01","ts":"1969-12-31T23:59:59.999999Z","ntz":"1900-01-01 00:00:00","st":{"x":null,"y":null},"arr":[],"m":{}})",
  };
}

TEST(TableTest, CreateAppendScanEveryType) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto schema = Ddl(kAllTypes);
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, schema, {}));
  EXPECT_EQ(table->snapshot()->version(), 0);
  // TIMESTAMP_NTZ needs reader 3 / writer 7 with the timestampNtz feature.
  EXPECT_EQ(table->snapshot()->protocol().min_reader_version, 3);
  EXPECT_TRUE(HasReaderFeature(table->snapshot()->protocol(), "timestampNtz"));

  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema, AllTypesRows()));
  ASSERT_OK_AND_ASSIGN(auto result, table->Append({batch}));
  EXPECT_EQ(result.version, 1);
  EXPECT_FALSE(result.already_committed);

  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(Local(), root));
  EXPECT_EQ(snapshot->version(), 1);
  EXPECT_TRUE(snapshot->schema().Equals(schema));
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(snapshot));
  EXPECT_EQ(rows, RowsOf(batch));

  auto commit = ReadCommit(root, 1);
  auto adds = ActionsOf<AddFile>(commit);
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_EQ(adds[0].size, static_cast<int64_t>(stdfs::file_size(root + "/" + adds[0].path)));
  EXPECT_EQ(adds[0].NumRecords(), 3);
  EXPECT_NE(adds[0].path.find(".c000.zstd.parquet"), std::string::npos);
  EXPECT_EQ(adds[0].path.substr(0, 11), "part-00000-");
  auto info = ActionsOf<CommitInfo>(commit);
  ASSERT_EQ(info.size(), 1u);
  EXPECT_EQ(info[0].operation, "WRITE");
  EXPECT_EQ(info[0].operation_parameters.at("mode"), "Append");
  EXPECT_EQ(info[0].operation_parameters.at("partitionBy"), "[]");
  EXPECT_EQ(info[0].operation_metrics.at("numOutputRows"), "3");
  EXPECT_EQ(info[0].operation_metrics.at("numFiles"), "1");
  EXPECT_EQ(info[0].is_blind_append, true);
  EXPECT_EQ(info[0].engine_info, std::string("weir/") + WEIR_VERSION);
  auto create = ReadCommit(root, 0);
  EXPECT_EQ(ActionsOf<CommitInfo>(create)[0].operation, "CREATE TABLE");
  EXPECT_EQ(ActionsOf<Metadata>(create)[0].format.provider, "parquet");
}

TEST(TableTest, PartitionedWithNullsAndEscapedValues) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto schema = Ddl("id INT, p STRING, day DATE, ts TIMESTAMP");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, schema, {"p", "day", "ts"}));
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema, {
      R"({"id":1,"p":"a/b","day":"2024-01-01","ts":"2024-01-01T10:00:00Z"})",
      R"({"id":2,"p":null,"day":null,"ts":null})",
      R"({"id":3,"p":"x y%","day":"2024-01-02","ts":"2024-01-01T10:00:00.5Z"})",
      R"({"id":4,"p":"😈","day":"2024-01-01","ts":"2024-01-01T10:00:00Z"})",
      R"({"id":5,"p":"a/b","day":"2024-01-01","ts":"2024-01-01T10:00:00Z"})",
      R"({"id":6,"p":"","day":"2024-01-01","ts":"2024-01-01T10:00:00Z"})",
  }));
  ASSERT_OK_AND_ASSIGN(auto result, table->Append({batch}));
  auto adds = ActionsOf<AddFile>(ReadCommit(root, result.version));
  ASSERT_EQ(adds.size(), 5u);  // ids 1 and 5 share a partition
  std::set<std::string> paths;
  for (const auto& a : adds) {
    ASSERT_OK_AND_ASSIGN(auto local, ResolveDataFilePath(root, a.path));
    EXPECT_TRUE(stdfs::exists(local)) << a.path;
    EXPECT_EQ(a.size, static_cast<int64_t>(stdfs::file_size(local)));
    EXPECT_EQ(a.partition_values.size(), 3u);
    paths.insert(a.path.substr(0, a.path.rfind('/')));
  }
  EXPECT_TRUE(paths.count("p=a%252Fb/day=2024-01-01/ts=2024-01-01T10%253A00%253A00.000000Z")) << *paths.begin();
  EXPECT_TRUE(paths.count(
      "p=__HIVE_DEFAULT_PARTITION__/day=__HIVE_DEFAULT_PARTITION__/ts=__HIVE_DEFAULT_PARTITION__"));
  EXPECT_TRUE(paths.count("p=x%20y%2525/day=2024-01-02/ts=2024-01-01T10%253A00%253A00.500000Z"));
  EXPECT_TRUE(paths.count("p=😈/day=2024-01-01/ts=2024-01-01T10%253A00%253A00.000000Z"));
  EXPECT_TRUE(stdfs::is_directory(root + "/p=a%2Fb/day=2024-01-01"));
  // The partition columns are not stored in the data files.
  ASSERT_OK_AND_ASSIGN(auto local, ResolveDataFilePath(root, adds[0].path));
  ASSERT_OK_AND_ASSIGN(auto reader, parquet::ParquetReader::Open(Local(), local));
  ASSERT_EQ(reader->schema().num_fields(), 1);
  EXPECT_EQ(reader->schema().fields[0].name, "id");

  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(table->snapshot()));
  // The empty string is stored as a null partition value (the protocol reads "" as null).
  ASSERT_OK_AND_ASSIGN(auto expected, BatchFromJson(schema, {
      R"({"id":1,"p":"a/b","day":"2024-01-01","ts":"2024-01-01T10:00:00Z"})",
      R"({"id":2,"p":null,"day":null,"ts":null})",
      R"({"id":3,"p":"x y%","day":"2024-01-02","ts":"2024-01-01T10:00:00.5Z"})",
      R"({"id":4,"p":"😈","day":"2024-01-01","ts":"2024-01-01T10:00:00Z"})",
      R"({"id":5,"p":"a/b","day":"2024-01-01","ts":"2024-01-01T10:00:00Z"})",
      R"({"id":6,"p":null,"day":"2024-01-01","ts":"2024-01-01T10:00:00Z"})",
  }));
  EXPECT_EQ(rows, RowsOf(expected));
  // Projection with partition columns only, in a chosen order.
  ScanOptions projection;
  projection.columns = {"DAY", "id"};
  ASSERT_OK_AND_ASSIGN(auto projected, SortedRows(table->snapshot(), projection));
  ASSERT_EQ(projected.size(), 6u);
  EXPECT_EQ(projected[0], R"({"day":"2024-01-01","id":1})");
}

TEST(TableTest, StatisticsLikeSpark) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto schema = Ddl("i INT, s STRING, d DOUBLE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, dt DATE, dec DECIMAL(5,2), "
                    "b BOOLEAN, bin BINARY, st STRUCT<x: INT, y: STRING>, arr ARRAY<INT>, m MAP<STRING, INT>");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, schema, {}));
  std::string long_string(40, 'z');
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema, {
      R"({"i":5,"s":"b","d":1.0,"ts":"2024-05-01T12:30:45.123456Z","ntz":"2024-05-01 12:30:45.999","dt":"2024-01-02","dec":"1.50","b":true,"bin":"AAE=","st":{"x":3,"y":null},"arr":[1],"m":{"a":1}})",
      R"({"i":-2,"s":")" + long_string + R"(","d":-3.5,"ts":"2020-01-01T00:00:00Z","ntz":"2020-01-01 00:00:00","dt":"2023-12-31","dec":"-0.25","b":false,"bin":null,"st":null,"arr":null,"m":null})",
      R"({"i":null,"s":null,"d":null,"ts":null,"ntz":null,"dt":null,"dec":null,"b":null,"st":{"x":null,"y":"q"}})",
  }));
  ASSERT_OK(table->Append({batch}).status());
  auto adds = ActionsOf<AddFile>(ReadCommit(root, 1));
  ASSERT_EQ(adds.size(), 1u);
  auto stats = nlohmann::json::parse(*adds[0].stats);
  EXPECT_EQ(stats["numRecords"], 3);
  const auto& min = stats["minValues"];
  const auto& max = stats["maxValues"];
  const auto& nulls = stats["nullCount"];
  EXPECT_EQ(min["i"], -2);
  EXPECT_EQ(max["i"], 5);
  EXPECT_EQ(min["s"], "b");
  EXPECT_EQ(max["s"], std::string(31, 'z') + "{");  // 32-char prefix with the last one incremented
  EXPECT_EQ(min["d"], -3.5);
  EXPECT_EQ(min["ts"], "2020-01-01T00:00:00.000Z");
  EXPECT_EQ(max["ts"], "2024-05-01T12:30:45.123Z");
  EXPECT_EQ(max["ntz"], "2024-05-01T12:30:45.999");
  EXPECT_EQ(min["dt"], "2023-12-31");
  EXPECT_EQ(max["dec"], 1.5);
  EXPECT_NE(adds[0].stats->find("\"dec\":-0.25"), std::string::npos) << *adds[0].stats;
  EXPECT_EQ(min["st"]["x"], 3);
  EXPECT_EQ(min["st"]["y"], "q");
  EXPECT_FALSE(min.contains("b"));
  EXPECT_FALSE(min.contains("bin"));
  EXPECT_FALSE(min.contains("arr"));
  EXPECT_EQ(nulls["i"], 1);
  EXPECT_EQ(nulls["b"], 1);
  EXPECT_EQ(nulls["bin"], 2);
  EXPECT_EQ(nulls["arr"], 2);
  EXPECT_EQ(nulls["m"], 2);
  EXPECT_EQ(nulls["st"]["x"], 2);  // null inside, plus the null struct
  EXPECT_EQ(nulls["st"]["y"], 2);
}

TEST(TableTest, StatsStringTruncation) {
  EXPECT_EQ(TruncateStatsMin("abc", 2), "ab");
  EXPECT_EQ(TruncateStatsMax("abc", 2), "ac");
  EXPECT_EQ(TruncateStatsMax("ab", 2), "ab");
  EXPECT_EQ(TruncateStatsMin("éèêë", 2), "éè");
  EXPECT_EQ(TruncateStatsMax("éèêë", 2), "éé");
  EXPECT_EQ(TruncateStatsMax("a\U0010FFFFx", 2), "b");
  EXPECT_EQ(TruncateStatsMax("\U0010FFFF\U0010FFFFx", 2), std::nullopt);
  EXPECT_EQ(TruncateStatsMax("a\xED\x9F\xBFx", 2), "a\xEE\x80\x80");  // skips the surrogates
}

TEST(TableTest, IndexedColumnsLimitStatistics) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto schema = Ddl("a INT, st STRUCT<x: INT, y: INT>, c INT");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, schema, {},
                                                 {{"delta.dataSkippingNumIndexedCols", "2"}}));
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema, {R"({"a":1,"st":{"x":2,"y":3},"c":4})"}));
  ASSERT_OK(table->Append({batch}).status());
  auto stats = nlohmann::json::parse(*ActionsOf<AddFile>(ReadCommit(root, 1))[0].stats);
  EXPECT_EQ(stats["minValues"].dump(), R"({"a":1,"st":{"x":2}})");
  EXPECT_EQ(stats["nullCount"].dump(), R"({"a":0,"st":{"x":0}})");
}

TEST(TableTest, TxnMakesAppendsIdempotent) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto schema = Ddl("id INT");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, schema, {}));
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema, {R"({"id":1})"}));
  AppendOptions options;
  options.txns = {{"query-1", 0, std::nullopt}, {"weir:main.t:orders:0", 100, std::nullopt}};
  options.operation = "STREAMING UPDATE";
  options.operation_parameters = {{"outputMode", "Append"}, {"queryId", "query-1"}, {"epochId", "0"}};
  ASSERT_OK_AND_ASSIGN(auto first, table->Append({batch}, options));
  EXPECT_EQ(first.version, 1);
  EXPECT_EQ(table->snapshot()->TxnVersion("query-1"), 0);
  EXPECT_EQ(table->snapshot()->TxnVersion("weir:main.t:orders:0"), 100);
  auto info = ActionsOf<CommitInfo>(ReadCommit(root, 1))[0];
  EXPECT_EQ(info.operation, "STREAMING UPDATE");
  EXPECT_EQ(info.operation_parameters.at("epochId"), "0");
  EXPECT_EQ(ActionsOf<SetTransaction>(ReadCommit(root, 1)).size(), 2u);

  // A re-run of batch 0, from a fresh process's view of the table, writes nothing.
  ASSERT_OK_AND_ASSIGN(auto reopened, Table::Open(Local(), root));
  size_t files_before = 0;
  for (auto& e : stdfs::directory_iterator(root)) files_before += e.is_regular_file();
  ASSERT_OK_AND_ASSIGN(auto again, reopened->Append({batch}, options));
  EXPECT_TRUE(again.already_committed);
  EXPECT_EQ(again.version, 1);
  size_t files_after = 0;
  for (auto& e : stdfs::directory_iterator(root)) files_after += e.is_regular_file();
  EXPECT_EQ(files_after, files_before);
  // A stale Transaction (read before the commit) learns it from the winner and skips.
  ASSERT_OK_AND_ASSIGN(auto v0, Snapshot::Load(Local(), root, 0));
  Transaction stale(v0);
  ASSERT_OK(stale.SetTxn("query-1", 0));
  ASSERT_OK_AND_ASSIGN(auto skipped, stale.Commit());
  EXPECT_TRUE(skipped.already_committed);
  EXPECT_EQ(skipped.version, 1);
  // The next batch commits.
  options.txns[0].version = 1;
  options.txns[1].version = 101;
  ASSERT_OK_AND_ASSIGN(auto next, reopened->Append({batch}, options));
  EXPECT_EQ(next.version, 2);
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(reopened->snapshot()));
  EXPECT_EQ(rows.size(), 2u);
  // One txn per appId per commit.
  Transaction twice(reopened->snapshot());
  ASSERT_OK(twice.SetTxn("a", 1));
  ASSERT_STATUS_CODE(kInvalidArgument, twice.SetTxn("a", 2));
}

TEST(TableTest, PropertiesAreValidated) {
  ScratchDir dir;
  auto schema = Ddl("id INT");
  auto unknown = Table::Create(Local(), dir.Sub("a"), schema, {}, {{"delta.enableFancyThing", "true"}});
  ASSERT_STATUS_CODE(kInvalidArgument, unknown);
  EXPECT_NE(unknown.status().message().find("delta.appendOnly"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("delta.enableFancyThing"), std::string::npos);
  ASSERT_STATUS_CODE(kInvalidArgument,
                     Table::Create(Local(), dir.Sub("b"), schema, {}, {{"delta.checkpointInterval", "0"}}));
  ASSERT_STATUS_CODE(kInvalidArgument,
                     Table::Create(Local(), dir.Sub("c"), schema, {}, {{"delta.logRetentionDuration", "soon"}}));
  ASSERT_STATUS_CODE(kInvalidArgument, Table::Create(Local(), dir.Sub("d"), schema, {},
                                                     {{"delta.parquet.compression.codec", "lzo"}}));
  ASSERT_OK_AND_ASSIGN(auto ok, Table::Create(Local(), dir.Sub("e"), schema, {},
                                              {{"owner", "team-a"},
                                               {"delta.logRetentionDuration", "interval 7 days"},
                                               {"delta.targetFileSize", "64mb"}}));
  EXPECT_EQ(ok->snapshot()->config().log_retention_ms, 7 * kMillisPerDay);
  EXPECT_EQ(ok->snapshot()->config().target_file_size, 64LL << 20);
  EXPECT_EQ(ok->snapshot()->properties().at("owner"), "team-a");
  ASSERT_STATUS_CODE(kAlreadyExists, Table::Create(Local(), dir.Sub("e"), schema, {}));
  ASSERT_STATUS_CODE(kInvalidArgument, Table::Create(Local(), dir.Sub("f"), schema, {"id"}));
  ASSERT_STATUS_CODE(kInvalidArgument, Table::Create(Local(), dir.Sub("g"), schema, {"nope"}));
  ASSERT_STATUS_CODE(kInvalidArgument,
                     Table::Create(Local(), dir.Sub("h"), Ddl("a INT, A STRING"), {}));
  ASSERT_STATUS_CODE(kNotFound, Table::Open(Local(), dir.Sub("missing")));
}

TEST(TableTest, AppendOnlyTablesRejectRemoves) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto schema = Ddl("id INT");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, schema, {}, {{"delta.appendOnly", "true"}}));
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema, {R"({"id":1})"}));
  ASSERT_OK(table->Append({batch}).status());
  const std::string path = table->snapshot()->files().begin()->second->path;
  Transaction remove(table->snapshot());
  ASSERT_OK(remove.RemoveLiveFile(path, /*data_change=*/true));
  auto rejected = remove.Commit();
  ASSERT_STATUS_CODE(kInvalidArgument, rejected);
  EXPECT_NE(rejected.status().message().find("append-only"), std::string::npos);
  // Rearranging data (compaction) is allowed.
  Transaction compact(table->snapshot());
  ASSERT_OK(compact.RemoveLiveFile(path, /*data_change=*/false));
  compact.SetOperation("OPTIMIZE", {});
  ASSERT_OK_AND_ASSIGN(auto done, compact.Commit());
  EXPECT_EQ(done.snapshot->num_files(), 0);
  ASSERT_STATUS_CODE(kNotFound, Transaction(table->snapshot()).RemoveLiveFile("nope", false));
}

// A table with the change data feed on (as Spark creates it: writer version 4): weir writes no
// change data files, so appends and compaction work and a commit that removes data is refused.
TEST(TableTest, ChangeDataFeedTablesRefuseRemoves) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  std::filesystem::create_directories(root + "/_delta_log");
  std::ofstream(root + "/_delta_log/00000000000000000000.json")
      << R"({"protocol":{"minReaderVersion":1,"minWriterVersion":4}})" "\n"
      << R"({"metaData":{"id":"cdf","format":{"provider":"parquet","options":{}},)"
         R"("schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}}]}",)"
         R"("partitionColumns":[],"configuration":{"delta.enableChangeDataFeed":"true"}}})" "\n";
  ASSERT_OK_AND_ASSIGN(auto table, Table::Open(Local(), root));
  auto schema = Ddl("id INT");
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema, {R"({"id":1})"}));
  ASSERT_OK(table->Append({batch}).status());
  const std::string path = table->snapshot()->files().begin()->second->path;
  Transaction remove(table->snapshot());
  ASSERT_OK(remove.RemoveLiveFile(path, /*data_change=*/true));
  auto rejected = remove.Commit();
  ASSERT_STATUS_CODE(kNotImplemented, rejected);
  EXPECT_NE(rejected.status().message().find("changeDataFeed"), std::string::npos);
  Transaction compact(table->snapshot());
  ASSERT_OK(compact.RemoveLiveFile(path, /*data_change=*/false));
  compact.SetOperation("OPTIMIZE", {});
  ASSERT_OK(compact.Commit().status());
}

TEST(TableTest, BatchesMustMatchTheSchema) {
  ScratchDir dir;
  auto schema = Ddl("id INT NOT NULL, name STRING");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), dir.Sub("t"), schema, {}));
  ASSERT_OK_AND_ASSIGN(auto wrong_type, BatchFromJson(Ddl("id BIGINT, name STRING"), {R"({"id":1})"}));
  ASSERT_STATUS_CODE(kInvalidArgument, table->Append({wrong_type}));
  ASSERT_OK_AND_ASSIGN(auto extra, BatchFromJson(Ddl("id INT, name STRING, x INT"), {R"({"id":1})"}));
  ASSERT_STATUS_CODE(kInvalidArgument, table->Append({extra}));
  ASSERT_OK_AND_ASSIGN(auto null_id, BatchFromJson(Ddl("id INT, name STRING"), {R"({"name":"x"})"}));
  ASSERT_STATUS_CODE(kInvalidArgument, table->Append({null_id}));
  // Columns in another order are matched by name.
  ASSERT_OK_AND_ASSIGN(auto reordered, BatchFromJson(Ddl("name STRING, id INT NOT NULL"),
                                                     {R"({"id":1,"name":"x"})"}));
  ASSERT_OK(table->Append({reordered}).status());
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(table->snapshot()));
  EXPECT_EQ(rows, std::vector<std::string>{R"({"id":1,"name":"x"})"});
  EXPECT_EQ(table->snapshot()->version(), 1);  // failed appends committed nothing
  // ... and left no data files behind.
  size_t data_files = 0;
  for (auto& e : stdfs::directory_iterator(dir.Sub("t"))) data_files += e.is_regular_file();
  EXPECT_EQ(data_files, 1u);
}

TEST(TableTest, RollsFilesAtTargetSizeWithTheConfiguredCodec) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto schema = Ddl("id BIGINT, payload STRING");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, schema, {},
                                                 {{"delta.targetFileSize", "100000"},
                                                  {"delta.parquet.compression.codec", "snappy"}}));
  columnar::Batch batch(schema);
  for (int64_t i = 0; i < 60000; ++i) {
    batch.columns[0].Append<int64_t>(i);
    batch.columns[1].AppendString("payload-" + std::to_string(i * 7919 % 100003));
  }
  ASSERT_OK_AND_ASSIGN(auto result, table->Append({batch}));
  auto adds = ActionsOf<AddFile>(ReadCommit(root, result.version));
  EXPECT_GT(adds.size(), 2u);
  int64_t rows = 0;
  for (const auto& a : adds) {
    EXPECT_NE(a.path.find(".c000.snappy.parquet"), std::string::npos);
    rows += *a.NumRecords();
  }
  EXPECT_EQ(rows, 60000);
  ASSERT_OK_AND_ASSIGN(auto local, ResolveDataFilePath(root, adds[0].path));
  ASSERT_OK_AND_ASSIGN(auto reader, parquet::ParquetReader::Open(Local(), local));
  EXPECT_EQ(reader->metadata().row_groups[0].columns[0].meta_data->codec,
            parquet::CompressionCodec::kSnappy);
  ASSERT_OK_AND_ASSIGN(auto all, SortedRows(table->snapshot()));
  EXPECT_EQ(all.size(), 60000u);
}

TEST(TableTest, RefreshSeesOtherWritersAndTimeTravel) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto schema = Ddl("id INT");
  ASSERT_OK_AND_ASSIGN(auto writer, Table::Create(Local(), root, schema, {}));
  ASSERT_OK_AND_ASSIGN(auto reader, Table::Open(Local(), root));
  for (int i = 1; i <= 3; ++i) {
    ASSERT_OK_AND_ASSIGN(auto b, BatchFromJson(schema, {"{\"id\":" + std::to_string(i) + "}"}));
    ASSERT_OK(writer->Append({b}).status());
  }
  EXPECT_EQ(reader->snapshot()->version(), 0);
  ASSERT_OK_AND_ASSIGN(auto latest, reader->Refresh());
  EXPECT_EQ(latest->version(), 3);
  EXPECT_EQ(latest->num_files(), 3);
  ASSERT_OK_AND_ASSIGN(auto v2, reader->SnapshotAt(2));
  EXPECT_EQ(v2->num_files(), 2);
  // Time travel by timestamp uses the commit files' modification times.
  auto log = LogDirPath(root);
  for (int v = 0; v <= 3; ++v) {
    stdfs::last_write_time(log + "/" + CommitFileName(v),
                           stdfs::file_time_type::clock::now() - std::chrono::hours(100 - v));
  }
  ASSERT_OK_AND_ASSIGN(auto files, ListLogFiles(Local(), log));
  int64_t v1_time = 0;
  for (const auto& f : files) {
    if (f.version() == 1 && f.name.type == LogFileType::kCommit) v1_time = f.mtime_ms;
  }
  ASSERT_OK_AND_ASSIGN(auto at_v1, reader->SnapshotAtTimestamp(v1_time + 1000));
  EXPECT_EQ(at_v1->version(), 1);
  ASSERT_OK_AND_ASSIGN(auto now, reader->SnapshotAtTimestamp(NowMillis()));
  EXPECT_EQ(now->version(), 3);
  ASSERT_STATUS_CODE(kNotFound, reader->SnapshotAtTimestamp(1000));
}

// A damaged log is Corruption naming the file, never an older or empty table: an emptied commit
// (a copy or crash that lost its contents) would otherwise drop the files it added, and a log
// whose first commits are gone would read as "no table" and be created anew over the old one.
TEST(TableTest, DamagedLogIsCorruptionNotAnOlderOrMissingTable) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto schema = Ddl("id INT");
  ASSERT_OK_AND_ASSIGN(auto writer, Table::Create(Local(), root, schema, {}));
  ASSERT_OK_AND_ASSIGN(auto reader, Table::Open(Local(), root));
  for (int i = 1; i <= 2; ++i) {
    ASSERT_OK_AND_ASSIGN(auto b, BatchFromJson(schema, {"{\"id\":" + std::to_string(i) + "}"}));
    ASSERT_OK(writer->Append({b}).status());
  }
  const std::string log = LogDirPath(root);
  const std::string last = log + "/" + CommitFileName(2);
  for (const char* content : {"", "\n\n"}) {
    ASSERT_OK(fs::WriteStringToFile(Local(), last, content));
    auto opened = Table::Open(Local(), root);
    ASSERT_STATUS_CODE(kCorruption, opened);
    EXPECT_NE(opened.status().message().find(CommitFileName(2)), std::string::npos)
        << opened.status().ToString();
    ASSERT_STATUS_CODE(kCorruption, reader->Refresh());  // incremental update from version 0
  }
  stdfs::remove(last);
  stdfs::remove(log + "/" + CommitFileName(0));
  auto headless = Table::Open(Local(), root);
  ASSERT_STATUS_CODE(kCorruption, headless);
  EXPECT_NE(headless.status().message().find(CommitFileName(0)), std::string::npos);
}

TEST(TableTest, ConcurrentRemoveOfTheSameFileConflicts) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto schema = Ddl("id INT");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, schema, {}));
  ASSERT_OK_AND_ASSIGN(auto b, BatchFromJson(schema, {R"({"id":1})"}));
  ASSERT_OK(table->Append({b}).status());
  auto read = table->snapshot();
  const std::string path = read->files().begin()->second->path;
  Transaction first(read), second(read), blind(read);
  ASSERT_OK(first.RemoveLiveFile(path, true));
  ASSERT_OK(second.RemoveLiveFile(path, true));
  ASSERT_OK_AND_ASSIGN(auto won, first.Commit());
  EXPECT_EQ(won.version, 2);
  auto lost = second.Commit();
  ASSERT_STATUS_CODE(kConflict, lost);
  EXPECT_NE(lost.status().message().find("version 2"), std::string::npos) << lost.status().message();
  EXPECT_NE(lost.status().message().find("read version 1"), std::string::npos);
  // A blind append on the same read version is not affected.
  ASSERT_OK_AND_ASSIGN(auto w, DataFileWriter::Open(*read));
  ASSERT_OK(w->Write(b));
  ASSERT_OK_AND_ASSIGN(auto adds, w->Finish());
  blind.AddFiles(adds);
  ASSERT_OK_AND_ASSIGN(auto appended, blind.Commit());
  EXPECT_EQ(appended.version, 3);
  EXPECT_EQ(appended.attempts, 2);
  EXPECT_EQ(appended.snapshot->num_files(), 1);
}

}  // namespace
}  // namespace weir::delta
