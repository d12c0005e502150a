#include "broker/event_generator.h"

#include <array>
#include <charconv>
#include <string_view>

namespace weir::broker {
namespace {

constexpr int64_t kTutorialTimeMs = 1780909200000;  // 2026-06-08T09:00:00Z
constexpr size_t kRecentEvents = 512;               // duplicates re-send one of these
constexpr size_t kMaxOpenOrders = 64;

constexpr std::array<std::string_view, 4> kStatuses = {"created", "paid", "shipped", "delivered"};
constexpr std::string_view kCancelled = "cancelled";
constexpr int kCancelledStatus = 100;  // a terminal status outside kStatuses
constexpr std::array<std::string_view, 4> kCurrencies = {"EUR", "USD", "GBP", "SEK"};
constexpr std::array<std::string_view, 4> kChannels = {"web", "app", "store", "partner"};
constexpr std::array<std::string_view, 5> kRegions = {"eu-west", "eu-north", "us-east", "us-west",
                                                      "ap-south"};

void AppendNumber(uint64_t value, std::string* out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, end);
}

void AppendPadded(uint64_t value, int width, std::string* out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  for (int pad = width - static_cast<int>(end - buf); pad > 0; --pad) out->push_back('0');
  out->append(buf, end);
}

void AppendEventTime(int64_t unix_ms, std::string* out) {
  int64_t days = unix_ms >= 0 ? unix_ms / 86400000 : (unix_ms - 86399999) / 86400000;
  int64_t ms_of_day = unix_ms - days * 86400000;
  // Civil date from days since 1970-01-01 (proleptic Gregorian, 400-year eras).
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t day_of_era = z - era * 146097;
  int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  int64_t month_index = (5 * day_of_year + 2) / 153;  // March = 0
  int64_t day = day_of_year - (153 * month_index + 2) / 5 + 1;
  int64_t month = month_index < 10 ? month_index + 3 : month_index - 9;
  int64_t year = year_of_era + era * 400 + (month <= 2 ? 1 : 0);
  AppendPadded(static_cast<uint64_t>(year), 4, out);
  out->push_back('-');
  AppendPadded(static_cast<uint64_t>(month), 2, out);
  out->push_back('-');
  AppendPadded(static_cast<uint64_t>(day), 2, out);
  out->push_back('T');
  AppendPadded(static_cast<uint64_t>(ms_of_day / 3600000), 2, out);
  out->push_back(':');
  AppendPadded(static_cast<uint64_t>(ms_of_day / 60000 % 60), 2, out);
  out->push_back(':');
  AppendPadded(static_cast<uint64_t>(ms_of_day / 1000 % 60), 2, out);
  out->push_back('.');
  AppendPadded(static_cast<uint64_t>(ms_of_day % 1000), 3, out);
  out->push_back('Z');
}

void AppendField(std::string_view name, std::string_view value, std::string* out) {
  out->push_back('"');
  out->append(name);
  out->append("\":\"");
  out->append(value);
  out->append("\",");
}

bool ValidFraction(double f) { return f >= 0.0 && f <= 1.0; }

}  // namespace

Status ValidateEventGeneratorOptions(const EventGeneratorOptions& options) {
  if (!ValidFraction(options.duplicate_fraction)) {
    return Status::InvalidArgument("duplicate fraction must be in [0, 1]");
  }
  if (!ValidFraction(options.malformed_fraction)) {
    return Status::InvalidArgument("malformed fraction must be in [0, 1]");
  }
  if (!ValidFraction(options.late_fraction)) {
    return Status::InvalidArgument("late fraction must be in [0, 1]");
  }
  if (options.duplicate_fraction + options.malformed_fraction + options.late_fraction > 1.0) {
    return Status::InvalidArgument(
        "duplicate, malformed and late fractions together must not exceed 1");
  }
  if (options.step_ms < 0) return Status::InvalidArgument("event time step must not be negative");
  if (options.late_by_ms <= 0) return Status::InvalidArgument("lateness must be positive");
  return Status::OK();
}

std::string FormatEventTime(int64_t unix_ms) {
  std::string out;
  AppendEventTime(unix_ms, &out);
  return out;
}

EventGenerator::EventGenerator(const EventGeneratorOptions& options)
    : options_(options),
      base_time_ms_(options.base_time_ms >= 0
                        ? options.base_time_ms
                        : kTutorialTimeMs +
                              static_cast<int64_t>((options.seed + 999) % 1000) * 3600000),
      rng_state_(options.seed ^ 0x5745495250524f44ULL) {
  open_orders_.reserve(kMaxOpenOrders);
  recent_.reserve(kRecentEvents);
}

