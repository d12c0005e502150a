#include "compress/compress.h"

#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

namespace weir::compress {
namespace {

constexpr int kZstdDefaultLevel = 1;
constexpr int kGzipDefaultLevel = 6;

// Hadoop's Lz4Codec reads blocks through a 256 KiB buffer and compresses at most
// 256 KiB - (256 KiB / 255 + 16) input bytes per block so that the output fits that buffer.
constexpr size_t kHadoopLz4MaxBlockInput = 262144 - (262144 / 255 + 16);
constexpr size_t kHadoopLz4PrefixSize = 8;  // big-endian u32 uncompressed size, u32 compressed size

// zlib counts bytes in 32-bit uInt; feed it at most this much at once.
constexpr size_t kZlibChunk = size_t{1} << 30;

Status Corrupt(Codec codec, std::string detail) {
  return Status::Corruption(std::string(CodecName(codec)) + ": " + std::move(detail));
}

Status SizeMismatch(Codec codec, int64_t actual, int64_t expected) {
  return Corrupt(codec, "data decodes to " + std::to_string(actual) +
                            " bytes but the page header says " + std::to_string(expected));
}

Status BrotliNotImplemented() {
  return Status::NotImplemented(
      "brotli: brotli compression is not supported by weir; rewrite the data with snappy, zstd, "
      "gzip or lz4_raw");
}

uint32_t LoadBigEndian32(const char* p) {
  const auto* b = reinterpret_cast<const uint8_t*>(p);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
}

void StoreBigEndian32(uint32_t v, char* p) {
  p[0] = static_cast<char>(v >> 24);
  p[1] = static_cast<char>(v >> 16);
  p[2] = static_cast<char>(v >> 8);
  p[3] = static_cast<char>(v);
}

// --- zstd: one compression and one decompression context per thread, reused across calls.

struct ZstdContextDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

ZSTD_CCtx* ThreadZstdCompressor() {
  thread_local std::unique_ptr<ZSTD_CCtx, ZstdContextDeleter> context(ZSTD_createCCtx());
  return context.get();
}

ZSTD_DCtx* ThreadZstdDecompressor() {
  thread_local std::unique_ptr<ZSTD_DCtx, ZstdContextDeleter> context(ZSTD_createDCtx());
  return context.get();
}

// Codecs write at most a bound that is larger than the input; resizing `out` to it would zero
// those bytes first on every call (std::string has no uninitialised growth before C++23). Below
// kMaxScratchBytes the codec writes into a per-thread buffer that only ever grows, and just the
// compressed bytes are appended to `out`; larger inputs go straight into `out`.
// `compress(dst, capacity)` returns the bytes written, 0 on failure (nothing is appended then).
constexpr size_t kMaxScratchBytes = size_t{8} << 20;

template <typename CompressFn>
void CompressThroughScratch(size_t bound, std::string* out, CompressFn compress) {
  if (bound > kMaxScratchBytes) {
    const size_t old_size = out->size();
    out->resize(old_size + bound);
    const size_t written = compress(out->data() + old_size, bound);
    out->resize(old_size + written);
    return;
  }
  thread_local std::vector<char> scratch;
  if (scratch.size() < bound) scratch.resize(bound);
  const size_t written = compress(scratch.data(), bound);
  out->append(scratch.data(), written);
}

Status ZstdCompress(int level, std::string_view input, std::string* out) {
  if (level == kDefaultLevel) level = kZstdDefaultLevel;
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
    return Status::InvalidArgument("zstd: compression level " + std::to_string(level) +
                                   " is outside " + std::to_string(ZSTD_minCLevel()) + ".." +
                                   std::to_string(ZSTD_maxCLevel()));
  }
  ZSTD_CCtx* context = ThreadZstdCompressor();
  if (context == nullptr) return Status::Internal("zstd: cannot allocate a compression context");
  size_t written = 0;
  CompressThroughScratch(ZSTD_compressBound(input.size()), out, [&](char* dst, size_t capacity) {
    written = ZSTD_compressCCtx(context, dst, capacity, input.data(), input.size(), level);
    return ZSTD_isError(written) ? size_t{0} : written;
  });
  if (ZSTD_isError(written)) {
    return Status::Internal(std::string("zstd: compression failed: ") + ZSTD_getErrorName(written));
  }
  return Status::OK();
}

Status ZstdDecompress(std::string_view input, int64_t size, uint8_t* out) {
  ZSTD_DCtx* context = ThreadZstdDecompressor();
  if (context == nullptr) return Status::Internal("zstd: cannot allocate a decompression context");
  size_t got =
      ZSTD_decompressDCtx(context, out, static_cast<size_t>(size), input.data(), input.size());
  if (ZSTD_isError(got)) return Corrupt(Codec::kZstd, ZSTD_getErrorName(got));
  if (got != static_cast<size_t>(size)) {
    return SizeMismatch(Codec::kZstd, static_cast<int64_t>(got), size);
  }
  return Status::OK();
}

// --- snappy

Status SnappyCompress(std::string_view input, std::string* out) {
  CompressThroughScratch(snappy::MaxCompressedLength(input.size()), out,
                         [&](char* dst, size_t) {
                           size_t written = 0;
                           snappy::RawCompress(input.data(), input.size(), dst, &written);
                           return written;
                         });
  return Status::OK();
}

Status SnappyDecompress(std::string_view input, int64_t size, uint8_t* out) {
  size_t claimed = 0;
  if (!snappy::GetUncompressedLength(input.data(), input.size(), &claimed)) {
    return Corrupt(Codec::kSnappy, "invalid length header");
  }
  if (claimed != static_cast<size_t>(size)) {
    return SizeMismatch(Codec::kSnappy, static_cast<int64_t>(claimed), size);
  }
  // RawUncompress writes at most the header's length, which we checked against the buffer.
  if (!snappy::RawUncompress(input.data(), input.size(), reinterpret_cast<char*>(out))) {
    return Corrupt(Codec::kSnappy, "malformed compressed data");
  }
  return Status::OK();
}

// --- gzip (zlib with the gzip wrapper)

Status GzipCompress(int level, std::string_view input, std::string* out) {
  if (level == kDefaultLevel) level = kGzipDefaultLevel;
  if (level < 0 || level > 9) {
    return Status::InvalidArgument("gzip: compression level " + std::to_string(level) +
                                   " is outside 0..9");
  }
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("gzip: cannot initialise the compressor");
  }
  size_t old_size = out->size();
  size_t bound = deflateBound(&stream, input.size());
  out->resize(old_size + bound);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.next_out = reinterpret_cast<Bytef*>(out->data() + old_size);
  size_t in_left = input.size();
  size_t out_left = bound;
  int rc = Z_OK;
  while (true) {
    if (stream.avail_in == 0 && in_left > 0) {
      stream.avail_in = static_cast<uInt>(std::min(in_left, kZlibChunk));
      in_left -= stream.avail_in;
    }
    if (stream.avail_out == 0 && out_left > 0) {
      stream.avail_out = static_cast<uInt>(std::min(out_left, kZlibChunk));
      out_left -= stream.avail_out;
    }
    rc = deflate(&stream, in_left == 0 ? Z_FINISH : Z_NO_FLUSH);
    if (rc == Z_STREAM_END) break;
    if ((rc != Z_OK && rc != Z_BUF_ERROR) || (stream.avail_out == 0 && out_left == 0)) break;
  }
  size_t written = bound - out_left - stream.avail_out;
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) {
    out->resize(old_size);
    return Status::Internal("gzip: compression failed (zlib code " + std::to_string(rc) + ")");
  }
  out->resize(old_size + written);
  return Status::OK();
}

