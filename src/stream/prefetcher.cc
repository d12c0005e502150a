#include "stream/prefetcher.h"

namespace weir::stream {

BatchPrefetcher::BatchPrefetcher(Producer producer, size_t depth)
    : producer_(std::move(producer)), depth_(depth == 0 ? 1 : depth) {
  thread_ = std::thread([this] { Run(); });
}

BatchPrefetcher::~BatchPrefetcher() { Stop(); }

void BatchPrefetcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BatchPrefetcher::Run() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return stopping_ || ready_.size() < depth_; });
      if (stopping_) break;
    }
    Result<std::optional<columnar::Batch>> batch = producer_();
    std::lock_guard<std::mutex> lock(mutex_);
    if (!batch.ok()) {
      error_ = batch.status();
    } else if (*batch) {
      ready_.push_back(std::move(**batch));
      changed_.notify_all();
      continue;
    }
    finished_ = true;
    changed_.notify_all();
    break;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  finished_ = true;
  changed_.notify_all();
}

Result<std::optional<columnar::Batch>> BatchPrefetcher::Next() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !ready_.empty() || finished_ || stopping_; });
  if (!ready_.empty()) {
    columnar::Batch batch = std::move(ready_.front());
    ready_.pop_front();
    changed_.notify_all();
    return std::optional<columnar::Batch>(std::move(batch));
  }
  if (error_) return *error_;
  return std::optional<columnar::Batch>();
}

}  // namespace weir::stream
