#include "rules/name_rule.h"

#include <algorithm>

#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/TypeLoc.h>
#include <clang/Lex/MacroInfo.h>
#include <clang/Lex/PPCallbacks.h>

namespace kgb::lint::detail {

using namespace clang;
using namespace clang::ast_matchers;

std::string qualified_name(const NamedDecl* decl) {
  if (const auto* alias = decl->getAttr<AliasAttr>()) return alias->getAliasee().str();
  if (const auto* weakref = decl->getAttr<WeakRefAttr>(); weakref && !weakref->getAliasee().empty())
    return weakref->getAliasee().str();
  if (const auto* label = decl->getAttr<AsmLabelAttr>()) return label->getLabel().str();
  if (const auto* function = dyn_cast<FunctionDecl>(decl); function && function->isExternC())
    return function->getNameAsString();
  if (const auto* variable = dyn_cast<VarDecl>(decl); variable && variable->isExternC())
    return variable->getNameAsString();

  std::vector<std::string> parts{decl->getNameAsString()};
  for (const DeclContext* context = decl->getDeclContext(); context; context = context->getParent()) {
    if (const auto* ns = dyn_cast<NamespaceDecl>(context)) {
      if (ns->isInline() || ns->isAnonymousNamespace()) continue;
      parts.push_back(ns->getNameAsString());
    } else if (const auto* enumeration = dyn_cast<EnumDecl>(context)) {
      if (enumeration->isScoped()) parts.push_back(enumeration->getNameAsString());
    } else if (const auto* record = dyn_cast<RecordDecl>(context)) {
      if (record->getIdentifier()) {
        parts.push_back(record->getNameAsString());
      } else if (const auto* typedef_name = record->getTypedefNameForAnonDecl()) {
        parts.push_back(typedef_name->getNameAsString());
      }
    } else if (isa<FunctionDecl>(context)) {
      break;  // a local declaration: its own scope
    }
  }
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!out.empty()) out += "::";
    out += *it;
  }
  return out;
}

namespace {

class NameRuleCallbacks : public PPCallbacks {
 public:
  explicit NameRuleCallbacks(NameRule& rule) : rule_(rule) {}
  void MacroExpands(const Token& name, const MacroDefinition& definition, SourceRange, const MacroArgs*) override {
    rule_.on_macro_expansion(name, definition.getMacroInfo());
  }
  void MacroDefined(const Token& name, const MacroDirective*) override { rule_.on_macro_definition(name); }

 private:
  NameRule& rule_;
};

// True when the declaration is the candidate's own code: declared first and
// defined in the candidate file.
bool defined_by_candidate(const NamedDecl* decl, const SourceManager& sources) {
  const auto in_main = [&](const Decl* d) { return d && written_in_main_file(sources, d->getLocation()); };
  if (!in_main(decl->getCanonicalDecl())) return false;
  if (const auto* function = dyn_cast<FunctionDecl>(decl)) return in_main(function->getDefinition());
  if (const auto* variable = dyn_cast<VarDecl>(decl)) return in_main(variable->getDefinition());
  if (const auto* tag = dyn_cast<TagDecl>(decl)) return in_main(tag->getDefinition());
  return true;  // typedefs, enumerators, fields, templates: declared here means defined here
}

}  // namespace

NameRule::NameRule(const RuleInfo& info, PassState& state, NameRuleSpec spec)
    : Rule(info, state), spec_(std::move(spec)) {}

void NameRule::register_pp_callbacks(Preprocessor& preprocessor) {
  preprocessor.addPPCallbacks(std::make_unique<NameRuleCallbacks>(*this));
}

void NameRule::register_matchers(MatchFinder& finder) {
  finder.addMatcher(declRefExpr(isExpansionInCandidateFile()).bind("ref"), this);
  finder.addMatcher(memberExpr(isExpansionInCandidateFile()).bind("member"), this);
  finder.addMatcher(cxxConstructExpr(isExpansionInCandidateFile()).bind("construct"), this);
  // A type in a qualifier (std::thread::hardware_concurrency) is judged by the
  // full name of what it qualifies, through the reference itself.
  finder.addMatcher(typeLoc(isExpansionInCandidateFile(), unless(hasParent(nestedNameSpecifierLoc()))).bind("type"), this);
  // Matched as a Stmt: AsmStmt::getBeginLoc() itself is invalid, only its subclasses locate.
  if (!spec_.asm_markers.empty()) finder.addMatcher(stmt(asmStmt(), isExpansionInCandidateFile()).bind("asm"), this);
}

void NameRule::onStartOfTranslationUnit() {
  // A banned macro's target is banned with it: cublasSgemm -> cublasSgemm_v2.
  if (!state_.preprocessor) return;
  for (const std::string& name : spec_.patterns.plain_names()) {
    const IdentifierInfo* identifier = state_.preprocessor->getIdentifierInfo(name);
    const MacroInfo* macro = state_.preprocessor->getMacroInfo(identifier);
    if (!macro || macro->tokens_empty()) continue;
    const Token& first = *macro->tokens_begin();
    if (first.is(tok::identifier) && first.getIdentifierInfo()->getName() != name)
      aliases_[first.getIdentifierInfo()->getName().str()] = name;
  }
}

