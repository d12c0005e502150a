// Parquet value and level encodings (Encodings.md): bit packing, the RLE/bit-packed hybrid, PLAIN,
// dictionary building, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
// BYTE_STREAM_SPLIT. Decoders treat input as hostile: every read is bounds-checked and bad input is
// Status::Corruption, never a crash or an allocation the input cannot justify (callers size the
// output arrays, so they must bound `num_values` first, e.g. by the page header). Decoded byte
// arrays are std::string_view into the input (or into an arena the caller owns). No per-value
// allocation or virtual call. Little-endian hosts only. Classes are thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace weir::parquet {

// A 12-byte INT96 value as stored (legacy timestamps: 8 bytes of nanos, then 4 bytes of Julian
// day).
struct Int96 {
  uint32_t words[3];
  bool operator==(const Int96&) const = default;
};
static_assert(sizeof(Int96) == 12);

// Number of bits needed to represent `max_value` (0 for 0, 64 for values >= 2^63).
int BitWidth(uint64_t max_value);

// ---------------------------------------------------------------------------------------------
// Bit packing, LSB first (the RLE/bit-packed hybrid's order, also PLAIN BOOLEAN's).

// Appends ceil(count * bit_width / 8) bytes. Bits of a value above bit_width are ignored.
// REQUIRES: 0 <= bit_width <= 32 (64 for the uint64_t overload).
void PackBits(const uint32_t* values, int64_t count, int bit_width, std::string* out);
void PackBits(const uint64_t* values, int64_t count, int bit_width, std::string* out);
// Reads `count` values of bit_width bits from data[0, len). Corruption if len is too short or
// bit_width too wide for the output type.
Status UnpackBits(const uint8_t* data, size_t len, int bit_width, int64_t count, uint32_t* out);
Status UnpackBits(const uint8_t* data, size_t len, int bit_width, int64_t count, uint64_t* out);

// ---------------------------------------------------------------------------------------------
// RLE / bit-packed hybrid (RLE = 3): definition and repetition levels, dictionary indices,
// booleans in v2 pages.

// Encodes values of a fixed bit width: runs of >= 8 equal values become RLE runs, everything else
// bit-packed groups of 8 (the last group padded with zeros). Put() calls may be mixed freely.
// REQUIRES: 0 <= bit_width <= 32 and every value fits in bit_width bits.
class RleBitPackedEncoder {
 public:
  explicit RleBitPackedEncoder(int bit_width);

  void Put(uint32_t value);
  void Put(const uint32_t* values, int64_t count);
  void Put(const uint16_t* values, int64_t count);
  void Put(const uint8_t* values, int64_t count);

  // Bytes the encoding would take if flushed now (exact for what is committed, an upper bound
  // for the pending run).
  size_t EstimatedSize() const;
  // Appends the encoded bytes (the bare form: v2 page levels, dictionary indices after their
  // bit-width byte) and resets the encoder for reuse.
  void Flush(std::string* out);
  // Appends a 4-byte little-endian length, then the encoded bytes (v1 page levels, RLE booleans).
  void FlushWithLengthPrefix(std::string* out);

  int bit_width() const { return bit_width_; }

 private:
  template <typename T>
  void PutBatch(const T* values, int64_t count);
  void CommitRun(uint32_t value, int64_t length);
  void FlushPendingGroup();
  void PackLiteralGroup(const uint32_t* values);
  void CloseLiteralRun();
  void WriteRleRun(uint32_t value, int64_t length);
  void Finish();

  int bit_width_;
  std::string buffer_;
  uint32_t run_value_ = 0;  // the trailing run of equal values, not yet committed
  int64_t run_length_ = 0;
  uint32_t pending_[8] = {};  // committed literal values not yet packed (a partial group)
  int num_pending_ = 0;
  size_t literal_header_pos_ = 0;  // where the open bit-packed run's 1-byte header goes
  int literal_groups_ = 0;         // groups in the open bit-packed run (0 = none open)
};

