#include "compress/background.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace weir::compress {

struct BackgroundCompressor::State {
  std::mutex mutex;
  std::condition_variable queued;  // a job was submitted
  std::condition_variable done;    // a job finished
  std::deque<std::shared_ptr<Job>> jobs;

  // Without the mutex: the job is no longer queued, and only its `done` flag is shared.
  static void RunJob(Job& job) {
    job.output.clear();
    job.status = Compress(job.codec, job.level, job.body(), &job.output);
  }

  void Run() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      queued.wait(lock, [&] { return !jobs.empty(); });
      std::shared_ptr<Job> job = std::move(jobs.front());
      jobs.pop_front();
      lock.unlock();
      RunJob(*job);
      lock.lock();
      job->done = true;
      done.notify_all();
    }
  }
};

BackgroundCompressor::BackgroundCompressor() : state_(new State) {
  std::thread([state = state_] { state->Run(); }).detach();
}

BackgroundCompressor& BackgroundCompressor::Shared() {
  // Leaked on purpose: no destructor may join a thread that is blocked at exit.
  static BackgroundCompressor* shared = new BackgroundCompressor();
  return *shared;
}

void BackgroundCompressor::Submit(std::shared_ptr<Job> job) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    job->done = false;
    state_->jobs.push_back(std::move(job));
  }
  state_->queued.notify_one();
}

Status BackgroundCompressor::Wait(Job& job) {
  std::unique_lock<std::mutex> lock(state_->mutex);
  // A caller that would sleep while jobs queue compresses them itself: its own job when it is
  // still queued, else the oldest. A writer finishing a file (all its pages waited for) then
  // works beside the background thread instead of idling until the queue drains.
  while (!job.done && !state_->jobs.empty()) {
    auto own = std::find_if(state_->jobs.begin(), state_->jobs.end(),
                            [&](const std::shared_ptr<Job>& queued) { return queued.get() == &job; });
    auto take = own != state_->jobs.end() ? own : state_->jobs.begin();
    std::shared_ptr<Job> taken = std::move(*take);
    state_->jobs.erase(take);
    lock.unlock();
    state_->RunJob(*taken);
    lock.lock();
    taken->done = true;
    state_->done.notify_all();
  }
  state_->done.wait(lock, [&] { return job.done; });
  return job.status;
}

}  // namespace weir::compress
