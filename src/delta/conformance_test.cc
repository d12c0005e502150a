// Reads every Delta table of the conformance corpus (DAT, Delta golden tables, delta-rs,
// delta-kernel-rs; $WEIR_CONFORMANCE_DIR/delta/MANIFEST.md) and compares it with its expected
// content where the corpus has one (Spark-written Parquet, compared as sorted sets of JSON rows,
// independent of column order). Tables using reader features weir does not support must be
// refused naming the feature; error-case tables must fail as the MANIFEST says; tables without
// expected content must scan with as many rows as their statistics promise.
//
// The corpus is found only via $WEIR_CONFORMANCE_DIR (the Makefile sets it).
// When it is missing the test prints SKIPPED loudly, and fails when $CI is "true".
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "delta/testing.h"
#include "fs/local_file_system.h"
#include "parquet/reader.h"

namespace weir::delta {
namespace {

namespace stdfs = std::filesystem;
using Json = nlohmann::json;

fs::FileSystem* Local() { return fs::LocalFileSystem::Default(); }


// Tables weir refuses, with the feature its message must name.
const std::map<std::string, std::string> kRefused = {
    {"kernel-rs/table-with-dv-small", "deletionVectors"},
};

struct ErrorCase {
  StatusCode code;
  std::string message_part;
};
// Error cases of the MANIFEST.
const std::map<std::string, ErrorCase> kErrorCases = {
    {"golden/deltalog-invalid-protocol-version", {StatusCode::kNotImplemented, "reader version 99"}},
    {"golden/versions-not-contiguous", {StatusCode::kCorruption, "commit 1"}},
    {"golden/deltalog-state-reconstruction-without-protocol", {StatusCode::kCorruption, "no protocol"}},
    {"golden/deltalog-state-reconstruction-without-metadata", {StatusCode::kCorruption, "no metaData"}},
    {"golden/no-delta-log-folder", {StatusCode::kNotFound, "_delta_log"}},
};

// Log-only tables (their data files are absent): checked through the snapshot.
const std::set<std::string> kLogOnly = {
    "golden/checkpoint",
    "kernel-rs/app-txn-with-last-updated",
    "kernel-rs/with_checkpoint_no_last_checkpoint",
};

// Tables whose TIMESTAMP partition values were written without a zone, in the writer's session
// time zone (which the log does not record): the offset to read them with. The Delta golden
// tables were generated in America/Los_Angeles (UTC-7 in September 2021).
const std::map<std::string, int64_t> kZonelessPartitionOffsets = {
    {"golden/data-reader-partition-values", -7 * 3600},
};

// Rows of every Parquet file in `dir` (Spark output: part-*.parquet), sorted, normalized.
Result<std::vector<std::string>> ExpectedRows(const std::string& dir) {
  std::vector<std::string> rows;
  std::vector<std::string> files;
  for (const auto& e : stdfs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.size() > 8 && name.substr(name.size() - 8) == ".parquet" && name[0] != '.') {
      files.push_back(e.path().string());
    }
  }
  for (const std::string& f : files) {
    WEIR_ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(Local(), f));
    WEIR_ASSIGN_OR_RETURN(auto batch, reader->ReadAll());
    for (auto& r : testing::JsonRows(batch)) rows.push_back(std::move(r));
  }
  return rows;
}