// An inflate stream per thread, reset per call; windowBits 15 + 32 accepts gzip (and zlib) headers.
class ThreadInflater {
 public:
  ThreadInflater() { ok_ = inflateInit2(&stream_, 15 + 32) == Z_OK; }
  ~ThreadInflater() {
    if (ok_) inflateEnd(&stream_);
  }
  z_stream* Get() {
    if (!ok_ || inflateReset(&stream_) != Z_OK) return nullptr;
    return &stream_;
  }

 private:
  z_stream stream_{};
  bool ok_ = false;
};

Status GzipDecompress(std::string_view input, int64_t size, uint8_t* out) {
  thread_local ThreadInflater inflater;
  z_stream* stream = inflater.Get();
  if (stream == nullptr) return Status::Internal("gzip: cannot initialise the decompressor");
  stream->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream->avail_in = 0;
  stream->next_out = out;
  stream->avail_out = 0;
  size_t in_left = input.size();
  size_t out_left = static_cast<size_t>(size);
  while (true) {
    if (stream->avail_in == 0 && in_left > 0) {
      stream->avail_in = static_cast<uInt>(std::min(in_left, kZlibChunk));
      in_left -= stream->avail_in;
    }
    if (stream->avail_out == 0 && out_left > 0) {
      stream->avail_out = static_cast<uInt>(std::min(out_left, kZlibChunk));
      out_left -= stream->avail_out;
    }
    int rc = inflate(stream, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      if (stream->avail_in == 0 && in_left == 0) break;
      // Another gzip member follows (concatenated files, as gzip(1) writes them).
      if (inflateReset(stream) != Z_OK) return Corrupt(Codec::kGzip, "cannot reset the stream");
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR) {
      if (stream->avail_out == 0 && out_left == 0) {
        return Corrupt(Codec::kGzip, "data decodes to more than the page header's " +
                                         std::to_string(size) + " bytes");
      }
      return Corrupt(Codec::kGzip, "truncated input");
    }
    return Corrupt(Codec::kGzip, stream->msg != nullptr
                                     ? stream->msg
                                     : "malformed data (zlib code " + std::to_string(rc) + ")");
  }
  int64_t produced = size - static_cast<int64_t>(out_left + stream->avail_out);
  if (produced != size) return SizeMismatch(Codec::kGzip, produced, size);
  return Status::OK();
}

