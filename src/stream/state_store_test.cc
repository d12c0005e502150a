#include "stream/state_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <thread>

#include "base/testing.h"
#include "fs/fault_injection_file_system.h"
#include "fs/local_file_system.h"

namespace weir::stream {
namespace {

namespace stdfs = std::filesystem;
using Keyspace = StateStore::Keyspace;

// prefix + decimal i (built without operator+, which trips GCC 12's -Wrestrict false positive).
std::string Key(std::string_view prefix, int64_t i) {
  std::string key(prefix);
  key.append(std::to_string(i));
  return key;
}

class StateStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/weir-state-XXXXXX";
    root_ = mkdtemp(tmpl);
    dir_ = StateStoreDir(root_ + "/cp", 0);
  }
  void TearDown() override { stdfs::remove_all(root_); }

  Result<std::unique_ptr<StateStore>> OpenAt(int64_t version, StateStoreOptions options = {}) {
    return StateStore::Open(&fs_, dir_, version, std::move(options));
  }
  // Every row of the rows keyspace.
  static std::map<std::string, std::string> Contents(StateStore& store,
                                                     Keyspace keyspace = Keyspace::kRows) {
    std::map<std::string, std::string> out;
    auto cursor = store.Scan(keyspace).ValueOrDie();
    for (; cursor->Valid(); cursor->Next()) out[std::string(cursor->key())] = cursor->value();
    EXPECT_OK(cursor->status());
    return out;
  }
  // One random update of the rows keyspace and its model: a key prefix + [0, key_range), removed
  // one time in remove_one_in, else set to a value naming the step.
  static void RandomUpdate(StateStore& store, std::map<std::string, std::string>* model,
                           std::mt19937_64& random, std::string_view prefix, uint64_t key_range,
                           uint64_t remove_one_in, int step) {
    std::string key = Key(prefix, static_cast<int64_t>(random() % key_range));
    if (random() % remove_one_in == 0) {
      ASSERT_OK(store.Remove(key));
      model->erase(key);
    } else {
      std::string value = Key("value-", step);
      ASSERT_OK(store.Put(key, value));
      (*model)[key] = value;
    }
  }
  std::string VersionDir(int64_t v) const { return dir_ + "/" + std::to_string(v); }
  // The name of one SST file of version v.
  std::string AnySst(int64_t v) const {
    for (const auto& e : stdfs::directory_iterator(VersionDir(v))) {
      if (e.path().extension() == ".sst") return e.path().string();
    }
    return "";
  }

  fs::LocalFileSystem fs_;
  std::string root_;
  std::string dir_;
};

TEST_F(StateStoreTest, DirFollowsSparksOperatorPartitionLayout) {
  EXPECT_EQ(StateStoreDir("/lake/_checkpoints/t", 3), "/lake/_checkpoints/t/state/3/0");
}

TEST_F(StateStoreTest, CommittedUpdatesAreVisibleAfterReopen) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
    EXPECT_EQ(store->version(), -1);
    ASSERT_OK(store->Put("a", "1"));
    ASSERT_OK(store->Put("b", "2"));
    ASSERT_OK_AND_ASSIGN(auto got, store->Get("a"));
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, "1");
    ASSERT_OK(store->Commit(0));
    EXPECT_EQ(store->version(), 0);
  }
  EXPECT_TRUE(stdfs::exists(VersionDir(0) + "/weir-state.json"));
  EXPECT_FALSE(stdfs::exists(dir_ + "/_work"));  // the working copy goes with the store
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(0));
  EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(store->metrics().num_rows_total, 2);
  ASSERT_OK_AND_ASSIGN(auto missing, store->Get("c"));
  EXPECT_FALSE(missing.has_value());
}

TEST_F(StateStoreTest, UncommittedUpdatesVanishWhenTheStoreIsDropped) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
    ASSERT_OK(store->Put("a", "1"));
    ASSERT_OK(store->Commit(0));
    ASSERT_OK(store->Put("b", "2"));
    ASSERT_OK(store->Remove("a"));
    // A crash before Commit(1): the store goes away with its updates.
  }
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(0));
  EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{{"a", "1"}}));
  EXPECT_EQ(store->metrics().num_rows_total, 1);
  ASSERT_OK_AND_ASSIGN(auto versions, StateStore::ListVersions(&fs_, dir_));
  EXPECT_EQ(versions, std::vector<int64_t>{0});
}

