#include "parquet/encoding.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "parquet/bytes.h"

namespace weir::parquet {

static_assert(std::endian::native == std::endian::little,
              "weir's Parquet codec assumes a little-endian host");

namespace {

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

constexpr uint64_t LowMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

std::string Num(int64_t v) { return std::to_string(v); }

// Bytes that UnpackGroup8 may read past a group's own kBitWidth bytes.
constexpr size_t kUnpackSlack = 16;

// Unpacks 8 values of kBitWidth bits. REQUIRES: in[0, kBitWidth + kUnpackSlack) is readable; the
// bytes past kBitWidth do not affect the result.
template <typename Out, int kBitWidth>
inline void UnpackGroup8(const uint8_t* in, Out* out) {
  constexpr uint64_t kMask = LowMask(kBitWidth);
  if constexpr (kBitWidth == 0) {
    for (int i = 0; i < 8; ++i) out[i] = 0;
  } else if constexpr (kBitWidth <= 8) {
    const uint64_t word = Load64(in);  // all 8 values lie in the first 8 bytes
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) out[i] = static_cast<Out>((word >> (i * kBitWidth)) & kMask);
  } else {
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      const int bit = i * kBitWidth;
      const int shift = bit & 7;
      const uint8_t* p = in + (bit >> 3);
      uint64_t word = Load64(p) >> shift;
      if (kBitWidth + shift > 64) word |= static_cast<uint64_t>(p[8]) << (64 - shift);
      out[i] = static_cast<Out>(word & kMask);
    }
  }
}

// Unpacks `groups` groups of 8 values. REQUIRES: len >= groups * kBitWidth.
template <typename Out, int kBitWidth>
void UnpackGroups(const uint8_t* in, size_t len, int64_t groups, Out* out) {
  int64_t g = 0;
  if constexpr (kBitWidth > 0) {
    // Groups whose reads (kBitWidth + slack bytes) stay inside the input.
    const int64_t direct =
        len >= kUnpackSlack ? std::min<int64_t>(groups, (len - kUnpackSlack) / kBitWidth) : 0;
    for (; g < direct; ++g) UnpackGroup8<Out, kBitWidth>(in + g * kBitWidth, out + g * 8);
  }
  for (; g < groups; ++g) {
    uint8_t buf[kBitWidth + kUnpackSlack] = {};
    std::memcpy(buf, in + g * kBitWidth, kBitWidth);
    UnpackGroup8<Out, kBitWidth>(buf, out + g * 8);
  }
}

template <typename Out>
using UnpackFn = void (*)(const uint8_t*, size_t, int64_t, Out*);

template <typename Out, size_t... kBitWidths>
constexpr std::array<UnpackFn<Out>, sizeof...(kBitWidths)> MakeUnpackTable(
    std::index_sequence<kBitWidths...>) {
  return {&UnpackGroups<Out, static_cast<int>(kBitWidths)>...};
}

// kUnpack<Out>[w] unpacks groups of w-bit values, for w in [0, kMaxWidth]. A kMaxWidth above the
// bits of Out keeps each value's low bits (the wrapping DELTA_BINARY_PACKED reader needs 33-bit
// deltas for INT32).
template <typename Out, int kMaxWidth = sizeof(Out) * 8>
constexpr auto kUnpack = MakeUnpackTable<Out>(std::make_index_sequence<kMaxWidth + 1>());

// Packs 8 values of kBitWidth bits into kBitWidth bytes.
template <typename In, int kBitWidth>
inline void PackGroup8(const In* in, uint8_t* out) {
  if constexpr (kBitWidth > 0) {
    constexpr uint64_t kMask = LowMask(kBitWidth);
    uint64_t acc = 0;
    int bits = 0;
    auto put = [&](uint64_t v, int n) {  // v < 2^32, n <= 32, bits < 32 on entry
      acc |= v << bits;
      bits += n;
      if (bits >= 32) {
        const uint32_t low = static_cast<uint32_t>(acc);
        std::memcpy(out, &low, 4);
        out += 4;
        acc >>= 32;
        bits -= 32;
      }
    };
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      const uint64_t v = static_cast<uint64_t>(in[i]) & kMask;
      if constexpr (kBitWidth > 32) {
        put(v & 0xFFFFFFFFu, 32);
        put(v >> 32, kBitWidth - 32);
      } else {
        put(v, kBitWidth);
      }
    }
    std::memcpy(out, &acc, bits / 8);  // the rest is whole bytes: 8 * kBitWidth bits in all
  }
}

template <typename In, int kBitWidth>
void PackGroups(const In* in, int64_t groups, uint8_t* out) {
  for (int64_t g = 0; g < groups; ++g) PackGroup8<In, kBitWidth>(in + g * 8, out + g * kBitWidth);
}

template <typename In>
using PackFn = void (*)(const In*, int64_t, uint8_t*);

template <typename In, size_t... kBitWidths>
constexpr std::array<PackFn<In>, sizeof...(kBitWidths)> MakePackTable(
    std::index_sequence<kBitWidths...>) {
  return {&PackGroups<In, static_cast<int>(kBitWidths)>...};
}

template <typename In>
constexpr auto kPack = MakePackTable<In>(std::make_index_sequence<sizeof(In) * 8 + 1>());

template <typename In>
void PackBitsImpl(const In* values, int64_t count, int bit_width, std::string* out) {
  if (count <= 0 || bit_width == 0) return;
  const size_t old_size = out->size();
  const int64_t groups = count / 8;
  const int rest = static_cast<int>(count % 8);
  const size_t bytes = static_cast<size_t>((count * bit_width + 7) / 8);
  out->resize(old_size + bytes);
  uint8_t* dst = reinterpret_cast<uint8_t*>(out->data()) + old_size;
  kPack<In>[bit_width](values, groups, dst);
  if (rest > 0) {
    In tail[8] = {};
    std::copy(values + groups * 8, values + count, tail);
    uint8_t packed[64];
    kPack<In>[bit_width](tail, 1, packed);
    std::memcpy(dst + groups * bit_width, packed, (rest * bit_width + 7) / 8);
  }
}

// Unpacks `count` values from the first ceil(count * bit_width / 8) bytes of in[0, len); values
// wider than Out keep their low bits.
// REQUIRES: len covers those bytes; 0 <= bit_width <= kMaxWidth <= 64.
template <typename Out, int kMaxWidth = sizeof(Out) * 8>
void UnpackValues(const uint8_t* in, size_t len, int bit_width, int64_t count, Out* out) {
  static_assert(kMaxWidth <= 64);
  const int64_t groups = count / 8;
  kUnpack<Out, kMaxWidth>[bit_width](in, len, groups, out);
  const int rest = static_cast<int>(count % 8);
  if (rest > 0) {
    const size_t offset = static_cast<size_t>(groups * bit_width);
    uint8_t buf[64 + kUnpackSlack] = {};
    std::memcpy(buf, in + offset, std::min<size_t>(len - offset, bit_width));
    Out tail[8];
    kUnpack<Out, kMaxWidth>[bit_width](buf, sizeof(buf), 1, tail);
    std::copy(tail, tail + rest, out + groups * 8);
  }
}

