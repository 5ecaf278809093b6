// Reference, input generators and output check for vllm/moe_align_block_size.
//
// Reference: exact integer work in the order vLLM's outputs are defined:
// count the slots of every (mapped) expert, pad each count to a multiple of
// block_size, lay the experts out in ascending order, then write the slot
// indices of each expert in ascending slot order followed by the padding
// value numel. vLLM's own tails (numel past num_tokens_post_pad in
// sorted_token_ids, 0 in experts_ids) are written too, though never checked.
//
// Check: the order of entries inside one expert's positions is free (vLLM's
// kernel places them with atomics, in any block of that expert), so
// sorted_token_ids is compared as one multiset per expert; num_tokens_post_pad
// and the experts_ids of the used blocks exactly; everything past
// num_tokens_post_pad is undefined and not looked at.
//
// Generators: routing with a Zipf-like skew over a seeded permutation of the
// experts (realistic routers load a few experts far more than the rest; the
// case dim `skew_percent` sets the exponent, 0 = uniform), distinct experts
// per token; and expert-parallel maps with `local_experts` experts on this
// rank under shuffled local ids.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/random.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

constexpr const char* kTask = "vllm/moe_align_block_size";

int64_t dim_or(const std::map<std::string, int64_t>& dims, const char* name, int64_t fallback) {
  auto it = dims.find(name);
  return it == dims.end() ? fallback : it->second;
}

int64_t uniform_below(kgb::SplitMix64& rng, int64_t n) {  // in [0, n), n >= 1
  return static_cast<int64_t>(kgb::uniform_open01(rng) * static_cast<double>(n)) % n;
}

// topk_ids [num_tokens, topk]: per token `topk` distinct experts. Expert of
// popularity rank r (in a seeded permutation) is drawn with weight
// 1 / (r + 1)^s, s = skew_percent / 100 (default 1).
void topk_ids_generator(kgb::GeneratorArgs& g) {
  kgb::HostTensor& t = g.tensor;
  if (t.rank() != 2) throw std::runtime_error("topk_ids must have rank 2");
  const int64_t tokens = t.sizes()[0], topk = t.sizes()[1];
  const int64_t experts = g.scalars.at("num_experts").i;
  if (topk > experts) throw std::runtime_error("topk exceeds num_experts: experts of a token are distinct");
  const double skew = static_cast<double>(dim_or(g.dims, "skew_percent", 100)) / 100.0;

  std::vector<int64_t> by_rank(static_cast<size_t>(experts));
  std::iota(by_rank.begin(), by_rank.end(), 0);
  for (int64_t k = experts - 1; k > 0; --k) std::swap(by_rank[static_cast<size_t>(k)], by_rank[static_cast<size_t>(uniform_below(g.rng, k + 1))]);
  std::vector<double> cumulative(static_cast<size_t>(experts));
  double total = 0;
  for (int64_t r = 0; r < experts; ++r) cumulative[static_cast<size_t>(r)] = total += std::pow(static_cast<double>(r + 1), -skew);

  std::vector<int64_t> row, pool(static_cast<size_t>(experts));
  for (int64_t token = 0; token < tokens; ++token) {
    row.clear();
    if (2 * topk > experts) {
      // Most experts are taken anyway: a uniform partial shuffle.
      std::iota(pool.begin(), pool.end(), 0);
      for (int64_t k = 0; k < topk; ++k) {
        std::swap(pool[static_cast<size_t>(k)], pool[static_cast<size_t>(k + uniform_below(g.rng, experts - k))]);
        row.push_back(pool[static_cast<size_t>(k)]);
      }
    } else {
      while (static_cast<int64_t>(row.size()) < topk) {
        const double u = kgb::uniform_open01(g.rng) * total;
        const auto r = std::lower_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
        const int64_t e = by_rank[static_cast<size_t>(std::min<int64_t>(r, experts - 1))];
        if (std::find(row.begin(), row.end(), e) == row.end()) row.push_back(e);
      }
    }
    for (int64_t k = 0; k < topk; ++k) t.set_int(token * topk + k, row[static_cast<size_t>(k)]);
  }
}

