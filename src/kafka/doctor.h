// Connection doctor for `weir kafka check`: walks the steps a Kafka / Event Hubs connection
// takes (DNS, TCP, metadata with authentication, the subscribed topics' partitions and offsets)
// and stops at the first that fails, saying why it most likely failed (the causes the Event Hubs tutorial's
// troubleshooting section lists). Every text is secret-free. Blocking; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kafka/offsets.h"
#include "kafka/options.h"

namespace weir::kafka {

struct CheckStep {
  std::string name;    // "resolve", "connect", "metadata", "topics", "offsets"
  bool ok = false;
  std::string detail;  // what was done or what failed
  std::string hint;    // the likely cause and what to do (failures, sometimes notes)
};

struct PartitionCheck {
  TopicPartition tp;
  int64_t earliest = -1;
  int64_t latest = -1;
};

struct CheckReport {
  std::vector<CheckStep> steps;
  std::vector<std::string> topics;  // all visible topics (when metadata worked)
  std::vector<PartitionCheck> partitions;
  std::vector<std::string> client_log;  // librdkafka's warnings/errors seen, scrubbed

  bool ok() const;
};

CheckReport RunConnectionCheck(const KafkaSourceOptions& options, int timeout_ms = 10000);

}  // namespace weir::kafka
