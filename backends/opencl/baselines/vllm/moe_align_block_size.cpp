// vllm/moe_align_block_size, plain OpenCL baseline in the structure of vLLM's
// original single-block kernel: one work-group of 256 work-items counts the
// slots per expert with local atomics, work-item 0 scans the padded counts,
// the group writes the padding and block labels, then places every slot at
// its expert's next free position (local atomic cursors).
#include "../plain_common.h"
#include "kgb_entries/vllm/moe_align_block_size.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
#ifndef ID_T
#define ID_T int
#endif
#define MAX_EXPERTS 1024
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void moe_align(__global const ID_T* ids, long io, __global const int* map, long mo, int has_map, __global int* sorted, long so,
               __global int* blocks, long bo, __global int* post, long po, long tokens, long topk, long i0, long i1, long m0,
               long s0, long sorted_len, long b0, long blocks_len, int experts, int block_size) {
  __local int count[MAX_EXPERTS];
  __local int start[MAX_EXPERTS + 1];
  const int lid = get_local_id(0);
  const long numel = tokens * topk;
  for (int e = lid; e < experts; e += 256) count[e] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (long i = lid; i < numel; i += 256) {
    long t = i / topk, k = i - t * topk;
    int e = (int)ids[io + t * i0 + k * i1];
    if (has_map) e = map[mo + e * m0];
    if (e >= 0) atomic_inc(&count[e]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    start[0] = 0;
    for (int e = 0; e < experts; ++e) start[e + 1] = start[e] + (count[e] + block_size - 1) / block_size * block_size;
    post[po] = start[experts];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const long total = start[experts];
  for (long p = lid; p < sorted_len; p += 256) sorted[so + p * s0] = (int)numel;
  for (long b = lid; b < blocks_len; b += 256) {
    int label = 0;
    if (b * block_size < total)
      for (int e = 0; e < experts; ++e)
        if (start[e] <= b * block_size && b * block_size < start[e + 1]) label = e;
    blocks[bo + b * b0] = label;
  }
  for (int e = lid; e < experts; e += 256) count[e] = start[e];
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  for (long i = lid; i < numel; i += 256) {
    long t = i / topk, k = i - t * topk;
    int e = (int)ids[io + t * i0 + k * i1];
    if (has_map) e = map[mo + e * m0];
    if (e >= 0) sorted[so + (long)atomic_inc(&count[e]) * s0] = (int)i;
  }
}
)CLC";

int moe_align_plain(const kgb_tensor* topk_ids, int64_t num_experts, int64_t block_size, kgb_tensor* sorted_token_ids,
                    kgb_tensor* experts_ids, kgb_tensor* num_tokens_post_pad, const kgb_tensor* maybe_expert_map,
                    kgb_stream stream) {
  if (topk_ids->dtype != KGB_I32 && topk_ids->dtype != KGB_I64) return KGB_ERR_UNSUPPORTED;
  if (topk_ids->rank != 2 || num_experts < 1 || num_experts > 1024 || block_size < 1) return KGB_ERR_INVALID;
  cl_kernel k = kernel(stream, kSource, topk_ids->dtype == KGB_I64 ? "-cl-std=CL1.2 -DID_T=long" : "-cl-std=CL1.2 -DID_T=int",
                       "moe_align");
  if (!k) return KGB_ERR_INVALID;
  const kgb_tensor* map = maybe_expert_map ? maybe_expert_map : topk_ids;  // not read without a map
  Args a{stream, k};
  a.tensor(topk_ids).tensor(map).value(static_cast<cl_int>(maybe_expert_map != nullptr));
  a.tensor(sorted_token_ids).tensor(experts_ids).tensor(num_tokens_post_pad);
  a.value(static_cast<cl_long>(topk_ids->sizes[0])).value(static_cast<cl_long>(topk_ids->sizes[1]));
  a.value(topk_ids->strides[0]).value(topk_ids->strides[1]).value(static_cast<cl_long>(maybe_expert_map ? map->strides[0] : 0));
  a.value(sorted_token_ids->strides[0]).value(static_cast<cl_long>(sorted_token_ids->sizes[0]));
  a.value(experts_ids->strides[0]).value(static_cast<cl_long>(experts_ids->sizes[0]));
  a.value(static_cast<cl_int>(num_experts)).value(static_cast<cl_int>(block_size));
  if (a.error != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256, global = 256;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(vllm_moe_align_block_size, kKind, moe_align_plain);
}  // namespace kgb::opencl::plain