TEST_F(StateStoreTest, UpdatesFlushedToSstButUncommittedStillVanish) {
  StateStoreOptions small;
  small.write_buffer_bytes = 64 << 10;  // forces memtable flushes into the working database
  small.pending_bytes = 1 << 20;        // and SST files ingested into it
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1, small));
    ASSERT_OK(store->Put("keep", "v"));
    ASSERT_OK(store->Commit(0));
    uint64_t seed = 42;
    std::string value(1000, ' ');
    for (int i = 0; i < 5000; ++i) {  // 5 MB: several batches reach the memtable
      for (char& c : value) {         // incompressible bytes, so the SST files really are large
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        c = static_cast<char>(seed >> 56);
      }
      ASSERT_OK(store->Put(Key("k", i), value));
    }
    // Memtable flushes run in the background: wait until one has written an SST file.
    for (int i = 0; i < 500 && store->metrics().sst_file_bytes < 100000; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_GT(store->metrics().sst_file_bytes, 100000);
  }
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(0, small));
  EXPECT_EQ(Contents(*store).size(), 1u);
  EXPECT_EQ(store->metrics().num_rows_total, 1);
}

// Full buffers of updates are written to RocksDB on another thread while the next buffer fills:
// lookups see every update meanwhile (the newest of a key winning), and the written state is
// the model's. Small buffers: write batches (a few KB) and ingested files (256 KiB and up).
TEST_F(StateStoreTest, UpdatesBeingWrittenInTheBackgroundStayVisible) {
  for (size_t pending_bytes : {size_t{8} << 10, size_t{300} << 10}) {
    SCOPED_TRACE(pending_bytes);
    TearDown();
    SetUp();
    StateStoreOptions options;
    options.pending_bytes = pending_bytes;
    std::map<std::string, std::string> model;
    std::map<std::string, std::string> committed;
    std::mt19937_64 random(pending_bytes);
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1, options));
    for (int step = 0; step < 40000; ++step) {
      std::string key = Key("key-", static_cast<int64_t>(random() % 5000));
      const uint64_t action = random() % 10;
      if (action < 6) {
        std::string value = Key(std::string(random() % 64, 'v'), step);
        ASSERT_OK(store->Put(key, value));
        model[key] = value;
      } else if (action < 8) {
        ASSERT_OK(store->Remove(key));
        model.erase(key);
      } else {
        ASSERT_OK_AND_ASSIGN(std::optional<std::string> got, store->Get(key));
        auto it = model.find(key);
        ASSERT_EQ(got.has_value(), it != model.end()) << key << " step " << step;
        if (got) {
          ASSERT_EQ(*got, it->second) << key << " step " << step;
        }
        ASSERT_OK_AND_ASSIGN(bool present, store->Contains(key));
        ASSERT_EQ(present, it != model.end()) << key << " step " << step;
      }
      ASSERT_EQ(store->metrics().num_rows_total, static_cast<int64_t>(model.size()));
      if (step == 20000) {
        ASSERT_EQ(Contents(*store), model);
        ASSERT_OK(store->Commit(0));
        committed = model;
      }
    }
    // The updates since the commit, some on their way to RocksDB, are dropped by Abort.
    ASSERT_OK(store->Put("aborted", std::string(pending_bytes, 'x')));
    ASSERT_OK(store->Abort());
    EXPECT_EQ(Contents(*store), committed);
    EXPECT_EQ(store->metrics().num_rows_total, static_cast<int64_t>(committed.size()));
  }
}

// The state written from background buffers equals the model after a commit and a reopen.
TEST_F(StateStoreTest, StateWrittenInTheBackgroundSurvivesAReopen) {
  StateStoreOptions options;
  options.pending_bytes = size_t{300} << 10;
  std::map<std::string, std::string> model;
  std::mt19937_64 random(3);
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1, options));
    for (int step = 0; step < 60000; ++step) {
      ASSERT_NO_FATAL_FAILURE(RandomUpdate(*store, &model, random, "key-", 20000, 4, step));
    }
    ASSERT_OK(store->Commit(0));
  }
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(0, options));
  EXPECT_EQ(Contents(*store), model);
  EXPECT_EQ(store->metrics().num_rows_total, static_cast<int64_t>(model.size()));
}

TEST_F(StateStoreTest, AbortReturnsToTheLoadedVersion) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
  ASSERT_OK(store->Put("a", "1"));
  ASSERT_OK(store->Commit(0));
  ASSERT_OK(store->Put("b", "2"));
  ASSERT_OK(store->Remove("a"));
  ASSERT_OK(store->Abort());
  EXPECT_EQ(store->version(), 0);
  EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{{"a", "1"}}));
  EXPECT_EQ(store->metrics().num_rows_total, 1);
  ASSERT_OK(store->Put("c", "3"));
  ASSERT_OK(store->Commit(1));
  EXPECT_EQ(Contents(*store).size(), 2u);
}

TEST_F(StateStoreTest, AbortOfAFreshStoreEmptiesIt) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
  ASSERT_OK(store->Put("a", "1"));
  ASSERT_OK(store->Abort());
  EXPECT_TRUE(Contents(*store).empty());
  EXPECT_EQ(store->metrics().num_rows_total, 0);
}

