#include "fs/local_file_system.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "base/testing.h"
#include "fs/fault_injection_file_system.h"

namespace weir::fs {
namespace {

// A fresh directory under /tmp per test, removed afterwards.
class LocalFileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/weir-fs-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { EXPECT_OK(fs_.DeleteDirRecursive(dir_)); }

  std::string Path(std::string_view name) const { return JoinPath(dir_, name); }

  std::string Read(const std::string& path) {
    Result<std::string> data = ReadFileToString(&fs_, path);
    EXPECT_TRUE(data.ok()) << data.status().ToString();
    return data.ok() ? *data : std::string();
  }

  std::vector<std::string> ListNames(const std::string& dir) {
    std::vector<std::string> names;
    Result<std::vector<FileInfo>> list = fs_.List(dir);
    EXPECT_TRUE(list.ok()) << list.status().ToString();
    if (list.ok()) {
      for (const FileInfo& info : *list) names.push_back(BaseName(info.path));
    }
    return names;
  }

  LocalFileSystem fs_;
  std::string dir_;
};

// "name7": avoids GCC 12's false -Wrestrict warning on `"literal" + std::to_string(n)`.
std::string Numbered(std::string_view name, int64_t n) {
  std::string out(name);
  out += std::to_string(n);
  return out;
}

std::string Pattern(size_t size, char seed) {
  std::string data(size, '\0');
  for (size_t i = 0; i < size; ++i) data[i] = static_cast<char>(seed + i * 7 + i / 251);
  return data;
}

TEST_F(LocalFileSystemTest, WriteThenReadBack) {
  std::string path = Path("data.bin");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<WritableFile> file, fs_.OpenForWrite(path));
  EXPECT_EQ(file->path(), path);
  std::string small = "hello ";
  std::string big = Pattern(3 << 20, 'a');  // larger than the 1 MiB write buffer
  ASSERT_OK(file->Append(small));
  ASSERT_OK(file->Append(big));
  ASSERT_OK(file->Append(""));
  ASSERT_OK(file->Append("tail"));
  EXPECT_EQ(file->Size(), static_cast<int64_t>(small.size() + big.size() + 4));
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Close());
  ASSERT_OK(file->Close());  // second close is a no-op

  EXPECT_EQ(Read(path), small + big + "tail");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RandomAccessFile> reader, fs_.OpenForRead(path));
  ASSERT_OK_AND_ASSIGN(int64_t size, reader->Size());
  EXPECT_EQ(size, static_cast<int64_t>(small.size() + big.size() + 4));
  std::string middle(10, '\0');
  ASSERT_OK(reader->ReadAt(6 + 1000, 10, reinterpret_cast<uint8_t*>(middle.data())));
  EXPECT_EQ(middle, big.substr(1000, 10));
  ASSERT_OK(reader->ReadAt(size, 0, nullptr));  // empty read at the end
}

TEST_F(LocalFileSystemTest, SmallBufferedWritesReachTheFileOnClose) {
  LocalFileSystem small_buffer_fs(LocalFileSystem::Options{16});
  std::string path = Path("small");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<WritableFile> file, small_buffer_fs.OpenForWrite(path));
  std::string expected;
  for (int i = 0; i < 100; ++i) {
    std::string piece = std::to_string(i) + ",";
    expected += piece;
    ASSERT_OK(file->Append(piece));
  }
  ASSERT_OK(file->Close());
  EXPECT_EQ(Read(path), expected);
}

TEST_F(LocalFileSystemTest, DestroyingAnUnclosedFileDropsBufferedData) {
  std::string path = Path("unclosed");
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<WritableFile> file, fs_.OpenForWrite(path));
    ASSERT_OK(file->Append("synced"));
    ASSERT_OK(file->Sync());
    ASSERT_OK(file->Append("buffered"));
  }
  EXPECT_EQ(Read(path), "synced");
}

