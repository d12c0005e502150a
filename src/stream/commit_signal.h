// CommitSignals: how a flow learns that a table it reads as a stream got a new commit from a
// writer in the same process, without polling the table's log. Every TableSink announces its
// commits (Notify) and registers itself as the table's writer while it is open; a Delta source
// with no new data waits (WaitForChange) until its table's count of commits moves. Writers in
// other processes are not seen here: a reader still looks at the log, less often, when its table
// has a writer in this process, and as before otherwise. Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace weir::stream {

class CommitSignals {
 public:
  // The process's one instance.
  static CommitSignals& Global();

  // The number of commits announced for the table at `path` so far.
  uint64_t Count(const std::string& path);
  // A commit of the table at `path` is visible in its log.
  void Notify(const std::string& path);
  // Whether a writer in this process has the table at `path` open.
  bool HasWriter(const std::string& path);
  void AddWriter(const std::string& path);
  void RemoveWriter(const std::string& path);

  // Waits until the table's count differs from `seen`, `timeout_ms` passed, or `*stop` is set
  // (looked at every 100 ms, or at once after WakeAll). Returns true when the count moved.
  bool WaitForChange(const std::string& path, uint64_t seen, int64_t timeout_ms,
                     const std::atomic<bool>* stop);
  // Wakes every waiter (a stop was requested).
  void WakeAll();

 private:
  struct Table {
    uint64_t commits = 0;
    int writers = 0;
  };
  static std::string Key(const std::string& path);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, Table> tables_;
};

}  // namespace weir::stream