std::string NameRule::match_decl(const NamedDecl* decl, std::string* name) {
  if (!decl || !decl->getDeclName().isIdentifier()) return {};
  auto cached = name_cache_.find(decl);
  if (cached == name_cache_.end()) {
    std::string qualified = defined_by_candidate(decl, *state_.sources) ? std::string() : qualified_name(decl);
    cached = name_cache_.emplace(decl, std::move(qualified)).first;
  }
  const std::string& qualified = cached->second;
  if (qualified.empty()) return {};
  *name = qualified;
  if (auto alias = aliases_.find(qualified); alias != aliases_.end()) return alias->second;
  return spec_.patterns.match(qualified);
}

void NameRule::report_name(SourceLocation location, const std::string& name, const std::string& pattern) {
  std::string message = "`" + name + "` is " + spec_.what;
  if (pattern != name) message += " (matches `" + pattern + "`)";
  message += ": " + spec_.reason;
  report(location, std::move(message), spec_.hint, pattern);
}

void NameRule::check_asm(const AsmStmt* statement) {
  const auto* gcc = dyn_cast<GCCAsmStmt>(statement);
  if (!gcc || !gcc->getAsmString()) return;
  const std::string text = gcc->getAsmString()->getString().str();
  for (const auto& marker : spec_.asm_markers) {
    if (text.find(marker) == std::string::npos) continue;
    report(static_cast<const Stmt*>(statement)->getBeginLoc(),  // AsmStmt::getBeginLoc is invalid
           "inline assembly uses `" + marker + "`, which is " + spec_.what + ": " + spec_.reason, spec_.hint,
           "asm:" + marker);
    return;
  }
}

void NameRule::check(const MatchFinder::MatchResult& result) {
  std::string name;
  const auto try_decl = [&](const NamedDecl* decl, SourceLocation location) {
    if (!decl) return false;
    const std::string pattern = match_decl(decl, &name);
    if (pattern.empty()) return false;
    report_name(location, name, pattern);
    return true;
  };
  if (const auto* ref = result.Nodes.getNodeAs<DeclRefExpr>("ref")) {
    try_decl(ref->getDecl(), ref->getLocation());
  } else if (const auto* member = result.Nodes.getNodeAs<MemberExpr>("member")) {
    try_decl(member->getMemberDecl(), member->getMemberLoc());
  } else if (const auto* construct = result.Nodes.getNodeAs<CXXConstructExpr>("construct")) {
    if (const auto* constructor = construct->getConstructor()) try_decl(constructor->getParent(), construct->getBeginLoc());
  } else if (const auto* type = result.Nodes.getNodeAs<TypeLoc>("type")) {
    const Type* t = type->getTypePtr();
    const SourceLocation location = type->getBeginLoc();
    if (const auto* typedef_type = dyn_cast<TypedefType>(t)) {
      if (try_decl(typedef_type->getDecl(), location)) return;
      if (const TagDecl* tag = typedef_type->desugar()->getAsTagDecl()) try_decl(tag, location);
    } else if (const auto* using_type = dyn_cast<UsingType>(t)) {
      if (const TagDecl* tag = using_type->desugar()->getAsTagDecl()) try_decl(tag, location);
    } else if (const auto* specialization = dyn_cast<TemplateSpecializationType>(t)) {
      if (const TemplateDecl* templ = specialization->getTemplateName().getAsTemplateDecl()) {
        if (try_decl(templ, location)) return;
      }
      if (specialization->isTypeAlias())  // getAliasedType() is only defined for aliases
        if (const TagDecl* tag = specialization->getAliasedType()->getAsTagDecl()) try_decl(tag, location);
    } else if (isa<RecordType>(t) || isa<EnumType>(t) || isa<InjectedClassNameType>(t)) {
      try_decl(t->getAsTagDecl(), location);
    }
  } else if (const auto* statement = result.Nodes.getNodeAs<AsmStmt>("asm")) {
    check_asm(statement);
  }
}

void NameRule::on_macro_expansion(const Token& name, const MacroInfo* macro) {
  if (!macro || !state_.sources || !name.getIdentifierInfo()) return;
  if (!in_main_file(name.getLocation())) return;
  // The candidate's own macros are its code; only header macros can name a library.
  if (written_in_main_file(*state_.sources, macro->getDefinitionLoc())) return;
  const std::string macro_name = name.getIdentifierInfo()->getName().str();
  const std::string pattern = spec_.patterns.match(macro_name);
  if (!pattern.empty()) report_name(name.getLocation(), macro_name, pattern);
}

void NameRule::on_macro_definition(const Token& name) {
  if (spec_.defined_macros.empty() || !name.getIdentifierInfo() || !in_main_file(name.getLocation())) return;
  const std::string macro_name = name.getIdentifierInfo()->getName().str();
  const std::string pattern = spec_.defined_macros.match(macro_name);
  if (pattern.empty()) return;
  report(name.getLocation(), "defining `" + macro_name + "` makes the runtime use " + spec_.what + ": " + spec_.reason,
         spec_.hint, "define:" + macro_name);
}

}  // namespace kgb::lint::detail