template <typename Out>
Status UnpackBitsImpl(const uint8_t* data, size_t len, int bit_width, int64_t count, Out* out) {
  if (bit_width < 0 || bit_width > static_cast<int>(sizeof(Out) * 8)) {
    return Status::Corruption("bit unpacking: bit width " + Num(bit_width) + " is out of range");
  }
  if (count < 0) return Status::InvalidArgument("bit unpacking: negative count");
  if (bit_width > 0 && static_cast<uint64_t>(count) > (uint64_t{len} * 8) / bit_width) {
    return Status::Corruption("bit unpacking: " + Num(count) + " values of " + Num(bit_width) +
                              " bits need more than the " + Num(len) + " bytes given");
  }
  UnpackValues(data, len, bit_width, count, out);
  return Status::OK();
}

// ULEB128 and zigzag for the DELTA encodings and RLE headers.
void AppendUleb(uint64_t v, std::string* out) {
  char buf[10];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out->append(buf, n);
}

void AppendZigZag(int64_t v, std::string* out) {
  AppendUleb((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63), out);
}

// A bounds-checked cursor for varint headers.
struct Cursor {
  const uint8_t* data;
  size_t len;
  size_t pos;

  Status ReadUleb(int max_bytes, uint64_t* value, const char* what) {
    const size_t start = pos;
    uint64_t result = 0;
    for (int i = 0; i < max_bytes; ++i) {
      if (pos >= len) {
        return Status::Corruption(std::string(what) + ": truncated varint at byte " + Num(start));
      }
      const uint8_t byte = data[pos++];
      result |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
      if ((byte & 0x80) == 0) {
        if (i == 9 && byte > 1) break;
        *value = result;
        return Status::OK();
      }
    }
    return Status::Corruption(std::string(what) + ": varint too long at byte " + Num(start));
  }

  Status ReadZigZag(int64_t* value, const char* what) {
    uint64_t u;
    WEIR_RETURN_NOT_OK(ReadUleb(10, &u, what));
    *value = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return Status::OK();
  }
};

}  // namespace

int BitWidth(uint64_t max_value) { return 64 - std::countl_zero(max_value); }

void PackBits(const uint32_t* values, int64_t count, int bit_width, std::string* out) {
  PackBitsImpl(values, count, bit_width, out);
}
void PackBits(const uint64_t* values, int64_t count, int bit_width, std::string* out) {
  PackBitsImpl(values, count, bit_width, out);
}
Status UnpackBits(const uint8_t* data, size_t len, int bit_width, int64_t count, uint32_t* out) {
  return UnpackBitsImpl(data, len, bit_width, count, out);
}
Status UnpackBits(const uint8_t* data, size_t len, int bit_width, int64_t count, uint64_t* out) {
  return UnpackBitsImpl(data, len, bit_width, count, out);
}

// ---------------------------------------------------------------------------------------------
// RleBitPackedEncoder
//
// Values are grouped into runs of equal values. The trailing run stays uncommitted until a
// different value (or Flush) ends it. Committing a run first tops up a partial bit-packed group;
// what is left becomes an RLE run if it has >= 8 values, else joins the bit-packed groups. A
// bit-packed run is at most 63 groups so its header is one byte, reserved when it opens.

namespace {
constexpr int kMaxLiteralGroups = 63;
constexpr int64_t kMaxRunLength = (int64_t{1} << 31) - 1;  // the spec's limit per run
}  // namespace

RleBitPackedEncoder::RleBitPackedEncoder(int bit_width) : bit_width_(bit_width) {}

void RleBitPackedEncoder::Put(uint32_t value) {
  if (run_length_ > 0 && value == run_value_) {
    ++run_length_;
    return;
  }
  if (run_length_ > 0) CommitRun(run_value_, run_length_);
  run_value_ = value;
  run_length_ = 1;
}

void RleBitPackedEncoder::Put(const uint32_t* values, int64_t count) { PutBatch(values, count); }
void RleBitPackedEncoder::Put(const uint16_t* values, int64_t count) { PutBatch(values, count); }
void RleBitPackedEncoder::Put(const uint8_t* values, int64_t count) { PutBatch(values, count); }

template <typename T>
void RleBitPackedEncoder::PutBatch(const T* values, int64_t count) {
  int64_t i = 0;
  while (i < count && run_length_ > 0 && values[i] == run_value_) {
    ++run_length_;
    ++i;
  }
  if (i == count) return;
  if (run_length_ > 0) {
    CommitRun(run_value_, run_length_);
    run_length_ = 0;
  }
  while (i < count) {
    // At a group boundary, 8 values that are not all equal hold no run of 8 starting here, so
    // committing them run by run would bit-pack exactly these 8: pack them directly.
    if (num_pending_ == 0 && count - i >= 8) {
      const T* v = values + i;
      if (!(v[0] == v[1] && v[0] == v[2] && v[0] == v[3] && v[0] == v[4] && v[0] == v[5] &&
            v[0] == v[6] && v[0] == v[7])) {
        uint32_t group[8];
        for (int k = 0; k < 8; ++k) group[k] = v[k];
        PackLiteralGroup(group);
        i += 8;
        continue;
      }
    }
    const T value = values[i];
    int64_t j = i + 1;
    while (j < count && values[j] == value) ++j;
    if (j == count) {  // may continue in the next call
      run_value_ = value;
      run_length_ = j - i;
      return;
    }
    CommitRun(value, j - i);
    i = j;
  }
}

void RleBitPackedEncoder::CommitRun(uint32_t value, int64_t length) {
  if (num_pending_ > 0) {
    const int take = static_cast<int>(std::min<int64_t>(length, 8 - num_pending_));
    for (int k = 0; k < take; ++k) pending_[num_pending_++] = value;
    length -= take;
    if (num_pending_ == 8) FlushPendingGroup();
    if (length == 0) return;
  }
  if (length >= 8) {
    CloseLiteralRun();
    WriteRleRun(value, length);
    return;
  }
  for (int64_t k = 0; k < length; ++k) pending_[num_pending_++] = value;
}

void RleBitPackedEncoder::FlushPendingGroup() {
  PackLiteralGroup(pending_);
  num_pending_ = 0;
}