// --- LZ4 (raw blocks and Hadoop framing)

Status Lz4CheckInputSize(Codec codec, size_t size) {
  if (size > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return Status::InvalidArgument(std::string(CodecName(codec)) + ": input of " +
                                   std::to_string(size) + " bytes exceeds LZ4's block limit of " +
                                   std::to_string(LZ4_MAX_INPUT_SIZE));
  }
  return Status::OK();
}

// Compresses one raw block to `dst`; returns its size (> 0).
size_t Lz4CompressBlock(std::string_view input, char* dst, size_t capacity) {
  int written = LZ4_compress_default(input.data(), dst, static_cast<int>(input.size()),
                                     static_cast<int>(std::min<size_t>(capacity, INT_MAX)));
  return written > 0 ? static_cast<size_t>(written) : 0;
}

Status Lz4RawCompress(std::string_view input, std::string* out) {
  WEIR_RETURN_NOT_OK(Lz4CheckInputSize(Codec::kLz4Raw, input.size()));
  size_t old_size = out->size();
  size_t bound = static_cast<size_t>(LZ4_compressBound(static_cast<int>(input.size())));
  out->resize(old_size + bound);
  size_t written = Lz4CompressBlock(input, out->data() + old_size, bound);
  if (written == 0) {
    out->resize(old_size);
    return Status::Internal("lz4_raw: compression failed");
  }
  out->resize(old_size + written);
  return Status::OK();
}

Status Lz4HadoopCompress(std::string_view input, std::string* out) {
  size_t old_size = out->size();
  out->resize(old_size + static_cast<size_t>(MaxCompressedSize(
                             Codec::kLz4Hadoop, static_cast<int64_t>(input.size()))));
  size_t pos = old_size;
  size_t consumed = 0;
  do {  // one block even for empty input
    std::string_view block = input.substr(consumed, kHadoopLz4MaxBlockInput);
    char* prefix = out->data() + pos;
    pos += kHadoopLz4PrefixSize;
    size_t written = Lz4CompressBlock(block, out->data() + pos, out->size() - pos);
    if (written == 0) {
      out->resize(old_size);
      return Status::Internal("lz4: compression failed");
    }
    StoreBigEndian32(static_cast<uint32_t>(block.size()), prefix);
    StoreBigEndian32(static_cast<uint32_t>(written), prefix + 4);
    pos += written;
    consumed += block.size();
  } while (consumed < input.size());
  out->resize(pos);
  return Status::OK();
}