// maybe_expert_map [num_experts]: `local_experts` (default half) randomly
// chosen experts get the local ids 0 .. local_experts - 1 in shuffled order,
// the others -1.
void expert_map_generator(kgb::GeneratorArgs& g) {
  kgb::HostTensor& t = g.tensor;
  const int64_t experts = t.numel();
  const int64_t local = std::min(experts, dim_or(g.dims, "local_experts", experts / 2));
  std::vector<int64_t> chosen(static_cast<size_t>(experts)), ids(static_cast<size_t>(local));
  std::iota(chosen.begin(), chosen.end(), 0);
  std::iota(ids.begin(), ids.end(), 0);
  for (int64_t k = 0; k < local; ++k) std::swap(chosen[static_cast<size_t>(k)], chosen[static_cast<size_t>(k + uniform_below(g.rng, experts - k))]);
  for (int64_t k = local - 1; k > 0; --k) std::swap(ids[static_cast<size_t>(k)], ids[static_cast<size_t>(uniform_below(g.rng, k + 1))]);
  for (int64_t e = 0; e < experts; ++e) t.set_int(e, -1);
  for (int64_t k = 0; k < local; ++k) t.set_int(chosen[static_cast<size_t>(k)], ids[static_cast<size_t>(k)]);
}

// The expert of every slot (-1: dropped by the map), validated.
std::vector<int64_t> slot_experts(const kgb::RefArgs& args) {
  const kgb::HostTensor& topk_ids = args.tensor("topk_ids");
  const kgb::HostTensor* map = args.optional_tensor("maybe_expert_map");
  const int64_t experts = args.int_scalar("num_experts");
  if (experts < 1) throw std::runtime_error(std::string(kTask) + ": num_experts must be at least 1");
  if (map && map->numel() != experts) throw std::runtime_error(std::string(kTask) + ": maybe_expert_map must have num_experts entries");
  std::vector<int64_t> owner = kgb::to_ints(topk_ids);
  const std::vector<int64_t> mapping = map ? kgb::to_ints(*map) : std::vector<int64_t>{};
  for (int64_t& e : owner) {
    if (e < 0 || e >= experts) throw std::runtime_error(std::string(kTask) + ": topk_ids holds an expert outside [0, num_experts)");
    if (map) e = mapping[static_cast<size_t>(e)];
    if (e < -1 || e >= experts) throw std::runtime_error(std::string(kTask) + ": maybe_expert_map holds an id outside [-1, num_experts)");
  }
  return owner;
}

void moe_align_block_size_reference(kgb::RefArgs& args) {
  const int64_t experts = args.int_scalar("num_experts"), block = args.int_scalar("block_size");
  if (block < 1) throw std::runtime_error(std::string(kTask) + ": block_size must be at least 1");
  kgb::HostTensor& sorted = args.tensor("sorted_token_ids");
  kgb::HostTensor& expert_ids = args.tensor("experts_ids");
  kgb::HostTensor& post_pad = args.tensor("num_tokens_post_pad");
  const std::vector<int64_t> owner = slot_experts(args);
  const int64_t numel = static_cast<int64_t>(owner.size());

  std::vector<int64_t> count(static_cast<size_t>(experts), 0), start(static_cast<size_t>(experts) + 1, 0);
  for (int64_t e : owner)
    if (e >= 0) ++count[static_cast<size_t>(e)];
  for (int64_t e = 0; e < experts; ++e)
    start[static_cast<size_t>(e) + 1] = start[static_cast<size_t>(e)] + (count[static_cast<size_t>(e)] + block - 1) / block * block;
  const int64_t total = start.back();
  if (sorted.numel() < total || expert_ids.numel() < total / block)
    throw std::runtime_error(std::string(kTask) + ": sorted_token_ids or experts_ids is too short for num_tokens_post_pad");

  std::vector<int64_t> ids(static_cast<size_t>(sorted.numel()), numel), blocks(static_cast<size_t>(expert_ids.numel()), 0);
  std::vector<int64_t> cursor(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < numel; ++i)
    if (owner[static_cast<size_t>(i)] >= 0) ids[static_cast<size_t>(cursor[static_cast<size_t>(owner[static_cast<size_t>(i)])]++)] = i;
  for (int64_t e = 0; e < experts; ++e)
    for (int64_t b = start[static_cast<size_t>(e)] / block; b < start[static_cast<size_t>(e) + 1] / block; ++b) blocks[static_cast<size_t>(b)] = e;
  kgb::from_ints(sorted, ids);
  kgb::from_ints(expert_ids, blocks);
  post_pad.set_int(0, total);
}

