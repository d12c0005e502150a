#include "broker/event_generator.h"

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/testing.h"

namespace weir::broker {
namespace {

// A strict JSON syntax check (RFC 8259), enough to tell valid payloads from malformed ones.
class JsonChecker {
 public:
  static bool Valid(std::string_view text) {
    JsonChecker c(text);
    c.SkipSpace();
    if (!c.Value()) return false;
    c.SkipSpace();
    return c.pos_ == text.size();
  }

 private:
  explicit JsonChecker(std::string_view text) : text_(text) {}
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  void SkipSpace() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r'))
      ++pos_;
  }
  bool Literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool String() {
    if (Peek() != '"') return false;
    ++pos_;
    while (!AtEnd()) {
      char c = text_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c == '\\') {
        if (AtEnd()) return false;
        char e = text_[pos_++];
        if (e == 'u') {
          for (int i = 0; i < 4; ++i) {
            if (AtEnd() || !std::isxdigit(static_cast<unsigned char>(text_[pos_++]))) return false;
          }
        } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          return false;
        }
      }
    }
    return false;
  }
  bool Digits() {
    size_t start = pos_;
    while (!AtEnd() && std::isdigit(static_cast<unsigned char>(Peek()))) ++pos_;
    return pos_ > start;
  }
  bool Number() {
    if (Peek() == '-') ++pos_;
    if (Peek() == '0') {
      ++pos_;
    } else if (!Digits()) {
      return false;
    }
    if (Peek() == '.') {
      ++pos_;
      if (!Digits()) return false;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (!Digits()) return false;
    }
    return true;
  }
  template <typename Member>
  bool Sequence(char close, Member member) {
    ++pos_;
    SkipSpace();
    if (Peek() == close) {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (!member()) return false;
      SkipSpace();
      if (Peek() == close) {
        ++pos_;
        return true;
      }
      if (Peek() != ',') return false;
      ++pos_;
    }
  }
  bool Value() {
    switch (Peek()) {
      case '{':
        return Sequence('}', [this] {
          if (!String()) return false;
          SkipSpace();
          if (Peek() != ':') return false;
          ++pos_;
          SkipSpace();
          return Value();
        });
      case '[':
        return Sequence(']', [this] { return Value(); });
      case '"':
        return String();
      case 't':
        return Literal("true");
      case 'f':
        return Literal("false");
      case 'n':
        return Literal("null");
      default:
        return Number();
    }
  }
  std::string_view text_;
  size_t pos_ = 0;
};

// The value of a top-level string field in a generator payload, or "" when absent.
std::string FieldOf(const std::string& payload, const std::string& name) {
  std::string needle = "\"" + name + "\":\"";
  size_t at = payload.find(needle);
  if (at == std::string::npos) return "";
  size_t start = at + needle.size();
  return payload.substr(start, payload.find('"', start) - start);
}

std::vector<GeneratedEvent> Generate(const EventGeneratorOptions& options, int count) {
  EventGenerator generator(options);
  std::vector<GeneratedEvent> events(count);
  for (auto& e : events) generator.Next(&e);
  return events;
}

EventGeneratorOptions Mixed(uint64_t seed) {
  EventGeneratorOptions options;
  options.seed = seed;
  options.duplicate_fraction = 0.1;
  options.malformed_fraction = 0.05;
  options.late_fraction = 0.05;
  return options;
}

TEST(JsonCheckerTest, TellsValidFromInvalid) {
  EXPECT_TRUE(JsonChecker::Valid(R"({"a":"b","n":-1.5e3,"l":[true,null,{}]})"));
  EXPECT_FALSE(JsonChecker::Valid(R"({"a":"b")"));
  EXPECT_FALSE(JsonChecker::Valid(R"({"a":01})"));
  EXPECT_FALSE(JsonChecker::Valid("ERROR 503"));
}

TEST(EventGeneratorTest, FirstEventMatchesTheTutorialShape) {
  EventGeneratorOptions options;
  std::vector<GeneratedEvent> events = Generate(options, 1);
  const GeneratedEvent& e = events[0];
  EXPECT_EQ(e.kind, EventKind::kValid);
  EXPECT_EQ(e.sequence, 0u);
  EXPECT_EQ(e.event_id, "e1-1");
  EXPECT_EQ(e.key, "SO-1");
  EXPECT_EQ(e.event_time_ms, 1780909200000);  // 2026-06-08T09:00:00Z
  EXPECT_EQ(
      e.payload.rfind(R"({"event_id":"e1-1","order_id":"SO-1","status":"created","amount":")", 0),
      0u)
      << e.payload;
  EXPECT_EQ(FieldOf(e.payload, "event_time"), "2026-06-08T09:00:00.000Z");
  EXPECT_TRUE(JsonChecker::Valid(e.payload)) << e.payload;
}

