// AvroReader: reads Avro object container files (Avro 1.x, as written by Apache Avro's libraries,
// fastavro, Spark's spark-avro and Azure Event Hubs Capture) into columnar batches.
//
// File layout: the magic "Obj\x01", the file metadata (a map of bytes: avro.schema, avro.codec,
// anything else), a 16-byte sync marker, then blocks: an object count, a byte size, that many
// bytes of (compressed) records and the sync marker again. Codecs: null, deflate, snappy (with
// its CRC32), zstandard; bzip2 and xz are NotImplemented. The columns are the top-level record's
// fields with spark-avro's types (schema.h).
//
// Untrusted input: every malformed, truncated or oversized part is Corruption naming the file and,
// past the header, the block index and its byte offset — never a crash, and nothing is allocated
// from a size the file claims beyond what its remaining bytes (or, decompressed, max_block_bytes)
// can hold. Memory is bounded by one batch and one block. Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "avro/decoder.h"
#include "avro/schema.h"
#include "base/result.h"
#include "columnar/column.h"
#include "fs/file_system.h"

namespace weir::avro {

struct ReaderOptions {
  // A batch ends after the block that brings it to this many rows.
  int64_t batch_rows = 64 * 1024;
  // ... or to this many bytes of decompressed block data.
  int64_t batch_bytes = int64_t{64} << 20;
  // Largest decompressed (and stored) block accepted.
  int64_t max_block_bytes = int64_t{512} << 20;
};

class AvroReader {
 public:
  static Result<std::unique_ptr<AvroReader>> Open(std::unique_ptr<fs::RandomAccessFile> file,
                                                  ReaderOptions options = {});
  static Result<std::unique_ptr<AvroReader>> Open(fs::FileSystem* fs, const std::string& path,
                                                  ReaderOptions options = {});
  // A file held in memory (tests, fuzzing); `name` stands for its path in messages.
  // REQUIRES: `data` outlives the reader.
  static Result<std::unique_ptr<AvroReader>> OpenBuffer(std::string name, std::string_view data,
                                                        ReaderOptions options = {});

  const std::string& path() const { return file_->path(); }
  // The table columns: the top-level record's fields in Spark's types.
  const columnar::Schema& schema() const { return schema_; }
  const Schema& avro_schema() const { return avro_schema_; }
  // avro.codec as written ("null" when absent).
  const std::string& codec_name() const { return codec_name_; }
  // Every key of the file metadata (avro.schema and avro.codec included).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  // The next batch (one or more whole blocks) into *batch; false (and an empty batch) at the end.
  Result<bool> Next(columnar::Batch* batch);
  // All remaining rows as one batch.
  Result<columnar::Batch> ReadAll();

  int64_t blocks_read() const { return blocks_read_; }
  int64_t rows_read() const { return rows_read_; }

 private:
  AvroReader() = default;
  Status ReadHeader();
  // Reads and decodes the block at offset_ into *batch; *done at the end of the file.
  Status ReadBlock(columnar::Batch* batch, int64_t* decoded_bytes, bool* done);
  Status Fail(const std::string& what) const;

  std::unique_ptr<fs::RandomAccessFile> file_;
  ReaderOptions options_;
  int64_t file_size_ = 0;
  int64_t offset_ = 0;  // of the next block
  std::map<std::string, std::string> metadata_;
  std::string codec_name_ = "null";
  BlockCodec codec_ = BlockCodec::kNull;
  std::string sync_;
  Schema avro_schema_;
  columnar::Schema schema_;
  int64_t blocks_read_ = 0;
  int64_t rows_read_ = 0;
  std::string block_;    // the stored block (and sync marker)
  std::string scratch_;  // its decompressed bytes
};

}  // namespace weir::avro
