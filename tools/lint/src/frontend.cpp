#include "frontend.h"

#include <algorithm>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/FileManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

namespace kgb::lint::detail {
namespace {

using namespace clang;

// Headers larger than this are refused; the largest toolchain header is a few
// megabytes, a precompiled prelude about twelve.
constexpr uint64_t kMaxReadableFile = uint64_t{64} << 20;

// The real file system, minus what a parser must never read: devices, FIFOs,
// sockets (an #include of /dev/zero never ends) and oversized files.
class GuardedFileSystem : public llvm::vfs::ProxyFileSystem {
 public:
  explicit GuardedFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> base)
      : ProxyFileSystem(std::move(base)) {}

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine& path) override {
    auto result = ProxyFileSystem::status(path);
    if (result && !acceptable(*result)) return std::make_error_code(std::errc::permission_denied);
    return result;
  }

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& path) override {
    auto result = ProxyFileSystem::status(path);
    if (!result) return result.getError();
    if (!acceptable(*result) || result->getType() == llvm::sys::fs::file_type::directory_file)
      return std::make_error_code(std::errc::permission_denied);
    return ProxyFileSystem::openFileForRead(path);
  }

 private:
  static bool acceptable(const llvm::vfs::Status& status) {
    using llvm::sys::fs::file_type;
    if (status.getType() == file_type::directory_file) return true;
    return status.getType() == file_type::regular_file && status.getSize() <= kMaxReadableFile;
  }
};

llvm::IntrusiveRefCntPtr<FileManager> make_files(const ParsePass& pass, const std::string& main_path,
                                                 const std::string& source) {
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::makeIntrusiveRefCnt<GuardedFileSystem>(llvm::vfs::getRealFileSystem()));
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  // Fixed modification times: a precompiled prelude records and checks them.
  if (!main_path.empty()) memory->addFile(main_path, 0, llvm::MemoryBuffer::getMemBufferCopy(source, main_path));
  if (!pass.prelude_path.empty())
    memory->addFile(pass.prelude_path, 0, llvm::MemoryBuffer::getMemBufferCopy(pass.prelude, pass.prelude_path));
  if (pass.language == Language::Cuda)
    memory->addFile(std::string(kStubDir) + "/texture_fetch_functions.h", 0, llvm::MemoryBuffer::getMemBuffer(""));
  overlay->pushOverlay(memory);
  return llvm::makeIntrusiveRefCnt<FileManager>(FileSystemOptions{}, overlay);
}

// Diagnostics in the record the compile step uses: errors and fatal errors,
// with the notes that explain them; warnings are the compiler's business.
class DiagnosticCollector : public DiagnosticConsumer {
 public:
  explicit DiagnosticCollector(const RuleSetup& setup) : setup_(setup) {}

  void HandleDiagnostic(DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level == DiagnosticsEngine::Error || level == DiagnosticsEngine::Fatal) had_errors_ = true;
    bool keep = false;
    if (level == DiagnosticsEngine::Note) {
      keep = last_kept_;  // a note explains the diagnostic before it
    } else {
      keep = level == DiagnosticsEngine::Error || level == DiagnosticsEngine::Fatal;
      last_kept_ = keep;
    }
    if (!keep || diagnostics_.size() >= kMaxDiagnostics) return;
    kgb::Diagnostic d;
    d.severity = level == DiagnosticsEngine::Fatal ? "fatal" : level == DiagnosticsEngine::Error ? "error" : "note";
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    d.message = text.str().str();
    d.file = setup_.file_name;
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const SourceManager& sources = info.getSourceManager();
      const SourceLocation location = sources.getExpansionLoc(info.getLocation());
      const PresumedLoc presumed = sources.getPresumedLoc(location);
      if (presumed.isValid()) {
        d.file = display_file_name(setup_, presumed.getFilename());
        d.line = static_cast<int>(presumed.getLine());
        d.column = static_cast<int>(presumed.getColumn());
      }
      d.excerpt = source_line(sources, location);
    }
    diagnostics_.push_back(std::move(d));
  }

  bool had_errors() const { return had_errors_; }
  std::vector<kgb::Diagnostic> take() { return std::move(diagnostics_); }

  static constexpr size_t kMaxDiagnostics = 60;

 private:
  const RuleSetup& setup_;
  std::vector<kgb::Diagnostic> diagnostics_;
  bool had_errors_ = false;
  bool last_kept_ = false;
};