TEST_F(LocalFileSystemTest, UseAfterCloseIsAnError) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<WritableFile> file, fs_.OpenForWrite(Path("f")));
  ASSERT_OK(file->Close());
  ASSERT_STATUS_CODE(kInvalidArgument, file->Append("x"));
  ASSERT_STATUS_CODE(kInvalidArgument, file->Sync());
}

TEST_F(LocalFileSystemTest, ShortReadIsCorruptionNamingThePath) {
  std::string path = Path("short");
  ASSERT_OK(WriteStringToFile(&fs_, path, "0123456789"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RandomAccessFile> reader, fs_.OpenForRead(path));
  EXPECT_EQ(reader->path(), path);
  std::string out(20, '\0');
  Status status = reader->ReadAt(5, 10, reinterpret_cast<uint8_t*>(out.data()));
  ASSERT_STATUS_CODE(kCorruption, status);
  EXPECT_NE(status.message().find("short read"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
  ASSERT_STATUS_CODE(kCorruption, reader->ReadAt(100, 1, reinterpret_cast<uint8_t*>(out.data())));
  ASSERT_STATUS_CODE(kInvalidArgument,
                     reader->ReadAt(-1, 1, reinterpret_cast<uint8_t*>(out.data())));
  ASSERT_STATUS_CODE(kInvalidArgument,
                     reader->ReadAt(0, -1, reinterpret_cast<uint8_t*>(out.data())));
}

TEST_F(LocalFileSystemTest, OpenErrors) {
  Result<std::unique_ptr<RandomAccessFile>> missing = fs_.OpenForRead(Path("missing"));
  ASSERT_STATUS_CODE(kNotFound, missing.status());
  EXPECT_EQ(missing.status().message(),
            "open for read " + Path("missing") + ": No such file or directory");
  ASSERT_STATUS_CODE(kIOError, fs_.OpenForRead(dir_));  // a directory
  ASSERT_STATUS_CODE(kNotFound, fs_.OpenForWrite(Path("no/such/dir/file")));
  ASSERT_STATUS_CODE(kIOError, fs_.OpenForWrite(dir_));
}

TEST_F(LocalFileSystemTest, OpenForWriteTruncates) {
  std::string path = Path("f");
  ASSERT_OK(WriteStringToFile(&fs_, path, "a long first version"));
  ASSERT_OK(WriteStringToFile(&fs_, path, "v2", /*sync=*/false));
  EXPECT_EQ(Read(path), "v2");
}

TEST_F(LocalFileSystemTest, NoSpaceIsAnIOErrorSayingSo) {
  // /dev/full fails every write with ENOSPC.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<WritableFile> file, fs_.OpenForWrite("/dev/full"));
  ASSERT_OK(file->Append("buffered until sync"));
  Status status = file->Sync();
  ASSERT_STATUS_CODE(kIOError, status);
  EXPECT_NE(status.message().find("/dev/full"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("No space left on device"), std::string::npos)
      << status.message();
  // The failure is sticky: the file's content is unknown, so nothing more is written.
  ASSERT_STATUS_CODE(kIOError, file->Append("more"));
  ASSERT_STATUS_CODE(kIOError, file->Close());
  // A write bigger than the buffer goes straight to write() and fails in Append().
  ASSERT_OK_AND_ASSIGN(file, fs_.OpenForWrite("/dev/full"));
  ASSERT_STATUS_CODE(kIOError, file->Append(Pattern(2 << 20, 'x')));
}

TEST_F(LocalFileSystemTest, PermissionDeniedIsAnIOError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores permissions";
  std::string locked = Path("locked");
  ASSERT_OK(fs_.CreateDirs(locked));
  ASSERT_EQ(::chmod(locked.c_str(), 0500), 0);
  Status status = fs_.PutIfAbsent(JoinPath(locked, "f"), "x");
  ASSERT_STATUS_CODE(kIOError, status);
  EXPECT_NE(status.message().find("Permission denied"), std::string::npos) << status.message();
  ASSERT_EQ(::chmod(locked.c_str(), 0700), 0);
}

TEST_F(LocalFileSystemTest, PutIfAbsentCreatesOnceAndNeverOverwrites) {
  std::string path = Path("00000000000000000000.json");
  ASSERT_OK(fs_.PutIfAbsent(path, "first"));
  EXPECT_EQ(Read(path), "first");
  Status status = fs_.PutIfAbsent(path, "second");
  ASSERT_STATUS_CODE(kAlreadyExists, status);
  EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
  EXPECT_EQ(Read(path), "first");
  ASSERT_OK(fs_.PutIfAbsent(Path("empty"), ""));
  EXPECT_EQ(Read(Path("empty")), "");
  // No temporary file is left behind.
  EXPECT_EQ(ListNames(dir_), (std::vector<std::string>{"00000000000000000000.json", "empty"}));
}

TEST_F(LocalFileSystemTest, PutIfAbsentIntoAMissingDirectoryIsNotFound) {
  Status status = fs_.PutIfAbsent(Path("missing/f"), "x");
  ASSERT_STATUS_CODE(kNotFound, status);
  EXPECT_NE(status.message().find(Path("missing/f")), std::string::npos) << status.message();
}

TEST_F(LocalFileSystemTest, PutIfAbsentFromManyThreadsHasExactlyOneCompleteWinner) {
  constexpr int kThreads = 16;
  for (int round = 0; round < 5; ++round) {
    std::string path = Path(Numbered("commit-", round));
    std::vector<std::string> contents;
    for (int t = 0; t < kThreads; ++t)
      contents.push_back(Pattern(200000 + t, static_cast<char>('A' + t)));
    std::vector<Status> results(kThreads);
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        while (!go.load()) std::this_thread::yield();
        results[t] = fs_.PutIfAbsent(path, contents[t]);
      });
    }
    go = true;
    for (std::thread& thread : threads) thread.join();
    int winner = -1;
    for (int t = 0; t < kThreads; ++t) {
      if (results[t].ok()) {
        EXPECT_EQ(winner, -1) << "two winners";
        winner = t;
      } else {
        EXPECT_TRUE(results[t].IsAlreadyExists()) << results[t].ToString();
      }
    }
    ASSERT_NE(winner, -1);
    EXPECT_TRUE(Read(path) == contents[winner]);
  }
  for (const std::string& name : ListNames(dir_)) EXPECT_FALSE(IsTempFileName(name)) << name;
}

TEST_F(LocalFileSystemTest, WriteAtomicReplaces) {
  std::string path = Path("_last_checkpoint");
  ASSERT_OK(fs_.WriteAtomic(path, "{\"version\":1}"));
  ASSERT_OK(fs_.WriteAtomic(path, "{\"version\":10}"));
  EXPECT_EQ(Read(path), "{\"version\":10}");
  EXPECT_EQ(ListNames(dir_), std::vector<std::string>{"_last_checkpoint"});
  ASSERT_STATUS_CODE(kNotFound, fs_.WriteAtomic(Path("missing/f"), "x"));
  ASSERT_STATUS_CODE(kIOError, fs_.WriteAtomic(dir_, "x"));  // cannot replace a directory
  EXPECT_EQ(ListNames(dir_), std::vector<std::string>{"_last_checkpoint"});
}

TEST_F(LocalFileSystemTest, RenameReplaces) {
  ASSERT_OK(WriteStringToFile(&fs_, Path("a"), "A"));
  ASSERT_OK(WriteStringToFile(&fs_, Path("b"), "B"));
  ASSERT_OK(fs_.Rename(Path("a"), Path("b")));
  EXPECT_EQ(Read(Path("b")), "A");
  ASSERT_OK_AND_ASSIGN(bool exists, fs_.Exists(Path("a")));
  EXPECT_FALSE(exists);
  Status status = fs_.Rename(Path("a"), Path("c"));
  ASSERT_STATUS_CODE(kNotFound, status);
  EXPECT_NE(status.message().find(Path("a")), std::string::npos) << status.message();
}

TEST_F(LocalFileSystemTest, RenameNoReplaceRefusesAnExistingTarget) {
  ASSERT_OK(WriteStringToFile(&fs_, Path("a"), "A"));
  ASSERT_OK(WriteStringToFile(&fs_, Path("b"), "B"));
  Status status = fs_.RenameNoReplace(Path("a"), Path("b"));
  ASSERT_STATUS_CODE(kAlreadyExists, status);
  EXPECT_NE(status.message().find(Path("b")), std::string::npos) << status.message();
  EXPECT_EQ(Read(Path("a")), "A");
  EXPECT_EQ(Read(Path("b")), "B");
  ASSERT_OK(fs_.RenameNoReplace(Path("a"), Path("c")));
  EXPECT_EQ(Read(Path("c")), "A");
  ASSERT_STATUS_CODE(kNotFound, fs_.RenameNoReplace(Path("a"), Path("d")));
}

TEST_F(LocalFileSystemTest, Delete) {
  ASSERT_OK(WriteStringToFile(&fs_, Path("f"), "x"));
  ASSERT_OK(fs_.Delete(Path("f")));
  Status status = fs_.Delete(Path("f"));
  ASSERT_STATUS_CODE(kNotFound, status);
  EXPECT_NE(status.message().find(Path("f")), std::string::npos);
  ASSERT_OK(fs_.CreateDirs(Path("empty_dir")));
  ASSERT_OK(fs_.Delete(Path("empty_dir")));
  ASSERT_OK(fs_.CreateDirs(Path("full_dir")));
  ASSERT_OK(WriteStringToFile(&fs_, Path("full_dir/f"), "x"));
  ASSERT_STATUS_CODE(kIOError, fs_.Delete(Path("full_dir")));
}

TEST_F(LocalFileSystemTest, DeleteDirRecursive) {
  ASSERT_OK(fs_.CreateDirs(Path("t/a/b/c")));
  ASSERT_OK(WriteStringToFile(&fs_, Path("t/a/f1"), "1"));
  ASSERT_OK(WriteStringToFile(&fs_, Path("t/a/b/c/f2"), "2"));
  ASSERT_EQ(::symlink(dir_.c_str(), Path("t/a/link").c_str()), 0);  // must not be followed
  ASSERT_OK(fs_.DeleteDirRecursive(Path("t")));
  ASSERT_OK_AND_ASSIGN(bool exists, fs_.Exists(Path("t")));
  EXPECT_FALSE(exists);
  ASSERT_OK_AND_ASSIGN(exists, fs_.Exists(dir_));
  EXPECT_TRUE(exists);
  ASSERT_STATUS_CODE(kNotFound, fs_.DeleteDirRecursive(Path("t")));
  ASSERT_OK(WriteStringToFile(&fs_, Path("file"), "x"));
  ASSERT_STATUS_CODE(kIOError, fs_.DeleteDirRecursive(Path("file")));
}

TEST_F(LocalFileSystemTest, CreateDirs) {
  ASSERT_OK(fs_.CreateDirs(Path("x/y/z")));
  ASSERT_OK(fs_.CreateDirs(Path("x/y/z")));  // idempotent
  ASSERT_OK(fs_.CreateDirs(Path("x//w/")));
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.GetFileInfo(Path("x/y/z")));
  EXPECT_TRUE(info.is_dir);
  ASSERT_OK_AND_ASSIGN(info, fs_.GetFileInfo(Path("x/w")));
  EXPECT_TRUE(info.is_dir);
  ASSERT_OK(WriteStringToFile(&fs_, Path("file"), "x"));
  ASSERT_STATUS_CODE(kIOError, fs_.CreateDirs(Path("file")));
  ASSERT_STATUS_CODE(kIOError, fs_.CreateDirs(Path("file/sub")));
  ASSERT_STATUS_CODE(kInvalidArgument, fs_.CreateDirs(""));
}