// SplitMix64: tiny, fast and identical on every platform (unlike std:: distributions).
uint64_t EventGenerator::NextRandom() {
  uint64_t z = (rng_state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double EventGenerator::NextUniform() { return static_cast<double>(NextRandom() >> 11) * 0x1.0p-53; }

uint64_t EventGenerator::NextBelow(uint64_t bound) { return NextRandom() % bound; }

EventGenerator::Order& EventGenerator::PickOrderForNewEvent() {
  bool open_new =
      open_orders_.size() < 8 || (open_orders_.size() < kMaxOpenOrders && NextUniform() < 0.3);
  if (open_new) {
    Order order;
    order.number = next_order_number_++;
    order.quantity = static_cast<uint8_t>(1 + NextBelow(5));
    order.amount_cents = static_cast<int64_t>(199 + NextBelow(19800)) * order.quantity;
    order.customer = static_cast<uint32_t>(10000 + NextBelow(90000));
    order.sku = static_cast<uint32_t>(10000 + NextBelow(90000));
    order.currency = static_cast<uint8_t>(NextBelow(kCurrencies.size()));
    order.channel = static_cast<uint8_t>(NextBelow(kChannels.size()));
    order.region = static_cast<uint8_t>(NextBelow(kRegions.size()));
    open_orders_.push_back(order);
    return open_orders_.back();
  }
  Order& order = open_orders_[NextBelow(open_orders_.size())];
  order.status = (order.status < 2 && NextUniform() < 0.05) ? kCancelledStatus : order.status + 1;
  return order;
}

void EventGenerator::AppendOrderJson(const Order& order, const std::string* event_id,
                                     int64_t event_time_ms, std::string* out) const {
  out->push_back('{');
  if (event_id != nullptr) AppendField("event_id", *event_id, out);
  out->append("\"order_id\":\"SO-");
  AppendNumber(order.number, out);
  out->append("\",");
  AppendField("status", order.status == kCancelledStatus ? kCancelled : kStatuses[order.status],
              out);
  out->append("\"amount\":\"");
  AppendNumber(static_cast<uint64_t>(order.amount_cents / 100), out);
  out->push_back('.');
  AppendPadded(static_cast<uint64_t>(order.amount_cents % 100), 2, out);
  out->append("\",");
  AppendField("currency", kCurrencies[order.currency], out);
  out->append("\"customer_id\":\"C-");
  AppendNumber(order.customer, out);
  out->append("\",");
  AppendField("channel", kChannels[order.channel], out);
  out->append("\"sku\":\"SKU-");
  AppendNumber(order.sku, out);
  out->append("\",\"quantity\":");
  AppendNumber(order.quantity, out);
  out->push_back(',');
  AppendField("region", kRegions[order.region], out);
  out->append("\"event_time\":\"");
  AppendEventTime(event_time_ms, out);
  out->append("\"}");
}

void EventGenerator::MakeMalformed(GeneratedEvent* event, int64_t now_ms) {
  // A snapshot of some order, without changing the stream of real order events.
  Order order;
  if (!open_orders_.empty()) order = open_orders_[NextBelow(open_orders_.size())];
  order.number = order.number == 0 ? 1 : order.number;
  event->key = "SO-";
  AppendNumber(order.number, &event->key);
  event->payload.clear();
  event->event_id.clear();
  event->event_time_ms = now_ms;
  switch (NextBelow(4)) {
    case 0: {  // cut off mid-record, as by a producer bug or a truncating proxy
      std::string bogus_id = "x";
      AppendNumber(options_.seed, &bogus_id);
      bogus_id.push_back('-');
      AppendNumber(event->sequence, &bogus_id);
      AppendOrderJson(order, &bogus_id, now_ms, &event->payload);
      event->payload.resize(1 + NextBelow(event->payload.size() - 2));
      break;
    }
    case 1:  // a well-formed object without event_id
      AppendOrderJson(order, nullptr, now_ms, &event->payload);
      break;
    case 2:  // a plain-text line from a misconfigured producer
      event->payload = "ERROR 503 upstream unavailable order=" + event->key + " at ";
      AppendEventTime(now_ms, &event->payload);
      break;
    default:  // JSON, but not an object
      event->payload = "[\"" + event->key + "\",\"";
      event->payload.append(order.status < 4 ? kStatuses[order.status] : kCancelled);
      event->payload.append("\"]");
      break;
  }
}

void EventGenerator::Next(GeneratedEvent* event) {
  event->sequence = counts_.total++;
  const int64_t now_ms = base_time_ms_ + static_cast<int64_t>(event->sequence) * options_.step_ms;
  double draw = NextUniform();

  if (draw < options_.duplicate_fraction && !recent_.empty()) {
    const SentEvent& original = recent_[NextBelow(recent_.size())];
    event->kind = EventKind::kDuplicate;
    event->key = original.key;
    event->payload = original.payload;
    event->event_id = original.event_id;
    event->event_time_ms = original.event_time_ms;
    ++counts_.duplicates;
    return;
  }
  draw -= options_.duplicate_fraction;
  if (draw >= 0 && draw < options_.malformed_fraction) {
    event->kind = EventKind::kMalformed;
    MakeMalformed(event, now_ms);
    ++counts_.malformed;
    return;
  }
  draw -= options_.malformed_fraction;
  bool late = draw >= 0 && draw < options_.late_fraction;

  Order& order = PickOrderForNewEvent();
  event->kind = late ? EventKind::kLate : EventKind::kValid;
  event->event_id.clear();
  event->event_id.push_back('e');
  AppendNumber(options_.seed, &event->event_id);
  event->event_id.push_back('-');
  AppendNumber(next_event_number_++, &event->event_id);
  event->key = "SO-";
  AppendNumber(order.number, &event->key);
  event->event_time_ms = late ? now_ms - options_.late_by_ms : now_ms;
  event->payload.clear();
  AppendOrderJson(order, &event->event_id, event->event_time_ms, &event->payload);
  if (order.status == kCancelledStatus || order.status + 1 >= static_cast<int>(kStatuses.size())) {
    order = open_orders_.back();  // the order is finished: swap-remove it
    open_orders_.pop_back();
  }

  if (late) {
    ++counts_.late;
    return;
  }
  ++counts_.valid;
  if (options_.duplicate_fraction > 0) {
    if (recent_.size() < kRecentEvents) {
      recent_.push_back({event->key, event->payload, event->event_id, event->event_time_ms});
    } else {
      SentEvent& slot = recent_[recent_next_];
      slot.key = event->key;
      slot.payload = event->payload;
      slot.event_id = event->event_id;
      slot.event_time_ms = event->event_time_ms;
      recent_next_ = (recent_next_ + 1) % kRecentEvents;
    }
  }
}

}  // namespace weir::broker
