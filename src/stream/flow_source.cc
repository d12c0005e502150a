#include "stream/flow_source.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace weir::stream {

bool FlowSource::WaitForData(int64_t max_wait_ms, const std::atomic<bool>* stop) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(max_wait_ms);
  while (stop == nullptr || !stop->load()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) break;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        deadline - now, std::chrono::milliseconds(100)));
  }
  return false;
}

}  // namespace weir::stream
