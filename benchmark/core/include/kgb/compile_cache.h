// Successful candidate builds kept in the evaluating process's memory, so an
// identical resubmission (an agent's compile tool, then run, then submit on
// the same kernel; a model repeating itself) skips the compiler.
//
// The key is everything the build's output depends on: the source and the
// generated glue, the substituted compile and link commands, PATH, and the
// identity (path, size, modification time) of every file those commands name
// (the compiler, the runner library, response files). A hit writes the object
// and the executable back into the new work folder from the process's own
// memory, which candidate code never reaches; nothing is shared through the
// file system, so a kernel cannot plant an artefact for a later evaluation.
// The symbol check is not cached: it runs again on the object.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kgb/byte_bounded_cache.h"
#include "kgb/diagnostic.h"

namespace kgb {

struct CompiledBuild {
  std::string object, executable;  // file contents; executable empty when nothing was linked
  bool linked = false;
  std::vector<Diagnostic> diagnostics;  // warnings of the original build
  std::string log;
  uint64_t bytes() const { return object.size() + executable.size() + log.size(); }
};

class CompileCache : public ByteBoundedCache<CompiledBuild> {
 public:
  explicit CompileCache(uint64_t max_bytes) : ByteBoundedCache(max_bytes) {}

  // The key of one build: `commands` are the substituted argv of each step.
  // The whole text, length-prefixed, not a digest: two builds share a key
  // only when every input is equal.
  static std::string key(const std::string& platform, const std::string& source, const std::string& glue,
                         const std::vector<std::vector<std::string>>& commands);

  // The process-wide cache compile_candidate uses: KGB_COMPILE_CACHE_MB
  // (default 256; 0 turns it off).
  static CompileCache* process_cache();
};

}  // namespace kgb