void RleBitPackedEncoder::PackLiteralGroup(const uint32_t* values) {
  if (literal_groups_ == 0) {
    literal_header_pos_ = buffer_.size();
    buffer_.push_back(0);
  }
  const size_t old_size = buffer_.size();
  buffer_.resize(old_size + bit_width_);
  kPack<uint32_t>[bit_width_](values, 1, reinterpret_cast<uint8_t*>(buffer_.data()) + old_size);
  if (++literal_groups_ == kMaxLiteralGroups) CloseLiteralRun();
}

void RleBitPackedEncoder::CloseLiteralRun() {
  if (literal_groups_ == 0) return;
  buffer_[literal_header_pos_] = static_cast<char>((literal_groups_ << 1) | 1);
  literal_groups_ = 0;
}

void RleBitPackedEncoder::WriteRleRun(uint32_t value, int64_t length) {
  const int value_bytes = (bit_width_ + 7) / 8;
  while (length > 0) {
    const int64_t n = std::min(length, kMaxRunLength);
    AppendUleb(static_cast<uint64_t>(n) << 1, &buffer_);
    buffer_.append(reinterpret_cast<const char*>(&value), value_bytes);
    length -= n;
  }
}

size_t RleBitPackedEncoder::EstimatedSize() const {
  // Pending values complete a group; the open run costs at most an RLE run or one more group.
  size_t size = buffer_.size() + (num_pending_ > 0 ? bit_width_ + 1 : 0);
  if (run_length_ > 0) size += 5 + 4 + bit_width_;
  return size;
}

void RleBitPackedEncoder::Finish() {
  // The final run is committed like any other, so the bytes do not depend on how Put() calls
  // split the values.
  if (run_length_ > 0) {
    CommitRun(run_value_, run_length_);
    run_length_ = 0;
  }
  if (num_pending_ > 0) {
    std::fill(pending_ + num_pending_, pending_ + 8, 0u);
    FlushPendingGroup();
  }
  CloseLiteralRun();
}

void RleBitPackedEncoder::Flush(std::string* out) {
  Finish();
  out->append(buffer_);
  buffer_.clear();
}

void RleBitPackedEncoder::FlushWithLengthPrefix(std::string* out) {
  Finish();
  const uint32_t length = static_cast<uint32_t>(buffer_.size());
  out->append(reinterpret_cast<const char*>(&length), 4);
  out->append(buffer_);
  buffer_.clear();
}

// ---------------------------------------------------------------------------------------------
// RleBitPackedDecoder

Status RleBitPackedDecoder::OpenLengthPrefixed(const uint8_t* data, size_t len, int bit_width,
                                               RleBitPackedDecoder* out, size_t* consumed) {
  if (len < 4) {
    return Status::Corruption("RLE levels: truncated 4-byte length prefix (" + Num(len) +
                              " bytes)");
  }
  const uint32_t length = Load32(data);
  if (length > len - 4) {
    return Status::Corruption("RLE levels: length prefix " + Num(length) + " exceeds the " +
                              Num(len - 4) + " bytes left");
  }
  *out = RleBitPackedDecoder(data + 4, length, bit_width);
  *consumed = 4 + static_cast<size_t>(length);
  return Status::OK();
}

Status RleBitPackedDecoder::OpenDictionaryIndices(const uint8_t* data, size_t len,
                                                  RleBitPackedDecoder* out) {
  if (len == 0) {  // no indices at all (e.g. every value null); any GetBatch fails
    *out = RleBitPackedDecoder(data, 0, 0);
    return Status::OK();
  }
  const int bit_width = data[0];
  if (bit_width > 32) {
    return Status::Corruption("dictionary indices: bit width " + Num(bit_width) +
                              " is larger than 32");
  }
  *out = RleBitPackedDecoder(data + 1, len - 1, bit_width);
  return Status::OK();
}

Status RleBitPackedDecoder::GetBatch(uint32_t* out, int64_t count) { return Decode(out, count); }
Status RleBitPackedDecoder::GetBatch(uint16_t* out, int64_t count) { return Decode(out, count); }
Status RleBitPackedDecoder::GetBatch(uint8_t* out, int64_t count) { return Decode(out, count); }

Status RleBitPackedDecoder::NextRun() {
  if (pos_ >= len_) {
    return Status::Corruption("RLE/bit-packed data ends after " + Num(values_read_) + " values (" +
                              Num(len_) + " bytes, bit width " + Num(bit_width_) + ")");
  }
  Cursor cursor{data_, len_, pos_};
  uint64_t header = 0;
  WEIR_RETURN_NOT_OK(cursor.ReadUleb(5, &header, "RLE/bit-packed run header"));
  pos_ = cursor.pos;
  const size_t available = len_ - pos_;
  if (header & 1) {
    const uint64_t groups = header >> 1;
    uint64_t values = groups * 8;
    uint64_t bytes = groups * static_cast<uint64_t>(bit_width_);
    if (bytes > available) {
      // A truncated last run: decode the whole values the bytes hold.
      values = std::min<uint64_t>(values, uint64_t{available} * 8 / bit_width_);
      bytes = available;
      if (values == 0) {
        return Status::Corruption("RLE/bit-packed: bit-packed run of " + Num(groups) +
                                  " groups is truncated at byte " + Num(pos_));
      }
    }
    literal_ = data_ + pos_;
    literal_bytes_ = bytes;
    literal_remaining_ = static_cast<int64_t>(values);
    pos_ += bytes;
  } else {
    const int value_bytes = (bit_width_ + 7) / 8;
    if (available < static_cast<size_t>(value_bytes)) {
      return Status::Corruption("RLE/bit-packed: truncated RLE run value at byte " + Num(pos_));
    }
    uint32_t value = 0;
    std::memcpy(&value, data_ + pos_, value_bytes);
    pos_ += value_bytes;
    if (bit_width_ < 32 && (value >> bit_width_) != 0) {
      return Status::Corruption("RLE/bit-packed: run value " + Num(value) + " does not fit in " +
                                Num(bit_width_) + " bits at byte " + Num(pos_ - value_bytes));
    }
    rle_value_ = value;
    rle_remaining_ = static_cast<int64_t>(header >> 1);
  }
  return Status::OK();
}

