// FileSystem: the interface through which every weir module does file I/O (like leveldb's Env and
// delta-kernel-rs's StorageHandler). Implementations: LocalFileSystem (POSIX) and
// FaultInjectionFileSystem (tests: injected errors, simulated crashes).
// Thread safety: FileSystem methods may be called from any thread. A RandomAccessFile may be read
// from several threads at once; a WritableFile is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"

namespace weir::fs {

// Files named with this prefix are temporaries of PutIfAbsent/WriteAtomic. They live in the
// target's directory and are removed on success or failure, but a crash can leave one behind.
// List() returns them like any other file: callers that enumerate a directory skip them with
// IsTempFileName().
inline constexpr std::string_view kTempFilePrefix = ".weir-tmp-";

struct FileInfo {
  std::string path;      // for List(): the listed directory joined with the child's name
  int64_t size = 0;      // bytes; 0 for directories
  int64_t mtime_ms = 0;  // last modification, milliseconds since the Unix epoch
  bool is_dir = false;
};

// A file opened for positioned reads.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;

  // Current size of the file in bytes.
  virtual Result<int64_t> Size() = 0;
  // Reads exactly `length` bytes at `offset` into `out`, or fails: Corruption "short read" naming
  // the path if the file ends first, IOError on a device error. REQUIRES: `out` holds `length`
  // bytes.
  virtual Status ReadAt(int64_t offset, int64_t length, uint8_t* out) = 0;

  const std::string& path() const { return path_; }

 protected:
  explicit RandomAccessFile(std::string path) : path_(std::move(path)) {}

 private:
  std::string path_;
};

// A file opened for sequential writing. Appends may be buffered: data is handed to the operating
// system by Close() or Sync(), and is durable only after Sync(). Destroying a file without Close()
// closes it and DROPS unwritten buffered data (as a crash would); always Close() files you keep.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;

  virtual Status Append(std::string_view data) = 0;
  // Writes buffered data and makes everything appended so far durable (fsync).
  virtual Status Sync() = 0;
  // Writes buffered data and closes the file; does not sync. A second Close() is a no-op.
  virtual Status Close() = 0;
  // Bytes appended so far (including buffered bytes).
  virtual int64_t Size() const = 0;

  const std::string& path() const { return path_; }

 protected:
  explicit WritableFile(std::string path) : path_(std::move(path)) {}

 private:
  std::string path_;
};

// Errors: a missing file or directory is NotFound; device and other failures are IOError whose
// message reads "<operation> <path>: <reason>". Directory entry changes (create, rename, delete)
// are durable only after SyncDir() of the parent directory, except where a method says it syncs.
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  virtual Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) = 0;
  // Creates the file, or truncates it if it exists. The parent directory must exist (NotFound).
  virtual Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) = 0;

  // Creates `path` holding exactly `data` if no file of that name exists, atomically: readers see
  // either no file or the whole content, and an existing file is never overwritten (AlreadyExists
  // naming the path). On success the file and its directory entry are durable. This is the Delta
  // commit primitive. On an IOError the file may or may not exist; read it back to decide.
  virtual Status PutIfAbsent(const std::string& path, std::string_view data) = 0;
  // Replaces (or creates) `path` with `data` atomically and durably: readers see the old or the
  // new content, never a mix. For small hint files such as _last_checkpoint.
  virtual Status WriteAtomic(const std::string& path, std::string_view data) = 0;

  // Renames `from` to `to`, replacing `to` if it exists. NotFound if `from` is missing.
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  // Renames `from` to `to` only if `to` does not exist (AlreadyExists otherwise), atomically.
  virtual Status RenameNoReplace(const std::string& from, const std::string& to) = 0;

  // Deletes a file or an empty directory. NotFound if missing.
  virtual Status Delete(const std::string& path) = 0;
  // Deletes a directory and everything below it. NotFound if missing.
  virtual Status DeleteDirRecursive(const std::string& path) = 0;
  // Creates `path` and any missing parents (mkdir -p). OK if it already is a directory.
  virtual Status CreateDirs(const std::string& path) = 0;

  virtual Result<bool> Exists(const std::string& path) = 0;
  // NotFound if missing.
  virtual Result<FileInfo> GetFileInfo(const std::string& path) = 0;
  // The direct children of `dir` (files and directories, including temporaries, see
  // kTempFilePrefix), sorted by name. NotFound if `dir` is missing.
  virtual Result<std::vector<FileInfo>> List(const std::string& dir) = 0;
  // The children of `dir` whose names sort at or after `first_name` (bytewise), sorted by name:
  // a listing that costs little for the entries before it (a Delta log's old commits). This
  // default lists everything and drops the rest.
  virtual Result<std::vector<FileInfo>> ListFrom(const std::string& dir,
                                                 std::string_view first_name);
  // Makes the directory's entries (files created, renamed or deleted in it) durable.
  virtual Status SyncDir(const std::string& path) = 0;
};

// Reads the whole file.
Result<std::string> ReadFileToString(FileSystem* fs, const std::string& path);
// Creates or truncates `path` and writes `data`; syncs the file (not the directory) if `sync`.
Status WriteStringToFile(FileSystem* fs, const std::string& path, std::string_view data,
                         bool sync = true);

// "dir/name"; no separator is added if `dir` is empty or already ends with '/'.
std::string JoinPath(std::string_view dir, std::string_view name);
// The directory part: "a/b" for "a/b/c", "/" for "/c", "." for "c". Trailing '/' are ignored.
std::string DirName(std::string_view path);
// The last component: "c" for "a/b/c" and for "a/b/c/".
std::string BaseName(std::string_view path);
// True if the last component of `path` starts with kTempFilePrefix.
bool IsTempFileName(std::string_view path);

// Maps an errno value to a Status: ENOENT → NotFound, everything else (ENOSPC, EIO, ...) → IOError,
// with the message "<operation> <path>: <strerror>" plus a hint for the user on
// ENOSPC/EDQUOT/EACCES.
Status StatusFromErrno(std::string_view operation, std::string_view path, int error_number);

}  // namespace weir::fs
