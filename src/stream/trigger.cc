#include "stream/trigger.h"

#include <cctype>

namespace weir::stream {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "10s", "10 seconds", "500ms", "2 minutes", "1h", "0".
Result<int64_t> ParseInterval(std::string_view text) {
  std::string t = Lower(text);
  size_t i = 0;
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  size_t start = i;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (start == i || i - start > 12) return Status::InvalidArgument("bad trigger interval '" + std::string(text) + "'");
  int64_t n = std::stoll(t.substr(start, i - start));
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  std::string unit = t.substr(i);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  int64_t scale;
  if (unit.empty() || unit == "ms" || unit == "millisecond" || unit == "milliseconds") {
    scale = 1;  // a bare number is milliseconds, as Trigger.ProcessingTime(long)
  } else if (unit == "s" || unit == "sec" || unit == "second" || unit == "seconds") {
    scale = 1000;
  } else if (unit == "m" || unit == "min" || unit == "minute" || unit == "minutes") {
    scale = 60000;
  } else if (unit == "h" || unit == "hour" || unit == "hours") {
    scale = 3600000;
  } else {
    return Status::InvalidArgument("bad trigger interval unit '" + unit +
                                   "' (use ms, seconds, minutes or hours)");
  }
  return n * scale;
}

}  // namespace

Result<Trigger> Trigger::Parse(std::string_view text) {
  std::string t = Lower(text);
  Trigger trigger;
  if (t == "availablenow" || t == "available-now" || t == "available_now") {
    trigger.kind = Kind::kAvailableNow;
    return trigger;
  }
  if (t == "once") {
    trigger.kind = Kind::kOnce;
    return trigger;
  }
  for (std::string_view prefix : {"processingtime=", "processingtime:", "processing-time="}) {
    if (t.rfind(prefix, 0) == 0) {
      WEIR_ASSIGN_OR_RETURN(trigger.interval_ms, ParseInterval(std::string_view(text).substr(prefix.size())));
      return trigger;
    }
  }
  if (t == "processingtime" || t == "continuous") return trigger;
  return Status::InvalidArgument("unknown trigger '" + std::string(text) +
                                 "' (use availableNow, once or processingTime=10s)");
}

std::string Trigger::ToString() const {
  switch (kind) {
    case Kind::kAvailableNow: return "availableNow";
    case Kind::kOnce: return "once";
    case Kind::kProcessingTime: return "processingTime=" + std::to_string(interval_ms) + "ms";
  }
  return "?";
}

int64_t Trigger::NextTriggerMs(int64_t now_ms) const {
  if (interval_ms <= 0) return now_ms;
  return now_ms / interval_ms * interval_ms + interval_ms;
}

}  // namespace weir::stream
