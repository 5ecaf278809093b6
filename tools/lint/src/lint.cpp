// lint(): input checks, then the passes in a forked child (or in process),
// the precompiled preludes, the OpenCL programs of launchers and the scan of
// inactive preprocessor branches, merged into one report.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <csignal>
#include <cstring>

#include <nlohmann/json.hpp>

#include "compiler_view.h"
#include "frontend.h"
#include "input_check.h"
#include "invocation.h"
#include "isolation.h"
#include "prelude_cache.h"
#include "rules/inactive_code.h"
#include "rules/line_marker.h"
#include "rules/opencl_conditional.h"
#include "rules/unlinted_code.h"
#include "toolchain_paths.h"

namespace kgb::lint {
namespace detail {
namespace {

RuleSetup make_setup(const LintRequest& request, const ParsePlan& plan, const ParsePass& pass) {
  RuleSetup setup;
  setup.language = pass.language;
  setup.backend = plan.backend;
  setup.pass = pass.name;
  setup.task = request.task;
  setup.platform = request.platform;
  setup.options = &request.rule_options;
  setup.file_name = request.file_name;
  setup.main_path = plan.main_path;
  return setup;
}

class DiagnosticMerger {
 public:
  void add(std::vector<Diagnostic>&& list, std::vector<Diagnostic>& out) {
    for (auto& d : list) {
      const std::string key = d.file + "|" + std::to_string(d.line) + "|" + std::to_string(d.column) + "|" +
                              d.severity + "|" + d.message;
      if (seen_.insert(key).second) out.push_back(std::move(d));
    }
  }

