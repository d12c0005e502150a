#include "kafka/fetch_waker.h"

#include <librdkafka/rdkafka.h>

namespace weir::kafka {

namespace {
// How long a round waits for its answers. The requests wake the brokers' threads as soon as they
// are queued, so nothing needs the answers; but a broker may answer only after a fetch it holds
// open (up to fetch.wait.max.ms), and waiting for that held up the end of reads (the source's
// destructor waits for the round in progress) by up to 45 ms against the embedded broker. The
// readers ask for a round at most every 20 ms (RangeReader::WakeFetchers).
constexpr int kRoundWaitMs = 10;
}  // namespace

FetchWaker::FetchWaker(rd_kafka_t* rk) : rk_(rk) {
  thread_ = std::thread([this] { Run(); });
}

FetchWaker::~FetchWaker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void FetchWaker::Wake(std::vector<TopicPartition> partitions) {
  if (partitions.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (busy_ || !next_.empty()) return;
    next_ = std::move(partitions);
  }
  changed_.notify_all();
}

int64_t FetchWaker::rounds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return rounds_;
}

void FetchWaker::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return stopping_ || !next_.empty(); });
    if (stopping_) return;
    std::vector<TopicPartition> partitions = std::move(next_);
    next_.clear();
    busy_ = true;
    lock.unlock();
    rd_kafka_topic_partition_list_t* list =
        rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size()));
    for (const auto& tp : partitions) {
      rd_kafka_topic_partition_list_add(list, tp.topic.c_str(), tp.partition)->offset =
          RD_KAFKA_OFFSET_END;
    }
    // Errors do not matter here (a request that timed out still goes out; its answer is dropped).
    rd_kafka_offsets_for_times(rk_, list, kRoundWaitMs);
    rd_kafka_topic_partition_list_destroy(list);
    lock.lock();
    busy_ = false;
    ++rounds_;
  }
}

}  // namespace weir::kafka