Status Lz4RawDecompress(Codec codec, std::string_view input, int64_t size, uint8_t* out) {
  if (input.size() > static_cast<size_t>(INT_MAX)) return Corrupt(codec, "block over 2 GiB");
  int got = LZ4_decompress_safe(input.data(), reinterpret_cast<char*>(out),
                                static_cast<int>(input.size()), static_cast<int>(size));
  if (got < 0)
    return Corrupt(
        codec, "malformed block, or it decodes to more than " + std::to_string(size) + " bytes");
  if (got != size) return SizeMismatch(codec, got, size);
  return Status::OK();
}

// Hadoop's BlockCompressorStream format: blocks of [u32 uncompressed length] followed by one or
// more [u32 compressed length][raw LZ4 chunk] that together decode to that length (Arrow and
// parquet-mr write a single chunk per block). Returns false unless the input is exactly such a
// sequence decoding to exactly `size` bytes.
bool TryLz4HadoopDecompress(std::string_view input, int64_t size, uint8_t* out) {
  size_t pos = 0;
  size_t produced = 0;
  const size_t capacity = static_cast<size_t>(size);
  while (pos < input.size()) {
    if (input.size() - pos < 4) return false;
    size_t block_size = LoadBigEndian32(input.data() + pos);
    pos += 4;
    if (block_size > capacity - produced) return false;
    size_t block_done = 0;
    do {
      if (input.size() - pos < 4) return false;
      size_t chunk_size = LoadBigEndian32(input.data() + pos);
      pos += 4;
      if (chunk_size > input.size() - pos || chunk_size > static_cast<size_t>(INT_MAX))
        return false;
      int got = LZ4_decompress_safe(
          input.data() + pos, reinterpret_cast<char*>(out + produced + block_done),
          static_cast<int>(chunk_size), static_cast<int>(block_size - block_done));
      if (got < 0 || (got == 0 && block_size > 0)) return false;
      block_done += static_cast<size_t>(got);
      pos += chunk_size;
    } while (block_done < block_size);
    produced += block_size;
  }
  return produced == capacity;
}

Status Lz4HadoopDecompress(std::string_view input, int64_t size, uint8_t* out) {
  if (TryLz4HadoopDecompress(input, size, out)) return Status::OK();
  // Some writers (old parquet-cpp) stored a bare LZ4 block under the LZ4 codec.
  Status raw = Lz4RawDecompress(Codec::kLz4Hadoop, input, size, out);
  if (raw.ok()) return raw;
  return Corrupt(Codec::kLz4Hadoop, "data is neither Hadoop-framed LZ4 nor a raw LZ4 block of " +
                                        std::to_string(size) + " bytes (" + raw.message() + ")");
}

char ToLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ToLower(x) == y; });
}

}  // namespace

Result<Codec> CodecFromName(std::string_view name) {
  if (EqualsIgnoreCase(name, "uncompressed") || EqualsIgnoreCase(name, "none")) {
    return Codec::kUncompressed;
  }
  if (EqualsIgnoreCase(name, "snappy")) return Codec::kSnappy;
  if (EqualsIgnoreCase(name, "gzip")) return Codec::kGzip;
  if (EqualsIgnoreCase(name, "lz4")) return Codec::kLz4Hadoop;
  if (EqualsIgnoreCase(name, "lz4_raw")) return Codec::kLz4Raw;
  if (EqualsIgnoreCase(name, "zstd")) return Codec::kZstd;
  if (EqualsIgnoreCase(name, "brotli")) return Codec::kBrotli;
  if (EqualsIgnoreCase(name, "lzo")) {
    return Status::NotImplemented(
        "compression codec 'lzo' is not supported by weir; use snappy or zstd");
  }
  return Status::InvalidArgument("unknown compression codec '" + std::string(name) +
                                 "'; expected one of: uncompressed, snappy, gzip, lz4, lz4_raw, "
                                 "zstd, brotli");
}

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kUncompressed:
      return "uncompressed";
    case Codec::kSnappy:
      return "snappy";
    case Codec::kGzip:
      return "gzip";
    case Codec::kLz4Hadoop:
      return "lz4";
    case Codec::kZstd:
      return "zstd";
    case Codec::kLz4Raw:
      return "lz4_raw";
    case Codec::kBrotli:
      return "brotli";
  }
  return "unknown";
}

