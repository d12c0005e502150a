#include "avro/decoder.h"

#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <limits>

#include "columnar/text_format.h"
#include "compress/compress.h"

namespace weir::avro {

using columnar::Column;
using columnar::Int128;
using columnar::TypeId;

Status Cursor::ReadLong(int64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (p_ == end_) return Status::Corruption("truncated varint");
    const uint8_t b = *p_++;
    if (shift == 63 && (b & 0x7e) != 0) return Status::Corruption("varint overflows 64 bits");
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
      return Status::OK();
    }
  }
  return Status::Corruption("varint longer than 10 bytes");
}

Status Cursor::ReadInt(int32_t* out) {
  int64_t v;
  WEIR_RETURN_NOT_OK(ReadLong(&v));
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return Status::Corruption("int " + std::to_string(v) + " out of 32-bit range");
  }
  *out = static_cast<int32_t>(v);
  return Status::OK();
}

Status Cursor::ReadBytes(std::string_view* out) {
  int64_t n;
  WEIR_RETURN_NOT_OK(ReadLong(&n));
  if (n < 0) return Status::Corruption("negative length " + std::to_string(n));
  return ReadFixed(n, out);
}

Status Cursor::ReadFixed(int64_t size, std::string_view* out) {
  if (size > remaining()) {
    return Status::Corruption("length " + std::to_string(size) + " but only " +
                              std::to_string(remaining()) + " bytes left");
  }
  *out = std::string_view(reinterpret_cast<const char*>(p_), static_cast<size_t>(size));
  p_ += size;
  return Status::OK();
}

namespace {

constexpr int64_t kMaxChildValues = std::numeric_limits<int32_t>::max();

Status ReadFloat(Cursor* in, float* out) {
  std::string_view b;
  WEIR_RETURN_NOT_OK(in->ReadFixed(4, &b));
  uint32_t bits = 0;
  for (int i = 3; i >= 0; --i) bits = (bits << 8) | static_cast<uint8_t>(b[i]);
  std::memcpy(out, &bits, 4);
  return Status::OK();
}

Status ReadDouble(Cursor* in, double* out) {
  std::string_view b;
  WEIR_RETURN_NOT_OK(in->ReadFixed(8, &b));
  uint64_t bits = 0;
  for (int i = 7; i >= 0; --i) bits = (bits << 8) | static_cast<uint8_t>(b[i]);
  std::memcpy(out, &bits, 8);
  return Status::OK();
}

// Big-endian two's complement (Java's BigInteger bytes) as a decimal of `precision` digits.
Status AppendDecimal(std::string_view b, const Node& n, Column* col) {
  if (b.empty()) return Status::Corruption("a decimal of zero bytes");
  const bool negative = static_cast<uint8_t>(b[0]) & 0x80;
  // Bytes beyond 16 must only extend the sign.
  while (b.size() > 16) {
    const uint8_t lead = static_cast<uint8_t>(b[0]);
    const bool next_negative = static_cast<uint8_t>(b[1]) & 0x80;
    if (lead != (negative ? 0xff : 0x00) || next_negative != negative) {
      return Status::Corruption("decimal(" + std::to_string(n.precision) + "," +
                                std::to_string(n.scale) + ") value of " + std::to_string(b.size()) +
                                " bytes out of range");
    }
    b.remove_prefix(1);
  }
  unsigned __int128 u = negative ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : b) u = (u << 8) | static_cast<uint8_t>(c);
  const Int128 v = static_cast<Int128>(u);
  const Int128 limit = columnar::MaxDecimalUnscaled(n.precision);
  if (v > limit || v < -limit) {
    return Status::Corruption("decimal value has more than " + std::to_string(n.precision) +
                              " digits (decimal(" + std::to_string(n.precision) + "," +
                              std::to_string(n.scale) + "))");
  }
  col->Append<Int128>(v);
  return Status::OK();
}

Status Decode(const Node& n, Cursor* in, Column* col);

Status CheckChildRoom(const Column& child, int64_t more) {
  if (more > kMaxChildValues - child.size()) {
    return Status::Corruption("more than 2^31-1 array or map entries in one batch");
  }
  return Status::OK();
}

