// BlobFileSystem against a real Blob service: Azurite, started by tests/azure_test.sh, which sets
// AZURITE_BLOB_URL (http://127.0.0.1:PORT/devstoreaccount1/<container>) to an existing container.
// Without it every test is skipped, loudly.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

#include "azure/blob_file_system.h"
#include "base/testing.h"

namespace weir::azure {
namespace {

// Azurite's published development account key (not a secret).
constexpr char kAzuriteKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 random(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(random());
  return out;
}

class AzuriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* url = std::getenv("AZURITE_BLOB_URL");
    if (url == nullptr || *url == '\0') {
      GTEST_SKIP() << "\n*** AZURITE_BLOB_URL is not set: the Azure Blob tests did NOT run. ***\n"
                      "*** Run tests/azure_test.sh, which starts Azurite and sets it.      ***";
    }
    container_url_ = url;
    // Each test works below its own prefix, so tests never see each other's blobs.
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_url_ = container_url_ + "/" + info->name() + "-" + std::to_string(std::random_device{}());
    BlobFileSystem::Options options;
    options.block_size = 64 * 1024;  // small, so multi-block uploads are cheap to test
    auto opened = OpenBlobFileSystem(root_url_, AzureCredentials::SharedKey(kAzuriteKey), options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    fs_ = std::move(opened).ValueOrDie();
  }

  std::string Url(const std::string& relative) const { return root_url_ + "/" + relative; }

  std::string container_url_;
  std::string root_url_;
  std::unique_ptr<fs::FileSystem> fs_;
};

TEST_F(AzuriteTest, WriteThenReadWholeAndRanges) {
  std::string data = RandomBytes(10'000, 1);
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "dir/a.bin", data, /*sync=*/false));
  ASSERT_OK_AND_ASSIGN(std::string back, fs::ReadFileToString(fs_.get(), "dir/a.bin"));
  EXPECT_EQ(back, data);

