#include "stream/commit_signal.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace weir::stream {

CommitSignals& CommitSignals::Global() {
  static CommitSignals* signals = new CommitSignals();  // never destroyed: used until exit
  return *signals;
}

// One name per table however its path was spelled ("a/b/", "a/./b").
std::string CommitSignals::Key(const std::string& path) {
  std::string key = std::filesystem::path(path).lexically_normal().string();
  while (key.size() > 1 && key.back() == '/') key.pop_back();
  return key;
}

uint64_t CommitSignals::Count(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = tables_.find(Key(path));
  return it == tables_.end() ? 0 : it->second.commits;
}

void CommitSignals::Notify(const std::string& path) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++tables_[Key(path)].commits;
  }
  changed_.notify_all();
}

bool CommitSignals::HasWriter(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = tables_.find(Key(path));
  return it != tables_.end() && it->second.writers > 0;
}

void CommitSignals::AddWriter(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++tables_[Key(path)].writers;
}

void CommitSignals::RemoveWriter(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = tables_.find(Key(path));
  if (it != tables_.end() && it->second.writers > 0) --it->second.writers;
}

bool CommitSignals::WaitForChange(const std::string& path, uint64_t seen, int64_t timeout_ms,
                                  const std::atomic<bool>* stop) {
  const std::string key = Key(path);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::unique_lock<std::mutex> lock(mutex_);
  auto moved = [&] {
    auto it = tables_.find(key);
    return (it == tables_.end() ? 0 : it->second.commits) != seen;
  };
  while (!moved()) {
    if (stop != nullptr && stop->load()) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    changed_.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(100)));
  }
  return true;
}

void CommitSignals::WakeAll() { changed_.notify_all(); }

}  // namespace weir::stream