TEST(EventGeneratorTest, SameSeedGivesIdenticalEvents) {
  std::vector<GeneratedEvent> a = Generate(Mixed(42), 5000);
  std::vector<GeneratedEvent> b = Generate(Mixed(42), 5000);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].kind, b[i].kind) << i;
    ASSERT_EQ(a[i].key, b[i].key) << i;
    ASSERT_EQ(a[i].payload, b[i].payload) << i;
    ASSERT_EQ(a[i].event_id, b[i].event_id) << i;
  }
}

TEST(EventGeneratorTest, DifferentSeedsGiveDifferentEventIdsAndPayloads) {
  std::vector<GeneratedEvent> a = Generate(Mixed(1), 200);
  std::vector<GeneratedEvent> b = Generate(Mixed(2), 200);
  std::set<std::string> ids_a;
  for (const auto& e : a) ids_a.insert(e.event_id);
  int same_payload = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!b[i].event_id.empty()) {
      EXPECT_EQ(ids_a.count(b[i].event_id), 0u) << b[i].event_id;
    }
    same_payload += a[i].payload == b[i].payload;
  }
  EXPECT_EQ(same_payload, 0);
}

TEST(EventGeneratorTest, FractionsAreHonouredApproximately) {
  const int kCount = 100000;
  EventGenerator generator(Mixed(7));
  GeneratedEvent e;
  std::map<EventKind, int> kinds;
  for (int i = 0; i < kCount; ++i) {
    generator.Next(&e);
    ++kinds[e.kind];
  }
  EXPECT_NEAR(kinds[EventKind::kDuplicate] / double(kCount), 0.10, 0.01);
  EXPECT_NEAR(kinds[EventKind::kMalformed] / double(kCount), 0.05, 0.01);
  EXPECT_NEAR(kinds[EventKind::kLate] / double(kCount), 0.05, 0.01);
  const EventCounts& c = generator.counts();
  EXPECT_EQ(c.total, static_cast<uint64_t>(kCount));
  EXPECT_EQ(c.duplicates, static_cast<uint64_t>(kinds[EventKind::kDuplicate]));
  EXPECT_EQ(c.malformed, static_cast<uint64_t>(kinds[EventKind::kMalformed]));
  EXPECT_EQ(c.late, static_cast<uint64_t>(kinds[EventKind::kLate]));
  EXPECT_EQ(c.valid, static_cast<uint64_t>(kinds[EventKind::kValid]));
  EXPECT_EQ(c.total, c.valid + c.late + c.duplicates + c.malformed);
}

TEST(EventGeneratorTest, ZeroFractionsGiveOnlyValidEvents) {
  EventGeneratorOptions options;
  for (const auto& e : Generate(options, 10000)) ASSERT_EQ(e.kind, EventKind::kValid);
}

TEST(EventGeneratorTest, WellFormedEventsAreJsonOfAbout220Bytes) {
  std::vector<GeneratedEvent> events = Generate(Mixed(3), 20000);
  size_t total = 0, well_formed = 0;
  for (const auto& e : events) {
    if (e.kind == EventKind::kMalformed) continue;
    ASSERT_TRUE(JsonChecker::Valid(e.payload)) << e.payload;
    EXPECT_EQ(FieldOf(e.payload, "event_id"), e.event_id);
    EXPECT_EQ(FieldOf(e.payload, "order_id"), e.key);
    EXPECT_EQ(FieldOf(e.payload, "event_time"), FormatEventTime(e.event_time_ms));
    EXPECT_FALSE(FieldOf(e.payload, "status").empty());
    EXPECT_GE(e.payload.size(), 190u) << e.payload;
    EXPECT_LE(e.payload.size(), 250u) << e.payload;
    total += e.payload.size();
    ++well_formed;
  }
  double mean = static_cast<double>(total) / well_formed;
  EXPECT_NEAR(mean, 220, 15);
}

