// entry-signature: the harness calls the entry through a generated declaration
// (kgb::entry_declaration). A different name, linkage or parameter list links
// to nothing or, worse, reads arguments from the wrong registers.
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>

#include "rules/rule.h"
#include "rules/rules.h"

namespace kgb::lint::detail {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class EntrySignatureRule : public Rule {
 public:
  using Rule::Rule;

  void register_matchers(MatchFinder& finder) override {
    // Every entry point of the task: the primary and one per overload.
    for (const Task* entry : state_.setup.task->entries())
      finder.addMatcher(functionDecl(hasName(entry->entry), isExpansionInCandidateFile()).bind("entry"), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    if (const auto* function = result.Nodes.getNodeAs<FunctionDecl>("entry")) candidates_.push_back(function);
  }

  void on_translation_unit(ASTContext& ast) override {
    for (const Task* entry : state_.setup.task->entries()) check_entry(ast, *entry);
  }

 private:
  void check_entry(ASTContext& ast, const Task& task) {
    const std::string expected = entry_declaration(task);
    std::vector<const FunctionDecl*> candidates;
    for (const FunctionDecl* f : candidates_)
      if (f->getNameAsString() == task.entry) candidates.push_back(f);
    const FunctionDecl* definition = nullptr;
    for (const FunctionDecl* f : candidates)
      if (f->isThisDeclarationADefinition()) definition = f;
    if (!definition) {
      if (candidates.empty())
        report_file("the entry point `" + task.entry + "` is not defined; expected: " + expected,
                    "define exactly this function: " + expected);
      else
        report(candidates.front()->getLocation(),
               "the entry point `" + task.entry + "` is declared but not defined; expected: " + expected,
               "give the declaration a body");
      return;
    }
    std::vector<std::string> problems;
    if (!definition->isExternC()) problems.push_back("it is not extern \"C\"");
    if (definition->hasAttr<CUDAGlobalAttr>()) {
      problems.push_back("it is a __global__ kernel; the entry is a host function that launches kernels");
    } else if (definition->hasAttr<CUDADeviceAttr>() && !definition->hasAttr<CUDAHostAttr>()) {
      problems.push_back("it is a __device__ function; the entry runs on the host");
    }
    if (definition->isVariadic()) problems.push_back("it is variadic");
    if (!ast.hasSameType(definition->getReturnType(), ast.IntTy)) problems.push_back("it does not return int");

    const auto expected_types = expected_parameter_types(ast, task);
    if (!expected_types) {
      report(definition->getLocation(),
             "the kgb types of the entry point (kgb_tensor, kgb_stream, ...) are not declared, so it cannot match: " + expected,
             "#include \"kgb_kernel.h\" before the entry point");
      return;
    }
    if (definition->getNumParams() != expected_types->size()) {
      problems.push_back("it takes " + std::to_string(definition->getNumParams()) + " parameters instead of " +
                         std::to_string(expected_types->size()));
    } else {
      for (unsigned i = 0; i < definition->getNumParams(); ++i) {
        const QualType found = definition->getParamDecl(i)->getType().getUnqualifiedType();
        if (!ast.hasSameType(found, (*expected_types)[i]))
          problems.push_back("parameter " + std::to_string(i + 1) + " is `" + found.getAsString() + "`, expected `" +
                             (*expected_types)[i].getAsString() + "`");
      }
    }
    if (problems.empty()) return;
    std::string message = "the entry point does not match the task's declaration: ";
    for (size_t i = 0; i < problems.size(); ++i) message += (i ? "; " : "") + problems[i];
    message += ". Expected: " + expected + " Found: " + found_declaration(*definition, ast);
    report(definition->getLocation(), std::move(message), "declare the entry exactly as: " + expected);
  }
  static std::optional<QualType> lookup_type(ASTContext& ast, const char* name) {
    for (NamedDecl* decl : ast.getTranslationUnitDecl()->lookup(&ast.Idents.get(name)))
      if (const auto* type = dyn_cast<TypeDecl>(decl)) return ast.getTypeDeclType(type);
    return std::nullopt;
  }

  // The parameter types entry_declaration(task) spells, in this AST.
  static std::optional<std::vector<QualType>> expected_parameter_types(ASTContext& ast, const Task& task) {
    const auto tensor = lookup_type(ast, "kgb_tensor");
    const auto stream = lookup_type(ast, "kgb_stream");
    if (!tensor || !stream) return std::nullopt;
    const QualType int64 = lookup_type(ast, "int64_t").value_or(ast.getIntTypeForBitwidth(64, true));
    std::vector<QualType> types;
    auto named = [&](const char* name) { return lookup_type(ast, name); };
    auto pointer = [&](QualType t, bool is_const) { return ast.getPointerType(is_const ? ast.getConstType(t) : t); };
    for (const Param& p : task.params) {
      std::optional<QualType> t;
      switch (p.kind) {
        case ParamKind::Tensor: t = pointer(*tensor, p.role == TensorRole::Input); break;
        case ParamKind::TensorList:
          if (auto list = named("kgb_tensor_list")) t = pointer(*list, p.role == TensorRole::Input);
          break;
        case ParamKind::ScalarOutput:
          if (auto scalar = named("kgb_scalar")) t = pointer(*scalar, false);
          break;
        case ParamKind::Scalar: {
          switch (p.scalar_type) {
            case ScalarType::Int64: t = int64; break;
            case ScalarType::Float64: t = ast.DoubleTy; break;
            case ScalarType::Bool: case ScalarType::Enum: t = ast.IntTy; break;
            case ScalarType::Complex: t = named("kgb_complex"); break;
            case ScalarType::AtenScalar: t = named("kgb_scalar"); break;
            case ScalarType::IntList: t = named("kgb_int_list"); break;
          }
          if (t && p.optional) t = pointer(*t, true);
          break;
        }
      }
      if (!t) return std::nullopt;  // a v2 type the included header does not declare
      types.push_back(*t);
    }
    types.push_back(*stream);
    return types;
  }

  static std::string found_declaration(const FunctionDecl& f, ASTContext& ast) {
    PrintingPolicy policy = ast.getPrintingPolicy();
    policy.SuppressTagKeyword = true;
    std::string out = f.isExternC() ? "extern \"C\" " : "";
    out += f.getReturnType().getAsString(policy) + " " + f.getNameAsString() + "(";
    for (unsigned i = 0; i < f.getNumParams(); ++i) {
      const ParmVarDecl* p = f.getParamDecl(i);
      out += (i ? ", " : "") + p->getOriginalType().getAsString(policy);
      if (!p->getName().empty()) out += " " + p->getNameAsString();
    }
    return out + ");";
  }

  std::vector<const FunctionDecl*> candidates_;
};

}  // namespace

std::unique_ptr<Rule> create_entry_signature(const RuleInfo& info, PassState& state) {
  return std::make_unique<EntrySignatureRule>(info, state);
}

}  // namespace kgb::lint::detail