// Decodes the bare form from data[0, len), which must outlive the decoder.
class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder() = default;
  RleBitPackedDecoder(const uint8_t* data, size_t len, int bit_width)
      : data_(data), len_(len), bit_width_(bit_width) {}

  // The length-prefixed form; *consumed = 4 + the length.
  static Status OpenLengthPrefixed(const uint8_t* data, size_t len, int bit_width,
                                   RleBitPackedDecoder* out, size_t* consumed);
  // Dictionary indices: a 1-byte bit width (<= 32), then the bare form up to `len`.
  static Status OpenDictionaryIndices(const uint8_t* data, size_t len, RleBitPackedDecoder* out);

  int bit_width() const { return bit_width_; }

  // Decodes the next `count` values. Corruption if the input ends first or is malformed, or the
  // bit width is too wide for the output type.
  Status GetBatch(uint32_t* out, int64_t count);
  Status GetBatch(uint16_t* out, int64_t count);
  Status GetBatch(uint8_t* out, int64_t count);

 private:
  template <typename T>
  Status Decode(T* out, int64_t count);
  Status NextRun();

  const uint8_t* data_ = nullptr;
  size_t len_ = 0;
  size_t pos_ = 0;
  int bit_width_ = 0;
  int64_t values_read_ = 0;
  int64_t rle_remaining_ = 0;
  uint32_t rle_value_ = 0;
  int64_t literal_remaining_ = 0;  // values left in the current bit-packed run
  const uint8_t* literal_ = nullptr;
  size_t literal_bytes_ = 0;
  uint32_t group_[8] = {};  // a partly consumed bit-packed group
  int group_pos_ = 0;
  int group_end_ = 0;
};

// ---------------------------------------------------------------------------------------------
// PLAIN (= 0). Encoders append; decoders read `num_values` values from data[0, len) and set
// *consumed to the bytes they took.

void EncodePlain(const int32_t* values, int64_t count, std::string* out);
void EncodePlain(const int64_t* values, int64_t count, std::string* out);
void EncodePlain(const Int96* values, int64_t count, std::string* out);
void EncodePlain(const float* values, int64_t count, std::string* out);
void EncodePlain(const double* values, int64_t count, std::string* out);
// Booleans as bytes (non-zero = true), bit-packed LSB first.
void EncodePlainBoolean(const uint8_t* values, int64_t count, std::string* out);
void EncodePlainByteArray(const std::string_view* values, int64_t count, std::string* out);
// REQUIRES: every value is exactly `width` bytes.
void EncodePlainFixedLenByteArray(const std::string_view* values, int64_t count, int width,
                                  std::string* out);

Status DecodePlain(const uint8_t* data, size_t len, int64_t num_values, int32_t* out,
                   size_t* consumed);
Status DecodePlain(const uint8_t* data, size_t len, int64_t num_values, int64_t* out,
                   size_t* consumed);
Status DecodePlain(const uint8_t* data, size_t len, int64_t num_values, Int96* out,
                   size_t* consumed);
Status DecodePlain(const uint8_t* data, size_t len, int64_t num_values, float* out,
                   size_t* consumed);
Status DecodePlain(const uint8_t* data, size_t len, int64_t num_values, double* out,
                   size_t* consumed);
// Writes 0 or 1 per value.
Status DecodePlainBoolean(const uint8_t* data, size_t len, int64_t num_values, uint8_t* out,
                          size_t* consumed);
// Views into `data`.
Status DecodePlainByteArray(const uint8_t* data, size_t len, int64_t num_values,
                            std::string_view* out, size_t* consumed);
Status DecodePlainFixedLenByteArray(const uint8_t* data, size_t len, int64_t num_values, int width,
                                    std::string_view* out, size_t* consumed);

// ---------------------------------------------------------------------------------------------
// Dictionary building (RLE_DICTIONARY = 8). Values map to dense indices in first-seen order; the
// caller RLE-encodes the indices with bit width BitWidth(size() - 1) and writes the dictionary page
// with WritePlain(). plain_size() lets a writer fall back to PLAIN when the dictionary grows too
// big. No allocation per value: entries live in one arena and an open-addressing table.

class ByteArrayDictionary {
 public:
  ByteArrayDictionary();

  // The index of `value`, added if new.
  uint32_t Insert(std::string_view value);
  void Insert(const std::string_view* values, int64_t count, uint32_t* indices);

  int64_t size() const { return static_cast<int64_t>(offsets_.size()) - 1; }
  // Size of the PLAIN BYTE_ARRAY dictionary page: 4 + length per entry.
  int64_t plain_size() const { return static_cast<int64_t>(arena_.size()) + 4 * size(); }
  std::string_view value(uint32_t index) const {
    return std::string_view(arena_).substr(offsets_[index], offsets_[index + 1] - offsets_[index]);
  }
  // Appends the dictionary page body: PLAIN BYTE_ARRAY values.
  void WritePlain(std::string* out) const;
  // Appends the entries back to back (PLAIN FIXED_LEN_BYTE_ARRAY, when all have one width).
  void WritePlainFixedLen(std::string* out) const { out->append(arena_); }
  void Clear();

 private:
  struct Slot {
    uint32_t hash;            // the value's hash; its top bits pick the slot
    uint32_t index_plus_one;  // 0 = empty
  };
  uint32_t InsertHashed(std::string_view value, uint32_t hash);
  size_t SlotFor(uint32_t hash) const;
  void Grow();

