// The weir_testing binary: weir's command line with a fault-injecting file system under every
// flow, configured by environment variables, for the crash and fault tests in tests/. Never part
// of the shipped binary.
//
//   WEIR_TEST_FAIL_NTH_FS_CALL=N   the N-th file-system call of the flows is injected
//   WEIR_TEST_FS_FAULT_MODE=M      fail (default: the call does nothing and reports EIO),
//                                  lie (the call takes effect, then reports EIO) or
//                                  crash (the call takes effect, then the machine "crashes":
//                                  what was not durable is dropped and every later call fails)
//   WEIR_TEST_FS_FAIL_READS=K      after the call, K reads of its paths fail too (lie, fail)
#include <cstdlib>
#include <string>

#include "cli/file_systems.h"
#include "fs/fault_injection_file_system.h"

namespace weir::cli {
namespace {

fs::FileSystem* WrapInFaults(fs::FileSystem* base) {
  static fs::FaultInjectionFileSystem faulty(base);
  static const bool armed = [] {
    const char* nth = std::getenv("WEIR_TEST_FAIL_NTH_FS_CALL");
    const char* mode = std::getenv("WEIR_TEST_FS_FAULT_MODE");
    const char* reads = std::getenv("WEIR_TEST_FS_FAIL_READS");
    const std::string m = mode != nullptr ? mode : "fail";
    const fs::FaultMode fault = m == "lie"     ? fs::FaultMode::kTakeEffectThenFail
                                : m == "crash" ? fs::FaultMode::kCrashAfter
                                               : fs::FaultMode::kFail;
    faulty.InjectNthCallOfAnyKind(std::atoll(nth), fault, reads != nullptr ? std::atoll(reads) : 0);
    return true;
  }();
  static_cast<void>(armed);
  return &faulty;
}

// Installed before main() runs, when the variable asks for it.
const bool kInstalled = [] {
  const char* nth = std::getenv("WEIR_TEST_FAIL_NTH_FS_CALL");
  if (nth != nullptr && *nth != '\0') SetFlowFileSystemWrapper(&WrapInFaults);
  return true;
}();

}  // namespace
}  // namespace weir::cli
