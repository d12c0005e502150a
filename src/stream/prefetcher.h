// BatchPrefetcher: runs a producer of batches (fetching records and laying them out as columns) on
// a background thread, at most `depth` batches ahead of the consumer (transforming and encoding
// them), so that fetching and Parquet encoding overlap on two cores while memory stays bounded by
// depth + 2 batches. The producer runs on one thread at a time, so it needs no locking of its own.
// The consumer calls Next() from one thread; destruction stops the producer and joins it.
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

class BatchPrefetcher {
 public:
  // Returns the next batch, or nullopt when there are no more; an error ends production.
  using Producer = std::function<Result<std::optional<columnar::Batch>>()>;

  BatchPrefetcher(Producer producer, size_t depth);
  ~BatchPrefetcher();
  BatchPrefetcher(const BatchPrefetcher&) = delete;
  BatchPrefetcher& operator=(const BatchPrefetcher&) = delete;

  // The next batch in production order, nullopt at the end, or the producer's error (after the
  // batches produced before it).
  Result<std::optional<columnar::Batch>> Next();

  // Stops the producer after its current call and waits for it; later Next() calls return
  // nullopt. The producer's state may be read safely afterwards.
  void Stop();

 private:
  void Run();

  Producer producer_;
  size_t depth_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<columnar::Batch> ready_;
  std::optional<Status> error_;
  bool finished_ = false;  // the producer returned nullopt or an error
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace weir::stream
