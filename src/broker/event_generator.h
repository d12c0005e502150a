// EventGenerator: a deterministic stream of sample order events shaped like the tutorial's
// {"event_id":"e1","order_id":"SO-1","status":"created","amount":"10.50","event_time":...} plus
// realistic fields (~220 bytes each), with chosen fractions of at-least-once duplicates, malformed
// payloads and late events. The same options give byte-identical events in the same order.
// Thread-compatible (one generator per thread).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace weir::broker {

struct EventGeneratorOptions {
  uint64_t seed = 1;
  // Fractions of all events; each in [0, 1], together at most 1.
  double duplicate_fraction = 0.0;  // re-sends of a recent on-time event: same key and payload
  double malformed_fraction = 0.0;  // not JSON (truncated, text) or JSON without event_id
  double late_fraction = 0.0;       // new events whose event_time is late_by_ms behind the stream
  // Event time of event 0; -1 derives it from the seed: 2026-06-08T09:00:00Z (the tutorial's
  // time) for seed 1, one hour later per seed: + ((seed - 1) mod 1000) hours.
  int64_t base_time_ms = -1;
  int64_t step_ms = 1;  // the stream's event time advances this much per event
  int64_t late_by_ms = 2 * 3600 * 1000;
};

// InvalidArgument naming the bad option.
Status ValidateEventGeneratorOptions(const EventGeneratorOptions& options);

enum class EventKind : uint8_t {
  kValid,      // a new event_id, on time
  kLate,       // a new event_id, event_time late_by_ms behind the stream
  kDuplicate,  // an earlier kValid event re-sent unchanged
  kMalformed,  // no usable event_id: invalid JSON, or a JSON object without event_id
};

struct GeneratedEvent {
  uint64_t sequence = 0;  // position in the stream, from 0
  EventKind kind = EventKind::kValid;
  std::string key;  // the order_id; every event has one, so partitioning is deterministic
  std::string payload;
  std::string event_id;       // empty for kMalformed
  int64_t event_time_ms = 0;  // the event_time in the payload (for kMalformed: the stream's)
};

struct EventCounts {
  uint64_t total = 0;
  uint64_t valid = 0;  // kValid
  uint64_t late = 0;
  uint64_t duplicates = 0;
  uint64_t malformed = 0;
  // Distinct event_ids among well-formed events: what a deduplicating reader keeps.
  uint64_t distinct_event_ids() const { return valid + late; }
};

// "2026-06-08T09:00:00.001Z" for a Unix time in milliseconds (UTC, millisecond precision).
std::string FormatEventTime(int64_t unix_ms);

class EventGenerator {
 public:
  // REQUIRES: ValidateEventGeneratorOptions(options).ok().
  explicit EventGenerator(const EventGeneratorOptions& options);

  // Overwrites *event with the next event of the stream, reusing its buffers.
  void Next(GeneratedEvent* event);
  const EventCounts& counts() const { return counts_; }
  int64_t base_time_ms() const { return base_time_ms_; }

 private:
  struct Order {
    uint64_t number = 0;
    int status = 0;  // index into the status list; advances as the order progresses
    int64_t amount_cents = 0;
    uint32_t customer = 0;
    uint32_t sku = 0;
    uint8_t quantity = 1;
    uint8_t currency = 0;
    uint8_t channel = 0;
    uint8_t region = 0;
  };
  struct SentEvent {
    std::string key;
    std::string payload;
    std::string event_id;
    int64_t event_time_ms = 0;
  };

  uint64_t NextRandom();
  double NextUniform();  // [0, 1)
  uint64_t NextBelow(uint64_t bound);
  Order& PickOrderForNewEvent();
  void AppendOrderJson(const Order& order, const std::string* event_id, int64_t event_time_ms,
                       std::string* out) const;
  void MakeMalformed(GeneratedEvent* event, int64_t now_ms);

  EventGeneratorOptions options_;
  int64_t base_time_ms_ = 0;
  uint64_t rng_state_ = 0;
  uint64_t next_event_number_ = 1;
  uint64_t next_order_number_ = 1;
  std::vector<Order> open_orders_;
  std::vector<SentEvent> recent_;  // ring of recent kValid events, source of duplicates
  size_t recent_next_ = 0;
  EventCounts counts_;
};

}  // namespace weir::broker
