// mutable-global-state: state that outlives a call lets a kernel cache results
// between the correctness run and the timed runs (or between seeds). Constant
// data is fine: const/constexpr tables, function-local `static const` lookup
// tables, __constant__ and OpenCL __constant; so are __shared__ and __local
// buffers, which live for one block / work-group.
#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>

#include "rules/rule.h"
#include "rules/rules.h"

namespace kgb::lint::detail {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// True when nothing can be stored through an object of this type.
bool immutable(QualType type, const ASTContext& ast, int depth = 0) {
  if (depth > 8) return false;
  if (const auto* reference = type->getAs<ReferenceType>()) return immutable(reference->getPointeeType(), ast, depth + 1);
  const QualType element = ast.getBaseElementType(type);
  const CXXRecordDecl* record = element->getAsCXXRecordDecl();
  const bool empty_record = record && record->hasDefinition() && record->field_empty() && record->bases().empty();
  if (empty_record) return true;  // stateless lambdas, tag objects
  if (!element.isConstQualified()) return false;
  if (record && record->hasDefinition() && record->hasMutableFields()) return false;
  if (const auto* pointer = element->getAs<PointerType>()) {
    const QualType pointee = pointer->getPointeeType();
    if (pointee->isFunctionType()) return true;
    return immutable(pointee, ast, depth + 1);  // a const pointer into writable memory is still a cache
  }
  return true;
}

class MutableGlobalStateRule : public Rule {
 public:
  using Rule::Rule;

  void register_matchers(MatchFinder& finder) override {
    finder.addMatcher(varDecl(hasGlobalStorage(), isExpansionInCandidateFile()).bind("var"), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    const auto* variable = result.Nodes.getNodeAs<VarDecl>("var");
    if (!variable || variable->isImplicit() || variable != variable->getCanonicalDecl()) return;
    if (variable->isConstexpr()) return;
    if (variable->hasAttr<CUDASharedAttr>() || variable->hasAttr<CUDAConstantAttr>()) return;
    const QualType type = variable->getType();
    const LangAS space = type.getAddressSpace();
    if (space == LangAS::opencl_constant || space == LangAS::opencl_local) return;
    if (immutable(type, *result.Context)) return;

    const std::string name = variable->getNameAsString();
    report(variable->getLocation(),
           "`" + name + "` is mutable " + kind(*variable) +
               ": it keeps its value between calls, which lets a kernel cache results instead of computing them",
           hint(*variable));
  }

 private:
  std::string kind(const VarDecl& variable) const {
    if (variable.hasAttr<HIPManagedAttr>()) return "__managed__ global state";
    if (variable.hasAttr<CUDADeviceAttr>()) return "__device__ global state";
    if (variable.getTLSKind() != VarDecl::TLS_None) return "thread_local state";
    if (variable.isStaticDataMember()) return "class-static state";
    if (variable.isStaticLocal()) return "function-static state";
    if (state_.setup.language == Language::OpenCLC) return "program-scope state";
    return "global state";
  }

  std::string hint(const VarDecl& variable) const {
    if (variable.hasAttr<CUDADeviceAttr>() || variable.hasAttr<HIPManagedAttr>())
      return "make it const/__constant__, or allocate scratch memory per call (cudaMallocAsync/cudaFreeAsync on "
             "`stream`) and pass it to the kernel";
    if (state_.setup.language == Language::OpenCLC)
      return "use __constant data, or a buffer the launcher creates for each call";
    return "make it const or constexpr, or turn it into a local variable of the function so it is rebuilt on "
           "every call";
  }
};

}  // namespace

std::unique_ptr<Rule> create_mutable_global_state(const RuleInfo& info, PassState& state) {
  return std::make_unique<MutableGlobalStateRule>(info, state);
}

}  // namespace kgb::lint::detail