// Records the first problem (status, output, index, values) and counts every one.
struct Findings {
  kgb::CaseCheck& c;
  void add(const char* status, const std::string& output, int64_t index, int64_t expected, int64_t got, const std::string& message) {
    if (c.mismatches++ > 0) return;
    c.status = status;
    c.output = output;
    c.first_bad_index = {index};
    c.expected = std::to_string(expected);
    c.got = std::to_string(got);
    c.message = message;
  }
};

void moe_align_block_size_check(const kgb::CheckContext& ctx, kgb::CaseCheck& c) {
  Findings found{c};
  const int64_t block = ctx.inputs.int_scalar("block_size");
  const int64_t padding = ctx.inputs.tensor("topk_ids").numel();
  const int64_t want_total = ctx.expected.tensor("num_tokens_post_pad").get_int(0);
  const int64_t got_total = ctx.got.tensor("num_tokens_post_pad").get_int(0);
  ++c.checked;
  if (got_total != want_total) {
    found.add("num-tokens-post-pad", "num_tokens_post_pad", 0, want_total, got_total,
              "num_tokens_post_pad is " + std::to_string(got_total) + ", expected " + std::to_string(want_total) +
                  " (every expert's slot count rounded up to a multiple of block_size " + std::to_string(block) + ", summed)");
    return;  // the positions of the experts are not comparable
  }

  const kgb::HostTensor& want_experts = ctx.expected.tensor("experts_ids");
  const kgb::HostTensor& got_experts = ctx.got.tensor("experts_ids");
  const int64_t used_blocks = want_total / block;
  for (int64_t b = 0; b < used_blocks; ++b) {
    ++c.checked;
    const int64_t want = want_experts.get_int(b), got = got_experts.get_int(b);
    if (want != got)
      found.add("expert-ids", "experts_ids", b, want, got,
                "experts_ids[" + std::to_string(b) + "] is " + std::to_string(got) + ", expected expert " + std::to_string(want));
  }

  // One run of equal experts_ids per expert: its positions hold one multiset.
  const kgb::HostTensor& want_sorted = ctx.expected.tensor("sorted_token_ids");
  const kgb::HostTensor& got_sorted = ctx.got.tensor("sorted_token_ids");
  std::vector<int64_t> want, got;
  for (int64_t b = 0; b < used_blocks;) {
    const int64_t expert = want_experts.get_int(b);
    int64_t end = b;
    while (end < used_blocks && want_experts.get_int(end) == expert) ++end;
    const int64_t first = b * block, last = end * block;
    want.clear();
    got.clear();
    for (int64_t p = first; p < last; ++p) {
      want.push_back(want_sorted.get_int(p));
      got.push_back(got_sorted.get_int(p));
    }
    c.checked += last - first;
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    // The first difference of the sorted multisets: the smaller value is one
    // the expert lacks (expected side) or one too many (candidate side).
    const auto diff = std::mismatch(want.begin(), want.end(), got.begin());
    if (diff.first != want.end()) {
      const bool lacks = *diff.first < *diff.second;
      const int64_t value = lacks ? *diff.first : *diff.second;
      int64_t at = first;
      for (int64_t p = first; !lacks && p < last; ++p)
        if (got_sorted.get_int(p) == value) {
          at = p;
          break;
        }
      const std::string what = value == padding ? "the padding value " + std::to_string(value) : "slot " + std::to_string(value);
      std::ostringstream os;
      os << "positions " << first << " .. " << last - 1 << " of sorted_token_ids (expert " << expert << ") hold the wrong entries: "
         << what << (lacks ? " is missing" : " does not belong there")
         << " (one expert's entries may come in any order, but they must be its slot indices plus the padding value " << padding << ")";
      found.add("token-set", "sorted_token_ids", at, *diff.first, *diff.second, os.str());
    }
    b = end;
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("vllm/moe_align_block_size", moe_align_block_size_reference);
KGB_REGISTER_CHECK("vllm/moe_align_block_size", moe_align_block_size_check);
KGB_REGISTER_GENERATOR("vllm/moe_align_block_size/topk_ids", topk_ids_generator);
KGB_REGISTER_GENERATOR("vllm/moe_align_block_size/maybe_expert_map", expert_map_generator);
