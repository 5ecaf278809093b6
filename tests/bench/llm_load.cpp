// Load benchmark of the LLM client against the oracle server:
// N concurrent streaming requests (default 500) with injected 429/500
// failures (default 5% of requests), all on loopback.
//
// The server runs in a child process (forked before any thread exists), so
// the figures below are the client's alone: peak RSS, and CPU time per
// request (user + system of the client process over the run). The run fails
// (exit 1) unless every request completes and the token totals agree exactly
// between the client's sum, the server's counters and the oracle's estimate
// recomputed from each reply.
//
//   kgb_bench_llm_load [--requests 500] [--failure-rate 0.05] [--chunk-chars 64]
//                      [--solution FILE] [--no-stream] [--json]
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "kgb/llm/client.h"
#include "kgb/oracle/prompt.h"
#include "kgb/oracle/server.h"

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

struct Settings {
  int requests = 500;
  double failure_rate = 0.05;  // half 429, half 500
  std::size_t chunk_chars = 64;
  std::string solution_file = KGB_BENCH_DEFAULT_SOLUTION;
  bool stream = true;
  bool json = false;
  uint64_t seed = 1;
};

bool parse(int argc, char** argv, Settings& s) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--requests" && (v = next())) s.requests = std::atoi(v);
    else if (a == "--failure-rate" && (v = next())) s.failure_rate = std::atof(v);
    else if (a == "--chunk-chars" && (v = next())) s.chunk_chars = static_cast<std::size_t>(std::atoi(v));
    else if (a == "--solution" && (v = next())) s.solution_file = v;
    else if (a == "--seed" && (v = next())) s.seed = std::strtoull(v, nullptr, 10);
    else if (a == "--no-stream") s.stream = false;
    else if (a == "--json") s.json = true;
    else {
      std::cerr << "usage: kgb_bench_llm_load [--requests N] [--failure-rate P] [--chunk-chars N] [--solution FILE]"
                   " [--seed S] [--no-stream] [--json]\n";
      return false;
    }
  }
  return s.requests > 0 && s.failure_rate >= 0 && s.failure_rate <= 1;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A stand-in solution when the tree's file is not there: ~10 KB of C++.
std::string synthetic_solution() {
  std::string s = "#include \"kgb_kernel.h\"\n";
  for (int i = 0; i < 200; ++i) s += "static inline float helper_" + std::to_string(i) + "(float x) { return x * " + std::to_string(i) + ".5f; }\n";
  s += "extern \"C\" int kgb_bench_kernel(const kgb_tensor* x, kgb_tensor* out, kgb_stream stream) { return 0; }\n";
  return s;
}

