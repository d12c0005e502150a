#include "fs/fault_injection_file_system.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <thread>
#include <vector>

#include "base/testing.h"
#include "fs/local_file_system.h"

namespace weir::fs {
namespace {

class FaultInjectionFileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/weir-fault-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { EXPECT_OK(local_.DeleteDirRecursive(dir_)); }

  std::string Path(std::string_view name) const { return JoinPath(dir_, name); }

  // Reads through the real file system, as the machine would after a reboot.
  std::optional<std::string> OnDisk(const std::string& path) {
    Result<std::string> data = ReadFileToString(&local_, path);
    if (!data.ok()) {
      EXPECT_TRUE(data.status().IsNotFound()) << data.status().ToString();
      return std::nullopt;
    }
    return *data;
  }

  LocalFileSystem local_;
  std::string dir_;
};

// "name7": avoids GCC 12's false -Wrestrict warning on `"literal" + std::to_string(n)`.
std::string Numbered(std::string_view name, int64_t n) {
  std::string out(name);
  out += std::to_string(n);
  return out;
}

// A miniature commit protocol: write a data file durably, then publish it with put-if-absent.
Status WriteAndCommit(FileSystem* fs, const std::string& dir, const std::string& payload) {
  std::string data_path = JoinPath(dir, "part-0.parquet");
  WEIR_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, fs->OpenForWrite(data_path));
  WEIR_RETURN_NOT_OK(file->Append(payload.substr(0, payload.size() / 2)));
  WEIR_RETURN_NOT_OK(file->Append(payload.substr(payload.size() / 2)));
  WEIR_RETURN_NOT_OK(file->Sync());
  WEIR_RETURN_NOT_OK(file->Close());
  WEIR_RETURN_NOT_OK(fs->SyncDir(dir));
  return fs->PutIfAbsent(JoinPath(dir, "00000000000000000001.json"), "commit:" + payload);
}

TEST_F(FaultInjectionFileSystemTest, PassesCallsThroughAndCountsThem) {
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK(WriteAndCommit(&fs, dir_, "payload"));
  EXPECT_EQ(fs.CallCount(FileOp::kOpenWrite), 1);
  EXPECT_EQ(fs.CallCount(FileOp::kAppend), 2);
  EXPECT_EQ(fs.CallCount(FileOp::kSync), 1);
  EXPECT_EQ(fs.CallCount(FileOp::kClose), 1);
  EXPECT_EQ(fs.CallCount(FileOp::kSyncDir), 1);
  EXPECT_EQ(fs.CallCount(FileOp::kPutIfAbsent), 1);
  EXPECT_EQ(fs.TotalCallCount(), 7);
  EXPECT_EQ(OnDisk(Path("part-0.parquet")), "payload");

  ASSERT_OK_AND_ASSIGN(std::string commit,
                       ReadFileToString(&fs, Path("00000000000000000001.json")));
  EXPECT_EQ(commit, "commit:payload");
  EXPECT_EQ(fs.CallCount(FileOp::kOpenRead), 1);
  EXPECT_EQ(fs.CallCount(FileOp::kFileSize), 1);
  EXPECT_EQ(fs.CallCount(FileOp::kRead), 1);
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> list, fs.List(dir_));
  EXPECT_EQ(list.size(), 2u);
  ASSERT_STATUS_CODE(kAlreadyExists, fs.PutIfAbsent(Path("00000000000000000001.json"), "x"));
  EXPECT_EQ(fs.CallCount(FileOp::kPutIfAbsent), 2);
  EXPECT_EQ(fs.InjectedFailureCount(), 0);
  fs.ResetCounters();
  EXPECT_EQ(fs.TotalCallCount(), 0);
}

