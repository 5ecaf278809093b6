// Prompt templates (prompts/*.txt). A template is text with placeholders:
//   {{name}}                 the variable's value
//   {{#name}} ... {{/name}}  the section when the variable is not empty
//   {{^name}} ... {{/name}}  the section when it is empty
//   {{! comment }}           dropped (a line holding only a comment vanishes)
// Placeholders are checked against the known variables when the set is
// loaded, so a typo in a prompt file fails the run at its start.
//
// The set used by a run is recorded with it (name -> text) and a resumed run
// renders from the recorded texts, whatever the files say by then.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kgb/platform.h"
#include "kgb/result.h"
#include "kgb/task.h"

namespace kgb::agent {

using TemplateVars = std::map<std::string, std::string>;

class Template {
 public:
  static Result<Template> parse(const std::string& text, const std::string& name);
  std::string render(const TemplateVars& vars) const;
  const std::set<std::string>& placeholders() const { return names_; }
  const std::string& text() const { return text_; }

 private:
  struct Node {
    enum Kind { Text, Var, Section, Inverted } kind = Text;
    std::string value;  // text or variable name
    std::vector<Node> children;
  };
  void render_nodes(const std::vector<Node>& nodes, const TemplateVars& vars, std::string& out) const;
  std::string text_;
  std::vector<Node> nodes_;
  std::set<std::string> names_;
};

// Every variable a template may use (the loop fills them; see prompts/README.md).
const std::set<std::string>& known_template_variables();

class PromptSet {
 public:
  // Every *.txt under `dir`, named by relative path without the extension
  // ("system", "feedback/compile", "backend/cuda"). `required` names must exist.
  static Result<PromptSet> load(const std::filesystem::path& dir);
  static Result<PromptSet> from_json(const nlohmann::json& recorded);
  nlohmann::json to_json() const;

  bool has(const std::string& name) const;
  // An unknown name renders as an error: a policy asked for a prompt the set lacks.
  Result<std::string> render(const std::string& name, const TemplateVars& vars) const;
  std::vector<std::string> names() const;

  // Names every run needs.
  static const std::vector<std::string>& required_names();

 private:
  std::map<std::string, Template> templates_;
};

// Variables about the task and the platform: task_id, platform, language,
// hardware, backend, arch, entry, entry_declaration, task_statement (exactly
// `kgb show`, with its `Task:` and `Platform:` lines), fence, source_file,
// allowed_includes, banned_apis, and backend_notes / platform_notes rendered
// from backend/<backend> and platform/<platform> when the set has them.
TemplateVars task_variables(const PromptSet& prompts, const Task& task, const Platform& platform);

// The code-fence tag for a platform's sources ("cpp", "cuda", "hip", ...).
std::string fence_tag(const Platform& platform);

}  // namespace kgb::agent
