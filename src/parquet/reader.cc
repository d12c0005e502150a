#include "parquet/reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <strings.h>
#include <zlib.h>

#include "columnar/text_format.h"
#include "compress/compress.h"
#include "parquet/encoding.h"
#include "parquet/levels.h"

namespace weir::parquet {

using columnar::Column;
using columnar::Int128;
using columnar::TypeId;

namespace {

constexpr int64_t kMaxPageBytes = int64_t{1} << 30;    // uncompressed page size we accept
constexpr int64_t kMaxPageEntries = int64_t{1} << 26;  // level entries in one page
constexpr int64_t kMaxFooterBytes = int64_t{1} << 30;

Result<compress::Codec> CodecOf(CompressionCodec c) {
  switch (c) {
    case CompressionCodec::kUncompressed: return compress::Codec::kUncompressed;
    case CompressionCodec::kSnappy: return compress::Codec::kSnappy;
    case CompressionCodec::kGzip: return compress::Codec::kGzip;
    case CompressionCodec::kLz4: return compress::Codec::kLz4Hadoop;
    case CompressionCodec::kZstd: return compress::Codec::kZstd;
    case CompressionCodec::kLz4Raw: return compress::Codec::kLz4Raw;
    case CompressionCodec::kBrotli:
      return Status::NotImplemented("BROTLI compression is not supported by weir");
    case CompressionCodec::kLzo:
      return Status::NotImplemented("LZO compression is not supported by weir");
  }
  return Status::Corruption("unknown compression codec " + std::to_string(static_cast<int>(c)));
}

// Big-endian two's complement bytes (at most 16 significant) to Int128.
bool BigEndianToInt128(std::string_view bytes, Int128* out) {
  if (bytes.empty()) {
    *out = 0;
    return true;
  }
  bool negative = static_cast<uint8_t>(bytes[0]) & 0x80;
  // Leading sign bytes beyond 16 must be pure sign extension.
  while (bytes.size() > 16) {
    if (static_cast<uint8_t>(bytes[0]) != (negative ? 0xff : 0x00)) return false;
    bytes.remove_prefix(1);
  }
  unsigned __int128 v = negative ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : bytes) v = (v << 8) | static_cast<uint8_t>(c);
  *out = static_cast<Int128>(v);
  return true;
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float v;
  if (exponent == 0) {
    v = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    v = mantissa ? NAN : INFINITY;
  } else {
    v = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  }
  return sign ? -v : v;
}

// Decodes `n` values of `leaf`'s physical type in `encoding` and appends them, converted, to
// `out`. `dictionary` holds converted values (a Column of the leaf's type) for dictionary pages.
class ValueDecoder {
 public:
  ValueDecoder(const LeafDescriptor& leaf, Column* out) : leaf_(leaf), out_(out) {}

  Status Decode(Encoding encoding, const uint8_t* data, size_t len, int64_t n,
                const Column* dictionary) {
    if (n == 0) return Status::OK();
    switch (encoding) {
      case Encoding::kPlainDictionary:
      case Encoding::kRleDictionary: return DecodeDictionary(data, len, n, dictionary);
      case Encoding::kPlain: return DecodePlainValues(data, len, n);
      case Encoding::kRle: return DecodeRleBooleans(data, len, n);
      case Encoding::kDeltaBinaryPacked: return DecodeDeltaInts(data, len, n);
      case Encoding::kDeltaLengthByteArray:
      case Encoding::kDeltaByteArray: return DecodeDeltaBytes(encoding, data, len, n);
      case Encoding::kByteStreamSplit: return DecodeSplit(data, len, n);
      default:
        return Status::NotImplemented("page encoding " + std::to_string(static_cast<int>(encoding)) +
                                      " is not supported");
    }
  }

 private:
  Status DecodePlainValues(const uint8_t* data, size_t len, int64_t n) {
    size_t consumed = 0;
    switch (leaf_.physical_type) {
      case Type::kBoolean: {
        std::vector<uint8_t> v(n);
        WEIR_RETURN_NOT_OK(DecodePlainBoolean(data, len, n, v.data(), &consumed));
        return AppendBools(v.data(), n);
      }
      case Type::kInt32: {
        i32_.resize(n);
        WEIR_RETURN_NOT_OK(DecodePlain(data, len, n, i32_.data(), &consumed));
        return AppendInt32(i32_.data(), n);
      }
      case Type::kInt64: {
        i64_.resize(n);
        WEIR_RETURN_NOT_OK(DecodePlain(data, len, n, i64_.data(), &consumed));
        return AppendInt64(i64_.data(), n);
      }
      case Type::kInt96: {
        std::vector<Int96> v(n);
        WEIR_RETURN_NOT_OK(DecodePlain(data, len, n, v.data(), &consumed));
        return AppendInt96(v.data(), n);
      }
      case Type::kFloat: {
        std::vector<float> v(n);
        WEIR_RETURN_NOT_OK(DecodePlain(data, len, n, v.data(), &consumed));
        return AppendFixed(v.data(), n);
      }
      case Type::kDouble: {
        std::vector<double> v(n);
        WEIR_RETURN_NOT_OK(DecodePlain(data, len, n, v.data(), &consumed));
        return AppendFixed(v.data(), n);
      }
      case Type::kByteArray: {
        views_.resize(n);
        WEIR_RETURN_NOT_OK(DecodePlainByteArray(data, len, n, views_.data(), &consumed));
        return AppendBytes(views_.data(), n);
      }
      case Type::kFixedLenByteArray: {
        if (leaf_.type_length <= 0) return Status::Corruption("FIXED_LEN_BYTE_ARRAY of width 0");
        views_.resize(n);
        WEIR_RETURN_NOT_OK(
            DecodePlainFixedLenByteArray(data, len, n, leaf_.type_length, views_.data(), &consumed));
        return AppendBytes(views_.data(), n);
      }
    }
    return Status::Corruption("unknown physical type");
  }

