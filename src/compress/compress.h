// Block compression codecs for Parquet pages: whole buffers in, whole buffers out.
// Decompress() fills exactly the caller's uncompressed size or returns Corruption naming the codec
// ("zstd: ..."); the caller adds the file and page. It never writes past, nor allocates from, sizes
// claimed by the input. Thread-safe: codec contexts are per thread and reused (thread_local).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/status.h"

namespace weir::compress {

enum class Codec {
  kUncompressed,
  kSnappy,
  kGzip,       // RFC 1952 members; decompression also accepts several concatenated members
  kLz4Hadoop,  // Parquet "LZ4" (deprecated): Hadoop block framing; a raw LZ4 block is also accepted
  kZstd,
  kLz4Raw,  // Parquet "LZ4_RAW": one raw LZ4 block
  kBrotli,  // recognised by name only: Compress/Decompress return NotImplemented
};

// Level passed to Compress() to get the codec's default: zstd 1 (weir favours ingest speed over
// the last few percent of size), gzip 6 (zlib's default). Snappy and LZ4 have no levels.
inline constexpr int kDefaultLevel = -1;

// Case-insensitive: "none"/"uncompressed", "snappy", "gzip", "lz4", "lz4_raw", "zstd", "brotli".
// "lzo" is NotImplemented; anything else is InvalidArgument.
Result<Codec> CodecFromName(std::string_view name);
// The lowercase name CodecFromName() accepts: "uncompressed", "snappy", ..., "lz4" for kLz4Hadoop.
std::string_view CodecName(Codec codec);

// An upper bound of the compressed size of `input_size` bytes (to reserve an output buffer once).
int64_t MaxCompressedSize(Codec codec, int64_t input_size);

// Compresses `input` and APPENDS the result to `*out` (no reallocation if out's capacity suffices).
// `level`: kDefaultLevel, or zstd's ZSTD_minCLevel()..ZSTD_maxCLevel(), or gzip 0..9; other codecs
// ignore it. Empty input yields the codec's encoding of nothing (e.g. one 0x00 byte for snappy),
// which every Parquet reader accepts, rather than an empty buffer, which some reject.
Status Compress(Codec codec, int level, std::string_view input, std::string* out);

// Decompresses `input` into exactly `uncompressed_size` bytes at `out`. Corruption if the input is
// malformed or decodes to any other size. With uncompressed_size == 0 the codec is not called and
// any input (including an empty one) is accepted. REQUIRES: `out` holds uncompressed_size bytes.
Status Decompress(Codec codec, std::string_view input, int64_t uncompressed_size, uint8_t* out);

}  // namespace weir::compress
