// `weir validate`'s look at the broker: with the source's options (a pipeline's read_kafka
// arguments with --pipeline, or --option / --bootstrap-servers / --topic as `weir kafka read`
// takes them), each gap the table shows is named by what the broker has there
// (kafka/offset_audit.h): transaction markers, aborted transactions (for read_committed flows),
// compacted offsets, offsets deleted by retention, and what remains a real gap. Secrets never reach
// the output: option values with secret names, secret() values and connection strings are scrubbed
// from every message. cli/ only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "delta/snapshot.h"
#include "kafka/offset_audit.h"

namespace weir::cli {

// Declares --pipeline, --flow, --option, --option-file, --bootstrap-servers, --topic and
// --broker-max-records.
void AddGapAuditFlags(Flags& flags);
// Whether any of them names a source to ask.
bool GapAuditRequested(const Flags& flags);
// InvalidArgument for a bad --broker-max-records, or --flow without --pipeline.
Status CheckGapAuditFlags(const Flags& flags);

struct GapAudit {
  // False when the broker could not be asked; `error` says why (secret-free).
  bool consulted = false;
  std::string error;
  std::string topic;
  std::string bootstrap;
  kafka::GapContext context;  // the topic's compaction, the flow's isolation level
  std::string cleanup_policy;
  std::vector<std::string> notes;
  int64_t records_read = 0;
  // Per partition (as the table names it), its gaps' parts in offset order.
  std::map<std::string, std::vector<kafka::GapPart>> parts;
  std::map<std::string, kafka::PartitionObservation> observations;

  // DescribeGapPart for a part of `partition`.
  std::string Describe(const std::string& partition, const kafka::GapPart& part) const;
};

// Asks the broker about `gaps` ([from, to) per partition, as the table names partitions) of the
// table at `table_path`. The topic is --topic, else the options' single subscribed topic, else
// the one the table's weir progress txns name. Never fails: a problem is GapAudit::error.
GapAudit AuditGaps(const Flags& flags, const std::string& table_path,
                   const delta::Snapshot& snapshot,
                   const std::map<std::string, std::vector<kafka::OffsetSpan>>& gaps);

}  // namespace weir::cli
