#include "stream/commit_signal.h"

#include <gtest/gtest.h>

#include <thread>

namespace weir::stream {
namespace {

TEST(CommitSignalsTest, AWaiterIsWokenByACommitOfItsTable) {
  CommitSignals signals;
  const uint64_t seen = signals.Count("/lake/a");
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    signals.Notify("/lake/b");  // another table: no wake-up
    signals.Notify("/lake/./a/");  // the same table, spelled differently
  });
  // A generous timeout: the wait ends with the commit, not with it.
  EXPECT_TRUE(signals.WaitForChange("/lake/a", seen, /*timeout_ms=*/60000, nullptr));
  writer.join();
  EXPECT_EQ(signals.Count("/lake/a"), seen + 1);
  EXPECT_EQ(signals.Count("/lake/b"), 1u);
}

TEST(CommitSignalsTest, ACommitBeforeTheWaitIsNotMissed) {
  CommitSignals signals;
  const uint64_t seen = signals.Count("/lake/a");  // as a source takes it before reading the log
  signals.Notify("/lake/a");                        // a commit while it read
  EXPECT_TRUE(signals.WaitForChange("/lake/a", seen, 0, nullptr));
}

TEST(CommitSignalsTest, AWaitEndsAtItsTimeoutOrAStop) {
  CommitSignals signals;
  EXPECT_FALSE(signals.WaitForChange("/lake/a", 0, 20, nullptr));
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop.store(true);
    signals.WakeAll();
  });
  EXPECT_FALSE(signals.WaitForChange("/lake/a", 0, 60000, &stop));
  stopper.join();
}

TEST(CommitSignalsTest, WritersAreCountedPerTable) {
  CommitSignals signals;
  EXPECT_FALSE(signals.HasWriter("/lake/a"));
  signals.AddWriter("/lake/a");
  signals.AddWriter("/lake/a/");
  signals.RemoveWriter("/lake/a");
  EXPECT_TRUE(signals.HasWriter("/lake/a"));
  signals.RemoveWriter("/lake/a");
  EXPECT_FALSE(signals.HasWriter("/lake/a"));
  signals.RemoveWriter("/lake/a");  // more removals than writers: no underflow
  EXPECT_FALSE(signals.HasWriter("/lake/a"));
}

}  // namespace
}  // namespace weir::stream
