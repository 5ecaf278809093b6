// The vLLM pilot tasks of task format v2, end to end on cpu-x86_64 with real
// g++ and isolated runners: vllm/moe_align_block_size (a custom check: one
// multiset per expert, order inside an expert free) and
// vllm/scaled_fp8_quant (fp8 e4m3fn outputs that must saturate, overloads,
// an optional tensor). Each feature is exercised by candidates under
// tests/core/v2_candidates/vllm_*: wrong ones must fail with the status that
// names the problem, and a correct one in another order must pass; the
// bundled CPU solutions pass.
#include <set>
#include <string>

#include "v2_candidate_support.h"

namespace {

using namespace kgb_v2_test;

// The verdict and its failing cases, for INFO.
std::string explain_cases(const kgb::Verdict& v) {
  std::string s = explain(v);
  for (const auto& c : v.cases)
    if (!c.passed) s += " {" + c.name + " " + c.status + ": " + c.message + "}";
  return s;
}

kgb::Verdict evaluate_candidate(const std::string& id, const std::string& dir, const std::string& file) {
  return evaluate(id, candidate(dir, file));
}

constexpr const char* kMoe = "vllm/moe_align_block_size";
constexpr const char* kMoeDir = "vllm_moe_align_block_size";
constexpr const char* kFp8 = "vllm/scaled_fp8_quant";
constexpr const char* kFp8Dir = "vllm_scaled_fp8_quant";

}  // namespace

TEST_CASE("vllm/moe_align_block_size: the bundled CPU solution passes every case") {
  const kgb::Task& t = task(kMoe);
  auto v = evaluate(kMoe, solution(kMoe, "cpu.cpp"));
  INFO(explain_cases(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(v.cases.size() == 2 * 2 * t.correctness.size());  // i32 and i64 topk_ids, two seeds
}

TEST_CASE("vllm/moe_align_block_size: another order inside each expert's range passes the custom check") {
  auto v = evaluate_candidate(kMoe, kMoeDir, "descending_within_expert.cpp");
  INFO(explain_cases(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
}

TEST_CASE("vllm/moe_align_block_size: a slot in another expert's range fails the per-expert multiset check") {
  auto v = evaluate_candidate(kMoe, kMoeDir, "swaps_across_experts.cpp");
  INFO(explain_cases(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  const auto f = failed_cases(v);
  CHECK(failed_statuses(v) == std::set<std::string>{"token-set"});
  // Every case with at least two experts holding slots fails; these do not.
  for (const char* passes : {"one_token_top1", "no_tokens", "single_expert", "expert_map_nothing_local"})
    CHECK_MESSAGE(f.count(passes) == 0, passes);
  CHECK(f.size() >= 14);
}

TEST_CASE("vllm/moe_align_block_size: counts not padded to block_size fail on num_tokens_post_pad") {
  auto v = evaluate_candidate(kMoe, kMoeDir, "unpadded_counts.cpp");
  INFO(explain_cases(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  const auto f = failed_cases(v);
  CHECK(failed_statuses(v) == std::set<std::string>{"num-tokens-post-pad"});
  for (const char* passes : {"block_size_1", "no_tokens", "expert_map_nothing_local"}) CHECK_MESSAGE(f.count(passes) == 0, passes);
  CHECK(f.size() >= 14);
}

TEST_CASE("vllm/moe_align_block_size: ignoring the optional expert map fails exactly the cases that pass one") {
  const kgb::Task& t = task(kMoe);
  auto v = evaluate_candidate(kMoe, kMoeDir, "ignores_expert_map.cpp");
  INFO(explain_cases(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  std::set<std::string> with_map;
  for (const auto& c : t.correctness)
    if (auto it = c.shapes.find("maybe_expert_map"); it == c.shapes.end() || it->second) with_map.insert(c.name);  // null: None
  CHECK(with_map.size() == 4);
  CHECK(failed_cases(v) == with_map);
}

TEST_CASE("vllm/moe_align_block_size: reading topk_ids as contiguous fails the strided layouts") {
  auto v = evaluate_candidate(kMoe, kMoeDir, "assumes_contiguous_topk.cpp");
  INFO(explain_cases(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_cases(v) ==
        std::set<std::string>{"transposed_topk_ids", "stepped_topk_ids_with_offset", "expert_map_strided_ep4"});
}

TEST_CASE("vllm/scaled_fp8_quant: the bundled CPU solution passes every entry") {
  auto v = evaluate(kFp8, solution(kFp8, "cpu.cpp"));
  INFO(explain_cases(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
}

TEST_CASE("vllm/scaled_fp8_quant: an fp8 conversion that does not saturate fails where values exceed 448") {
  auto v = evaluate_candidate(kFp8, kFp8Dir, "no_saturation.cpp");
  INFO(explain_cases(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_cases(v).size() >= 5);
  // The dynamic scale maps the largest value to 448 exactly: those cases cannot tell.
  for (const auto& c : v.cases) CHECK_MESSAGE((c.passed || c.name.rfind("dynamic:", 0) != 0), c.name);
}

TEST_CASE("vllm/scaled_fp8_quant: the per-token op ignoring the optional scale_ub fails exactly the cases that pass one") {
  auto v = evaluate_candidate(kFp8, kFp8Dir, "ignores_scale_ub.cpp");
  INFO(explain_cases(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  std::set<std::string> with_ub;
  for (const auto* entry : task(kFp8).entries())
    if (entry->overload == "dynamic_per_token")
      for (const auto& c : entry->correctness)
        if (auto it = c.shapes.find("scale_ub"); it == c.shapes.end() || it->second) with_ub.insert(c.name);  // null: None
  CHECK(with_ub.size() == 4);
  std::set<std::string> failed;
  for (const auto& name : failed_cases(v)) failed.insert(name.substr(name.find(':') + 1));
  CHECK(failed == with_ub);
}
