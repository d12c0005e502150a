// TableScan: reads the live files of a snapshot into batches of the table's (logical) schema.
//
// Files are read in path order, one Parquet row group per batch. Data columns are found in each
// file by name (by physical name under column mapping); a column missing from a file reads as
// nulls (schema evolution); narrower file types are widened to the table's (int -> long,
// float -> double, decimals to the table's precision and scale); nested struct fields are matched
// by name too. Partition columns are added back as typed constant columns parsed from the add's
// partitionValues. Not thread-safe; the snapshot must outlive the scan.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "delta/snapshot.h"
#include "parquet/reader.h"

namespace weir::delta {

struct ScanOptions {
  // Columns to return, in this order (case-insensitive); all columns in table order when empty.
  std::vector<std::string> columns;
  // The UTC offset (seconds east) of the writer's session time zone, for TIMESTAMP partition
  // values stored without a zone (Spark writes "2021-09-08 11:11:11" in its session time zone;
  // ISO-8601 values with Z carry their zone). 0: UTC.
  int64_t zoneless_partition_timestamp_offset_seconds = 0;
};

class TableScan {
 public:
  // InvalidArgument naming an unknown column.
  static Result<std::unique_ptr<TableScan>> Make(std::shared_ptr<const Snapshot> snapshot,
                                                 ScanOptions options = {});

  // The schema of every batch returned.
  const columnar::Schema& schema() const { return schema_; }
  // The next batch, or nullopt after the last file. Errors name the data file.
  Result<std::optional<columnar::Batch>> Next();
  // Reads every row of one file of the snapshot into one batch (independent of Next()).
  Result<columnar::Batch> ReadFile(const AddFile& add) const;

  // One file of the snapshot read a row group at a time (memory: one row group's columns).
  class FileRowGroups {
   public:
    // The next row group's rows (schema()), or nullopt after the last.
    Result<std::optional<columnar::Batch>> Next();

   private:
    friend class TableScan;
    const TableScan* scan_ = nullptr;
    AddFile add_;
    std::unique_ptr<parquet::ParquetReader> reader_;
    int next_group_ = 0;
  };
  // REQUIRES: the scan outlives the result.
  Result<std::unique_ptr<FileRowGroups>> OpenRowGroups(const AddFile& add) const;

 private:
  TableScan() = default;
  Result<std::unique_ptr<parquet::ParquetReader>> OpenFile(const AddFile& add) const;
  Result<columnar::Batch> ReadRowGroup(parquet::ParquetReader& reader, const AddFile& add,
                                       int group) const;

  std::shared_ptr<const Snapshot> snapshot_;
  columnar::Schema schema_;
  ScanOptions options_;
  std::vector<int> table_field_;  // schema_ field i is snapshot schema field table_field_[i]
  std::vector<bool> is_partition_;
  std::vector<std::shared_ptr<const AddFile>> files_;
  size_t next_file_ = 0;
  const AddFile* current_add_ = nullptr;
  std::unique_ptr<parquet::ParquetReader> reader_;
  int next_group_ = 0;
};

}  // namespace weir::delta