TEST_F(StateStoreTest, RerunOfAnUncommittedBatchReplacesItsVersion) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
    ASSERT_OK(store->Put("a", "1"));
    ASSERT_OK(store->Commit(0));
    ASSERT_OK(store->Put("first-attempt", "x"));
    ASSERT_OK(store->Commit(1));  // ... and the engine crashed before writing commits/1
  }
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(0));
    EXPECT_EQ(Contents(*store).size(), 1u);
    ASSERT_OK(store->Put("second-attempt", "y"));
    ASSERT_OK(store->Commit(1));
  }
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(1));
  EXPECT_EQ(Contents(*store),
            (std::map<std::string, std::string>{{"a", "1"}, {"second-attempt", "y"}}));
}

TEST_F(StateStoreTest, RowCountIsExact) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
  ASSERT_OK(store->Put("a", "1"));
  ASSERT_OK(store->Put("a", "2"));  // replaces
  ASSERT_OK(store->Put("b", "1"));
  ASSERT_OK(store->Remove("zzz"));                   // absent: nothing
  ASSERT_OK(store->Put("x", "", Keyspace::kIndex));  // not a row
  StateStoreMetrics m = store->metrics();
  EXPECT_EQ(m.num_rows_total, 2);
  EXPECT_EQ(m.num_rows_updated, 3);
  EXPECT_EQ(m.num_rows_removed, 0);
  ASSERT_OK(store->Remove("a"));
  ASSERT_OK(store->Remove("a"));
  m = store->metrics();
  EXPECT_EQ(m.num_rows_total, 1);
  EXPECT_EQ(m.num_rows_removed, 1);
  ASSERT_OK(store->Commit(0));
  m = store->metrics();
  EXPECT_EQ(m.num_rows_updated, 0);  // counters restart with the next batch
  EXPECT_EQ(m.num_rows_total, 1);
  EXPECT_GE(m.commit_time_ms, 0);
  EXPECT_GT(m.memory_used_bytes, 0);
}

TEST_F(StateStoreTest, KeyspacesAreSeparateAndScansAreOrderedAndBounded) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
  for (std::string k : {"d", "a", "c", "b", "e"}) ASSERT_OK(store->Put(k, "row-" + k));
  ASSERT_OK(store->Put("b", "idx", Keyspace::kIndex));
  ASSERT_OK(store->Put(std::string("\xff\xff", 2), "top", Keyspace::kIndex));
  std::vector<std::string> keys;
  ASSERT_OK_AND_ASSIGN(auto cursor, store->Scan(Keyspace::kRows, "b", std::string_view("e")));
  for (; cursor->Valid(); cursor->Next()) keys.emplace_back(cursor->key());
  EXPECT_EQ(keys, (std::vector<std::string>{"b", "c", "d"}));
  EXPECT_EQ(Contents(*store).size(), 5u);
  EXPECT_EQ(
      Contents(*store, Keyspace::kIndex),
      (std::map<std::string, std::string>{{"b", "idx"}, {std::string("\xff\xff", 2), "top"}}));
  ASSERT_OK_AND_ASSIGN(auto got, store->Get("b", Keyspace::kIndex));
  EXPECT_EQ(*got, "idx");
  ASSERT_OK(store->Remove("b", Keyspace::kIndex));
  ASSERT_OK_AND_ASSIGN(bool still_a_row, store->Contains("b"));
  EXPECT_TRUE(still_a_row);
  EXPECT_EQ(store->metrics().num_rows_total, 5);
}

TEST_F(StateStoreTest, ScanSeesTheStoreAsOfItsCreation) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
  for (std::string k : {"a", "b", "c"}) ASSERT_OK(store->Put(k, ""));
  ASSERT_OK_AND_ASSIGN(auto cursor, store->Scan(Keyspace::kRows));
  int seen = 0;
  for (; cursor->Valid(); cursor->Next()) {
    ASSERT_OK(store->Remove(cursor->key()));  // eviction removes while it scans
    std::string moved = "z";
    moved.append(cursor->key());
    ASSERT_OK(store->Put(moved, ""));
    ++seen;
  }
  EXPECT_EQ(seen, 3);
  EXPECT_EQ(store->metrics().num_rows_total, 3);
  EXPECT_EQ(Contents(*store).begin()->first, "za");
}

TEST_F(StateStoreTest, RetentionKeepsTheLastNVersions) {
  StateStoreOptions options;
  options.versions_to_retain = 3;
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1, options));
  for (int v = 0; v < 10; ++v) {
    ASSERT_OK(store->Put(Key("k", v), ""));
    ASSERT_OK(store->Commit(v));
  }
  ASSERT_OK_AND_ASSIGN(auto versions, StateStore::ListVersions(&fs_, dir_));
  EXPECT_EQ(versions, (std::vector<int64_t>{7, 8, 9}));
  store.reset();
  ASSERT_OK_AND_ASSIGN(auto at7, OpenAt(7, options));
  EXPECT_EQ(at7->metrics().num_rows_total, 8);
  at7.reset();
  ASSERT_STATUS_CODE(kCorruption, OpenAt(6, options));
}