TEST_F(FaultInjectionFileSystemTest, FailsOnlyTheNthMatchingCall) {
  FaultInjectionFileSystem fs(&local_);
  fs.FailNthCall(FileOp::kAppend, 2);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<WritableFile> file, fs.OpenForWrite(Path("f")));
  ASSERT_OK(file->Append("one,"));
  Status status = file->Append("two,");
  ASSERT_STATUS_CODE(kIOError, status);
  EXPECT_NE(status.message().find("Input/output error"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("injected"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find(Path("f")), std::string::npos) << status.message();
  ASSERT_OK(file->Append("three"));
  ASSERT_OK(file->Close());
  EXPECT_EQ(OnDisk(Path("f")), "one,three");  // the failed append wrote nothing
  EXPECT_EQ(fs.CallCount(FileOp::kAppend), 3);
  EXPECT_EQ(fs.InjectedFailureCount(), 1);
}

TEST_F(FaultInjectionFileSystemTest, FailsEveryCallWithNoSpace) {
  FaultInjectionFileSystem fs(&local_);
  fs.FailEveryCall(FileOp::kPutIfAbsent, InjectedError::kENOSPC);
  for (int i = 0; i < 3; ++i) {
    Status status = fs.PutIfAbsent(Path(Numbered("c", i)), "x");
    ASSERT_STATUS_CODE(kIOError, status);
    EXPECT_NE(status.message().find("No space left on device"), std::string::npos)
        << status.message();
    EXPECT_EQ(status.message().find("Input/output error"), std::string::npos);
  }
  EXPECT_EQ(fs.InjectedFailureCount(), 3);
  EXPECT_EQ(OnDisk(Path("c0")), std::nullopt);  // a failed put-if-absent leaves nothing
  fs.ClearRules();
  ASSERT_OK(fs.PutIfAbsent(Path("c0"), "x"));
}

TEST_F(FaultInjectionFileSystemTest, PathFilterRestrictsARule) {
  FaultInjectionFileSystem fs(&local_);
  fs.FailEveryCall(FileOp::kOpenWrite, InjectedError::kEIO, "_delta_log");
  ASSERT_OK(fs.CreateDirs(Path("_delta_log")));
  ASSERT_OK(WriteStringToFile(&fs, Path("data.parquet"), "ok"));
  ASSERT_STATUS_CODE(kIOError, WriteStringToFile(&fs, Path("_delta_log/x.json"), "no"));
  // Renames match on either path.
  fs.FailEveryCall(FileOp::kRename, InjectedError::kEIO, "target");
  ASSERT_STATUS_CODE(kIOError, fs.Rename(Path("data.parquet"), Path("target")));
  EXPECT_EQ(OnDisk(Path("data.parquet")), "ok");
}

TEST_F(FaultInjectionFileSystemTest, RuleForAnyKindCountsFromWhenItWasAdded) {
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK(fs.CreateDirs(Path("d")));
  ASSERT_OK(fs.CreateDirs(Path("e")));
  fs.FailNthCallOfAnyKind(2);
  ASSERT_OK_AND_ASSIGN(bool exists, fs.Exists(Path("d")));  // call 1 after the rule
  EXPECT_TRUE(exists);
  ASSERT_STATUS_CODE(kIOError, fs.List(Path("d")));  // call 2 fails
  ASSERT_OK(fs.SyncDir(Path("d")));                  // call 3 passes
}

// The enumeration pattern: run once to count the calls, then fail each one in turn and check that
// the published commit is either absent or complete, before and after a crash.
TEST_F(FaultInjectionFileSystemTest, FailingEachStepNeverPublishesAPartialCommit) {
  const std::string payload(5000, 'p');
  int64_t steps = 0;
  {
    std::string run_dir = Path("count");
    ASSERT_OK(local_.CreateDirs(run_dir));
    FaultInjectionFileSystem fs(&local_);
    ASSERT_OK(WriteAndCommit(&fs, run_dir, payload));
    steps = fs.TotalCallCount();
  }
  ASSERT_EQ(steps, 7);
  for (int64_t k = 1; k <= steps; ++k) {
    for (InjectedError error : {InjectedError::kEIO, InjectedError::kENOSPC}) {
      SCOPED_TRACE(Numbered("failing call ", k));
      std::string run_dir =
          Path(Numbered("run-", k) + (error == InjectedError::kEIO ? "-eio" : "-enospc"));
      ASSERT_OK(local_.CreateDirs(run_dir));
      FaultInjectionFileSystem fs(&local_);
      fs.FailNthCallOfAnyKind(k, error);
      Status status = WriteAndCommit(&fs, run_dir, payload);
      ASSERT_STATUS_CODE(kIOError, status);
      EXPECT_EQ(fs.InjectedFailureCount(), 1);
      std::string commit_path = JoinPath(run_dir, "00000000000000000001.json");
      EXPECT_EQ(OnDisk(commit_path), std::nullopt);
      ASSERT_OK(fs.SimulateCrash());
      EXPECT_EQ(OnDisk(commit_path), std::nullopt);
      // Recovery: the same protocol succeeds after a reboot.
      fs.Reset();
      ASSERT_OK(WriteAndCommit(&fs, run_dir, payload));
      ASSERT_OK(fs.SimulateCrash());
      EXPECT_EQ(OnDisk(commit_path), "commit:" + payload);
      EXPECT_EQ(OnDisk(JoinPath(run_dir, "part-0.parquet")), payload);
    }
  }
}

TEST_F(FaultInjectionFileSystemTest, CrashDropsUnsyncedData) {
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<WritableFile> file, fs.OpenForWrite(Path("wal")));
  ASSERT_OK(file->Append("durable;"));
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Append("lost-after-close;"));
  ASSERT_OK(file->Close());
  ASSERT_OK(fs.SyncDir(dir_));
  EXPECT_EQ(OnDisk(Path("wal")), "durable;lost-after-close;");
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_TRUE(fs.crashed());
  EXPECT_EQ(OnDisk(Path("wal")), "durable;");
}

