// Baseline for vllm/moe_align_block_size: a plain, single-threaded C++ loop
// written here (vLLM's op is CUDA-only). It follows the steps of vLLM's
// small-batch kernel one after another: fill sorted_token_ids with numel,
// count the slots per expert (after the expert map), exclusive prefix sum of
// the counts rounded up to block_size, label the blocks (0 past the end),
// then place every slot at its expert's next free position.
#include <cstdint>
#include <vector>

#include "kgb_baseline.h"
#include "kgb_entries/vllm/moe_align_block_size.h"

namespace {

int64_t read_int(const kgb_tensor* t, int64_t offset) {
  return t->dtype == KGB_I64 ? static_cast<const int64_t*>(t->data)[offset] : static_cast<const int32_t*>(t->data)[offset];
}

int moe_align_block_size_plain(const kgb_tensor* topk_ids, int64_t num_experts, int64_t block_size,
                               kgb_tensor* sorted_token_ids, kgb_tensor* experts_ids, kgb_tensor* num_tokens_post_pad,
                               const kgb_tensor* maybe_expert_map, kgb_stream) {
  if (topk_ids->dtype != KGB_I32 && topk_ids->dtype != KGB_I64) return KGB_ERR_UNSUPPORTED;
  if (topk_ids->rank != 2 || num_experts < 1 || block_size < 1) return KGB_ERR_INVALID;
  const int64_t tokens = topk_ids->sizes[0], topk = topk_ids->sizes[1], numel = tokens * topk;
  int32_t* sorted = static_cast<int32_t*>(sorted_token_ids->data);
  int32_t* blocks = static_cast<int32_t*>(experts_ids->data);
  const int64_t sorted_len = sorted_token_ids->sizes[0], blocks_len = experts_ids->sizes[0];
  const int64_t ss = sorted_token_ids->strides[0], bs = experts_ids->strides[0];

  for (int64_t p = 0; p < sorted_len; ++p) sorted[p * ss] = static_cast<int32_t>(numel);

  // The expert of slot i = t * topk + k, or -1 when the map drops it.
  auto expert_of = [&](int64_t t, int64_t k) -> int64_t {
    int64_t e = read_int(topk_ids, t * topk_ids->strides[0] + k * topk_ids->strides[1]);
    if (maybe_expert_map) e = static_cast<const int32_t*>(maybe_expert_map->data)[e * maybe_expert_map->strides[0]];
    return e;
  };
  std::vector<int64_t> counts(static_cast<size_t>(num_experts), 0);
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t k = 0; k < topk; ++k) {
      const int64_t e = expert_of(t, k);
      if (e >= 0) ++counts[static_cast<size_t>(e)];
    }
  std::vector<int64_t> cumsum(static_cast<size_t>(num_experts) + 1, 0);
  for (int64_t e = 0; e < num_experts; ++e)
    cumsum[e + 1] = cumsum[e] + (counts[e] + block_size - 1) / block_size * block_size;
  const int64_t total = cumsum[num_experts];
  if (total > sorted_len || total / block_size > blocks_len) return KGB_ERR_INVALID;
  static_cast<int32_t*>(num_tokens_post_pad->data)[0] = static_cast<int32_t>(total);

  for (int64_t e = 0; e < num_experts; ++e)
    for (int64_t p = cumsum[e]; p < cumsum[e + 1]; p += block_size) blocks[(p / block_size) * bs] = static_cast<int32_t>(e);
  for (int64_t b = total / block_size; b < blocks_len; ++b) blocks[b * bs] = 0;

  std::vector<int64_t> next(cumsum.begin(), cumsum.end() - 1);
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t k = 0; k < topk; ++k) {
      const int64_t e = expert_of(t, k);
      if (e >= 0) sorted[next[e]++ * ss] = static_cast<int32_t>(t * topk + k);
    }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(vllm_moe_align_block_size, "plain (written here)", moe_align_block_size_plain);
