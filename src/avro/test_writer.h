// Test helpers: Avro binary encoding by hand and container files around it, with every codec.
// For the avro module's tests (and fuzz seeds); weir itself does not write Avro.
#pragma once

#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compress/compress.h"

namespace weir::avro::testing {

class Encoder {
 public:
  Encoder& Long(int64_t v) {
    uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    while (z >= 0x80) {
      out_.push_back(static_cast<char>((z & 0x7f) | 0x80));
      z >>= 7;
    }
    out_.push_back(static_cast<char>(z));
    return *this;
  }
  Encoder& Int(int32_t v) { return Long(v); }
  Encoder& Bool(bool v) {
    out_.push_back(v ? 1 : 0);
    return *this;
  }
  Encoder& Float(float v) {
    char b[4];
    std::memcpy(b, &v, 4);
    out_.append(b, 4);
    return *this;
  }
  Encoder& Double(double v) {
    char b[8];
    std::memcpy(b, &v, 8);
    out_.append(b, 8);
    return *this;
  }
  Encoder& Bytes(std::string_view s) {
    Long(static_cast<int64_t>(s.size()));
    out_.append(s);
    return *this;
  }
  Encoder& String(std::string_view s) { return Bytes(s); }
  Encoder& Raw(std::string_view s) {
    out_.append(s);
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

// A zstd frame written by streaming, without its content size (as Java's ZstdOutputStream,
// which Apache Avro's Java codec uses, writes it), in two flushed chunks.
inline std::string StreamedZstd(std::string_view in) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
  std::string out(ZSTD_compressBound(in.size()) + 64, '\0');
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  const size_t half = in.size() / 2;
  ZSTD_inBuffer first{in.data(), half, 0};
  ZSTD_compressStream2(c, &o, &first, ZSTD_e_flush);
  ZSTD_inBuffer rest{in.data() + half, in.size() - half, 0};
  while (ZSTD_compressStream2(c, &o, &rest, ZSTD_e_end) != 0) {
  }
  ZSTD_freeCCtx(c);
  out.resize(o.pos);
  return out;
}

inline std::string RawDeflate(std::string_view in) {
  z_stream s{};
  deflateInit2(&s, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&s, static_cast<uLong>(in.size())), '\0');
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  s.avail_in = static_cast<uInt>(in.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  deflate(&s, Z_FINISH);
  out.resize(s.total_out);
  deflateEnd(&s);
  return out;
}

// One block's data compressed as `codec` ("null", "deflate", "snappy", "zstandard") writes it.
inline std::string CompressBlock(std::string_view codec, std::string_view data) {
  if (codec == "deflate") return RawDeflate(data);
  if (codec == "snappy") {
    std::string out;
    snappy::Compress(data.data(), data.size(), &out);
    const uint32_t crc = static_cast<uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    for (int shift = 24; shift >= 0; shift -= 8)
      out.push_back(static_cast<char>((crc >> shift) & 0xff));
    return out;
  }
  if (codec == "zstandard") {
    std::string out;
    (void)compress::Compress(compress::Codec::kZstd, compress::kDefaultLevel, data, &out);
    return out;
  }
  return std::string(data);
}

struct Block {
  int64_t count;
  std::string data;  // uncompressed
};

inline const std::string kSync = "0123456789ABCDEF";

inline std::string ContainerFile(std::string_view schema, std::string_view codec,
                                 const std::vector<Block>& blocks,
                                 std::vector<std::pair<std::string, std::string>> extra_meta = {}) {
  Encoder e;
  e.Raw(std::string_view("Obj\x01", 4));
  std::vector<std::pair<std::string, std::string>> meta = {{"avro.schema", std::string(schema)}};
  if (!codec.empty()) meta.emplace_back("avro.codec", std::string(codec));
  for (auto& kv : extra_meta) meta.push_back(kv);
  e.Long(static_cast<int64_t>(meta.size()));
  for (auto& [k, v] : meta) e.String(k).Bytes(v);
  e.Long(0);
  e.Raw(kSync);
  for (const Block& b : blocks) {
    std::string stored = CompressBlock(codec, b.data);
    e.Long(b.count).Long(static_cast<int64_t>(stored.size())).Raw(stored).Raw(kSync);
  }
  return e.str();
}

}  // namespace weir::avro::testing
