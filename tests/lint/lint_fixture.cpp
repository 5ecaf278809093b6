#include "lint_fixture.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "patterns.h"

namespace kgb::lint::testing {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// "reject rule-a, warn rule-b" -> expectations on `line`.
void parse_expectations(const std::string& text, int line, Fixture& f) {
  for (const auto& item : detail::split_list(text)) {
    std::istringstream words(item);
    Expected e;
    e.line = line;
    words >> e.severity >> e.rule;
    if ((e.severity != "reject" && e.severity != "warn") || e.rule.empty()) {
      f.problems.push_back("line " + std::to_string(line) + ": cannot read expectation '" + item + "'");
      continue;
    }
    f.expected.insert(e);
  }
}

Param make_param(const std::string& spec, Fixture& f) {
  Param p;
  const auto colon = spec.find(':');
  p.name = spec.substr(0, colon);
  const std::string kind = colon == std::string::npos ? "input" : spec.substr(colon + 1);
  if (kind == "input" || kind == "output" || kind == "inout") {
    p.kind = ParamKind::Tensor;
    p.role = kind == "input" ? TensorRole::Input : kind == "output" ? TensorRole::Output : TensorRole::InOut;
  } else if (kind.rfind("list-", 0) == 0) {  // list-<dtype>: an input tensor list of that dtype
    p.kind = ParamKind::TensorList;
    p.dtype = kind.substr(5);
    if (!parse_dtype(p.dtype)) f.problems.push_back("unknown list dtype '" + p.dtype + "'");
  } else {
    p.kind = ParamKind::Scalar;
    if (kind == "int64") p.scalar_type = ScalarType::Int64;
    else if (kind == "float64") p.scalar_type = ScalarType::Float64;
    else if (kind == "bool") p.scalar_type = ScalarType::Bool;
    else f.problems.push_back("unknown parameter kind '" + kind + "'");
  }
  return p;
}

void apply_header(const std::string& text, Fixture& f, std::string& params, std::string& dtypes,
                  std::string& banned) {
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) {
      f.problems.push_back("header word without '=': " + word);
      continue;
    }
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "platform") {
      f.platform.backend = value;
      f.platform.name = "fixture-" + value;
      f.language = language_for(f.platform);
    } else if (key == "arch") {
      f.platform.arch = value;
    } else if (key == "language") {
      if (value != "opencl-c") f.problems.push_back("unknown language " + value);
      f.language = Language::OpenCLC;
    } else if (key == "task") {
      Task t;
      t.id = value;
      t.source = value.substr(0, value.find('/'));
      t.name = value.substr(value.find('/') + 1);
      t.entry = "kgb_";
      for (char c : value) t.entry += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      f.task = t;
    } else if (key == "params") {
      params = value;
    } else if (key == "dtypes") {
      dtypes = value;
    } else if (key == "banned") {
      banned = value;
    } else if (key == "option") {
      const auto second = value.find('=');
      if (second == std::string::npos) f.problems.push_back("option without value: " + value);
      else f.options[value.substr(0, second)] = value.substr(second + 1);
    } else if (key == "descriptor") {
      f.descriptor = value;
    } else if (key == "parse") {
      f.expect_parse_errors = value == "error";
    } else {
      f.problems.push_back("unknown header key " + key);
    }
  }
}

}  // namespace

Fixture load_fixture(const std::filesystem::path& path) {
  Fixture f;
  f.path = path;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  f.source = text.str();

  std::string params = "x:input,y:output", dtypes = "f32", banned;
  std::istringstream lines(f.source);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (auto at = line.find("// LINT:"); at != std::string::npos) apply_header(line.substr(at + 8), f, params, dtypes, banned);
    if (auto at = line.find("// EXPECT-FILE:"); at != std::string::npos) {
      parse_expectations(trim(line.substr(at + 15)), 0, f);
    } else if (auto at2 = line.find("// EXPECT:"); at2 != std::string::npos) {
      parse_expectations(trim(line.substr(at2 + 10)), number, f);
    }
  }
  if (f.platform.backend.empty()) f.problems.push_back("no platform in the header");
  if (!f.descriptor.empty()) {
    auto real = load_platform(f.descriptor);
    if (!real) {
      f.problems.push_back("unknown descriptor " + f.descriptor + ": " + real.error().message);
    } else {
      if (real->backend != f.platform.backend) f.problems.push_back("descriptor " + f.descriptor + " is not " + f.platform.backend);
      f.platform = std::move(*real);
    }
  }
  if (f.task) {
    for (const auto& p : detail::split_list(params)) f.task->params.push_back(make_param(p, f));
    for (const auto& d : detail::split_list(dtypes)) {
      if (auto parsed = parse_dtype(d)) f.task->dtypes.push_back(*parsed);
      else f.problems.push_back("unknown dtype " + d);
    }
    f.task->type_variables = {{"T", f.task->dtypes}};
    for (size_t start = 0; !banned.empty() && start <= banned.size();) {
      size_t bar = banned.find('|', start);
      if (bar == std::string::npos) bar = banned.size();
      f.task->banned_apis.push_back(banned.substr(start, bar - start));
      start = bar + 1;
    }
  }
  return f;
}

std::vector<std::filesystem::path> fixture_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const auto ext = entry.path().extension();
    if (ext == ".cpp" || ext == ".cu" || ext == ".cl" || ext == ".hip") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool compiler_missing(const Fixture& fixture) {
  if (fixture.descriptor.empty() || fixture.platform.compile_command.empty()) return false;
  const std::string program = fixture.platform.compile_command.front();
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((std::filesystem::path(dir) / program).c_str(), X_OK) == 0) return false;
  return true;
}

LintRequest fixture_request(const Fixture& fixture, const std::filesystem::path& cache_dir) {
  LintRequest request;
  request.source = fixture.source;
  request.file_name = fixture.path.filename().string();
  request.language = fixture.language;
  request.task = fixture.task ? &*fixture.task : nullptr;
  request.platform = &fixture.platform;
  request.rule_options = fixture.options;
  request.cache_dir = cache_dir;
  request.time_limit_seconds = 60;  // a loaded CI machine; the limit itself is tested elsewhere
  return request;
}

std::set<Expected> actual_findings(const LintReport& report) {
  std::set<Expected> out;
  for (const auto& f : report.findings) out.insert({f.line, f.severity, f.rule});
  return out;
}

std::string describe(const Expected& e) {
  return (e.line ? "line " + std::to_string(e.line) : std::string("file")) + ": " + e.severity + " " + e.rule;
}

}  // namespace kgb::lint::testing
