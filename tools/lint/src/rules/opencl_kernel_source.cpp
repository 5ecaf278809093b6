// opencl-kernel-source: an OpenCL candidate is a C++ launcher with its OpenCL C
// program embedded as a string literal. The rule finds those programs (see
// lint.h, "OpenCL candidates") so the device code is parsed and checked like
// any other; a launcher that builds or launches kernels but whose program
// cannot be found is rejected. A launcher that uses no program or kernel API
// at all (a view that only describes metadata, item() reading one element
// with clEnqueueReadBuffer) has no device code to check.
#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/Lex/Lexer.h>

#include "rules/rule.h"
#include "rules/rules.h"

namespace kgb::lint::detail {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool word_at(const std::string& text, size_t at, std::string_view word) {
  if (text.compare(at, word.size(), word) != 0) return false;
  if (at > 0 && identifier_char(text[at - 1])) return false;
  const size_t end = at + word.size();
  return end >= text.size() || !identifier_char(text[end]);
}

// The kgb_cl_* helpers that touch no program or kernel: buffers, queue and
// device facts. Every other kgb_cl_* function builds, sets up or enqueues a
// kernel (kgb_cl_get_kernel, kgb_cl_set_tensor_arg, kgb_cl_enqueue, ...).
constexpr std::array<std::string_view, 8> kDataOnlyHelpers = {
    "kgb_cl_tensor_buffer", "kgb_cl_tensor_list_buffers", "kgb_cl_get_context", "kgb_cl_get_device",
    "kgb_cl_get_queue",     "kgb_cl_device_type",         "kgb_cl_local_mem_size", "kgb_cl_has_fp64"};

// Whether calling `name` means the launcher runs device code of its own.
bool builds_or_launches_kernels(std::string_view name) {
  if (name.rfind("kgb_cl_", 0) == 0)
    return std::find(kDataOnlyHelpers.begin(), kDataOnlyHelpers.end(), name) == kDataOnlyHelpers.end();
  const bool opencl_api = name.size() > 2 && name.rfind("cl", 0) == 0 && std::isupper(static_cast<unsigned char>(name[2]));
  return opencl_api && (name.find("Program") != std::string_view::npos || name.find("Kernel") != std::string_view::npos);
}

}  // namespace

// True when the text defines an OpenCL kernel: `__kernel` or `kernel`, then
// (after attributes) `void`.
bool defines_opencl_kernel(const std::string& text) {
  const auto skip_space = [&](size_t at) {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    return at;
  };
  for (size_t at = text.find("kernel"); at != std::string::npos; at = text.find("kernel", at + 1)) {
    const bool underscored = at >= 2 && text.compare(at - 2, 2, "__") == 0;
    if (!word_at(text, underscored ? at - 2 : at, underscored ? "__kernel" : "kernel")) continue;
    size_t next = skip_space(at + 6);
    while (text.compare(next, 13, "__attribute__") == 0) {  // __attribute__((reqd_work_group_size(...)))
      next = skip_space(next + 13);
      int depth = 0;
      do {
        if (next >= text.size()) return false;
        if (text[next] == '(') ++depth;
        if (text[next] == ')') --depth;
        ++next;
      } while (depth > 0);
      next = skip_space(next);
    }
    if (word_at(text, next, "void")) return true;
  }
  return false;
}

namespace {

class OpenCLKernelSourceRule : public Rule {
 public:
  using Rule::Rule;