  Status DecodeRleBooleans(const uint8_t* data, size_t len, int64_t n) {
    if (leaf_.physical_type != Type::kBoolean) {
      return Status::Corruption("RLE value encoding on a non-boolean column");
    }
    RleBitPackedDecoder decoder;
    size_t consumed = 0;
    WEIR_RETURN_NOT_OK(RleBitPackedDecoder::OpenLengthPrefixed(data, len, 1, &decoder, &consumed));
    std::vector<uint8_t> v(n);
    WEIR_RETURN_NOT_OK(decoder.GetBatch(v.data(), n));
    return AppendBools(v.data(), n);
  }

  Status DecodeDeltaInts(const uint8_t* data, size_t len, int64_t n) {
    size_t consumed = 0;
    if (leaf_.physical_type == Type::kInt32) {
      i32_.resize(n);
      WEIR_RETURN_NOT_OK(DecodeDeltaBinaryPacked(data, len, n, i32_.data(), &consumed));
      return AppendInt32(i32_.data(), n);
    }
    if (leaf_.physical_type == Type::kInt64) {
      i64_.resize(n);
      WEIR_RETURN_NOT_OK(DecodeDeltaBinaryPacked(data, len, n, i64_.data(), &consumed));
      return AppendInt64(i64_.data(), n);
    }
    return Status::Corruption("DELTA_BINARY_PACKED on a non-integer column");
  }

  Status DecodeDeltaBytes(Encoding encoding, const uint8_t* data, size_t len, int64_t n) {
    if (leaf_.physical_type != Type::kByteArray && leaf_.physical_type != Type::kFixedLenByteArray) {
      return Status::Corruption("DELTA byte-array encoding on a non-byte-array column");
    }
    views_.resize(n);
    size_t consumed = 0;
    if (encoding == Encoding::kDeltaLengthByteArray) {
      WEIR_RETURN_NOT_OK(DecodeDeltaLengthByteArray(data, len, n, views_.data(), &consumed));
    } else {
      // Prefix-compressed strings are materialised in a buffer the column keeps alive.
      auto arena = std::make_shared<std::string>();
      WEIR_RETURN_NOT_OK(DecodeDeltaByteArray(data, len, n, arena.get(), views_.data(), &consumed,
                                              kMaxPageBytes));
      out_->AddBufferOwner(arena);
    }
    if (leaf_.physical_type == Type::kFixedLenByteArray) {
      for (int64_t i = 0; i < n; ++i) {
        if (static_cast<int>(views_[i].size()) != leaf_.type_length) {
          return Status::Corruption("FIXED_LEN_BYTE_ARRAY value of the wrong width");
        }
      }
    }
    return AppendBytes(views_.data(), n);
  }

  Status DecodeSplit(const uint8_t* data, size_t len, int64_t n) {
    size_t consumed = 0;
    switch (leaf_.physical_type) {
      case Type::kFloat: {
        std::vector<float> v(n);
        WEIR_RETURN_NOT_OK(DecodeByteStreamSplit(data, len, n, v.data(), &consumed));
        return AppendFixed(v.data(), n);
      }
      case Type::kDouble: {
        std::vector<double> v(n);
        WEIR_RETURN_NOT_OK(DecodeByteStreamSplit(data, len, n, v.data(), &consumed));
        return AppendFixed(v.data(), n);
      }
      case Type::kInt32:
        i32_.resize(n);
        WEIR_RETURN_NOT_OK(DecodeByteStreamSplit(data, len, n, i32_.data(), &consumed));
        return AppendInt32(i32_.data(), n);
      case Type::kInt64:
        i64_.resize(n);
        WEIR_RETURN_NOT_OK(DecodeByteStreamSplit(data, len, n, i64_.data(), &consumed));
        return AppendInt64(i64_.data(), n);
      case Type::kFixedLenByteArray: {
        if (leaf_.type_length <= 0) return Status::Corruption("FIXED_LEN_BYTE_ARRAY of width 0");
        auto bytes = std::make_shared<std::string>(n * leaf_.type_length, '\0');
        WEIR_RETURN_NOT_OK(DecodeByteStreamSplit(data, len, n, leaf_.type_length,
                                                 reinterpret_cast<uint8_t*>(bytes->data()), &consumed));
        out_->AddBufferOwner(bytes);
        views_.resize(n);
        for (int64_t i = 0; i < n; ++i) {
          views_[i] = std::string_view(*bytes).substr(i * leaf_.type_length, leaf_.type_length);
        }
        return AppendBytes(views_.data(), n);
      }
      default:
        return Status::Corruption("BYTE_STREAM_SPLIT on an unsupported column type");
    }
  }