TEST_F(LocalFileSystemTest, ExistsAndGetFileInfo) {
  ASSERT_OK(WriteStringToFile(&fs_, Path("f"), "12345"));
  ASSERT_OK_AND_ASSIGN(bool exists, fs_.Exists(Path("f")));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(exists, fs_.Exists(Path("nope")));
  EXPECT_FALSE(exists);
  ASSERT_OK_AND_ASSIGN(exists, fs_.Exists(Path("f/under_a_file")));
  EXPECT_FALSE(exists);

  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.GetFileInfo(Path("f")));
  EXPECT_EQ(info.path, Path("f"));
  EXPECT_EQ(info.size, 5);
  EXPECT_FALSE(info.is_dir);
  int64_t now_ms = static_cast<int64_t>(::time(nullptr)) * 1000;
  EXPECT_LT(std::abs(info.mtime_ms - now_ms), 60 * 1000);
  ASSERT_OK_AND_ASSIGN(info, fs_.GetFileInfo(dir_));
  EXPECT_TRUE(info.is_dir);
  EXPECT_EQ(info.size, 0);
  ASSERT_STATUS_CODE(kNotFound, fs_.GetFileInfo(Path("nope")));
}

TEST_F(LocalFileSystemTest, ListReturnsSortedChildrenIncludingTemporaries) {
  ASSERT_OK(WriteStringToFile(&fs_, Path("b.json"), "bb"));
  ASSERT_OK(WriteStringToFile(&fs_, Path("a.json"), "a"));
  ASSERT_OK(WriteStringToFile(&fs_, Path(".weir-tmp-leftover"), "partial"));
  ASSERT_OK(fs_.CreateDirs(Path("c_dir/inner")));
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> list, fs_.List(dir_));
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0].path, Path(".weir-tmp-leftover"));
  EXPECT_TRUE(IsTempFileName(list[0].path));
  EXPECT_EQ(list[1].path, Path("a.json"));
  EXPECT_EQ(list[1].size, 1);
  EXPECT_EQ(list[2].path, Path("b.json"));
  EXPECT_EQ(list[2].size, 2);
  EXPECT_EQ(list[3].path, Path("c_dir"));
  EXPECT_TRUE(list[3].is_dir);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(list[i].is_dir);

  ASSERT_OK_AND_ASSIGN(list, fs_.List(dir_ + "/"));  // trailing slash: same paths
  EXPECT_EQ(list[1].path, Path("a.json"));
  ASSERT_OK_AND_ASSIGN(list, fs_.List(Path("c_dir/inner")));
  EXPECT_TRUE(list.empty());
  ASSERT_STATUS_CODE(kNotFound, fs_.List(Path("missing")));
  ASSERT_STATUS_CODE(kIOError, fs_.List(Path("a.json")));
}