int64_t MaxCompressedSize(Codec codec, int64_t input_size) {
  if (input_size < 0) return 0;
  const auto n = static_cast<size_t>(input_size);
  switch (codec) {
    case Codec::kUncompressed:
    case Codec::kBrotli:
      return input_size;
    case Codec::kSnappy:
      return static_cast<int64_t>(snappy::MaxCompressedLength(n));
    case Codec::kGzip:
      // zlib's compressBound() covers the deflate data and a 6-byte zlib wrapper; gzip's wrapper
      // is 18 bytes.
      return static_cast<int64_t>(compressBound(n)) + 18;
    case Codec::kZstd:
      return static_cast<int64_t>(ZSTD_compressBound(n));
    case Codec::kLz4Raw:
      return static_cast<int64_t>(n + n / 255 + 16);
    case Codec::kLz4Hadoop: {
      size_t blocks =
          std::max<size_t>(1, (n + kHadoopLz4MaxBlockInput - 1) / kHadoopLz4MaxBlockInput);
      return static_cast<int64_t>(n + n / 255 + blocks * (16 + 1 + kHadoopLz4PrefixSize));
    }
  }
  return input_size;
}

Status Compress(Codec codec, int level, std::string_view input, std::string* out) {
  switch (codec) {
    case Codec::kUncompressed:
      out->append(input);
      return Status::OK();
    case Codec::kSnappy:
      return SnappyCompress(input, out);
    case Codec::kGzip:
      return GzipCompress(level, input, out);
    case Codec::kLz4Hadoop:
      return Lz4HadoopCompress(input, out);
    case Codec::kZstd:
      return ZstdCompress(level, input, out);
    case Codec::kLz4Raw:
      return Lz4RawCompress(input, out);
    case Codec::kBrotli:
      return BrotliNotImplemented();
  }
  return Status::InvalidArgument("compress: unknown codec " +
                                 std::to_string(static_cast<int>(codec)));
}

Status Decompress(Codec codec, std::string_view input, int64_t uncompressed_size, uint8_t* out) {
  if (codec == Codec::kBrotli) return BrotliNotImplemented();
  if (uncompressed_size < 0) {
    return Status::InvalidArgument(std::string(CodecName(codec)) + ": negative uncompressed size " +
                                   std::to_string(uncompressed_size));
  }
  // Nothing to produce: never hand the (possibly empty, possibly invalid) input to a codec.
  if (uncompressed_size == 0) return Status::OK();
  if (input.empty()) {
    return Corrupt(codec,
                   "empty input for a page of " + std::to_string(uncompressed_size) + " bytes");
  }
  switch (codec) {
    case Codec::kUncompressed:
      if (static_cast<int64_t>(input.size()) != uncompressed_size) {
        return SizeMismatch(codec, static_cast<int64_t>(input.size()), uncompressed_size);
      }
      std::memcpy(out, input.data(), input.size());
      return Status::OK();
    case Codec::kSnappy:
      return SnappyDecompress(input, uncompressed_size, out);
    case Codec::kGzip:
      return GzipDecompress(input, uncompressed_size, out);
    case Codec::kZstd:
      return ZstdDecompress(input, uncompressed_size, out);
    case Codec::kLz4Raw:
    case Codec::kLz4Hadoop:
      if (uncompressed_size > INT_MAX) {
        return Status::InvalidArgument(std::string(CodecName(codec)) +
                                       ": pages over 2 GiB are not supported (page of " +
                                       std::to_string(uncompressed_size) + " bytes)");
      }
      return codec == Codec::kLz4Raw ? Lz4RawDecompress(codec, input, uncompressed_size, out)
                                     : Lz4HadoopDecompress(input, uncompressed_size, out);
    case Codec::kBrotli:
      break;
  }
  return Status::InvalidArgument("decompress: unknown codec " +
                                 std::to_string(static_cast<int>(codec)));
}

}  // namespace weir::compress
