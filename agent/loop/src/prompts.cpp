#include "kgb/agent/prompts.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kgb/task_text.h"

namespace kgb::agent {

namespace {

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

}  // namespace

Result<Template> Template::parse(const std::string& text, const std::string& name) {
  Template t;
  t.text_ = text;
  // Stack of open sections; the bottom is the template's own node list.
  std::vector<std::vector<Node>*> stack = {&t.nodes_};
  std::vector<std::string> open;
  size_t pos = 0;
  auto line_of = [&](size_t at) { return std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')); };
  while (pos < text.size()) {
    const size_t start = text.find("{{", pos);
    if (start == std::string::npos) {
      stack.back()->push_back({Node::Text, text.substr(pos), {}});
      break;
    }
    const size_t end = text.find("}}", start + 2);
    if (end == std::string::npos)
      return make_error("prompt.syntax", name + ":" + line_of(start) + ": '{{' without a closing '}}'");
    std::string before = text.substr(pos, start - pos);
    std::string tag = text.substr(start + 2, end - start - 2);
    size_t next = end + 2;
    const bool standalone_kind = !tag.empty() && (tag[0] == '#' || tag[0] == '^' || tag[0] == '/' || tag[0] == '!');
    // A section or comment tag alone on its line takes the line with it.
    if (standalone_kind) {
      size_t line_start = 0;
      if (start > 0) {
        const size_t nl = text.rfind('\n', start - 1);
        line_start = nl == std::string::npos ? 0 : nl + 1;
      }
      const bool alone_before = line_start >= pos && text.find_first_not_of(" \t", line_start) >= start;
      const bool alone_after = next >= text.size() || text[next] == '\n';
      if (alone_before && alone_after) {
        before.erase(line_start - pos);
        if (next < text.size()) ++next;
      }
    }
    if (!before.empty()) stack.back()->push_back({Node::Text, before, {}});
    pos = next;
    if (tag.empty()) return make_error("prompt.syntax", name + ":" + line_of(start) + ": empty placeholder {{}}");
    const char kind = tag[0];
    if (kind == '!') continue;
    std::string var = tag;
    if (kind == '#' || kind == '^' || kind == '/') var = tag.substr(1);
    while (!var.empty() && var.front() == ' ') var.erase(var.begin());
    while (!var.empty() && var.back() == ' ') var.pop_back();
    if (!valid_name(var))
      return make_error("prompt.syntax", name + ":" + line_of(start) + ": bad placeholder '{{" + tag + "}}'");
    if (kind == '#' || kind == '^') {
      stack.back()->push_back({kind == '#' ? Node::Section : Node::Inverted, var, {}});
      stack.push_back(&stack.back()->back().children);
      open.push_back(var);
      t.names_.insert(var);
    } else if (kind == '/') {
      if (open.empty() || open.back() != var)
        return make_error("prompt.syntax", name + ":" + line_of(start) + ": '{{/" + var + "}}' closes nothing open");
      open.pop_back();
      stack.pop_back();
    } else {
      stack.back()->push_back({Node::Var, var, {}});
      t.names_.insert(var);
    }
  }
  if (!open.empty()) return make_error("prompt.syntax", name + ": section '{{#" + open.back() + "}}' is never closed");
  return t;
}

void Template::render_nodes(const std::vector<Node>& nodes, const TemplateVars& vars, std::string& out) const {
  for (const auto& n : nodes) {
    auto it = vars.find(n.value);
    const bool empty = it == vars.end() || it->second.empty();
    switch (n.kind) {
      case Node::Text: out += n.value; break;
      case Node::Var:
        if (!empty) out += it->second;
        break;
      case Node::Section:
        if (!empty) render_nodes(n.children, vars, out);
        break;
      case Node::Inverted:
        if (empty) render_nodes(n.children, vars, out);
        break;
    }
  }
}

std::string Template::render(const TemplateVars& vars) const {
  std::string out;
  render_nodes(nodes_, vars, out);
  // Collapse runs of blank lines left by empty variables.
  std::string tidy;
  int newlines = 0;
  for (char c : out) {
    if (c == '\n') {
      if (++newlines > 2) continue;
    } else {
      newlines = 0;
    }
    tidy += c;
  }
  while (!tidy.empty() && (tidy.back() == '\n' || tidy.back() == ' ')) tidy.pop_back();
  return tidy;
}

const std::set<std::string>& known_template_variables() {
  static const std::set<std::string> names = {
      // the task and the platform
      "task_id", "platform", "language", "hardware", "backend", "arch", "entry", "entry_declaration", "task_statement",
      "fence", "source_file", "allowed_includes", "banned_apis", "backend_notes", "platform_notes",
      // a tool result
      "result", "outcome", "stage", "summary", "speedup", "roofline", "note", "error_signature",
      // the state of the attempt
      "iteration", "max_iterations", "best_speedup", "target_speedup", "previous_error", "tools", "reply_excerpt",
      "failed_fixes"};
  return names;
}

const std::vector<std::string>& PromptSet::required_names() {
  static const std::vector<std::string> names = {
      "system",           "task",              "feedback/lint",     "feedback/compile",  "feedback/check",
      "feedback/runtime", "feedback/cheat",    "feedback/infra",    "feedback/passed",   "feedback/no_code",
      "feedback/truncated", "feedback/restart", "tool_agent/system", "tool_agent/nudge"};
  return names;
}

Result<PromptSet> PromptSet::load(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return make_error("prompt.missing", "no prompt folder at " + dir.string());
  nlohmann::json texts = nlohmann::json::object();
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); it != std::filesystem::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec) break;
    if (!it->is_regular_file() || it->path().extension() != ".txt") continue;
    std::filesystem::path rel = std::filesystem::relative(it->path(), dir);
    rel.replace_extension();
    std::ifstream in(it->path(), std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    texts[rel.generic_string()] = os.str();
  }
  auto set = from_json(texts);
  if (!set) return make_error(set.error().code, set.error().message + " (prompt folder " + dir.string() + ")");
  return set;
}