template <typename T>
Status RleBitPackedDecoder::Decode(T* out, int64_t count) {
  if (bit_width_ < 0 || bit_width_ > static_cast<int>(sizeof(T) * 8)) {
    return Status::Corruption("RLE/bit-packed: bit width " + Num(bit_width_) + " is too wide for " +
                              Num(sizeof(T) * 8) + "-bit values");
  }
  int64_t done = 0;
  while (done < count) {
    const int64_t want = count - done;
    if (group_pos_ < group_end_) {
      const int n = static_cast<int>(std::min<int64_t>(want, group_end_ - group_pos_));
      for (int k = 0; k < n; ++k) out[done + k] = static_cast<T>(group_[group_pos_ + k]);
      group_pos_ += n;
      done += n;
    } else if (rle_remaining_ > 0) {
      const int64_t n = std::min(want, rle_remaining_);
      std::fill_n(out + done, n, static_cast<T>(rle_value_));
      rle_remaining_ -= n;
      done += n;
    } else if (literal_remaining_ > 0) {
      const int64_t groups = std::min(want, literal_remaining_) / 8;
      if (groups > 0) {
        kUnpack<T>[bit_width_](literal_, literal_bytes_, groups, out + done);
        const size_t bytes = static_cast<size_t>(groups * bit_width_);
        literal_ += bytes;
        literal_bytes_ -= bytes;
        literal_remaining_ -= groups * 8;
        done += groups * 8;
      } else {
        // Fewer than 8 values wanted or left: unpack one group into group_.
        uint8_t buf[32 + kUnpackSlack] = {};
        const size_t bytes = std::min<size_t>(literal_bytes_, bit_width_);
        std::memcpy(buf, literal_, bytes);
        kUnpack<uint32_t>[bit_width_](buf, sizeof(buf), 1, group_);
        literal_ += bytes;
        literal_bytes_ -= bytes;
        group_pos_ = 0;
        group_end_ = static_cast<int>(std::min<int64_t>(8, literal_remaining_));
        literal_remaining_ -= group_end_;
      }
    } else {
      // Account for what this call produced so far (NextRun's messages report it).
      values_read_ += done;
      out += done;
      count -= done;
      done = 0;
      WEIR_RETURN_NOT_OK(NextRun());
    }
  }
  values_read_ += done;
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// PLAIN

namespace {

template <typename T>
void AppendRaw(const T* values, int64_t count, std::string* out) {
  if (count <= 0) return;
  out->append(reinterpret_cast<const char*>(values), static_cast<size_t>(count) * sizeof(T));
}

template <typename T>
Status DecodePlainFixed(const uint8_t* data, size_t len, int64_t num_values, T* out,
                        size_t* consumed, const char* type_name) {
  if (num_values < 0) return Status::InvalidArgument("PLAIN: negative value count");
  if (static_cast<uint64_t>(num_values) > len / sizeof(T)) {
    return Status::Corruption(std::string("PLAIN ") + type_name + ": " + Num(num_values) +
                              " values need " + Num(num_values * sizeof(T)) + " bytes, page has " +
                              Num(len));
  }
  const size_t bytes = static_cast<size_t>(num_values) * sizeof(T);
  if (bytes > 0) std::memcpy(out, data, bytes);
  *consumed = bytes;
  return Status::OK();
}

}  // namespace

void EncodePlain(const int32_t* values, int64_t count, std::string* out) {
  AppendRaw(values, count, out);
}
void EncodePlain(const int64_t* values, int64_t count, std::string* out) {
  AppendRaw(values, count, out);
}
void EncodePlain(const Int96* values, int64_t count, std::string* out) {
  AppendRaw(values, count, out);
}
void EncodePlain(const float* values, int64_t count, std::string* out) {
  AppendRaw(values, count, out);
}
void EncodePlain(const double* values, int64_t count, std::string* out) {
  AppendRaw(values, count, out);
}

void EncodePlainBoolean(const uint8_t* values, int64_t count, std::string* out) {
  if (count <= 0) return;
  const size_t old_size = out->size();
  out->resize(old_size + static_cast<size_t>((count + 7) / 8));
  uint8_t* dst = reinterpret_cast<uint8_t*>(out->data()) + old_size;
  const int64_t full = count / 8;
  for (int64_t g = 0; g < full; ++g) {
    const uint8_t* v = values + g * 8;
    uint8_t byte = 0;
    for (int k = 0; k < 8; ++k) byte |= static_cast<uint8_t>((v[k] != 0) << k);
    dst[g] = byte;
  }
  if (count % 8 != 0) {
    uint8_t byte = 0;
    for (int64_t k = 0; k < count % 8; ++k) {
      byte |= static_cast<uint8_t>((values[full * 8 + k] != 0) << k);
    }
    dst[full] = byte;
  }
}

// Reserves once and appends: resizing first would zero the bytes before they are overwritten, a
// second pass over every payload (std::string has no uninitialised growth before C++23).
void EncodePlainByteArray(const std::string_view* values, int64_t count, std::string* out) {
  size_t total = 0;
  for (int64_t i = 0; i < count; ++i) total += 4 + values[i].size();
  out->reserve(out->size() + total);
  for (int64_t i = 0; i < count; ++i) {
    const auto length = static_cast<uint32_t>(values[i].size());
    char length_bytes[4];
    std::memcpy(length_bytes, &length, 4);
    out->append(length_bytes, 4);
    out->append(values[i]);
  }
}

void EncodePlainFixedLenByteArray(const std::string_view* values, int64_t count, int width,
                                  std::string* out) {
  if (count <= 0) return;
  const size_t old_size = out->size();
  out->resize(old_size + static_cast<size_t>(count) * width);
  char* dst = out->data() + old_size;
  for (int64_t i = 0; i < count; ++i, dst += width) std::memcpy(dst, values[i].data(), width);
}

Status DecodePlain(const uint8_t* data, size_t len, int64_t num_values, int32_t* out,
                   size_t* consumed) {
  return DecodePlainFixed(data, len, num_values, out, consumed, "INT32");
}
Status DecodePlain(const uint8_t* data, size_t len, int64_t num_values, int64_t* out,
                   size_t* consumed) {
  return DecodePlainFixed(data, len, num_values, out, consumed, "INT64");
}
Status DecodePlain(const uint8_t* data, size_t len, int64_t num_values, Int96* out,
                   size_t* consumed) {
  return DecodePlainFixed(data, len, num_values, out, consumed, "INT96");
}
Status DecodePlain(const uint8_t* data, size_t len, int64_t num_values, float* out,
                   size_t* consumed) {
  return DecodePlainFixed(data, len, num_values, out, consumed, "FLOAT");
}
Status DecodePlain(const uint8_t* data, size_t len, int64_t num_values, double* out,
                   size_t* consumed) {
  return DecodePlainFixed(data, len, num_values, out, consumed, "DOUBLE");
}

Status DecodePlainBoolean(const uint8_t* data, size_t len, int64_t num_values, uint8_t* out,
                          size_t* consumed) {
  if (num_values < 0) return Status::InvalidArgument("PLAIN: negative value count");
  if (static_cast<uint64_t>(num_values) > uint64_t{len} * 8) {
    return Status::Corruption("PLAIN BOOLEAN: " + Num(num_values) + " values need more than the " +
                              Num(len) + " bytes of the page");
  }
  UnpackValues(data, len, 1, num_values, out);
  *consumed = static_cast<size_t>((num_values + 7) / 8);
  return Status::OK();
}

Status DecodePlainByteArray(const uint8_t* data, size_t len, int64_t num_values,
                            std::string_view* out, size_t* consumed) {
  if (num_values < 0) return Status::InvalidArgument("PLAIN: negative value count");
  size_t pos = 0;
  for (int64_t i = 0; i < num_values; ++i) {
    if (len - pos < 4) {
      return Status::Corruption("PLAIN BYTE_ARRAY: truncated length of value " + Num(i) +
                                " at byte " + Num(pos));
    }
    const uint32_t length = Load32(data + pos);
    pos += 4;
    if (length > len - pos) {
      return Status::Corruption("PLAIN BYTE_ARRAY: value " + Num(i) + " of " + Num(length) +
                                " bytes at byte " + Num(pos) + " exceeds the " + Num(len - pos) +
                                " bytes left");
    }
    out[i] = std::string_view(reinterpret_cast<const char*>(data + pos), length);
    pos += length;
  }
  *consumed = pos;
  return Status::OK();
}

Status DecodePlainFixedLenByteArray(const uint8_t* data, size_t len, int64_t num_values, int width,
                                    std::string_view* out, size_t* consumed) {
  if (num_values < 0) return Status::InvalidArgument("PLAIN: negative value count");
  if (width < 0) return Status::Corruption("PLAIN FIXED_LEN_BYTE_ARRAY: negative width");
  if (width > 0 && static_cast<uint64_t>(num_values) > len / static_cast<size_t>(width)) {
    return Status::Corruption("PLAIN FIXED_LEN_BYTE_ARRAY: " + Num(num_values) + " values of " +
                              Num(width) + " bytes exceed the page's " + Num(len) + " bytes");
  }
  const char* p = reinterpret_cast<const char*>(data);
  for (int64_t i = 0; i < num_values; ++i) out[i] = std::string_view(p + i * width, width);
  *consumed = static_cast<size_t>(num_values) * width;
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Dictionaries

namespace {

constexpr uint64_t kMul1 = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kMul2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kMul3 = 0x165667B19E3779F9ull;

inline uint64_t Mix(uint64_t h) {
  h ^= h >> 32;
  h *= kMul2;
  h ^= h >> 29;
  h *= kMul3;
  h ^= h >> 32;
  return h;
}

// A fast non-cryptographic hash of a byte string (8 bytes per step).
uint64_t HashBytes(const char* p, size_t n) {
  uint64_t h = kMul1 ^ (n * kMul2);
  const uint8_t* q = reinterpret_cast<const uint8_t*>(p);
  while (n >= 8) {
    h = std::rotl(h ^ (Load64(q) * kMul1), 31) * kMul2;
    q += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t tail = 0;
    std::memcpy(&tail, q, n);
    h = std::rotl(h ^ (tail * kMul1), 31) * kMul2;
  }
  return Mix(h);
}

constexpr size_t kInitialSlots = 1024;
constexpr int64_t kInsertBlock = 32;  // values hashed and prefetched ahead of their lookups

}  // namespace

ByteArrayDictionary::ByteArrayDictionary() : offsets_{0}, slots_(kInitialSlots) {}

void ByteArrayDictionary::Clear() {
  arena_.clear();
  offsets_.assign(1, 0);
  std::fill(slots_.begin(), slots_.end(), Slot{0, 0});
}

// Slots are found from the top bits of the stored 32-bit hash, so growing never rehashes bytes.
size_t ByteArrayDictionary::SlotFor(uint32_t hash) const {
  return hash >> (32 - std::countr_zero(slots_.size()));
}

void ByteArrayDictionary::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{0, 0});
  const size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.index_plus_one == 0) continue;
    size_t i = SlotFor(slot.hash);
    while (slots_[i].index_plus_one != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

namespace {
inline uint32_t HashForDictionary(std::string_view value) {
  return static_cast<uint32_t>(HashBytes(value.data(), value.size()) >> 32);
}
}  // namespace

uint32_t ByteArrayDictionary::Insert(std::string_view value_to_find) {
  return InsertHashed(value_to_find, HashForDictionary(value_to_find));
}

uint32_t ByteArrayDictionary::InsertHashed(std::string_view value_to_find, uint32_t hash) {
  const size_t mask = slots_.size() - 1;
  size_t i = SlotFor(hash);
  for (;;) {
    const Slot& slot = slots_[i];
    if (slot.index_plus_one == 0) break;
    if (slot.hash == hash && SameBytes(value(slot.index_plus_one - 1), value_to_find)) {
      return slot.index_plus_one - 1;
    }
    i = (i + 1) & mask;
  }
  const uint32_t index = static_cast<uint32_t>(size());
  arena_.append(value_to_find);
  offsets_.push_back(arena_.size());
  slots_[i] = Slot{hash, index + 1};
  if (static_cast<size_t>(size()) * 2 > slots_.size()) Grow();
  return index;
}

// Cache misses dominate: the values' bytes are often read here for the first time in a while
// (views into the Kafka client's buffers, one event apart) and a large dictionary's slots are
// anywhere. So the next block's bytes are prefetched while a block is hashed, and each block's
// slots are prefetched before it is probed. (Comparing each value with the one before it to skip
// repeats cost more than it saved: silver's event ids and order ids rarely repeat in a row.)
void ByteArrayDictionary::Insert(const std::string_view* values, int64_t count, uint32_t* indices) {
  uint32_t hashes[kInsertBlock];
  for (int64_t start = 0; start < count; start += kInsertBlock) {
    const int64_t n = std::min(kInsertBlock, count - start);
    for (int64_t i = start + kInsertBlock; i < std::min(start + 2 * kInsertBlock, count); ++i) {
      __builtin_prefetch(values[i].data());
    }
    for (int64_t j = 0; j < n; ++j) {
      const int64_t i = start + j;
      hashes[j] = HashForDictionary(values[i]);
      __builtin_prefetch(&slots_[SlotFor(hashes[j])]);
    }
    for (int64_t j = 0; j < n; ++j) {
      const int64_t i = start + j;
      indices[i] = InsertHashed(values[i], hashes[j]);
    }
  }
}

void ByteArrayDictionary::WritePlain(std::string* out) const {
  const size_t old_size = out->size();
  out->resize(old_size + static_cast<size_t>(plain_size()));
  char* dst = out->data() + old_size;
  for (int64_t i = 0; i < size(); ++i) {
    const std::string_view v = value(static_cast<uint32_t>(i));
    const uint32_t length = static_cast<uint32_t>(v.size());
    std::memcpy(dst, &length, 4);
    if (length > 0) std::memcpy(dst + 4, v.data(), length);
    dst += 4 + length;
  }
}

namespace {
template <typename T>
using BitsOf = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <typename T>
inline uint64_t HashFixed(T value) {
  BitsOf<T> bits;
  std::memcpy(&bits, &value, sizeof(T));
  return Mix(static_cast<uint64_t>(bits) * kMul1);
}

template <typename T>
inline bool SameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
}  // namespace

template <typename T>
FixedWidthDictionary<T>::FixedWidthDictionary() : slots_(kInitialSlots) {}

template <typename T>
void FixedWidthDictionary<T>::Clear() {
  values_.clear();
  std::fill(slots_.begin(), slots_.end(), 0u);
}

template <typename T>
void FixedWidthDictionary<T>::Grow() {
  std::vector<uint32_t> slots(slots_.size() * 2);
  const size_t mask = slots.size() - 1;
  for (uint32_t index_plus_one : slots_) {
    if (index_plus_one == 0) continue;
    size_t i = HashFixed(values_[index_plus_one - 1]) & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = index_plus_one;
  }
  slots_ = std::move(slots);
}

template <typename T>
uint32_t FixedWidthDictionary<T>::Insert(T value) {
  return InsertHashed(value, HashFixed(value));
}

template <typename T>
uint32_t FixedWidthDictionary<T>::InsertHashed(T value, uint64_t hash) {
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  for (;;) {
    const uint32_t index_plus_one = slots_[i];
    if (index_plus_one == 0) break;
    if (SameBits(values_[index_plus_one - 1], value)) return index_plus_one - 1;
    i = (i + 1) & mask;
  }
  const uint32_t index = static_cast<uint32_t>(values_.size());
  values_.push_back(value);
  slots_[i] = index + 1;
  if (values_.size() * 2 > slots_.size()) Grow();
  return index;
}

// As ByteArrayDictionary's, with slots prefetched a block ahead; here runs of one value
// (timestamps of events in the same millisecond, a constant column) are looked up once, as the
// comparison with the value before is a register compare.
template <typename T>
void FixedWidthDictionary<T>::Insert(const T* values, int64_t count, uint32_t* indices) {
  uint64_t hashes[kInsertBlock];
  for (int64_t start = 0; start < count; start += kInsertBlock) {
    const int64_t n = std::min(kInsertBlock, count - start);
    for (int64_t j = 0; j < n; ++j) {
      hashes[j] = HashFixed(values[start + j]);
      __builtin_prefetch(&slots_[hashes[j] & (slots_.size() - 1)]);
    }
    for (int64_t j = 0; j < n; ++j) {
      const int64_t i = start + j;
      indices[i] = i > 0 && SameBits(values[i], values[i - 1]) ? indices[i - 1]
                                                               : InsertHashed(values[i], hashes[j]);
    }
  }
}

template class FixedWidthDictionary<int32_t>;
template class FixedWidthDictionary<int64_t>;
template class FixedWidthDictionary<float>;
template class FixedWidthDictionary<double>;

// ---------------------------------------------------------------------------------------------
// DELTA_BINARY_PACKED

namespace {

constexpr uint64_t kMaxDeltaBlockSize = uint64_t{1} << 31;

struct DeltaHeader {
  uint64_t block_size = 0;
  uint64_t miniblocks = 0;
  int64_t first = 0;
};

// Reads and validates a DELTA_BINARY_PACKED header whose value count must be num_values.
Status ReadDeltaHeader(Cursor* c, int64_t num_values, DeltaHeader* h) {
  if (num_values < 0) return Status::InvalidArgument("DELTA_BINARY_PACKED: negative value count");
  uint64_t total = 0;
  WEIR_RETURN_NOT_OK(c->ReadUleb(10, &h->block_size, "DELTA_BINARY_PACKED block size"));
  WEIR_RETURN_NOT_OK(c->ReadUleb(10, &h->miniblocks, "DELTA_BINARY_PACKED miniblock count"));
  WEIR_RETURN_NOT_OK(c->ReadUleb(10, &total, "DELTA_BINARY_PACKED value count"));
  WEIR_RETURN_NOT_OK(c->ReadZigZag(&h->first, "DELTA_BINARY_PACKED first value"));
  const uint64_t block_size = h->block_size;
  const uint64_t miniblocks = h->miniblocks;
  if (block_size == 0 || block_size % 128 != 0 || block_size > kMaxDeltaBlockSize) {
    return Status::Corruption("DELTA_BINARY_PACKED: invalid block size " + Num(block_size));
  }
  if (miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0) {
    return Status::Corruption("DELTA_BINARY_PACKED: " + Num(miniblocks) +
                              " miniblocks do not divide a block of " + Num(block_size) +
                              " into multiples of 32");
  }
  if (total != static_cast<uint64_t>(num_values)) {
    return Status::Corruption("DELTA_BINARY_PACKED: header holds " + Num(total) +
                              " values, the page expects " + Num(num_values));
  }
  return Status::OK();
}

// Checks the header before a caller allocates scratch space for num_values values.
Status CheckDeltaHeader(const uint8_t* data, size_t len, int64_t num_values) {
  Cursor c{data, len, 0};
  DeltaHeader header;
  return ReadDeltaHeader(&c, num_values, &header);
}

// The widest miniblock a reader accepts. A delta (value - previous - min_delta) can need one bit
// more than T; DuckDB writes such 33-bit INT32 miniblocks (Encodings.md asks writers to wrap in
// 2's complement instead, and readers to restore the values by wrapping). Since values are summed
// modulo 2^bits(T), a delta's bits above T's width do not matter: INT32 accepts 33 bits, INT64 64;
// a wider miniblock is Corruption.
template <typename T>
constexpr int kMaxDeltaWidth = sizeof(T) == 4 ? 33 : 64;

constexpr const char* PhysicalName(int32_t*) { return "INT32"; }
constexpr const char* PhysicalName(int64_t*) { return "INT64"; }

template <typename T>
Status DecodeDeltaImpl(const uint8_t* data, size_t len, int64_t num_values, T* out,
                       size_t* consumed) {
  // Everything is computed in U, wrapping: the first value, min_delta (read as 64 bits) and each
  // delta are taken modulo 2^bits(T), as parquet-mr, Arrow and DuckDB read them.
  using U = std::make_unsigned_t<T>;
  constexpr int kMaxWidth = kMaxDeltaWidth<T>;
  Cursor c{data, len, 0};
  DeltaHeader header;
  WEIR_RETURN_NOT_OK(ReadDeltaHeader(&c, num_values, &header));
  const uint64_t miniblocks = header.miniblocks;
  const int64_t first = header.first;
  const int64_t per_miniblock = static_cast<int64_t>(header.block_size / miniblocks);
  if (num_values > 0) out[0] = static_cast<T>(first);
  U last = static_cast<U>(first);
  int64_t i = 1;
  while (i < num_values) {
    int64_t min_delta_signed = 0;
    WEIR_RETURN_NOT_OK(c.ReadZigZag(&min_delta_signed, "DELTA_BINARY_PACKED min delta"));
    const U min_delta = static_cast<U>(min_delta_signed);
    if (c.len - c.pos < miniblocks) {
      return Status::Corruption("DELTA_BINARY_PACKED: truncated miniblock bit widths at byte " +
                                Num(c.pos));
    }
    const uint8_t* widths = data + c.pos;
    c.pos += miniblocks;
    for (uint64_t m = 0; m < miniblocks && i < num_values; ++m) {
      const int width = widths[m];
      if (width > kMaxWidth) {
        return Status::Corruption("DELTA_BINARY_PACKED: miniblock bit width " + Num(width) +
                                  " exceeds " + Num(kMaxWidth) + " (the most for " +
                                  PhysicalName(static_cast<T*>(nullptr)) + ") at byte " +
                                  Num(widths + m - data));
      }
      const int64_t n = std::min(per_miniblock, num_values - i);
      const size_t available = c.len - c.pos;
      const uint64_t needed = (static_cast<uint64_t>(n) * width + 7) / 8;
      if (needed > available) {
        return Status::Corruption("DELTA_BINARY_PACKED: truncated miniblock at byte " + Num(c.pos) +
                                  " (needs " + Num(needed) + " bytes, " + Num(available) +
                                  " left)");
      }
      U* dst = reinterpret_cast<U*>(out + i);
      UnpackValues<U, kMaxWidth>(data + c.pos, available, width, n, dst);
      for (int64_t k = 0; k < n; ++k) {
        last += min_delta + dst[k];
        dst[k] = last;
      }
      // A full miniblock is padded; accept a last one cut short at the end of the input.
      const uint64_t full = static_cast<uint64_t>(per_miniblock) * width / 8;
      c.pos += static_cast<size_t>(std::min<uint64_t>(full, available));
      i += n;
    }
  }
  *consumed = c.pos;
  return Status::OK();
}

template <typename T>
void EncodeDeltaImpl(const T* values, int64_t count, std::string* out) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  constexpr int kBlock = 128;
  constexpr int kMiniblocks = 4;
  constexpr int kPerMiniblock = kBlock / kMiniblocks;
  AppendUleb(kBlock, out);
  AppendUleb(kMiniblocks, out);
  AppendUleb(static_cast<uint64_t>(std::max<int64_t>(count, 0)), out);
  AppendZigZag(count > 0 ? static_cast<int64_t>(values[0]) : 0, out);
  U deltas[kBlock];
  for (int64_t start = 1; start < count; start += kBlock) {
    const int n = static_cast<int>(std::min<int64_t>(kBlock, count - start));
    S min_delta = std::numeric_limits<S>::max();
    for (int k = 0; k < n; ++k) {
      deltas[k] =
          static_cast<U>(static_cast<U>(values[start + k]) - static_cast<U>(values[start + k - 1]));
      min_delta = std::min(min_delta, static_cast<S>(deltas[k]));
    }
    for (int k = 0; k < n; ++k) deltas[k] = static_cast<U>(deltas[k] - static_cast<U>(min_delta));
    std::fill(deltas + n, deltas + kBlock, U{0});
    AppendZigZag(static_cast<int64_t>(min_delta), out);
    int widths[kMiniblocks];
    for (int m = 0; m < kMiniblocks; ++m) {
      U max_value = 0;
      for (int k = m * kPerMiniblock; k < std::min(n, (m + 1) * kPerMiniblock); ++k) {
        max_value |= deltas[k];
      }
      widths[m] = BitWidth(max_value);
      out->push_back(static_cast<char>(widths[m]));
    }
    for (int m = 0; m < kMiniblocks && m * kPerMiniblock < n; ++m) {
      PackBits(deltas + m * kPerMiniblock, kPerMiniblock, widths[m], out);
    }
  }
}

}  // namespace

