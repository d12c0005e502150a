#include "delta/streaming_source.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "delta/log_path.h"
#include "delta/log_replay.h"
#include "delta/table.h"
#include "delta/testing.h"
#include "fs/local_file_system.h"

namespace weir::delta {

// Offsets print as their JSON in test failures.
void PrintTo(const DeltaSourceOffset& offset, std::ostream* os) { *os << offset.ToJson(); }

namespace {

using testing::BatchFromJson;
using testing::Ddl;
using testing::ScratchDir;
namespace stdfs = std::filesystem;
using Offset = DeltaSourceOffset;
using ::testing::HasSubstr;

fs::FileSystem* Local() { return fs::LocalFileSystem::Default(); }


Offset MakeOffset(std::string id, int64_t version, int64_t index, bool initial) {
  Offset o;
  o.reservoir_id = std::move(id);
  o.reservoir_version = version;
  o.index = index;
  o.is_initial_snapshot = initial;
  return o;
}

// ------------------------------------------------------------------------------------------------
// Offsets

// From Delta's DeltaSourceOffsetSuite ("DeltaSourceOffset serialization") and offsets/N lines of
// real Spark checkpoints (a Databricks runtime probe and a Delta Lake 3 playground).
TEST(DeltaSourceOffsetTest, JsonIsByteForByteWhatDeltaWrites) {
  const std::string id = "ef5b9a4f-257c-466f-959b-a3778a12497f";
  const std::string base =
      R"({"sourceVersion":1,"reservoirId":"ef5b9a4f-257c-466f-959b-a3778a12497f","reservoirVersion":3,"index":-1,"isStartingVersion":false})";
  EXPECT_EQ(MakeOffset(id, 3, Offset::kBaseIndex, false).ToJson(), base);
  ASSERT_OK_AND_ASSIGN(Offset parsed, Offset::FromJson(base));
  EXPECT_EQ(parsed, MakeOffset(id, 3, Offset::kBaseIndex, false));

  EXPECT_EQ(
      MakeOffset(id, 9, 23, true).ToJson(),
      R"({"sourceVersion":1,"reservoirId":"ef5b9a4f-257c-466f-959b-a3778a12497f","reservoirVersion":9,"index":23,"isStartingVersion":true})");
  // The schema-tracking index needs sourceVersion 3.
  EXPECT_EQ(
      MakeOffset(id, 7, Offset::kMetadataChangeIndex, false).ToJson(),
      R"({"sourceVersion":3,"reservoirId":"ef5b9a4f-257c-466f-959b-a3778a12497f","reservoirVersion":7,"index":-20,"isStartingVersion":false})");

  for (
      const std::string observed : {
          R"({"sourceVersion":1,"reservoirId":"63336fa6-8d15-48fd-ab9f-ea93b85a52ee","reservoirVersion":4,"index":0,"isStartingVersion":true})",
          R"({"sourceVersion":1,"reservoirId":"0bc7f5f0-8caf-4754-a7a5-2f28026b8d56","reservoirVersion":1,"index":-1,"isStartingVersion":false})",
          R"({"sourceVersion":1,"reservoirId":"3bffe7c2-e334-4419-a150-f6f47b565c78","reservoirVersion":1,"index":8,"isStartingVersion":false})",
      }) {
    ASSERT_OK_AND_ASSIGN(Offset o, Offset::FromJson(observed));
    EXPECT_EQ(o.ToJson(), observed);
  }
}

TEST(DeltaSourceOffsetTest, ParsesEveryFormDeltaAccepts) {
  // Pretty-printed, fields in another order (DeltaSourceOffsetSuite "deserialization").
  ASSERT_OK_AND_ASSIGN(Offset v1, Offset::FromJson(R"({
      "reservoirId": "abc",
      "sourceVersion": 1,
      "reservoirVersion": 3,
      "index": -1,
      "isStartingVersion": false
    })"));
  EXPECT_EQ(v1, MakeOffset("abc", 3, Offset::kBaseIndex, false));
  // sourceVersion 3 writes the base index as -100; it is written back in the V1 form.
  ASSERT_OK_AND_ASSIGN(
      Offset v3,
      Offset::FromJson(
          R"({"reservoirId":"abc","sourceVersion":3,"reservoirVersion":7,"index":-100,"isStartingVersion":false})"));
  EXPECT_EQ(v3, MakeOffset("abc", 7, Offset::kBaseIndex, false));
  EXPECT_EQ(
      v3.ToJson(),
      R"({"sourceVersion":1,"reservoirId":"abc","reservoirVersion":7,"index":-1,"isStartingVersion":false})");
  ASSERT_OK_AND_ASSIGN(
      Offset meta,
      Offset::FromJson(
          R"({"reservoirId":"abc","sourceVersion":3,"reservoirVersion":7,"index":-20,"isStartingVersion":false})"));
  EXPECT_EQ(meta.index, Offset::kMetadataChangeIndex);
  // Unknown fields are ignored; Jackson coerces numeric strings.
  ASSERT_OK_AND_ASSIGN(
      Offset loose,
      Offset::FromJson(
          R"({"sourceVersion":"1","reservoirId":"abc","reservoirVersion":"12","index":5,"isStartingVersion":true,"extra":[1]})"));
  EXPECT_EQ(loose, MakeOffset("abc", 12, 5, true));
}

TEST(DeltaSourceOffsetTest, RefusesWhatDeltaRefusesWithItsMessages) {
  auto newer = Offset::FromJson(
      R"({"sourceVersion":4,"reservoirVersion":1,"index":1,"isStartingVersion":true})");
  ASSERT_STATUS_CODE(kNotImplemented, newer);
  EXPECT_THAT(newer.status().message(),
              HasSubstr("[DELTA_INVALID_FORMAT_FROM_SOURCE_VERSION] Unsupported format. Expected "
                        "version should be smaller than or equal to 3 but was 4. Please upgrade "
                        "to newer version of Delta."));

  auto not_a_number = Offset::FromJson(
      R"({"sourceVersion":"foo","reservoirVersion":1,"index":1,"isStartingVersion":true})");
  ASSERT_STATUS_CODE(kCorruption, not_a_number);
  EXPECT_THAT(not_a_number.status().message(),
              HasSubstr("[DELTA_INVALID_SOURCE_OFFSET_FORMAT] The stored source offset format is "
                        "invalid"));

  auto missing = Offset::FromJson(R"({"reservoirVersion":1,"index":1,"isStartingVersion":true})");
  ASSERT_STATUS_CODE(kCorruption, missing);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("[DELTA_INVALID_SOURCE_VERSION] sourceVersion(0) is invalid"));

