// ParquetWriter: writes columnar batches to one Parquet file.
//
// Layout: data page v1, RLE/bit-packed levels, RLE_DICTIONARY per column chunk with a fallback to
// PLAIN once the dictionary passes `dictionary_bytes_limit` or, after a first probe of the chunk's
// values, when it takes as many bytes as PLAIN would (mostly distinct values: the column's later
// chunks in the file are then PLAIN from the start); a codec per file;
// column chunk statistics (min/max in the column's sort order, null_count); footer with
// created_by "weir version X" and key/value metadata. Data pages are compressed on the shared
// background thread (compress::BackgroundCompressor) while the next ones are encoded; the bytes
// written are the same as compressing in place. Memory: one row group's compressed pages, up to
// three uncompressed pages per column in flight and the open pages of each column, so bounded by
// `row_group_bytes`. Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "compress/compress.h"
#include "fs/file_system.h"
#include "parquet/format.h"
#include "parquet/schema.h"

namespace weir::parquet {

struct WriterOptions {
  compress::Codec codec = compress::Codec::kZstd;
  int compression_level = compress::kDefaultLevel;
  int64_t row_group_bytes = 64 << 20;  // compressed bytes buffered before a row group is written
  // Rows of a row group at most (DuckDB's row group size): readers that go a row group at a time
  // (weir's Delta source, DuckDB's threads) hold one group of ~120k rows, not a whole file.
  int64_t row_group_rows = 122880;
  int64_t page_bytes = 1 << 20;        // values + levels of one page, before compression
  int64_t dictionary_bytes_limit = 1 << 20;
  bool enable_dictionary = true;
  bool sync_on_close = true;
  std::vector<KeyValue> key_value_metadata;
};

// Statistics of one leaf over the whole file, as columnar values (for Delta's add.stats).
struct LeafStats {
  int64_t null_count = 0;  // entries with def < max_def (for nested leaves: null or absent)
  bool has_min_max = false;
  columnar::Column min_max{columnar::DataType::Int32()};  // row 0 = min, row 1 = max
};

class ParquetWriter {
 public:
  // REQUIRES: `file` is empty. Every batch written must have `schema` (same types and order).
  static Result<std::unique_ptr<ParquetWriter>> Open(std::unique_ptr<fs::WritableFile> file,
                                                     columnar::Schema schema,
                                                     WriterOptions options = {});
  ~ParquetWriter();

  // InvalidArgument when the batch does not match the schema or a non-nullable field holds a null.
  Status Write(const columnar::Batch& batch);
  // Writes the remaining row group and the footer, syncs (unless disabled) and closes the file.
  Status Close();

  int64_t num_rows() const { return num_rows_; }
  // Bytes written plus buffered (compressed pages and an estimate of open pages).
  int64_t EstimatedSize() const;
  // After Close().
  const FileMetaData& metadata() const { return metadata_; }
  int64_t file_size() const { return file_size_; }
  const FileSchema& file_schema() const { return file_schema_; }
  const std::vector<LeafStats>& leaf_stats() const { return leaf_stats_; }

 private:
  class ColumnWriter;
  ParquetWriter() = default;
  Status FlushRowGroup();

  std::unique_ptr<fs::WritableFile> file_;
  WriterOptions options_;
  FileSchema file_schema_;
  FileMetaData metadata_;
  std::vector<std::unique_ptr<ColumnWriter>> columns_;
  std::vector<LeafStats> leaf_stats_;
  int64_t num_rows_ = 0;
  int64_t row_group_rows_ = 0;
  int64_t offset_ = 0;
  int64_t file_size_ = 0;
  bool closed_ = false;
};

// Convenience: writes `batch` to `path` on `fs` as one file.
Status WriteParquetFile(fs::FileSystem* fs, const std::string& path, const columnar::Batch& batch,
                        WriterOptions options = {});

}  // namespace weir::parquet
