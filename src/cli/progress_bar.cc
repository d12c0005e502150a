#include "cli/progress_bar.h"

#include <algorithm>
#include <cstdio>

namespace weir::cli {
namespace {

// 1234567 -> "1,234,567".
std::string Grouped(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string Compact(double rate) {
  char buf[32];
  if (rate >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.1fM", rate / 1e6);
  } else if (rate >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.0fk", rate / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f", rate);
  }
  return buf;
}

}  // namespace

std::string ProgressBar::Render(const std::string& name, int64_t done, int64_t total, double rate,
                                int width) {
  done = std::clamp<int64_t>(done, 0, std::max<int64_t>(total, 0));
  double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  std::string tail = " " + Grouped(done) + "/" + Grouped(total) + " events";
  if (rate > 0) {
    tail += "  " + Compact(rate) + " ev/s";
    if (done < total) {
      tail += "  ETA " +
              std::to_string(static_cast<int64_t>(static_cast<double>(total - done) / rate + 0.5)) +
              "s";
    }
  }
  // Room for the longest rate and ETA text, so the bar keeps its width as they appear.
  constexpr size_t kRateRoom = sizeof("  999.9M ev/s  ETA 99999s") - 1;
  tail.resize(std::max(tail.size(), tail.find("events") + 6 + kRateRoom), ' ');
  std::string head = name + " ";
  int bar_width = width - static_cast<int>(head.size() + tail.size()) - 2;
  if (bar_width < 10) {
    head.clear();
    bar_width = std::max(10, width - static_cast<int>(tail.size()) - 2);
  }
  int filled = static_cast<int>(fraction * bar_width);
  std::string bar = head + "[" + std::string(static_cast<size_t>(filled), '=');
  if (filled < bar_width)
    bar += '>' + std::string(static_cast<size_t>(bar_width - filled - 1), ' ');
  bar += "]" + tail;
  while (!bar.empty() && bar.back() == ' ') bar.pop_back();
  return bar;
}

void ProgressBar::Update(const std::string& name, int64_t done, int64_t total) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto now = std::chrono::steady_clock::now();
  if (name != name_) {
    name_ = name;
    started_ = now;
  }
  if (shown_ && done < total && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  double seconds = std::chrono::duration<double>(now - started_).count();
  double rate = seconds > 0.2 ? static_cast<double>(done) / seconds : 0.0;
  std::string text = Render(name, done, total, rate, 100);
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressBar::Print(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (shown_) std::fputs("\r\033[K", stderr);
  std::fprintf(stderr, "%s\n", line.c_str());
  shown_ = false;
}

void ProgressBar::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (shown_) std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace weir::cli