  Status DecodeDictionary(const uint8_t* data, size_t len, int64_t n, const Column* dictionary) {
    if (dictionary == nullptr) {
      return Status::Corruption("a dictionary-encoded page without a dictionary page");
    }
    RleBitPackedDecoder decoder;
    WEIR_RETURN_NOT_OK(RleBitPackedDecoder::OpenDictionaryIndices(data, len, &decoder));
    indices_.resize(n);
    WEIR_RETURN_NOT_OK(decoder.GetBatch(indices_.data(), n));
    const uint32_t size = static_cast<uint32_t>(dictionary->size());
    for (int64_t i = 0; i < n; ++i) {
      if (indices_[i] >= size) {
        return Status::Corruption("dictionary index " + std::to_string(indices_[i]) +
                                  " out of range (dictionary of " + std::to_string(size) + ")");
      }
    }
    int width = dictionary->type()->byte_width();
    if (width > 0) {
      auto& fixed = out_->fixed_buffer();
      size_t at = fixed.size();
      fixed.resize(at + n * width);
      const uint8_t* src = dictionary->values<uint8_t>();
      uint8_t* dst = fixed.data() + at;
      if (width == 4) {
        for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * 4, src + indices_[i] * 4, 4);
      } else if (width == 8) {
        for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * 8, src + indices_[i] * 8, 8);
      } else {
        for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * width, src + indices_[i] * width, width);
      }
    } else {
      auto& strings = out_->string_buffer();
      const std::string_view* src = dictionary->strings();
      for (int64_t i = 0; i < n; ++i) strings.push_back(src[indices_[i]]);
    }
    out_->ShareBuffersFrom(*dictionary);
    return Commit(n);
  }

  // ---- Conversions to columnar values

  Status Commit(int64_t n) {
    out_->SetSize(out_->size() + n);
    return Status::OK();
  }

  template <typename T>
  Status AppendFixed(const T* v, int64_t n) {
    if (n == 0) return Status::OK();
    auto& fixed = out_->fixed_buffer();
    size_t at = fixed.size();
    fixed.resize(at + n * sizeof(T));
    std::memcpy(fixed.data() + at, v, n * sizeof(T));
    return Commit(n);
  }

  template <typename To, typename From, typename Fn>
  Status AppendConverted(const From* v, int64_t n, Fn fn) {
    auto& fixed = out_->fixed_buffer();
    size_t at = fixed.size();
    fixed.resize(at + n * sizeof(To));
    To* dst = reinterpret_cast<To*>(fixed.data() + at);
    for (int64_t i = 0; i < n; ++i) dst[i] = fn(v[i]);
    return Commit(n);
  }

  Status AppendBools(const uint8_t* v, int64_t n) {
    return AppendConverted<uint8_t>(v, n, [](uint8_t b) -> uint8_t { return b ? 1 : 0; });
  }

  Status AppendInt32(const int32_t* v, int64_t n) {
    switch (leaf_.conversion) {
      case Conversion::kInt32ToInt8:
        return AppendConverted<int8_t>(v, n, [](int32_t x) { return static_cast<int8_t>(x); });
      case Conversion::kInt32ToInt16:
        return AppendConverted<int16_t>(v, n, [](int32_t x) { return static_cast<int16_t>(x); });
      case Conversion::kUint8ToInt16:
        return AppendConverted<int16_t>(v, n, [](int32_t x) { return static_cast<int16_t>(static_cast<uint8_t>(x)); });
      case Conversion::kUint16ToInt32:
        return AppendConverted<int32_t>(v, n, [](int32_t x) { return static_cast<int32_t>(static_cast<uint16_t>(x)); });
      case Conversion::kUint32ToInt64:
        return AppendConverted<int64_t>(v, n, [](int32_t x) { return static_cast<int64_t>(static_cast<uint32_t>(x)); });
      case Conversion::kInt32ToDecimal:
        return AppendConverted<Int128>(v, n, [](int32_t x) { return static_cast<Int128>(x); });
      default:
        return AppendFixed(v, n);
    }
  }

  Status AppendInt64(const int64_t* v, int64_t n) {
    switch (leaf_.conversion) {
      case Conversion::kInt64ToDecimal:
        return AppendConverted<Int128>(v, n, [](int64_t x) { return static_cast<Int128>(x); });
      case Conversion::kUint64ToDecimal:
        return AppendConverted<Int128>(v, n, [](int64_t x) { return static_cast<Int128>(static_cast<uint64_t>(x)); });
      case Conversion::kMillisToMicros:
        return AppendConverted<int64_t>(v, n, [](int64_t x) {
          return static_cast<int64_t>(static_cast<uint64_t>(x) * 1000);  // wraps like Java
        });
      case Conversion::kNanosToMicros:
        return AppendConverted<int64_t>(v, n, [](int64_t x) {
          int64_t q = x / 1000;
          return (x % 1000 < 0) ? q - 1 : q;  // floor
        });
      default:
        return AppendFixed(v, n);
    }
  }

  Status AppendInt96(const Int96* v, int64_t n) {
    return AppendConverted<int64_t>(v, n, [](const Int96& x) {
      // As Spark reads it: nanos of the day as a signed long, the Julian day as a signed int.
      int64_t nanos = static_cast<int64_t>(static_cast<uint64_t>(x.words[0]) |
                                           (static_cast<uint64_t>(x.words[1]) << 32));
      int64_t julian_day = static_cast<int32_t>(x.words[2]);
      constexpr int64_t kJulianEpochDay = 2440588;
      // Unsigned arithmetic: out-of-range days wrap (as Java's long arithmetic) instead of being
      // undefined behaviour.
      return static_cast<int64_t>(static_cast<uint64_t>(julian_day - kJulianEpochDay) * 86400000000ULL +
                                  static_cast<uint64_t>(nanos / 1000));
    });
  }

  Status AppendBytes(const std::string_view* v, int64_t n) {
    switch (leaf_.conversion) {
      case Conversion::kBytesToDecimal: {
        auto& fixed = out_->fixed_buffer();
        size_t at = fixed.size();
        fixed.resize(at + n * sizeof(Int128));
        Int128* dst = reinterpret_cast<Int128*>(fixed.data() + at);
        for (int64_t i = 0; i < n; ++i) {
          Int128 value;
          if (!BigEndianToInt128(v[i], &value)) {
            return Status::Corruption("decimal value wider than 16 bytes");
          }
          dst[i] = value;
        }
        return Commit(n);
      }
      case Conversion::kFloat16ToFloat: {
        auto& fixed = out_->fixed_buffer();
        size_t at = fixed.size();
        fixed.resize(at + n * sizeof(float));
        float* dst = reinterpret_cast<float*>(fixed.data() + at);
        for (int64_t i = 0; i < n; ++i) {
          uint16_t h = static_cast<uint8_t>(v[i][0]) | (static_cast<uint8_t>(v[i][1]) << 8);
          dst[i] = HalfToFloat(h);
        }
        return Commit(n);
      }
      case Conversion::kUuidToString: {
        static constexpr char kHex[] = "0123456789abcdef";
        auto& strings = out_->string_buffer();
        for (int64_t i = 0; i < n; ++i) {
          char* p = out_->arena().Allocate(36);
          int k = 0;
          for (int b = 0; b < 16; ++b) {
            if (b == 4 || b == 6 || b == 8 || b == 10) p[k++] = '-';
            uint8_t byte = static_cast<uint8_t>(v[i][b]);
            p[k++] = kHex[byte >> 4];
            p[k++] = kHex[byte & 15];
          }
          strings.push_back(std::string_view(p, 36));
        }
        return Commit(n);
      }
      default: {
        auto& strings = out_->string_buffer();
        strings.insert(strings.end(), v, v + n);
        return Commit(n);
      }
    }
  }

  const LeafDescriptor& leaf_;
  Column* out_;
  std::vector<int32_t> i32_;
  std::vector<int64_t> i64_;
  std::vector<uint32_t> indices_;
  std::vector<std::string_view> views_;
};