TEST_F(FaultInjectionFileSystemTest, CrashDropsBufferedDataOfOpenFiles) {
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<WritableFile> file, fs.OpenForWrite(Path("open")));
  ASSERT_OK(fs.SyncDir(dir_));
  ASSERT_OK(file->Append("synced"));
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Append("still in the buffer"));
  ASSERT_OK(fs.SimulateCrash());
  Status status = file->Append("more");
  ASSERT_STATUS_CODE(kIOError, status);
  EXPECT_NE(status.message().find("crashed"), std::string::npos) << status.message();
  ASSERT_STATUS_CODE(kIOError, file->Close());
  file.reset();  // must not write the buffer now
  EXPECT_EQ(OnDisk(Path("open")), "synced");
  fs.Reset();
}

TEST_F(FaultInjectionFileSystemTest, NewFileVanishesUnlessItsDirectoryWasSynced) {
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK(WriteStringToFile(&fs, Path("unsynced_dir"), "synced data", /*sync=*/true));
  ASSERT_OK(WriteStringToFile(&fs, Path("never_synced"), "data", /*sync=*/false));
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_EQ(OnDisk(Path("unsynced_dir")), std::nullopt);
  EXPECT_EQ(OnDisk(Path("never_synced")), std::nullopt);

  fs.Reset();
  ASSERT_OK(WriteStringToFile(&fs, Path("synced_dir"), "synced data", /*sync=*/true));
  ASSERT_OK(WriteStringToFile(&fs, Path("empty_after_crash"), "data", /*sync=*/false));
  ASSERT_OK(fs.SyncDir(dir_));
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_EQ(OnDisk(Path("synced_dir")), "synced data");
  EXPECT_EQ(OnDisk(Path("empty_after_crash")), "");
}

TEST_F(FaultInjectionFileSystemTest, OptionKeepsUnsyncedDirectoryEntries) {
  FaultInjectionFileSystem fs(&local_, {.drop_unsynced_directory_entries = false});
  ASSERT_OK(WriteStringToFile(&fs, Path("f"), "synced", /*sync=*/true));
  ASSERT_OK(WriteStringToFile(&fs, Path("g"), "unsynced", /*sync=*/false));
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_EQ(OnDisk(Path("f")), "synced");
  EXPECT_EQ(OnDisk(Path("g")), "");
}

TEST_F(FaultInjectionFileSystemTest, ExistingFileRewrittenWithoutSyncIsEmptyAfterCrash) {
  ASSERT_OK(WriteStringToFile(&local_, Path("old"), "old content"));
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK(WriteStringToFile(&fs, Path("old"), "new content", /*sync=*/false));
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_EQ(OnDisk(Path("old")), "");  // existed before, so its entry survives, truncated
}

