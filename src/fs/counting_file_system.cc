#include "fs/counting_file_system.h"

namespace weir::fs {

namespace {

// Every field of Counts, for the arithmetic and printing below.
#define WEIR_COUNTING_FS_FIELDS(X)                                                             \
  X(list) X(list_from) X(entries_listed) X(exists) X(get_file_info) X(open_for_read)           \
  X(open_for_read_not_found) X(read_at) X(bytes_read) X(file_size) X(open_for_write) X(append) \
  X(bytes_written) X(sync) X(put_if_absent) X(write_atomic) X(rename) X(delete_file)           \
  X(create_dirs) X(sync_dir)

}  // namespace

int64_t CountingFileSystem::Counts::calls() const {
  return list + list_from + exists + get_file_info + open_for_read + open_for_write +
         put_if_absent + write_atomic + rename + delete_file + create_dirs + sync_dir;
}

CountingFileSystem::Counts CountingFileSystem::Counts::operator-(const Counts& earlier) const {
  Counts d;
#define WEIR_SUB(f) d.f = f - earlier.f;
  WEIR_COUNTING_FS_FIELDS(WEIR_SUB)
#undef WEIR_SUB
  return d;
}

std::string CountingFileSystem::Counts::ToString() const {
  std::string out;
#define WEIR_PRINT(f)                                                   \
  if (f != 0) {                                                         \
    if (!out.empty()) out += ' ';                                       \
    out += #f "=" + std::to_string(f);                                  \
  }
  WEIR_COUNTING_FS_FIELDS(WEIR_PRINT)
#undef WEIR_PRINT
  return out.empty() ? "no calls" : out;
}

CountingFileSystem::Counts CountingFileSystem::counts() const {
  Counts out;
#define WEIR_LOAD(f) out.f = c_.f.load(std::memory_order_relaxed);
  WEIR_COUNTING_FS_FIELDS(WEIR_LOAD)
#undef WEIR_LOAD
  return out;
}

void CountingFileSystem::Reset() {
#define WEIR_ZERO(f) c_.f.store(0, std::memory_order_relaxed);
  WEIR_COUNTING_FS_FIELDS(WEIR_ZERO)
#undef WEIR_ZERO
}

#undef WEIR_COUNTING_FS_FIELDS

class CountingFileSystem::CountingReadFile final : public RandomAccessFile {
 public:
  CountingReadFile(std::unique_ptr<RandomAccessFile> base, Counters* c)
      : RandomAccessFile(base->path()), base_(std::move(base)), c_(c) {}

  Result<int64_t> Size() override {
    Add(c_->file_size);
    return base_->Size();
  }
  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) override {
    Add(c_->read_at);
    Add(c_->bytes_read, length);
    return base_->ReadAt(offset, length, out);
  }

 private:
  std::unique_ptr<RandomAccessFile> base_;
  Counters* c_;
};

class CountingFileSystem::CountingWriteFile final : public WritableFile {
 public:
  CountingWriteFile(std::unique_ptr<WritableFile> base, Counters* c)
      : WritableFile(base->path()), base_(std::move(base)), c_(c) {}

  Status Append(std::string_view data) override {
    Add(c_->append);
    Add(c_->bytes_written, static_cast<int64_t>(data.size()));
    return base_->Append(data);
  }
  Status Sync() override {
    Add(c_->sync);
    return base_->Sync();
  }
  Status Close() override { return base_->Close(); }
  int64_t Size() const override { return base_->Size(); }

 private:
  std::unique_ptr<WritableFile> base_;
  Counters* c_;
};

Result<std::unique_ptr<RandomAccessFile>> CountingFileSystem::OpenForRead(const std::string& path) {
  Add(c_.open_for_read);
  auto file = base_->OpenForRead(path);
  if (!file.ok()) {
    if (file.status().IsNotFound()) Add(c_.open_for_read_not_found);
    return file.status();
  }
  return std::unique_ptr<RandomAccessFile>(new CountingReadFile(std::move(*file), &c_));
}

Result<std::unique_ptr<WritableFile>> CountingFileSystem::OpenForWrite(const std::string& path) {
  Add(c_.open_for_write);
  WEIR_ASSIGN_OR_RETURN(auto file, base_->OpenForWrite(path));
  return std::unique_ptr<WritableFile>(new CountingWriteFile(std::move(file), &c_));
}

Status CountingFileSystem::PutIfAbsent(const std::string& path, std::string_view data) {
  Add(c_.put_if_absent);
  Add(c_.bytes_written, static_cast<int64_t>(data.size()));
  return base_->PutIfAbsent(path, data);
}

Status CountingFileSystem::WriteAtomic(const std::string& path, std::string_view data) {
  Add(c_.write_atomic);
  Add(c_.bytes_written, static_cast<int64_t>(data.size()));
  return base_->WriteAtomic(path, data);
}

Status CountingFileSystem::Rename(const std::string& from, const std::string& to) {
  Add(c_.rename);
  return base_->Rename(from, to);
}

Status CountingFileSystem::RenameNoReplace(const std::string& from, const std::string& to) {
  Add(c_.rename);
  return base_->RenameNoReplace(from, to);
}

Status CountingFileSystem::Delete(const std::string& path) {
  Add(c_.delete_file);
  return base_->Delete(path);
}

Status CountingFileSystem::DeleteDirRecursive(const std::string& path) {
  Add(c_.delete_file);
  return base_->DeleteDirRecursive(path);
}

Status CountingFileSystem::CreateDirs(const std::string& path) {
  Add(c_.create_dirs);
  return base_->CreateDirs(path);
}

Result<bool> CountingFileSystem::Exists(const std::string& path) {
  Add(c_.exists);
  return base_->Exists(path);
}

Result<FileInfo> CountingFileSystem::GetFileInfo(const std::string& path) {
  Add(c_.get_file_info);
  return base_->GetFileInfo(path);
}

Result<std::vector<FileInfo>> CountingFileSystem::List(const std::string& dir) {
  Add(c_.list);
  auto listed = base_->List(dir);
  if (listed.ok()) Add(c_.entries_listed, static_cast<int64_t>(listed->size()));
  return listed;
}

Result<std::vector<FileInfo>> CountingFileSystem::ListFrom(const std::string& dir,
                                                           std::string_view first_name) {
  if (options_.list_from_lists_everything) {
    return FileSystem::ListFrom(dir, first_name);  // counted by List()
  }
  Add(c_.list_from);
  auto listed = base_->ListFrom(dir, first_name);
  if (listed.ok()) Add(c_.entries_listed, static_cast<int64_t>(listed->size()));
  return listed;
}

Status CountingFileSystem::SyncDir(const std::string& path) {
  Add(c_.sync_dir);
  return base_->SyncDir(path);
}

}  // namespace weir::fs