  // A negative index that is no marker (found by fuzz/checkpoint_fuzz.cc: -1 in version 3 was
  // read as -1 and written back as version 1's base index, -100 once re-read).
  for (const char* bad : {R"({"sourceVersion":3,"reservoirVersion":9,"index":-1,"isStartingVersion":true})",
                          R"({"sourceVersion":1,"reservoirVersion":9,"index":-7,"isStartingVersion":true})"}) {
    auto offset = Offset::FromJson(bad);
    ASSERT_STATUS_CODE(kCorruption, offset);
    EXPECT_THAT(offset.status().message(), HasSubstr("[DELTA_INVALID_SOURCE_OFFSET_FORMAT]"));
  }

  auto reserved = Offset::FromJson(R"({"sourceVersion":2,"reservoirVersion":1,"index":1})");
  EXPECT_THAT(reserved.status().message(), HasSubstr("sourceVersion(2) is invalid"));

  ASSERT_STATUS_CODE(kCorruption, Offset::FromJson(R"({"reservoirId":"a","sourceVersion":23x})"));
  ASSERT_STATUS_CODE(kCorruption, Offset::FromJson("[1]"));
  ASSERT_STATUS_CODE(kCorruption, Offset::FromJson(""));
}

TEST(DeltaSourceOffsetTest, ProgressMustNotMoveBack) {
  EXPECT_OK(ValidateOffsetProgress(MakeOffset("t", 4, 10, false), MakeOffset("t", 4, 10, false)));
  EXPECT_OK(ValidateOffsetProgress(MakeOffset("t", 4, 10, false), MakeOffset("t", 5, 1, false)));
  auto flipped =
      ValidateOffsetProgress(MakeOffset("t", 4, 10, false), MakeOffset("t", 4, 10, true));
  EXPECT_THAT(flipped.message(),
              HasSubstr("Found invalid offsets: 'isInitialSnapshot' flipped incorrectly."));
  EXPECT_THAT(ValidateOffsetProgress(MakeOffset("t", 4, 10, false), MakeOffset("t", 1, 10, false))
                  .message(),
              HasSubstr("'reservoirVersion' moved back."));
  EXPECT_THAT(
      ValidateOffsetProgress(MakeOffset("t", 4, 10, false), MakeOffset("t", 4, 9, false)).message(),
      HasSubstr("'index' moved back."));
}

// ------------------------------------------------------------------------------------------------
// Options

TEST(DeltaSourceOptionsTest, ParsesDeltaOptions) {
  ASSERT_OK_AND_ASSIGN(auto defaults, DeltaSourceOptions::FromMap({}));
  EXPECT_FALSE(defaults.max_files_per_trigger);
  EXPECT_TRUE(defaults.fail_on_data_loss);

  ASSERT_OK_AND_ASSIGN(auto o, DeltaSourceOptions::FromMap({{"MAXFILESPERTRIGGER", "7"},
                                                            {"maxBytesPerTrigger", "10g"},
                                                            {"ignoreDeletes", "TRUE"},
                                                            {"failOnDataLoss", "false"},
                                                            {"startingVersion", "latest"},
                                                            {"someOtherOption", "x"}}));
  EXPECT_EQ(o.max_files_per_trigger, 7);
  EXPECT_EQ(o.max_bytes_per_trigger, int64_t{10} << 30);
  EXPECT_TRUE(o.ignore_deletes);
  EXPECT_FALSE(o.fail_on_data_loss);
  ASSERT_TRUE(o.starting_version);
  EXPECT_TRUE(o.starting_version->latest);

  for (const auto& [bytes, expected] : std::vector<std::pair<std::string, int64_t>>{
           {"100", 100}, {"1k", 1024}, {" 2MB ", 2 << 20}, {"1b", 1}}) {
    ASSERT_OK_AND_ASSIGN(auto b, DeltaSourceOptions::FromMap({{"maxBytesPerTrigger", bytes}}));
    EXPECT_EQ(b.max_bytes_per_trigger, expected) << bytes;
  }

  auto zero = DeltaSourceOptions::FromMap({{"maxFilesPerTrigger", "0"}});
  ASSERT_STATUS_CODE(kInvalidArgument, zero);
  EXPECT_THAT(zero.status().message(),
              HasSubstr("Invalid value '0' for option 'maxFilesPerTrigger', must be a positive "
                        "integer"));
  EXPECT_THAT(DeltaSourceOptions::FromMap({{"maxBytesPerTrigger", "1.5g"}}).status().message(),
              HasSubstr("Invalid value '1.5g' for option 'maxBytesPerTrigger', must be a size "
                        "configuration such as '10g'"));
  EXPECT_THAT(DeltaSourceOptions::FromMap({{"startingVersion", "-1"}}).status().message(),
              HasSubstr("Invalid value '-1' for option 'startingVersion', must be greater than "
                        "or equal to zero"));
  EXPECT_THAT(DeltaSourceOptions::FromMap({{"ignoreChanges", "yes"}}).status().message(),
              HasSubstr("Invalid value 'yes' for option 'ignoreChanges', must be 'true' or "
                        "'false'"));
  EXPECT_THAT(
      DeltaSourceOptions::FromMap({{"startingVersion", "1"}, {"startingTimestamp", "2020-01-01"}})
          .status()
          .message(),
      HasSubstr("Please either provide 'startingVersion' or 'startingTimestamp'"));
}

// ------------------------------------------------------------------------------------------------
// Sources over tables weir writes

const char* kDdl = "id BIGINT, p STRING";

class DeltaSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Sub("t");
    auto table = Table::Create(Local(), root_, Ddl(kDdl), {"p"});
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    table_ = std::move(*table);
  }

  // Appends rows {"id":i,"p":p}: one file per distinct p. Returns the version.
  int64_t Append(const std::vector<std::pair<int64_t, std::string>>& rows) {
    std::vector<std::string> json;
    for (const auto& [id, p] : rows) {
      json.push_back(nlohmann::json{{"id", id}, {"p", p}}.dump());
    }
    auto batch = BatchFromJson(Ddl(kDdl), json).ValueOrDie();
    auto result = table_->Append({batch});
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? result->version : -1;
  }

  std::unique_ptr<DeltaSource> Open(const std::map<std::string, std::string>& options = {}) {
    auto parsed = DeltaSourceOptions::FromMap(options);
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    auto source = DeltaSource::Open(Local(), root_, *parsed);
    EXPECT_TRUE(source.ok()) << source.status().ToString();
    return std::move(*source);
  }

  std::string Id() { return table_->snapshot()->metadata().id; }

  // The ids of the rows of `files`, file by file in stream order.
  std::vector<int64_t> Ids(const DeltaSource& source, const std::vector<DeltaSourceFile>& files) {
    std::vector<int64_t> ids;
    for (const auto& f : files) {
      auto batch = source.ReadFile(*f.add);
      EXPECT_TRUE(batch.ok()) << batch.status().ToString();
      if (!batch.ok()) continue;
      for (const auto& row : testing::JsonRows(*batch)) {
        ids.push_back(nlohmann::json::parse(row)["id"].get<int64_t>());
      }
    }
    return ids;
  }

  // The data-changing add paths of commit `version`, in commit order.
  std::vector<std::string> CommitAddPaths(int64_t version) {
    std::vector<std::string> paths;
    for (const auto& a : ReadCommitActions(Local(), root_, version).ValueOrDie()) {
      if (auto* add = std::get_if<AddFile>(&a); add && add->data_change) paths.push_back(add->path);
    }
    return paths;
  }

  void Refresh() { ASSERT_OK(table_->Refresh().status()); }

  ScratchDir dir_;
  std::string root_;
  std::unique_ptr<Table> table_;
};