// Reads one column chunk into a DecodedLeaf.
class ChunkReader {
 public:
  ChunkReader(const LeafDescriptor& leaf, const ColumnMetaData& meta, compress::Codec codec)
      : leaf_(leaf), meta_(meta), codec_(codec) {}

  Status Read(std::shared_ptr<const std::string> chunk, DecodedLeaf* out) {
    out->values = Column(leaf_.type);
    out->values.AddBufferOwner(chunk);
    const uint8_t* data = reinterpret_cast<const uint8_t*>(chunk->data());
    const size_t size = chunk->size();
    size_t pos = 0;
    int64_t entries = 0;
    while (entries < meta_.num_values) {
      if (pos >= size) {
        return Status::Corruption("column chunk ends after " + std::to_string(entries) + " of " +
                                  std::to_string(meta_.num_values) + " values");
      }
      PageHeader header;
      size_t consumed = 0;
      WEIR_RETURN_NOT_OK(Parse(std::span<const uint8_t>(data + pos, size - pos), &header, &consumed)
                             .WithContext("page header at chunk byte " + std::to_string(pos)));
      pos += consumed;
      if (header.compressed_page_size < 0 ||
          static_cast<size_t>(header.compressed_page_size) > size - pos) {
        return Status::Corruption("page of " + std::to_string(header.compressed_page_size) +
                                  " bytes runs past the column chunk");
      }
      if (header.uncompressed_page_size < 0 || header.uncompressed_page_size > kMaxPageBytes) {
        return Status::Corruption("page claims " + std::to_string(header.uncompressed_page_size) +
                                  " uncompressed bytes");
      }
      const uint8_t* page = data + pos;
      const size_t page_size = header.compressed_page_size;
      pos += page_size;
      if (header.crc) {
        // CRC32 of the page bytes as stored (after compression), written by checksum-enabled writers.
        uint32_t crc = static_cast<uint32_t>(crc32(0L, page, static_cast<uInt>(page_size)));
        if (crc != static_cast<uint32_t>(*header.crc)) {
          return Status::Corruption("page checksum mismatch at chunk byte " +
                                    std::to_string(pos - page_size) + " (CRC32 " +
                                    std::to_string(crc) + ", header says " +
                                    std::to_string(static_cast<uint32_t>(*header.crc)) + ")");
        }
      }
      switch (header.type) {
        case PageType::kDictionaryPage:
          WEIR_RETURN_NOT_OK(ReadDictionaryPage(header, chunk, page, page_size));
          break;
        case PageType::kDataPage:
          WEIR_RETURN_NOT_OK(ReadDataPageV1(header, chunk, page, page_size, out, &entries));
          break;
        case PageType::kDataPageV2:
          WEIR_RETURN_NOT_OK(ReadDataPageV2(header, chunk, page, page_size, out, &entries));
          break;
        default:
          break;  // index pages are skipped
      }
    }
    if (entries != meta_.num_values) {
      return Status::Corruption("column chunk holds " + std::to_string(entries) +
                                " values, its metadata says " + std::to_string(meta_.num_values));
    }
    out->num_entries = entries;
    return Status::OK();
  }