  ASSERT_OK_AND_ASSIGN(auto file, fs_->OpenForRead(Url("dir/a.bin")));  // URL form too
  ASSERT_OK_AND_ASSIGN(int64_t size, file->Size());
  EXPECT_EQ(size, 10'000);
  std::string range(100, '\0');
  ASSERT_OK(file->ReadAt(1234, 100, reinterpret_cast<uint8_t*>(range.data())));
  EXPECT_EQ(range, data.substr(1234, 100));
  std::string last(1, '\0');
  ASSERT_OK(file->ReadAt(9999, 1, reinterpret_cast<uint8_t*>(last.data())));
  EXPECT_EQ(last[0], data[9999]);
  ASSERT_OK(file->ReadAt(10'000, 0, nullptr));

  std::string past(200, '\0');
  ASSERT_STATUS_CODE(kCorruption, file->ReadAt(9900, 200, reinterpret_cast<uint8_t*>(past.data())));
  ASSERT_STATUS_CODE(kCorruption,
                     file->ReadAt(20'000, 10, reinterpret_cast<uint8_t*>(past.data())));
}

TEST_F(AzuriteTest, MissingBlobIsNotFound) {
  ASSERT_STATUS_CODE(kNotFound, fs_->OpenForRead("nope.bin"));
  ASSERT_STATUS_CODE(kNotFound, fs_->GetFileInfo("nope.bin"));
  ASSERT_STATUS_CODE(kNotFound, fs_->Delete("nope.bin"));
  ASSERT_STATUS_CODE(kNotFound, fs_->Rename("nope.bin", "other.bin"));
  ASSERT_STATUS_CODE(kNotFound, fs_->DeleteDirRecursive("nodir"));
  ASSERT_OK_AND_ASSIGN(bool exists, fs_->Exists("nope.bin"));
  EXPECT_FALSE(exists);
}

TEST_F(AzuriteTest, EmptyFile) {
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "empty", "", /*sync=*/false));
  ASSERT_OK_AND_ASSIGN(fs::FileInfo info, fs_->GetFileInfo("empty"));
  EXPECT_EQ(info.size, 0);
  EXPECT_FALSE(info.is_dir);
  ASSERT_OK_AND_ASSIGN(std::string back, fs::ReadFileToString(fs_.get(), "empty"));
  EXPECT_EQ(back, "");
}

TEST_F(AzuriteTest, LargeMultiBlockUpload) {
  // 64 KiB blocks: 2.5 MiB written in odd-sized appends makes 40 blocks plus a tail.
  std::string data = RandomBytes(2'500'000, 2);
  ASSERT_OK_AND_ASSIGN(auto file, fs_->OpenForWrite("big/data.parquet"));
  for (size_t offset = 0; offset < data.size(); offset += 77'777) {
    ASSERT_OK(file->Append(std::string_view(data).substr(offset, 77'777)));
  }
  EXPECT_EQ(file->Size(), 2'500'000);
  // Not visible before Close: only staged blocks exist.
  ASSERT_OK_AND_ASSIGN(bool before, fs_->Exists("big/data.parquet"));
  EXPECT_FALSE(before);
  ASSERT_OK(file->Close());
  ASSERT_OK(file->Close());  // a second Close is a no-op
  ASSERT_STATUS_CODE(kInvalidArgument, file->Append("x"));
  ASSERT_OK_AND_ASSIGN(std::string back, fs::ReadFileToString(fs_.get(), "big/data.parquet"));
  ASSERT_EQ(back.size(), data.size());
  EXPECT_TRUE(back == data);

  // PutIfAbsent and WriteAtomic of more than one block go through Put Block List too.
  std::string other = RandomBytes(300'000, 3);
  ASSERT_OK(fs_->PutIfAbsent("big/once", other));
  ASSERT_STATUS_CODE(kAlreadyExists, fs_->PutIfAbsent("big/once", data));
  ASSERT_OK_AND_ASSIGN(back, fs::ReadFileToString(fs_.get(), "big/once"));
  EXPECT_TRUE(back == other);
  ASSERT_OK(fs_->WriteAtomic("big/once", data));
  ASSERT_OK_AND_ASSIGN(back, fs::ReadFileToString(fs_.get(), "big/once"));
  EXPECT_TRUE(back == data);
}

TEST_F(AzuriteTest, SyncCommitsWhatWasAppendedAndCloseTheRest) {
  ASSERT_OK_AND_ASSIGN(auto file, fs_->OpenForWrite("log.txt"));
  ASSERT_OK(file->Append("first "));
  ASSERT_OK(file->Sync());
  ASSERT_OK_AND_ASSIGN(std::string back, fs::ReadFileToString(fs_.get(), "log.txt"));
  EXPECT_EQ(back, "first ");
  ASSERT_OK(file->Append("second"));
  ASSERT_OK(file->Close());
  ASSERT_OK_AND_ASSIGN(back, fs::ReadFileToString(fs_.get(), "log.txt"));
  EXPECT_EQ(back, "first second");

  // Request counts: a small file is one Put Blob; Close after Sync with nothing new sends nothing.
  BlobClient* client = static_cast<BlobFileSystem*>(fs_.get())->client();
  int64_t before = client->metrics().requests;
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "small", "abc", /*sync=*/false));
  EXPECT_EQ(client->metrics().requests - before, 1);
  before = client->metrics().requests;
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "synced", "abc", /*sync=*/true));
  EXPECT_EQ(client->metrics().requests - before, 2);  // Put Block + Put Block List
}

TEST_F(AzuriteTest, OverwriteTruncates) {
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "f", "a long first content"));
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "f", "short"));
  ASSERT_OK_AND_ASSIGN(std::string back, fs::ReadFileToString(fs_.get(), "f"));
  EXPECT_EQ(back, "short");
}

TEST_F(AzuriteTest, PutIfAbsentNeverOverwrites) {
  ASSERT_OK(fs_->PutIfAbsent("_delta_log/00000000000000000000.json", "v0"));
  Status again = fs_->PutIfAbsent("_delta_log/00000000000000000000.json", "other");
  ASSERT_STATUS_CODE(kAlreadyExists, again);
  EXPECT_NE(again.message().find("00000000000000000000.json"), std::string::npos)
      << again.message();
  ASSERT_OK_AND_ASSIGN(std::string back,
                       fs::ReadFileToString(fs_.get(), "_delta_log/00000000000000000000.json"));
  EXPECT_EQ(back, "v0");
}

TEST_F(AzuriteTest, TwentyConcurrentPutIfAbsentHaveExactlyOneWinner) {
  for (int round = 0; round < 3; ++round) {
    std::string name = "_delta_log/0000000000000000000" + std::to_string(round) + ".json";
    constexpr int kThreads = 20;
    std::vector<Status> results(kThreads);
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        while (!go.load()) std::this_thread::yield();
        results[i] = fs_->PutIfAbsent(name, "writer " + std::to_string(i));
      });
    }
    go.store(true);
    for (auto& t : threads) t.join();
    int winners = 0, already = 0, winner = -1;
    for (int i = 0; i < kThreads; ++i) {
      if (results[i].ok()) {
        ++winners;
        winner = i;
      } else if (results[i].IsAlreadyExists()) {
        ++already;
      } else {
        ADD_FAILURE() << "writer " << i << ": " << results[i].ToString();
      }
    }
    EXPECT_EQ(winners, 1) << "round " << round;
    EXPECT_EQ(already, kThreads - 1) << "round " << round;
    ASSERT_OK_AND_ASSIGN(std::string back, fs::ReadFileToString(fs_.get(), name));
    EXPECT_EQ(back, "writer " + std::to_string(winner));
  }
}