// ListFrom keeps the names at or after the first one, in order, with their sizes; the
// FileSystem default (here through the fault-injecting wrapper, which does not override it) and
// the local one agree.
TEST_F(LocalFileSystemTest, ListFromSkipsTheNamesBeforeTheFirst) {
  for (const char* name : {"00000000000000000009.json", "00000000000000000010",
                           "00000000000000000010.checkpoint.parquet",
                           "00000000000000000010.json", "00000000000000000011.json",
                           "_last_checkpoint", ".weir-tmp-x"}) {
    ASSERT_OK(WriteStringToFile(&fs_, Path(name), name));
  }
  ASSERT_OK(fs_.CreateDirs(Path("00000000000000000009_dir")));
  FaultInjectionFileSystem wrapped(&fs_);
  for (FileSystem* fs : {static_cast<FileSystem*>(&fs_), static_cast<FileSystem*>(&wrapped)}) {
    ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> list, fs->ListFrom(dir_, "00000000000000000010"));
    std::vector<std::string> names;
    for (const FileInfo& f : list) names.push_back(BaseName(f.path));
    EXPECT_EQ(names, (std::vector<std::string>{"00000000000000000010",  // the first name itself
                                               "00000000000000000010.checkpoint.parquet",
                                               "00000000000000000010.json",
                                               "00000000000000000011.json", "_last_checkpoint"}));
    EXPECT_EQ(list[2].size, 25);
    ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> all, fs->ListFrom(dir_, ""));
    ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> listed, fs->List(dir_));
    ASSERT_EQ(all.size(), 8u);
    ASSERT_EQ(all.size(), listed.size());
    for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].path, listed[i].path);
    ASSERT_OK_AND_ASSIGN(list, fs->ListFrom(dir_, "zzz"));
    EXPECT_TRUE(list.empty());
    ASSERT_STATUS_CODE(kNotFound, fs->ListFrom(Path("missing"), "a"));
  }
}