 private:
  // Returns a pointer to the page body, decompressing into a new buffer when needed.
  Result<const uint8_t*> Body(const uint8_t* page, size_t page_size, int64_t uncompressed_size,
                              bool compressed, std::shared_ptr<const void>* holder) {
    if (!compressed || codec_ == compress::Codec::kUncompressed) {
      if (static_cast<int64_t>(page_size) != uncompressed_size) {
        return Status::Corruption("uncompressed page of " + std::to_string(page_size) +
                                  " bytes claims " + std::to_string(uncompressed_size));
      }
      return page;
    }
    // Not zero-filled first: Decompress() writes exactly uncompressed_size bytes or fails.
    std::shared_ptr<uint8_t[]> buffer(new uint8_t[std::max<int64_t>(uncompressed_size, 1)]);
    if (uncompressed_size > 0 || page_size > 0) {
      WEIR_RETURN_NOT_OK(compress::Decompress(codec_,
                                              std::string_view(reinterpret_cast<const char*>(page), page_size),
                                              uncompressed_size, buffer.get()));
    }
    *holder = std::shared_ptr<const void>(buffer, buffer.get());
    return buffer.get();
  }

  Status ReadDictionaryPage(const PageHeader& header, const std::shared_ptr<const std::string>& chunk,
                            const uint8_t* page, size_t page_size) {
    if (!header.dictionary_page_header) return Status::Corruption("dictionary page without its header");
    const auto& dh = *header.dictionary_page_header;
    if (dh.num_values < 0) return Status::Corruption("dictionary page with a negative value count");
    if (dh.encoding != Encoding::kPlain && dh.encoding != Encoding::kPlainDictionary) {
      return Status::NotImplemented("dictionary page encoding " + std::to_string(static_cast<int>(dh.encoding)));
    }
    std::shared_ptr<const void> holder;
    WEIR_ASSIGN_OR_RETURN(const uint8_t* body, Body(page, page_size, header.uncompressed_page_size, true, &holder));
    dictionary_ = std::make_unique<Column>(leaf_.type);
    dictionary_->AddBufferOwner(holder ? holder : chunk);
    if (dh.num_values > header.uncompressed_page_size * 8 + 8 && leaf_.physical_type != Type::kBoolean) {
      // Every PLAIN value takes at least one byte (four for byte arrays).
      return Status::Corruption("dictionary page claims " + std::to_string(dh.num_values) +
                                " values in " + std::to_string(header.uncompressed_page_size) + " bytes");
    }
    ValueDecoder decoder(leaf_, dictionary_.get());
    return decoder.Decode(Encoding::kPlain, body, header.uncompressed_page_size, dh.num_values, nullptr);
  }

  Status CheckEntries(int64_t n, int64_t entries) {
    if (n < 0 || n > kMaxPageEntries) {
      return Status::Corruption("data page claims " + std::to_string(n) + " values");
    }
    if (entries + n > meta_.num_values) {
      return Status::Corruption("data pages hold more values than the column chunk's " +
                                std::to_string(meta_.num_values));
    }
    return Status::OK();
  }