TEST_F(StateStoreTest, DefaultRetentionIsSparksHundredBatches) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
  for (int v = 0; v < 103; ++v) ASSERT_OK(store->Commit(v));
  ASSERT_OK_AND_ASSIGN(auto versions, StateStore::ListVersions(&fs_, dir_));
  ASSERT_EQ(versions.size(), 100u);
  EXPECT_EQ(versions.front(), 3);
  EXPECT_EQ(versions.back(), 102);
}

TEST_F(StateStoreTest, VersionsOfAnAbandonedRunAreDeletedOnCommit) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
    for (int v = 0; v < 6; ++v) ASSERT_OK(store->Commit(v));
  }
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(2));
  ASSERT_OK(store->Commit(3));
  ASSERT_OK_AND_ASSIGN(auto versions, StateStore::ListVersions(&fs_, dir_));
  EXPECT_EQ(versions, (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST_F(StateStoreTest, CommitMustMoveForward) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
  ASSERT_OK(store->Commit(4));
  ASSERT_STATUS_CODE(kInvalidArgument, store->Commit(4));
  ASSERT_STATUS_CODE(kInvalidArgument, OpenAt(-2));
}

// A commit's large write-out (one ingested SST file of both keyspaces, removals among the
// updates) keeps every update of both keyspaces, and leaves no ingest file behind.
TEST_F(StateStoreTest, ALargeWriteOutKeepsEveryUpdate) {
  std::map<std::string, std::string> rows, index;
  std::mt19937_64 random(5);
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
    ASSERT_OK(store->Put("old", "1"));
    ASSERT_OK(store->Commit(0));
    rows["old"] = "1";
    for (int i = 0; i < 40000; ++i) {
      ASSERT_NO_FATAL_FAILURE(RandomUpdate(*store, &rows, random, "row-", 30000, 5, i));
      std::string index_key = Key("ix-", i);
      ASSERT_OK(store->Put(index_key, "", Keyspace::kIndex));
      index[index_key] = "";
    }
    ASSERT_OK(store->Remove("old"));
    rows.erase("old");
    ASSERT_OK(store->Commit(1));
    EXPECT_EQ(Contents(*store), rows);
  }
  for (const auto& e : stdfs::directory_iterator(dir_)) {
    EXPECT_FALSE(e.path().filename().string().starts_with(".tmp-ingest")) << e.path();
  }
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(1));
  EXPECT_EQ(Contents(*store), rows);
  EXPECT_EQ(Contents(*store, Keyspace::kIndex), index);
  EXPECT_EQ(store->metrics().num_rows_total, static_cast<int64_t>(rows.size()));
}

// A commit whose own updates are large while a background write-out is still to be joined
// builds its file meanwhile and ingests it after: the keys both hold end with the newer
// updates (values and removals), also after a reopen.
TEST_F(StateStoreTest, CommitWriteOutOverlappingABackgroundOneKeepsTheNewerUpdates) {
  StateStoreOptions options;
  options.pending_bytes = size_t{600} << 10;
  // The background write-out waits until the commit has started its own file (at most 20 s),
  // then long enough for it to be finished, so that file is ready first and must still be
  // ingested last.
  std::atomic<bool> overlapped = false;
  const std::string last_file = dir_ + "/.tmp-ingest-last.sst";
  options.before_background_write = [&] {
    for (int i = 0; i < 2000 && !overlapped; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (stdfs::exists(last_file)) overlapped = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  };
  std::map<std::string, std::string> model;
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1, options));
    // ~110 bytes an update: the background write-out starts at ~5,600 puts and holds keys
    // 0..5,599, the rest (~45 KiB) stay pending.
    for (int i = 0; i < 6000; ++i) {
      std::string key = Key("key-", 10000 + i);
      ASSERT_OK(store->Put(key, std::string(100, 'a')));
      model[key] = std::string(100, 'a');
    }
    // ~550 KiB more pending (over kIngestMinBytes, under pending_bytes): newer updates of keys the
    // write-out holds.
    for (int i = 0; i < 5000; ++i) {
      std::string key = Key("key-", 10000 + i);
      if (i % 7 == 0) {
        ASSERT_OK(store->Remove(key));
        model.erase(key);
      } else {
        ASSERT_OK(store->Put(key, std::string(101, 'b')));
        model[key] = std::string(101, 'b');
      }
    }
    ASSERT_OK(store->Commit(0));
    EXPECT_TRUE(overlapped);  // the commit took the overlapping path
    EXPECT_EQ(Contents(*store), model);
    EXPECT_EQ(store->metrics().num_rows_total, static_cast<int64_t>(model.size()));
  }
  for (const auto& e : stdfs::directory_iterator(dir_)) {
    EXPECT_FALSE(e.path().filename().string().starts_with(".tmp-ingest")) << e.path();
  }
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(0, options));
  EXPECT_EQ(Contents(*store), model);
}

