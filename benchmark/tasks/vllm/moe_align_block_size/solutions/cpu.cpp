// vllm/moe_align_block_size on the CPU: a counting sort in two passes.
//
// Pass 1 reads every slot's expert (through the map when given; unit-stride
// rows straight from memory) and counts the slots per expert. A prefix sum
// over the counts rounded up to block_size gives every expert's first
// position. Pass 2 reads the experts again (cheaper than keeping them) and
// scatters the slots to their expert's next free position, in slot order, so
// the result is the same on every run; then it writes the padding and the
// block labels. The tails past num_tokens_post_pad get vLLM's values (numel,
// 0): they are not compared, but an output left entirely unwritten (when no
// slot remains) would be rejected as untouched.
//
// Batches below 2^22 slots run on one thread. The job is memory-bound and
// short (1M slots: about 15 ms on one core of a busy 2-core host, where the
// two-thread version below measured 31 ms: a thread that waits at the
// barrier spins while its partner has no core). Above, one
// parallel region with one barrier: every thread counts its range of slots,
// then computes the expert starts itself and its own cursors (thread k writes
// expert e's slots after those of threads 0 .. k-1), scatters its range and
// writes its share of the padding and labels.
#include <stdint.h>
#include <string.h>

#include <vector>

#include <omp.h>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kSerialBelow = int64_t{1} << 22;  // slots: below this one thread is faster (see above)

struct Geometry {
  const void* data;
  int32_t dtype;
  int64_t tokens, topk, token_stride, k_stride;
  const int32_t* map;
  int64_t map_stride;
};

// Calls fn(i, e) for every slot i in [first, last) with its expert e
// (-1: dropped by the map), reading topk_ids row by row.
template <typename I, typename Fn>
void for_slots(const Geometry& g, int64_t first, int64_t last, Fn&& fn) {
  const I* ids = static_cast<const I*>(g.data);
  if (first >= last) return;
  if (g.k_stride == 1 && g.token_stride == g.topk) {
    if (g.map)
      for (int64_t i = first; i < last; ++i) fn(i, g.map[static_cast<int64_t>(ids[i]) * g.map_stride]);
    else
      for (int64_t i = first; i < last; ++i) fn(i, static_cast<int32_t>(ids[i]));
    return;
  }
  int64_t t = first / g.topk, k = first - t * g.topk;
  for (int64_t i = first; i < last; ++i) {
    const int64_t e = static_cast<int64_t>(ids[t * g.token_stride + k * g.k_stride]);
    fn(i, g.map ? g.map[e * g.map_stride] : static_cast<int32_t>(e));
    if (++k == g.topk) {
      k = 0;
      ++t;
    }
  }
}

template <typename Fn>
void for_slots(const Geometry& g, int64_t first, int64_t last, Fn&& fn) {
  if (g.dtype == KGB_I64) for_slots<int64_t>(g, first, last, fn);
  else for_slots<int32_t>(g, first, last, fn);
}

// Where every expert and every part's slots go.
struct Plan {
  std::vector<int64_t> start;   // [experts + 1]: first position of each expert, then the total
  std::vector<int64_t> count;   // [experts]: slots of each expert
  std::vector<int64_t> cursor;  // [experts]: this part's next position for each expert
};

struct Job {
  Geometry g;
  int64_t numel, experts, block;
  int32_t* sorted;
  int64_t sorted_len, ss;
  int32_t* blocks;
  int64_t blocks_len, bs;
  std::vector<int64_t> counts;  // [part * experts + e]: slots of expert e in part `part`

  int64_t first(int part, int parts) const { return numel * part / parts; }

  void count(int part, int parts) {
    int64_t* mine = counts.data() + part * experts;
    for_slots(g, first(part, parts), first(part + 1, parts), [mine](int64_t, int32_t e) {
      if (e >= 0) ++mine[e];
    });
  }

  // Every part computes the same starts itself (a few thousand additions),
  // which saves a second synchronisation; its cursors follow the slots of
  // the parts before it. False when an output is too short.
  bool plan(int part, int parts, Plan& p) const {
    p.start.assign(static_cast<size_t>(experts) + 1, 0);
    p.count.assign(static_cast<size_t>(experts), 0);
    p.cursor.assign(static_cast<size_t>(experts), 0);
    for (int64_t e = 0; e < experts; ++e) {
      int64_t before = 0, n = 0;
      for (int q = 0; q < parts; ++q) {
        const int64_t c = counts[q * experts + e];
        before += q < part ? c : 0;
        n += c;
      }
      p.count[e] = n;
      p.cursor[e] = p.start[e] + before;
      p.start[e + 1] = p.start[e] + (n + block - 1) / block * block;
    }
    return p.start[experts] <= sorted_len && p.start[experts] / block <= blocks_len;
  }

