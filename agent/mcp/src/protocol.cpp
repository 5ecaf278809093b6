// The MCP methods: initialize, ping, tools, resources, prompts, and the tools
// that browse and account (the kernel tools are in kernel_tools.cpp).
#include <fstream>
#include <sstream>

#include "engine.h"
#include "kgb/paths.h"
#include "kgb/task_text.h"

namespace kgb::mcp {

namespace {

constexpr const char* kAbiUri = "kgb://abi/kgb_kernel.h";
constexpr const char* kTaskUriPrefix = "kgb://tasks/";


std::string read_text_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string tool_names(const std::vector<ToolDef>& defs) {
  std::string names;
  for (const auto& d : defs) names += (names.empty() ? "" : ", ") + d.name;
  return names;
}

}  // namespace

json text_content(std::string text) { return json::array({{{"type", "text"}, {"text", std::move(text)}}}); }

json tool_ok(std::string text, json structured) {
  return {{"content", text_content(std::move(text))}, {"structuredContent", std::move(structured)}, {"isError", false}};
}

json tool_error(std::string message) {
  return {{"content", text_content(std::move(message))}, {"isError", true}};
}

// ---------------------------------------------------------------------------
// Dispatch

asio::awaitable<std::optional<json>> Engine::handle(std::shared_ptr<Session> s, jsonrpc::Message m, Notify notify) {
  using Kind = jsonrpc::Message::Kind;
  s->last_seen = Clock::now();
  if (m.kind == Kind::Invalid) co_return m.error_response;
  if (m.kind == Kind::Response) co_return std::nullopt;
  if (m.kind == Kind::Notification) {
    if (m.method == "notifications/cancelled" && m.params.contains("requestId"))
      s->cancelled.insert(jsonrpc::serialize(m.params["requestId"]));
    co_return std::nullopt;  // initialized, roots/list_changed, ...: nothing to do
  }

  const json id = m.id;
  if (m.method == "ping") co_return jsonrpc::result(id, json::object());
  if (m.method == "initialize") {
    if (s->initialized) co_return jsonrpc::error(id, jsonrpc::kInvalidRequest, "the session is already initialized");
    if (!m.params.contains("protocolVersion") || !m.params["protocolVersion"].is_string())
      co_return jsonrpc::error(id, jsonrpc::kInvalidParams, "initialize: protocolVersion (a string) is required");
    auto init = initialize(*s, m.params);
    if (!init)
      co_return jsonrpc::error(id, init.error().code == "mcp.unknown-task" ? jsonrpc::kInvalidParams : jsonrpc::kInternalError,
                               init.error().message);
    co_return jsonrpc::result(id, *init);
  }
  if (!s->initialized)
    co_return jsonrpc::error(id, jsonrpc::kInvalidRequest, "the session is not initialized: send initialize first");

  ++s->in_flight;
  json response;
  try {
    if (m.method == "tools/list") {
      json tools = json::array();
      for (const auto& d : tools_offered_) tools.push_back(tool_json(d));
      response = jsonrpc::result(id, {{"tools", tools}});
    } else if (m.method == "tools/call") {
      response = co_await call_tool(s, id, m.params, notify);
    } else if (m.method == "resources/list") {
      response = jsonrpc::result(id, list_resources());
    } else if (m.method == "resources/templates/list") {
      response = jsonrpc::result(id, list_resource_templates());
    } else if (m.method == "resources/read") {
      auto r = read_resource(m.params);
      response = r ? jsonrpc::result(id, *r)
                   : jsonrpc::error(id, r.error().code == "mcp.no-resource" ? jsonrpc::kResourceNotFound : jsonrpc::kInvalidParams,
                                    r.error().message, {{"uri", m.params.value("uri", json(nullptr))}});
    } else if (m.method == "prompts/list") {
      response = jsonrpc::result(id, list_prompts());
    } else if (m.method == "prompts/get") {
      auto r = get_prompt(*s, m.params);
      response = r ? jsonrpc::result(id, *r) : jsonrpc::error(id, jsonrpc::kInvalidParams, r.error().message);
    } else {
      response = jsonrpc::error(id, jsonrpc::kMethodNotFound, "method not found: " + m.method);
    }
  } catch (const std::exception& e) {
    response = jsonrpc::error(id, jsonrpc::kInternalError, std::string("internal error: ") + e.what());
  }
  --s->in_flight;
  s->last_seen = Clock::now();  // a long tool call does not count as idle time
  // A cancelled request gets no answer (the work it did is recorded all the same).
  if (s->cancelled.erase(jsonrpc::serialize(id))) co_return std::nullopt;
  co_return response;
}

Result<json> Engine::initialize(Session& s, const json& params) {
  const std::string requested = params["protocolVersion"].get<std::string>();
  s.protocol_version = supported_protocol_version(requested) ? requested : kProtocolVersion;
  if (params.contains("clientInfo") && params["clientInfo"].is_object()) {
    const json& c = params["clientInfo"];
    for (const char* key : {"name", "version", "title"})
      if (c.contains(key) && c[key].is_string()) s.client_info[key] = c[key];
  }
  std::string attempt_note = "Open an attempt with the start_attempt tool (one task at a time per session).";
  if (!s.bound_task.empty()) {
    auto a = open_attempt(s, s.bound_task);
    if (!a) return a.error();
    attempt_note = "This session's attempt is open on the task " + s.bound_task + ".";
  }
  s.initialized = true;
  std::string instructions =
      "KernelGenBench: write a fast, correct kernel for a benchmark task on the platform " + platform_.name + ". " +
      attempt_note +
      " Read the task with show_task (or the solve_task prompt), check complete source files with lint, compile and "
      "evaluate as often as the attempt's budgets allow, then submit your final kernel: its verdict is the attempt's "
      "result and the attempt ends. Tools: " +
      tool_names(tools_offered_) + ".";
  json result = {{"protocolVersion", s.protocol_version},
                 {"capabilities",
                  {{"tools", {{"listChanged", false}}},
                   {"resources", {{"subscribe", false}, {"listChanged", false}}},
                   {"prompts", {{"listChanged", false}}}}},
                 {"serverInfo", {{"name", "kgb"}, {"title", "KernelGenBench"}, {"version",
#ifdef KGB_VERSION
                                                                              KGB_VERSION
#else
                                                                              "0"
#endif
                                                                          }}},
                 {"instructions", instructions}};
  return result;
}

// ---------------------------------------------------------------------------
// Resources and prompts

json Engine::list_resources() const {
  json resources = json::array();
  resources.push_back({{"uri", kAbiUri},
                       {"name", "kgb_kernel.h"},
                       {"title", "The kernel ABI header"},
                       {"description", "kgb_tensor, kgb_dtype and kgb_stream: the C types every entry point uses"},
                       {"mimeType", "text/x-c"}});
  for (const auto& t : tasks_)
    resources.push_back({{"uri", kTaskUriPrefix + t.id},
                         {"name", t.id},
                         {"title", t.id + " on " + platform_.name},
                         {"description", t.summary},
                         {"mimeType", "text/plain"}});
  return {{"resources", resources}};
}

json Engine::list_resource_templates() const {
  json templates = json::array();
  templates.push_back({{"uriTemplate", std::string(kTaskUriPrefix) + "{source}/{name}"},
                       {"name", "task statement"},
                       {"title", "A task's statement on this server's platform"},
                       {"description", "exactly what `kgb show` prints"},
                       {"mimeType", "text/plain"}});
  return {{"resourceTemplates", templates}};
}

Result<json> Engine::read_resource(const json& params) const {
  if (!params.contains("uri") || !params["uri"].is_string())
    return make_error("mcp.params", "resources/read: uri (a string) is required");
  const std::string uri = params["uri"];
  std::string text, mime = "text/plain";
  if (uri == kAbiUri) {
    text = read_text_file(abi_include_dir() / "kgb_kernel.h");
    mime = "text/x-c";
  } else if (uri.rfind(kTaskUriPrefix, 0) == 0) {
    // Only the ids of the server's tasks: nothing here names a file.
    const Task* t = find_task(uri.substr(std::string(kTaskUriPrefix).size()));
    if (!t) return make_error("mcp.no-resource", "no resource " + uri + " (see resources/list)");
    text = render_task_statement(*t, platform_);
  } else {
    return make_error("mcp.no-resource", "no resource " + uri + " (see resources/list)");
  }
  json content = {{"uri", uri}, {"mimeType", mime}, {"text", text}};
  return json{{"contents", json::array({content})}};
}

json Engine::list_prompts() const {
  json prompt = {{"name", "solve_task"},
                 {"title", "Solve a task"},
                 {"description", "The task prompt the loop's policies use (system and task templates), with the MCP "
                                 "workflow: check with the tools, then submit."},
                 {"arguments", json::array({{{"name", "task"},
                                             {"description", "task id, e.g. blas/saxpy (default: this session's task)"},
                                             {"required", false}}})}};
  return {{"prompts", json::array({prompt})}};
}

Result<json> Engine::get_prompt(const Session& s, const json& params) const {
  if (params.value("name", "") != "solve_task")
    return make_error("mcp.params", "unknown prompt '" + params.value("name", std::string()) + "' (prompts: solve_task)");
  std::string task_id = s.attempt ? s.attempt->record.task : s.bound_task;
  if (params.contains("arguments") && params["arguments"].is_object() && params["arguments"].contains("task")) {
    if (!params["arguments"]["task"].is_string()) return make_error("mcp.params", "solve_task: task must be a string");
    task_id = params["arguments"]["task"];
  }
  if (task_id.empty()) return make_error("mcp.params", "solve_task needs a task argument (this session has no task)");
  const Task* t = find_task(task_id);
  if (!t) return make_error("mcp.params", "unknown task '" + task_id + "' (see the list_tasks tool)");
  agent::TemplateVars vars = agent::task_variables(prompts_, *t, platform_);
  vars["tools"] = tool_names(tools_offered_);
  auto system = prompts_.render("mcp/system", vars);
  if (!system) return system.error();
  auto task = prompts_.render("task", vars);
  if (!task) return task.error();
  json message = {{"role", "user"}, {"content", {{"type", "text"}, {"text", *system + "\n\n" + *task}}}};
  return json{{"description", "Write a kernel for " + t->id + " on " + platform_.name}, {"messages", json::array({message})}};
}

// ---------------------------------------------------------------------------
// Tools

asio::awaitable<json> Engine::call_tool(std::shared_ptr<Session> s, json id, json params, Notify notify) {
  if (!params.contains("name") || !params["name"].is_string())
    co_return jsonrpc::error(id, jsonrpc::kInvalidParams, "tools/call: name (a string) is required");
  const std::string name = params["name"];
  const ToolDef* def = find_tool_def(tools_offered_, name);
  if (!def)
    co_return jsonrpc::error(id, jsonrpc::kInvalidParams, "unknown tool '" + name + "' (tools: " + tool_names(tools_offered_) + ")");
  json args = params.contains("arguments") && !params["arguments"].is_null() ? params["arguments"] : json::object();
  if (auto wrong = check_arguments(def->input_schema, args)) {
    // The model gets to fix its call: a tool error, not a protocol error.
    if (s->attempt && !s->attempt->end_reason) {
      json recorded = args.is_object() ? args : json::object();
      if (recorded.contains("source")) recorded["source"] = "(not recorded)";
      record_call(*s->attempt, name, recorded, "", "bad-arguments", false, {{"error", *wrong}}, 0);
    }
    co_return jsonrpc::result(id, tool_error(name + ": " + *wrong));
  }
  json progress_token = nullptr;
  if (params.contains("_meta") && params["_meta"].is_object() && params["_meta"].contains("progressToken"))
    progress_token = params["_meta"]["progressToken"];

  json result;
  if (def->kernel) result = co_await tool_kernel(s, name, std::move(args), notify, progress_token);
  else if (name == "list_tasks") result = tool_list_tasks(args);
  else if (name == "show_task") result = tool_show_task(*s, args);
  else if (name == "start_attempt") result = tool_start_attempt(*s, args);
  else if (name == "report_usage") result = tool_report_usage(*s, args);
  else if (name == "attempt_status") result = tool_attempt_status(*s);
  else result = tool_error("the tool " + name + " is not implemented");
  // Browsing inside an open attempt is part of its record too.
  if (!def->kernel && name != "start_attempt" && name != "report_usage" && s->attempt && !s->attempt->end_reason) {
    json summary = {{"isError", result.value("isError", false)}};
    if (result.contains("structuredContent") && result["structuredContent"].contains("task"))
      summary["task"] = result["structuredContent"]["task"];
    record_call(*s->attempt, name, args, "", result.value("isError", false) ? "error" : "ok", !result.value("isError", false),
                summary, 0);
  }
  co_return jsonrpc::result(id, std::move(result));
}

json Engine::tool_list_tasks(const json& args) const {
  const std::string source = args.value("source", "");
  const std::string glob = args.value("glob", "");
  json tasks = json::array();
  std::string text;
  for (const auto& t : tasks_) {
    if (!source.empty() && t.source != source) continue;
    if (!glob.empty() && !glob_match(glob, t.id)) continue;
    json dtypes = json::array();
    for (auto d : t.dtypes) dtypes.push_back(std::string(dtype_name(d)));
    tasks.push_back({{"id", t.id}, {"source", t.source}, {"summary", t.summary}, {"entry", t.entry}, {"dtypes", dtypes},
                     {"declaration", entry_declaration(t)}});
    text += t.id + "  " + t.summary + "\n";
  }
  if (text.empty()) text = "no task matches";
  return tool_ok(text, {{"tasks", tasks}});
}

json Engine::tool_show_task(const Session& s, const json& args) const {
  std::string task_id = args.value("task", s.attempt ? s.attempt->record.task : s.bound_task);
  if (task_id.empty()) return tool_error("show_task: name a task (no attempt is open in this session)");
  const Task* t = find_task(task_id);
  if (!t) return tool_error("unknown task '" + task_id + "' (see the list_tasks tool)");
  std::string statement = render_task_statement(*t, platform_);
  return tool_ok(statement, {{"task", t->id}, {"platform", platform_.name}, {"statement", statement}});
}

json Engine::tool_start_attempt(Session& s, const json& args) {
  auto a = open_attempt(s, args["task"].get<std::string>());
  if (!a) return tool_error(a.error().message);
  const Attempt& at = **a;
  std::ostringstream text;
  text << "attempt " << at.record.id << " opened on " << at.record.task << " (platform " << platform_.name << ", sample "
       << at.record.sample << "). Read it with show_task; check kernels with lint, compile and evaluate; submit the final one.";
  return tool_ok(text.str(), {{"attempt", attempt_json(at)}});
}

json Engine::tool_attempt_status(const Session& s) {
  if (!s.attempt) return tool_error("no attempt in this session: call start_attempt with a task first");
  json a = attempt_json(*s.attempt);
  return tool_ok(a.dump(2), {{"attempt", a}});
}

json Engine::tool_report_usage(Session& s, const json& args) {
  if (!s.attempt) return tool_error("report_usage: no attempt in this session to attach usage to");
  Attempt& a = *s.attempt;
  json counts = args.contains("usage") ? args["usage"] : args;
  if (args.contains("usage"))
    for (const char* key : {"cost_usd", "model"})
      if (args.contains(key) && !counts.contains(key)) counts[key] = args[key];
  auto usage = parse_reported_usage(counts);
  if (!usage) return tool_error("report_usage: " + usage.error().message);

  // The call, then the usage row beside it in the current iteration.
  const int iteration = a.current_iteration();
  write_call(a, iteration, a.next_step[iteration]++, "report_usage", args, "", "recorded", true, json::object(), 0);
  store::LlmCallRecord row = usage_call_record(run_id_, a.record.id, iteration, a.next_step[iteration]++, *usage,
                                               "report_usage", args);
  if (auto rid = store_->begin_llm_call(row); rid) {
    row.id = *rid;
    if (auto f = store_->finish_llm_call(row); !f) return tool_error("report_usage: run store: " + f.error().message);
  } else {
    return tool_error("report_usage: run store: " + rid.error().message);
  }
  agent::Spend spent;
  spent.input_tokens = usage->tokens.input;
  spent.cached_tokens = usage->tokens.cached_input;
  spent.cache_write_tokens = usage->tokens.cache_write;
  spent.output_tokens = usage->tokens.output;
  spent.reasoning_tokens = usage->tokens.reasoning;
  spent.usd = usage->cost_usd.value_or(0);
  spent.llm_calls = 1;
  a.spend += spent;
  ++a.usage_reports;
  // Tokens spent before any kernel get an iteration of their own ("no-code"),
  // so that budget curves see them.
  if (a.iterations.empty()) {
    IterationState& first = iteration_for(a, "");
    first.record.status = "done";
    first.record.outcome = "no-code";
    first.record.detail["summary"] = "usage reported before any kernel";
  }
  IterationState& it = a.iterations[static_cast<size_t>(iteration)];
  it.record.tokens += usage->tokens;
  it.record.cost_usd += spent.usd;
  save_iteration(a, it);
  // An attempt already ended gets its totals written again.
  if (a.recorded) {
    a.recorded = false;
    maybe_record_end(a);
  }
  std::string text = "recorded " + std::to_string(usage->tokens.total()) + " tokens (reported by the agent) for attempt " +
                     std::to_string(a.record.id) + "; the attempt has " + std::to_string(a.spend.total_tokens()) + " in all";
  return tool_ok(text, {{"recorded", reported_usage_json(*usage)}, {"attempt", attempt_json(a)}});
}

}  // namespace kgb::mcp
