#include "avro/reader.h"

#include <algorithm>
#include <cstring>

namespace weir::avro {

namespace {

constexpr char kMagic[4] = {'O', 'b', 'j', '\x01'};
constexpr int64_t kSyncSize = 16;
constexpr int64_t kFirstHeaderRead = 64 * 1024;
constexpr int64_t kMaxHeaderBytes = int64_t{64} << 20;  // magic, metadata (schema) and sync

// Parses the header in `buf`: magic, metadata, sync. `*truncated` when more bytes might help.
Status ParseHeader(std::string_view buf, std::map<std::string, std::string>* metadata,
                   std::string* sync, int64_t* header_size, bool* truncated) {
  *truncated = false;
  if (buf.size() < 4 || std::memcmp(buf.data(), kMagic, 4) != 0) {
    *truncated = buf.size() < 4;
    return Status::Corruption(
        "not an Avro object container file (it does not start with Obj\\x01)");
  }
  Cursor in(buf.substr(4));
  metadata->clear();
  for (;;) {
    int64_t count;
    Status st = in.ReadLong(&count);
    if (st.ok() && count < 0) {
      if (count == INT64_MIN) return Status::Corruption("file metadata: invalid block count");
      count = -count;
      int64_t bytes;
      st = in.ReadLong(&bytes);
    }
    if (!st.ok()) {
      *truncated = in.remaining() == 0;
      return st.WithContext("file metadata");
    }
    if (count == 0) break;
    if (count > in.remaining() / 2) {
      *truncated = true;
      return Status::Corruption("file metadata: " + std::to_string(count) + " entries but only " +
                                std::to_string(in.remaining()) + " bytes left");
    }
    for (int64_t i = 0; i < count; ++i) {
      std::string_view key, value;
      st = in.ReadBytes(&key);
      if (st.ok()) st = in.ReadBytes(&value);
      if (!st.ok()) {
        *truncated = true;  // a length past the end of what was read so far
        return st.WithContext("file metadata");
      }
      (*metadata)[std::string(key)] = std::string(value);
    }
  }
  std::string_view s;
  if (!in.ReadFixed(kSyncSize, &s).ok()) {
    *truncated = true;
    return Status::Corruption("truncated before the sync marker");
  }
  *sync = std::string(s);
  *header_size = static_cast<int64_t>(buf.size()) - in.remaining();
  return Status::OK();
}

class BufferFile final : public fs::RandomAccessFile {
 public:
  BufferFile(std::string name, std::string_view data)
      : RandomAccessFile(std::move(name)), data_(data) {}
  Result<int64_t> Size() override { return static_cast<int64_t>(data_.size()); }
  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) override {
    const auto size = static_cast<int64_t>(data_.size());
    if (offset < 0 || length < 0 || offset > size || length > size - offset) {
      return Status::Corruption("short read of " + path() + " at offset " + std::to_string(offset) +
                                ", length " + std::to_string(length));
    }
    if (length > 0) std::memcpy(out, data_.data() + offset, static_cast<size_t>(length));
    return Status::OK();
  }

 private:
  std::string_view data_;
};

}  // namespace

Result<std::unique_ptr<AvroReader>> AvroReader::OpenBuffer(std::string name, std::string_view data,
                                                           ReaderOptions options) {
  return Open(std::make_unique<BufferFile>(std::move(name), data), options);
}

Result<std::unique_ptr<AvroReader>> AvroReader::Open(std::unique_ptr<fs::RandomAccessFile> file,
                                                     ReaderOptions options) {
  std::unique_ptr<AvroReader> r(new AvroReader());
  r->file_ = std::move(file);
  r->options_ = options;
  WEIR_RETURN_NOT_OK(r->ReadHeader());
  return r;
}

Result<std::unique_ptr<AvroReader>> AvroReader::Open(fs::FileSystem* fs, const std::string& path,
                                                     ReaderOptions options) {
  WEIR_ASSIGN_OR_RETURN(auto file, fs->OpenForRead(path));
  return Open(std::move(file), options);
}

Status AvroReader::Fail(const std::string& what) const {
  return Status::Corruption("avro: " + path() + ": " + what);
}