std::vector<std::string> PathsOf(const std::vector<DeltaSourceFile>& files) {
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(f.add->path);
  return paths;
}

TEST_F(DeltaSourceTest, ReadsTheSnapshotFirstThenEachCommitsAdds) {
  ASSERT_EQ(Append({{1, "a"}, {2, "b"}, {3, "c"}}), 1);
  ASSERT_EQ(Append({{4, "a"}, {5, "b"}}), 2);
  auto source = Open();
  ASSERT_EQ(source->snapshot_at_start()->version(), 2);

  ASSERT_OK_AND_ASSIGN(auto end0, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
  ASSERT_TRUE(end0);
  // The whole snapshot fits: its end rounds up to the base of version 3.
  EXPECT_EQ(end0->ToJson(), R"({"sourceVersion":1,"reservoirId":")" + Id() +
                                R"(","reservoirVersion":3,"index":-1,"isStartingVersion":false})");
  ASSERT_OK_AND_ASSIGN(auto files0, source->FilesBetween(std::nullopt, *end0));
  ASSERT_EQ(files0.size(), 5u);
  std::vector<std::shared_ptr<const AddFile>> expected;
  for (const auto& [k, add] : table_->snapshot()->files()) expected.push_back(add);
  std::sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) {
    return std::tie(a->modification_time, a->path) < std::tie(b->modification_time, b->path);
  });
  for (size_t i = 0; i < files0.size(); ++i) {
    EXPECT_EQ(files0[i].version, 2);
    EXPECT_EQ(files0[i].index, static_cast<int64_t>(i));
    EXPECT_EQ(files0[i].add->path, expected[i]->path);
  }
  auto ids0 = Ids(*source, files0);
  EXPECT_EQ(std::set<int64_t>(ids0.begin(), ids0.end()), (std::set<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(ids0.size(), 5u);

  // Nothing new: the same offset.
  ASSERT_OK_AND_ASSIGN(auto same, source->LatestOffset(end0, source->DefaultReadLimit()));
  EXPECT_EQ(same, end0);

  ASSERT_EQ(Append({{6, "a"}, {7, "b"}}), 3);
  ASSERT_OK_AND_ASSIGN(auto end1, source->LatestOffset(end0, source->DefaultReadLimit()));
  EXPECT_EQ(end1, MakeOffset(Id(), 4, Offset::kBaseIndex, false));
  ASSERT_OK_AND_ASSIGN(auto files1, source->FilesBetween(end0, *end1));
  EXPECT_EQ(PathsOf(files1), CommitAddPaths(3));
  ASSERT_EQ(files1.size(), 2u);
  EXPECT_EQ(files1[0].version, 3);
  EXPECT_EQ(files1[1].index, 1);
  auto ids1 = Ids(*source, files1);
  EXPECT_EQ(std::set<int64_t>(ids1.begin(), ids1.end()), (std::set<int64_t>{6, 7}));
  ASSERT_OK_AND_ASSIGN(auto none, source->FilesBetween(end1, *end1));
  EXPECT_TRUE(none.empty());
}

TEST_F(DeltaSourceTest, ProjectsTheColumnsAskedFor) {
  Append({{1, "a"}});
  ASSERT_OK_AND_ASSIGN(auto source,
                       DeltaSource::Open(Local(), root_, {}, ScanOptions{.columns = {"p"}}));
  ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
  ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(std::nullopt, *end));
  ASSERT_EQ(files.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto batch, source->ReadFile(*files[0].add));
  EXPECT_EQ(source->schema().num_fields(), 1);
  EXPECT_EQ(testing::JsonRows(batch), std::vector<std::string>{R"({"p":"a"})"});
}

TEST_F(DeltaSourceTest, MaxFilesPerTriggerSplitsVersionsAndResumesMidVersion) {
  Append({{1, "a"}, {2, "b"}, {3, "c"}});
  Append({{4, "a"}, {5, "b"}});
  auto source = Open({{"maxFilesPerTrigger", "2"}});
  const auto limit = source->DefaultReadLimit();
  EXPECT_EQ(limit.max_files, 2);

  std::vector<Offset> ends;
  std::vector<std::string> paths;
  std::optional<Offset> start;
  for (int batch = 0; batch < 3; ++batch) {
    ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(start, limit));
    ASSERT_TRUE(end);
    ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(start, *end));
    EXPECT_EQ(files.size(), batch < 2 ? 2u : 1u);
    for (auto& p : PathsOf(files)) paths.push_back(p);
    ends.push_back(*end);
    start = end;
  }
  EXPECT_EQ(ends[0], MakeOffset(Id(), 2, 1, true));
  EXPECT_EQ(ends[1], MakeOffset(Id(), 2, 3, true));
  // The last file of the snapshot is followed by its end: the offset moves to version 3.
  EXPECT_EQ(ends[2], MakeOffset(Id(), 3, Offset::kBaseIndex, false));
  EXPECT_EQ(std::set<std::string>(paths.begin(), paths.end()).size(), 5u);
  ASSERT_OK_AND_ASSIGN(auto idle, source->LatestOffset(start, limit));
  EXPECT_EQ(idle, start);

  // A commit of three files: two now, then the third.
  Append({{6, "a"}, {7, "b"}, {8, "c"}});
  ASSERT_OK_AND_ASSIGN(auto mid, source->LatestOffset(start, limit));
  EXPECT_EQ(mid, MakeOffset(Id(), 3, 1, false));
  EXPECT_EQ(mid->ToJson(), R"({"sourceVersion":1,"reservoirId":")" + Id() +
                               R"(","reservoirVersion":3,"index":1,"isStartingVersion":false})");
  ASSERT_OK_AND_ASSIGN(auto first_two, source->FilesBetween(start, *mid));

  // Restart: a new source resumes from the offset JSON of the checkpoint.
  auto restarted = Open({{"maxFilesPerTrigger", "2"}});
  ASSERT_OK_AND_ASSIGN(auto resumed, restarted->ParseOffset(mid->ToJson()));
  ASSERT_OK_AND_ASSIGN(auto next, restarted->LatestOffset(resumed, limit));
  EXPECT_EQ(next, MakeOffset(Id(), 4, Offset::kBaseIndex, false));
  ASSERT_OK_AND_ASSIGN(auto last, restarted->FilesBetween(resumed, *next));
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].index, 2);
  std::vector<std::string> commit3 = PathsOf(first_two);
  commit3.push_back(last[0].add->path);
  EXPECT_EQ(commit3, CommitAddPaths(3));
}

