// FetchWaker: wakes librdkafka's broker threads so that they fetch again, from a thread of its
// own (the reader never blocks on it).
//
// librdkafka 2.0.2 stops fetching a partition while the consumer queue holds queued.min.messages
// records and decides again only when its broker thread wakes up (up to a second later: it is not
// woken when the application drains the queue; 2.1 added fetch.queue.backoff.ms for this). Any
// request to a broker wakes its thread; Wake() sends one ListOffsets (latest) per leader of the
// given partitions, at most one round at a time, the answers ignored (a round waits for them only
// briefly).
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "kafka/offsets.h"

typedef struct rd_kafka_s rd_kafka_t;

namespace weir::kafka {

class FetchWaker {
 public:
  // REQUIRES: `rk` outlives the waker.
  explicit FetchWaker(rd_kafka_t* rk);
  ~FetchWaker();  // waits for a round in progress (not for its answers)
  FetchWaker(const FetchWaker&) = delete;
  FetchWaker& operator=(const FetchWaker&) = delete;

  // Asks the brokers leading `partitions` for their end offsets, unless a round is in progress.
  void Wake(std::vector<TopicPartition> partitions);
  // Rounds sent so far (tests).
  int64_t rounds() const;

 private:
  void Run();

  rd_kafka_t* rk_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<TopicPartition> next_;  // the partitions of the next round; empty: none asked
  bool busy_ = false;
  bool stopping_ = false;
  int64_t rounds_ = 0;
  std::thread thread_;
};

}  // namespace weir::kafka