TEST_F(AzuriteTest, WriteAtomicReplaces) {
  ASSERT_OK(fs_->WriteAtomic("_delta_log/_last_checkpoint", "{\"version\":1}"));
  ASSERT_OK(fs_->WriteAtomic("_delta_log/_last_checkpoint", "{\"version\":2}"));
  ASSERT_OK_AND_ASSIGN(std::string back,
                       fs::ReadFileToString(fs_.get(), "_delta_log/_last_checkpoint"));
  EXPECT_EQ(back, "{\"version\":2}");
}

TEST_F(AzuriteTest, RenameReplacesAndRemovesTheSource) {
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "a", "A"));
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "b", "B"));
  ASSERT_OK(fs_->Rename("a", "b"));
  ASSERT_OK_AND_ASSIGN(std::string back, fs::ReadFileToString(fs_.get(), "b"));
  EXPECT_EQ(back, "A");
  ASSERT_OK_AND_ASSIGN(bool source, fs_->Exists("a"));
  EXPECT_FALSE(source);
}

TEST_F(AzuriteTest, RenameNoReplaceRefusesAnExistingTarget) {
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "tmp", "new"));
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "taken", "old"));
  ASSERT_STATUS_CODE(kAlreadyExists, fs_->RenameNoReplace("tmp", "taken"));
  ASSERT_OK_AND_ASSIGN(std::string back, fs::ReadFileToString(fs_.get(), "taken"));
  EXPECT_EQ(back, "old");
  ASSERT_OK_AND_ASSIGN(bool source, fs_->Exists("tmp"));
  EXPECT_TRUE(source);  // the refused rename left the source alone

  ASSERT_OK(fs_->RenameNoReplace("tmp", "free"));
  ASSERT_OK_AND_ASSIGN(back, fs::ReadFileToString(fs_.get(), "free"));
  EXPECT_EQ(back, "new");
  ASSERT_OK_AND_ASSIGN(source, fs_->Exists("tmp"));
  EXPECT_FALSE(source);
}

TEST_F(AzuriteTest, RenameOfADirectoryMovesItsBlobs) {
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "d1/x", "X"));
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "d1/sub/y", "Y"));
  ASSERT_OK(fs_->Rename("d1", "d2"));
  ASSERT_OK_AND_ASSIGN(std::string back, fs::ReadFileToString(fs_.get(), "d2/sub/y"));
  EXPECT_EQ(back, "Y");
  ASSERT_OK_AND_ASSIGN(bool old_dir, fs_->Exists("d1"));
  EXPECT_FALSE(old_dir);
}

TEST_F(AzuriteTest, DirectoriesArePrefixes) {
  ASSERT_OK(fs_->CreateDirs("t/_delta_log"));  // nothing to create on a flat namespace
  ASSERT_OK_AND_ASSIGN(auto empty, fs_->List("t/_delta_log"));
  EXPECT_TRUE(empty.empty());
  ASSERT_OK(fs_->SyncDir("t/_delta_log"));

  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "t/_delta_log/0.json", "{}"));
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "t/part-1.parquet", "12345"));
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "t/date=2024-01-01/part-2.parquet", "x"));
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "t/.weir-tmp-abc", "t"));
  ASSERT_OK(fs::WriteStringToFile(fs_.get(), "tx", "not a child of t"));

  ASSERT_OK_AND_ASSIGN(auto listed, fs_->List("t"));
  ASSERT_EQ(listed.size(), 4u);
  EXPECT_EQ(listed[0].path, "t/.weir-tmp-abc");
  EXPECT_EQ(listed[1].path, "t/_delta_log");
  EXPECT_TRUE(listed[1].is_dir);
  EXPECT_EQ(listed[2].path, "t/date=2024-01-01");
  EXPECT_TRUE(listed[2].is_dir);
  EXPECT_EQ(listed[3].path, "t/part-1.parquet");
  EXPECT_FALSE(listed[3].is_dir);
  EXPECT_EQ(listed[3].size, 5);
  EXPECT_GT(listed[3].mtime_ms, 1'600'000'000'000);

  ASSERT_OK_AND_ASSIGN(fs::FileInfo dir, fs_->GetFileInfo("t/_delta_log"));
  EXPECT_TRUE(dir.is_dir);
  ASSERT_OK_AND_ASSIGN(bool exists, fs_->Exists("t/date=2024-01-01"));
  EXPECT_TRUE(exists);

  // A URL lists as a URL.
  ASSERT_OK_AND_ASSIGN(auto by_url, fs_->List(Url("t/_delta_log")));
  ASSERT_EQ(by_url.size(), 1u);
  EXPECT_EQ(by_url[0].path, Url("t/_delta_log/0.json"));

  ASSERT_STATUS_CODE(kIOError, fs_->Delete("t"));  // not empty
  ASSERT_OK(fs_->DeleteDirRecursive("t"));
  ASSERT_OK_AND_ASSIGN(exists, fs_->Exists("t"));
  EXPECT_FALSE(exists);
  ASSERT_OK_AND_ASSIGN(exists, fs_->Exists("tx"));
  EXPECT_TRUE(exists);  // a sibling sharing the name's start survives
}