TEST_F(DeltaSourceTest, MaxBytesPerTriggerIsSoft) {
  Append({{1, "a"}, {2, "b"}, {3, "c"}});
  auto probe = Open();
  ASSERT_OK_AND_ASSIGN(auto all_end, probe->LatestOffset(std::nullopt, probe->DefaultReadLimit()));
  ASSERT_OK_AND_ASSIGN(auto all, probe->FilesBetween(std::nullopt, *all_end));
  ASSERT_EQ(all.size(), 3u);
  const int64_t two = all[0].add->size + all[1].add->size;

  // Exactly two files' bytes: the capacity is gone after the second file.
  auto source = Open({{"maxBytesPerTrigger", std::to_string(two)}});
  ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
  EXPECT_EQ(end, MakeOffset(Id(), 1, 1, true));
  // One byte less: the second file still goes in (capacity remained before it).
  auto less = Open({{"maxBytesPerTrigger", std::to_string(two - 1)}});
  ASSERT_OK_AND_ASSIGN(auto end_less, less->LatestOffset(std::nullopt, less->DefaultReadLimit()));
  EXPECT_EQ(end_less, MakeOffset(Id(), 1, 1, true));
  // One byte: one file per batch, never none.
  auto tiny = Open({{"maxBytesPerTrigger", "1"}});
  std::optional<Offset> start;
  for (int64_t i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(auto e, tiny->LatestOffset(start, tiny->DefaultReadLimit()));
    ASSERT_OK_AND_ASSIGN(auto files, tiny->FilesBetween(start, *e));
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].add->path, all[i].add->path);
    start = e;
  }
  // Both limits: the tighter one wins.
  auto both = Open({{"maxBytesPerTrigger", "1g"}, {"maxFilesPerTrigger", "1"}});
  ASSERT_OK_AND_ASSIGN(auto one, both->LatestOffset(std::nullopt, both->DefaultReadLimit()));
  EXPECT_EQ(one, MakeOffset(Id(), 1, 0, true));
  // Trigger.Once reads everything.
  ASSERT_OK_AND_ASSIGN(auto everything,
                       both->LatestOffset(std::nullopt, DeltaReadLimit::AllAvailable()));
  EXPECT_EQ(everything, MakeOffset(Id(), 2, Offset::kBaseIndex, false));
}

// Delta's "Rate limited Delta source advances with non-data inserts": positions that are not
// files never count against the limit, so commits without adds after the last admitted file are
// passed over in the same batch.
TEST_F(DeltaSourceTest, CommitsWithoutFilesDoNotCountAgainstTheLimit) {
  Append({{1, "a"}});
  for (int i = 0; i < 2; ++i) {
    Metadata metadata = table_->snapshot()->metadata();
    metadata.configuration["round"] = std::to_string(i);
    Transaction txn(table_->snapshot());
    txn.SetMetadata(metadata);
    ASSERT_OK(txn.Commit().status());
    Refresh();
  }
  auto source = Open({{"maxFilesPerTrigger", "1"}, {"startingVersion", "1"}});
  ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
  EXPECT_EQ(end, MakeOffset(Id(), 4, Offset::kBaseIndex, false));
  ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(std::nullopt, *end));
  EXPECT_EQ(Ids(*source, files), (std::vector<int64_t>{1}));
}

TEST_F(DeltaSourceTest, OffsetsAndBatchesAreStableWhileTheTableGrows) {
  Append({{1, "a"}, {2, "b"}, {3, "c"}});
  auto source = Open({{"maxFilesPerTrigger", "2"}});
  const auto limit = source->DefaultReadLimit();
  ASSERT_OK_AND_ASSIGN(auto e1, source->LatestOffset(std::nullopt, limit));
  ASSERT_OK_AND_ASSIGN(auto e2, source->LatestOffset(e1, limit));
  ASSERT_OK_AND_ASSIGN(auto e2_same, source->LatestOffset(e1, limit));
  EXPECT_EQ(e2_same, e2);
  EXPECT_EQ(e2, MakeOffset(Id(), 2, Offset::kBaseIndex, false));
  ASSERT_OK_AND_ASSIGN(auto batch2, source->FilesBetween(e1, *e2));
  ASSERT_OK_AND_ASSIGN(auto batch1, source->FilesBetween(std::nullopt, *e1));

  Append({{4, "a"}, {5, "b"}});
  Append({{6, "c"}});
  ASSERT_OK_AND_ASSIGN(auto e1_again, source->LatestOffset(std::nullopt, limit));
  EXPECT_EQ(e1_again, e1);
  // Planning again from e1 now sees version 2 (the capacity left after the snapshot's last file
  // takes a file of it): a different table state, a different end, as in Delta. The logged range
  // (e1, e2] does not change.
  ASSERT_OK_AND_ASSIGN(auto e2_later, source->LatestOffset(e1, limit));
  EXPECT_EQ(e2_later, MakeOffset(Id(), 2, 0, false));
  ASSERT_OK_AND_ASSIGN(auto batch2_again, source->FilesBetween(e1, *e2));
  EXPECT_EQ(PathsOf(batch2_again), PathsOf(batch2));
  // A re-run of batch 0 after a restart: the source now opens at a newer version but the
  // logged end offset still names the snapshot it was planned on.
  auto restarted = Open({{"maxFilesPerTrigger", "2"}});
  ASSERT_OK_AND_ASSIGN(auto batch1_again, restarted->FilesBetween(std::nullopt, *e1));
  EXPECT_EQ(PathsOf(batch1_again), PathsOf(batch1));
  ASSERT_OK_AND_ASSIGN(auto batch2_restarted, restarted->FilesBetween(e1, *e2));
  EXPECT_EQ(PathsOf(batch2_restarted), PathsOf(batch2));
}

TEST_F(DeltaSourceTest, StartingVersionAndLatest) {
  Append({{1, "a"}});
  Append({{2, "a"}});
  {
    auto source = Open({{"startingVersion", "1"}});
    ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
    EXPECT_EQ(end, MakeOffset(Id(), 3, Offset::kBaseIndex, false));
    ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(std::nullopt, *end));
    EXPECT_EQ(Ids(*source, files), (std::vector<int64_t>{1, 2}));
  }
  {
    auto source = Open({{"startingVersion", "2"}});
    ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
    ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(std::nullopt, *end));
    EXPECT_EQ(Ids(*source, files), (std::vector<int64_t>{2}));
  }
  {
    auto source = Open({{"startingVersion", "3"}});
    auto end = source->LatestOffset(std::nullopt, source->DefaultReadLimit());
    ASSERT_STATUS_CODE(kNotFound, end);
    EXPECT_THAT(end.status().message(),
                HasSubstr("Cannot time travel Delta table to version 3. Available versions: "
                          "[0, 2]."));
  }
  {
    auto source = Open({{"startingVersion", "latest"}});
    ASSERT_OK_AND_ASSIGN(auto nothing,
                         source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
    EXPECT_FALSE(nothing);
    Append({{3, "a"}});
    ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
    ASSERT_TRUE(end);
    ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(std::nullopt, *end));
    EXPECT_EQ(Ids(*source, files), (std::vector<int64_t>{3}));
  }
}