  // Decodes levels and values of one page; `levels_*` point at the level bytes.
  Status DecodePage(int64_t n, Encoding encoding, const uint8_t* values, size_t values_len,
                    DecodedLeaf* out, int64_t* entries) {
    int64_t non_null = n;
    if (leaf_.max_def > 0) {
      non_null = 0;
      const int16_t* def = out->def.data() + *entries;
      for (int64_t i = 0; i < n; ++i) {
        if (def[i] > leaf_.max_def || def[i] < 0) return Status::Corruption("definition level out of range");
        non_null += def[i] == leaf_.max_def;
      }
    }
    if (leaf_.max_rep > 0) {
      const int16_t* rep = out->rep.data() + *entries;
      for (int64_t i = 0; i < n; ++i) {
        if (rep[i] > leaf_.max_rep || rep[i] < 0) return Status::Corruption("repetition level out of range");
      }
    }
    ValueDecoder decoder(leaf_, &out->values);
    WEIR_RETURN_NOT_OK(decoder.Decode(encoding, values, values_len, non_null, dictionary_.get()));
    *entries += n;
    return Status::OK();
  }

  Status ReadLevels(const uint8_t* data, size_t len, int16_t max_level, int64_t n, bool length_prefixed,
                    std::vector<int16_t>* levels, size_t* consumed) {
    size_t at = levels->size();
    levels->resize(at + n);
    RleBitPackedDecoder decoder;
    int width = BitWidth(static_cast<uint64_t>(max_level));
    if (length_prefixed) {
      WEIR_RETURN_NOT_OK(RleBitPackedDecoder::OpenLengthPrefixed(data, len, width, &decoder, consumed));
    } else {
      decoder = RleBitPackedDecoder(data, len, width);
      *consumed = len;
    }
    return decoder.GetBatch(reinterpret_cast<uint16_t*>(levels->data() + at), n);
  }

  Status ReadDataPageV1(const PageHeader& header, const std::shared_ptr<const std::string>& chunk,
                        const uint8_t* page, size_t page_size, DecodedLeaf* out, int64_t* entries) {
    if (!header.data_page_header) return Status::Corruption("data page without its header");
    const auto& dp = *header.data_page_header;
    const int64_t n = dp.num_values;
    WEIR_RETURN_NOT_OK(CheckEntries(n, *entries));
    std::shared_ptr<const void> holder;
    WEIR_ASSIGN_OR_RETURN(const uint8_t* body, Body(page, page_size, header.uncompressed_page_size, true, &holder));
    if (holder) out->values.AddBufferOwner(holder);
    size_t len = header.uncompressed_page_size;
    size_t pos = 0;
    for (int pass = 0; pass < 2; ++pass) {
      bool rep = pass == 0;
      int16_t max_level = rep ? leaf_.max_rep : leaf_.max_def;
      if (max_level == 0) continue;
      Encoding enc = rep ? dp.repetition_level_encoding : dp.definition_level_encoding;
      if (enc != Encoding::kRle) {
        return Status::NotImplemented("level encoding " + std::to_string(static_cast<int>(enc)) +
                                      " (BIT_PACKED levels) is not supported");
      }
      size_t consumed = 0;
      WEIR_RETURN_NOT_OK(ReadLevels(body + pos, len - pos, max_level, n, true, rep ? &out->rep : &out->def,
                                    &consumed));
      pos += consumed;
    }
    return DecodePage(n, dp.encoding, body + pos, len - pos, out, entries);
  }

  Status ReadDataPageV2(const PageHeader& header, const std::shared_ptr<const std::string>& chunk,
                        const uint8_t* page, size_t page_size, DecodedLeaf* out, int64_t* entries) {
    if (!header.data_page_header_v2) return Status::Corruption("data page v2 without its header");
    const auto& dp = *header.data_page_header_v2;
    const int64_t n = dp.num_values;
    WEIR_RETURN_NOT_OK(CheckEntries(n, *entries));
    if (dp.repetition_levels_byte_length < 0 || dp.definition_levels_byte_length < 0 ||
        static_cast<int64_t>(dp.repetition_levels_byte_length) + dp.definition_levels_byte_length >
            static_cast<int64_t>(page_size) ||
        static_cast<int64_t>(dp.repetition_levels_byte_length) + dp.definition_levels_byte_length >
            header.uncompressed_page_size) {
      return Status::Corruption("data page v2 level lengths exceed the page");
    }
    size_t levels_len = dp.repetition_levels_byte_length + dp.definition_levels_byte_length;
    size_t consumed = 0;
    if (leaf_.max_rep > 0) {
      WEIR_RETURN_NOT_OK(ReadLevels(page, dp.repetition_levels_byte_length, leaf_.max_rep, n, false,
                                    &out->rep, &consumed));
    }
    if (leaf_.max_def > 0) {
      WEIR_RETURN_NOT_OK(ReadLevels(page + dp.repetition_levels_byte_length,
                                    dp.definition_levels_byte_length, leaf_.max_def, n, false, &out->def,
                                    &consumed));
    }
    const uint8_t* values = page + levels_len;
    size_t values_compressed = page_size - levels_len;
    int64_t values_uncompressed = header.uncompressed_page_size - static_cast<int64_t>(levels_len);
    std::shared_ptr<const void> holder;
    const uint8_t* body = values;
    if (values_uncompressed > 0) {
      WEIR_ASSIGN_OR_RETURN(body, Body(values, values_compressed, values_uncompressed, dp.is_compressed, &holder));
    }
    if (holder) out->values.AddBufferOwner(holder);
    return DecodePage(n, dp.encoding, body, static_cast<size_t>(values_uncompressed), out, entries);
  }

