#include "compress/background.h"

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

  void Run() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      queued.wait(lock, [&] { return !jobs.empty(); });
      std::shared_ptr<Job> job = std::move(jobs.front());
      jobs.pop_front();
      lock.unlock();
      job->output.clear();
      Status st = Compress(job->codec, job->level, job->body(), &job->output);
      lock.lock();
      job->status = std::move(st);
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
  state_->done.wait(lock, [&] { return job.done; });
  return job.status;
}

}  // namespace weir::compress