void SetMtime(const std::string& path, int64_t ms) {
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = ms / 1000;
  times[0].tv_nsec = times[1].tv_nsec = (ms % 1000) * 1000000;
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

TEST_F(DeltaSourceTest, StartingTimestampPicksTheFirstCommitAtOrAfterIt) {
  Append({{1, "a"}});
  Append({{2, "a"}});
  Append({{3, "a"}});
  const int64_t t0 = 1594795800000;  // 2020-07-15 06:50:00 UTC
  const int64_t minute = 60000;
  const std::string log = LogDirPath(root_);
  SetMtime(log + "/" + CommitFileName(0), t0 - 60 * minute);
  SetMtime(log + "/" + CommitFileName(1), t0);
  SetMtime(log + "/" + CommitFileName(2), t0 + 20 * minute);
  SetMtime(log + "/" + CommitFileName(3), t0 + 40 * minute);

  for (const auto& [ts, first_id] : std::vector<std::pair<std::string, int64_t>>{
           {"2020-07-15 06:40:00", 1},
           {"2020-07-15 06:50:00", 1},  // exactly version 1's time
           {"2020-07-15 06:50:00.001", 2},
           {"2020-07-15T07:10:00Z", 2},
           {"2020-07-15 07:10:01", 3},
           {"2020-07-15 09:30:00+02:00", 3},
           {"2020-07-15 07:30:00", 3}}) {
    auto source = Open({{"startingTimestamp", ts}});
    ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
    ASSERT_TRUE(end) << ts;
    ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(std::nullopt, *end));
    ASSERT_FALSE(files.empty()) << ts;
    EXPECT_EQ(Ids(*source, files).front(), first_id) << ts;
  }
  auto late = Open({{"startingTimestamp", "2020-07-15 07:30:01"}});
  auto late_end = late->LatestOffset(std::nullopt, late->DefaultReadLimit());
  ASSERT_STATUS_CODE(kInvalidArgument, late_end);
  EXPECT_THAT(late_end.status().message(),
              HasSubstr("The provided timestamp (2020-07-15 07:30:01.0) is after the latest "
                        "version available to this table (2020-07-15 07:30:00.0). Please use a "
                        "timestamp before or at 2020-07-15 07:30:00."));
  auto bad = Open({{"startingTimestamp", "i am not a timestamp"}});
  EXPECT_THAT(bad->LatestOffset(std::nullopt, bad->DefaultReadLimit()).status().message(),
              HasSubstr("The provided timestamp ('i am not a timestamp') cannot be converted to a "
                        "valid timestamp."));
}

// Rewrites every file of the table into one (dataChange=false), like OPTIMIZE.
void Compact(Table* table) {
  auto snapshot = table->snapshot();
  auto rows = testing::SortedRows(snapshot).ValueOrDie();
  auto batch = BatchFromJson(snapshot->schema(), rows).ValueOrDie();
  DataWriterOptions options;
  options.data_change = false;
  auto writer = DataFileWriter::Open(*snapshot, options).ValueOrDie();
  ASSERT_OK(writer->Write(batch));
  auto adds = writer->Finish().ValueOrDie();
  Transaction txn(snapshot);
  for (const auto& [key, add] : snapshot->files()) ASSERT_OK(txn.RemoveLiveFile(add->path, false));
  txn.AddFiles(adds);
  txn.MarkReadWholeTable();
  txn.SetOperation("OPTIMIZE", {});
  ASSERT_OK(txn.Commit().status());
  ASSERT_OK(table->Refresh().status());
}

TEST_F(DeltaSourceTest, OptimizeCommitsAreSkippedSilently) {
  Append({{1, "a"}});
  Append({{2, "a"}});
  auto source = Open();
  ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
  Compact(table_.get());
  ASSERT_OK_AND_ASSIGN(auto after, source->LatestOffset(end, source->DefaultReadLimit()));
  EXPECT_EQ(after, MakeOffset(Id(), 4, Offset::kBaseIndex, false));
  ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(end, *after));
  EXPECT_TRUE(files.empty());
  Append({{3, "b"}});
  ASSERT_OK_AND_ASSIGN(auto next, source->LatestOffset(after, source->DefaultReadLimit()));
  ASSERT_OK_AND_ASSIGN(auto new_files, source->FilesBetween(after, *next));
  EXPECT_EQ(Ids(*source, new_files), (std::vector<int64_t>{3}));
}

std::string FileOfPartition(const Snapshot& snapshot, const std::string& p) {
  for (const auto& [k, add] : snapshot.files()) {
    if (add->partition_values.at("p") == p) return add->path;
  }
  return "";
}

TEST_F(DeltaSourceTest, DeletesFailUnlessIgnoredOrSkipped) {
  Append({{1, "a"}, {2, "b"}});
  const std::map<std::string, std::string> no_options;
  std::vector<std::map<std::string, std::string>> variants = {no_options,
                                                              {{"ignoreDeletes", "true"}},
                                                              {{"skipChangeCommits", "true"}},
                                                              {{"ignoreChanges", "true"}}};
  std::vector<std::unique_ptr<DeltaSource>> sources;
  std::vector<std::optional<Offset>> ends;
  for (const auto& options : variants) {
    sources.push_back(Open(options));
    ASSERT_OK_AND_ASSIGN(
        auto end, sources.back()->LatestOffset(std::nullopt, sources.back()->DefaultReadLimit()));
    ends.push_back(end);
  }
  // DELETE WHERE p = 'a': the whole partition's file goes.
  const std::string removed = FileOfPartition(*table_->snapshot(), "a");
  Transaction txn(table_->snapshot());
  ASSERT_OK(txn.RemoveLiveFile(removed, /*data_change=*/true));
  txn.SetOperation("DELETE", {{"predicate", "[\"(p = 'a')\"]"}});
  ASSERT_OK(txn.Commit().status());

  auto failed = sources[0]->LatestOffset(ends[0], sources[0]->DefaultReadLimit());
  ASSERT_STATUS_CODE(kInvalidArgument, failed);
  EXPECT_THAT(
      failed.status().message(),
      HasSubstr("[DELTA_SOURCE_IGNORE_DELETE] Detected deleted data (for example " + removed +
                ") from streaming source at version 2. This is currently not supported. "
                "If you'd like to ignore deletes, set the option 'ignoreDeletes' to "
                "'true'. The source table can be found at path " +
                root_ + "."));
  for (size_t i = 1; i < sources.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(auto end,
                         sources[i]->LatestOffset(ends[i], sources[i]->DefaultReadLimit()));
    EXPECT_EQ(end, MakeOffset(Id(), 3, Offset::kBaseIndex, false));
    ASSERT_OK_AND_ASSIGN(auto files, sources[i]->FilesBetween(ends[i], *end));
    EXPECT_TRUE(files.empty());
  }
}

