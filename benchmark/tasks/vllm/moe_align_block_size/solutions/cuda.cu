// vllm/moe_align_block_size on CUDA: a counting sort of the routing slots by
// expert, every expert's range padded to a multiple of block_size.
//
// Small batches (up to kSmallSlots slots, the decode case) take one block of
// 1024 threads that does everything in shared memory, as vLLM's small-batch
// kernel does: count the slots per expert with shared atomics, scan the
// padded counts, fill the padding and block labels, then place every slot
// at its expert's next free position. One launch.
//
// Larger batches take four launches over a grid of blocks, each block owning
// kChunk consecutive slots: (1) per-block histograms in shared memory, added
// to global counters with one atomic per (block, expert); (2) one block scans
// the padded counts into the expert starts, sets every expert's cursor and
// writes num_tokens_post_pad; (3) a grid-stride pass writes the padding value
// into sorted_token_ids and every block's expert label (a binary search over
// the starts); (4) every block ranks its slots per expert in shared memory,
// reserves one range per expert with a single global atomic and writes its
// slot indices there. Contention on hot experts (Mixtral routes 4096 x 2
// slots to 8 experts) is thus one global atomic per block and expert, not one
// per slot. The counters, cursors and starts live in a small scratch
// allocation made and freed on the stream (num_experts <= 992 < 1024).
// The order inside an expert's range is free (the task checks multisets).
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kMaxExperts = 1024;
constexpr int kSmallThreads = 1024;
constexpr int64_t kSmallSlots = 4096;
constexpr int kThreads = 256;
constexpr int kPerThread = 16;
constexpr int kChunk = kThreads * kPerThread;  // slots per block in the large path

struct Args {
  const void* ids;
  bool ids_i64;
  int64_t tokens, topk, s_token, s_k;
  const int32_t* map;  // null: no expert map
  int64_t s_map;
  int32_t* sorted;
  int64_t s_sorted, sorted_len;
  int32_t* blocks;
  int64_t s_blocks, blocks_len;
  int32_t* post_pad;
  int experts, block_size;
  int64_t numel;
  int* counts;  // scratch of the large path: [kMaxExperts] counts, cursors, then [kMaxExperts + 1] starts
  int* cursor;
  int* start;
};

// The expert of slot i (i = token * topk + k), -1 when the map drops it.
__device__ __forceinline__ int expert_of(const Args& p, int64_t i) {
  const int64_t t = i / p.topk, k = i - t * p.topk, off = t * p.s_token + k * p.s_k;
  const int64_t e = p.ids_i64 ? static_cast<const int64_t*>(p.ids)[off] : static_cast<const int32_t*>(p.ids)[off];
  return p.map ? p.map[e * p.s_map] : static_cast<int>(e);
}

// Exclusive scan of the padded counts of experts 0 .. experts-1 into
// start[0 .. experts] (one value per thread, Hillis-Steele in shared memory;
// blockDim.x >= experts). `tmp` holds blockDim.x ints.
__device__ void scan_padded(const int* counts, int experts, int block_size, int* start, int* tmp) {
  const int e = threadIdx.x;
  tmp[e] = e < experts ? (counts[e] + block_size - 1) / block_size * block_size : 0;
  __syncthreads();
  for (int d = 1; d < static_cast<int>(blockDim.x); d <<= 1) {
    const int v = e >= d ? tmp[e - d] : 0;
    __syncthreads();
    tmp[e] += v;
    __syncthreads();
  }
  if (e < experts) start[e + 1] = tmp[e];
  if (e == 0) start[0] = 0;
  __syncthreads();
}