// The item count of one array/map block, bounded by the bytes that can hold it.
Status ReadBlockCount(Cursor* in, int64_t min_item_size, int64_t* count) {
  WEIR_RETURN_NOT_OK(in->ReadLong(count));
  if (*count < 0) {
    if (*count == std::numeric_limits<int64_t>::min())
      return Status::Corruption("invalid block count");
    *count = -*count;
    int64_t byte_size;
    WEIR_RETURN_NOT_OK(in->ReadLong(&byte_size));
    if (byte_size < 0 || byte_size > in->remaining()) {
      return Status::Corruption("block byte size " + std::to_string(byte_size) + " with " +
                                std::to_string(in->remaining()) + " bytes left");
    }
  }
  if (*count > in->remaining() / std::max<int64_t>(min_item_size, 1)) {
    return Status::Corruption("block of " + std::to_string(*count) + " items but only " +
                              std::to_string(in->remaining()) + " bytes left");
  }
  return Status::OK();
}

Status DecodeLong(const Node& n, Cursor* in, Column* col) {
  int64_t v;
  WEIR_RETURN_NOT_OK(in->ReadLong(&v));
  const TypeId t = col->type_id();
  if ((t == TypeId::kTimestamp || t == TypeId::kTimestampNtz) &&
      (n.logical == LogicalType::kTimestampMillis ||
       n.logical == LogicalType::kLocalTimestampMillis)) {
    if (v > std::numeric_limits<int64_t>::max() / 1000 ||
        v < std::numeric_limits<int64_t>::min() / 1000) {
      return Status::Corruption("timestamp-millis " + std::to_string(v) +
                                " overflows microseconds");
    }
    v *= 1000;
  }
  col->Append<int64_t>(v);
  return Status::OK();
}

Status Decode(const Node& n, Cursor* in, Column* col) {
  switch (n.type) {
    case Type::kNull:
      col->AppendNull();
      return Status::OK();
    case Type::kBoolean: {
      std::string_view b;
      WEIR_RETURN_NOT_OK(in->ReadFixed(1, &b));
      const uint8_t v = static_cast<uint8_t>(b[0]);
      if (v > 1) return Status::Corruption("boolean byte " + std::to_string(v));
      col->Append<uint8_t>(v);
      return Status::OK();
    }
    case Type::kInt: {
      int32_t v;
      WEIR_RETURN_NOT_OK(in->ReadInt(&v));
      if (col->type_id() == TypeId::kInt64)
        col->Append<int64_t>(v);  // [int, long]
      else
        col->Append<int32_t>(v);
      return Status::OK();
    }
    case Type::kLong:
      return DecodeLong(n, in, col);
    case Type::kFloat: {
      float v;
      WEIR_RETURN_NOT_OK(ReadFloat(in, &v));
      if (col->type_id() == TypeId::kDouble)
        col->Append<double>(v);  // [float, double]
      else
        col->Append<float>(v);
      return Status::OK();
    }
    case Type::kDouble: {
      double v;
      WEIR_RETURN_NOT_OK(ReadDouble(in, &v));
      col->Append<double>(v);
      return Status::OK();
    }
    case Type::kBytes:
    case Type::kString:
    case Type::kFixed: {
      std::string_view b;
      if (n.type == Type::kFixed)
        WEIR_RETURN_NOT_OK(in->ReadFixed(n.fixed_size, &b));
      else
        WEIR_RETURN_NOT_OK(in->ReadBytes(&b));
      if (col->type_id() == TypeId::kDecimal) return AppendDecimal(b, n, col);
      col->AppendString(b);
      return Status::OK();
    }
    case Type::kEnum: {
      int32_t i;
      WEIR_RETURN_NOT_OK(in->ReadInt(&i));
      if (i < 0 || static_cast<size_t>(i) >= n.symbols.size()) {
        return Status::Corruption("enum index " + std::to_string(i) + " of " + n.name +
                                  ", which has " + std::to_string(n.symbols.size()) + " symbols");
      }
      col->AppendString(n.symbols[static_cast<size_t>(i)]);
      return Status::OK();
    }
    case Type::kRecord:
      for (size_t i = 0; i < n.children.size(); ++i) {
        WEIR_RETURN_NOT_OK(Decode(*n.children[i], in, &col->mutable_child(static_cast<int>(i))));
      }
      col->AppendStructEntry();
      return Status::OK();
    case Type::kArray: {
      const Node& items = *n.children[0];
      Column& child = col->mutable_child(0);
      for (;;) {
        int64_t count;
        WEIR_RETURN_NOT_OK(ReadBlockCount(in, items.min_size, &count));
        if (count == 0) break;
        WEIR_RETURN_NOT_OK(CheckChildRoom(child, count));
        for (int64_t i = 0; i < count; ++i) WEIR_RETURN_NOT_OK(Decode(items, in, &child));
      }
      col->AppendListEntry();
      return Status::OK();
    }
    case Type::kMap: {
      const Node& values = *n.children[0];
      Column& keys = col->mutable_child(0);
      Column& vals = col->mutable_child(1);
      for (;;) {
        int64_t count;
        WEIR_RETURN_NOT_OK(ReadBlockCount(in, 1 + values.min_size, &count));
        if (count == 0) break;
        WEIR_RETURN_NOT_OK(CheckChildRoom(keys, count));
        for (int64_t i = 0; i < count; ++i) {
          std::string_view key;
          WEIR_RETURN_NOT_OK(in->ReadBytes(&key));
          keys.AppendString(key);
          WEIR_RETURN_NOT_OK(Decode(values, in, &vals));
        }
      }
      col->AppendListEntry();
      return Status::OK();
    }
    case Type::kUnion: {
      int64_t index;
      WEIR_RETURN_NOT_OK(in->ReadLong(&index));
      if (index < 0 || static_cast<uint64_t>(index) >= n.children.size()) {
        return Status::Corruption("union branch " + std::to_string(index) + " of a union of " +
                                  std::to_string(n.children.size()));
      }
      const Node& branch = *n.children[static_cast<size_t>(index)];
      if (branch.type == Type::kNull) {
        col->AppendNull();
        return Status::OK();
      }
      if (!n.union_as_struct) return Decode(branch, in, col);
      const int member = n.union_member[static_cast<size_t>(index)];
      for (int m = 0; m < col->num_children(); ++m) {
        if (m == member)
          WEIR_RETURN_NOT_OK(Decode(branch, in, &col->mutable_child(m)));
        else
          col->mutable_child(m).AppendNull();
      }
      col->AppendStructEntry();
      return Status::OK();
    }
  }
  return Status::Internal("unknown Avro type");
}

}  // namespace

