#include "compiler_view.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kgb/evaluator.h"

namespace kgb::lint::detail {
namespace {

// Words of one `#$ ` line of nvcc --dryrun: blanks separate, double quotes group.
std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false, any = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      quoted = !quoted;
      any = true;
    } else if (c == '\\' && quoted && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\')) {
      word += line[++i];
    } else if (!quoted && std::isspace(static_cast<unsigned char>(c))) {
      if (any) words.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any) words.push_back(word);
  return words;
}

std::string program_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

bool is_nvcc(const std::string& program) { return program_name(program) == "nvcc"; }
bool is_clang_offload_driver(const std::string& program) {
  const std::string name = program_name(program);
  return name == "hipcc" || name.rfind("amdclang", 0) == 0;
}

// `-c` -> `-E -dD -dI`, `-o X` -> `-o output`.
std::vector<std::string> preprocess_argv(const std::vector<std::string>& argv, const std::string& output) {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "-c") {
      for (const char* flag : {"-E", "-dD", "-dI"}) out.emplace_back(flag);
    } else if (argv[i] == "-o" && i + 1 < argv.size()) {
      out.emplace_back("-o");
      out.push_back(output);
      ++i;
    } else {
      out.push_back(argv[i]);
    }
  }
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::vector<CompilerPass> nvcc_preprocess_passes(const std::string& dryrun_output, const std::string& source_name,
                                                 const std::string& output_prefix) {
  std::vector<CompilerPass> passes;
  std::istringstream lines(dryrun_output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("#$ ", 0) != 0) continue;
    std::vector<std::string> words = shell_words(line.substr(3));
    if (words.empty() || words.front().find('=') != std::string::npos) continue;  // an environment line
    bool preprocess = false, reads_source = false, device = false;
    for (const auto& w : words) {
      preprocess = preprocess || w == "-E";
      reads_source = reads_source || w == source_name;
      device = device || w.rfind("-D__CUDA_ARCH__=", 0) == 0;
    }
    if (!preprocess || !reads_source) continue;
    CompilerPass pass;
    pass.name = std::string("nvcc ") + (device ? "device" : "host") + " (" + program_name(words.front()) + " -E)";
    pass.output_file = output_prefix + std::to_string(passes.size()) + ".ii";
    bool has_output = false;
    for (size_t i = 0; i < words.size(); ++i) {
      if (words[i] == "-o" && i + 1 < words.size()) {
        pass.argv.emplace_back("-o");
        pass.argv.push_back(pass.output_file);
        has_output = true;
        ++i;
        continue;
      }
      pass.argv.push_back(words[i]);
      if (words[i] == "-E") {
        pass.argv.emplace_back("-dD");
        pass.argv.emplace_back("-dI");
      }
    }
    if (!has_output) {
      pass.argv.emplace_back("-o");
      pass.argv.push_back(pass.output_file);
    }
    passes.push_back(std::move(pass));
  }
  return passes;
}

std::vector<CompilerPass> compiler_passes(const std::vector<std::string>& compile_argv, const std::string& source_name,
                                          const std::string& work_dir, std::string* why) {
  const auto fail = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return std::vector<CompilerPass>{};
  };
  if (compile_argv.empty()) return fail("the platform has no compile command");
  const std::string prefix = work_dir + "/preprocessed-";
  if (is_nvcc(compile_argv.front())) {
    std::vector<std::string> dryrun = compile_argv;
    dryrun.emplace_back("--dryrun");
    auto run = run_command(dryrun, work_dir, 30);
    if (!run) return fail("nvcc --dryrun did not start: " + run.error().message);
    if (!run->status.exited || run->status.code != 0)
      return fail("nvcc --dryrun failed (" + run->status.describe() + "): " + run->output.substr(0, 500));
    auto passes = nvcc_preprocess_passes(run->output, source_name, prefix);
    if (passes.empty()) return fail("nvcc --dryrun lists no preprocessing step of " + source_name);
    return passes;
  }
  if (is_clang_offload_driver(compile_argv.front())) {
    std::vector<CompilerPass> passes;
    for (const char* side : {"host", "device"}) {
      CompilerPass pass;
      pass.name = program_name(compile_argv.front()) + " " + side + " (-E)";
      pass.output_file = prefix + side + ".ii";
      pass.argv = preprocess_argv(compile_argv, pass.output_file);
      pass.argv.insert(pass.argv.begin() + 1, std::string("--cuda-") + side + "-only");
      passes.push_back(std::move(pass));
    }
    return passes;
  }
  CompilerPass pass;
  pass.name = program_name(compile_argv.front()) + " -E";
  pass.output_file = prefix + "0.ii";
  pass.argv = preprocess_argv(compile_argv, pass.output_file);
  return {std::move(pass)};
}

