// Streaming deduplication with Spark's semantics (StreamingDeduplicateExec and
// StreamingDeduplicateWithinWatermarkExec): the first row of each key is kept, later rows with the
// same key (in this batch or any later one) are dropped; with a watermark, late rows are dropped
// and state is evicted. State lives in a StateStore (docs/state-format.md). Per batch N:
//   Process(rows, late-events watermark)*  →  EvictExpired(batch N's watermark)  →  Commit(N)
// or Abort() to drop the batch's updates. An in-memory fingerprint of every state key (8 bytes at
// most twice over; within watermark 16, with the key's expiresAt) answers "certainly new" without
// a store lookup. Not thread-safe.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "fs/file_system.h"
#include "stream/fingerprint_set.h"
#include "stream/progress.h"
#include "stream/state_store.h"

namespace weir::stream {

enum class DeduplicateMode {
  // dropDuplicates(keys): state = key; evicted only when the keys include the event-time column
  // (rows whose event time <= the watermark). progress operatorName "dedupe".
  kDropDuplicates,
  // dropDuplicatesWithinWatermark(keys): state = key -> expiresAt (first row's event time + delay);
  // evicted once the watermark >= expiresAt, after which a duplicate passes again.
  // Requires an event-time column. operatorName "dedupeWithinWatermark".
  kWithinWatermark,
};

struct DeduplicateOptions {
  DeduplicateMode mode = DeduplicateMode::kDropDuplicates;
  // Indices into the input schema, in order; empty means every column (Spark's dropDuplicates()).
  std::vector<int> key_columns;
  // The watermarked column (TIMESTAMP or TIMESTAMP_NTZ), or -1 when the stream has no watermark.
  // When set, rows with event time <= the late-events watermark are dropped (a NULL is never late).
  int event_time_column = -1;
  // The watermark delay in milliseconds (expiresAt = event time + delay).
  int64_t delay_ms = 0;
  StateStoreOptions store;  // store.schema is set by Open
};

class Deduplicate {
 public:
  // Opens the operator's state in `state_dir` (StateStoreDir(checkpoint, operatorId)) at
  // `version` = the last committed batch id (-1 for none). InvalidArgument for bad options (column
  // out of range, event-time column not a timestamp, within-watermark without an event-time
  // column) or when the checkpoint's state was written for other keys; StateStore::Open's errors.
  static Result<std::unique_ptr<Deduplicate>> Open(fs::FileSystem* fs, std::string state_dir,
                                                   int64_t version,
                                                   const columnar::Schema& input_schema,
                                                   DeduplicateOptions options);

  // "dedupe" or "dedupeWithinWatermark" (Spark's shortName).
  std::string_view operator_name() const;

  // Filters a batch (or a part of one; call again for the next part): returns the indices of the
  // rows to keep, ascending (usable with expr::TakeRows). `late_events_watermark_ms` is the
  // watermark late rows are judged by: Spark (3.5+, several stateful operators allowed, the
  // default) uses the previous batch's, i.e. offsets/(N-1)'s batchWatermarkMs, 0 for batch 0.
  // REQUIRES: `input` has the schema given to Open.
  Result<std::vector<int32_t>> Process(const columnar::Batch& input,
                                       int64_t late_events_watermark_ms);

  // A hint that up to `rows` rows are coming in this batch (e.g. the source's planned rows): makes
  // room for their keys at once. No effect on the results.
  void Reserve(int64_t rows) { fingerprints_.Reserve(fingerprints_.size() + rows); }

  // Removes state rows that expired at `eviction_watermark_ms` (batch N's own watermark,
  // offsets/N's batchWatermarkMs): dropDuplicates with the event-time column among the keys:
  // rows whose event time <= watermark; within watermark: rows whose expiresAt <= watermark.
  // Also the whole work of a no-data batch.
  Status EvictExpired(int64_t eviction_watermark_ms);

  // Makes the batch's state durable as version `batch_id` and closes the batch's metrics
  // (progress()). Call after EvictExpired.
  Status Commit(int64_t batch_id);
  // Discards the state updates since the last commit (the store is back at its version).
  Status Abort();

  // Spark's shouldRunAnotherBatch: a no-data batch is due when the next batch's watermark is past
  // the one this batch evicted with.
  bool ShouldRunNoDataBatch(int64_t next_watermark_ms, int64_t batch_watermark_ms) const {
    return next_watermark_ms > batch_watermark_ms;
  }

