// Avro's binary encoding into weir columns, and the block codecs of object container files.
// Internal to the avro module (AvroReader uses it; tests and the fuzz target call it directly).
//
// Every read is bounded by the bytes given: a length, count or index that the remaining bytes
// cannot hold is Corruption before anything is allocated for it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "avro/schema.h"
#include "base/result.h"
#include "columnar/column.h"

namespace weir::avro {

// A cursor over encoded bytes.
class Cursor {
 public:
  explicit Cursor(std::string_view data)
      : p_(reinterpret_cast<const uint8_t*>(data.data())), end_(p_ + data.size()) {}

  int64_t remaining() const { return end_ - p_; }
  const uint8_t* position() const { return p_; }

  // Zig-zag varints: a long takes at most 10 bytes, an int at most 5 and must fit 32 bits.
  Status ReadLong(int64_t* out);
  Status ReadInt(int32_t* out);
  // A length-prefixed byte string (bytes, string), as a view of the input.
  Status ReadBytes(std::string_view* out);
  Status ReadFixed(int64_t size, std::string_view* out);

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// Decodes `count` records of `record` into `batch` (whose columns are ToSparkSchema() of the
// file's schema). Corruption naming the record (0-based within `data`) and what was wrong, also
// when bytes are left over after the last record; the batch is then unusable (its columns may
// differ in length). REQUIRES: `record` is a record node.
Status DecodeRecords(const Node& record, std::string_view data, int64_t count,
                     columnar::Batch* batch);

// The block codecs of Avro container files ("avro.codec").
enum class BlockCodec { kNull, kDeflate, kSnappy, kZstd };

// "null" (also an absent avro.codec), "deflate", "snappy", "zstandard" (Avro's name) or "zstd";
// NotImplemented for bzip2 and xz; Corruption for any other name.
Result<BlockCodec> BlockCodecFromName(std::string_view name);

// Decompresses one block's data. "null" returns `input` itself; the others decompress into
// `*scratch` and return a view of it. At most `max_bytes` of output (Corruption past it: a block
// that big is a bomb or garbage). Snappy blocks end in the big-endian CRC32 of the uncompressed
// bytes, which is checked.
Result<std::string_view> DecompressBlock(BlockCodec codec, std::string_view input,
                                         int64_t max_bytes, std::string* scratch);

}  // namespace weir::avro