 private:
  std::set<std::string> seen_;
};

// One pass with its precompiled prelude: a stale prelude is rebuilt once; a
// parse with errors is repeated without the prelude, whose extra headers could
// be the cause (a candidate defining a name the prelude also declares).
PassResult run_with_prelude(PassInput input, PreludeCache* cache) {
  const ParsePass& pass = *input.pass;
  if (!cache || pass.prelude.empty()) return run_pass(input);
  std::vector<EmbeddedProgram> programs;
  std::vector<EmbeddedProgram>* real_programs = input.programs;
  input.programs = real_programs ? &programs : nullptr;

  input.precompiled_prelude = cache->obtain(pass, /*rebuild=*/false);
  PassResult result;
  if (!input.precompiled_prelude.empty()) {
    result = run_pass(input);
    if (!result.ran) {
      programs.clear();
      input.precompiled_prelude = cache->obtain(pass, /*rebuild=*/true);
      if (!input.precompiled_prelude.empty()) result = run_pass(input);
    }
  }
  if (input.precompiled_prelude.empty() || !result.ran || result.had_errors) {
    programs.clear();
    input.precompiled_prelude.clear();
    result = run_pass(input);
  }
  if (real_programs) real_programs->insert(real_programs->end(), programs.begin(), programs.end());
  return result;
}

// A pass's result across the pipe of a helper child.
std::string serialise(const PassResult& result) {
  nlohmann::json j;
  j["ran"] = result.ran;
  j["had_errors"] = result.had_errors;
  j["diagnostics"] = result.diagnostics;
  nlohmann::json findings = nlohmann::json::array();
  const auto& list = result.findings.findings();
  const auto& keys = result.findings.keys();
  for (size_t i = 0; i < list.size(); ++i) findings.push_back({{"finding", list[i]}, {"key", keys[i]}});
  j["findings"] = std::move(findings);
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& range : result.skipped) skipped.push_back({range.begin, range.end});
  j["skipped"] = std::move(skipped);
  j["parsed_until"] = result.parsed_until;
  return j.dump();
}

std::optional<PassResult> deserialise(const std::string& text) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    PassResult result;
    result.ran = j.at("ran").get<bool>();
    result.had_errors = j.at("had_errors").get<bool>();
    result.diagnostics = j.at("diagnostics").get<std::vector<Diagnostic>>();
    for (const auto& item : j.at("findings"))
      result.findings.add(item.at("finding").get<LintFinding>(), item.at("key").get<std::string>());
    for (const auto& range : j.at("skipped")) result.skipped.push_back({range.at(0).get<unsigned>(), range.at(1).get<unsigned>()});
    result.parsed_until = j.at("parsed_until").get<unsigned>();
    return result;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void sort_findings(std::vector<LintFinding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const LintFinding& a, const LintFinding& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
}

}  // namespace

LintReport run_lint_job(const LintRequest& request, bool disable_free) {
  LintReport report;
  const ParsePlan plan = plan_parse(request);
  if (plan.unavailable) {
    report.parse_ok = false;
    report.infra_error = *plan.unavailable;
    return report;
  }
  report.parse_ok = true;
  std::optional<PreludeCache> cache;
  if (request.use_precompiled_prelude)
    cache.emplace(request.cache_dir.empty() ? default_cache_dir() : request.cache_dir);

  FindingSink sink;
  DiagnosticMerger diagnostics;
  std::vector<EmbeddedProgram> programs;
  std::vector<std::vector<SkippedRange>> skipped;
  const auto input_for = [&](const ParsePass& pass) {
    PassInput input;
    input.pass = &pass;
    input.main_path = plan.main_path;
    input.source = request.source;
    input.setup = make_setup(request, plan, pass);
    input.programs = request.language == Language::OpenCLHost ? &programs : nullptr;
    input.disable_free = disable_free;
    return input;
  };
  PreludeCache* prelude_cache = cache ? &*cache : nullptr;
  // The platform's compiler preprocesses the candidate with the compile
  // step's flags while Clang parses it (unlinted-code).
  // A source without conditional directives has the same lines in every
  // configuration: the compiler is asked only when a parse stops early.
  std::unique_ptr<CompilerView> compiler;
  const RuleEntry* unlinted = find_rule("unlinted-code");
  const bool compare_with_compiler = request.language != Language::OpenCLC && unlinted && !plan.passes.empty() &&
                                     rule_severity(*unlinted, make_setup(request, plan, plan.passes.front())) != "off";
  if (compare_with_compiler && has_conditional_directive(request.source)) compiler = CompilerView::start(request, nullptr);
  bool stopped_early = false;
  // Inside the forked child (disable_free), the passes after the first (the
  // host side of CUDA and HIP) run in helper children, side by side with the
  // first: with a free core the two parses take the time of one. A helper
  // that fails leaves its pass to this process, whose own limits then apply.
  const size_t pass_count = plan.passes.size();
  std::vector<IsolatedChild> helpers(pass_count);
  if (disable_free && pass_count > 1 && request.language != Language::OpenCLHost)
    for (size_t i = 1; i < pass_count; ++i)
      helpers[i] = start_isolated([&, i] { return serialise(run_with_prelude(input_for(plan.passes[i]), prelude_cache)); },
                                  request.time_limit_seconds, request.memory_limit_bytes);
  for (size_t i = 0; i < pass_count; ++i) {
    const ParsePass& pass = plan.passes[i];
    std::optional<PassResult> helped;
    if (helpers[i].pid >= 0) {
      const IsolatedOutcome outcome = finish_isolated(helpers[i]);
      if (outcome.status == IsolatedOutcome::Status::Completed) helped = deserialise(outcome.output);
    }
    PassResult result = helped ? std::move(*helped) : run_with_prelude(input_for(pass), prelude_cache);
    report.parse_ok = report.parse_ok && result.ran && !result.had_errors;
    diagnostics.add(std::move(result.diagnostics), report.diagnostics);
    sink.merge(std::move(result.findings));
    // What a parse that stopped early never read counts as skipped.
    if (result.parsed_until < request.source.size()) {
      result.skipped.push_back({result.parsed_until, static_cast<unsigned>(request.source.size())});
      stopped_early = true;
    }
    skipped.push_back(std::move(result.skipped));
    report.passes.push_back(pass.name);
  }

  const ParsePass opencl = opencl_c_pass();
  // Line control in the candidate's own text (not lint's #line in front of
  // the OpenCL programs it extracts), rejected; in the programs it is then
  // blanked so their findings keep the launcher's real lines. The programs
  // may not branch on the driver's macros either.
  const RuleSetup program_setup = make_setup(request, plan, opencl);
  scan_line_markers(request.source, 0, 1, make_setup(request, plan, plan.passes.empty() ? opencl : plan.passes.front()), sink);
  if (request.language == Language::OpenCLC) scan_opencl_conditionals(request.source, 0, 1, program_setup, sink);
  for (EmbeddedProgram& program : programs) {
    scan_opencl_conditionals(program.text, program.candidate_offset, program.line, program_setup, sink);
    blank_directives(program.text,
                     scan_line_markers(program.text, program.candidate_offset, program.line, program_setup, sink));
  }
  for (size_t i = 0; i < programs.size(); ++i) {
    PassInput input;
    input.pass = &opencl;
    input.main_path = plan.main_path + ".opencl-" + std::to_string(i + 1) + ".cl";
    input.source = programs[i].text;
    input.setup = make_setup(request, plan, opencl);
    input.disable_free = disable_free;
    PassResult result = run_pass(input);
    report.parse_ok = report.parse_ok && result.ran && !result.had_errors;
    diagnostics.add(std::move(result.diagnostics), report.diagnostics);
    sink.merge(std::move(result.findings));
    report.passes.push_back("opencl-c@" + std::to_string(programs[i].line));
  }

  if (!plan.passes.empty()) {
    const RuleSetup setup = make_setup(request, plan, plan.passes.front());
    const std::vector<SkippedRange> missed = skipped_by_all(skipped);
    scan_inactive_code(request.source, missed, setup, sink);
    if (!compiler && compare_with_compiler && stopped_early) compiler = CompilerView::start(request, nullptr);
    if (compiler) {
      std::vector<std::string> lint_passes(report.passes.begin(), report.passes.begin() + plan.passes.size());
      auto compiled = compiler->finish(request.time_limit_seconds);
      if (compiled) check_unlinted_code(request.source, *compiled, missed, lint_passes, setup, sink);
      else report_unlinted_unknown(compiled.error().message, setup, sink);
    }
  }
  report.findings = sink.take();
  sort_findings(report.findings);
  return report;
}

// Clang's shared libraries bind their symbols lazily, and every forked child
// would pay for that again (about 0.2 s per CUDA lint). One in-process parse
// of an empty file per pass binds them in the parent, for all later children.
// Only trusted text is parsed here; passes whose prelude is not built yet wait
// for a later call (the first child builds it).
std::shared_mutex& fork_mutex() {
  static std::shared_mutex mutex;
  return mutex;
}

void warm_up_parent(const LintRequest& request) {
  static std::mutex warm_mutex;
  static std::set<std::string> warmed;
  std::lock_guard<std::mutex> once(warm_mutex);
  LintRequest empty = request;
  empty.source.clear();
  const ParsePlan plan = plan_parse(empty);
  if (plan.unavailable) return;
  const PreludeCache cache(request.cache_dir.empty() ? default_cache_dir() : request.cache_dir);
  std::vector<ParsePass> passes = plan.passes;
  if (request.language == Language::OpenCLHost) passes.push_back(opencl_c_pass());
  for (const ParsePass& pass : passes) {
    const std::string key = pass.name + "|" + prelude_key(pass);
    if (warmed.count(key)) continue;
    PassInput input;
    input.pass = &pass;
    input.main_path = plan.main_path;
    input.setup = make_setup(empty, plan, pass);
    if (request.use_precompiled_prelude && !pass.prelude.empty()) {
      input.precompiled_prelude = cache.existing(pass);
      if (input.precompiled_prelude.empty()) continue;
    }
    // No child may be forked while the parent is inside Clang (its locks).
    std::unique_lock<std::shared_mutex> exclusive(fork_mutex());
    const PassResult result = run_pass(input);
    if (result.ran) warmed.insert(key);
  }
}

}  // namespace detail

