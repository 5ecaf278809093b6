// The binary half of L1: whatever the source rules missed (token pasting,
// macros, inline declarations, asm labels) ends up as an undefined symbol in
// the object, read here with LLVM's object library.
#include <regex>
#include <set>

#include <llvm/Demangle/Demangle.h>
#include <llvm/Object/Archive.h>
#include <llvm/Object/Binary.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>

#include "defaults.h"
#include "kgb/lint.h"

namespace kgb::lint {
namespace {

struct CompiledPattern {
  std::string text;
  std::regex regex;
};

std::vector<CompiledPattern> compile_patterns(const std::vector<std::string>& patterns, std::vector<Finding>& findings) {
  std::vector<CompiledPattern> out;
  for (const auto& p : patterns) {
    try {
      out.push_back({p, std::regex(p, std::regex::ECMAScript | std::regex::optimize)});
    } catch (const std::regex_error& e) {
      findings.push_back({"symbol-check-failed", "L1", "reject",
                          "the symbol allowlist pattern `" + p + "` is not a valid regular expression: " + e.what(),
                          "platform descriptor"});
    }
  }
  return out;
}

bool allowed(const ObjectSymbol& symbol, const std::vector<CompiledPattern>& patterns) {
  for (const auto& p : patterns)
    if (std::regex_match(symbol.name, p.regex) || std::regex_match(symbol.demangled, p.regex)) return true;
  return false;
}

void collect(const llvm::object::ObjectFile& object, SymbolReport& report) {
  for (const llvm::object::SymbolRef& symbol : object.symbols()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (!flags || !name) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(name.takeError());
      continue;
    }
    if (name->empty() || (*flags & llvm::object::SymbolRef::SF_FormatSpecific)) continue;
    ObjectSymbol entry;
    entry.name = name->str();
    entry.demangled = llvm::demangle(entry.name);
    entry.weak = (*flags & llvm::object::SymbolRef::SF_Weak) != 0;
    if (*flags & llvm::object::SymbolRef::SF_Undefined) {
      report.undefined.push_back(std::move(entry));
    } else if (*flags & (llvm::object::SymbolRef::SF_Global | llvm::object::SymbolRef::SF_Weak)) {
      report.defined.push_back(std::move(entry));
    }
  }
}

}  // namespace

SymbolReport inspect_object_symbols(const std::filesystem::path& object, const Platform& platform,
                                    const std::string& entry, const std::vector<std::string>& extra_allowed) {
  SymbolReport report;
  const std::string location = object.filename().string();
  auto binary = llvm::object::createBinary(object.string());
  if (!binary) {
    report.error = llvm::toString(binary.takeError());
  } else if (auto* file = llvm::dyn_cast<llvm::object::ObjectFile>(binary->getBinary())) {
    collect(*file, report);
    report.readable = true;
  } else if (auto* archive = llvm::dyn_cast<llvm::object::Archive>(binary->getBinary())) {
    llvm::Error error = llvm::Error::success();
    for (const auto& child : archive->children(error)) {
      auto member = child.getAsBinary();
      if (!member) {
        llvm::consumeError(member.takeError());
        continue;
      }
      if (auto* member_object = llvm::dyn_cast<llvm::object::ObjectFile>(member->get())) collect(*member_object, report);
    }
    if (error) report.error = llvm::toString(std::move(error));
    else report.readable = true;
  } else {
    report.error = "not an object file or archive";
  }
  if (!report.readable) {
    report.findings.push_back({"symbol-check-failed", "L1", "reject",
                               "the compiled object could not be read for the symbol check: " + report.error, location});
    return report;
  }

  std::vector<std::string> patterns = detail::effective_allowed_symbols(platform);
  patterns.insert(patterns.end(), extra_allowed.begin(), extra_allowed.end());
  const auto compiled = compile_patterns(patterns, report.findings);

  // Symbols the object defines satisfy its own references (multi-object archives).
  std::set<std::string> defined_names;
  for (const auto& d : report.defined) defined_names.insert(d.name);
  for (const auto& u : report.undefined) {
    if (defined_names.count(u.name) || allowed(u, compiled)) continue;
    const std::string shown = u.demangled == u.name ? u.name : u.demangled + " (" + u.name + ")";
    report.findings.push_back(
        {"symbol-allowlist", "L1", "reject",
         "the object calls `" + shown + "`, which is not on the " + platform.backend + " allowlist of " +
             (platform.name.empty() ? std::string("this platform") : platform.name) +
             ": kernels may use the C/C++ runtime, math and their backend's launch API only. Fix: remove the call "
             "(macros and token pasting end up here too)",
         location + ":" + u.name});
  }
  // A global C-linkage definition can take the place of a runtime function the
  // harness itself calls once everything is linked into one program (its
  // allocator, clock_gettime, cudaEventElapsedTime, the runner's entry points).
  // A candidate exports its entry point and nothing else under a C name;
  // C++ names are its own or template instances, except the replaceable
  // global operators new and delete.
  static const std::regex replaceable_operator("_Z(nw|na|dl|da)\\w*");
  for (const auto& d : report.defined) {
    if (d.name == entry || d.name.find('.') != std::string::npos) continue;  // '.': compiler-generated
    const bool mangled = d.name.rfind("_Z", 0) == 0;
    // The standard library's clocks are what the runner times with: a
    // definition in the candidate (an asm label spells any name) replaces them.
    const bool std_clock = d.name.rfind("_ZNSt6chrono", 0) == 0 || d.name.rfind("_ZNKSt6chrono", 0) == 0;
    if (mangled && !std_clock && !std::regex_match(d.name, replaceable_operator)) continue;
    const bool runtime_kgb = d.name.rfind("kgb_cl_", 0) == 0 || d.name.rfind("kgb_runner_", 0) == 0;
    if (!mangled && entry.empty() && d.name.rfind("kgb_", 0) == 0 && !runtime_kgb) continue;
    report.findings.push_back(
        {"symbol-interposition", "L1", "reject",
         "the object defines the global symbol `" + d.demangled + "`" +
             (std_clock ? " (a clock of the standard library)" : mangled ? " (a replacement of the global allocation operator)" : "") +
             ": once linked with the harness it could replace a function of the C library, the device runtime or "
             "the runner. Fix: make helpers static (or put them in an anonymous namespace) and export only the "
             "entry point",
         location + ":" + d.name});
  }
  return report;
}

std::vector<Finding> check_object_symbols(const std::filesystem::path& object, const Platform& platform) {
  return inspect_object_symbols(object, platform).findings;
}

}  // namespace kgb::lint
