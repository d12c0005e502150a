// Triggers as Spark has them (S/runtime/TriggerExecutor.scala): processingTime (default 0: the next
// batch as soon as the previous ends), availableNow (everything available at start, in batches that
// honour the rate limits, then stop) and once (one batch ignoring rate limits; deprecated in Spark).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace weir::stream {

struct Trigger {
  enum class Kind { kProcessingTime, kAvailableNow, kOnce };
  Kind kind = Kind::kProcessingTime;
  int64_t interval_ms = 0;

  // "availableNow", "once", "processingTime=10s", "processingTime=10 seconds", "processingTime=0".
  static Result<Trigger> Parse(std::string_view text);
  std::string ToString() const;
  // ProcessingTime: the next trigger time after a batch that started at `start_ms`:
  // floor(now / interval) * interval + interval (Spark's rule), `now` when interval is 0.
  int64_t NextTriggerMs(int64_t now_ms) const;
};

}  // namespace weir::stream