namespace {

LintFinding whole_file_finding(const LintRequest& request, std::string rule, std::string message, std::string hint) {
  LintFinding f;
  f.rule = std::move(rule);
  f.layer = "L1";
  f.severity = "reject";
  f.message = std::move(message);
  f.fix_hint = std::move(hint);
  f.file = request.file_name;
  f.location = request.file_name;
  return f;
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", seconds);
  return text;
}

}  // namespace

LintReport lint(const LintRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  const auto finish = [&](LintReport report) {
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
  };
  if (auto finding = detail::check_input(request)) {
    LintReport report;
    report.findings.push_back(std::move(*finding));
    return finish(std::move(report));
  }
  if (request.isolation == Isolation::InProcess) return finish(detail::run_lint_job(request, /*disable_free=*/false));

  detail::warm_up_parent(request);
  std::shared_lock<std::shared_mutex> forking(detail::fork_mutex());
  const auto outcome = detail::run_isolated(
      [&] {
        nlohmann::json j = detail::run_lint_job(request, /*disable_free=*/true);
        return j.dump();
      },
      request.time_limit_seconds, request.memory_limit_bytes);

  LintReport report;
  switch (outcome.status) {
    case detail::IsolatedOutcome::Status::Completed:
      try {
        report = nlohmann::json::parse(outcome.output).get<LintReport>();
      } catch (const std::exception& e) {
        report.findings.push_back(whole_file_finding(request, "lint-crashed",
                                                     std::string("the lint child returned an unreadable report: ") +
                                                         e.what(),
                                                     "simplify the source; this is a fault of the lint"));
      }
      break;
    case detail::IsolatedOutcome::Status::TimedOut:
      report.findings.push_back(whole_file_finding(
          request, "lint-timeout",
          "parsing did not finish within " + seconds_text(request.time_limit_seconds) + " s",
          "remove what makes the source slow to parse: huge macro expansions, deep template recursion, includes of "
          "devices or large files"));
      break;
    case detail::IsolatedOutcome::Status::Crashed: {
      std::string why;
      if (outcome.signal != 0) {
        why = "the parser was killed by signal " + std::to_string(outcome.signal) + " (" + strsignal(outcome.signal) + ")";
      } else if (outcome.exit_code == detail::kExitOutOfMemory) {
        why = "the parser ran out of its memory limit";
      } else {
        why = "the parser stopped with exit code " + std::to_string(outcome.exit_code);
      }
      report.findings.push_back(whole_file_finding(
          request, "lint-crashed", why + " while reading the source",
          "simplify the source: no huge constant tables, macro bombs or pathological templates"));
      break;
    }
    case detail::IsolatedOutcome::Status::Failed:
      report.infra_error = "lint could not start its child process: " + outcome.error;
      break;
  }
  return finish(std::move(report));
}

}  // namespace kgb::lint
