// DataFileWriter: writes columnar batches into a table's data files and describes them as add
// actions, ready for a Transaction.
//
// Rows go to the file of their partition, in Hive-style directories `col=value/` (values escaped
// as Spark does, null as __HIVE_DEFAULT_PARTITION__); partition columns are not stored in the
// files. Files are named `part-00000-<uuid>.c000.<codec>.parquet` (never reused), compressed
// with delta.parquet.compression.codec (zstd by default) and rolled over once they reach
// delta.targetFileSize. Each add carries the file's exact size and its statistics (stats.h).
// Finish() makes the files and their directory entries durable before returning, so that a
// commit can never reference a file a crash could lose. Files of a writer that is not finished
// are orphans until Abort() deletes them (or VACUUM). Memory: one open Parquet row group per
// partition written to. Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "delta/actions.h"
#include "delta/snapshot.h"
#include "delta/stats.h"
#include "delta/table_config.h"
#include "fs/file_system.h"
#include "parquet/writer.h"

namespace weir::delta {

struct DataWriterOptions {
  // Overrides of the table's properties (mostly for tests).
  std::optional<int64_t> target_file_size;
  std::optional<compress::Codec> codec;
  bool data_change = true;  // add.dataChange (false for compaction)
};

class DataFileWriter {
 public:
  // A writer for the table of `snapshot`; fails when weir may not write it (CheckWritable).
  // REQUIRES: the snapshot's FileSystem outlives the writer.
  static Result<std::unique_ptr<DataFileWriter>> Open(const Snapshot& snapshot,
                                                      DataWriterOptions options = {});
  // A writer for a table given by its parts (table creation, tests).
  static Result<std::unique_ptr<DataFileWriter>> Open(fs::FileSystem* fs, std::string table_root,
                                                      columnar::Schema schema,
                                                      std::vector<std::string> partition_columns,
                                                      TableConfig config,
                                                      DataWriterOptions options = {});
  ~DataFileWriter();

  // Writes the rows of `batch`, whose columns must be the table's (matched by name, in any
  // order, with the table's types but for nested nullability); InvalidArgument otherwise, or for
  // a null in a NOT NULL partition column. Nulls in other NOT NULL columns are the caller's to
  // check (a streaming flow quarantines or refuses such rows before they get here).
  Status Write(const columnar::Batch& batch);
  // Closes every file, syncs them and their directories, and returns one add per file.
  // The writer accepts nothing afterwards.
  Result<std::vector<AddFile>> Finish();
  // Deletes every file written so far (best effort): for a batch that will not be committed.
  void Abort();

  int64_t rows_written() const { return rows_written_; }
  const columnar::Schema& data_schema() const { return data_schema_; }

 private:
  struct OpenFile {
    std::string relative_path;  // decoded, relative to the table root
    std::string full_path;
    PartitionValues partition_values;
    std::unique_ptr<parquet::ParquetWriter> writer;
    std::unique_ptr<StatsCollector> stats;
  };

  DataFileWriter() = default;
  Status WriteToPartition(const std::string& directory, const PartitionValues& values,
                          const columnar::Batch& data);
  Result<OpenFile*> FileFor(const std::string& directory, const PartitionValues& values);
  Status CloseFile(const std::string& directory);

  fs::FileSystem* fs_ = nullptr;
  std::string table_root_;
  columnar::Schema table_schema_;
  columnar::Schema data_schema_;               // table columns minus partition columns
  std::vector<std::string> partition_columns_;  // as named in the table schema
  std::vector<int> partition_field_;            // their indexes in table_schema_
  std::vector<int> data_field_;                 // data_schema_ field i = table_schema_ field
  TableConfig config_;
  DataWriterOptions options_;
  std::string codec_suffix_;

  std::map<std::string, OpenFile> open_;  // by partition directory ("" when unpartitioned)
  std::vector<AddFile> finished_;
  std::vector<std::string> written_paths_;
  std::set<std::string> directories_;  // directories holding new files or new directories
  int file_counter_ = 0;
  int64_t rows_written_ = 0;
  bool done_ = false;
};

}  // namespace weir::delta
