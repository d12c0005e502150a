#include "delta/log_segment.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include "base/testing.h"
#include "delta/log_path.h"
#include "fs/local_file_system.h"

namespace weir::delta {
namespace {

std::vector<LogFile> Files(const std::vector<std::string>& names) {
  std::vector<LogFile> files;
  for (const auto& n : names) {
    auto parsed = ParseLogFileName(n);
    EXPECT_TRUE(parsed) << n;
    files.push_back(LogFile{"/t/_delta_log/" + n, *parsed, 1, 1});
  }
  return files;
}

std::vector<int64_t> CommitVersions(const LogSegment& seg) {
  std::vector<int64_t> v;
  for (const auto& c : seg.commits) v.push_back(c.version());
  return v;
}

TEST(LogSegmentTest, ReplaysEverythingWithoutCheckpoint) {
  ASSERT_OK_AND_ASSIGN(auto seg, LogSegmentFromListing("/t", Files({CommitFileName(0), CommitFileName(1),
                                                                     CommitFileName(2)}),
                                                       std::nullopt));
  EXPECT_EQ(seg.version, 2);
  EXPECT_FALSE(seg.checkpoint_version);
  EXPECT_EQ(CommitVersions(seg), (std::vector<int64_t>{0, 1, 2}));
}

TEST(LogSegmentTest, StartsFromNewestCheckpointAtOrBelowTarget) {
  auto files = Files({CommitFileName(0), CommitFileName(1), CommitFileName(2), ClassicCheckpointFileName(2),
                      CommitFileName(3), CommitFileName(4), ClassicCheckpointFileName(4), CommitFileName(5)});
  ASSERT_OK_AND_ASSIGN(auto latest, LogSegmentFromListing("/t", files, std::nullopt));
  EXPECT_EQ(latest.checkpoint_version, 4);
  EXPECT_EQ(CommitVersions(latest), (std::vector<int64_t>{5}));
  ASSERT_OK_AND_ASSIGN(auto v3, LogSegmentFromListing("/t", files, 3));
  EXPECT_EQ(v3.checkpoint_version, 2);
  EXPECT_EQ(CommitVersions(v3), (std::vector<int64_t>{3}));
  ASSERT_OK_AND_ASSIGN(auto v1, LogSegmentFromListing("/t", files, 1));
  EXPECT_FALSE(v1.checkpoint_version);
  EXPECT_EQ(CommitVersions(v1), (std::vector<int64_t>{0, 1}));
  ASSERT_OK_AND_ASSIGN(auto v4, LogSegmentFromListing("/t", files, 4));
  EXPECT_EQ(v4.checkpoint_version, 4);
  EXPECT_TRUE(v4.commits.empty());
}

TEST(LogSegmentTest, IgnoresIncompleteMultiPartCheckpoints) {
  auto files = Files({CommitFileName(0), CommitFileName(1), CommitFileName(2),
                      MultiPartCheckpointFileName(1, 1, 2), MultiPartCheckpointFileName(1, 2, 2),
                      MultiPartCheckpointFileName(2, 1, 3), MultiPartCheckpointFileName(2, 3, 3)});
  ASSERT_OK_AND_ASSIGN(auto seg, LogSegmentFromListing("/t", files, std::nullopt));
  EXPECT_EQ(seg.checkpoint_version, 1);
  ASSERT_EQ(seg.checkpoint_files.size(), 2u);
  EXPECT_EQ(seg.checkpoint_files[0].name.part, 1);
  EXPECT_EQ(seg.checkpoint_files[1].name.part, 2);
  EXPECT_EQ(CommitVersions(seg), (std::vector<int64_t>{2}));
}

TEST(LogSegmentTest, PrefersClassicCheckpointAtTheSameVersion) {
  auto files = Files({CommitFileName(0), CommitFileName(1), MultiPartCheckpointFileName(1, 1, 2),
                      MultiPartCheckpointFileName(1, 2, 2), ClassicCheckpointFileName(1)});
  ASSERT_OK_AND_ASSIGN(auto seg, LogSegmentFromListing("/t", files, std::nullopt));
  ASSERT_EQ(seg.checkpoint_files.size(), 1u);
  EXPECT_EQ(seg.checkpoint_files[0].name.type, LogFileType::kClassicCheckpoint);
}

TEST(LogSegmentTest, CleanedUpHistoryStartsAtCheckpoint) {
  auto files = Files({ClassicCheckpointFileName(2), CommitFileName(2), CommitFileName(3)});
  ASSERT_OK_AND_ASSIGN(auto seg, LogSegmentFromListing("/t", files, std::nullopt));
  EXPECT_EQ(seg.version, 3);
  EXPECT_EQ(seg.checkpoint_version, 2);
  // Versions before the checkpoint can no longer be reconstructed.
  auto old = LogSegmentFromListing("/t", files, 1);
  ASSERT_STATUS_CODE(kNotFound, old);
  EXPECT_NE(old.status().message().find("cleaned up"), std::string::npos);
}

TEST(LogSegmentTest, GapsAreCorruption) {
  auto r = LogSegmentFromListing("/t", Files({CommitFileName(0), CommitFileName(2)}), std::nullopt);
  ASSERT_STATUS_CODE(kCorruption, r);
  EXPECT_NE(r.status().message().find("commit 1"), std::string::npos);
  auto after_checkpoint = LogSegmentFromListing(
      "/t", Files({ClassicCheckpointFileName(2), CommitFileName(2), CommitFileName(4)}), std::nullopt);
  ASSERT_STATUS_CODE(kCorruption, after_checkpoint);
}

TEST(LogSegmentTest, MissingFirstCommitsWithoutCheckpointAreCorruption) {
  auto files = Files({CommitFileName(1), CommitFileName(2)});
  auto latest = LogSegmentFromListing("/t", files, std::nullopt);
  ASSERT_STATUS_CODE(kCorruption, latest);
  EXPECT_NE(latest.status().message().find(CommitFileName(0)), std::string::npos);
  ASSERT_STATUS_CODE(kCorruption, LogSegmentFromListing("/t", files, 1));
  // A version before the earliest commit is time travel past the history: NotFound.
  ASSERT_STATUS_CODE(kNotFound, LogSegmentFromListing("/t", files, 0));
}

TEST(LogSegmentTest, EmptyLogAndUnknownVersionsAreNotFound) {
  ASSERT_STATUS_CODE(kNotFound, LogSegmentFromListing("/t", {}, std::nullopt));
  auto files = Files({CommitFileName(0), CommitFileName(1)});
  ASSERT_STATUS_CODE(kNotFound, LogSegmentFromListing("/t", files, 2));
  ASSERT_STATUS_CODE(kNotFound, LogSegmentFromListing("/t", files, -1));
}

// A listing from version 10 leaves out the files of earlier versions only: commits, checkpoints
// and the hint of version 10 on, in version order.
TEST(LogSegmentTest, ListingFromAVersionSkipsOlderFiles) {
  char pattern[] = "/tmp/weir-log-list-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string log_dir = pattern;
  fs::LocalFileSystem fs;
  for (int64_t v : {0, 9, 10, 11, 100}) {
    ASSERT_OK(fs::WriteStringToFile(&fs, fs::JoinPath(log_dir, CommitFileName(v)), "{}"));
  }
  ASSERT_OK(fs::WriteStringToFile(&fs, fs::JoinPath(log_dir, ClassicCheckpointFileName(9)), "x"));
  ASSERT_OK(fs::WriteStringToFile(&fs, fs::JoinPath(log_dir, ClassicCheckpointFileName(10)), "x"));
  ASSERT_OK_AND_ASSIGN(std::vector<LogFile> files, ListLogFilesFrom(&fs, log_dir, 10));
  std::vector<std::string> names;
  for (const LogFile& f : files) names.push_back(fs::BaseName(f.path));
  EXPECT_EQ(names, (std::vector<std::string>{ClassicCheckpointFileName(10), CommitFileName(10),
                                             CommitFileName(11), CommitFileName(100)}));
  ASSERT_OK_AND_ASSIGN(files, ListLogFilesFrom(&fs, log_dir, 0));
  EXPECT_EQ(files.size(), 7u);
  ASSERT_OK_AND_ASSIGN(files, ListLogFilesFrom(&fs, log_dir, 101));
  EXPECT_TRUE(files.empty());
  ASSERT_STATUS_CODE(kNotFound, ListLogFilesFrom(&fs, log_dir + "/missing", 10));
  ASSERT_OK(fs.DeleteDirRecursive(log_dir));
}

}  // namespace
}  // namespace weir::delta
