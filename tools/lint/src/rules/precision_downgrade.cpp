// precision-downgrade: computing a float or double task in half, bfloat16,
// tf32 or fp8 is faster and usually still passes loose tolerances. Half and
// bfloat16 are fine when the task has such a dtype; tf32 and fp8 never are.
// A warning, with the location, for the model and the record.
#include <clang/AST/ExprCXX.h>
#include <clang/AST/TypeLoc.h>
#include <clang/Lex/PPCallbacks.h>

#include "patterns.h"
#include "rules/name_rule.h"
#include "rules/rules.h"

namespace kgb::lint::detail {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

enum class Format { Half, BFloat16, TF32, FP8 };

const char* format_name(Format f) {
  switch (f) {
    case Format::Half: return "half precision (f16)";
    case Format::BFloat16: return "bfloat16";
    case Format::TF32: return "tf32";
    case Format::FP8: return "fp8";
  }
  return "";
}

class PrecisionDowngradeRule;

class PragmaCallbacks : public PPCallbacks {
 public:
  explicit PragmaCallbacks(PrecisionDowngradeRule& rule) : rule_(rule) {}
  void PragmaOpenCLExtension(SourceLocation location, const IdentifierInfo* name, SourceLocation,
                             unsigned state) override;

 private:
  PrecisionDowngradeRule& rule_;
};

class PrecisionDowngradeRule : public Rule {
 public:
  PrecisionDowngradeRule(const RuleInfo& info, PassState& state) : Rule(info, state) {
    const Task& task = *state.setup.task;
    for (DType d : task.dtypes) note_allowed(d);
    // Tensor lists count like tensors: an f16 pointer array (blas/hgemm_batched) makes f16 the job.
    for (const Param& p : task.params)
      if (p.is_tensor() || p.is_list())
        if (auto d = parse_dtype(p.dtype)) note_allowed(*d);
    for (const Param& p : task.params)
      if ((p.is_tensor() || p.is_list()) && p.dtype != "T" && !parse_dtype(p.dtype)) half_allowed_ = bf16_allowed_ = true;
  }

  void register_pp_callbacks(Preprocessor& preprocessor) override {
    preprocessor.addPPCallbacks(std::make_unique<PragmaCallbacks>(*this));
  }