TEST_F(AzuriteTest, ListingPagesThroughManyBlobs) {
  BlobFileSystem::Options options;
  options.list_page_size = 7;  // forces many pages (NextMarker) over 103 blobs
  auto opened =
      OpenBlobFileSystem(root_url_, AzureCredentials::SharedKey(kAzuriteKey), options);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<fs::FileSystem> paged = std::move(opened).ValueOrDie();
  constexpr int kBlobs = 103;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      for (int i = w; i < kBlobs; i += 4) {
        char name[32];
        std::snprintf(name, sizeof(name), "many/%05d.json", i);
        if (!paged->PutIfAbsent(name, std::to_string(i)).ok()) failures.fetch_add(1);
      }
    });
  }
  for (auto& t : writers) t.join();
  ASSERT_EQ(failures.load(), 0);
  ASSERT_OK_AND_ASSIGN(auto listed, paged->List("many"));
  ASSERT_EQ(listed.size(), static_cast<size_t>(kBlobs));
  for (int i = 0; i < kBlobs; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "many/%05d.json", i);
    EXPECT_EQ(listed[i].path, name);
  }
  ASSERT_OK(paged->DeleteDirRecursive("many"));  // also pages
  ASSERT_OK_AND_ASSIGN(auto after, paged->List("many"));
  EXPECT_TRUE(after.empty());
}

TEST_F(AzuriteTest, NamesThatNeedEscaping) {
  std::string name = "odd dir/a+b%c&d=e?f#g ü.json";
  ASSERT_OK(fs_->PutIfAbsent(name, "escaped"));
  ASSERT_OK_AND_ASSIGN(std::string back, fs::ReadFileToString(fs_.get(), name));
  EXPECT_EQ(back, "escaped");
  ASSERT_OK_AND_ASSIGN(auto listed, fs_->List("odd dir"));
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].path, name);
  ASSERT_OK(fs_->Rename(name, "odd dir/plain"));
  ASSERT_OK(fs_->Delete("odd dir/plain"));
}

TEST_F(AzuriteTest, BadKeyIsAnIOErrorWithAHintAndNoSecret) {
  std::string wrong = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==";
  auto opened = OpenBlobFileSystem(root_url_, AzureCredentials::SharedKey(wrong));
  ASSERT_STATUS_CODE(kIOError, opened);
  EXPECT_NE(opened.status().message().find("403"), std::string::npos)
      << opened.status().message();
  EXPECT_NE(opened.status().message().find("account key"), std::string::npos);
  EXPECT_EQ(opened.status().message().find(wrong), std::string::npos);
}

TEST_F(AzuriteTest, MissingContainerIsNotFound) {
  std::string url = container_url_.substr(0, container_url_.rfind('/')) + "/no-such-container";
  ASSERT_STATUS_CODE(kNotFound, OpenBlobFileSystem(url, AzureCredentials::SharedKey(kAzuriteKey)));
}

TEST_F(AzuriteTest, UrlOfAnotherContainerIsRejected) {
  std::string url = container_url_.substr(0, container_url_.rfind('/')) + "/other/x";
  ASSERT_STATUS_CODE(kInvalidArgument, fs_->OpenForRead(url));
}

}  // namespace
}  // namespace weir::azure
