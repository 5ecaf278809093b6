// extra-concurrency: work must run on the stream (queue) the entry receives
// and be finished or enqueued there when the entry returns. Threads, streams,
// graphs, host callbacks and extra queues let work escape the measurement.
// OpenMP stays allowed on CPUs: its parallel regions join before returning.
#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>

#include "rules/name_rule.h"
#include "rules/rules.h"

namespace kgb::lint::detail {

NameRuleSpec extra_concurrency_spec(const RuleSetup& setup) {
  NameRuleSpec spec;
  spec.patterns = NamePatterns{
      "std::thread", "!std::thread::hardware_concurrency", "!std::thread::id", "std::jthread", "std::async",
      "std::packaged_task", "std::execution", "pthread_create", "pthread_detach", "thrd_create", "tbb::",
  };
  if (setup.device_backend()) {
    spec.patterns.add_all({
        "cudaStreamCreate*", "cudaStreamBeginCapture*", "cudaStreamEndCapture", "cudaThreadExchangeStreamCaptureMode",
        "cudaGraph*", "cudaLaunchHostFunc", "cudaStreamAddCallback", "cudaStreamWaitEvent", "cudaSetDevice",
        "cudaDeviceReset", "cudaStreamPerThread", "cudaStreamLegacy", "cudaLaunchDevice*", "cuStreamCreate*",
        "cuStreamBeginCapture*", "cuGraph*", "cuLaunchHostFunc", "cuStreamAddCallback", "cuCtxCreate*",
        "cuCtxSetCurrent", "cuCtxPushCurrent*", "hipStreamCreate*", "hipStreamBeginCapture*", "hipGraph*",
        "hipLaunchHostFunc", "hipStreamAddCallback", "hipStreamWaitEvent", "hipSetDevice", "hipDeviceReset",
        "hipStreamPerThread", "clCreateCommandQueue*", "clCreateContext*", "clEnqueueNativeKernel",
        "clSetEventCallback", "clCreateUserEvent", "clSetUserEventStatus",
    });
    spec.defined_macros = NamePatterns{"CUDA_API_PER_THREAD_DEFAULT_STREAM", "HIP_API_PER_THREAD_DEFAULT_STREAM"};
  }
  spec.patterns.add_all(split_list(setup.option("extra-concurrency", "extra", "")));
  spec.what = setup.device_backend() ? "extra concurrency (a thread, stream, graph, callback or queue of its own)"
                                     : "extra concurrency (a thread of its own)";
  spec.reason = "all work must run on the stream the entry receives and be complete or enqueued there when it returns";
  spec.hint = setup.backend == "cpu" ? "parallelise with OpenMP (#pragma omp parallel for) instead of threads"
                                     : "issue every kernel and copy on the `stream` argument";
  return spec;
}

namespace {

class ExtraConcurrencyRule : public NameRule {
 public:
  using NameRule::NameRule;

  void register_matchers(clang::ast_matchers::MatchFinder& finder) override {
    NameRule::register_matchers(finder);
    using namespace clang::ast_matchers;
    if (state_.setup.language == Language::Cuda || state_.setup.language == Language::Hip)
      finder.addMatcher(cudaKernelCallExpr(isExpansionInCandidateFile()).bind("launch"), this);
  }

  void check(const clang::ast_matchers::MatchFinder::MatchResult& result) override {
    const auto* launch = result.Nodes.getNodeAs<clang::CUDAKernelCallExpr>("launch");
    if (!launch) {
      NameRule::check(result);
      return;
    }
    // A launch from device code (dynamic parallelism) starts work no stream of the entry orders.
    const clang::FunctionDecl* caller = enclosing_function(*result.Context, *launch);
    if (caller && !caller->hasAttr<clang::CUDAHostAttr>() &&
        (caller->hasAttr<clang::CUDAGlobalAttr>() || caller->hasAttr<clang::CUDADeviceAttr>()))
      report(launch->getBeginLoc(),
             "kernel launch from device code (dynamic parallelism) is " + spec_.what + ": " + spec_.reason,
             "launch every kernel from the host entry point on `stream`", "device-launch");
  }

 private:
  static const clang::FunctionDecl* enclosing_function(clang::ASTContext& ast, const clang::Stmt& statement) {
    clang::DynTypedNodeList parents = ast.getParents(statement);
    while (!parents.empty()) {
      if (const auto* function = parents[0].get<clang::FunctionDecl>()) return function;
      if (const auto* lambda = parents[0].get<clang::LambdaExpr>()) return lambda->getCallOperator();
      parents = ast.getParents(parents[0]);
    }
    return nullptr;
  }
};

}  // namespace

std::unique_ptr<Rule> create_extra_concurrency(const RuleInfo& info, PassState& state) {
  return std::make_unique<ExtraConcurrencyRule>(info, state, extra_concurrency_spec(state.setup));
}

}  // namespace kgb::lint::detail
