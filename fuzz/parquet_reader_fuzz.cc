// libFuzzer target for ParquetReader: the input bytes are one Parquet file, read from memory.
// Every input must give a batch or a clean Status; a crash, sanitizer report, hang or unbounded
// allocation is a bug. The values read are touched so that ASan checks every string view.
// Seeds (fuzz/corpus/parquet_reader/): weir_*.parquet were written by weir's ParquetWriter (flat
// columns in two row groups with dictionary fallback, snappy; nested list/map/struct, zstd); the
// other files are byte-identical copies from github.com/apache/parquet-testing data/ (Apache-2.0).
// Reproducers of bugs found so far: fuzz/crashes/parquet_reader/ (replayed by run-fuzzers.sh).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "columnar/column.h"
#include "fs/file_system.h"
#include "parquet/reader.h"

namespace weir::fuzz {
namespace {

// A RandomAccessFile over a borrowed buffer that outlives the file.
class MemoryFile final : public fs::RandomAccessFile {
 public:
  MemoryFile(const uint8_t* data, size_t size)
      : RandomAccessFile("fuzz-input.parquet"), data_(data), size_(static_cast<int64_t>(size)) {}

  Result<int64_t> Size() override { return size_; }

  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) override {
    if (offset < 0 || length < 0 || offset > size_ || length > size_ - offset) {
      return Status::Corruption("short read of " + path() + " at offset " + std::to_string(offset) +
                                ", length " + std::to_string(length));
    }
    if (length > 0) std::memcpy(out, data_ + offset, static_cast<size_t>(length));
    return Status::OK();
  }

 private:
  const uint8_t* data_;
  int64_t size_;
};

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
  using weir::fuzz::MemoryFile;
  using weir::fuzz::Touch;
  auto reader = weir::parquet::ParquetReader::Open(std::make_unique<MemoryFile>(data, size));
  if (!reader.ok()) return 0;
  weir::parquet::ParquetReader& r = **reader;
  auto all = r.ReadAll();
  if (all.ok()) g_sink = g_sink + Touch(*all);
  // A projection of the last field only, in the first row group: exercises column skipping.
  const int num_fields = r.schema().num_fields();
  if (num_fields > 1 && r.num_row_groups() > 0) {
    auto last = r.ReadRowGroup(0, {num_fields - 1});
    if (last.ok()) g_sink = g_sink + Touch(*last);
  }
  return 0;
}
