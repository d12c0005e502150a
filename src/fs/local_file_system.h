// LocalFileSystem: FileSystem over POSIX calls on the local disk (Linux).
// Put-if-absent writes a temporary file, fsyncs it and hard-links it to the final name (falling
// back to renameat2(RENAME_NOREPLACE) where hard links are unsupported), then fsyncs the directory.
// Thread-safe: the object holds no mutable state.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fs/file_system.h"

namespace weir::fs {

class LocalFileSystem final : public FileSystem {
 public:
  struct Options {
    // Bytes a WritableFile collects before calling write().
    size_t write_buffer_size = size_t{1} << 20;
  };

  LocalFileSystem() = default;
  explicit LocalFileSystem(Options options) : options_(options) {}

  // A process-wide instance with default options (stateless, so usable until exit).
  static LocalFileSystem* Default();

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) override;
  Status PutIfAbsent(const std::string& path, std::string_view data) override;
  Status WriteAtomic(const std::string& path, std::string_view data) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status RenameNoReplace(const std::string& from, const std::string& to) override;
  Status Delete(const std::string& path) override;
  Status DeleteDirRecursive(const std::string& path) override;
  Status CreateDirs(const std::string& path) override;
  Result<bool> Exists(const std::string& path) override;
  Result<FileInfo> GetFileInfo(const std::string& path) override;
  Result<std::vector<FileInfo>> List(const std::string& dir) override;
  // Entries before `first_name` are skipped without a stat.
  Result<std::vector<FileInfo>> ListFrom(const std::string& dir,
                                         std::string_view first_name) override;
  Status SyncDir(const std::string& path) override;

 private:
  // Creates a uniquely named temporary file in DirName(target) holding `data`, fsynced and closed.
  // Returns its path.
  Result<std::string> WriteTempFile(const std::string& target, std::string_view data,
                                    std::string_view operation);

  Options options_;
};

}  // namespace weir::fs