Status AvroReader::ReadHeader() {
  WEIR_ASSIGN_OR_RETURN(file_size_, file_->Size());
  const std::string context = "avro: " + path();
  std::string buf;
  int64_t want = std::min(file_size_, kFirstHeaderRead);
  for (;;) {
    buf.resize(static_cast<size_t>(want));
    WEIR_RETURN_NOT_OK(file_->ReadAt(0, want, reinterpret_cast<uint8_t*>(buf.data())));
    bool truncated = false;
    Status st = ParseHeader(buf, &metadata_, &sync_, &offset_, &truncated);
    if (st.ok()) break;
    if (!truncated || want == file_size_) return st.WithContext(context);
    if (want >= kMaxHeaderBytes) {
      return Fail("the header (file metadata) is larger than " + std::to_string(kMaxHeaderBytes) +
                  " bytes, or corrupt: " + st.message());
    }
    want = std::min({file_size_, want * 4, kMaxHeaderBytes});
  }
  auto schema_it = metadata_.find("avro.schema");
  if (schema_it == metadata_.end()) return Fail("no avro.schema in the file metadata");
  if (auto c = metadata_.find("avro.codec"); c != metadata_.end()) codec_name_ = c->second;
  auto codec = BlockCodecFromName(codec_name_);
  if (!codec.ok()) return codec.status().WithContext(context);
  codec_ = *codec;
  auto parsed = ParseSchema(schema_it->second);
  if (!parsed.ok()) return parsed.status().WithContext(context);
  avro_schema_ = std::move(*parsed);
  auto spark = ToSparkSchema(avro_schema_);
  if (!spark.ok()) return spark.status().WithContext(context);
  schema_ = std::move(*spark);
  return Status::OK();
}

Status AvroReader::ReadBlock(columnar::Batch* batch, int64_t* decoded_bytes, bool* done) {
  *done = false;
  if (offset_ >= file_size_) {
    *done = true;
    return Status::OK();
  }
  const std::string where =
      "block " + std::to_string(blocks_read_) + " at offset " + std::to_string(offset_);
  uint8_t head[20];
  const int64_t head_size = std::min<int64_t>(sizeof(head), file_size_ - offset_);
  WEIR_RETURN_NOT_OK(file_->ReadAt(offset_, head_size, head));
  Cursor in(std::string_view(reinterpret_cast<const char*>(head), static_cast<size_t>(head_size)));
  int64_t count = 0, size = 0;
  Status st = in.ReadLong(&count);
  if (st.ok()) st = in.ReadLong(&size);
  if (!st.ok()) return Fail(where + ": " + st.message() + " in the block header (count, size)");
  if (count < 0) return Fail(where + ": negative object count " + std::to_string(count));
  const int64_t data_offset = offset_ + (head_size - in.remaining());
  const int64_t left = file_size_ - data_offset;
  if (size < 0 || size > left - kSyncSize) {
    return Fail(where + ": " + std::to_string(size) + " bytes of data claimed, but the file has " +
                std::to_string(std::max<int64_t>(0, left - kSyncSize)) +
                " left before the sync marker" + (left < kSyncSize ? " (truncated)" : ""));
  }
  if (size > options_.max_block_bytes) {
    return Fail(where + ": block of " + std::to_string(size) + " bytes (more than " +
                std::to_string(options_.max_block_bytes) + ")");
  }
  block_.resize(static_cast<size_t>(size + kSyncSize));
  WEIR_RETURN_NOT_OK(
      file_->ReadAt(data_offset, size + kSyncSize, reinterpret_cast<uint8_t*>(block_.data())));
  if (std::memcmp(block_.data() + size, sync_.data(), kSyncSize) != 0) {
    return Fail(where + ": the sync marker after the block does not match the header's");
  }
  auto data = DecompressBlock(codec_, std::string_view(block_).substr(0, static_cast<size_t>(size)),
                              options_.max_block_bytes, &scratch_);
  if (!data.ok()) return Fail(where + ": " + data.status().message());
  st = DecodeRecords(avro_schema_.root(), *data, count, batch);
  if (!st.ok()) return Fail(where + ": " + st.message());
  *decoded_bytes += static_cast<int64_t>(data->size());
  offset_ = data_offset + size + kSyncSize;
  ++blocks_read_;
  rows_read_ += count;
  return Status::OK();
}

Result<bool> AvroReader::Next(columnar::Batch* batch) {
  *batch = columnar::Batch(schema_);
  int64_t bytes = 0;
  bool done = false;
  while (!done && batch->num_rows() < options_.batch_rows && bytes < options_.batch_bytes) {
    WEIR_RETURN_NOT_OK(ReadBlock(batch, &bytes, &done));
  }
  return batch->num_rows() > 0 || !done;
}

Result<columnar::Batch> AvroReader::ReadAll() {
  columnar::Batch all(schema_);
  int64_t bytes = 0;
  bool done = false;
  while (!done) WEIR_RETURN_NOT_OK(ReadBlock(&all, &bytes, &done));
  return all;
}

}  // namespace weir::avro
