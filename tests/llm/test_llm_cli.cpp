// `kgb chat` and `kgb oracle-server` as a user runs them: the chat command in
// process (its output captured), the server as a real `kgb` child process.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kgb/llm/client.h"
#include "kgb/oracle/prompt.h"
#include "kgb/oracle/server.h"
#include "llm_commands.h"
#include "run_async.h"

using namespace kgb::oracle;

namespace {

std::shared_ptr<InMemoryCatalog> catalog() {
  auto c = std::make_shared<InMemoryCatalog>();
  KernelTarget t;
  t.task_id = "test/noop";
  t.platform = "cpu-x86_64";
  t.backend = "cpu";
  t.fence_language = "cpp";
  t.source = "extern \"C\" int kgb_test_noop(kgb_stream stream) { return 0; }\n";
  t.entry = "kgb_test_noop";
  c->add(t);
  return c;
}

struct Captured {
  int exit_code = -1;
  std::string out, err;
};

Captured run_cli(std::vector<std::string> args) {
  CLI::App app{"kgb"};
  int exit_code = 0;
  kgb::cli::add_llm_commands(app, exit_code);
  std::vector<const char*> argv = {"kgb"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  Captured c;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    c.exit_code = exit_code;
  } catch (const CLI::ParseError& e) {
    c.exit_code = app.exit(e);
  }
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  c.out = out.str();
  c.err = err.str();
  return c;
}

}  // namespace

TEST_CASE("kgb chat: reply, usage and cost against the oracle, text and JSON, both dialects") {
  OracleOptions options;
  options.port = 0;
  OracleServer server(options, catalog());
  REQUIRE(server.start());
  const std::string prompt = "Please.\nTask: test/noop\nPlatform: cpu-x86_64\n";

  Captured text = run_cli({"chat", "--provider", "oracle", "--base-url", server.base_url(), "--stream", prompt});
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("extern \"C\" int kgb_test_noop") != std::string::npos);
  CHECK(text.out.find("usage: input ") != std::string::npos);
  CHECK(text.out.find("estimated by the server") != std::string::npos);
  CHECK(text.out.find("cost: $0.000000") != std::string::npos);

  Captured json_out = run_cli({"chat", "--provider", "oracle-anthropic", "--model", "oracle", "--base-url",
                               server.base_url(), "--json", prompt});
  CHECK(json_out.exit_code == 0);
  auto j = nlohmann::json::parse(json_out.out);
  CHECK(j["ok"] == true);
  CHECK(j["usage"]["estimated"] == true);
  CHECK(j["usage"]["output_tokens"] == estimate_tokens(j["text"].get<std::string>()));
  CHECK(j["attempts"] == 1);
}

TEST_CASE("kgb chat: usage errors and failed calls have distinct exit codes") {
  CHECK(run_cli({"chat", "--provider", "nonsense", "--model", "m", "hi"}).exit_code == 2);
  CHECK(run_cli({"chat", "--provider", "openai", "hi"}).exit_code == 2);  // no --model
  CHECK(run_cli({"chat", "--model", "m", "hi"}).exit_code != 0);          // no --provider

  unsetenv("KGB_TEST_CLI_NO_KEY");
  Captured missing_key = run_cli({"chat", "--provider", "openai", "--model", "gpt-4o", "--api-key-env",
                                  "KGB_TEST_CLI_NO_KEY", "--base-url", "http://127.0.0.1:9/v1", "hi"});
  CHECK(missing_key.exit_code == 2);
  CHECK(missing_key.err.find("KGB_TEST_CLI_NO_KEY") != std::string::npos);

  OracleOptions failing;
  failing.port = 0;
  failing.faults.http_500 = 1.0;
  OracleServer server(failing, catalog());
  REQUIRE(server.start());
  Captured failed = run_cli({"chat", "--provider", "oracle", "--base-url", server.base_url(), "--retries", "1", "hi"});
  CHECK(failed.exit_code == 1);
  CHECK(failed.err.find("HTTP 500") != std::string::npos);
  CHECK(failed.out.find("2 attempt(s)") != std::string::npos);
}

#ifdef KGB_TEST_KGB_BINARY
TEST_CASE("kgb oracle-server: a real process, stopped by SIGTERM") {
  if (access(KGB_TEST_KGB_BINARY, X_OK) != 0) {
    MESSAGE("kgb is not built: the oracle-server process test did not run");
    return;
  }
  int out_pipe[2];
  REQUIRE(pipe(out_pipe) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    close(out_pipe[0]);
    execl(KGB_TEST_KGB_BINARY, "kgb", "oracle-server", "--port", "0", "--compile-error-attempts", "1", (char*)nullptr);
    _exit(127);
  }
  close(out_pipe[1]);
  std::string line;
  char c;
  while (read(out_pipe[0], &c, 1) == 1 && c != '\n') line += c;
  REQUIRE_MESSAGE(line.find("listening on http://127.0.0.1:") != std::string::npos, line);
  const std::string url = line.substr(line.find("http://"), line.find(" (") - line.find("http://"));

  auto config = kgb::llm::provider_preset("oracle").value();
  config.base_url = url;
  config.http.proxy = kgb::llm::ProxySettings::none();
  kgb::llm::ChatRequest request;
  request.model = "oracle";
  request.messages.push_back(kgb::llm::Message::user("Task: aten/softmax\nPlatform: cpu-x86_64\n"));
  boost::asio::io_context io;
  kgb::llm::LlmClient client(io.get_executor(), config);
  auto outcome = kgb::test::run_one(io, client.chat(request));
  REQUIRE(outcome.ok());
  CHECK(outcome.response->header("x-kgb-oracle-fault") == "compile_error");
  CHECK(extract_code_block(outcome.response->text).find("kgb_aten_softmax") != std::string::npos);

  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::string rest;
  while (read(out_pipe[0], &c, 1) == 1) rest += c;
  close(out_pipe[0]);
  CHECK(rest.find("1 requests, 1 answered") != std::string::npos);
}
#endif
