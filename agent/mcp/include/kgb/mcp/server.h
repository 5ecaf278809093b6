// `kgb mcp-server`: the benchmark's tools over the Model Context Protocol
// (revision 2025-06-18), so that external coding agents are benchmarked with
// the same tools, records, budgets and reports as the policies of the agent
// loop.
//
// Transports: stdio (one session; newline-delimited JSON-RPC on stdin and
// stdout) and Streamable HTTP (POST/DELETE on one endpoint, /mcp; sessions
// by Mcp-Session-Id; answers as JSON, or as an SSE stream with keep-alives
// and progress for tool calls). HTTP binds to loopback unless told otherwise,
// takes an optional bearer token, and refuses browser origins that are not
// loopback (DNS rebinding).
//
// Sessions as runs: the server records into one run of the run store (policy
// "mcp"). A session opens a task attempt (the server's --task, the URL's
// ?task=, or the start_attempt tool); every tool call, evaluation, kernel
// source and wall time is recorded as for internal policies; submit ends the
// attempt. Budgets are enforced per attempt. The tools run the same code as
// the CLI: `kgb show` text, the lint hook, kgb::evaluate() through the loop's
// tool backend, on a bounded pool with one timing job at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kgb/agent/budget.h"
#include "kgb/agent/config.h"
#include "kgb/result.h"

namespace kgb::mcp {

// The budgets of one attempt. `limits` uses the loop's kinds: tokens and
// dollars (known only from what the agent reports), iterations (distinct
// kernels tried) and wall seconds since the attempt opened.
struct AttemptBudget {
  agent::BudgetLimits limits;
  std::optional<int> evaluations;  // calls that run the kernel: evaluate, profile, submit
};

struct McpOptions {
  // The run.
  std::string store = "kgb-runs.db";
  std::string run_id;             // empty: a new run; an existing id is joined (several servers may share one)
  std::string agent;              // the run's model label; empty: the first client's name and version
  std::string platform = "cpu-x86_64";
  std::string tasks = "*";        // the tasks sessions may work on (comma-separated globs)
  std::string task;               // every session opens an attempt on this task at initialize
  std::string prompts_dir;        // empty: the source tree's prompts/
  agent::EvaluationSettings evaluation;
  agent::FeedbackSettings feedback;
  AttemptBudget budget;
  double progress_seconds = 5;  // progress notifications while a tool runs (clients that ask for them)

  // HTTP.
  std::string host = "127.0.0.1";
  uint16_t port = 0;                // 0: any free port (see McpServer::url())
  std::string bearer_token;         // empty: no authentication
  std::vector<std::string> allowed_origins;  // browser origins allowed beside loopback ones
  double session_idle_seconds = 1800;        // an HTTP session unused this long ends
  double request_timeout_seconds = 30;       // to receive a request's headers and body
  int max_sessions = 64;
  size_t max_message_bytes = 4u << 20;
};

class McpServer {
 public:
  // Loads the platform, the tasks and the prompts and opens the store; errors
  // are configuration errors (unknown platform, no task matches, ...).
  static Result<std::unique_ptr<McpServer>> create(McpOptions options);
  ~McpServer();
  McpServer(const McpServer&) = delete;
  McpServer& operator=(const McpServer&) = delete;

  // One session on the given descriptors until the client closes its side or
  // a signal (SIGINT/SIGTERM) stops the server; stdout carries protocol
  // messages only (anything else the process prints goes to stderr).
  Status serve_stdio(int in_fd, int out_fd);

  // Binds and serves on a thread of its own; returns the port.
  Result<uint16_t> start_http();
  // Blocks until SIGINT/SIGTERM or stop(); then ends every session (tool
  // calls in flight finish and are recorded) and the run's session.
  void wait();
  void stop();  // from any thread

  std::string url() const;  // http://host:port/mcp
  const std::string& run_id() const;

  struct Impl;

 private:
  explicit McpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kgb::mcp
