// The code-block extractor on arbitrary model replies: every reply ends in an
// ExtractedCode whose code is within the limit and, when fenced, part of the reply.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "kgb/agent/extract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  kgb::agent::ExtractOptions options;
  options.entry = "kgb_kernel";
  options.language = data[0] & 1 ? "cuda" : "cpp";
  options.reply_was_cut = (data[0] & 2) != 0;
  options.max_code_bytes = data[0] & 4 ? 64 : 256 * 1024;
  const std::string_view reply(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto code = kgb::agent::extract_code(reply, options);
  if (code.status == kgb::agent::ExtractStatus::Ok && code.code.size() > options.max_code_bytes) std::abort();
  (void)kgb::agent::extract_status_name(code.status);
  return 0;
}
