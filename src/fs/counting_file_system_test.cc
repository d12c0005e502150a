#include "fs/counting_file_system.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "base/testing.h"
#include "fs/local_file_system.h"

namespace weir::fs {
namespace {

class CountingFileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/weir-counting-fs-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { EXPECT_OK(LocalFileSystem::Default()->DeleteDirRecursive(dir_)); }
  std::string Path(std::string_view name) const { return JoinPath(dir_, name); }

  std::string dir_;
};

// Every call is forwarded (the results are the wrapped file system's) and counted by kind.
TEST_F(CountingFileSystemTest, ForwardsAndCountsEveryCall) {
  CountingFileSystem fs(LocalFileSystem::Default());
  ASSERT_OK(fs.CreateDirs(Path("d")));
  ASSERT_OK(fs.PutIfAbsent(Path("d/a"), "hello"));
  ASSERT_STATUS_CODE(kAlreadyExists, fs.PutIfAbsent(Path("d/a"), "again"));
  ASSERT_OK(fs.WriteAtomic(Path("d/b"), "xy"));
  ASSERT_OK(WriteStringToFile(&fs, Path("d/c"), "abc"));
  ASSERT_OK_AND_ASSIGN(std::string text, ReadFileToString(&fs, Path("d/a")));
  EXPECT_EQ(text, "hello");
  ASSERT_STATUS_CODE(kNotFound, fs.OpenForRead(Path("d/missing")));
  ASSERT_OK_AND_ASSIGN(bool exists, fs.Exists(Path("d/b")));
  EXPECT_TRUE(exists);
  ASSERT_OK(fs.GetFileInfo(Path("d/b")).status());
  ASSERT_OK_AND_ASSIGN(auto all, fs.List(Path("d")));
  EXPECT_EQ(all.size(), 3u);
  ASSERT_OK_AND_ASSIGN(auto from_b, fs.ListFrom(Path("d"), "b"));
  EXPECT_EQ(from_b.size(), 2u);
  ASSERT_OK(fs.Rename(Path("d/c"), Path("d/e")));
  ASSERT_OK(fs.Delete(Path("d/e")));
  ASSERT_OK(fs.SyncDir(Path("d")));

  auto c = fs.counts();
  EXPECT_EQ(c.create_dirs, 1);
  EXPECT_EQ(c.put_if_absent, 2);
  EXPECT_EQ(c.write_atomic, 1);
  EXPECT_EQ(c.open_for_write, 1);
  EXPECT_EQ(c.append, 1);
  EXPECT_EQ(c.sync, 1);
  EXPECT_EQ(c.open_for_read, 2);
  EXPECT_EQ(c.open_for_read_not_found, 1);
  EXPECT_EQ(c.file_size, 1);
  EXPECT_EQ(c.read_at, 1);
  EXPECT_EQ(c.bytes_read, 5);
  EXPECT_EQ(c.exists, 1);
  EXPECT_EQ(c.get_file_info, 1);
  EXPECT_EQ(c.list, 1);
  EXPECT_EQ(c.list_from, 1);
  EXPECT_EQ(c.listings(), 2);
  EXPECT_EQ(c.entries_listed, 5);
  EXPECT_EQ(c.rename, 1);
  EXPECT_EQ(c.delete_file, 1);
  EXPECT_EQ(c.sync_dir, 1);
  EXPECT_EQ(c.bytes_written, 5 + 5 + 2 + 3);
  EXPECT_EQ(c.lookups(), 4);
  EXPECT_NE(c.ToString().find("list_from=1"), std::string::npos) << c.ToString();

  auto before = fs.counts();
  ASSERT_OK(fs.Exists(Path("d/a")).status());
  auto delta = fs.counts() - before;
  EXPECT_EQ(delta.exists, 1);
  EXPECT_EQ(delta.calls(), 1);
  fs.Reset();
  EXPECT_EQ(fs.counts().calls(), 0);
  EXPECT_EQ(fs.counts().ToString(), "no calls");
}

// A store without a listing start key: ListFrom is a full List, filtered, and counted as one.
TEST_F(CountingFileSystemTest, ListFromCanCostAFullListing) {
  ASSERT_OK(LocalFileSystem::Default()->CreateDirs(Path("d")));
  for (const char* name : {"a", "b", "c", "d"}) {
    ASSERT_OK(LocalFileSystem::Default()->PutIfAbsent(Path(std::string("d/") + name), "x"));
  }
  CountingFileSystem fs(LocalFileSystem::Default(), {.list_from_lists_everything = true});
  ASSERT_OK_AND_ASSIGN(auto listed, fs.ListFrom(Path("d"), "c"));
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(BaseName(listed[0].path), "c");
  auto c = fs.counts();
  EXPECT_EQ(c.list, 1);
  EXPECT_EQ(c.list_from, 0);
  EXPECT_EQ(c.entries_listed, 4);
}

TEST_F(CountingFileSystemTest, CountsFromManyThreads) {
  CountingFileSystem fs(LocalFileSystem::Default());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) (void)fs.Exists(Path("nothing"));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(fs.counts().exists, 2000);
}

}  // namespace
}  // namespace weir::fs
