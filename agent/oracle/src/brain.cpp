#include <map>
#include <mutex>
#include <unordered_map>

#include "kgb/oracle/mutate.h"
#include "kgb/oracle/server.h"

namespace kgb::oracle {
namespace {

uint64_t fnv1a(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

double unit(uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53; }

std::string polite_reply(const PromptFacts& facts, const kgb::Error* error) {
  const std::string example = "for example the lines `Task: aten/softmax` and `Platform: cpu-x86_64`";
  if (facts.task_id.empty())
    return "I can write a kernel when your message names a task and a platform, " + example +
           ". I could not find a task in your message, so there is no code in this reply.";
  if (facts.platform.empty())
    return "Your message names the task `" + facts.task_id + "` but no platform. Add a line such as "
           "`Platform: cpu-x86_64` and I will answer with a kernel.";
  if (error && error->code == "oracle.unknown-task")
    return "I do not know a task called `" + facts.task_id + "`, so I cannot write a kernel for it. Task names look like "
           "`aten/softmax` (source/name).";
  if (error && error->code == "oracle.unknown-platform")
    return "I do not know the platform `" + facts.platform + "`. Platform names look like `cpu-x86_64`.";
  return "I have no kernel for `" + facts.task_id + "` on `" + facts.platform + "` yet, sorry.";
}

}  // namespace

struct OracleBrain::Impl {
  OracleOptions options;
  std::shared_ptr<const SolutionCatalog> catalog;
  std::mutex mutex;
  std::map<std::string, int> attempts;           // session, task, platform -> answers given
  std::unordered_map<uint64_t, uint64_t> seen;   // body hash -> times seen
};

OracleBrain::OracleBrain(OracleOptions options, std::shared_ptr<const SolutionCatalog> catalog)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->catalog = std::move(catalog);
}

OracleBrain::~OracleBrain() = default;

const OracleOptions& OracleBrain::options() const { return impl_->options; }

OracleBrain::Draw OracleBrain::draw(std::string_view request_body, bool stream) {
  const uint64_t h = fnv1a(request_body);
  uint64_t occurrence;
  {
    std::lock_guard lock(impl_->mutex);
    occurrence = impl_->seen[h]++;
  }
  const FaultRates& r = impl_->options.faults;
  const uint64_t x = splitmix(impl_->options.seed ^ h ^ splitmix(occurrence));
  const double u = unit(x);
  Draw d;
  double edge = r.http_429;
  if (u < edge) d.fault = HttpFault::TooManyRequests;
  else if (u < (edge += r.http_500)) d.fault = HttpFault::ServerError;
  else if (u < (edge += r.mid_stream)) d.fault = stream ? HttpFault::MidStream : HttpFault::None;
  else if (u < (edge += r.truncate)) d.fault = HttpFault::Truncate;
  const auto lo = impl_->options.latency_min, hi = std::max(impl_->options.latency_min, impl_->options.latency_max);
  d.latency = lo + std::chrono::milliseconds(static_cast<int64_t>(unit(splitmix(x)) * static_cast<double>((hi - lo).count() + 1)));
  if (d.latency > hi) d.latency = hi;
  return d;
}

AnswerPlan OracleBrain::answer(const std::string& session, const PromptFacts& facts, bool commit) {
  AnswerPlan plan;
  plan.task_id = facts.task_id;
  plan.platform = facts.platform;
  if (facts.task_id.empty() || facts.platform.empty()) {
    plan.text = polite_reply(facts, nullptr);
    return plan;
  }
  auto target = impl_->catalog->find(facts.task_id, facts.platform);
  if (!target) {
    plan.text = polite_reply(facts, &target.error());
    return plan;
  }
  plan.known = true;
  {
    std::lock_guard lock(impl_->mutex);
    int& count = impl_->attempts[session + '\x1f' + facts.task_id + '\x1f' + facts.platform];
    plan.attempt = count + 1;
    if (commit) count = plan.attempt;
  }
  const OracleOptions& o = impl_->options;
  std::string code = target->source;
  if (plan.attempt <= o.compile_error_attempts) {
    code = inject_compile_error(code, target->entry).source;
    plan.fault = "compile_error";
  } else if (plan.attempt <= o.compile_error_attempts + o.wrong_result_attempts) {
    auto wrong = inject_wrong_result(*target);
    if (wrong) {
      code = std::move(wrong->source);
      plan.fault = "wrong_result";
    } else {
      code = inject_compile_error(code, target->entry).source;
      plan.fault = "compile_error";
      plan.note = "wrong result unavailable (" + wrong.error().message + "); compile error instead";
    }
  }
  if (!code.empty() && code.back() != '\n') code += '\n';
  plan.text = "Here is an implementation of `" + target->task_id + "` for the " + target->platform +
              " platform. It implements the entry point `" + target->entry +
              "` as specified, for every dtype and layout the task lists.\n\n```" + target->fence_language + "\n" +
              code + "```\n";
  if (o.reasoning)
    plan.reasoning = "The prompt asks for " + target->task_id + " on " + target->platform + " (" + target->backend +
                     " backend). I will write the whole kernel around the entry point " + target->entry +
                     ", following the strides of each tensor view.";
  return plan;
}

}  // namespace kgb::oracle