TEST_F(DeltaSourceTest, UpdatesFailUnlessSkippedOrIgnored) {
  Append({{1, "a"}, {2, "b"}});
  std::vector<std::map<std::string, std::string>> variants = {{},
                                                              {{"ignoreDeletes", "true"}},
                                                              {{"skipChangeCommits", "true"}},
                                                              {{"ignoreChanges", "true"}}};
  std::vector<std::unique_ptr<DeltaSource>> sources;
  std::vector<std::optional<Offset>> ends;
  for (const auto& options : variants) {
    sources.push_back(Open(options));
    ASSERT_OK_AND_ASSIGN(
        auto end, sources.back()->LatestOffset(std::nullopt, sources.back()->DefaultReadLimit()));
    ends.push_back(end);
  }
  // UPDATE SET id = 10 WHERE id = 1: the file of partition a is rewritten.
  auto snapshot = table_->snapshot();
  auto writer = DataFileWriter::Open(*snapshot).ValueOrDie();
  ASSERT_OK(writer->Write(BatchFromJson(Ddl(kDdl), {R"({"id":10,"p":"a"})"}).ValueOrDie()));
  auto adds = writer->Finish().ValueOrDie();
  Transaction txn(snapshot);
  ASSERT_OK(txn.RemoveLiveFile(FileOfPartition(*snapshot, "a"), true));
  txn.AddFiles(adds);
  txn.SetOperation("UPDATE", {{"predicate", "id = 1"}});
  ASSERT_OK(txn.Commit().status());

  for (size_t i = 0; i < 2; ++i) {  // no option, or ignoreDeletes only
    auto failed = sources[i]->LatestOffset(ends[i], sources[i]->DefaultReadLimit());
    ASSERT_STATUS_CODE(kInvalidArgument, failed);
    EXPECT_THAT(failed.status().message(),
                HasSubstr("[DELTA_SOURCE_TABLE_IGNORE_CHANGES] Detected a data update (for "
                          "example UPDATE (Map(predicate -> id = 1))) in the source table at "
                          "version 2. This is currently not supported. If you'd like to ignore "
                          "updates, set the option 'skipChangeCommits' to 'true'."));
  }
  ASSERT_OK_AND_ASSIGN(auto skip_end,
                       sources[2]->LatestOffset(ends[2], sources[2]->DefaultReadLimit()));
  ASSERT_OK_AND_ASSIGN(auto skipped, sources[2]->FilesBetween(ends[2], *skip_end));
  EXPECT_TRUE(skipped.empty());
  ASSERT_OK_AND_ASSIGN(auto re_end,
                       sources[3]->LatestOffset(ends[3], sources[3]->DefaultReadLimit()));
  ASSERT_OK_AND_ASSIGN(auto reemitted, sources[3]->FilesBetween(ends[3], *re_end));
  EXPECT_EQ(Ids(*sources[3], reemitted), (std::vector<int64_t>{10}));
}

void ChangeSchema(Table* table, const std::string& ddl) {
  auto snapshot = table->snapshot();
  Metadata metadata = snapshot->metadata();
  metadata.schema_string = columnar::SchemaToDeltaJson(Ddl(ddl));
  Transaction txn(snapshot);
  txn.SetMetadata(metadata);
  txn.SetOperation("ADD COLUMNS", {});
  ASSERT_OK(txn.Commit().status());
  ASSERT_OK(table->Refresh().status());
}

TEST_F(DeltaSourceTest, SchemaChangesStopTheStreamUntilItRestarts) {
  Append({{1, "a"}});
  auto source = Open();
  auto with_start = Open({{"startingVersion", "0"}});
  ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
  ASSERT_OK_AND_ASSIGN(auto end_v,
                       with_start->LatestOffset(std::nullopt, source->DefaultReadLimit()));

  // A property-only metadata change is no schema change.
  {
    Metadata metadata = table_->snapshot()->metadata();
    metadata.configuration["owner"] = "team-a";
    Transaction txn(table_->snapshot());
    txn.SetMetadata(metadata);
    ASSERT_OK(txn.Commit().status());
    Refresh();
  }
  ASSERT_OK_AND_ASSIGN(auto end2, source->LatestOffset(end, source->DefaultReadLimit()));
  EXPECT_EQ(end2, MakeOffset(Id(), 3, Offset::kBaseIndex, false));

  ChangeSchema(table_.get(), "id BIGINT, p STRING, extra STRING");  // version 3, additive
  auto failed = source->LatestOffset(end2, source->DefaultReadLimit());
  ASSERT_STATUS_CODE(kInvalidArgument, failed);
  EXPECT_THAT(failed.status().message(),
              HasSubstr("[DELTA_SCHEMA_CHANGED_WITH_VERSION] Detected schema change in version 3: "
                        "streaming source schema: STRUCT<id BIGINT, p STRING> data file schema: "
                        "STRUCT<id BIGINT, p STRING, extra STRING> Please try restarting the "
                        "query."));
  auto failed_v = with_start->LatestOffset(end_v, source->DefaultReadLimit());
  EXPECT_THAT(failed_v.status().message(),
              HasSubstr("[DELTA_SCHEMA_CHANGED_WITH_STARTING_OPTIONS] Detected schema change in "
                        "version 3"));
  EXPECT_THAT(failed_v.status().message(),
              HasSubstr("start from a version newer than 3 with a new checkpoint directory."));

  // The restarted query reads with the new schema and goes on.
  auto restarted = Open();
  ASSERT_OK_AND_ASSIGN(auto resumed, restarted->LatestOffset(end2, restarted->DefaultReadLimit()));
  EXPECT_EQ(resumed, MakeOffset(Id(), 4, Offset::kBaseIndex, false));
  ASSERT_OK_AND_ASSIGN(auto more, Table::Open(Local(), root_));
  auto batch =
      BatchFromJson(more->snapshot()->schema(), {R"({"id":2,"p":"a","extra":"x"})"}).ValueOrDie();
  ASSERT_OK(more->Append({batch}).status());
  ASSERT_OK_AND_ASSIGN(auto after, restarted->LatestOffset(resumed, restarted->DefaultReadLimit()));
  ASSERT_OK_AND_ASSIGN(auto files, restarted->FilesBetween(resumed, *after));
  ASSERT_EQ(files.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto rows, restarted->ReadFile(*files[0].add));
  EXPECT_EQ(testing::JsonRows(rows), std::vector<std::string>{R"({"id":2,"p":"a","extra":"x"})"});

  // A type change is not compatible either way.
  ChangeSchema(more.get(), "id STRING, p STRING, extra STRING");
  auto type_change = restarted->LatestOffset(after, restarted->DefaultReadLimit());
  ASSERT_STATUS_CODE(kInvalidArgument, type_change);
  EXPECT_THAT(type_change.status().message(), HasSubstr("Detected schema change in version 5"));
}