Status DecodeDeltaBinaryPacked(const uint8_t* data, size_t len, int64_t num_values, int32_t* out,
                               size_t* consumed) {
  return DecodeDeltaImpl(data, len, num_values, out, consumed);
}
Status DecodeDeltaBinaryPacked(const uint8_t* data, size_t len, int64_t num_values, int64_t* out,
                               size_t* consumed) {
  return DecodeDeltaImpl(data, len, num_values, out, consumed);
}
void EncodeDeltaBinaryPacked(const int32_t* values, int64_t count, std::string* out) {
  EncodeDeltaImpl(values, count, out);
}
void EncodeDeltaBinaryPacked(const int64_t* values, int64_t count, std::string* out) {
  EncodeDeltaImpl(values, count, out);
}

// ---------------------------------------------------------------------------------------------
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY

Status DecodeDeltaLengthByteArray(const uint8_t* data, size_t len, int64_t num_values,
                                  std::string_view* out, size_t* consumed) {
  if (num_values < 0) {
    return Status::InvalidArgument("DELTA_LENGTH_BYTE_ARRAY: negative value count");
  }
  WEIR_RETURN_NOT_OK(CheckDeltaHeader(data, len, num_values));
  std::vector<int32_t> lengths(static_cast<size_t>(num_values));
  size_t pos;
  WEIR_RETURN_NOT_OK(DecodeDeltaBinaryPacked(data, len, num_values, lengths.data(), &pos));
  for (int64_t i = 0; i < num_values; ++i) {
    const int32_t length = lengths[i];
    if (length < 0 || static_cast<size_t>(length) > len - pos) {
      return Status::Corruption("DELTA_LENGTH_BYTE_ARRAY: value " + Num(i) + " of length " +
                                Num(length) + " at byte " + Num(pos) + " does not fit the " +
                                Num(len - pos) + " bytes left");
    }
    out[i] = std::string_view(reinterpret_cast<const char*>(data + pos), length);
    pos += length;
  }
  *consumed = pos;
  return Status::OK();
}