TEST(EventGeneratorTest, MalformedEventsLackAUsableEventId) {
  std::vector<GeneratedEvent> events = Generate(Mixed(5), 20000);
  int invalid_json = 0, json_without_id = 0;
  for (const auto& e : events) {
    if (e.kind != EventKind::kMalformed) continue;
    EXPECT_TRUE(e.event_id.empty());
    EXPECT_FALSE(e.key.empty());
    EXPECT_FALSE(e.payload.empty());
    if (JsonChecker::Valid(e.payload)) {
      ++json_without_id;
      EXPECT_EQ(e.payload.find("\"event_id\""), std::string::npos) << e.payload;
    } else {
      ++invalid_json;
    }
  }
  EXPECT_GT(invalid_json, 100);     // truncated JSON and plain text
  EXPECT_GT(json_without_id, 100);  // objects without event_id and arrays
}

TEST(EventGeneratorTest, DuplicatesRepeatAnEarlierOnTimeEventExactly) {
  std::vector<GeneratedEvent> events = Generate(Mixed(9), 20000);
  std::map<std::string, const GeneratedEvent*> originals;
  int duplicates = 0;
  for (const auto& e : events) {
    if (e.kind == EventKind::kValid || e.kind == EventKind::kLate) {
      ASSERT_TRUE(originals.emplace(e.event_id, &e).second) << "event_id reused: " << e.event_id;
    } else if (e.kind == EventKind::kDuplicate) {
      ++duplicates;
      auto it = originals.find(e.event_id);
      ASSERT_NE(it, originals.end()) << e.event_id;
      EXPECT_EQ(it->second->kind, EventKind::kValid);
      EXPECT_EQ(it->second->payload, e.payload);
      EXPECT_EQ(it->second->key, e.key);
      EXPECT_LT(it->second->sequence, e.sequence);
    }
  }
  EXPECT_GT(duplicates, 1000);
}

TEST(EventGeneratorTest, EventTimeAdvancesAndLateEventsLagTwoHours) {
  EventGeneratorOptions options = Mixed(11);
  std::vector<GeneratedEvent> events = Generate(options, 5000);
  const int64_t base = 1780909200000 + 10 * 3600000;  // seed 11: ten hours after seed 1
  int late = 0;
  for (const auto& e : events) {
    int64_t now = base + static_cast<int64_t>(e.sequence);
    if (e.kind == EventKind::kValid || e.kind == EventKind::kMalformed) {
      EXPECT_EQ(e.event_time_ms, now);
    } else if (e.kind == EventKind::kLate) {
      EXPECT_EQ(e.event_time_ms, now - 2 * 3600 * 1000);
      ++late;
    } else {
      EXPECT_LT(e.event_time_ms, now);
    }
  }
  EXPECT_GT(late, 100);
}

TEST(EventGeneratorTest, OrdersMoveThroughStatusesInOrder) {
  std::map<std::string, std::vector<std::string>> statuses;
  for (const auto& e : Generate(EventGeneratorOptions(), 20000)) {
    statuses[e.key].push_back(FieldOf(e.payload, "status"));
  }
  const std::vector<std::string> lifecycle = {"created", "paid", "shipped", "delivered"};
  int complete = 0;
  for (const auto& [order, seen] : statuses) {
    for (size_t i = 0; i < seen.size(); ++i) {
      if (seen[i] == "cancelled") {
        EXPECT_EQ(i + 1, seen.size()) << order;
      } else {
        EXPECT_EQ(seen[i], lifecycle[i]) << order;
      }
    }
    complete += seen.size() == 4;
  }
  EXPECT_GT(complete, 1000);
}

TEST(EventGeneratorTest, FormatsEventTimes) {
  EXPECT_EQ(FormatEventTime(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatEventTime(1780909200001), "2026-06-08T09:00:00.001Z");
  EXPECT_EQ(FormatEventTime(951782400000), "2000-02-29T00:00:00.000Z");
  EXPECT_EQ(FormatEventTime(-1), "1969-12-31T23:59:59.999Z");
}

TEST(EventGeneratorTest, RejectsBadOptions) {
  EventGeneratorOptions options;
  options.duplicate_fraction = 0.6;
  options.malformed_fraction = 0.6;
  ASSERT_STATUS_CODE(kInvalidArgument, ValidateEventGeneratorOptions(options));
  options = {};
  options.late_fraction = -0.1;
  ASSERT_STATUS_CODE(kInvalidArgument, ValidateEventGeneratorOptions(options));
  options = {};
  options.late_by_ms = 0;
  ASSERT_STATUS_CODE(kInvalidArgument, ValidateEventGeneratorOptions(options));
  ASSERT_OK(ValidateEventGeneratorOptions(Mixed(1)));
}

}  // namespace
}  // namespace weir::broker
