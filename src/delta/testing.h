// Test support for the delta module (test-only; header-only): scratch directories, sample
// batches, table contents as sorted JSON rows for comparisons, and a commit's actions.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/testing.h"
#include "columnar/text_format.h"
#include "delta/actions.h"
#include "delta/log_path.h"
#include "delta/partition_value.h"
#include "fs/local_file_system.h"
#include "columnar/column.h"
#include "columnar/json_lines.h"
#include "delta/scan.h"
#include "delta/snapshot.h"

namespace weir::delta::testing {

// A fresh directory under $TMPDIR (or /dev/shm when present: fsync is free on tmpfs, and the
// crash tests simulate durability themselves; else /tmp), removed with its content on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string base = tmp && *tmp ? tmp : "/tmp";
    std::error_code ec;
    if (!(tmp && *tmp) && std::filesystem::is_directory("/dev/shm", ec) &&
        access("/dev/shm", W_OK) == 0) {
      base = "/dev/shm";
    }
    std::string pattern = base + "/weir-delta-test-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    char* made = mkdtemp(buf.data());
    path_ = made ? made : "";
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Each row of `batch` as a JSON object text (weir's conventions).
inline std::vector<std::string> JsonRows(const columnar::Batch& batch) {
  std::vector<std::string> rows;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::string line;
    columnar::AppendJsonRow(batch, r, &line);
    rows.push_back(std::move(line));
  }
  return rows;
}

// Every row of the snapshot as JSON text, sorted.
inline Result<std::vector<std::string>> SortedRows(std::shared_ptr<const Snapshot> snapshot,
                                                   ScanOptions options = {}) {
  WEIR_ASSIGN_OR_RETURN(auto scan, TableScan::Make(std::move(snapshot), std::move(options)));
  std::vector<std::string> rows;
  while (true) {
    WEIR_ASSIGN_OR_RETURN(auto batch, scan->Next());
    if (!batch) break;
    for (auto& r : JsonRows(*batch)) rows.push_back(std::move(r));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// Appends a JSON value to a column: null, numbers, booleans, strings in the text forms of
// AppendPartitionValue (binary as base64), objects for structs and maps, arrays for lists.
inline Status AppendJsonForTest(const nlohmann::json& v, columnar::Column* c) {
  using columnar::TypeId;
  if (v.is_null()) {
    c->AppendNull();
    return Status::OK();
  }
  switch (c->type_id()) {
    case TypeId::kStruct: {
      const auto& fields = c->type()->children();
      for (size_t i = 0; i < fields.size(); ++i) {
        auto it = v.find(fields[i].name);
        WEIR_RETURN_NOT_OK(AppendJsonForTest(it == v.end() ? nlohmann::json() : *it,
                                             &c->mutable_child(static_cast<int>(i))));
      }
      c->AppendStructEntry();
      return Status::OK();
    }
    case TypeId::kList:
      for (const auto& e : v) WEIR_RETURN_NOT_OK(AppendJsonForTest(e, &c->mutable_child(0)));
      c->AppendListEntry();
      return Status::OK();
    case TypeId::kMap:
      for (auto it = v.begin(); it != v.end(); ++it) {
        WEIR_RETURN_NOT_OK(AppendJsonForTest(nlohmann::json(it.key()), &c->mutable_child(0)));
        WEIR_RETURN_NOT_OK(AppendJsonForTest(*it, &c->mutable_child(1)));
      }
      c->AppendListEntry();
      return Status::OK();
    case TypeId::kBinary: {
      auto bytes = columnar::DecodeBase64(v.get<std::string>());
      if (!bytes) return Status::InvalidArgument("bad base64");
      c->AppendString(*bytes);
      return Status::OK();
    }
    case TypeId::kString:
      c->AppendString(v.get<std::string>());
      return Status::OK();
    default: {
      std::string text = v.is_string() ? v.get<std::string>() : v.dump();
      return AppendPartitionValue(text, "test", c);
    }
  }
}

// A batch of `schema` from JSON object texts (missing fields are null).
inline Result<columnar::Batch> BatchFromJson(const columnar::Schema& schema,
                                             const std::vector<std::string>& rows) {
  columnar::Batch batch(schema);
  for (const std::string& row : rows) {
    auto j = nlohmann::json::parse(row);
    for (int i = 0; i < schema.num_fields(); ++i) {
      auto it = j.find(schema.fields[i].name);
      WEIR_RETURN_NOT_OK(
          AppendJsonForTest(it == j.end() ? nlohmann::json() : *it, &batch.columns[i]));
    }
  }
  return batch;
}

inline columnar::Schema Ddl(const std::string& ddl) {
  return columnar::ParseDdlSchema(ddl).ValueOrDie();
}

// The actions of commit `version` of the table at `root` on the local file system.
inline std::vector<Action> ReadCommit(const std::string& root, int64_t version) {
  std::string path = LogDirPath(root) + "/" + CommitFileName(version);
  auto text = fs::ReadFileToString(fs::LocalFileSystem::Default(), path).ValueOrDie();
  return ParseActions(text, path).ValueOrDie();
}

// The actions of type T among `actions`, in order.
template <typename T>
std::vector<T> ActionsOf(const std::vector<Action>& actions) {
  std::vector<T> out;
  for (const auto& a : actions) {
    if (auto* x = std::get_if<T>(&a)) out.push_back(*x);
  }
  return out;
}

}  // namespace weir::delta::testing