  std::string arena_;
  std::vector<uint64_t> offsets_;  // size() + 1 entries
  std::vector<Slot> slots_;        // power-of-two size, at most half full
};

// For INT32, INT64, FLOAT and DOUBLE: values are compared by their bits (so -0.0 and 0.0 are
// distinct entries, and NaNs with equal bits are one entry), which is what PLAIN round-trips.
template <typename T>
class FixedWidthDictionary {
 public:
  FixedWidthDictionary();

  uint32_t Insert(T value);
  void Insert(const T* values, int64_t count, uint32_t* indices);

  int64_t size() const { return static_cast<int64_t>(values_.size()); }
  int64_t plain_size() const { return size() * static_cast<int64_t>(sizeof(T)); }
  const std::vector<T>& values() const { return values_; }
  void WritePlain(std::string* out) const { EncodePlain(values_.data(), size(), out); }
  void Clear();

 private:
  uint32_t InsertHashed(T value, uint64_t hash);
  void Grow();

  std::vector<T> values_;
  std::vector<uint32_t> slots_;  // index + 1, 0 = empty; power-of-two size, at most half full
};

extern template class FixedWidthDictionary<int32_t>;
extern template class FixedWidthDictionary<int64_t>;
extern template class FixedWidthDictionary<float>;
extern template class FixedWidthDictionary<double>;

// ---------------------------------------------------------------------------------------------
// DELTA_BINARY_PACKED (= 5). The header's value count must equal `num_values`. *consumed is the
// end of the encoded stream (the last miniblock's padding included, as the spec requires).
// Decoding wraps modulo 2^32 (INT32) or 2^64 (INT64), as parquet-mr, Arrow and DuckDB do, so
// writers that let deltas overflow are read correctly; miniblock bit widths may be up to 33 for
// INT32 (DuckDB writes 33-bit deltas for columns spanning the whole range) and 64 for INT64; wider
// is Corruption.

Status DecodeDeltaBinaryPacked(const uint8_t* data, size_t len, int64_t num_values, int32_t* out,
                               size_t* consumed);
Status DecodeDeltaBinaryPacked(const uint8_t* data, size_t len, int64_t num_values, int64_t* out,
                               size_t* consumed);
// Blocks of 128 values in 4 miniblocks of 32 (parquet-mr's and Arrow's layout).
void EncodeDeltaBinaryPacked(const int32_t* values, int64_t count, std::string* out);
void EncodeDeltaBinaryPacked(const int64_t* values, int64_t count, std::string* out);

// DELTA_LENGTH_BYTE_ARRAY (= 6): delta-encoded lengths, then the bytes. Views into `data`.
Status DecodeDeltaLengthByteArray(const uint8_t* data, size_t len, int64_t num_values,
                                  std::string_view* out, size_t* consumed);
void EncodeDeltaLengthByteArray(const std::string_view* values, int64_t count, std::string* out);

// DELTA_BYTE_ARRAY (= 7): delta-encoded prefix lengths, then the suffixes as
// DELTA_LENGTH_BYTE_ARRAY. Values are materialized into *arena (replacing its contents); the views
// stay valid until *arena is next modified. Corruption if they would exceed max_output_bytes.
Status DecodeDeltaByteArray(const uint8_t* data, size_t len, int64_t num_values, std::string* arena,
                            std::string_view* out, size_t* consumed,
                            size_t max_output_bytes = size_t{1} << 31);
void EncodeDeltaByteArray(const std::string_view* values, int64_t count, std::string* out);

// ---------------------------------------------------------------------------------------------
// BYTE_STREAM_SPLIT (= 9): `width` byte streams of num_values bytes each. The generic form
// covers FIXED_LEN_BYTE_ARRAY(width); out receives num_values * width bytes.

Status DecodeByteStreamSplit(const uint8_t* data, size_t len, int64_t num_values, int width,
                             uint8_t* out, size_t* consumed);
Status DecodeByteStreamSplit(const uint8_t* data, size_t len, int64_t num_values, float* out,
                             size_t* consumed);
Status DecodeByteStreamSplit(const uint8_t* data, size_t len, int64_t num_values, double* out,
                             size_t* consumed);
Status DecodeByteStreamSplit(const uint8_t* data, size_t len, int64_t num_values, int32_t* out,
                             size_t* consumed);
Status DecodeByteStreamSplit(const uint8_t* data, size_t len, int64_t num_values, int64_t* out,
                             size_t* consumed);
// `values` holds count * width bytes (the values back to back).
void EncodeByteStreamSplit(const uint8_t* values, int64_t count, int width, std::string* out);

}  // namespace weir::parquet