TEST_F(StateStoreTest, CrashLeftoversAreCleanedOnOpen) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
    ASSERT_OK(store->Put("a", "1"));
    ASSERT_OK(store->Commit(0));
  }
  // A half-written version (crash inside Commit) and a stale working database.
  stdfs::create_directories(dir_ + "/.tmp-1");
  stdfs::create_directories(dir_ + "/.tmp-1.tmp");
  stdfs::create_directories(dir_ + "/_work");
  std::FILE* f = std::fopen((dir_ + "/_work/CURRENT").c_str(), "w");
  std::fputs("garbage\n", f);
  std::fclose(f);
  for (const char* name : {"/.tmp-ingest.sst", "/.tmp-ingest-last.sst"}) {
    f = std::fopen((dir_ + name).c_str(), "w");
    std::fclose(f);
  }
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(0));
  EXPECT_FALSE(stdfs::exists(dir_ + "/.tmp-ingest.sst"));
  EXPECT_FALSE(stdfs::exists(dir_ + "/.tmp-ingest-last.sst"));
  EXPECT_FALSE(stdfs::exists(dir_ + "/.tmp-1"));
  EXPECT_FALSE(stdfs::exists(dir_ + "/.tmp-1.tmp"));
  EXPECT_EQ(Contents(*store).size(), 1u);
  ASSERT_OK(store->Commit(1));
}

TEST_F(StateStoreTest, SecondOpenOfTheSameFolderIsRefused) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
  auto second = OpenAt(-1);
  ASSERT_STATUS_CODE(kIOError, second);
  EXPECT_NE(second.status().message().find("Another query"), std::string::npos);
  ASSERT_OK(store->Put("a", "1"));  // the first store is untouched
  ASSERT_OK(store->Commit(0));
}

TEST_F(StateStoreTest, SchemaChangeIsRefused) {
  StateStoreOptions a;
  a.schema = "dedupe keys=(STRING)";
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1, a));
    ASSERT_OK(store->Commit(0));
  }
  StateStoreOptions b;
  b.schema = "dedupe keys=(BIGINT)";
  auto reopened = OpenAt(0, b);
  ASSERT_STATUS_CODE(kInvalidArgument, reopened);
  EXPECT_NE(reopened.status().message().find("dedupe keys=(STRING)"), std::string::npos);
  EXPECT_NE(reopened.status().message().find("dedupe keys=(BIGINT)"), std::string::npos);
  ASSERT_OK(OpenAt(0, a).status());
}

// ---- Corruption: each case of docs/state-format.md.

class StateStoreCorruptionTest : public StateStoreTest {
 protected:
  void SetUp() override {
    StateStoreTest::SetUp();
    StateStoreOptions small;
    ASSERT_OK_AND_ASSIGN(auto store, OpenAt(-1));
    for (int i = 0; i < 1000; ++i) ASSERT_OK(store->Put(Key("key", i), "value"));
    ASSERT_OK(store->Commit(0));
  }
  void ExpectCorruptionNamingVersion0() {
    auto opened = OpenAt(0);
    ASSERT_STATUS_CODE(kCorruption, opened);
    EXPECT_NE(opened.status().message().find(VersionDir(0)), std::string::npos)
        << opened.status().ToString();
  }
  void Overwrite(const std::string& path, const std::string& content) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr) << path;
    std::fwrite(content.data(), 1, content.size(), f);
    std::fclose(f);
  }
  std::string FileStartingWith(const std::string& prefix) {
    for (const auto& e : stdfs::directory_iterator(VersionDir(0))) {
      if (e.path().filename().string().starts_with(prefix)) return e.path().string();
    }
    return "";
  }
};

TEST_F(StateStoreCorruptionTest, MissingVersionFolder) {
  stdfs::remove_all(VersionDir(0));
  auto opened = OpenAt(0);
  ASSERT_STATUS_CODE(kCorruption, opened);
  EXPECT_NE(opened.status().message().find("State version 0 is missing: " + VersionDir(0)),
            std::string::npos)
      << opened.status().ToString();
}

TEST_F(StateStoreCorruptionTest, MissingMarkerMeansIncomplete) {
  stdfs::remove(VersionDir(0) + "/weir-state.json");
  ExpectCorruptionNamingVersion0();
}

TEST_F(StateStoreCorruptionTest, GarbledMarker) {
  Overwrite(VersionDir(0) + "/weir-state.json", "{\"formatVersion\":1,\"vers");
  ExpectCorruptionNamingVersion0();
  Overwrite(VersionDir(0) + "/weir-state.json",
            "{\"formatVersion\":1,\"version\":0,\"numRows\":\"many\",\"schema\":\"\"}");
  ExpectCorruptionNamingVersion0();
}