TEST_F(DeltaSourceTest, OffsetsOfAnotherTableAreRefused) {
  Append({{1, "a"}});
  auto source = Open();
  ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
  const std::string checkpointed = end->ToJson();
  const std::string old_id = Id();

  // The table is dropped and re-created at the same path: a new table id.
  stdfs::remove_all(root_);
  ASSERT_OK_AND_ASSIGN(table_, Table::Create(Local(), root_, Ddl(kDdl), {"p"}));
  Append({{2, "a"}});
  auto recreated = Open();
  auto parsed = recreated->ParseOffset(checkpointed);
  ASSERT_STATUS_CODE(kInvalidArgument, parsed);
  EXPECT_THAT(parsed.status().message(),
              HasSubstr("[DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE] The streaming query was "
                        "reading from an unexpected Delta table (id = '" +
                        Id() + "'). It used to read from another Delta table (id = '" + old_id +
                        "') according to checkpoint."));
  EXPECT_THAT(parsed.status().message(), HasSubstr("delete your streaming query checkpoint"));
  ASSERT_STATUS_CODE(kInvalidArgument,
                     recreated->LatestOffset(*end, recreated->DefaultReadLimit()));
  ASSERT_STATUS_CODE(kInvalidArgument, recreated->FilesBetween(std::nullopt, *end));
}

TEST_F(DeltaSourceTest, CleanedUpLogIsDataLossUnlessAllowed) {
  Append({{1, "a"}});
  Append({{2, "a"}});
  Append({{3, "a"}});
  ASSERT_OK(table_->Checkpoint().status());
  Append({{4, "a"}});
  for (int v = 0; v <= 2; ++v) stdfs::remove(LogDirPath(root_) + "/" + CommitFileName(v));

  auto source = Open();
  const auto limit = source->DefaultReadLimit();
  auto gap = source->LatestOffset(MakeOffset(Id(), 1, Offset::kBaseIndex, false), limit);
  ASSERT_STATUS_CODE(kDataLoss, gap);
  EXPECT_THAT(gap.status().message(),
              HasSubstr("[DELTA_MISSING_FILES_UNEXPECTED_VERSION] The stream from your Delta "
                        "table was expecting process data from version 1, but the earliest "
                        "available version in the _delta_log directory is 3."));
  EXPECT_THAT(gap.status().message(), HasSubstr(R"(.option("failOnDataLoss", "false"))"));

  // An initial snapshot that can no longer be rebuilt.
  auto snapshot_gone = source->FilesBetween(MakeOffset(Id(), 1, 0, true),
                                            MakeOffset(Id(), 5, Offset::kBaseIndex, false));
  ASSERT_STATUS_CODE(kDataLoss, snapshot_gone);
  EXPECT_THAT(snapshot_gone.status().message(),
              HasSubstr("[DELTA_LOG_FILE_NOT_FOUND_FOR_STREAMING_SOURCE]"));
  EXPECT_THAT(snapshot_gone.status().message(),
              HasSubstr("If you never deleted it, it's likely your query is lagging behind."));

  auto lenient = Open({{"failOnDataLoss", "false"}});
  ASSERT_OK_AND_ASSIGN(auto end,
                       lenient->LatestOffset(MakeOffset(Id(), 1, Offset::kBaseIndex, false),
                                             lenient->DefaultReadLimit()));
  ASSERT_OK_AND_ASSIGN(auto files,
                       lenient->FilesBetween(MakeOffset(Id(), 1, Offset::kBaseIndex, false), *end));
  EXPECT_EQ(Ids(*lenient, files), (std::vector<int64_t>{3, 4}));

  auto too_old = Open({{"startingVersion", "1"}});
  EXPECT_THAT(
      too_old->LatestOffset(std::nullopt, limit).status().message(),
      HasSubstr("Cannot time travel Delta table to version 1. Available versions: [3, 4]."));
}

TEST_F(DeltaSourceTest, AvailableNowStopsAtTheLatestOffsetSeenAtStart) {
  Append({{1, "a"}, {2, "b"}, {3, "c"}});
  auto source = Open({{"maxFilesPerTrigger", "1"}});
  source->PrepareForTriggerAvailableNow();
  std::optional<Offset> start;
  ASSERT_OK_AND_ASSIGN(start, source->LatestOffset(start, source->DefaultReadLimit()));
  EXPECT_EQ(start, MakeOffset(Id(), 1, 0, true));
  EXPECT_EQ(source->available_now_end(), MakeOffset(Id(), 2, Offset::kBaseIndex, false));
  Append({{4, "a"}});  // after the run started: not part of it
  int batches = 1;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(start, source->DefaultReadLimit()));
    if (end == start) break;
    ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(start, *end));
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].version, 1);
    start = end;
    ++batches;
    ASSERT_LT(batches, 10);
  }
  EXPECT_EQ(batches, 3);
  EXPECT_EQ(start, MakeOffset(Id(), 2, Offset::kBaseIndex, false));
}

// Hand-written logs: exact modification times and column mapping.
void WriteCommit(const std::string& root, int64_t version, const std::vector<Action>& actions) {
  ASSERT_OK(Local()->CreateDirs(LogDirPath(root)));
  ASSERT_OK(fs::WriteStringToFile(Local(), LogDirPath(root) + "/" + CommitFileName(version),
                                  SerializeActions(actions)));
}

AddFile HandAdd(const std::string& path, int64_t mtime) {
  AddFile add;
  add.path = path;
  add.size = 10;
  add.modification_time = mtime;
  return add;
}

Metadata HandMetadata(const std::string& schema_json, StringMap configuration = {}) {
  Metadata m;
  m.id = "11111111-2222-3333-4444-555555555555";
  m.schema_string = schema_json;
  m.configuration = std::move(configuration);
  return m;
}

TEST(DeltaSourceOrderTest, SnapshotByModificationTimeThenPathCommitsInCommitOrder) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  const std::string schema = columnar::SchemaToDeltaJson(Ddl("id BIGINT"));
  WriteCommit(root, 0,
              {Protocol{}, HandMetadata(schema), HandAdd("b.parquet", 100),
               HandAdd("a.parquet", 200), HandAdd("c.parquet", 100)});
  ASSERT_OK_AND_ASSIGN(auto source, DeltaSource::Open(Local(), root));
  ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
  ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(std::nullopt, *end));
  EXPECT_EQ(PathsOf(files), (std::vector<std::string>{"b.parquet", "c.parquet", "a.parquet"}));

  AddFile not_data = HandAdd("x.parquet", 1);
  not_data.data_change = false;
  WriteCommit(root, 1, {HandAdd("z.parquet", 300), not_data, HandAdd("y.parquet", 50)});
  ASSERT_OK_AND_ASSIGN(auto end1, source->LatestOffset(end, source->DefaultReadLimit()));
  ASSERT_OK_AND_ASSIGN(auto changes, source->FilesBetween(end, *end1));
  EXPECT_EQ(PathsOf(changes), (std::vector<std::string>{"z.parquet", "y.parquet"}));
  EXPECT_EQ(changes[1].index, 1);
}