TEST_F(FaultInjectionFileSystemTest, CallsFailAfterACrashUntilReset) {
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK(WriteStringToFile(&local_, Path("f"), "x"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RandomAccessFile> reader, fs.OpenForRead(Path("f")));
  const int64_t calls_before_crash = fs.TotalCallCount();
  ASSERT_OK(fs.SimulateCrash());
  ASSERT_STATUS_CODE(kIOError, fs.OpenForRead(Path("f")));
  ASSERT_STATUS_CODE(kIOError, fs.OpenForWrite(Path("g")));
  ASSERT_STATUS_CODE(kIOError, fs.PutIfAbsent(Path("g"), "x"));
  ASSERT_STATUS_CODE(kIOError, fs.List(dir_));
  ASSERT_STATUS_CODE(kIOError, fs.Exists(Path("f")));
  ASSERT_STATUS_CODE(kIOError, reader->Size());
  uint8_t byte;
  Status status = reader->ReadAt(0, 1, &byte);
  ASSERT_STATUS_CODE(kIOError, status);
  EXPECT_NE(status.message().find("Reset()"), std::string::npos) << status.message();
  EXPECT_EQ(fs.TotalCallCount(), calls_before_crash);  // refused calls are not counted
  fs.Reset();
  EXPECT_FALSE(fs.crashed());
  ASSERT_OK(reader->ReadAt(0, 1, &byte));
  EXPECT_EQ(byte, 'x');
  ASSERT_OK_AND_ASSIGN(bool exists, fs.Exists(Path("f")));
  EXPECT_TRUE(exists);
}

TEST_F(FaultInjectionFileSystemTest, PutIfAbsentAndWriteAtomicAreDurableAndAtomic) {
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK(fs.PutIfAbsent(Path("commit"), "complete commit"));
  ASSERT_OK(fs.WriteAtomic(Path("_last_checkpoint"), "v1"));
  ASSERT_OK(fs.WriteAtomic(Path("_last_checkpoint"), "v2"));
  fs.FailNthCall(FileOp::kWriteAtomic, 1);
  ASSERT_STATUS_CODE(kIOError, fs.WriteAtomic(Path("_last_checkpoint"), "v3"));
  fs.FailNthCall(FileOp::kPutIfAbsent, 1, InjectedError::kENOSPC);
  ASSERT_STATUS_CODE(kIOError, fs.PutIfAbsent(Path("commit2"), "never"));
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_EQ(OnDisk(Path("commit")), "complete commit");
  EXPECT_EQ(OnDisk(Path("_last_checkpoint")), "v2");
  EXPECT_EQ(OnDisk(Path("commit2")), std::nullopt);
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> list, local_.List(dir_));
  for (const FileInfo& info : list) EXPECT_FALSE(IsTempFileName(info.path)) << info.path;
}

TEST_F(FaultInjectionFileSystemTest, RenameWithoutDirectorySyncIsUndoneByACrash) {
  ASSERT_OK(WriteStringToFile(&local_, Path("target"), "old target"));
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK(WriteStringToFile(&fs, Path("tmp"), "new target", /*sync=*/true));
  ASSERT_OK(fs.SyncDir(dir_));
  ASSERT_OK(fs.Rename(Path("tmp"), Path("target")));
  EXPECT_EQ(OnDisk(Path("target")), "new target");
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_EQ(OnDisk(Path("target")), "old target");
  EXPECT_EQ(OnDisk(Path("tmp")), "new target");

  fs.Reset();
  ASSERT_OK(fs.Rename(Path("tmp"), Path("target")));
  ASSERT_OK(fs.SyncDir(dir_));
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_EQ(OnDisk(Path("target")), "new target");
  EXPECT_EQ(OnDisk(Path("tmp")), std::nullopt);
}

TEST_F(FaultInjectionFileSystemTest, TempFileRenamedBeforeItsCreationWasSyncedDisappears) {
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK(WriteStringToFile(&fs, Path("tmp"), "content", /*sync=*/true));
  ASSERT_OK(fs.RenameNoReplace(Path("tmp"), Path("final")));
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_EQ(OnDisk(Path("final")), std::nullopt);
  EXPECT_EQ(OnDisk(Path("tmp")), std::nullopt);
}

TEST_F(FaultInjectionFileSystemTest, DeletesAreDurableAtOnce) {
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK(WriteStringToFile(&fs, Path("f"), "x"));
  ASSERT_OK(fs.Delete(Path("f")));
  ASSERT_OK(fs.CreateDirs(Path("sub/dir")));
  ASSERT_OK(WriteStringToFile(&fs, Path("sub/dir/g"), "y"));
  ASSERT_OK(fs.DeleteDirRecursive(Path("sub")));
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_EQ(OnDisk(Path("f")), std::nullopt);
  ASSERT_OK_AND_ASSIGN(bool exists, local_.Exists(Path("sub")));
  EXPECT_FALSE(exists);
}