TEST_F(StateStoreCorruptionTest, MarkerOfAnotherVersion) {
  Overwrite(VersionDir(0) + "/weir-state.json",
            "{\"formatVersion\":1,\"version\":7,\"numRows\":1000,\"schema\":\"\"}");
  ExpectCorruptionNamingVersion0();
}

TEST_F(StateStoreCorruptionTest, NewerFormatVersion) {
  Overwrite(VersionDir(0) + "/weir-state.json",
            "{\"formatVersion\":2,\"version\":0,\"numRows\":1000,\"schema\":\"\"}");
  auto opened = OpenAt(0);
  ASSERT_STATUS_CODE(kCorruption, opened);
  EXPECT_NE(opened.status().message().find("newer weir"), std::string::npos);
}

TEST_F(StateStoreCorruptionTest, GarbledCurrent) {
  Overwrite(VersionDir(0) + "/CURRENT", "MANIFEST-999999\n");
  ExpectCorruptionNamingVersion0();
}

TEST_F(StateStoreCorruptionTest, GarbledManifest) {
  std::string manifest = FileStartingWith("MANIFEST-");
  ASSERT_FALSE(manifest.empty());
  Overwrite(manifest, std::string(200, '\x5a'));
  ExpectCorruptionNamingVersion0();
}

TEST_F(StateStoreCorruptionTest, MissingSst) {
  std::string sst = AnySst(0);
  ASSERT_FALSE(sst.empty());
  stdfs::remove(sst);
  ExpectCorruptionNamingVersion0();
}

TEST_F(StateStoreCorruptionTest, TruncatedSst) {
  std::string sst = AnySst(0);
  ASSERT_FALSE(sst.empty());
  stdfs::resize_file(sst, stdfs::file_size(sst) / 2);
  ExpectCorruptionNamingVersion0();
}

// ---- Crash safety with injected faults (fs/fault_injection_file_system.h's crash model).

TEST_F(StateStoreTest, LostRenameOnCrashLeavesThePreviousVersionUsable) {
  fs::FaultInjectionFileSystem faulty(&fs_);
  {
    ASSERT_OK_AND_ASSIGN(auto store, StateStore::Open(&faulty, dir_, -1));
    ASSERT_OK(store->Put("a", "1"));
    ASSERT_OK(store->Commit(0));
    ASSERT_OK(store->Put("b", "2"));
    faulty.FailNthCall(fs::FileOp::kSyncDir, 1);  // the folder sync after the rename to "1"
    ASSERT_STATUS_CODE(kIOError, store->Commit(1));
  }
  ASSERT_OK(faulty.SimulateCrash());  // the rename was never made durable: it is undone
  faulty.Reset();
  ASSERT_STATUS_CODE(kCorruption, StateStore::Open(&faulty, dir_, 1));
  ASSERT_OK_AND_ASSIGN(auto store, StateStore::Open(&faulty, dir_, 0));
  EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{{"a", "1"}}));
  // The batch re-runs and commits version 1 again.
  ASSERT_OK(store->Put("b", "2"));
  ASSERT_OK(store->Commit(1));
}

// Fails each file operation of Commit(1) in turn, then crashes: version 0 always opens with its
// state; version 1 either opens with exactly the new state or is reported as Corruption.
TEST_F(StateStoreTest, CommitIsAtomicAtEveryInjectedFault) {
  fs::FaultInjectionFileSystem faulty(&fs_);
  const std::map<std::string, std::string> old_state{{"a", "1"}, {"b", "2"}};
  const std::map<std::string, std::string> new_state{{"b", "3"}, {"c", "4"}};
  auto prepare = [&]() -> std::unique_ptr<StateStore> {
    stdfs::remove_all(root_);
    auto store = StateStore::Open(&faulty, dir_, -1).ValueOrDie();
    EXPECT_OK(store->Put("a", "1"));
    EXPECT_OK(store->Put("b", "2"));
    EXPECT_OK(store->Commit(0));
    EXPECT_OK(store->Remove("a"));
    EXPECT_OK(store->Put("b", "3"));
    EXPECT_OK(store->Put("c", "4"));
    return store;
  };
  // Count the calls a clean Commit makes.
  int64_t calls = 0;
  {
    auto store = prepare();
    faulty.ResetCounters();
    ASSERT_OK(store->Commit(1));
    calls = faulty.TotalCallCount();
  }
  ASSERT_GT(calls, 3);
  int committed_anyway = 0;
  for (int64_t k = 1; k <= calls; ++k) {
    SCOPED_TRACE("failing call " + std::to_string(k) + " of " + std::to_string(calls));
    faulty.Reset();
    {
      auto store = prepare();
      faulty.FailNthCallOfAnyKind(k);
      Status s = store->Commit(1);
      if (s.ok()) ++committed_anyway;  // e.g. a failed retention delete is reported... or not
    }
    ASSERT_OK(faulty.SimulateCrash());
    faulty.Reset();
    {
      ASSERT_OK_AND_ASSIGN(auto at0, StateStore::Open(&faulty, dir_, 0));
      EXPECT_EQ(Contents(*at0), old_state);
      EXPECT_EQ(at0->metrics().num_rows_total, 2);
    }
    auto at1 = StateStore::Open(&faulty, dir_, 1);
    if (at1.ok()) {
      EXPECT_EQ(Contents(**at1), new_state);
      EXPECT_EQ((*at1)->metrics().num_rows_total, 2);
    } else {
      EXPECT_TRUE(at1.status().IsCorruption()) << at1.status().ToString();
    }
  }
  EXPECT_LT(committed_anyway, calls);
}