std::string MappedSchema(const std::string& name) {
  return R"({"type":"struct","fields":[{"name":")" + name +
         R"(","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-1"}}]})";
}

TEST(DeltaSourceOrderTest, ColumnMappingRenameIsAnIncompatibleSchemaChange) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  StringMap mapping = {{"delta.columnMapping.mode", "name"},
                       {"delta.columnMapping.maxColumnId", "1"}};
  Protocol protocol;
  protocol.min_reader_version = 2;
  protocol.min_writer_version = 5;
  WriteCommit(root, 0, {protocol, HandMetadata(MappedSchema("a"), mapping)});
  ASSERT_OK_AND_ASSIGN(auto source, DeltaSource::Open(Local(), root));
  ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
  WriteCommit(root, 1, {HandMetadata(MappedSchema("b"), mapping)});  // RENAME COLUMN a TO b
  auto renamed = source->LatestOffset(end, source->DefaultReadLimit());
  ASSERT_STATUS_CODE(kInvalidArgument, renamed);
  EXPECT_THAT(renamed.status().message(),
              HasSubstr("[DELTA_STREAMING_INCOMPATIBLE_SCHEMA_CHANGE] Streaming read is not "
                        "supported on tables with read-incompatible schema changes"));
}

// ------------------------------------------------------------------------------------------------
// Tables written by Spark ($WEIR_CONFORMANCE_DIR)

TEST(DeltaSourceConformanceTest, Delta020HistoryTable) {
  WEIR_REQUIRE_CONFORMANCE(root, "spark-checkpoints/delta-spark/delta/history/delta-0.2.0");
  // Default start: the snapshot at version 3 (two files of the overwrite, one streamed file).
  ASSERT_OK_AND_ASSIGN(auto source, DeltaSource::Open(Local(), root));
  ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
  EXPECT_EQ(
      end->ToJson(),
      R"({"sourceVersion":1,"reservoirId":"22ef18ba-191c-4c36-a606-3dad5cdf3830","reservoirVersion":4,"index":-1,"isStartingVersion":false})");
  ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(std::nullopt, *end));
  EXPECT_EQ(PathsOf(files),
            (std::vector<std::string>{
                "part-00000-7c2deba3-1994-4fb8-bc07-d46c948aa415-c000.snappy.parquet",
                "part-00001-c373a5bd-85f0-4758-815e-7eb62007a15c-c000.snappy.parquet",
                "part-00000-cb6b150b-30b8-4662-ad28-ff32ddab96d2-c000.snappy.parquet"}));
  std::vector<std::string> streamed;
  for (const auto& f : files) {
    ASSERT_OK_AND_ASSIGN(auto batch, source->ReadFile(*f.add));
    for (auto& r : testing::JsonRows(batch)) streamed.push_back(r);
  }
  std::sort(streamed.begin(), streamed.end());
  ASSERT_OK_AND_ASSIGN(auto table_rows, testing::SortedRows(source->snapshot_at_start()));
  EXPECT_EQ(streamed, table_rows);

  // From version 0, the overwrite at version 2 is an update.
  auto from0 = DeltaSourceOptions::FromMap({{"startingVersion", "0"}}).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto changes, DeltaSource::Open(Local(), root, from0));
  auto failed = changes->LatestOffset(std::nullopt, changes->DefaultReadLimit());
  ASSERT_STATUS_CODE(kInvalidArgument, failed);
  EXPECT_THAT(failed.status().message(),
              HasSubstr("Detected a data update (for example WRITE (Map(mode -> Overwrite, "
                        "partitionBy -> []))) in the source table at version 2."));

  auto skipping =
      DeltaSourceOptions::FromMap(
          {{"startingVersion", "0"}, {"skipChangeCommits", "true"}, {"maxFilesPerTrigger", "3"}})
          .ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto skip_source, DeltaSource::Open(Local(), root, skipping));
  std::optional<Offset> start;
  std::vector<int64_t> versions;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto e, skip_source->LatestOffset(start, skip_source->DefaultReadLimit()));
    if (!e || e == start) break;
    ASSERT_OK_AND_ASSIGN(auto batch, skip_source->FilesBetween(start, *e));
    for (const auto& f : batch) versions.push_back(f.version);
    start = e;
  }
  EXPECT_EQ(versions, (std::vector<int64_t>{0, 0, 1, 1, 3}));
  EXPECT_EQ(start,
            MakeOffset("22ef18ba-191c-4c36-a606-3dad5cdf3830", 4, Offset::kBaseIndex, false));
}

TEST(DeltaSourceConformanceTest, DatTables) {
  WEIR_REQUIRE_CONFORMANCE(dat, "delta/dat");
  // basic_append: two appends streamed from version 0 give the table's five rows.
  auto from0 = DeltaSourceOptions::FromMap({{"startingVersion", "0"}}).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto source, DeltaSource::Open(Local(), dat + "/basic_append/delta", from0));
  ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, source->DefaultReadLimit()));
  EXPECT_EQ(end, MakeOffset("74d2b6a1-9cfa-4a4e-b8e2-2a6279b80853", 2, Offset::kBaseIndex, false));
  ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(std::nullopt, *end));
  ASSERT_EQ(files.size(), 2u);
  std::vector<std::string> streamed;
  for (const auto& f : files) {
    ASSERT_OK_AND_ASSIGN(auto batch, source->ReadFile(*f.add));
    for (auto& r : testing::JsonRows(batch)) streamed.push_back(r);
  }
  std::sort(streamed.begin(), streamed.end());
  ASSERT_OK_AND_ASSIGN(auto rows, testing::SortedRows(source->snapshot_at_start()));
  EXPECT_EQ(streamed, rows);
  EXPECT_EQ(rows.size(), 5u);

  // no_replay: commits 0 and 1 were cleaned up behind the checkpoint at version 2.
  ASSERT_OK_AND_ASSIGN(auto cleaned, DeltaSource::Open(Local(), dat + "/no_replay/delta", from0));
  EXPECT_THAT(
      cleaned->LatestOffset(std::nullopt, cleaned->DefaultReadLimit()).status().message(),
      HasSubstr("Cannot time travel Delta table to version 0. Available versions: [2, 3]."));
  ASSERT_OK_AND_ASSIGN(auto resuming, DeltaSource::Open(Local(), dat + "/no_replay/delta"));
  auto gap = resuming->LatestOffset(MakeOffset(resuming->table_id(), 1, Offset::kBaseIndex, false),
                                    resuming->DefaultReadLimit());
  ASSERT_STATUS_CODE(kDataLoss, gap);
  EXPECT_THAT(gap.status().message(), HasSubstr("expecting process data from version 1, but the "
                                                "earliest available version in the _delta_log "
                                                "directory is 2."));
}

}  // namespace
}  // namespace weir::delta