  const LeafDescriptor& leaf_;
  const ColumnMetaData& meta_;
  compress::Codec codec_;
  std::unique_ptr<Column> dictionary_;
};

}  // namespace

Result<std::unique_ptr<ParquetReader>> ParquetReader::Open(std::unique_ptr<fs::RandomAccessFile> file) {
  std::unique_ptr<ParquetReader> r(new ParquetReader());
  r->file_ = std::move(file);
  WEIR_RETURN_NOT_OK(r->ReadFooter().WithContext("Parquet file " + r->file_->path()));
  return r;
}

Result<std::unique_ptr<ParquetReader>> ParquetReader::Open(fs::FileSystem* fs, const std::string& path) {
  WEIR_ASSIGN_OR_RETURN(auto file, fs->OpenForRead(path));
  return Open(std::move(file));
}

Status ParquetReader::ReadFooter() {
  WEIR_ASSIGN_OR_RETURN(file_size_, file_->Size());
  if (file_size_ < 12) {
    return Status::Corruption("too small to be Parquet (" + std::to_string(file_size_) + " bytes)");
  }
  uint8_t tail[8];
  WEIR_RETURN_NOT_OK(file_->ReadAt(file_size_ - 8, 8, tail));
  uint8_t head[4];
  WEIR_RETURN_NOT_OK(file_->ReadAt(0, 4, head));
  if (std::memcmp(tail + 4, "PAR1", 4) != 0 || std::memcmp(head, "PAR1", 4) != 0) {
    if (std::memcmp(tail + 4, "PARE", 4) == 0) {
      return Status::NotImplemented("encrypted Parquet footers are not supported");
    }
    return Status::Corruption("missing PAR1 magic bytes");
  }
  uint32_t footer_len;
  std::memcpy(&footer_len, tail, 4);
  if (footer_len > file_size_ - 12 || footer_len > kMaxFooterBytes) {
    return Status::Corruption("footer length " + std::to_string(footer_len) + " exceeds the file");
  }
  std::string footer(footer_len, '\0');
  WEIR_RETURN_NOT_OK(file_->ReadAt(file_size_ - 8 - footer_len, footer_len,
                                   reinterpret_cast<uint8_t*>(footer.data())));
  WEIR_RETURN_NOT_OK(
      Parse(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(footer.data()), footer.size()),
            &metadata_)
          .WithContext("footer"));
  WEIR_ASSIGN_OR_RETURN(file_schema_, SchemaFromParquet(metadata_.schema));
  if (metadata_.num_rows < 0) return Status::Corruption("negative row count");
  int64_t rows = 0;
  for (size_t g = 0; g < metadata_.row_groups.size(); ++g) {
    const RowGroup& rg = metadata_.row_groups[g];
    if (rg.columns.size() != file_schema_.leaves.size()) {
      return Status::Corruption("row group " + std::to_string(g) + " has " +
                                std::to_string(rg.columns.size()) + " column chunks for " +
                                std::to_string(file_schema_.leaves.size()) + " leaf columns");
    }
    if (rg.num_rows < 0) return Status::Corruption("row group with a negative row count");
    rows += rg.num_rows;
    for (const ColumnChunk& cc : rg.columns) {
      if (!cc.meta_data) {
        return Status::NotImplemented("column chunks stored in other files (file_path)");
      }
    }
  }
  // Some writers leave the footer's total at 0; the row groups describe the data (DuckDB and
  // parquet-rs read them the same way).
  metadata_.num_rows = rows;
  return Status::OK();
}

Result<std::vector<int>> ParquetReader::FieldIndexes(const std::vector<std::string>& names) const {
  std::vector<int> out;
  for (const auto& name : names) {
    int i = schema().FieldIndex(name);
    if (i < 0) {
      for (const UnreadableField& field : file_schema_.unreadable) {
        if (strcasecmp(field.name.c_str(), name.c_str()) == 0) {
          return Status::NotImplemented("Parquet file " + path() + ": " + field.message);
        }
      }
      return Status::NotFound("column '" + name + "' is not in " + path() + " (columns: " +
                              schema().ToDdl() + ")");
    }
    out.push_back(i);
  }
  return out;
}