std::set<int> compiled_lines(const std::string& preprocessed, const std::string& source_name) {
  std::set<int> lines;
  bool in_source = false;
  int line = 1;
  size_t at = 0;
  while (at < preprocessed.size()) {
    size_t eol = preprocessed.find('\n', at);
    if (eol == std::string::npos) eol = preprocessed.size();
    const std::string_view text(preprocessed.data() + at, eol - at);
    at = eol + 1;
    // A line marker: `# N "file" flags` or `#line N "file"`.
    size_t p = 0;
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    if (p < text.size() && text[p] == '#') {
      size_t q = p + 1;
      while (q < text.size() && text[q] == ' ') ++q;
      if (text.substr(q, 4) == "line") q += 4;
      while (q < text.size() && text[q] == ' ') ++q;
      if (q < text.size() && std::isdigit(static_cast<unsigned char>(text[q]))) {
        int number = 0;
        while (q < text.size() && std::isdigit(static_cast<unsigned char>(text[q]))) number = number * 10 + (text[q++] - '0');
        const size_t open = text.find('"', q);
        const size_t close = open == std::string_view::npos ? open : text.find('"', open + 1);
        if (close != std::string_view::npos) in_source = text.substr(open + 1, close - open - 1) == source_name;
        line = number;
        continue;
      }
    }
    if (in_source && text.find_first_not_of(" \t\r") != std::string_view::npos) lines.insert(line);
    ++line;
  }
  return lines;
}

CompilerView::~CompilerView() {
  for (auto& child : children_)
    if (child && !child->exit_status()) child->kill();
}

std::unique_ptr<CompilerView> CompilerView::start(const LintRequest& request, std::string* why) {
  if (!request.platform || request.platform->compile_command.empty()) {
    if (why) *why = "the platform has no compile command";
    return nullptr;
  }
  std::unique_ptr<CompilerView> view(new CompilerView);
  view->dir_ = std::make_unique<TempDir>("kgb-lint-cc");
  view->source_name_ = candidate_source_name(*request.platform);
  std::ofstream(view->dir_->path() / view->source_name_, std::ios::binary) << request.source;
  view->passes_ = compiler_passes(candidate_compile_argv(*request.platform), view->source_name_,
                                  view->dir_->path().string(), why);
  if (view->passes_.empty()) return nullptr;
  for (const CompilerPass& pass : view->passes_) {
    SpawnOptions options;
    options.argv = pass.argv;
    options.working_dir = view->dir_->path();
    options.capture_limit = 16 * 1024;
    auto child = ChildProcess::spawn(options);
    if (!child) {
      if (why) *why = pass.name + " did not start: " + child.error().message;
      return nullptr;
    }
    view->children_.push_back(std::move(*child));
  }
  return view;
}

Result<std::vector<CompiledPass>> CompilerView::finish(double seconds) {
  const Deadline deadline = deadline_after(seconds);
  std::vector<CompiledPass> out;
  for (size_t i = 0; i < passes_.size(); ++i) {
    const ExitStatus status = children_[i]->wait(deadline);
    if (status.timed_out)
      return make_error("lint.compiler-timeout", passes_[i].name + " did not finish within " +
                                                     std::to_string(static_cast<int>(seconds)) + " s");
    // A pass the compiler fails (an #error, a missing header) fails the
    // compile too; what it produced up to there is still compared.
    out.push_back({passes_[i].name, compiled_lines(read_file(passes_[i].output_file), source_name_)});
  }
  return out;
}

}  // namespace kgb::lint::detail