  void scatter(int part, int parts, Plan& p) {
    int64_t* cursor = p.cursor.data();
    int32_t* out = sorted;
    const int64_t step = ss;
    for_slots(g, first(part, parts), first(part + 1, parts), [cursor, out, step](int64_t i, int32_t e) {
      if (e >= 0) out[cursor[e]++ * step] = static_cast<int32_t>(i);
    });
    // This part's share of the experts (padding and labels), then of the tails.
    const int64_t total = p.start[experts];
    for (int64_t e = experts * part / parts; e < experts * (part + 1) / parts; ++e) {
      for (int64_t q = p.start[e] + p.count[e]; q < p.start[e + 1]; ++q) sorted[q * ss] = static_cast<int32_t>(numel);
      for (int64_t b = p.start[e] / block; b < p.start[e + 1] / block; ++b) blocks[b * bs] = static_cast<int32_t>(e);
    }
    const int64_t tail = sorted_len - total, tail_blocks = blocks_len - total / block;
    for (int64_t q = total + tail * part / parts; q < total + tail * (part + 1) / parts; ++q) sorted[q * ss] = static_cast<int32_t>(numel);
    for (int64_t b = total / block + tail_blocks * part / parts; b < total / block + tail_blocks * (part + 1) / parts; ++b) blocks[b * bs] = 0;
  }
};

}  // namespace

extern "C" int kgb_vllm_moe_align_block_size(const kgb_tensor* topk_ids, int64_t num_experts, int64_t block_size,
                                             kgb_tensor* sorted_token_ids, kgb_tensor* experts_ids,
                                             kgb_tensor* num_tokens_post_pad, const kgb_tensor* maybe_expert_map,
                                             kgb_stream stream) {
  (void)stream;
  if (topk_ids->dtype != KGB_I32 && topk_ids->dtype != KGB_I64) return KGB_ERR_UNSUPPORTED;
  if (topk_ids->rank != 2 || num_experts < 1 || block_size < 1) return KGB_ERR_INVALID;
  if (maybe_expert_map && (maybe_expert_map->dtype != KGB_I32 || maybe_expert_map->sizes[0] != num_experts)) return KGB_ERR_INVALID;
  Job job;
  job.g = Geometry{topk_ids->data, topk_ids->dtype, topk_ids->sizes[0], topk_ids->sizes[1], topk_ids->strides[0],
                   topk_ids->strides[1], maybe_expert_map ? static_cast<const int32_t*>(maybe_expert_map->data) : nullptr,
                   maybe_expert_map ? maybe_expert_map->strides[0] : 0};
  job.numel = job.g.tokens * job.g.topk;
  job.experts = num_experts;
  job.block = block_size;
  job.sorted = static_cast<int32_t*>(sorted_token_ids->data);
  job.sorted_len = sorted_token_ids->sizes[0];
  job.ss = sorted_token_ids->strides[0];
  job.blocks = static_cast<int32_t*>(experts_ids->data);
  job.blocks_len = experts_ids->sizes[0];
  job.bs = experts_ids->strides[0];

  int64_t total = -1;
  if (job.numel < kSerialBelow) {
    job.counts.assign(static_cast<size_t>(num_experts), 0);
    Plan p;
    job.count(0, 1);
    if (job.plan(0, 1, p)) {
      job.scatter(0, 1, p);
      total = p.start[num_experts];
    }
  } else {
    const int most = omp_get_max_threads();
    job.counts.assign(static_cast<size_t>(most) * static_cast<size_t>(num_experts), 0);
#pragma omp parallel num_threads(most)
    {
      // One part per thread of the team actually started (it may be smaller).
      const int part = omp_get_thread_num(), parts = omp_get_num_threads();
      job.count(part, parts);
#pragma omp barrier
      Plan p;
      if (job.plan(part, parts, p)) {
        job.scatter(part, parts, p);
        if (part == 0) total = p.start[num_experts];
      }
    }
  }
  if (total < 0) return KGB_ERR_INVALID;
  static_cast<int32_t*>(num_tokens_post_pad->data)[0] = static_cast<int32_t>(total);
  return KGB_OK;
}