  void register_matchers(MatchFinder& finder) override {
    finder.addMatcher(stringLiteral(isExpansionInCandidateFile()).bind("literal"), this);
    finder.addMatcher(declRefExpr(isExpansionInCandidateFile(), to(functionDecl().bind("callee"))), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    if (const auto* callee = result.Nodes.getNodeAs<FunctionDecl>("callee")) {
      if (callee->getDeclName().isIdentifier() && builds_or_launches_kernels(callee->getName())) runs_device_code_ = true;
      return;
    }
    const auto* literal = result.Nodes.getNodeAs<StringLiteral>("literal");
    if (!literal || !(literal->isOrdinary() || literal->isUTF8())) return;
    std::string text = literal->getString().str();
    if (!defines_opencl_kernel(text)) return;
    const SourceManager& sources = *result.SourceManager;
    const unsigned piece = first_piece_in_launcher(*literal, sources);
    const int line = content_line(*literal, piece, sources);
    if (!seen_lines_.insert(line).second) return;
    // Text from a macro in front of the program (kgb_half.h's
    // KGB_CL_HALF_SOURCE) gets a #line of its own, named after the macro,
    // so the program's lines still map to the launcher's.
    std::string prefix;
    if (piece > 0) {
      const size_t length = bytes_before_piece(*literal, piece, sources, *result.Context);
      const std::string macro = Lexer::getImmediateMacroName(literal->getStrTokenLoc(0), sources,
                                                             result.Context->getLangOpts()).str();
      prefix = "#line 1 \"" + (macro.empty() ? std::string("macro") : macro) + "\"\n" + text.substr(0, length);
      if (!prefix.empty() && prefix.back() != '\n') prefix += '\n';
      text.erase(0, length);
    }
    EmbeddedProgram program;
    program.line = line;
    program.text = prefix + "#line " + std::to_string(line) + " \"" + state_.setup.main_path + ".opencl\"\n";
    program.candidate_offset = program.text.size();
    program.text += text;
    if (state_.programs) state_.programs->push_back(std::move(program));
  }

  void on_translation_unit(ASTContext&) override {
    if (!seen_lines_.empty() || !runs_device_code_) return;
    report_file("no OpenCL C program was found: the launcher must embed its kernels as a string literal that "
                "defines a `__kernel void` function",
                "put the OpenCL C source in a raw string literal, e.g. static const char kSource[] = R\"CLC( "
                "__kernel void k(...) { ... } )CLC\"; and build it with the kgb_cl_* helpers");
  }

 private:
  // The literal's first piece written in the launcher: pieces in front of it
  // come from macros (KGB_CL_HALF_SOURCE is spelled in kgb_half.h and in the
  // preprocessor's scratch space).
  static unsigned first_piece_in_launcher(const StringLiteral& literal, const SourceManager& sources) {
    unsigned piece = 0;
    while (piece + 1 < literal.getNumConcatenated() &&
           !sources.isWrittenInMainFile(sources.getSpellingLoc(literal.getStrTokenLoc(piece))))
      ++piece;
    return piece;
  }

  // How many bytes of the literal's value the pieces before `piece` hold
  // (the first byte that Clang places in `piece` or later).
  static size_t bytes_before_piece(const StringLiteral& literal, unsigned piece, const SourceManager& sources,
                                   const ASTContext& context) {
    size_t low = 0, high = literal.getLength();
    while (low < high) {
      const size_t mid = (low + high) / 2;
      unsigned token = 0, offset = 0;
      literal.getLocationOfByte(static_cast<unsigned>(mid), sources, context.getLangOpts(), context.getTargetInfo(),
                                &token, &offset);
      if (token < piece) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  // The launcher line of the first character of content of the literal's
  // piece `piece`.
  static int content_line(const StringLiteral& literal, unsigned piece, const SourceManager& sources) {
    const SourceLocation token = sources.getSpellingLoc(literal.getStrTokenLoc(piece));
    bool invalid = false;
    const char* data = sources.getCharacterData(token, &invalid);
    unsigned offset = 0;
    if (!invalid) {
      while (data[offset] && data[offset] != '"' && offset < 8) ++offset;
      const bool raw = offset > 0 && data[offset - 1] == 'R';
      ++offset;
      if (raw) {
        while (data[offset] && data[offset] != '(' && offset < 32) ++offset;
        if (data[offset] == '(') ++offset;
      }
    }
    const PresumedLoc presumed = sources.getPresumedLoc(token.getLocWithOffset(static_cast<int>(offset)));
    return presumed.isValid() ? static_cast<int>(presumed.getLine()) : 1;
  }

  std::set<int> seen_lines_;
  bool runs_device_code_ = false;  // a program or kernel API is referenced
};

}  // namespace

std::unique_ptr<Rule> create_opencl_kernel_source(const RuleInfo& info, PassState& state) {
  return std::make_unique<OpenCLKernelSourceRule>(info, state);
}

}  // namespace kgb::lint::detail
