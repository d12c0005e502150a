// What the broker says about offsets a table lacks (`weir validate` with the source's options).
// A read_committed stream legitimately skips offsets: transaction control records (one offset
// each, never delivered to a client), records of aborted transactions, records removed by
// compaction, and everything below the log start offset once retention deleted it. Everything
// else the table lacks is a real gap.
//
// Two parts: ClassifyGap is pure (a table gap + what the broker showed -> named parts), unit-tested;
// ObserveGaps asks the broker, reading each gap range once with isolation.level=read_uncommitted
// and, where that showed records, once with read_committed (an offset absent from both is a marker
// or compacted; present only in the first, aborted data), plus the partition's earliest, latest
// and last stable offsets and the topic's cleanup.policy (DescribeConfigs). Bounded: at most
// `AuditLimits::max_records` records are read in all; what was not read is "unverified".
// Blocking; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "kafka/options.h"

namespace weir::kafka {

// [from, to) offsets.
struct OffsetSpan {
  int64_t from = 0;
  int64_t to = 0;
  friend bool operator==(const OffsetSpan&, const OffsetSpan&) = default;
};

// Sorted, disjoint, non-adjacent spans (Add merges).
class OffsetSet {
 public:
  void Add(int64_t from, int64_t to);
  void Add(int64_t offset) { Add(offset, offset + 1); }
  bool Contains(int64_t offset) const;
  // The first offset > `offset` where Contains changes, or INT64_MAX.
  int64_t NextChange(int64_t offset) const;
  const std::vector<OffsetSpan>& spans() const { return spans_; }
  bool empty() const { return spans_.empty(); }

 private:
  std::vector<OffsetSpan> spans_;
};

// What the broker showed for one partition.
struct PartitionObservation {
  int64_t log_start = -1;   // earliest offset; -1 unknown
  int64_t log_end = -1;     // latest offset (high watermark); -1 unknown
  int64_t stable_end = -1;  // last stable offset (read_committed's end); -1 unknown
  OffsetSet uncommitted_read;     // offsets read with read_uncommitted
  OffsetSet uncommitted_records;  // ... of which a record came
  OffsetSet committed_read;       // offsets read with read_committed
  OffsetSet committed_records;    // ... of which a record came
  // Why offsets that were not read were not (the limit, a failed read); "" when all were.
  std::string unverified_reason;
};

struct GapContext {
  // cleanup.policy includes compact; nullopt: DescribeConfigs did not tell.
  std::optional<bool> compacted;
  // The flow reads with isolation.level=read_committed (it never sees aborted records).
  bool flow_read_committed = false;
};

enum class GapKind {
  // Explained: no record the flow could have read.
  kRetention,          // below the log start offset: deleted by retention
  kMarker,             // no record in read_uncommitted, topic not compacted: a transaction marker
  kCompactedOrMarker,  // no record in read_uncommitted, compacted topic
  kNoRecord,           // no record in read_uncommitted, cleanup.policy unknown
  kAborted,            // a record only in read_uncommitted, flow read_committed: aborted data
  // Unexplained: real gaps.
  kCommitted,          // a committed record the broker still has
  kAbortedDelivered,   // aborted data, but the flow reads read_uncommitted: it should have it
  kRecord,             // a record (read_uncommitted flow; not read with read_committed)
  kOpenTransaction,    // a record at or above the last stable offset (transaction still open)
  kBeyondEnd,          // at or above the partition's latest offset
  kUnverified,         // not read (limit reached, read failed, broker not asked)
};

bool IsExplained(GapKind kind);
// For JSON: "retention", "transaction_marker", "compacted_or_marker", "no_record",
// "aborted_transaction", "committed", "aborted_read_uncommitted", "record", "open_transaction",
// "beyond_end", "unverified".
const char* GapKindName(GapKind kind);

struct GapPart {
  int64_t from = 0;
  int64_t to = 0;  // exclusive
  GapKind kind = GapKind::kUnverified;
  friend bool operator==(const GapPart&, const GapPart&) = default;
};

// Splits the table's gap [from, to) into parts by what the broker showed (adjacent parts of one
// kind merged, in offset order).
std::vector<GapPart> ClassifyGap(int64_t from, int64_t to, const PartitionObservation& observed,
                                 const GapContext& context);

// "offset 22 transaction marker", "offsets 11-20 aborted transaction", "offsets 0-99 deleted by
// retention (log start offset 100)"; for unexplained parts the reason alone ("committed records
// the broker still has", "unverified: <reason>").
std::string DescribeGapPart(const GapPart& part, const PartitionObservation& observed,
                            const GapContext& context);

struct AuditLimits {
  // Records read from the broker in all (both isolation levels, every partition); offsets not
  // read once it is reached are unverified.
  int64_t max_records = 100000;
  // Gaps of a partition closer than this many table offsets are read as one range (their
  // records in between are read and ignored), bounded per partition by the same number.
  int64_t merge_records = 10000;
  // Reads (one range per partition each) per isolation level; gaps beyond are unverified.
  int max_rounds = 200;
  // The reads' kafkaConsumer.pollTimeoutMs and request timeout when the options set none.
  int64_t poll_timeout_ms = 30000;
  int request_timeout_ms = 15000;
};

struct BrokerObservation {
  std::map<int32_t, PartitionObservation> partitions;
  std::optional<bool> compacted;
  std::string cleanup_policy;  // as DescribeConfigs gave it; "" when unknown
  std::vector<std::string> notes;  // e.g. why cleanup.policy is unknown (secret-free)
  int64_t records_read = 0;
};

// Asks the broker about `gaps` ([from, to) per partition, sorted, disjoint) of `topic`, with the
// source's options as given (Spark's names; `secrets` are extra values to scrub, e.g. a pipeline's
// secret() values). The subscription and starting options are replaced by the topic; reads use
// failOnDataLoss=false. Fails (scrubbed of secrets) when the broker cannot be reached or refuses
// the connection, or the options do not parse; a read that fails part-way leaves the rest
// unverified with its reason.
Result<BrokerObservation> ObserveGaps(const std::map<std::string, std::string>& options,
                                      const std::vector<std::string>& secrets,
                                      const std::string& topic,
                                      const std::map<int32_t, std::vector<OffsetSpan>>& gaps,
                                      const AuditLimits& limits = {});

// Gaps read together: consecutive gaps merged while the table offsets between them add up to at
// most `merge_records` (smallest separations first). Exposed for tests.
std::vector<OffsetSpan> PlanReadSpans(const std::vector<OffsetSpan>& gaps, int64_t merge_records);

}  // namespace weir::kafka