class SkippedRangeRecorder : public PPCallbacks {
 public:
  SkippedRangeRecorder(const SourceManager& sources, std::vector<SkippedRange>& out) : sources_(sources), out_(out) {}
  void SourceRangeSkipped(SourceRange range, SourceLocation) override {
    if (!written_in_main_file(sources_, range.getBegin())) return;
    out_.push_back({sources_.getFileOffset(range.getBegin()), sources_.getFileOffset(range.getEnd())});
  }

 private:
  const SourceManager& sources_;
  std::vector<SkippedRange>& out_;
};

// How far the preprocessor got in the candidate: a fatal error (an #include
// only Clang cannot find) or too many errors end the parse early, and what
// follows was never seen by the rules.
struct ParseProgress {
  bool reached_end = false;
  unsigned furthest = 0;  // offset after the last token read from the candidate
};

class ProgressRecorder : public PPCallbacks {
 public:
  explicit ProgressRecorder(ParseProgress& progress) : progress_(progress) {}
  void EndOfMainFile() override { progress_.reached_end = true; }

 private:
  ParseProgress& progress_;
};

class LintConsumer : public ASTConsumer {
 public:
  LintConsumer(PassState& state, std::vector<std::unique_ptr<Rule>>& rules, bool& consumed)
      : state_(state), rules_(rules), consumed_(consumed) {}

  bool HandleTopLevelDecl(DeclGroupRef group) override {
    for (Decl* decl : group)
      if (written_in_main_file(*state_.sources, decl->getLocation())) state_.main_file_decls.push_back(decl);
    return true;
  }

  void HandleTranslationUnit(ASTContext& ast) override {
    consumed_ = true;
    state_.ast = &ast;
    // Only the candidate's declarations are traversed: the headers (and the
    // precompiled prelude) are the toolchain's, and deserialising them is slow.
    ast.setTraversalScope(state_.main_file_decls);
    ast_matchers::MatchFinder finder;
    for (auto& rule : rules_) rule->register_matchers(finder);
    finder.matchAST(ast);
    for (auto& rule : rules_) rule->on_translation_unit(ast);
  }

 private:
  PassState& state_;
  std::vector<std::unique_ptr<Rule>>& rules_;
  bool& consumed_;
};

class LintAction : public ASTFrontendAction {
 public:
  LintAction(PassState& state, std::vector<SkippedRange>& skipped, ParseProgress& progress, bool& consumed)
      : state_(state), skipped_(skipped), progress_(progress), consumed_(consumed) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& compiler, llvm::StringRef) override {
    state_.sources = &compiler.getSourceManager();
    state_.preprocessor = &compiler.getPreprocessor();
    rules_ = create_rules(state_);
    for (auto& rule : rules_) rule->register_pp_callbacks(compiler.getPreprocessor());
    compiler.getPreprocessor().addPPCallbacks(
        std::make_unique<SkippedRangeRecorder>(compiler.getSourceManager(), skipped_));
    compiler.getPreprocessor().addPPCallbacks(std::make_unique<ProgressRecorder>(progress_));
    const SourceManager& sources = compiler.getSourceManager();
    compiler.getPreprocessor().setTokenWatcher([&sources, &progress = progress_](const Token& token) {
      const SourceLocation location = sources.getExpansionLoc(token.getLocation());
      if (location.isInvalid() || sources.getFileID(location) != sources.getMainFileID()) return;
      progress.furthest = std::max(progress.furthest, sources.getFileOffset(location) + token.getLength());
    });
    return std::make_unique<LintConsumer>(state_, rules_, consumed_);
  }

 private:
  PassState& state_;
  std::vector<SkippedRange>& skipped_;
  ParseProgress& progress_;
  bool& consumed_;
  std::vector<std::unique_ptr<Rule>> rules_;
};

