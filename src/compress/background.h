// BackgroundCompressor: compresses buffers on one process-wide background thread, so that a
// writer encodes its next page while the previous one is being compressed (encoding and
// compression overlap on two cores; the Parquet writer is the user).
//
// Submit() hands over a buffer and returns at once with a ticket; Wait() returns the result once
// that ticket's buffer is compressed. The background thread takes jobs in submission order, from
// any number of submitting threads; a thread in Wait() compresses queued jobs itself (its own
// first) rather than sleep while they wait. Callers bound their own backlog (the Parquet writer
// keeps at most a few pages of each column in flight).
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "compress/compress.h"

namespace weir::compress {

class BackgroundCompressor {
 public:
  // One job: `input` bytes from `begin` on are compressed into `output`.
  struct Job {
    Codec codec = Codec::kUncompressed;
    int level = kDefaultLevel;
    std::string input;
    size_t begin = 0;
    std::string output;
    Status status;
    bool done = false;  // guarded by the compressor's mutex

    std::string_view body() const { return std::string_view(input).substr(begin); }
  };

  // The process-wide compressor (its thread starts on first use and lives until exit).
  static BackgroundCompressor& Shared();

  // Queues `job` (its codec, level, input and begin set). The job must stay alive until Wait().
  void Submit(std::shared_ptr<Job> job);
  // Returns once `job` is done, having compressed queued jobs meanwhile; returns its status
  // (output holds the compressed bytes when OK).
  Status Wait(Job& job);

 private:
  BackgroundCompressor();
  struct State;
  State* state_;  // never freed: the thread may still be waiting on it at exit
};

}  // namespace weir::compress
