// WriteBehind: runs a batch's writes (encoding chunks of rows into a table's Parquet files) on
// its own thread, in submission order and at most `depth` writes behind the caller, so that the
// engine's thread goes on with the next chunk (dedup) meanwhile. The first failed write stops the
// rest; its error comes back from the next Submit() or from Flush(). The writes must not touch
// what the caller uses until Flush() or Stop() returned. One caller thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "base/status.h"

namespace weir::stream {

class WriteBehind {
 public:
  explicit WriteBehind(size_t depth);
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  // Queues `write`, waiting while `depth` writes are queued. The error of an earlier write, if
  // one failed (then `write` is not queued).
  Status Submit(std::function<Status()> write);
  // Waits until every queued write ran; the first error.
  Status Flush();
  // Drops the queued writes and waits for the running one.
  void Stop();

 private:
  void Run();

  size_t depth_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<Status()>> queue_;
  bool running_ = false;  // a write is in progress
  bool stopping_ = false;
  Status error_;
  std::thread thread_;
};

}  // namespace weir::stream
