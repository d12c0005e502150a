// ParquetReader: reads Parquet files written by weir and by other engines into columnar batches.
//
// Supports every physical type, PLAIN, PLAIN_DICTIONARY/RLE_DICTIONARY, DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT and RLE booleans, data pages v1 and
// v2, every codec weir links (brotli: NotImplemented), nested struct/list/map with legacy layouts.
// Any malformed or truncated input yields Corruption naming the file and what was wrong; memory is
// bounded by one row group of the projected columns. Not thread-safe.
//
// A column of a type weir does not read (TIME, INTERVAL, DECIMAL wider than 38 digits) is left out
// of schema(): the other columns read as usual, and asking for it (by name, or by reading all
// columns) is NotImplemented naming the column and its Parquet type.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "fs/file_system.h"
#include "parquet/format.h"
#include "parquet/schema.h"

namespace weir::parquet {

class ParquetReader {
 public:
  static Result<std::unique_ptr<ParquetReader>> Open(std::unique_ptr<fs::RandomAccessFile> file);
  static Result<std::unique_ptr<ParquetReader>> Open(fs::FileSystem* fs, const std::string& path);

  const FileMetaData& metadata() const { return metadata_; }
  const FileSchema& file_schema() const { return file_schema_; }
  const columnar::Schema& schema() const { return file_schema_.schema; }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t num_rows() const { return metadata_.num_rows; }
  const std::string& path() const { return file_->path(); }

  // Reads row group `index`; `fields` are indexes into schema().fields (all of the file's columns
  // when empty: NotImplemented naming the column if one is of a type weir does not read). The
  // batch's schema holds the projected fields in the order given.
  Result<columnar::Batch> ReadRowGroup(int index, const std::vector<int>& fields = {});
  // Reads every row group into one batch.
  Result<columnar::Batch> ReadAll(const std::vector<int>& fields = {});
  // Field indexes for names (case-insensitive); NotFound naming a missing column, NotImplemented
  // naming a column of a type weir does not read (file_schema().unreadable).
  Result<std::vector<int>> FieldIndexes(const std::vector<std::string>& names) const;

 private:
  ParquetReader() = default;
  Status ReadFooter();
  Status CheckAllReadable() const;

  std::unique_ptr<fs::RandomAccessFile> file_;
  int64_t file_size_ = 0;
  FileMetaData metadata_;
  FileSchema file_schema_;
};

}  // namespace weir::parquet
