// The oracle's decisions without sockets: prompt reading, code masking, the
// two mutations, attempt counting and the seeded failure draws.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "kgb/oracle/mutate.h"
#include "kgb/oracle/prompt.h"
#include "kgb/oracle/server.h"

using namespace kgb::oracle;

namespace {

const char* kSolution = R"(// scale: out = 2 * x. Mentions kgb_test_scale( in a comment {
#include "kgb_kernel.h"
static const char* kName = "kgb_test_scale(not code) {";
extern "C" int kgb_test_scale(const kgb_tensor* x, double factor, kgb_tensor* out, kgb_stream stream);
static const char* kRaw = R"xx(kgb_test_scale( ) { )xx";
extern "C" int kgb_test_scale(const kgb_tensor* x, double factor, kgb_tensor* out, kgb_stream stream) {
  const long long n = 1'000;
  (void)n;
  char c = '{';
  (void)c;
  return 0;
}
)";

KernelTarget scale_target(std::string backend = "cpu") {
  KernelTarget t;
  t.task_id = "test/scale";
  t.platform = backend == "cpu" ? "cpu-x86_64" : backend + "-x";
  t.backend = backend;
  t.fence_language = backend == "cuda" ? "cuda" : "cpp";
  t.source = kSolution;
  t.entry = "kgb_test_scale";
  t.entry_declaration = "extern \"C\" int kgb_test_scale(const kgb_tensor* x, double factor, kgb_tensor* out, kgb_stream stream);";
  t.outputs = {"out"};
  return t;
}

}  // namespace

TEST_CASE("oracle prompt: Task and Platform lines, decorated or not, last one wins") {
  PromptFacts f = parse_prompt("Write a kernel.\nTask: aten/softmax\nPlatform: cpu-x86_64\n");
  CHECK(f.task_id == "aten/softmax");
  CHECK(f.platform == "cpu-x86_64");
  f = parse_prompt("## Kernel\n- **Task:** `vllm/rms_norm` (f16)\n> Platform: `cuda-sm90`\n");
  CHECK(f.task_id == "vllm/rms_norm");
  CHECK(f.platform == "cuda-sm90");
  f = parse_prompt("Task: a/b\nPlatform: p1\nlater...\nTask: c/d\n");
  CHECK(f.task_id == "c/d");
  CHECK(f.platform == "p1");
  f = parse_prompt("Tell me a joke about tasks: none here");
  CHECK(f.task_id.empty());
  CHECK(f.platform.empty());
}

TEST_CASE("oracle: token estimates and code block extraction") {
  CHECK(estimate_tokens("") == 0);
  CHECK(estimate_tokens("abc") == 1);
  CHECK(estimate_tokens("abcd") == 1);
  CHECK(estimate_tokens("abcde") == 2);
  CHECK(extract_code_block("Here:\n\n```cpp\nint x;\nint y;\n```\nbye") == "int x;\nint y;\n");
  CHECK(extract_code_block("no code") == "");
}

TEST_CASE("mutate: masking keeps code, blanks comments and all string forms") {
  const std::string masked = mask_comments_and_strings(kSolution);
  CHECK(masked.size() == std::string(kSolution).size());
  CHECK(masked.find("Mentions") == std::string::npos);
  CHECK(masked.find("not code") == std::string::npos);
  CHECK(masked.find("xx(kgb_test_scale") == std::string::npos);
  CHECK(masked.find("1'000") != std::string::npos);  // digit separator is not a character literal
  CHECK(masked.find("'{'") == std::string::npos);
  CHECK(std::count(masked.begin(), masked.end(), '\n') == std::count(kSolution, kSolution + masked.size(), '\n'));
}

TEST_CASE("mutate: the definition is found past comments, strings and the declaration") {
  auto where = find_entry_definition(kSolution, "kgb_test_scale");
  REQUIRE(where);
  const std::string source = kSolution;
  CHECK(source.substr(where->name, 14) == "kgb_test_scale");
  CHECK(source[where->body_open] == '{');
  CHECK(source[where->body_close] == '}');
  CHECK(source.find("return 0;") > where->body_open);
  CHECK(source.find("return 0;") < where->body_close);
  CHECK_FALSE(find_entry_definition(kSolution, "kgb_missing"));
}

