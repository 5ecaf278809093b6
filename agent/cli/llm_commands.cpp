#include "llm_commands.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <nlohmann/json.hpp>

#include "exit_codes.h"
#include "kgb/llm/client.h"
#include "kgb/oracle/server.h"

namespace kgb::cli {
namespace {

struct OracleServerOptions {
  oracle::OracleOptions server;
  std::string latency = "0";  // "MS" or "MIN:MAX"
  int64_t chunk_delay_ms = 0;
  int64_t retry_after_ms = 200;
};

struct ChatOptions {
  std::string provider;
  std::string model;
  std::string base_url;
  std::string api_key_env;
  bool api_key_env_given = false;
  std::string system;
  std::string prompt;
  bool stream = false;
  int64_t max_tokens = 0;
  double temperature = std::nan("");
  std::string reasoning_effort;
  int64_t thinking_budget = 0;
  std::string ca_file;
  double timeout_seconds = 600;
  int retries = 4;
  std::string prices_file;
  std::string session;
  std::vector<std::string> extra;  // NAME=VALUE request fields
  bool json = false;
};

bool parse_latency(const std::string& text, std::chrono::milliseconds& lo, std::chrono::milliseconds& hi) {
  try {
    const auto colon = text.find(':');
    lo = std::chrono::milliseconds(std::stoll(text.substr(0, colon)));
    hi = colon == std::string::npos ? lo : std::chrono::milliseconds(std::stoll(text.substr(colon + 1)));
  } catch (const std::exception&) {
    return false;
  }
  return lo.count() >= 0 && hi >= lo;
}

int run_oracle_server(OracleServerOptions& o) {
  if (!parse_latency(o.latency, o.server.latency_min, o.server.latency_max)) {
    std::cerr << "kgb oracle-server: --latency-ms takes MS or MIN:MAX (milliseconds)\n";
    return kExitUsage;
  }
  const oracle::FaultRates& f = o.server.faults;
  for (double rate : {f.http_429, f.http_500, f.mid_stream, f.truncate})
    if (rate < 0 || rate > 1) {
      std::cerr << "kgb oracle-server: failure rates must lie in [0, 1]\n";
      return kExitUsage;
    }
  if (f.http_429 + f.http_500 + f.mid_stream + f.truncate > 1) {
    std::cerr << "kgb oracle-server: the failure rates add up to more than 1\n";
    return kExitUsage;
  }
  o.server.chunk_delay = std::chrono::milliseconds(o.chunk_delay_ms);
  o.server.retry_after = std::chrono::milliseconds(o.retry_after_ms);
  std::shared_ptr<oracle::SolutionCatalog> catalog;
#ifdef KGB_ORACLE_HAS_BUNDLED_CATALOG
  std::vector<kgb::Error> errors;
  catalog = oracle::make_bundled_catalog(&errors);
  for (const auto& e : errors) std::cerr << "warning: " << e.message << "\n";
#else
  std::cerr << "kgb oracle-server: this build has no task catalog (the harness core is not built)\n";
  return kExitInfrastructure;
#endif
  oracle::OracleServer server(o.server, catalog);
  server.stop_on_signals();
  auto started = server.start();
  if (!started) {
    std::cerr << "kgb oracle-server: " << started.error().message << "\n";
    return kExitInfrastructure;
  }
  std::cout << "oracle: listening on " << server.base_url() << " (model \"" << o.server.model << "\", seed "
            << o.server.seed << "); Ctrl-C stops it" << std::endl;
  server.wait();
  const oracle::OracleStats s = server.stats();
  std::cout << "oracle: " << s.requests << " requests, " << s.answered << " answered, injected " << s.injected_429
            << "x429 " << s.injected_500 << "x500 " << s.injected_mid_stream << " mid-stream " << s.injected_truncated
            << " truncated; faults " << s.compile_error_faults << " compile, " << s.wrong_result_faults
            << " wrong-result; " << s.tool_call_answers << " tool-call answers; tokens (estimated) " << s.prompt_tokens << " in, " << s.completion_tokens << " out"
            << std::endl;
  return kExitOk;
}

std::string seconds(std::chrono::milliseconds ms) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(2) << static_cast<double>(ms.count()) / 1000.0 << " s";
  return os.str();
}

nlohmann::json usage_json(const llm::Usage& u) {
  return {{"input_tokens", u.input_tokens},         {"cached_input_tokens", u.cached_input_tokens},
          {"cache_write_tokens", u.cache_write_tokens}, {"output_tokens", u.output_tokens},
          {"reasoning_tokens", u.reasoning_tokens}, {"reported", u.reported},
          {"estimated", u.estimated}};
}

int run_chat(ChatOptions& o) {
  auto preset = llm::provider_preset(o.provider);
  if (!preset) {
    std::cerr << "kgb chat: " << preset.error().message << "\n";
    return kExitUsage;
  }
  llm::ProviderConfig config = std::move(preset.value());
  if (!o.base_url.empty()) llm::use_base_url(config, o.base_url);
  if (o.api_key_env_given) {
    config.api_key_env = o.api_key_env;
    config.api_key_required = !o.api_key_env.empty();
  }
  if (o.model.empty()) {
    if (o.provider.rfind("oracle", 0) != 0) {
      std::cerr << "kgb chat: --model is required for provider " << o.provider << "\n";
      return kExitUsage;
    }
    o.model = "oracle";
  }
  config.http.tls.ca_file = o.ca_file;
  config.retry.max_retries = o.retries;
  config.call_timeout = std::chrono::milliseconds(static_cast<int64_t>(o.timeout_seconds * 1000));

  auto prices_result = llm::PriceTable::from_environment();
  if (!prices_result) {
    std::cerr << "kgb chat: " << prices_result.error().message << "\n";
    return kExitUsage;
  }
  auto prices = std::make_shared<llm::PriceTable>(std::move(prices_result.value()));
  if (!o.prices_file.empty())
    if (auto status = prices->merge_file(o.prices_file); !status) {
      std::cerr << "kgb chat: " << status.error().message << "\n";
      return kExitUsage;
    }

  if (o.prompt == "-") o.prompt.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  llm::ChatRequest request;
  request.model = o.model;
  request.system = o.system;
  request.messages.push_back(llm::Message::user(o.prompt));
  request.stream = o.stream;
  if (o.max_tokens > 0) request.max_output_tokens = o.max_tokens;
  if (!std::isnan(o.temperature)) request.temperature = o.temperature;
  request.reasoning_effort = o.reasoning_effort;
  if (o.thinking_budget > 0) request.thinking_budget = o.thinking_budget;
  if (!o.session.empty()) request.headers.push_back({"x-kgb-session", o.session});
  for (const auto& field : o.extra) {
    if (auto added = llm::add_extra_field(request.extra, field); !added) {
      std::cerr << "kgb chat: " << added.error().message << "\n";
      return kExitUsage;
    }
  }

  boost::asio::io_context io;
  llm::LlmClient client(io.get_executor(), config, prices);
  llm::CancelToken cancel;
  llm::CallOptions options;
  options.cancel = cancel;
  bool streamed_text = false;
  if (o.stream && !o.json)
    options.on_delta = [&](const llm::StreamDelta& d) {
      if (d.kind == llm::StreamDelta::Kind::Text) {
        std::cout << d.text << std::flush;
        streamed_text = true;
      } else if (d.kind == llm::StreamDelta::Kind::Restart && streamed_text) {
        std::cout << "\n[retrying: the stream was interrupted]\n" << std::flush;
      }
    };
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int) {
    if (!ec) cancel.cancel();
  });
  llm::ChatOutcome outcome;
  boost::asio::co_spawn(io, client.chat(std::move(request), std::move(options)), [&](std::exception_ptr e, llm::ChatOutcome out) {
    signals.cancel();
    if (e) std::rethrow_exception(e);
    outcome = std::move(out);
  });
  io.run();

  if (o.json) {
    nlohmann::json j = {{"provider", config.name}, {"model", o.model}, {"ok", outcome.ok()}};
    if (outcome.response) {
      j["text"] = outcome.response->text;
      j["reasoning"] = outcome.response->reasoning;
      j["finish_reason"] = outcome.response->finish_reason;
      nlohmann::json calls = nlohmann::json::array();
      for (const auto& c : outcome.response->tool_calls) calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
      j["tool_calls"] = calls;
    }
    if (outcome.error) {
      const auto& err = *outcome.error;
      j["error"] = {{"kind", std::string(llm::to_string(err.kind))}, {"http_status", err.http_status},
                    {"type", err.provider_type}, {"message", err.message}};
    }
    j["usage"] = usage_json(outcome.usage);
    j["cost_usd"] = outcome.cost_usd ? nlohmann::json(*outcome.cost_usd) : nlohmann::json(nullptr);
    j["attempts"] = outcome.stats.attempts;
    j["retries"] = outcome.stats.retries;
    j["elapsed_ms"] = outcome.stats.elapsed.count();
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    if (outcome.response) {
      if (!o.stream) std::cout << outcome.response->text;
      std::cout << "\n";
      if (!outcome.response->reasoning.empty())
        std::cout << "\n[reasoning: " << outcome.response->reasoning.size() << " characters]\n";
      for (const auto& c : outcome.response->tool_calls) std::cout << "[tool call " << c.name << " " << c.arguments << "]\n";
    } else {
      if (streamed_text) std::cout << "\n";
      const auto& err = *outcome.error;
      std::cerr << "kgb chat: " << llm::to_string(err.kind) << " error";
      if (err.http_status) std::cerr << " (HTTP " << err.http_status << ")";
      if (!err.provider_type.empty()) std::cerr << " [" << err.provider_type << "]";
      std::cerr << ": " << err.message << "\n";
    }
    const llm::Usage& u = outcome.usage;
    std::cout << "---\nusage: input " << u.input_tokens << " tokens (cached " << u.cached_input_tokens << ", cache write "
              << u.cache_write_tokens << "), output " << u.output_tokens << " tokens (reasoning " << u.reasoning_tokens
              << ")" << (u.estimated ? ", estimated by the server" : "") << (u.reported ? "" : ", not reported") << "\n";
    if (outcome.cost_usd) std::cout << "cost: $" << std::fixed << std::setprecision(6) << *outcome.cost_usd << "\n";
    else std::cout << "cost: unknown (no price for " << o.model << ")\n";
    std::cout << "call: " << outcome.stats.attempts << " attempt(s), " << outcome.stats.retries << " retries, "
              << seconds(outcome.stats.elapsed);
    if (outcome.stats.time_to_first_token) std::cout << ", first token after " << seconds(*outcome.stats.time_to_first_token);
    std::cout << "\n";
  }
  if (outcome.ok()) return kExitOk;
  return outcome.error->kind == llm::ErrorKind::Cancelled ? kExitInterrupted
         : outcome.error->kind == llm::ErrorKind::Config  ? kExitUsage
                                                          : kExitFailed;
}

}  // namespace

