#include "stream/write_behind.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "base/testing.h"

namespace weir::stream {
namespace {

TEST(WriteBehindTest, RunsEveryWriteInOrderOnAnotherThread) {
  std::vector<int> done;
  std::thread::id caller = std::this_thread::get_id();
  bool other_thread = true;
  WriteBehind writes(2);
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(writes.Submit([&, i] {
      other_thread &= std::this_thread::get_id() != caller;
      done.push_back(i);  // only the writer thread touches `done` until Flush
      return Status::OK();
    }));
  }
  ASSERT_OK(writes.Flush());
  ASSERT_EQ(done.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(done[i], i);
  EXPECT_TRUE(other_thread);
}

TEST(WriteBehindTest, TheFirstErrorStopsLaterWritesAndComesBack) {
  std::atomic<int> ran{0};
  WriteBehind writes(1);
  Status submitted;
  for (int i = 0; i < 50 && submitted.ok(); ++i) {
    submitted = writes.Submit([&, i] {
      ++ran;
      if (i == 3) return Status::IOError("disk full writing part-3");
      return Status::OK();
    });
  }
  Status flushed = writes.Flush();
  EXPECT_EQ(flushed.code(), StatusCode::kIOError) << flushed.ToString();
  EXPECT_NE(flushed.message().find("part-3"), std::string::npos);
  // The write after the failed one may have been queued already, but none runs after the error.
  EXPECT_EQ(ran.load(), 4);
  if (!submitted.ok()) {
    EXPECT_EQ(submitted.code(), StatusCode::kIOError);
  }
  EXPECT_EQ(writes.Submit([] { return Status::OK(); }).code(), StatusCode::kIOError);
}

TEST(WriteBehindTest, StopDropsQueuedWritesAndWaitsForTheRunningOne) {
  std::atomic<bool> started{false}, release{false};
  std::atomic<int> ran{0};
  WriteBehind writes(4);
  ASSERT_OK(writes.Submit([&] {
    started = true;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++ran;
    return Status::OK();
  }));
  for (int i = 0; i < 3; ++i) ASSERT_OK(writes.Submit([&] { ++ran; return Status::OK(); }));
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    release = true;
  });
  writes.Stop();
  releaser.join();
  EXPECT_EQ(ran.load(), 1);  // the running write finished; the queued ones never ran
}

}  // namespace
}  // namespace weir::stream
