#include "compress/background.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/testing.h"

namespace weir::compress {
namespace {

std::string Text(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string data;
  while (data.size() < size) data += "{\"order\":" + std::to_string(rng() % 100000) + "}";
  data.resize(size);
  return data;
}

// Jobs from two threads, interleaved, each waited for in its own order: every result is what
// Compress() gives for its input (from `begin` on) and decompresses back to it.
TEST(BackgroundCompressorTest, JobsFromSeveralThreadsGetTheirOwnResults) {
  BackgroundCompressor& compressor = BackgroundCompressor::Shared();
  auto submitter = [&](uint32_t seed, std::vector<std::shared_ptr<BackgroundCompressor::Job>>* jobs) {
    for (uint32_t i = 0; i < 50; ++i) {
      auto job = std::make_shared<BackgroundCompressor::Job>();
      job->codec = i % 2 ? Codec::kZstd : Codec::kLz4Raw;
      job->input = Text(1000 + 997 * i, seed * 1000 + i);
      job->begin = i % 7;
      compressor.Submit(job);
      jobs->push_back(std::move(job));
    }
  };
  std::vector<std::shared_ptr<BackgroundCompressor::Job>> a, b;
  std::thread other(submitter, 1, &a);
  submitter(2, &b);
  other.join();
  for (auto* jobs : {&a, &b}) {
    // Newest first: waiting for a later job must not depend on collecting earlier ones.
    for (auto it = jobs->rbegin(); it != jobs->rend(); ++it) {
      BackgroundCompressor::Job& job = **it;
      ASSERT_OK(compressor.Wait(job));
      std::string expected;
      ASSERT_OK(Compress(job.codec, job.level, job.body(), &expected));
      EXPECT_EQ(job.output, expected);
      std::string back(job.body().size(), '\0');
      ASSERT_OK(Decompress(job.codec, job.output, static_cast<int64_t>(back.size()),
                           reinterpret_cast<uint8_t*>(back.data())));
      EXPECT_EQ(back, job.body());
    }
  }
}

TEST(BackgroundCompressorTest, AFailedJobReturnsItsError) {
  auto job = std::make_shared<BackgroundCompressor::Job>();
  job->codec = Codec::kZstd;
  job->level = 1000;
  job->input = "some bytes";
  BackgroundCompressor::Shared().Submit(job);
  Status st = BackgroundCompressor::Shared().Wait(*job);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
}

}  // namespace
}  // namespace weir::compress