  // The stateOperators entry of the last committed batch (Spark's StateOperatorProgress):
  // numRowsTotal, numRowsUpdated (keys inserted), numRowsRemoved (keys evicted),
  // numRowsDroppedByWatermark, allUpdatesTimeMs, allRemovalsTimeMs, commitTimeMs, memoryUsedBytes,
  // customMetrics {numDroppedDuplicateRows, rocksdbCommitFlushLatency,
  // rocksdbCommitCheckpointLatency, rocksdbCommitFileSyncLatencyMs, rocksdbSstFileSize,
  // rocksdbGetCount, rocksdbPutCount}.
  const StateOperatorProgress& progress() const { return progress_; }

  const StateStore& store() const { return *store_; }

 private:
  Deduplicate(DeduplicateOptions options, columnar::Schema schema,
              std::unique_ptr<StateStore> store);
  void ResetBatchMetrics();
  // Converts a within-watermark state of the earlier layout (rows key -> expiresAt plus an index
  // by time) that Open or Abort loaded into the current one (rows by time; docs/state-format.md).
  Status UpgradeState();
  // Rebuilds fingerprints_ from the store's rows.
  Status LoadFingerprints();
  // Removes the rows whose index entries have a time in [from_micros, through_micros].
  Status EvictRange(int64_t from_micros, int64_t through_micros);

  DeduplicateOptions options_;
  columnar::Schema schema_;
  std::unique_ptr<StateStore> store_;
  // A fingerprint of every key in the store (pending updates included): lookups of new keys,
  // the common case, never reach the store.
  // Within watermark, each with its key's expiresAt, which completes the row's store key.
  FingerprintSet fingerprints_;
  // (fingerprint, expiresAt) of the rows evicted by the batch: removed from fingerprints_ at Commit.
  std::vector<std::pair<uint64_t, int64_t>> evicted_fingerprints_;
  bool index_by_time_ = false;  // dropDuplicates: rows have eviction-time index entries
  bool rows_by_time_ = false;   // within watermark: rows are keyed by time(expiresAt) + key
  // Eviction bookkeeping. The index entries removed by earlier evictions stay in RocksDB as
  // tombstones until compaction, and an iterator walking over millions of them took most of a
  // batch once state was being evicted; so eviction scans only where live entries can be.
  // Every index entry with a time <= evicted_through_micros_ is gone from the committed state,
  // except those in the straggler range (INT64_MIN: nothing known, e.g. after Open).
  int64_t evicted_through_micros_ = std::numeric_limits<int64_t>::min();
  // What evicted_through_micros_ becomes when the batch commits (set by EvictExpired).
  int64_t evicting_through_micros_ = std::numeric_limits<int64_t>::min();
  // Entries added at or below the eviction bound (a NULL event time within the watermark
  // expires at the delay): [straggler_min_micros_, straggler_max_micros_] when set. The
  // batch's eviction covers them (stragglers_evicted_), and its commit then forgets them.
  bool has_stragglers_ = false;
  int64_t straggler_min_micros_ = 0;
  int64_t straggler_max_micros_ = 0;
  bool stragglers_evicted_ = false;
  int event_time_key_position_ = -1;  // kDropDuplicates: position of the event time among keys
  StateOperatorProgress progress_;
  // The running batch.
  int64_t rows_updated_ = 0;
  int64_t rows_removed_ = 0;
  int64_t rows_dropped_by_watermark_ = 0;
  int64_t duplicates_dropped_ = 0;
  int64_t updates_time_ns_ = 0;
  int64_t removals_time_ns_ = 0;
  // Process's block of rows (reused buffers): a row's bytes in block_keys_ are its index key,
  // time(evict_at) + key encoding (docs/state-format.md), the key encoding after kTimeBytes.
  struct BlockRow {
    int32_t row = 0;
    bool indexed = false;  // the row gets an index entry
    int64_t evict_at = 0;
    uint64_t fingerprint = 0;
    size_t begin = 0;  // in block_keys_
    size_t end = 0;
  };
  static constexpr int64_t kBlockRows = 64;
  static constexpr size_t kTimeBytes = 8;
  std::vector<BlockRow> block_;
  std::string block_keys_;
  std::string probe_key_;  // Contains: a row key with another occurrence's time

  // Whether the state (pending updates included) holds r's key. `index_key` is r's bytes.
  Result<bool> Contains(const BlockRow& r, std::string_view index_key);
};

// The key encoding of row `row` over `columns` (docs/state-format.md "Deduplication state"),
// appended to `out`. Exposed for tests and tools.
void EncodeKey(const columnar::Batch& batch, int64_t row, const std::vector<int>& columns,
               std::string* out);

// Order-preserving 8-byte form of a signed microsecond time (index keys).
void AppendOrderedTime(int64_t micros, std::string* out);
int64_t DecodeOrderedTime(std::string_view bytes);

}  // namespace weir::stream
