// launch-stream: the harness orders, times and synchronises the stream the
// entry receives. Work on the default stream may escape the timing or race
// with the harness's own copies; a warning tells the model where.
#include <clang/AST/ExprCXX.h>

#include "rules/rule.h"
#include "rules/rules.h"

namespace kgb::lint::detail {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class LaunchStreamRule : public Rule {
 public:
  using Rule::Rule;

  void register_matchers(MatchFinder& finder) override {
    finder.addMatcher(cudaKernelCallExpr(isExpansionInCandidateFile()).bind("launch"), this);
    finder.addMatcher(
        callExpr(isExpansionInCandidateFile(),
                 callee(functionDecl(matchesName("^::(cuda|hip)(Memcpy|Memset|MemcpyToSymbol|MemcpyFromSymbol|"
                                                 "Memcpy2D|Memset2D|Malloc|Free|LaunchKernel|LaunchCooperativeKernel)"
                                                 "(Async)?(_ptsz|_ptds|_spt)?$"))
                            .bind("api")))
            .bind("call"),
        this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    ASTContext& ast = *result.Context;
    if (const auto* launch = result.Nodes.getNodeAs<CUDAKernelCallExpr>("launch")) {
      const auto* config = launch->getConfig();
      if (!config || config->getNumArgs() < 4) return;
      if (const char* problem = default_stream(config->getArg(3), ast))
        report(launch->getBeginLoc(), std::string("kernel launch ") + problem,
               "pass the entry's stream as the fourth launch parameter: kernel<<<grid, block, shared_bytes, "
               "(cudaStream_t)stream>>>(...)");
      return;
    }
    const auto* call = result.Nodes.getNodeAs<CallExpr>("call");
    const auto* api = result.Nodes.getNodeAs<FunctionDecl>("api");
    if (!call || !api) return;
    const std::string name = api->getNameAsString();
    const bool asynchronous = name.find("Async") != std::string::npos || name.find("LaunchKernel") != std::string::npos ||
                              name.find("LaunchCooperativeKernel") != std::string::npos;
    if (!asynchronous) {
      // Plain allocation is ordered by the device, not by a stream; copies and sets are.
      if (name.find("Malloc") != std::string::npos || name.find("Free") != std::string::npos) return;
      report(call->getBeginLoc(),
             "`" + name + "` runs synchronously on the legacy default stream, outside the stream the entry received",
             "use the Async variant on the entry's stream", name);
      return;
    }
    for (unsigned i = 0; i < api->getNumParams() && i < call->getNumArgs(); ++i) {
      if (api->getParamDecl(i)->getName() != "stream") continue;
      if (const char* problem = default_stream(call->getArg(i), ast))
        report(call->getBeginLoc(), "`" + name + "` " + problem, "pass the entry's stream", name);
    }
  }

 private:
  static const char* default_stream(const Expr* stream, ASTContext& ast) {
    if (!stream) return nullptr;
    if (isa<CXXDefaultArgExpr>(stream)) return "has no stream argument, so it runs on the default stream";
    if (stream->isValueDependent()) return nullptr;
    const char* zero = "uses stream 0, the default stream, instead of the stream the entry received";
    if (stream->IgnoreParenImpCasts()->isNullPointerConstant(ast, Expr::NPC_ValueDependentIsNotNull)) return zero;
    // (cudaStream_t)0 and friends are not null pointer constants in C++, but constant nulls all the same.
    Expr::EvalResult value;
    if (stream->EvaluateAsRValue(value, ast) && value.Val.isLValue() && value.Val.isNullPointer()) return zero;
    return nullptr;
  }
};

}  // namespace

std::unique_ptr<Rule> create_launch_stream(const RuleInfo& info, PassState& state) {
  return std::make_unique<LaunchStreamRule>(info, state);
}

}  // namespace kgb::lint::detail
