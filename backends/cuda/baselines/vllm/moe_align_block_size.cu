// vllm/moe_align_block_size on CUDA: a plain version written here in the
// structure of vLLM's kernels (csrc/moe/moe_align_sum_kernels.cu): one block
// counts the slots per expert in shared memory, scans the padded counts into
// a cumsum buffer, writes num_tokens_post_pad, the padding value and the
// block labels; then a grid places every slot with one global atomic on its
// expert's cursor (vLLM's count_and_sort_expert_tokens_kernel).
#include "vllm_common.cuh"
#include "kgb_entries/vllm/moe_align_block_size.h"

namespace {

constexpr int kMaxExperts = 1024;
constexpr int kThreads = 1024;

struct Args {
  const void* ids;
  bool i64;
  int64_t topk, i0, i1, numel;
  const int32_t* map;
  int64_t m0;
  int32_t* sorted;
  int64_t s0, sorted_len;
  int32_t* blocks;
  int64_t b0, blocks_len;
  int32_t* post;
  int experts, block_size;
  int32_t* cursor;  // scratch [experts]: every expert's next free position
};

__device__ int expert_of(const Args& p, int64_t i) {
  const int64_t t = i / p.topk, k = i - t * p.topk, off = t * p.i0 + k * p.i1;
  const int64_t e = p.i64 ? static_cast<const int64_t*>(p.ids)[off] : static_cast<const int32_t*>(p.ids)[off];
  return p.map ? p.map[e * p.m0] : static_cast<int>(e);
}

__global__ void align_kernel(Args p) {
  __shared__ int count[kMaxExperts];
  __shared__ int start[kMaxExperts + 1];
  for (int e = threadIdx.x; e < p.experts; e += blockDim.x) count[e] = 0;
  __syncthreads();
  for (int64_t i = threadIdx.x; i < p.numel; i += blockDim.x) {
    const int e = expert_of(p, i);
    if (e >= 0) atomicAdd(&count[e], 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    start[0] = 0;
    for (int e = 0; e < p.experts; ++e) start[e + 1] = start[e] + (count[e] + p.block_size - 1) / p.block_size * p.block_size;
    *p.post = start[p.experts];
  }
  __syncthreads();
  for (int e = threadIdx.x; e < p.experts; e += blockDim.x) {
    p.cursor[e] = start[e];
    for (int b = start[e] / p.block_size; b < start[e + 1] / p.block_size; ++b) p.blocks[b * p.b0] = e;
  }
  for (int64_t b = start[p.experts] / p.block_size + threadIdx.x; b < p.blocks_len; b += blockDim.x) p.blocks[b * p.b0] = 0;
  for (int64_t q = threadIdx.x; q < p.sorted_len; q += blockDim.x) p.sorted[q * p.s0] = static_cast<int32_t>(p.numel);
}

__global__ void sort_kernel(Args p) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < p.numel;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int e = expert_of(p, i);
    if (e >= 0) p.sorted[static_cast<int64_t>(atomicAdd(&p.cursor[e], 1)) * p.s0] = static_cast<int32_t>(i);
  }
}

int moe_align_plain(const kgb_tensor* topk_ids, int64_t num_experts, int64_t block_size, kgb_tensor* sorted_token_ids,
                    kgb_tensor* experts_ids, kgb_tensor* num_tokens_post_pad, const kgb_tensor* maybe_expert_map,
                    kgb_stream stream) {
  if (topk_ids->dtype != KGB_I32 && topk_ids->dtype != KGB_I64) return KGB_ERR_UNSUPPORTED;
  if (topk_ids->rank != 2 || num_experts < 1 || num_experts > kMaxExperts || block_size < 1) return KGB_ERR_INVALID;
  auto st = static_cast<cudaStream_t>(stream);
  Args p{};
  p.ids = topk_ids->data;
  p.i64 = topk_ids->dtype == KGB_I64;
  p.topk = topk_ids->sizes[1];
  p.i0 = topk_ids->strides[0];
  p.i1 = topk_ids->strides[1];
  p.numel = topk_ids->sizes[0] * topk_ids->sizes[1];
  p.map = maybe_expert_map ? static_cast<const int32_t*>(maybe_expert_map->data) : nullptr;
  p.m0 = maybe_expert_map ? maybe_expert_map->strides[0] : 0;
  p.sorted = static_cast<int32_t*>(sorted_token_ids->data);
  p.s0 = sorted_token_ids->strides[0];
  p.sorted_len = sorted_token_ids->sizes[0];
  p.blocks = static_cast<int32_t*>(experts_ids->data);
  p.b0 = experts_ids->strides[0];
  p.blocks_len = experts_ids->sizes[0];
  p.post = static_cast<int32_t*>(num_tokens_post_pad->data);
  p.experts = static_cast<int>(num_experts);
  p.block_size = static_cast<int>(block_size);
  if (cudaMallocAsync(reinterpret_cast<void**>(&p.cursor), sizeof(int32_t) * kMaxExperts, st) != cudaSuccess)
    return KGB_ERR_INVALID;
  align_kernel<<<1, kThreads, 0, st>>>(p);
  if (p.numel > 0) {
    const int64_t blocks = (p.numel + 255) / 256;
    sort_kernel<<<static_cast<unsigned>(blocks < 1024 ? blocks : 1024), 256, 0, st>>>(p);
  }
  const bool launched = cudaGetLastError() == cudaSuccess;
  return cudaFreeAsync(p.cursor, st) == cudaSuccess && launched ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

KGB_BASELINE(vllm_moe_align_block_size, "plain (written here)", moe_align_plain);