Status ParquetReader::CheckAllReadable() const {
  if (file_schema_.unreadable.empty()) return Status::OK();
  return Status::NotImplemented("Parquet file " + path() + ": " +
                                file_schema_.unreadable[0].message);
}

Result<columnar::Batch> ParquetReader::ReadRowGroup(int index, const std::vector<int>& fields_in) {
  std::vector<int> fields = fields_in;
  if (fields.empty()) {
    WEIR_RETURN_NOT_OK(CheckAllReadable());
    for (int i = 0; i < schema().num_fields(); ++i) fields.push_back(i);
  }
  columnar::Schema projected;
  for (int f : fields) {
    if (f < 0 || f >= schema().num_fields()) return Status::InvalidArgument("no field " + std::to_string(f));
    projected.fields.push_back(schema().fields[f]);
  }
  columnar::Batch batch(projected);
  if (index < 0 || index >= num_row_groups()) {
    return Status::InvalidArgument("no row group " + std::to_string(index) + " in " + path());
  }
  const RowGroup& rg = metadata_.row_groups[index];
  std::vector<DecodedLeaf> leaves(file_schema_.leaves.size());
  for (size_t k = 0; k < fields.size(); ++k) {
    const LevelNode& node = file_schema_.fields[fields[k]];
    for (int l = node.leaf_begin; l < node.leaf_end; ++l) {
      const ColumnMetaData& meta = *rg.columns[l].meta_data;
      const LeafDescriptor& leaf = file_schema_.leaves[l];
      auto context = [&] {
        return "Parquet file " + path() + ", row group " + std::to_string(index) + ", column " +
               [&] {
                 std::string p;
                 for (const auto& part : leaf.path) p += (p.empty() ? "" : ".") + part;
                 return p;
               }();
      };
      if (meta.num_values == 0) {  // an empty chunk: some writers leave its offsets at 0
        leaves[l].values = Column(leaf.type);
        continue;
      }
      if (meta.type != leaf.physical_type) {
        return Status::Corruption(context() + ": chunk type differs from the schema");
      }
      int64_t start = meta.data_page_offset;
      if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 &&
          *meta.dictionary_page_offset < start) {
        start = *meta.dictionary_page_offset;
      }
      int64_t length = meta.total_compressed_size;
      if (start < 4 || length < 0 || start > file_size_ || length > file_size_ - start) {
        return Status::Corruption(context() + ": chunk at offset " + std::to_string(start) + " of " +
                                  std::to_string(length) + " bytes lies outside the file");
      }
      if (meta.num_values < 0) return Status::Corruption(context() + ": negative value count");
      auto chunk = std::make_shared<std::string>(length, '\0');
      WEIR_RETURN_NOT_OK(file_->ReadAt(start, length, reinterpret_cast<uint8_t*>(chunk->data())));
      auto codec = CodecOf(meta.codec);
      if (!codec.ok()) return codec.status().WithContext(context());
      ChunkReader reader(leaf, meta, *codec);
      WEIR_RETURN_NOT_OK(reader.Read(chunk, &leaves[l]).WithContext(context()));
    }
    Status st = AssembleColumn(node, leaves, &batch.columns[k]);
    if (!st.ok()) return st.WithContext("Parquet file " + path() + ", column " + projected.fields[k].name);
    if (batch.columns[k].size() != rg.num_rows) {
      return Status::Corruption("Parquet file " + path() + ", row group " + std::to_string(index) +
                                ": column " + projected.fields[k].name + " has " +
                                std::to_string(batch.columns[k].size()) + " rows, the row group " +
                                std::to_string(rg.num_rows));
    }
  }
  batch.num_rows_without_columns = rg.num_rows;
  return batch;
}

Result<columnar::Batch> ParquetReader::ReadAll(const std::vector<int>& fields) {
  if (fields.empty()) WEIR_RETURN_NOT_OK(CheckAllReadable());
  columnar::Batch all;
  for (int g = 0; g < num_row_groups(); ++g) {
    WEIR_ASSIGN_OR_RETURN(columnar::Batch batch, ReadRowGroup(g, fields));
    if (g == 0) {
      all = std::move(batch);
      continue;
    }
    for (size_t c = 0; c < all.columns.size(); ++c) {
      const Column& src = batch.columns[c];
      for (int64_t r = 0; r < src.size(); ++r) all.columns[c].AppendFrom(src, r);
    }
    all.num_rows_without_columns += batch.num_rows_without_columns;
  }
  if (num_row_groups() == 0) {
    columnar::Schema projected;
    if (fields.empty()) {
      projected = schema();
    } else {
      for (int f : fields) projected.fields.push_back(schema().fields.at(f));
    }
    all = columnar::Batch(projected);
  }
  return all;
}

}  // namespace weir::parquet