Result<PromptSet> PromptSet::from_json(const nlohmann::json& recorded) {
  PromptSet set;
  if (!recorded.is_object()) return make_error("prompt.invalid", "recorded prompts must be an object");
  for (const auto& [name, text] : recorded.items()) {
    if (!text.is_string()) return make_error("prompt.invalid", "prompt '" + name + "' is not text");
    auto t = Template::parse(text.get<std::string>(), name);
    if (!t) return t.error();
    for (const auto& var : t->placeholders())
      if (!known_template_variables().count(var))
        return make_error("prompt.unknown-placeholder", name + ": unknown placeholder {{" + var + "}}");
    set.templates_.emplace(name, std::move(t.value()));
  }
  for (const auto& name : required_names())
    if (!set.has(name)) return make_error("prompt.missing", "the prompt set has no '" + name + "' template");
  return set;
}

nlohmann::json PromptSet::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, t] : templates_) j[name] = t.text();
  return j;
}

bool PromptSet::has(const std::string& name) const { return templates_.count(name) > 0; }

Result<std::string> PromptSet::render(const std::string& name, const TemplateVars& vars) const {
  auto it = templates_.find(name);
  if (it == templates_.end()) return make_error("prompt.missing", "no prompt template '" + name + "'");
  return it->second.render(vars);
}

std::vector<std::string> PromptSet::names() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : templates_) out.push_back(name);
  return out;
}

std::string fence_tag(const Platform& platform) {
  if (platform.backend == "cuda" || platform.source_extension == "cu") return "cuda";
  if (platform.backend == "hip") return "hip";
  return "cpp";
}

TemplateVars task_variables(const PromptSet& prompts, const Task& task, const Platform& platform) {
  TemplateVars v;
  v["task_id"] = task.id;
  v["platform"] = platform.name;
  v["language"] = platform.language;
  v["hardware"] = platform.hardware;
  v["backend"] = platform.backend;
  v["arch"] = platform.arch;
  v["entry"] = task.entry;
  v["entry_declaration"] = entry_declaration(task);
  v["task_statement"] = render_task_statement(task, platform);
  v["fence"] = fence_tag(platform);
  v["source_file"] = "candidate." + (platform.source_extension.empty() ? std::string("cpp") : platform.source_extension);
  std::string includes;
  for (const auto& inc : platform.allowed_includes) includes += (includes.empty() ? "" : ", ") + inc;
  v["allowed_includes"] = includes;
  std::string banned;
  for (const auto& api : task.banned_apis) banned += (banned.empty() ? "" : ", ") + api;
  v["banned_apis"] = banned;
  // Notes per backend and per platform are templates themselves.
  if (prompts.has("backend/" + platform.backend))
    if (auto r = prompts.render("backend/" + platform.backend, v)) v["backend_notes"] = *r;
  if (prompts.has("platform/" + platform.name))
    if (auto r = prompts.render("platform/" + platform.name, v)) v["platform_notes"] = *r;
  return v;
}

}  // namespace kgb::agent