void add_llm_commands(CLI::App& app, int& exit_code) {
  auto server_options = std::make_shared<OracleServerOptions>();
  CLI::App* server = app.add_subcommand("oracle-server", "Serve the bundled solutions as an OpenAI/Anthropic-compatible model");
  auto& so = server_options->server;
  server->add_option("--host", so.host, "Address to listen on")->capture_default_str();
  server->add_option("--port", so.port, "Port (0: any free port, printed at start)")->capture_default_str();
  server->add_option("--seed", so.seed, "Seed of every random choice")->capture_default_str();
  server->add_option("--compile-error-attempts", so.compile_error_attempts, "Attempts 1..K of a conversation carry a compile error")
      ->check(CLI::NonNegativeNumber);
  server->add_option("--wrong-result-attempts", so.wrong_result_attempts, "The next K attempts compute a wrong result")
      ->check(CLI::NonNegativeNumber);
  server->add_option("--latency-ms", server_options->latency, "Delay before each answer: MS or MIN:MAX (uniform)");
  server->add_option("--chunk-delay-ms", server_options->chunk_delay_ms, "Pause between streamed chunks")
      ->check(CLI::NonNegativeNumber);
  server->add_option("--chunk-chars", so.chunk_chars, "Characters per streamed chunk")->capture_default_str();
  server->add_option("--fail-429", so.faults.http_429, "Share of requests answered 429 with retry-after");
  server->add_option("--fail-500", so.faults.http_500, "Share of requests answered 500");
  server->add_option("--fail-mid-stream", so.faults.mid_stream, "Share of streams ending in an error event");
  server->add_option("--fail-truncate", so.faults.truncate, "Share of answers cut off by closing the connection");
  server->add_option("--retry-after-ms", server_options->retry_after_ms, "Wait asked for by injected 429s")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  server->add_flag("--reasoning", so.reasoning, "Add a short reasoning text to each answer");
  server->add_option("--model", so.model, "Model name reported by /v1/models")->capture_default_str();
  server->add_option("--threads", so.threads, "Server threads")->check(CLI::PositiveNumber)->capture_default_str();
  server->callback([server_options, &exit_code] { exit_code = run_oracle_server(*server_options); });

  auto chat_options = std::make_shared<ChatOptions>();
  CLI::App* chat = app.add_subcommand("chat", "One call to a provider: prints the reply, the usage and the cost");
  auto& co = *chat_options;
  std::string presets;
  for (const auto& name : llm::provider_preset_names()) presets += (presets.empty() ? "" : ", ") + name;
  chat->add_option("--provider", co.provider, "Provider: " + presets)->required();
  chat->add_option("--model", co.model, "Model name (optional for the oracle)");
  chat->add_option("--base-url", co.base_url, "Base URL up to the API version, e.g. http://localhost:8000/v1");
  chat->add_option("--api-key-env", co.api_key_env, "Environment variable holding the API key (empty: none)");
  chat->add_option("--system", co.system, "System prompt");
  chat->add_flag("--stream", co.stream, "Stream the reply as it is generated");
  chat->add_option("--max-tokens", co.max_tokens, "Output token limit")->check(CLI::NonNegativeNumber);
  chat->add_option("--temperature", co.temperature, "Sampling temperature");
  chat->add_option("--reasoning-effort", co.reasoning_effort, "OpenAI reasoning models: low, medium, high");
  chat->add_option("--thinking-budget", co.thinking_budget, "Anthropic extended thinking budget in tokens");
  chat->add_option("--ca-file", co.ca_file, "PEM file of trusted CAs instead of the system store");
  chat->add_option("--timeout", co.timeout_seconds, "Seconds for the whole call, retries included")->capture_default_str();
  chat->add_option("--retries", co.retries, "Retries on transient failures")->check(CLI::NonNegativeNumber)->capture_default_str();
  chat->add_option("--prices", co.prices_file, "Price file merged over the defaults (JSON)");
  chat->add_option("--session", co.session, "Sent as X-KGB-Session (a label for the server's logs)");
  chat->add_option("--extra", co.extra,
                   "Provider-specific request field NAME=VALUE, VALUE as JSON or a bare word (repeatable), e.g. top_k=40");
  chat->add_flag("--json", co.json, "Print one JSON object instead of text");
  chat->add_option("prompt", co.prompt, "The user message ('-' reads standard input)")->required();
  chat->callback([chat_options, chat, &exit_code] {
    chat_options->api_key_env_given = chat->get_option("--api-key-env")->count() > 0;
    exit_code = run_chat(*chat_options);
  });
}

}  // namespace kgb::cli
