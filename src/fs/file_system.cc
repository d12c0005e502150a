#include "fs/file_system.h"

#include <cerrno>
#include <cstring>

namespace weir::fs {

Result<std::vector<FileInfo>> FileSystem::ListFrom(const std::string& dir,
                                                   std::string_view first_name) {
  WEIR_ASSIGN_OR_RETURN(std::vector<FileInfo> children, List(dir));
  std::erase_if(children, [&](const FileInfo& f) { return BaseName(f.path) < first_name; });
  return children;
}

Result<std::string> ReadFileToString(FileSystem* fs, const std::string& path) {
  WEIR_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file, fs->OpenForRead(path));
  WEIR_ASSIGN_OR_RETURN(int64_t size, file->Size());
  std::string data(static_cast<size_t>(size), '\0');
  if (size > 0) {
    WEIR_RETURN_NOT_OK(file->ReadAt(0, size, reinterpret_cast<uint8_t*>(data.data())));
  }
  return data;
}

Status WriteStringToFile(FileSystem* fs, const std::string& path, std::string_view data,
                         bool sync) {
  WEIR_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, fs->OpenForWrite(path));
  WEIR_RETURN_NOT_OK(file->Append(data));
  if (sync) WEIR_RETURN_NOT_OK(file->Sync());
  return file->Close();
}

namespace {

std::string_view StripTrailingSlashes(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

}  // namespace

std::string JoinPath(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (!out.empty() && out.back() != '/') out += '/';
  out += name;
  return out;
}

std::string DirName(std::string_view path) {
  path = StripTrailingSlashes(path);
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(StripTrailingSlashes(path.substr(0, slash)));
}

std::string BaseName(std::string_view path) {
  path = StripTrailingSlashes(path);
  if (path == "/") return "/";
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool IsTempFileName(std::string_view path) { return BaseName(path).starts_with(kTempFilePrefix); }

Status StatusFromErrno(std::string_view operation, std::string_view path, int error_number) {
  std::string message(operation);
  message += ' ';
  message += path;
  message += ": ";
  message += std::strerror(error_number);
  switch (error_number) {
    case ENOENT:
      return Status::NotFound(std::move(message));
    case ENOSPC:
    case EDQUOT:
      message += " (free space on the volume, or raise the quota, and retry)";
      break;
    case EACCES:
    case EPERM:
    case EROFS:
      message += " (check the permissions of the path and that the volume is writable)";
      break;
    default:
      break;
  }
  return Status::IOError(std::move(message));
}

}  // namespace weir::fs