void EncodeDeltaLengthByteArray(const std::string_view* values, int64_t count, std::string* out) {
  std::vector<int32_t> lengths(static_cast<size_t>(std::max<int64_t>(count, 0)));
  size_t total = 0;
  for (int64_t i = 0; i < count; ++i) {
    lengths[i] = static_cast<int32_t>(values[i].size());
    total += values[i].size();
  }
  EncodeDeltaBinaryPacked(lengths.data(), count, out);
  out->reserve(out->size() + total);
  for (int64_t i = 0; i < count; ++i) out->append(values[i]);
}

Status DecodeDeltaByteArray(const uint8_t* data, size_t len, int64_t num_values, std::string* arena,
                            std::string_view* out, size_t* consumed, size_t max_output_bytes) {
  if (num_values < 0) return Status::InvalidArgument("DELTA_BYTE_ARRAY: negative value count");
  WEIR_RETURN_NOT_OK(CheckDeltaHeader(data, len, num_values));
  std::vector<int32_t> prefixes(static_cast<size_t>(num_values));
  size_t prefix_bytes;
  WEIR_RETURN_NOT_OK(
      DecodeDeltaBinaryPacked(data, len, num_values, prefixes.data(), &prefix_bytes));
  size_t suffix_bytes;
  // The suffixes land in `out` first; each is read before its slot is overwritten below.
  WEIR_RETURN_NOT_OK(DecodeDeltaLengthByteArray(data + prefix_bytes, len - prefix_bytes, num_values,
                                                out, &suffix_bytes));
  uint64_t total = 0;
  uint64_t previous_length = 0;
  for (int64_t i = 0; i < num_values; ++i) {
    const int32_t prefix = prefixes[i];
    if (prefix < 0 || static_cast<uint64_t>(prefix) > previous_length) {
      return Status::Corruption("DELTA_BYTE_ARRAY: prefix length " + Num(prefix) + " of value " +
                                Num(i) + " exceeds the previous value's " + Num(previous_length) +
                                " bytes");
    }
    previous_length = static_cast<uint64_t>(prefix) + out[i].size();
    total += previous_length;
    if (total > max_output_bytes) {
      return Status::Corruption("DELTA_BYTE_ARRAY: values expand to more than " +
                                Num(max_output_bytes) + " bytes");
    }
  }
  arena->clear();
  arena->resize(static_cast<size_t>(total));
  char* dst = arena->data();
  const char* previous = dst;
  for (int64_t i = 0; i < num_values; ++i) {
    const size_t prefix = static_cast<size_t>(prefixes[i]);
    const std::string_view suffix = out[i];
    std::memcpy(dst, previous, prefix);
    if (!suffix.empty()) std::memcpy(dst + prefix, suffix.data(), suffix.size());
    out[i] = std::string_view(dst, prefix + suffix.size());
    previous = dst;
    dst += prefix + suffix.size();
  }
  *consumed = prefix_bytes + suffix_bytes;
  return Status::OK();
}