Status DecodeRecords(const Node& record, std::string_view data, int64_t count,
                     columnar::Batch* batch) {
  Cursor in(data);
  if (count < 0 || count > in.remaining() / std::max<int64_t>(record.min_size, 1)) {
    return Status::Corruption(std::to_string(count) + " records cannot fit in " +
                              std::to_string(data.size()) + " bytes");
  }
  for (int64_t r = 0; r < count; ++r) {
    for (size_t i = 0; i < record.children.size(); ++i) {
      Status st = Decode(*record.children[i], &in, &batch->columns[i]);
      if (!st.ok())
        return st.WithContext("record " + std::to_string(r) + ", field " + record.field_names[i]);
    }
  }
  if (in.remaining() != 0) {
    return Status::Corruption(std::to_string(in.remaining()) + " bytes left after the block's " +
                              std::to_string(count) + " records");
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Codecs

Result<BlockCodec> BlockCodecFromName(std::string_view name) {
  if (name.empty() || name == "null") return BlockCodec::kNull;
  if (name == "deflate") return BlockCodec::kDeflate;
  if (name == "snappy") return BlockCodec::kSnappy;
  if (name == "zstandard" || name == "zstd") return BlockCodec::kZstd;
  if (name == "bzip2" || name == "xz") {
    return Status::NotImplemented(
        "avro codec '" + std::string(name) +
        "' is not supported by weir (null, deflate, snappy, zstandard are)");
  }
  std::string shown(name.substr(0, 64));
  return Status::Corruption("unknown avro codec '" + shown + "'");
}

namespace {

std::string TooBig(std::string_view codec, int64_t max_bytes) {
  return std::string(codec) + " block decompresses to more than " + std::to_string(max_bytes) +
         " bytes";
}

Result<std::string_view> Inflate(std::string_view input, int64_t max_bytes, std::string* out) {
  z_stream s{};
  if (inflateInit2(&s, -15) != Z_OK) return Status::Internal("deflate: inflateInit2 failed");
  struct End {
    z_stream* s;
    ~End() { inflateEnd(s); }
  } end{&s};
  if (input.size() > std::numeric_limits<uInt>::max())
    return Status::Corruption("deflate block too large");
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  s.avail_in = static_cast<uInt>(input.size());
  out->clear();
  size_t produced = 0;
  for (;;) {
    if (produced == out->size()) {
      if (static_cast<int64_t>(produced) >= max_bytes)
        return Status::Corruption(TooBig("deflate", max_bytes));
      size_t grow = std::max<size_t>(4096, std::min<size_t>(produced, 64 << 20));
      out->resize(
          static_cast<size_t>(std::min<int64_t>(max_bytes, static_cast<int64_t>(produced + grow))));
    }
    s.next_out = reinterpret_cast<Bytef*>(out->data() + produced);
    s.avail_out = static_cast<uInt>(std::min<size_t>(out->size() - produced, 1u << 30));
    const uInt before = s.avail_out;
    int rc = inflate(&s, Z_NO_FLUSH);
    produced += before - s.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && s.avail_in == 0)
      return Status::Corruption("deflate: truncated stream");
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return Status::Corruption(std::string("deflate: ") + (s.msg ? s.msg : "invalid stream"));
    }
  }
  // Bytes after the end of the deflate stream are ignored, as Java's Inflater (nowrap) does:
  // fastavro, for one, leaves three bytes of zlib's Adler-32 there.
  out->resize(produced);
  return std::string_view(*out);
}

Result<std::string_view> Unsnappy(std::string_view input, int64_t max_bytes, std::string* out) {
  if (input.size() < 4) return Status::Corruption("snappy block shorter than its 4-byte CRC32");
  std::string_view compressed = input.substr(0, input.size() - 4);
  const auto* c = reinterpret_cast<const uint8_t*>(input.data() + compressed.size());
  const uint32_t expected =
      (uint32_t{c[0]} << 24) | (uint32_t{c[1]} << 16) | (uint32_t{c[2]} << 8) | c[3];
  size_t length = 0;
  if (!snappy::GetUncompressedLength(compressed.data(), compressed.size(), &length)) {
    return Status::Corruption("snappy: invalid length header");
  }
  if (static_cast<uint64_t>(length) > static_cast<uint64_t>(max_bytes)) {
    return Status::Corruption(TooBig("snappy", max_bytes));
  }
  // Validate without output first: the claimed length is allocated only for a well-formed block.
  if (!snappy::IsValidCompressedBuffer(compressed.data(), compressed.size())) {
    return Status::Corruption("snappy: invalid compressed data");
  }
  out->resize(length);
  WEIR_RETURN_NOT_OK(compress::Decompress(compress::Codec::kSnappy, compressed,
                                          static_cast<int64_t>(length),
                                          reinterpret_cast<uint8_t*>(out->data())));
  const uint32_t actual = static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(out->data()), static_cast<uInt>(out->size())));
  if (actual != expected) {
    char buf[80];
    std::snprintf(buf, sizeof(buf),
                  "snappy: CRC32 %08x of the uncompressed data, the block says %08x", actual,
                  expected);
    return Status::Corruption(buf);
  }
  return std::string_view(*out);
}