TEST_CASE("mutate: compile error inside the entry body, with its line") {
  Mutation m = inject_compile_error(kSolution, "kgb_test_scale");
  CHECK(m.kind == "compile_error");
  std::vector<std::string> lines;
  std::string line;
  for (char c : m.source) {
    if (c == '\n') {
      lines.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  REQUIRE(m.line >= 1);
  REQUIRE(static_cast<std::size_t>(m.line) <= lines.size());
  CHECK(lines[m.line - 1].find("kgb_validate_arguments") != std::string::npos);
  CHECK(lines[m.line - 2].find("extern \"C\" int kgb_test_scale(") != std::string::npos);

  Mutation fallback = inject_compile_error("int unrelated() { return 1; }", "kgb_missing");
  CHECK(fallback.source.find("kgb_validate_arguments") != std::string::npos);
}

TEST_CASE("mutate: wrong-result wrappers for CPU, CUDA and HIP; none for OpenCL") {
  auto cpu = inject_wrong_result(scale_target("cpu"));
  REQUIRE(cpu);
  const std::string& s = cpu->source;
  CHECK(s.find("extern \"C\" int kgb_test_scale_oracle_impl(const kgb_tensor* x, double factor, kgb_tensor* out, kgb_stream stream) {") != std::string::npos);
  CHECK(s.find("extern \"C\" int kgb_test_scale(const kgb_tensor* x, double factor, kgb_tensor* out, kgb_stream stream) {") != std::string::npos);
  CHECK(s.find("kgb_test_scale_oracle_impl(x, factor, out, stream)") != std::string::npos);
  CHECK(s.find("kgb_oracle_perturb(out, 0);") != std::string::npos);
  CHECK(s.find("\"kgb_test_scale(not code) {\"") != std::string::npos);  // strings untouched
  CHECK(s.find("__global__") == std::string::npos);

  KernelTarget random = scale_target("cpu");
  random.statistical = true;
  CHECK(inject_wrong_result(random)->source.find("kgb_oracle_perturb(out, 1);") != std::string::npos);

  auto cuda = inject_wrong_result(scale_target("cuda"));
  REQUIRE(cuda);
  CHECK(cuda->source.find("__global__ static void kgb_oracle_perturb_kernel") != std::string::npos);
  CHECK(cuda->source.find("cudaStream_t") != std::string::npos);
  CHECK(cuda->source.find("kgb_oracle_perturb(out, 0, stream);") != std::string::npos);
  auto hip = inject_wrong_result(scale_target("hip"));
  REQUIRE(hip);
  CHECK(hip->source.find("hipStream_t") != std::string::npos);

  auto opencl = inject_wrong_result(scale_target("opencl"));
  REQUIRE_FALSE(opencl);
  CHECK(opencl.error().code == "oracle.no-wrapper");
  KernelTarget no_output = scale_target();
  no_output.outputs.clear();
  CHECK_FALSE(inject_wrong_result(no_output));
}

TEST_CASE("brain: attempts per session and task, faults in order, fallback noted") {
  auto catalog = std::make_shared<InMemoryCatalog>();
  catalog->add(scale_target("cpu"));
  catalog->add(scale_target("opencl"));
  OracleOptions options;
  options.compile_error_attempts = 2;
  options.wrong_result_attempts = 1;
  options.reasoning = true;
  OracleBrain brain(options, catalog);
  PromptFacts cpu{"test/scale", "cpu-x86_64"};

  std::vector<std::string> faults;
  for (int i = 0; i < 4; ++i) {
    AnswerPlan plan = brain.answer("run-1", cpu, true);
    CHECK(plan.known);
    CHECK(plan.attempt == i + 1);
    faults.push_back(plan.fault);
    CHECK(plan.text.find("```cpp\n") != std::string::npos);
    CHECK_FALSE(plan.reasoning.empty());
  }
  CHECK(faults == std::vector<std::string>{"compile_error", "compile_error", "wrong_result", "none"});
  CHECK(extract_code_block(brain.answer("run-1", cpu, true).text) == kSolution);

  // Another session starts over; an uncommitted answer does not count.
  CHECK(brain.answer("run-2", cpu, false).attempt == 1);
  CHECK(brain.answer("run-2", cpu, true).attempt == 1);
  CHECK(brain.answer("run-2", cpu, true).attempt == 2);

  PromptFacts opencl{"test/scale", "opencl-x"};
  AnswerPlan a1 = brain.answer("", opencl, true);
  AnswerPlan a2 = brain.answer("", opencl, true);
  AnswerPlan a3 = brain.answer("", opencl, true);
  CHECK(a1.fault == "compile_error");
  CHECK(a2.fault == "compile_error");
  CHECK(a3.fault == "compile_error");
  CHECK(a3.note.find("wrong result unavailable") != std::string::npos);

  AnswerPlan unknown = brain.answer("", {"test/nothing", "cpu-x86_64"}, true);
  CHECK_FALSE(unknown.known);
  CHECK(unknown.text.find("```") == std::string::npos);
  CHECK(unknown.text.find("test/nothing") != std::string::npos);
  CHECK_FALSE(brain.answer("", {"", ""}, true).known);
  CHECK(brain.answer("", {"test/scale", ""}, true).text.find("no platform") != std::string::npos);
}

TEST_CASE("brain: failure draws are seeded, per body and occurrence, at the given rates") {
  auto catalog = std::make_shared<InMemoryCatalog>();
  OracleOptions options;
  options.seed = 7;
  options.faults = {0.1, 0.1, 0.1, 0.1};
  options.latency_min = std::chrono::milliseconds(5);
  options.latency_max = std::chrono::milliseconds(15);
  OracleBrain a(options, catalog), b(options, catalog);
  std::map<HttpFault, int> counts;
  for (int i = 0; i < 4000; ++i) {
    const std::string body = "{\"n\":" + std::to_string(i % 1000) + "}";
    auto da = a.draw(body, true);
    auto db = b.draw(body, true);
    CHECK(da.fault == db.fault);
    CHECK(da.latency == db.latency);
    CHECK(da.latency >= std::chrono::milliseconds(5));
    CHECK(da.latency <= std::chrono::milliseconds(15));
    ++counts[da.fault];
  }
  for (HttpFault f : {HttpFault::TooManyRequests, HttpFault::ServerError, HttpFault::MidStream, HttpFault::Truncate}) {
    CHECK(counts[f] > 300);
    CHECK(counts[f] < 500);
  }
  // A repeated body draws anew (its retry is not doomed to the same fate).
  OracleOptions always = options;
  always.faults = {0.5, 0, 0, 0};
  OracleBrain c(always, catalog);
  int differs = 0;
  for (int i = 0; i < 50; ++i) {
    const std::string body = "body" + std::to_string(i);
    differs += c.draw(body, false).fault != c.draw(body, false).fault;
  }
  CHECK(differs > 5);
  // Mid-stream failures only hit streams.
  OracleOptions mid = options;
  mid.faults = {0, 0, 1.0, 0};
  OracleBrain d(mid, catalog);
  CHECK(d.draw("x", false).fault == HttpFault::None);
  CHECK(d.draw("x", true).fault == HttpFault::MidStream);
}
