// ProgressBar: one self-overwriting line on stderr for availableNow backfills ("events done /
// total, rate, ETA"), drawn only when stderr is a terminal and at most ten times a second. Lines
// printed while it is shown go through Print(), which clears the bar first. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace weir::cli {

class ProgressBar {
 public:
  // `enabled` false: Update() does nothing and Print() just prints.
  explicit ProgressBar(bool enabled) : enabled_(enabled) {}
  ~ProgressBar() { Clear(); }

  // Shows `done` of `total` events of flow `name`.
  void Update(const std::string& name, int64_t done, int64_t total);
  // Prints `line` (without newline) on stderr, above the bar.
  void Print(const std::string& line);
  void Clear();

  // The bar's text for a terminal `width` columns wide (tested without a terminal).
  static std::string Render(const std::string& name, int64_t done, int64_t total, double rate,
                            int width);

 private:
  bool enabled_;
  std::mutex mutex_;
  bool shown_ = false;
  std::string name_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace weir::cli