// Runs one frontend action on an invocation the driver built, after the
// adjustments the driver has no flags for.
class InvocationRunner : public tooling::ToolAction {
 public:
  using ActionMaker = std::function<std::unique_ptr<FrontendAction>()>;
  InvocationRunner(ActionMaker make_action, std::string precompiled_prelude, std::string pch_output, bool disable_free)
      : make_action_(std::move(make_action)),
        prelude_(std::move(precompiled_prelude)),
        pch_output_(std::move(pch_output)),
        disable_free_(disable_free) {}

  bool runInvocation(std::shared_ptr<CompilerInvocation> invocation, FileManager* files,
                     std::shared_ptr<PCHContainerOperations> pch_operations, DiagnosticConsumer* diagnostics) override {
    invocation->getFrontendOpts().DisableFree = disable_free_;
    if (!prelude_.empty()) invocation->getPreprocessorOpts().ImplicitPCHInclude = prelude_;
    if (!pch_output_.empty()) {
      invocation->getFrontendOpts().ProgramAction = frontend::GeneratePCH;
      invocation->getFrontendOpts().OutputFile = pch_output_;
    }
    CompilerInstance compiler(std::move(pch_operations));
    compiler.setInvocation(std::move(invocation));
    compiler.setFileManager(files);
    compiler.createDiagnostics(diagnostics, /*ShouldOwnClient=*/false);
    if (!compiler.hasDiagnostics()) return false;
    compiler.createSourceManager(*files);
    std::unique_ptr<FrontendAction> action = make_action_();
    const bool ok = compiler.ExecuteAction(*action);
    files->clearStatCache();
    return ok;
  }

 private:
  ActionMaker make_action_;
  std::string prelude_;
  std::string pch_output_;
  bool disable_free_;
};

std::vector<std::string> command_line(const ParsePass& pass, const std::string& input) {
  std::vector<std::string> line{"clang"};
  line.insert(line.end(), pass.args.begin(), pass.args.end());
  line.push_back(input);
  return line;
}

}  // namespace

PassResult run_pass(const PassInput& input) {
  PassResult result;
  PassState state;
  state.setup = input.setup;
  state.sink = &result.findings;
  state.programs = input.programs;

  auto files = make_files(*input.pass, input.main_path, input.source);
  DiagnosticCollector diagnostics(state.setup);
  bool consumed = false;
  ParseProgress progress;
  InvocationRunner runner([&] { return std::make_unique<LintAction>(state, result.skipped, progress, consumed); },
                          input.precompiled_prelude, "", input.disable_free);
  tooling::ToolInvocation invocation(command_line(*input.pass, input.main_path), &runner, files.get(),
                                     std::make_shared<PCHContainerOperations>());
  invocation.setDiagnosticConsumer(&diagnostics);
  invocation.run();
  result.ran = consumed;
  if (!progress.reached_end) result.parsed_until = progress.furthest;
  result.had_errors = diagnostics.had_errors();
  result.diagnostics = diagnostics.take();
  return result;
}

bool build_prelude(const ParsePass& pass, const std::string& output_file, std::string* error) {
  if (pass.prelude.empty()) return false;
  auto files = make_files(pass, "", "");
  RuleSetup setup;
  setup.file_name = "prelude";
  DiagnosticCollector diagnostics(setup);
  InvocationRunner runner([] { return std::make_unique<GeneratePCHAction>(); }, "", output_file,
                          /*disable_free=*/false);
  tooling::ToolInvocation invocation(command_line(pass, pass.prelude_path), &runner, files.get(),
                                     std::make_shared<PCHContainerOperations>());
  invocation.setDiagnosticConsumer(&diagnostics);
  const bool ok = invocation.run() && !diagnostics.had_errors();
  if (!ok && error) {
    auto list = diagnostics.take();
    *error = list.empty() ? "the prelude did not precompile" : list.front().message;
  }
  return ok;
}

}  // namespace kgb::lint::detail
