// libFuzzer target for Delta commit-file parsing (delta/actions.h): arbitrary bytes as a commit
// file must yield actions or a Corruption status, never a crash, hang or sanitizer report. Parsed
// actions must serialize and re-parse to the same text (the writer's output is always readable),
// and replaying them into a table state must be safe. The same bytes are also tried as a
// _last_checkpoint hint and as a log file name.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "delta/actions.h"
#include "delta/log_path.h"
#include "delta/log_replay.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = weir::delta::ParseActions(text, "fuzz.json");
  if (parsed.ok()) {
    weir::delta::TableState state;
    for (const auto& action : *parsed) {
      if (const auto* add = std::get_if<weir::delta::AddFile>(&action)) (void)add->NumRecords();
      state.Apply(weir::delta::Action(action));  // a copy: the actions are serialized below
    }
    std::string serialized = weir::delta::SerializeActions(*parsed);
    auto again = weir::delta::ParseActions(serialized, "reserialized.json");
    if (!again.ok()) std::abort();  // weir must read back what it writes
    if (weir::delta::SerializeActions(*again) != serialized) std::abort();
  } else if (!parsed.status().IsCorruption()) {
    std::abort();  // malformed input is Corruption, nothing else
  }
  auto hint = weir::delta::ParseLastCheckpoint(text, "_last_checkpoint");
  if (hint.ok()) (void)weir::delta::SerializeLastCheckpoint(*hint);
  (void)weir::delta::ParseLogFileName(text);
  (void)weir::delta::DecodePathUri(weir::delta::EncodePathUri(text));
  return 0;
}
