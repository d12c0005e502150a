// TableSink: one Delta table a flow writes, with Spark's Delta-sink idempotency: a batch's files
// are committed together with txn(appId = query id, version = batch id) (plus any per-source
// txns the caller adds), and a batch whose txn is already in the table is not written again.
// The table is created on first use from the flow's output schema; an existing table with another
// schema is refused. With a MERGE clause the batch's rows are upserted on key columns (delta
// MergeInto: deduplicated on the keys, matched rows updated or dropped, the rest inserted) in the
// same commit as the txns, instead of appended. Not thread-safe: one batch at a time.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "delta/data_writer.h"
#include "delta/merge.h"
#include "delta/table.h"
#include "delta/transaction.h"
#include "fs/file_system.h"

namespace weir::stream {

struct TableSinkOptions {
  std::string name;  // the table's full name, for messages
  std::string path;  // the Delta table folder
  columnar::Schema schema;
  std::vector<std::string> partition_by;
  // TBLPROPERTIES and COMMENT of the definition: set at creation, and applied to an existing
  // table whose properties or description differ (a metadata commit), as DLT applies changed
  // properties on the next update. Keys no longer listed are left as they are.
  std::map<std::string, std::string> table_properties;
  std::optional<std::string> description;
  std::function<void(const std::string&)> log;
  // The flow's checkpoint already records committed batches: a missing table is damage (its
  // rows would silently be gone), not a first run. Open fails with Corruption instead of creating.
  bool must_exist = false;
  // MERGE ON (keys) [WHEN MATCHED THEN UPDATE SET *] instead of appends.
  struct Merge {
    std::vector<std::string> keys;
    bool when_matched_update = false;
    // Target-side conditions of the MERGE (FlowSpec::Merge::target_conditions), or null.
    std::function<Result<std::vector<delta::ColumnCondition>>()> target_conditions;
  };
  std::optional<Merge> merge;
  // spark.databricks.delta.autoCompact.* settings of the pipeline (overrides of the table's
  // delta.autoOptimize.autoCompact; see delta::MaybeAutoCompact).
  std::map<std::string, std::string> auto_compact_settings;
};

// Whether rows of `flow`'s schema may be written into a table of `table`'s: the same columns
// (by name, any order) of the same types, nullability aside — a flow's NOT NULL column fits a
// nullable table column (every Spark-created table's), and a nullable one fits a NOT NULL column
// when each row is checked: those columns are returned. InvalidArgument (Spark's "schema
// mismatch", both schemas named) otherwise.
Result<std::vector<std::string>> CheckFlowFitsTable(const columnar::Schema& table,
                                                    const columnar::Schema& flow,
                                                    const std::string& table_path,
                                                    const std::string& flow_name);

class TableSink {
 public:
  static Result<std::unique_ptr<TableSink>> Open(fs::FileSystem* fs, TableSinkOptions options);
  ~TableSink();

  const std::string& name() const { return options_.name; }
  const std::string& path() const { return options_.path; }
  delta::Table& table() { return *table_; }
  // The flow's columns that may be null where the table's are NOT NULL: each row must be
  // checked before it is written (Transform::CheckNotNull).
  const std::vector<std::string>& not_null_checks() const { return not_null_checks_; }

  // Refreshes the table and says whether batch `batch_id` of query `query_id` is in it.
  Result<bool> IsCommitted(const std::string& query_id, int64_t batch_id);

  // Writes rows of the current batch (opening a data file writer on first use).
  Status Write(const columnar::Batch& rows);

  // Commits the batch's files (none is fine: the txn still records the batch) with the query's
  // txn and `extra_txns` (appId -> version). Returns the number of data files committed (0 when
  // a concurrent run of the batch won, whose files are then deleted). `expected_txns` are txns
  // the batch was planned from (delta::Transaction::ExpectTxn): Conflict, with the files
  // deleted, when another writer moved one. An unknown outcome (Unavailable) keeps the files
  // and says so: the flow must stop, and its next run settles the batch from the log.
  Result<int64_t> Commit(const std::string& query_id, int64_t batch_id,
                         const std::map<std::string, int64_t>& extra_txns,
                         const std::map<std::string, std::optional<int64_t>>& expected_txns = {});

  // Deletes the files written for the current batch (never committed).
  void Abort();

 private:
  TableSink(fs::FileSystem* fs, TableSinkOptions options) : fs_(fs), options_(std::move(options)) {}
  Status OpenOrCreate();
  Result<int64_t> CommitBatch(const std::string& query_id, int64_t batch_id,
                              const std::map<std::string, int64_t>& extra_txns,
                              const std::map<std::string, std::optional<int64_t>>& expected_txns);
  Status ApplyDefinitionProperties();
  void AutoCompact(const delta::CommitResult& committed, const std::vector<delta::AddFile>& adds);
  Result<int64_t> CommitMerge(const std::string& query_id, int64_t batch_id,
                              const std::map<std::string, int64_t>& extra_txns);
  void Log(const std::string& line) {
    if (options_.log) options_.log(line);
  }

  fs::FileSystem* fs_;
  TableSinkOptions options_;
  std::unique_ptr<delta::Table> table_;
  // The current batch's transaction (from its first write) and its file writer (owned by it).
  std::unique_ptr<delta::Transaction> txn_;
  delta::DataFileWriter* writer_ = nullptr;
  std::vector<std::string> not_null_checks_;
  std::vector<columnar::Batch> merge_rows_;  // MERGE: the batch's rows (sharing the inputs' buffers)
};

}  // namespace weir::stream