Result<std::string_view> Unzstd(std::string_view input, int64_t max_bytes, std::string* out) {
  thread_local struct Ctx {
    ZSTD_DCtx* ctx = ZSTD_createDCtx();
    ~Ctx() { ZSTD_freeDCtx(ctx); }
  } holder;
  if (holder.ctx == nullptr)
    return Status::Internal("zstd: cannot allocate a decompression context");
  ZSTD_DCtx_reset(holder.ctx, ZSTD_reset_session_only);
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  out->clear();
  size_t produced = 0;
  size_t last = 1;
  while (in.pos < in.size || last != 0) {
    if (produced == out->size()) {
      if (static_cast<int64_t>(produced) >= max_bytes)
        return Status::Corruption(TooBig("zstd", max_bytes));
      size_t grow = std::max<size_t>(4096, std::min<size_t>(produced, 64 << 20));
      out->resize(
          static_cast<size_t>(std::min<int64_t>(max_bytes, static_cast<int64_t>(produced + grow))));
    }
    ZSTD_outBuffer o{out->data(), out->size(), produced};
    const size_t in_before = in.pos;
    last = ZSTD_decompressStream(holder.ctx, &o, &in);
    if (ZSTD_isError(last))
      return Status::Corruption(std::string("zstd: ") + ZSTD_getErrorName(last));
    const bool progress = o.pos != produced || in.pos != in_before;
    produced = o.pos;
    if (in.pos == in.size && last != 0 && !progress && produced < out->size()) {
      return Status::Corruption("zstd: truncated frame");
    }
  }
  out->resize(produced);
  return std::string_view(*out);
}

}  // namespace

Result<std::string_view> DecompressBlock(BlockCodec codec, std::string_view input,
                                         int64_t max_bytes, std::string* scratch) {
  switch (codec) {
    case BlockCodec::kNull:
      return input;
    case BlockCodec::kDeflate:
      return Inflate(input, max_bytes, scratch);
    case BlockCodec::kSnappy:
      return Unsnappy(input, max_bytes, scratch);
    case BlockCodec::kZstd:
      return Unzstd(input, max_bytes, scratch);
  }
  return Status::Internal("unknown block codec");
}

}  // namespace weir::avro