TEST_F(FaultInjectionFileSystemTest, InjectedSyncFailureLeavesDataUnsynced) {
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK(fs.SyncDir(dir_));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<WritableFile> file, fs.OpenForWrite(Path("f")));
  ASSERT_OK(fs.SyncDir(dir_));
  ASSERT_OK(file->Append("a"));
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Append("b"));
  fs.FailNthCall(FileOp::kSync, 1);
  ASSERT_STATUS_CODE(kIOError, file->Sync());
  fs.FailNthCall(FileOp::kClose, 1);
  ASSERT_STATUS_CODE(kIOError, file->Close());  // closed anyway; the data reached the OS
  EXPECT_EQ(OnDisk(Path("f")), "ab");
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_EQ(OnDisk(Path("f")), "a");
}

TEST_F(FaultInjectionFileSystemTest, IsSafeToUseFromSeveralThreads) {
  FaultInjectionFileSystem fs(&local_);
  constexpr int kThreads = 4;
  constexpr int kAppends = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string path = Path(Numbered("t", t));
      Result<std::unique_ptr<WritableFile>> file = fs.OpenForWrite(path);
      if (!file.ok()) return;
      for (int i = 0; i < kAppends; ++i) (void)(*file)->Append("0123456789");
      (void)(*file)->Sync();
      (void)(*file)->Close();
      (void)fs.PutIfAbsent(Path("race"), Numbered("winner ", t));
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(fs.CallCount(FileOp::kAppend), kThreads * kAppends);
  EXPECT_EQ(fs.CallCount(FileOp::kPutIfAbsent), kThreads);
  ASSERT_OK(fs.SyncDir(dir_));
  ASSERT_OK(fs.SimulateCrash());
  std::string expected;
  for (int i = 0; i < kAppends; ++i) expected += "0123456789";
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(OnDisk(Path(Numbered("t", t))), expected);
  std::optional<std::string> race = OnDisk(Path("race"));
  ASSERT_TRUE(race.has_value());
  EXPECT_TRUE(race->starts_with("winner "));
}

TEST_F(FaultInjectionFileSystemTest, TakeEffectThenFailCarriesOutTheCallAndReportsEio) {
  FaultInjectionFileSystem fs(&local_);
  fs.AddRule(FaultRule{.op = FileOp::kPutIfAbsent, .path_substring = {}, .mode = FaultMode::kTakeEffectThenFail});
  Status put = fs.PutIfAbsent(Path("commit.json"), "ours");
  EXPECT_TRUE(put.IsIOError()) << put.ToString();
  EXPECT_NE(put.message().find("took effect"), std::string::npos) << put.ToString();
  EXPECT_EQ(OnDisk(Path("commit.json")), "ours");  // it happened
  // The file is durable: a crash keeps it.
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_EQ(OnDisk(Path("commit.json")), "ours");
}