TEST_F(LocalFileSystemTest, SyncDir) {
  ASSERT_OK(fs_.SyncDir(dir_));
  ASSERT_STATUS_CODE(kNotFound, fs_.SyncDir(Path("missing")));
  ASSERT_OK(WriteStringToFile(&fs_, Path("f"), "x"));
  ASSERT_STATUS_CODE(kIOError, fs_.SyncDir(Path("f")));
}

TEST_F(LocalFileSystemTest, DefaultInstanceWorks) {
  ASSERT_OK(WriteStringToFile(LocalFileSystem::Default(), Path("d"), "default"));
  EXPECT_EQ(Read(Path("d")), "default");
}

TEST(PathTest, JoinDirAndBaseNames) {
  EXPECT_EQ(JoinPath("a/b", "c"), "a/b/c");
  EXPECT_EQ(JoinPath("a/b/", "c"), "a/b/c");
  EXPECT_EQ(JoinPath("", "c"), "c");
  EXPECT_EQ(JoinPath("/", "c"), "/c");
  EXPECT_EQ(DirName("a/b/c"), "a/b");
  EXPECT_EQ(DirName("a/b/c/"), "a/b");
  EXPECT_EQ(DirName("/c"), "/");
  EXPECT_EQ(DirName("c"), ".");
  EXPECT_EQ(DirName("a//c"), "a");
  EXPECT_EQ(BaseName("a/b/c"), "c");
  EXPECT_EQ(BaseName("a/b/c/"), "c");
  EXPECT_EQ(BaseName("c"), "c");
  EXPECT_EQ(BaseName("/"), "/");
  EXPECT_TRUE(IsTempFileName("/x/_delta_log/.weir-tmp-0123abcd"));
  EXPECT_TRUE(IsTempFileName(".weir-tmp-x"));
  EXPECT_FALSE(IsTempFileName("/x/.weir-tmp-dir/00000.json"));
  EXPECT_FALSE(IsTempFileName("/x/00000.json"));
}

TEST(StatusFromErrnoTest, MapsCodesAndFormatsMessages) {
  Status not_found = StatusFromErrno("open for read", "/a/b", ENOENT);
  ASSERT_STATUS_CODE(kNotFound, not_found);
  EXPECT_EQ(not_found.message(), "open for read /a/b: No such file or directory");
  Status no_space = StatusFromErrno("append to", "/a/b", ENOSPC);
  ASSERT_STATUS_CODE(kIOError, no_space);
  EXPECT_TRUE(no_space.message().starts_with("append to /a/b: No space left on device"))
      << no_space.message();
  EXPECT_NE(no_space.message().find("free space"), std::string::npos);
  Status io = StatusFromErrno("sync", "/a/b", EIO);
  ASSERT_STATUS_CODE(kIOError, io);
  EXPECT_EQ(io.message(), "sync /a/b: Input/output error");
}

}  // namespace
}  // namespace weir::fs