// ---- Remote state: RocksDB in a local cache folder, committed versions copied to `dir` through
// the store's file system (here a local folder stands in for the object store).

class RemoteStateStoreTest : public StateStoreTest {
 protected:
  Result<std::unique_ptr<StateStore>> OpenRemote(int64_t version, const std::string& cache,
                                                 StateStoreOptions options = {}) {
    options.local_cache_dir = root_ + "/" + cache;
    return StateStore::Open(&fs_, dir_, version, std::move(options));
  }
  std::string CacheVersionDir(const std::string& cache, int64_t v) const {
    return root_ + "/" + cache + "/" + std::to_string(v);
  }
};

TEST_F(RemoteStateStoreTest, CommittedVersionsAreUploadedAndDownloadedIntoAnEmptyCache) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenRemote(-1, "cacheA"));
    EXPECT_EQ(store->dir(), dir_);
    EXPECT_EQ(store->local_dir(), root_ + "/cacheA");
    ASSERT_OK(store->Put("a", "1"));
    ASSERT_OK(store->Commit(0));
    ASSERT_OK(store->Put("b", "2"));
    ASSERT_OK(store->Commit(1));
  }
  // The remote folder holds complete versions: the marker, CURRENT, MANIFEST, OPTIONS, SSTs.
  EXPECT_TRUE(stdfs::exists(VersionDir(1) + "/weir-state.json"));
  EXPECT_TRUE(stdfs::exists(VersionDir(1) + "/CURRENT"));
  EXPECT_FALSE(AnySst(1).empty());
  EXPECT_FALSE(stdfs::exists(dir_ + "/_work"));
  EXPECT_FALSE(stdfs::exists(dir_ + "/LOCK"));  // RocksDB works in the cache only
  // Another machine (an empty cache) reads version 1 from the remote.
  ASSERT_OK_AND_ASSIGN(auto store, OpenRemote(1, "cacheB"));
  EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(store->metrics().num_rows_total, 2);
  EXPECT_TRUE(stdfs::exists(CacheVersionDir("cacheB", 1) + "/weir-state.json"));
  store.reset();
  ASSERT_OK_AND_ASSIGN(auto at0, OpenRemote(0, "cacheC"));
  EXPECT_EQ(Contents(*at0), (std::map<std::string, std::string>{{"a", "1"}}));
}

TEST_F(RemoteStateStoreTest, AMatchingCachedVersionIsNotDownloadedAgain) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenRemote(-1, "cache"));
    ASSERT_OK(store->Put("a", "1"));
    ASSERT_OK(store->Commit(0));
  }
  // Garble the remote SST without changing its size: a cache hit never reads it.
  std::string sst = AnySst(0);
  ASSERT_FALSE(sst.empty());
  auto size = stdfs::file_size(sst);
  {
    std::FILE* f = std::fopen(sst.c_str(), "r+b");
    std::string junk(size, 'x');
    std::fwrite(junk.data(), 1, junk.size(), f);
    std::fclose(f);
  }
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenRemote(0, "cache"));
    EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{{"a", "1"}}));
  }
  // An empty cache downloads it and finds the damage.
  ASSERT_STATUS_CODE(kCorruption, OpenRemote(0, "other-cache"));
}

TEST_F(RemoteStateStoreTest, AStaleCachedVersionIsReplacedByTheRemoteOne) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenRemote(-1, "cacheA"));
    ASSERT_OK(store->Put("a", "1"));
    ASSERT_OK(store->Commit(0));
    ASSERT_OK(store->Put("from-A", "x"));
    ASSERT_OK(store->Commit(1));
  }
  {
    // Another machine re-runs batch 1 from version 0 differently and commits it.
    ASSERT_OK_AND_ASSIGN(auto store, OpenRemote(0, "cacheB"));
    ASSERT_OK(store->Put("from-B", "y"));
    ASSERT_OK(store->Put("more-B", "z"));
    ASSERT_OK(store->Commit(1));
  }
  ASSERT_OK_AND_ASSIGN(auto store, OpenRemote(1, "cacheA"));
  EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{
                                  {"a", "1"}, {"from-B", "y"}, {"more-B", "z"}}));
  EXPECT_EQ(store->metrics().num_rows_total, 3);
}

