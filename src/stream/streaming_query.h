// StreamingQuery: one flow from a Kafka / Event Hubs topic or a Delta table into one Delta table,
// run as Spark's MicroBatchExecution runs it, exactly once:
//   latestOffset -> offsets/N written (walCommit) -> records read and transformed (getBatch) ->
//   data files + one Delta commit with txn(appId = query id, version = N) and, per Kafka source
//   partition, txn(appId = "weir:<flow>:<topic>:<partition>", version = next offset) (addBatch) ->
//   commits/N written (commitOffsets) -> progress reported.
// A batch whose txn is already in the table is skipped; a batch logged but not committed is re-run
// over exactly its logged range. Without a checkpoint, a table holding this flow's per-partition
// txns resumes from them. Memory is bounded by five chunks of records (four read ahead) plus one
// Parquet row group.
// Not thread-safe: Run() on one thread; RequestStop() from any.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "delta/merge.h"
#include "fs/file_system.h"
#include "kafka/options.h"
#include "stream/progress.h"
#include "stream/trigger.h"

namespace weir::stream {

// What a Transform makes of one chunk of source rows.
struct TransformResult {
  columnar::Batch rows;         // for the flow's table
  columnar::Batch quarantined;  // for the quarantine table (quarantine_schema()); may be empty
  // Flows with a WATERMARK: the event time (TIMESTAMP) of each row of `rows`.
  std::optional<columnar::Column> event_time;
};

// The flow's SELECT: turns source rows into table rows. Implementations must not keep references
// to the input beyond Apply() unless they share its buffers (Column::ShareBuffersFrom).
class Transform {
 public:
  virtual ~Transform() = default;
  virtual const columnar::Schema& output_schema() const = 0;
  // The quarantine table's schema, or nullptr when the flow has none.
  virtual const columnar::Schema* quarantine_schema() const { return nullptr; }
  // The WATERMARK clause: the event-time column's name and the delay; nullopt without one.
  struct Watermark {
    std::string column;
    int64_t delay_ms = 0;
  };
  virtual std::optional<Watermark> watermark() const { return std::nullopt; }
  // `batch_timestamp_ms` is the batch's logical time (current_timestamp() in Spark). An error
  // stops the flow (an expectation with ON VIOLATION FAIL UPDATE, ANSI errors without a
  // quarantine table).
  virtual Result<TransformResult> Apply(const columnar::Batch& input, int64_t batch_timestamp_ms) = 0;
  // The counts since the last call (expectations, drops, quarantined rows); empty when the flow
  // has neither expectations nor a quarantine table.
  virtual std::optional<DataQualityMetrics> TakeMetrics() { return std::nullopt; }
  // Output columns the table holds NOT NULL although the flow may leave them null (Delta's
  // rule: such writes are checked row by row): a row with a null there is quarantined when the
  // flow has a quarantine table, else Apply fails naming the column and the row.
  virtual Status CheckNotNull(const std::vector<std::string>& columns) {
    return columns.empty() ? Status::OK()
                           : Status::NotImplemented("this flow cannot check NOT NULL columns");
  }
};

// A flow: one source (a Kafka subscription or a Delta table) into one Delta table.
struct FlowSpec {
  std::string name;            // the streaming table's full name, e.g. sales.bronze.orders_raw
  std::string table_path;      // the Delta table folder
  std::string checkpoint_dir;  // the flow's checkpoint folder
  // The source: exactly one of these.
  std::optional<kafka::KafkaSourceOptions> kafka;
  struct DeltaTable {
    std::string name;  // the source table's full name
    std::string path;
    std::map<std::string, std::string> options;  // Delta reader options
  };
  std::optional<DeltaTable> delta;
  // Builds the flow's SELECT once the source's schema is known (a Delta source's schema is read
  // when the flow starts); null: write the source rows as they are.
  std::function<Result<std::shared_ptr<Transform>>(const columnar::Schema& input)> make_transform;
  // DROP DUPLICATES [WITHIN WATERMARK] (columns): Spark's dropDuplicates over output columns.
  struct Deduplication {
    bool within_watermark = false;
    std::vector<std::string> columns;
  };
  std::optional<Deduplication> drop_duplicates;
  // MERGE ON (keys) [WHEN MATCHED THEN UPDATE SET *]: upsert each batch into the table.
  struct Merge {
    std::vector<std::string> keys;
    bool when_matched_update = false;
    // MERGE ON (keys) AND <condition over the target>: the condition's conjuncts as the target-
    // side conditions of delta::MergeOptions::prune, evaluated when the merge runs (as Spark
    // evaluates current_timestamp() in a foreachBatch MERGE); null without a condition.
    std::function<Result<std::vector<delta::ColumnCondition>>()> target_conditions;
  };
  std::optional<Merge> merge;
  // The pipeline's spark.databricks.delta.autoCompact.* settings (delta.autoOptimize.autoCompact).
  std::map<std::string, std::string> auto_compact_settings;
  std::string quarantine_name;  // the quarantine table (when the transform has one)
  std::string quarantine_path;
  std::vector<std::string> partition_by;
  std::map<std::string, std::string> table_properties;
  std::optional<std::string> comment;  // COMMENT: the table's description
};

// How far an availableNow run is through the backlog it found at start (offsets; compacted or
// aborted offsets count as done only when reached, so `done` may stay below `total`).
struct BackfillStatus {
  std::string name;
  int64_t done = 0;
  int64_t total = 0;
};

struct QueryOptions {
  Trigger trigger;
  std::function<void(const QueryProgress&)> on_progress;
  std::function<void(const std::string&)> log;  // one line each: warnings, restarts, skips
  // availableNow only: called after each chunk of records (for a progress bar).
  std::function<void(const BackfillStatus&)> on_backfill;
  int64_t chunk_records = 20000;                 // records read, transformed and written at a time
  // processingTime=0 over Kafka: a batch that found only a trickle of records starts the next
  // one no sooner than this after its own start, so that records gather into fewer, larger
  // batches (0: Spark's rule, the next batch at once).
  int64_t coalesce_ms = 200;
  // Worker mode: this process is one of several running the flow, which must read Kafka and
  // append (no state, merge or quarantine); the consumer group of this name splits the
  // partitions (KafkaFlowSource::JoinGroup). The query then keeps its own checkpoint, a log of its
  // batches only, in <checkpoint_dir>/workers/<group>/<run id>: progress lives in the table's
  // per-partition txns. A batch that lost a partition to another worker is abandoned (its files
  // deleted, nothing committed) and the next one is planned from the table.
  std::optional<std::string> workers_group;
};

class StreamingQuery {
 public:
  static Result<std::unique_ptr<StreamingQuery>> Open(fs::FileSystem* fs, FlowSpec spec,
                                                      QueryOptions options);
  ~StreamingQuery();

  // Runs batches until the trigger is done (availableNow, once) or RequestStop(). A stop between
  // batches or inside one leaves no partial commit: the batch is re-run on restart.
  Status Run();
  void RequestStop() { stop_.store(true); }
  // Frees what the query holds (the source's client and fetched records, the tables, the state
  // store) once it will not run again: availableNow's next flow starts without them (the caller
  // may then hand the freed pages back, malloc_trim). Run() fails afterwards; id(),
  // batches_run() and rows_written() stay.
  void Close();

  const std::string& id() const;
  int64_t batches_run() const { return batches_run_; }
  int64_t rows_written() const { return rows_written_; }

 private:
  class Impl;
  explicit StreamingQuery(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::atomic<bool> stop_{false};
  int64_t batches_run_ = 0;
  int64_t rows_written_ = 0;
  bool closed_ = false;
};

}  // namespace weir::stream