// The expert owning block b (< total / block_size): the last e with start[e] <= b * block_size
// among experts with a non-empty range.
__device__ __forceinline__ int label_of(const int* start, int experts, int64_t pos) {
  int lo = 0, hi = experts - 1;  // start[lo] <= pos < start[hi + 1]
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (start[mid] <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Padding value everywhere, expert labels of the used blocks, 0 past them.
__device__ __forceinline__ void fill(const Args& p, const int* start, int64_t first, int64_t step) {
  const int64_t used_blocks = start[p.experts] / p.block_size;
  for (int64_t q = first; q < p.sorted_len; q += step) p.sorted[q * p.s_sorted] = static_cast<int32_t>(p.numel);
  for (int64_t b = first; b < p.blocks_len; b += step)
    p.blocks[b * p.s_blocks] = b < used_blocks ? label_of(start, p.experts, b * p.block_size) : 0;
}

__global__ void __launch_bounds__(kSmallThreads) align_small(Args p) {
  __shared__ int counts[kMaxExperts];
  __shared__ int start[kMaxExperts + 1];
  __shared__ int tmp[kSmallThreads];
  for (int e = threadIdx.x; e < p.experts; e += blockDim.x) counts[e] = 0;
  __syncthreads();
  for (int64_t i = threadIdx.x; i < p.numel; i += blockDim.x) {
    const int e = expert_of(p, i);
    if (e >= 0) atomicAdd(&counts[e], 1);
  }
  __syncthreads();
  scan_padded(counts, p.experts, p.block_size, start, tmp);
  if (threadIdx.x == 0) *p.post_pad = start[p.experts];
  fill(p, start, threadIdx.x, blockDim.x);
  for (int e = threadIdx.x; e < p.experts; e += blockDim.x) counts[e] = start[e];  // cursors
  __syncthreads();  // the padding is written before the slots overwrite it
  for (int64_t i = threadIdx.x; i < p.numel; i += blockDim.x) {
    const int e = expert_of(p, i);
    if (e >= 0) p.sorted[static_cast<int64_t>(atomicAdd(&counts[e], 1)) * p.s_sorted] = static_cast<int32_t>(i);
  }
}

__global__ void reset_counts(Args p) {
  for (int e = threadIdx.x; e < p.experts; e += blockDim.x) p.counts[e] = 0;
}

__global__ void __launch_bounds__(kThreads) count_chunks(Args p) {
  __shared__ int hist[kMaxExperts];
  for (int e = threadIdx.x; e < p.experts; e += kThreads) hist[e] = 0;
  __syncthreads();
  const int64_t base = static_cast<int64_t>(blockIdx.x) * kChunk;
#pragma unroll
  for (int r = 0; r < kPerThread; ++r) {
    const int64_t i = base + r * kThreads + threadIdx.x;
    if (i < p.numel) {
      const int e = expert_of(p, i);
      if (e >= 0) atomicAdd(&hist[e], 1);
    }
  }
  __syncthreads();
  for (int e = threadIdx.x; e < p.experts; e += kThreads)
    if (hist[e]) atomicAdd(&p.counts[e], hist[e]);
}

__global__ void __launch_bounds__(kSmallThreads) scan_counts(Args p) {
  __shared__ int tmp[kSmallThreads];
  __shared__ int start[kMaxExperts + 1];
  scan_padded(p.counts, p.experts, p.block_size, start, tmp);
  for (int e = threadIdx.x; e <= p.experts; e += blockDim.x) p.start[e] = start[e];
  for (int e = threadIdx.x; e < p.experts; e += blockDim.x) p.cursor[e] = start[e];
  if (threadIdx.x == 0) *p.post_pad = start[p.experts];
}

__global__ void __launch_bounds__(kThreads) fill_outputs(Args p) {
  fill(p, p.start, static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x, static_cast<int64_t>(gridDim.x) * kThreads);
}

__global__ void __launch_bounds__(kThreads) scatter_chunks(Args p) {
  __shared__ int hist[kMaxExperts];
  __shared__ int base_of[kMaxExperts];
  for (int e = threadIdx.x; e < p.experts; e += kThreads) hist[e] = 0;
  __syncthreads();
  const int64_t base = static_cast<int64_t>(blockIdx.x) * kChunk;
  int expert[kPerThread], rank[kPerThread];
#pragma unroll
  for (int r = 0; r < kPerThread; ++r) {
    const int64_t i = base + r * kThreads + threadIdx.x;
    expert[r] = i < p.numel ? expert_of(p, i) : -1;
    rank[r] = expert[r] >= 0 ? atomicAdd(&hist[expert[r]], 1) : 0;
  }
  __syncthreads();
  for (int e = threadIdx.x; e < p.experts; e += kThreads)
    if (hist[e]) base_of[e] = atomicAdd(&p.cursor[e], hist[e]);
  __syncthreads();
#pragma unroll
  for (int r = 0; r < kPerThread; ++r)
    if (expert[r] >= 0)
      p.sorted[static_cast<int64_t>(base_of[expert[r]] + rank[r]) * p.s_sorted] = static_cast<int32_t>(base + r * kThreads + threadIdx.x);
}

}  // namespace

extern "C" int kgb_vllm_moe_align_block_size(const kgb_tensor* topk_ids, int64_t num_experts, int64_t block_size,
                                             kgb_tensor* sorted_token_ids, kgb_tensor* experts_ids,
                                             kgb_tensor* num_tokens_post_pad, const kgb_tensor* maybe_expert_map,
                                             kgb_stream stream) {
  if (topk_ids->dtype != KGB_I32 && topk_ids->dtype != KGB_I64) return KGB_ERR_UNSUPPORTED;
  if (sorted_token_ids->dtype != KGB_I32 || experts_ids->dtype != KGB_I32 || num_tokens_post_pad->dtype != KGB_I32 ||
      (maybe_expert_map && maybe_expert_map->dtype != KGB_I32))
    return KGB_ERR_UNSUPPORTED;
  if (topk_ids->rank != 2 || num_experts < 1 || num_experts > kMaxExperts - 32 || block_size < 1) return KGB_ERR_INVALID;
  Args p{};
  p.ids = topk_ids->data;
  p.ids_i64 = topk_ids->dtype == KGB_I64;
  p.tokens = topk_ids->sizes[0];
  p.topk = topk_ids->sizes[1];
  p.s_token = topk_ids->strides[0];
  p.s_k = topk_ids->strides[1];
  p.map = maybe_expert_map ? static_cast<const int32_t*>(maybe_expert_map->data) : nullptr;
  p.s_map = maybe_expert_map ? maybe_expert_map->strides[0] : 0;
  p.sorted = static_cast<int32_t*>(sorted_token_ids->data);
  p.s_sorted = sorted_token_ids->strides[0];
  p.sorted_len = sorted_token_ids->sizes[0];
  p.blocks = static_cast<int32_t*>(experts_ids->data);
  p.s_blocks = experts_ids->strides[0];
  p.blocks_len = experts_ids->sizes[0];
  p.post_pad = static_cast<int32_t*>(num_tokens_post_pad->data);
  p.experts = static_cast<int>(num_experts);
  p.block_size = static_cast<int>(block_size);
  p.numel = p.tokens * p.topk;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (p.numel <= kSmallSlots) {
    align_small<<<1, kSmallThreads, 0, s>>>(p);
  } else {
    const unsigned chunks = static_cast<unsigned>((p.numel + kChunk - 1) / kChunk);
    const int64_t fill_work = p.sorted_len > p.blocks_len ? p.sorted_len : p.blocks_len;
    const int64_t fill_blocks = (fill_work + kThreads - 1) / kThreads;
    int* scratch = nullptr;
    if (cudaMallocAsync(reinterpret_cast<void**>(&scratch), sizeof(int) * (3 * kMaxExperts + 1), s) != cudaSuccess)
      return KGB_ERR_INVALID;
    p.counts = scratch;
    p.cursor = scratch + kMaxExperts;
    p.start = scratch + 2 * kMaxExperts;
    reset_counts<<<1, kSmallThreads, 0, s>>>(p);
    count_chunks<<<chunks, kThreads, 0, s>>>(p);
    scan_counts<<<1, kSmallThreads, 0, s>>>(p);
    fill_outputs<<<static_cast<unsigned>(fill_blocks < 4096 ? fill_blocks : 4096), kThreads, 0, s>>>(p);
    scatter_chunks<<<chunks, kThreads, 0, s>>>(p);
    if (cudaFreeAsync(scratch, s) != cudaSuccess) return KGB_ERR_INVALID;
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