TEST_F(RemoteStateStoreTest, MissingOrIncompleteRemoteVersionsAreCorruption) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenRemote(-1, "cache"));
    ASSERT_OK(store->Put("a", "1"));
    ASSERT_OK(store->Commit(0));
    ASSERT_OK(store->Commit(1));
  }
  auto missing = OpenRemote(5, "cache");
  ASSERT_STATUS_CODE(kCorruption, missing);
  EXPECT_NE(missing.status().message().find("is missing"), std::string::npos)
      << missing.status().ToString();
  // The cache still holds version 1, but the remote is the truth: without its marker version 1
  // is incomplete (an upload cut short).
  stdfs::remove(VersionDir(1) + "/weir-state.json");
  auto incomplete = OpenRemote(1, "cache");
  ASSERT_STATUS_CODE(kCorruption, incomplete);
  EXPECT_NE(incomplete.status().message().find("incomplete"), std::string::npos)
      << incomplete.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto at0, OpenRemote(0, "cache"));
  EXPECT_EQ(Contents(*at0).size(), 1u);
}

TEST_F(RemoteStateStoreTest, RetentionAppliesToTheRemoteAndTheCache) {
  StateStoreOptions options;
  options.versions_to_retain = 3;
  options.cached_versions_to_retain = 1;
  ASSERT_OK_AND_ASSIGN(auto store, OpenRemote(-1, "cache", options));
  for (int v = 0; v < 6; ++v) {
    ASSERT_OK(store->Put(Key("k", v), ""));
    ASSERT_OK(store->Commit(v));
  }
  ASSERT_OK_AND_ASSIGN(auto remote, StateStore::ListVersions(&fs_, dir_));
  EXPECT_EQ(remote, (std::vector<int64_t>{3, 4, 5}));
  ASSERT_OK_AND_ASSIGN(auto cached, StateStore::ListVersions(&fs_, root_ + "/cache"));
  EXPECT_EQ(cached, (std::vector<int64_t>{5}));
  // Abort reloads from the cache; the store keeps working.
  ASSERT_OK(store->Put("dropped", ""));
  ASSERT_OK(store->Abort());
  EXPECT_EQ(store->metrics().num_rows_total, 6);
}

TEST_F(RemoteStateStoreTest, AFailedUploadNeverLeavesAVersionThatReadsAsValidButWrong) {
  // Fail each remote call of Commit(1) in turn: the store stays at version 0, version 0 stays
  // readable, and version 1 is either complete and right or refused as incomplete/missing.
  fs::FaultInjectionFileSystem faulty(&fs_);
  int64_t failures = 0;
  for (int64_t k = 1; k <= 200; ++k) {
    SCOPED_TRACE("failing remote call " + std::to_string(k));
    stdfs::remove_all(root_);
    stdfs::create_directories(root_);
    faulty.Reset();
    StateStoreOptions options;
    options.local_cache_dir = root_ + "/cache";
    ASSERT_OK_AND_ASSIGN(auto store, StateStore::Open(&faulty, dir_, -1, options));
    ASSERT_OK(store->Put("a", "1"));
    ASSERT_OK(store->Commit(0));
    ASSERT_OK(store->Put("b", "2"));
    faulty.FailNthCallOfAnyKind(k);
    Status committed = store->Commit(1);
    faulty.Reset();
    if (committed.ok()) {
      EXPECT_EQ(store->version(), 1);
      store.reset();
      StateStoreOptions fresh;
      fresh.local_cache_dir = root_ + "/fresh";
      ASSERT_OK_AND_ASSIGN(auto at1, StateStore::Open(&fs_, dir_, 1, fresh));
      EXPECT_EQ(Contents(*at1), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
      break;  // k is past the last remote call
    }
    ++failures;
    EXPECT_EQ(store->version(), 0);
    ASSERT_OK(store->Abort());
    EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{{"a", "1"}}));
    store.reset();
    StateStoreOptions fresh;
    fresh.local_cache_dir = root_ + "/fresh";
    {
      ASSERT_OK_AND_ASSIGN(auto at0, StateStore::Open(&fs_, dir_, 0, fresh));
      EXPECT_EQ(Contents(*at0), (std::map<std::string, std::string>{{"a", "1"}}));
    }
    auto at1 = StateStore::Open(&fs_, dir_, 1, fresh);
    if (at1.ok()) {  // only when retention failed after a complete upload
      EXPECT_EQ(Contents(**at1), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
    } else {
      EXPECT_TRUE(at1.status().IsCorruption()) << at1.status().ToString();
    }
  }
  EXPECT_GE(failures, 5);  // the upload really was interrupted at several points
}

}  // namespace
}  // namespace weir::stream