  void register_matchers(MatchFinder& finder) override {
    finder.addMatcher(typeLoc(isExpansionInCandidateFile()).bind("type"), this);
    finder.addMatcher(declRefExpr(isExpansionInCandidateFile(), to(functionDecl())).bind("ref"), this);
    finder.addMatcher(stmt(asmStmt(), isExpansionInCandidateFile()).bind("asm"), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    if (const auto* type = result.Nodes.getNodeAs<TypeLoc>("type")) {
      if (auto format = format_of_type(type->getType())) flag(type->getBeginLoc(), *format, "type `" + spelled(*type) + "`");
    } else if (const auto* ref = result.Nodes.getNodeAs<DeclRefExpr>("ref")) {
      const std::string name = qualified_name(ref->getDecl());
      if (auto format = format_of_function(name)) flag(ref->getLocation(), *format, "`" + name + "`");
    } else if (const auto* statement = result.Nodes.getNodeAs<AsmStmt>("asm")) {
      if (const auto* gcc = dyn_cast<GCCAsmStmt>(statement); gcc && gcc->getAsmString())
        if (auto format = format_of_asm(gcc->getAsmString()->getString().str()))
          flag(gcc->getBeginLoc(), *format, "inline PTX");
    }
  }

  void on_opencl_extension(SourceLocation location, const std::string& name, unsigned state) {
    if (state && name == "cl_khr_fp16" && in_main_file(location)) flag(location, Format::Half, "cl_khr_fp16");
  }

 private:
  void note_allowed(DType d) {
    if (d == DType::F16) half_allowed_ = true;
    if (d == DType::BF16) bf16_allowed_ = true;
  }

  bool allowed(Format f) const {
    return (f == Format::Half && half_allowed_) || (f == Format::BFloat16 && bf16_allowed_);
  }

  void flag(SourceLocation location, Format format, const std::string& what) {
    if (allowed(format)) return;
    const Task& task = *state_.setup.task;
    std::string dtypes;
    for (DType d : task.dtypes) dtypes += (dtypes.empty() ? "" : ", ") + std::string(dtype_name(d));
    std::string message = what + " computes in " + format_name(format) + ", but task " + task.id;
    message += dtypes.empty() ? " has no such dtype" : " has dtypes " + dtypes;
    message += ": results lose precision the tolerances are not meant to absorb";
    report(location, std::move(message), "compute in the tensors' own dtype (float for f32, double for f64)",
           format_name(format));
  }

  static std::string spelled(const TypeLoc& type) {
    return type.getType().getUnqualifiedType().getAsString();
  }

  static std::optional<Format> format_of_type(QualType type) {
    if (type.isNull()) return std::nullopt;
    const Type* t = type.getTypePtr();
    if (const auto* vector = t->getAs<VectorType>()) return format_of_type(vector->getElementType());
    if (const auto* builtin = dyn_cast<BuiltinType>(t->getCanonicalTypeInternal().getTypePtr())) {
      switch (builtin->getKind()) {
        case BuiltinType::Half:
        case BuiltinType::Float16: return Format::Half;
        case BuiltinType::BFloat16: return Format::BFloat16;
        default: return std::nullopt;
      }
    }
    if (const auto* record = t->getAsRecordDecl()) {
      const std::string name = qualified_name(record);
      if (name == "__half" || name == "__half2" || name == "__half_raw" || name == "__half2_raw") return Format::Half;
      if (name.find("bfloat16") != std::string::npos) return Format::BFloat16;
      if (name.rfind("__nv_fp8", 0) == 0 || name.rfind("__hip_fp8", 0) == 0) return Format::FP8;
      if (name == "nvcuda::wmma::precision::tf32") return Format::TF32;
    }
    return std::nullopt;
  }

  static std::optional<Format> format_of_function(const std::string& name) {
    static const NamePatterns half{"__float2half*", "__float22half2*", "__floats2half2*", "__double2half*",
                                   "__half2float", "_mm*_cvtps_ph", "_cvtss_sh", "vstore_half*", "vstorea_half*",
                                   "convert_half*", "vcvt_f16_f32", "vcvtq_f16_f32"};
    static const NamePatterns bf16{"__float2bfloat16*", "__float22bfloat162*", "__floats2bfloat162*",
                                   "__double2bfloat16*", "_mm*_cvtneps_pbh", "_mm*_cvtne2ps_pbh", "_mm*_dpbf16_ps",
                                   "vcvt_bf16_f32", "vcvtq_low_bf16_f32"};
    static const NamePatterns tf32{"nvcuda::wmma::__float_to_tf32", "__float_to_tf32", "__nv_cvt_float_to_tf32"};
    static const NamePatterns fp8{"__nv_cvt_float_to_fp8*", "__nv_cvt_float2_to_fp8x2*", "__nv_cvt_double_to_fp8*",
                                  "__nv_cvt_halfraw_to_fp8*", "__nv_cvt_bfloat16raw_to_fp8*"};
    if (!half.match(name).empty()) return Format::Half;
    if (!bf16.match(name).empty()) return Format::BFloat16;
    if (!tf32.match(name).empty()) return Format::TF32;
    if (!fp8.match(name).empty()) return Format::FP8;
    return std::nullopt;
  }

  static std::optional<Format> format_of_asm(const std::string& text) {
    if (text.find(".tf32") != std::string::npos) return Format::TF32;
    if (text.find(".e4m3") != std::string::npos || text.find(".e5m2") != std::string::npos) return Format::FP8;
    if (text.find(".bf16") != std::string::npos) return Format::BFloat16;
    if (text.find(".f16") != std::string::npos) return Format::Half;
    return std::nullopt;
  }

  bool half_allowed_ = false;
  bool bf16_allowed_ = false;
};

void PragmaCallbacks::PragmaOpenCLExtension(SourceLocation location, const IdentifierInfo* name, SourceLocation,
                                            unsigned state) {
  if (name) rule_.on_opencl_extension(location, name->getName().str(), state);
}

}  // namespace

std::unique_ptr<Rule> create_precision_downgrade(const RuleInfo& info, PassState& state) {
  return std::make_unique<PrecisionDowngradeRule>(info, state);
}

}  // namespace kgb::lint::detail