void EncodeDeltaByteArray(const std::string_view* values, int64_t count, std::string* out) {
  const size_t n = static_cast<size_t>(std::max<int64_t>(count, 0));
  std::vector<int32_t> prefixes(n);
  std::vector<std::string_view> suffixes(n);
  std::string_view previous;
  for (size_t i = 0; i < n; ++i) {
    const std::string_view v = values[i];
    const size_t limit = std::min(v.size(), previous.size());
    size_t prefix = 0;
    while (prefix < limit && v[prefix] == previous[prefix]) ++prefix;
    prefixes[i] = static_cast<int32_t>(prefix);
    suffixes[i] = v.substr(prefix);
    previous = v;
  }
  EncodeDeltaBinaryPacked(prefixes.data(), count, out);
  EncodeDeltaLengthByteArray(suffixes.data(), count, out);
}

// ---------------------------------------------------------------------------------------------
// BYTE_STREAM_SPLIT

namespace {

template <int kWidth>
void UnsplitFixed(const uint8_t* data, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
#pragma GCC unroll 8
    for (int k = 0; k < kWidth; ++k) out[i * kWidth + k] = data[k * n + i];
  }
}

}  // namespace

Status DecodeByteStreamSplit(const uint8_t* data, size_t len, int64_t num_values, int width,
                             uint8_t* out, size_t* consumed) {
  if (num_values < 0) return Status::InvalidArgument("BYTE_STREAM_SPLIT: negative value count");
  if (width <= 0) return Status::Corruption("BYTE_STREAM_SPLIT: invalid width " + Num(width));
  if (static_cast<uint64_t>(num_values) > len / static_cast<size_t>(width)) {
    return Status::Corruption("BYTE_STREAM_SPLIT: " + Num(num_values) + " values of " + Num(width) +
                              " bytes exceed the page's " + Num(len) + " bytes");
  }
  const size_t n = static_cast<size_t>(num_values);
  switch (width) {
    case 2:
      UnsplitFixed<2>(data, n, out);
      break;
    case 4:
      UnsplitFixed<4>(data, n, out);
      break;
    case 8:
      UnsplitFixed<8>(data, n, out);
      break;
    default:
      for (size_t i = 0; i < n; ++i) {
        for (int k = 0; k < width; ++k) out[i * width + k] = data[k * n + i];
      }
  }
  *consumed = n * width;
  return Status::OK();
}

