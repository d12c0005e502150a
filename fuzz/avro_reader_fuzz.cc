// libFuzzer target for AvroReader: the input bytes are one Avro object container file, read from
// memory in small batches, and, when its schema is Event Hubs Capture's, mapped to Kafka rows too.
// Every input must give batches or a clean Status; a crash, sanitizer report, hang or unbounded
// allocation is a bug. The values read are touched so that ASan checks every string view.
// Seeds (fuzz/corpus/avro_reader/): fastavro_*.avro were written by fastavro 1.13.1 (the
// writer of tests/avro_test.sh): every type and logical type with each codec (null, deflate,
// snappy, zstandard), a Capture-shaped file and a small nested one.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "avro/capture.h"
#include "avro/reader.h"
#include "columnar/column.h"

namespace weir::fuzz {
namespace {

// Reads every value of `column` (and its children) so that ASan sees any dangling view.
uint64_t Touch(const columnar::Column& column) {
  uint64_t sum = static_cast<uint64_t>(column.null_count());
  const int64_t n = column.size();
  if (column.type()->is_binary_like()) {
    for (int64_t i = 0; i < n; ++i) {
      std::string_view s = column.StringAt(i);
      sum += s.size();
      if (!s.empty()) sum += static_cast<uint8_t>(s.front()) + static_cast<uint8_t>(s.back());
    }
  } else if (int width = column.type()->byte_width(); width > 0) {
    const uint8_t* bytes = column.values<uint8_t>();
    for (int64_t i = 0; i < n * width; ++i) sum += bytes[i];
  }
  if (column.type_id() == columnar::TypeId::kList || column.type_id() == columnar::TypeId::kMap) {
    if (n > 0) sum += static_cast<uint64_t>(column.offsets()[n]);
  }
  for (int i = 0; i < column.num_children(); ++i) sum += Touch(column.child(i));
  return sum;
}

uint64_t Touch(const columnar::Batch& batch) {
  uint64_t sum = static_cast<uint64_t>(batch.num_rows());
  for (const columnar::Column& column : batch.columns) sum += Touch(column);
  return sum;
}

volatile uint64_t g_sink = 0;

}  // namespace
}  // namespace weir::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using weir::fuzz::g_sink;
  using weir::fuzz::Touch;
  weir::avro::ReaderOptions options;
  options.batch_rows = 64;
  options.max_block_bytes = 16 << 20;  // decompression bombs stop well inside libFuzzer's limits
  auto reader = weir::avro::AvroReader::OpenBuffer(
      "fuzz-input.avro", std::string_view(reinterpret_cast<const char*>(data), size), options);
  if (!reader.ok()) return 0;
  const weir::avro::CapturePath from{"ns", "hub", 0};
  weir::columnar::Batch batch;
  for (int i = 0; i < 10000; ++i) {
    auto more = (*reader)->Next(&batch);
    if (!more.ok() || !*more) break;
    g_sink = g_sink + Touch(batch);
    weir::columnar::Batch rows(weir::avro::CaptureKafkaSchema());
    if (weir::avro::AppendCaptureEvents(batch, from, &rows).ok()) g_sink = g_sink + Touch(rows);
  }
  return 0;
}
