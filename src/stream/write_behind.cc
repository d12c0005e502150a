#include "stream/write_behind.h"

namespace weir::stream {

WriteBehind::WriteBehind(size_t depth) : depth_(depth == 0 ? 1 : depth) {
  thread_ = std::thread([this] { Run(); });
}

WriteBehind::~WriteBehind() { Stop(); }

Status WriteBehind::Submit(std::function<Status()> write) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !error_.ok() || stopping_ || queue_.size() < depth_; });
  if (!error_.ok()) return error_;
  if (stopping_) return Status::Cancelled("writes stopped");
  queue_.push_back(std::move(write));
  changed_.notify_all();
  return Status::OK();
}

Status WriteBehind::Flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return queue_.empty() && !running_; });
  return error_;
}

void WriteBehind::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void WriteBehind::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    std::function<Status()> write = std::move(queue_.front());
    queue_.pop_front();
    running_ = true;
    lock.unlock();
    Status st = write();
    write = nullptr;  // what it holds (rows) goes now, not with the next write
    lock.lock();
    running_ = false;
    if (!st.ok() && error_.ok()) {
      error_ = std::move(st);
      queue_.clear();
    }
    changed_.notify_all();
  }
}

}  // namespace weir::stream