TEST_F(FaultInjectionFileSystemTest, TakeEffectThenFailOnEveryKindOfMutation) {
  ASSERT_OK(WriteStringToFile(&local_, Path("old"), "old"));
  FaultInjectionFileSystem fs(&local_);
  auto lie = [&](FileOp op) {
    fs.ClearRules();
    fs.AddRule(FaultRule{.op = op, .path_substring = {}, .mode = FaultMode::kTakeEffectThenFail});
  };
  lie(FileOp::kCreateDirs);
  EXPECT_TRUE(fs.CreateDirs(Path("d/e")).IsIOError());
  EXPECT_TRUE(*local_.Exists(Path("d/e")));
  lie(FileOp::kOpenWrite);
  EXPECT_TRUE(fs.OpenForWrite(Path("d/e/f")).status().IsIOError());
  EXPECT_TRUE(*local_.Exists(Path("d/e/f")));
  lie(FileOp::kAppend);
  ASSERT_OK_AND_ASSIGN(auto file, fs.OpenForWrite(Path("d/e/g")));
  EXPECT_TRUE(file->Append("abc").IsIOError());
  lie(FileOp::kSync);
  EXPECT_TRUE(file->Sync().IsIOError());
  EXPECT_EQ(OnDisk(Path("d/e/g")), "abc");  // appended and synced
  lie(FileOp::kClose);
  EXPECT_TRUE(file->Close().IsIOError());
  lie(FileOp::kRename);
  EXPECT_TRUE(fs.Rename(Path("d/e/g"), Path("d/e/h")).IsIOError());
  EXPECT_EQ(OnDisk(Path("d/e/h")), "abc");
  lie(FileOp::kSyncDir);
  EXPECT_TRUE(fs.SyncDir(Path("d/e")).IsIOError());
  lie(FileOp::kWriteAtomic);
  EXPECT_TRUE(fs.WriteAtomic(Path("hint"), "7").IsIOError());
  EXPECT_EQ(OnDisk(Path("hint")), "7");
  lie(FileOp::kDelete);
  EXPECT_TRUE(fs.Delete(Path("old")).IsIOError());
  EXPECT_EQ(OnDisk(Path("old")), std::nullopt);
  // The directory sync took effect too: the renamed file survives a crash.
  ASSERT_OK(fs.SimulateCrash());
  EXPECT_EQ(OnDisk(Path("d/e/h")), "abc");
}

TEST_F(FaultInjectionFileSystemTest, ReadsOfThePathFailForAWhileAfterALie) {
  FaultInjectionFileSystem fs(&local_);
  fs.AddRule(FaultRule{.op = FileOp::kPutIfAbsent, .path_substring = {},
                       .mode = FaultMode::kTakeEffectThenFail,
                       .then_fail_reads = 2});
  EXPECT_TRUE(fs.PutIfAbsent(Path("c"), "x").IsIOError());
  ASSERT_OK(WriteStringToFile(&local_, Path("other"), "y"));
  EXPECT_OK(ReadFileToString(&fs, Path("other")).status());  // other paths read fine
  EXPECT_TRUE(ReadFileToString(&fs, Path("c")).status().IsIOError());
  EXPECT_TRUE(fs.Exists(Path("c")).status().IsIOError());
  ASSERT_OK_AND_ASSIGN(std::string back, ReadFileToString(&fs, Path("c")));  // then it recovers
  EXPECT_EQ(back, "x");
}

TEST_F(FaultInjectionFileSystemTest, CrashAfterCarriesOutTheCallThenCrashes) {
  FaultInjectionFileSystem fs(&local_);
  ASSERT_OK(fs.CreateDirs(Path("sub")));
  ASSERT_OK_AND_ASSIGN(auto file, fs.OpenForWrite(Path("sub/data")));
  ASSERT_OK(file->Append("unsynced"));
  fs.AddRule(FaultRule{.op = FileOp::kPutIfAbsent, .path_substring = {}, .mode = FaultMode::kCrashAfter});
  EXPECT_OK(fs.PutIfAbsent(Path("commit"), "c"));  // the call returns as it would
  EXPECT_TRUE(fs.crashed());
  EXPECT_EQ(OnDisk(Path("commit")), "c");        // durable when it returned
  EXPECT_EQ(OnDisk(Path("sub/data")), std::nullopt);  // its entry was never synced
  EXPECT_TRUE(fs.Exists(Path("commit")).status().IsIOError());
}

TEST_F(FaultInjectionFileSystemTest, InjectNthCallOfAnyKindCountsLikeFailNth) {
  FaultInjectionFileSystem fs(&local_);
  fs.InjectNthCallOfAnyKind(2, FaultMode::kTakeEffectThenFail);
  EXPECT_OK(fs.CreateDirs(Path("a")));
  EXPECT_TRUE(fs.CreateDirs(Path("b")).IsIOError());
  EXPECT_TRUE(*local_.Exists(Path("b")));
  EXPECT_OK(fs.CreateDirs(Path("c")));
  EXPECT_EQ(fs.InjectedFailureCount(), 1);
}

TEST(FileOpNameTest, EveryOpHasAName) {
  for (int i = 0; i < kFileOpCount; ++i) {
    EXPECT_NE(FileOpName(static_cast<FileOp>(i)), "unknown operation") << i;
  }
}

}  // namespace
}  // namespace weir::fs