// A row with sorted keys, so that column order does not matter.
std::string Normalize(const std::string& row) {
  Json j = Json::parse(row, nullptr, false);
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::vector<std::string> NormalizeAll(std::vector<std::string> rows) {
  for (auto& r : rows) r = Normalize(r);
  std::sort(rows.begin(), rows.end());
  return rows;
}

struct Tally {
  int compared = 0, scanned = 0, log_only = 0, refused = 0, error_cases = 0, failed = 0;
  std::vector<std::string> failures;
};

class ConformanceTest : public ::testing::Test {
 protected:
  void Fail(Tally* tally, const std::string& table, const std::string& why) {
    ++tally->failed;
    tally->failures.push_back(table + ": " + why);
    ADD_FAILURE() << table << ": " << why;
  }

  // Compares the table at `version` (latest when nullopt) with the rows in `expected_dir`.
  bool Compare(Tally* tally, const std::string& name, const std::string& root,
               std::optional<int64_t> version, const std::string& expected_dir) {
    auto snapshot = Snapshot::Load(Local(), root, version);
    if (!snapshot.ok()) {
      Fail(tally, name, "load: " + snapshot.status().ToString());
      return false;
    }
    ScanOptions options;
    for (const auto& [table, offset] : kZonelessPartitionOffsets) {
      if (name == table) options.zoneless_partition_timestamp_offset_seconds = offset;
    }
    auto actual = testing::SortedRows(*snapshot, options);
    if (!actual.ok()) {
      Fail(tally, name, "scan: " + actual.status().ToString());
      return false;
    }
    auto expected = ExpectedRows(expected_dir);
    if (!expected.ok()) {
      Fail(tally, name, "expected: " + expected.status().ToString());
      return false;
    }
    auto a = NormalizeAll(*actual);
    auto e = NormalizeAll(*expected);
    if (a != e) {
      std::string detail = "content differs from " + expected_dir + " (" + std::to_string(a.size()) +
                           " rows vs " + std::to_string(e.size()) + " expected)";
      for (size_t i = 0; i < std::max(a.size(), e.size()) && i < 3; ++i) {
        detail += "\n  weir:     " + (i < a.size() ? a[i] : "-");
        detail += "\n  expected: " + (i < e.size() ? e[i] : "-");
      }
      Fail(tally, name, detail);
      return false;
    }
    return true;
  }

  // DAT: expected/<latest|vN>/table_content.parquet and table_version_metadata.json.
  void CheckDat(Tally* tally, const std::string& name, const std::string& dir) {
    std::string root = dir + "/delta";
    bool ok = true;
    for (const auto& e : stdfs::directory_iterator(dir + "/expected")) {
      std::string which = e.path().filename().string();
      std::optional<int64_t> version;
      if (which != "latest") version = std::stoll(which.substr(1));
      std::ifstream meta_in(e.path() / "table_version_metadata.json");
      Json meta = Json::parse(meta_in, nullptr, false);
      auto snapshot = Snapshot::Load(Local(), root, version);
      if (!snapshot.ok()) {
        Fail(tally, name, which + ": " + snapshot.status().ToString());
        return;
      }
      if (meta.is_object()) {
        if ((*snapshot)->version() != meta.value("version", -1)) {
          Fail(tally, name, which + ": version " + std::to_string((*snapshot)->version()));
          ok = false;
        }
        if ((*snapshot)->protocol().min_reader_version != meta.value("min_reader_version", -1) ||
            (*snapshot)->protocol().min_writer_version != meta.value("min_writer_version", -1)) {
          Fail(tally, name, which + ": protocol differs from table_version_metadata.json");
          ok = false;
        }
        if (meta.contains("properties") && meta["properties"].is_object()) {
          for (auto it = meta["properties"].begin(); it != meta["properties"].end(); ++it) {
            auto found = (*snapshot)->properties().find(it.key());
            if (found == (*snapshot)->properties().end() || !it->is_string() ||
                found->second != it->get<std::string>()) {
              Fail(tally, name, which + ": property " + it.key() + " differs");
              ok = false;
            }
          }
        }
      }
      ok = Compare(tally, name + " " + which, root, version,
                   (e.path() / "table_content.parquet").string()) && ok;
    }
    if (ok) ++tally->compared;
  }

  // No expected content: the scan must succeed and match the row count the stats promise.
  void CheckScanOnly(Tally* tally, const std::string& name, const std::string& root) {
    auto snapshot = Snapshot::Load(Local(), root);
    if (!snapshot.ok()) {
      Fail(tally, name, "load: " + snapshot.status().ToString());
      return;
    }
    auto rows = testing::SortedRows(*snapshot);
    if (!rows.ok()) {
      Fail(tally, name, "scan: " + rows.status().ToString());
      return;
    }
    int64_t promised = 0;
    bool all_have_stats = true;
    for (const auto& [key, add] : (*snapshot)->files()) {
      auto n = add->NumRecords();
      all_have_stats = all_have_stats && n.has_value();
      promised += n.value_or(0);
    }
    if (all_have_stats && promised != static_cast<int64_t>(rows->size())) {
      Fail(tally, name, "scanned " + std::to_string(rows->size()) + " rows, the statistics say " +
                            std::to_string(promised));
      return;
    }
    ++tally->scanned;
  }
};

TEST_F(ConformanceTest, EveryTable) {
  WEIR_REQUIRE_CONFORMANCE(corpus, "delta");
  Tally tally;
  std::vector<std::string> tables;
  for (const auto& group : stdfs::directory_iterator(corpus)) {
    if (!group.is_directory()) continue;
    for (const auto& table : stdfs::directory_iterator(group.path())) {
      if (table.is_directory()) {
        tables.push_back(group.path().filename().string() + "/" + table.path().filename().string());
      }
    }
  }
  std::sort(tables.begin(), tables.end());
  ASSERT_GT(tables.size(), 50u);
  for (const std::string& name : tables) {
    const std::string dir = corpus + "/" + name;
    const std::string root = dir + "/delta";
    if (auto refused = kRefused.find(name); refused != kRefused.end()) {
      auto s = Snapshot::Load(Local(), root);
      if (s.ok() || !s.status().IsNotImplemented() ||
          s.status().message().find(refused->second) == std::string::npos) {
        Fail(&tally, name, "expected a refusal naming " + refused->second + ", got " +
                               (s.ok() ? "OK" : s.status().ToString()));
      } else {
        ++tally.refused;
        std::printf("refused %-50s %s\n", name.c_str(), s.status().message().c_str());
      }
      continue;
    }
    if (auto error = kErrorCases.find(name); error != kErrorCases.end()) {
      auto s = Snapshot::Load(Local(), root);
      if (s.ok() || s.status().code() != error->second.code ||
          s.status().message().find(error->second.message_part) == std::string::npos) {
        Fail(&tally, name, "expected " + std::string(StatusCodeName(error->second.code)) + " with '" +
                               error->second.message_part + "', got " +
                               (s.ok() ? "OK" : s.status().ToString()));
      } else {
        ++tally.error_cases;
      }
      continue;
    }
    if (kLogOnly.count(name)) {
      auto s = Snapshot::Load(Local(), root);
      if (!s.ok()) {
        Fail(&tally, name, s.status().ToString());
      } else {
        ++tally.log_only;
      }
      continue;
    }
    if (stdfs::exists(dir + "/test_case_info.json")) {
      CheckDat(&tally, name, dir);
    } else if (stdfs::is_directory(dir + "/expected")) {
      if (Compare(&tally, name, root, std::nullopt, dir + "/expected")) ++tally.compared;
    } else {
      CheckScanOnly(&tally, name, root);
    }
  }
  std::printf("Delta conformance: %zu tables: %d match expected content, %d scanned (no expected "
              "content), %d log-only, %d refused (unsupported features), %d error cases as "
              "expected, %d failed\n",
              tables.size(), tally.compared, tally.scanned, tally.log_only, tally.refused,
              tally.error_cases, tally.failed);
  for (const auto& f : tally.failures) std::printf("FAILED %s\n", f.substr(0, 2000).c_str());
}

// Specific facts of some corpus tables beyond their content.
class ConformanceFactsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WEIR_REQUIRE_CONFORMANCE(corpus, "delta");
  }
  Result<std::shared_ptr<const Snapshot>> Load(const std::string& name,
                                               std::optional<int64_t> version = std::nullopt) {
    return Snapshot::Load(Local(), weir::testing::ConformancePath("delta") + "/" + name + "/delta", version);
  }
};

