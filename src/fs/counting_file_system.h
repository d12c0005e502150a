// CountingFileSystem: a FileSystem wrapper that forwards every call to another one and counts the
// calls by kind (listings and the entries they returned, stats and existence checks, opens, reads
// and their bytes, writes, renames, deletes, ...), for tests and benchmarks that bound what an
// operation costs in storage requests rather than in time: "discovering a new Delta version lists
// nothing", "a batch reads the log files it needs and no others".
//
// With Options::list_from_lists_everything the wrapper answers ListFrom() with a full List()
// filtered afterwards (FileSystem's default, what a store without a start key pays), so the counts
// show what a listing would cost on such a store; otherwise ListFrom() is forwarded.
// Counts include failed calls (an OpenForRead of a missing file is a probe like any other).
// Thread-safe: the counters are atomics; the wrapper adds no other state.
// REQUIRES: the wrapped FileSystem outlives this object and every file opened through it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fs/file_system.h"

namespace weir::fs {

class CountingFileSystem final : public FileSystem {
 public:
  struct Options {
    // ListFrom() as a full List() filtered by name (counted as one List and all its entries).
    bool list_from_lists_everything = false;
  };

  // A copy of the counters at one moment.
  struct Counts {
    int64_t list = 0;             // List() calls (including those a ListFrom() made)
    int64_t list_from = 0;        // ListFrom() calls
    int64_t entries_listed = 0;   // entries returned by List() and ListFrom() together
    int64_t exists = 0;           // Exists() calls
    int64_t get_file_info = 0;    // GetFileInfo() calls
    int64_t open_for_read = 0;    // OpenForRead() calls, found or not
    int64_t open_for_read_not_found = 0;  // of which answered NotFound
    int64_t read_at = 0;          // RandomAccessFile::ReadAt calls
    int64_t bytes_read = 0;
    int64_t file_size = 0;        // RandomAccessFile::Size calls
    int64_t open_for_write = 0;
    int64_t append = 0;           // WritableFile::Append calls
    int64_t bytes_written = 0;    // by Append, PutIfAbsent and WriteAtomic
    int64_t sync = 0;             // WritableFile::Sync calls
    int64_t put_if_absent = 0;
    int64_t write_atomic = 0;
    int64_t rename = 0;           // Rename and RenameNoReplace
    int64_t delete_file = 0;      // Delete and DeleteDirRecursive
    int64_t create_dirs = 0;
    int64_t sync_dir = 0;

    // Listings of either form.
    int64_t listings() const { return list + list_from; }
    // Calls that look a single name up: Exists, GetFileInfo, OpenForRead.
    int64_t lookups() const { return exists + get_file_info + open_for_read; }
    // Every call on the file system (not on files opened through it).
    int64_t calls() const;
    // The counts between `earlier` and this (field by field).
    Counts operator-(const Counts& earlier) const;
    // "list=2 list_from=0 entries_listed=10 ..." (the nonzero counts), for test failures.
    std::string ToString() const;
  };

  explicit CountingFileSystem(FileSystem* base) : CountingFileSystem(base, Options{}) {}
  CountingFileSystem(FileSystem* base, Options options) : base_(base), options_(options) {}

  FileSystem* base() const { return base_; }
  Counts counts() const;
  void Reset();

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
  Result<std::vector<FileInfo>> ListFrom(const std::string& dir,
                                         std::string_view first_name) override;
  Status SyncDir(const std::string& path) override;

 private:
  class CountingReadFile;
  class CountingWriteFile;

  struct Counters {
    std::atomic<int64_t> list{0}, list_from{0}, entries_listed{0}, exists{0}, get_file_info{0},
        open_for_read{0}, open_for_read_not_found{0}, read_at{0}, bytes_read{0}, file_size{0},
        open_for_write{0}, append{0}, bytes_written{0}, sync{0}, put_if_absent{0},
        write_atomic{0}, rename{0}, delete_file{0}, create_dirs{0}, sync_dir{0};
  };
  static void Add(std::atomic<int64_t>& counter, int64_t n = 1) {
    counter.fetch_add(n, std::memory_order_relaxed);
  }

  FileSystem* base_;
  Options options_;
  Counters c_;
};

}  // namespace weir::fs
