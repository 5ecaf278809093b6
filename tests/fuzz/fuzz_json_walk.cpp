// The streaming JSON walker against nlohmann::json::accept, which it promises
// to agree with (strict RFC 8259, UTF-8 checked, lone surrogates refused):
// any disagreement, crash or sanitizer report is a finding. One known
// difference: nlohmann's lexer takes a NUL byte for the end of the input
// (it accepts "2\n\0\x04"); a raw NUL is never valid JSON, so the walker must
// refuse every text that holds one (corpus: nul_after_value.json).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "json_walk.h"

namespace {

class CountingWalker : public kgb::llm::wire::JsonWalker {
 public:
  std::size_t scalars = 0, containers = 0;

 protected:
  void scalar(const kgb::llm::wire::JsonScalar&) override { ++scalars; }
  void opened(bool) override { ++containers; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static CountingWalker walker;  // reused, as the decoders reuse theirs
  const bool walked = walker.walk(text);
  if (text.find('\0') != std::string_view::npos) {
    if (walked) std::abort();
    return 0;
  }
  if (walked != nlohmann::json::accept(text)) std::abort();
  return 0;
}