TEST_F(ConformanceFactsTest, TxnVersionsWithAndWithoutCheckpoint) {
  for (const char* name : {"kernel-rs/app-txn-no-checkpoint", "kernel-rs/app-txn-checkpoint"}) {
    ASSERT_OK_AND_ASSIGN(auto s, Load(name));
    EXPECT_EQ(s->TxnVersion("my-app"), 3) << name;
    EXPECT_EQ(s->TxnVersion("my-app2"), 2) << name;
    EXPECT_EQ(s->TxnVersion("nobody"), std::nullopt) << name;
  }
}

TEST_F(ConformanceFactsTest, ExpiredTxnsAreIgnored) {
  // delta.setTransactionRetentionDuration = interval 1 days; lastUpdated values are from 1970.
  ASSERT_OK_AND_ASSIGN(auto s, Load("kernel-rs/app-txn-with-last-updated"));
  EXPECT_EQ(s->TxnVersion("new_app_0"), 1);  // no lastUpdated: never expires
  EXPECT_EQ(s->TxnVersion("new_app_1"), std::nullopt);
  EXPECT_EQ(s->TxnVersion("old_app"), std::nullopt);
  EXPECT_EQ(s->transactions().size(), 4u);
}

TEST_F(ConformanceFactsTest, CheckpointChoiceIgnoresBadHints) {
  ASSERT_OK_AND_ASSIGN(auto empty_hint, Load("golden/corrupted-last-checkpoint-kernel"));
  EXPECT_EQ(empty_hint->checkpoint_version(), 10);
  ASSERT_OK_AND_ASSIGN(auto stale_hint, Load("delta-rs/table_failed_last_checkpoint_update"));
  EXPECT_EQ(stale_hint->checkpoint_version(), 3);
  ASSERT_OK_AND_ASSIGN(auto no_hint, Load("kernel-rs/with_checkpoint_no_last_checkpoint"));
  EXPECT_EQ(no_hint->checkpoint_version(), 2);
  EXPECT_EQ(no_hint->version(), 3);
  ASSERT_OK_AND_ASSIGN(auto multi, Load("golden/multi-part-checkpoint"));
  EXPECT_EQ(multi->checkpoint_version(), 1);
  ASSERT_OK_AND_ASSIGN(auto no_replay, Load("dat/no_replay"));
  EXPECT_EQ(no_replay->checkpoint_version(), 2);
}

TEST_F(ConformanceFactsTest, LogReplayOfGoldenCheckpointTable) {
  ASSERT_OK_AND_ASSIGN(auto s, Load("golden/checkpoint"));
  EXPECT_EQ(s->version(), 14);
  EXPECT_EQ(s->checkpoint_version(), 10);
  ASSERT_EQ(s->num_files(), 1);
  EXPECT_EQ(s->files().begin()->second->path, "15");
  // Time travel below the checkpoint replays the commits from 0.
  ASSERT_OK_AND_ASSIGN(auto v5, Load("golden/checkpoint", 5));
  EXPECT_EQ(v5->checkpoint_version(), std::nullopt);
  EXPECT_EQ(v5->version(), 5);
}

TEST_F(ConformanceFactsTest, TimeTravelByVersion) {
  // dat/basic_append: v0 has 3 rows, v1 adds 2.
  ASSERT_OK_AND_ASSIGN(auto v0, Load("dat/basic_append", 0));
  ASSERT_OK_AND_ASSIGN(auto rows0, testing::SortedRows(v0));
  EXPECT_EQ(rows0.size(), 3u);
  ASSERT_STATUS_CODE(kNotFound, Load("dat/basic_append", 7));
}

}  // namespace
}  // namespace weir::delta
