// Prefetcher: runs a producer of items (fetching records and laying them out as columns, and for
// the engine also transforming them) on a background thread, at most `depth` items ahead of the
// consumer (writing them), so that reading and Parquet encoding overlap on two cores while memory
// stays bounded by depth + 2 items. The producer runs on one thread at a time, so it needs no
// locking of its own. The consumer calls Next() from one thread; destruction stops the producer
// and joins it.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "base/result.h"
#include "columnar/column.h"

namespace weir::stream {

template <typename T>
class Prefetcher {
 public:
  // Returns the next item, or nullopt when there are no more; an error ends production.
  using Producer = std::function<Result<std::optional<T>>()>;

  Prefetcher(Producer producer, size_t depth)
      : producer_(std::move(producer)), depth_(depth == 0 ? 1 : depth) {
    thread_ = std::thread([this] { Run(); });
  }
  ~Prefetcher() { Stop(); }
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // The next item in production order, nullopt at the end, or the producer's error (after the
  // items produced before it).
  Result<std::optional<T>> Next() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !ready_.empty() || finished_ || stopping_; });
    if (!ready_.empty()) {
      T item = std::move(ready_.front());
      ready_.pop_front();
      changed_.notify_all();
      return std::optional<T>(std::move(item));
    }
    if (error_) return *error_;
    return std::optional<T>();
  }

  // Stops the producer after its current call and waits for it; later Next() calls return
  // nullopt. The producer's state may be read safely afterwards.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Run() {
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return stopping_ || ready_.size() < depth_; });
        if (stopping_) break;
      }
      Result<std::optional<T>> item = producer_();
      std::lock_guard<std::mutex> lock(mutex_);
      if (!item.ok()) {
        error_ = item.status();
      } else if (*item) {
        ready_.push_back(std::move(**item));
        changed_.notify_all();
        continue;
      }
      break;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
    changed_.notify_all();
  }

  Producer producer_;
  size_t depth_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<T> ready_;
  std::optional<Status> error_;
  bool finished_ = false;  // the producer returned nullopt or an error
  bool stopping_ = false;
  std::thread thread_;
};

// What sources produce: chunks of rows in the source's schema.
using BatchPrefetcher = Prefetcher<columnar::Batch>;

}  // namespace weir::stream