double cpu_seconds(const rusage& u) {
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string read_line(int fd) {
  std::string line;
  char c;
  while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

// The child: serve until the parent writes to `stop_fd`, then report.
[[noreturn]] void serve(const Settings& s, const std::string& solution, int report_fd, int stop_fd) {
  auto catalog = std::make_shared<kgb::oracle::InMemoryCatalog>();
  kgb::oracle::KernelTarget target;
  target.task_id = "bench/kernel";
  target.platform = "cpu-x86_64";
  target.backend = "cpu";
  target.fence_language = "cpp";
  target.source = solution;
  target.entry = "kgb_bench_kernel";
  catalog->add(target);
  kgb::oracle::OracleOptions options;
  options.port = 0;
  options.seed = s.seed;
  options.chunk_chars = s.chunk_chars;
  options.faults.http_429 = s.failure_rate / 2;
  options.faults.http_500 = s.failure_rate / 2;
  options.retry_after = 20ms;
  kgb::oracle::OracleServer server(options, catalog);
  auto port = server.start();
  if (!port) {
    write_all(report_fd, "error " + port.error().message + "\n");
    _exit(2);
  }
  write_all(report_fd, std::to_string(port.value()) + "\n");
  char c;
  while (::read(stop_fd, &c, 1) < 0) {}
  const kgb::oracle::OracleStats st = server.stats();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  nlohmann::json report = {{"requests", st.requests},
                           {"answered", st.answered},
                           {"injected_429", st.injected_429},
                           {"injected_500", st.injected_500},
                           {"prompt_tokens", st.prompt_tokens},
                           {"completion_tokens", st.completion_tokens},
                           {"cpu_seconds", cpu_seconds(usage)},
                           {"max_rss_kb", usage.ru_maxrss}};
  write_all(report_fd, report.dump() + "\n");
  server.stop();
  _exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  if (!parse(argc, argv, s)) return 2;
  std::string solution = read_file(s.solution_file);
  const bool real_solution = !solution.empty();
  if (!real_solution) solution = synthetic_solution();

  // Enough descriptors for one connection per request on both sides.
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = files.rlim_max;
  setrlimit(RLIMIT_NOFILE, &files);

  int report_pipe[2], stop_pipe[2];
  if (pipe(report_pipe) != 0 || pipe(stop_pipe) != 0) return 3;
  const pid_t child = fork();
  if (child < 0) return 3;
  if (child == 0) {
    close(report_pipe[0]);
    close(stop_pipe[1]);
    serve(s, solution, report_pipe[1], stop_pipe[0]);
  }
  close(report_pipe[1]);
  close(stop_pipe[0]);
  const std::string port_line = read_line(report_pipe[0]);
  if (port_line.empty() || port_line.starts_with("error")) {
    std::cerr << "oracle server did not start: " << port_line << "\n";
    return 3;
  }

  auto preset = kgb::llm::provider_preset("oracle");
  kgb::llm::ProviderConfig config = std::move(preset.value());
  config.base_url = "http://127.0.0.1:" + port_line + "/v1";
  config.http.proxy = kgb::llm::ProxySettings::none();
  config.http.max_idle_per_origin = static_cast<std::size_t>(s.requests);
  config.retry.max_retries = 10;
  config.retry.initial_backoff = 20ms;
  config.retry.max_backoff = 200ms;
  config.retry.seed = s.seed;
  config.limits.max_concurrent = s.requests;
  config.call_timeout = 120s;

  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const auto start = Clock::now();

  boost::asio::io_context io(1);
  kgb::llm::LlmClient client(io.get_executor(), config);
  std::vector<kgb::llm::ChatOutcome> outcomes(static_cast<std::size_t>(s.requests));
  std::vector<double> latency_ms(static_cast<std::size_t>(s.requests), 0);
  int failed_exceptions = 0;
  for (int i = 0; i < s.requests; ++i) {
    kgb::llm::ChatRequest request;
    request.model = "oracle";
    request.system = "You write fast, correct kernels.";
    request.messages.push_back(kgb::llm::Message::user("Request " + std::to_string(i) +
                                                       ": write the kernel.\nTask: bench/kernel\nPlatform: cpu-x86_64\n"));
    request.stream = s.stream;
    const auto issued = Clock::now();
    boost::asio::co_spawn(io, client.chat(std::move(request)),
                          [&, i, issued](std::exception_ptr e, kgb::llm::ChatOutcome out) {
                            if (e) ++failed_exceptions;
                            outcomes[static_cast<std::size_t>(i)] = std::move(out);
                            latency_ms[static_cast<std::size_t>(i)] =
                                std::chrono::duration<double, std::milli>(Clock::now() - issued).count();
                          });
  }
  io.run();
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  rusage after{};
  getrusage(RUSAGE_SELF, &after);

  write_all(stop_pipe[1], "x");
  const nlohmann::json server = nlohmann::json::parse(read_line(report_pipe[0]), nullptr, false);
  int status = 0;
  waitpid(child, &status, 0);

  int completed = 0, attempts = 0, retries = 0;
  int64_t client_in = 0, client_out = 0, expected_out = 0;
  bool estimated = true;
  std::vector<std::string> errors;
  for (const auto& o : outcomes) {
    attempts += o.stats.attempts;
    retries += o.stats.retries;
    if (!o.ok()) {
      errors.push_back(o.error ? o.error->message : "no outcome");
      continue;
    }
    ++completed;
    client_in += o.response->usage.input_tokens;
    client_out += o.response->usage.output_tokens;
    estimated = estimated && o.response->usage.estimated;
    expected_out += kgb::oracle::estimate_tokens(o.response->text);
  }
  std::sort(latency_ms.begin(), latency_ms.end());
  const double client_cpu = cpu_seconds(after) - cpu_seconds(before);
  const bool tokens_exact = !server.is_discarded() && client_in == server.value("prompt_tokens", -1) &&
                            client_out == server.value("completion_tokens", -1) && client_out == expected_out;
  const bool all_complete = completed == s.requests && failed_exceptions == 0;
  const int injected = server.is_discarded() ? -1 : server.value("injected_429", 0) + server.value("injected_500", 0);

  nlohmann::json result = {
      {"requests", s.requests},
      {"streaming", s.stream},
      {"failure_rate", s.failure_rate},
      {"chunk_chars", s.chunk_chars},
      {"solution_bytes", solution.size()},
      {"solution", real_solution ? s.solution_file : std::string("synthetic")},
      {"completed", completed},
      {"attempts", attempts},
      {"retries", retries},
      {"injected_failures", injected},
      {"tokens_in", client_in},
      {"tokens_out", client_out},
      {"tokens_exact", tokens_exact},
      {"tokens_estimated_label", estimated},
      {"wall_seconds", wall},
      {"latency_ms_p50", latency_ms[latency_ms.size() / 2]},
      {"latency_ms_p99", latency_ms[std::min(latency_ms.size() - 1, latency_ms.size() * 99 / 100)]},
      {"client_cpu_seconds", client_cpu},
      {"client_cpu_ms_per_request", client_cpu * 1000.0 / s.requests},
      {"client_peak_rss_mb", static_cast<double>(after.ru_maxrss) / 1024.0},
      {"server", server}};
  if (s.json) {
    std::cout << result.dump(2) << "\n";
  } else {
    std::printf("requests            %d %s, %.0f%% injected 429/500 (%d injected), chunks of %zu chars, %zu-byte solution\n",
                s.requests, s.stream ? "streaming" : "non-streaming", s.failure_rate * 100, injected, s.chunk_chars,
                solution.size());
    std::printf("completed           %d / %d (attempts %d, retries %d)\n", completed, s.requests, attempts, retries);
    std::printf("tokens              in %lld, out %lld; server %lld / %lld; recomputed out %lld -> %s\n",
                static_cast<long long>(client_in), static_cast<long long>(client_out),
                static_cast<long long>(server.value("prompt_tokens", -1)),
                static_cast<long long>(server.value("completion_tokens", -1)), static_cast<long long>(expected_out),
                tokens_exact ? "exact" : "MISMATCH");
    std::printf("wall                %.3f s (latency p50 %.1f ms, p99 %.1f ms)\n", wall,
                latency_ms[latency_ms.size() / 2], latency_ms[std::min(latency_ms.size() - 1, latency_ms.size() * 99 / 100)]);
    std::printf("client CPU          %.3f s total, %.3f ms per request\n", client_cpu, client_cpu * 1000.0 / s.requests);
    std::printf("client peak RSS     %.1f MB\n", static_cast<double>(after.ru_maxrss) / 1024.0);
    if (!server.is_discarded())
      std::printf("server (child)      CPU %.3f s, peak RSS %.1f MB\n", server.value("cpu_seconds", 0.0),
                  static_cast<double>(server.value("max_rss_kb", 0)) / 1024.0);
    for (std::size_t i = 0; i < std::min<std::size_t>(errors.size(), 5); ++i) std::printf("error: %s\n", errors[i].c_str());
  }
  return all_complete && tokens_exact ? 0 : 1;
}