Status DecodeByteStreamSplit(const uint8_t* data, size_t len, int64_t num_values, float* out,
                             size_t* consumed) {
  return DecodeByteStreamSplit(data, len, num_values, 4, reinterpret_cast<uint8_t*>(out), consumed);
}
Status DecodeByteStreamSplit(const uint8_t* data, size_t len, int64_t num_values, double* out,
                             size_t* consumed) {
  return DecodeByteStreamSplit(data, len, num_values, 8, reinterpret_cast<uint8_t*>(out), consumed);
}
Status DecodeByteStreamSplit(const uint8_t* data, size_t len, int64_t num_values, int32_t* out,
                             size_t* consumed) {
  return DecodeByteStreamSplit(data, len, num_values, 4, reinterpret_cast<uint8_t*>(out), consumed);
}
Status DecodeByteStreamSplit(const uint8_t* data, size_t len, int64_t num_values, int64_t* out,
                             size_t* consumed) {
  return DecodeByteStreamSplit(data, len, num_values, 8, reinterpret_cast<uint8_t*>(out), consumed);
}

void EncodeByteStreamSplit(const uint8_t* values, int64_t count, int width, std::string* out) {
  if (count <= 0 || width <= 0) return;
  const size_t n = static_cast<size_t>(count);
  const size_t old_size = out->size();
  out->resize(old_size + n * width);
  uint8_t* dst = reinterpret_cast<uint8_t*>(out->data()) + old_size;
  for (int k = 0; k < width; ++k) {
    for (size_t i = 0; i < n; ++i) dst[k * n + i] = values[i * width + k];
  }
}

}  // namespace weir::parquet
