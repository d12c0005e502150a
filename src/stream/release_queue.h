// ReleaseQueue: batches handed from one thread to another to be freed there.
//
// A batch's encoding thread is its slowest, and at the end of every chunk it freed the chunk's
// Kafka records: librdkafka's messages, one allocation each, last touched when they were fetched.
// That was ~20% of the encoding thread's time in bronze. The encoder now puts written chunks here
// and the query's thread, which mostly waits for the reader and the encoder, frees them after
// each hand-over (StreamingQuery; freeing them on the reading thread made that one the slowest).
// Thread-safe; freeing happens outside the lock.
#pragma once

#include <mutex>
#include <utility>
#include <vector>

#include "columnar/column.h"

namespace weir::stream {

class ReleaseQueue {
 public:
  void Put(columnar::Batch batch) {
    std::lock_guard<std::mutex> lock(mutex_);
    batches_.push_back(std::move(batch));
  }

  // Frees every batch put so far, on the calling thread.
  void Drain() {
    std::vector<columnar::Batch> batches;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      batches.swap(batches_);
    }
  }

 private:
  std::mutex mutex_;
  std::vector<columnar::Batch> batches_;
};

}  // namespace weir::stream
