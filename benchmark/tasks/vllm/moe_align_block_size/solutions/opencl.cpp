// vllm/moe_align_block_size in OpenCL: a counting sort of the routing slots
// by expert, every expert's range padded to a multiple of block_size.
//
// Five launches; work-group g owns CHUNK consecutive slots:
// (1) zero the per-expert counters; (2) every work-group counts its slots
// per expert in local memory and adds its histogram to the global counters
// (one atomic per work-group and expert); (3) one work-item scans the padded
// counts (at most 992 experts) into the expert starts and cursors and writes
// num_tokens_post_pad; (4) a grid-stride pass writes the padding value into
// sorted_token_ids and each block's expert label (a binary search over the
// starts), 0 past the used blocks; (5) every work-group ranks its slots per
// expert with local atomics, reserves one range per expert with one global
// atomic and writes its slot indices there. The order inside an expert's
// range is free (the task checks multisets). The counters, cursors and
// starts live in one small scratch buffer created per call.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr size_t kGroup = 256;
constexpr int64_t kPerItem = 16;
constexpr int64_t kChunk = kGroup * kPerItem;
constexpr int64_t kMaxExperts = 1024;

const char kSource[] = R"CLC(
#ifndef ID_T
#define ID_T int
#endif
#define GROUP 256
#define PER_ITEM 16
#define CHUNK (GROUP * PER_ITEM)
#define MAX_EXPERTS 1024

typedef struct {
  long tokens, topk, s_token, s_k, s_map, s_sorted, sorted_len, s_blocks, blocks_len, numel;
  int experts, block_size, has_map, pad;
} Geometry;

// Scratch layout (ints): counts[MAX_EXPERTS], cursor[MAX_EXPERTS], start[MAX_EXPERTS + 1].
#define COUNTS(s) (s)
#define CURSOR(s) ((s) + MAX_EXPERTS)
#define START(s) ((s) + 2 * MAX_EXPERTS)

int expert_of(__global const ID_T* ids, long ids_off, __global const int* map, long map_off, Geometry g, long i) {
  const long t = i / g.topk, k = i - t * g.topk;
  const long e = (long)ids[ids_off + t * g.s_token + k * g.s_k];
  return g.has_map ? map[map_off + e * g.s_map] : (int)e;
}

__kernel void reset_counts(__global int* scratch, Geometry g) {
  const long e = get_global_id(0);
  if (e < g.experts) COUNTS(scratch)[e] = 0;
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void count_chunks(__global int* scratch, __global const ID_T* ids, long ids_off, __global const int* map, long map_off,
                  Geometry g) {
  __local int hist[MAX_EXPERTS];
  const int lid = get_local_id(0);
  for (int e = lid; e < g.experts; e += GROUP) hist[e] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const long base = (long)get_group_id(0) * CHUNK;
  for (int r = 0; r < PER_ITEM; ++r) {
    const long i = base + r * GROUP + lid;
    if (i < g.numel) {
      const int e = expert_of(ids, ids_off, map, map_off, g, i);
      if (e >= 0) atomic_inc(&hist[e]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int e = lid; e < g.experts; e += GROUP)
    if (hist[e]) atomic_add(&COUNTS(scratch)[e], hist[e]);
}

__kernel void scan_counts(__global int* scratch, __global int* post_pad, long post_off, Geometry g) {
  int total = 0;
  START(scratch)[0] = 0;
  for (int e = 0; e < g.experts; ++e) {
    CURSOR(scratch)[e] = total;
    total += (COUNTS(scratch)[e] + g.block_size - 1) / g.block_size * g.block_size;
    START(scratch)[e + 1] = total;
  }
  post_pad[post_off] = total;
}

// The expert whose range holds position pos (< total): the last e with start[e] <= pos.
int label_of(__global const int* start, int experts, long pos) {
  int lo = 0, hi = experts - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (start[mid] <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

__kernel void fill_outputs(__global const int* scratch, __global int* sorted, long sorted_off, __global int* blocks,
                           long blocks_off, Geometry g) {
  __global const int* start = START(scratch);
  const long used_blocks = start[g.experts] / g.block_size;
  for (long q = get_global_id(0); q < g.sorted_len; q += get_global_size(0)) sorted[sorted_off + q * g.s_sorted] = (int)g.numel;
  for (long b = get_global_id(0); b < g.blocks_len; b += get_global_size(0))
    blocks[blocks_off + b * g.s_blocks] = b < used_blocks ? label_of(start, g.experts, b * g.block_size) : 0;
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void scatter_chunks(__global int* scratch, __global const ID_T* ids, long ids_off, __global const int* map, long map_off,
                    __global int* sorted, long sorted_off, Geometry g) {
  __local int hist[MAX_EXPERTS];
  __local int base_of[MAX_EXPERTS];
  const int lid = get_local_id(0);
  for (int e = lid; e < g.experts; e += GROUP) hist[e] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const long base = (long)get_group_id(0) * CHUNK;
  int expert[PER_ITEM], rank[PER_ITEM];
  for (int r = 0; r < PER_ITEM; ++r) {
    const long i = base + r * GROUP + lid;
    expert[r] = i < g.numel ? expert_of(ids, ids_off, map, map_off, g, i) : -1;
    rank[r] = expert[r] >= 0 ? atomic_inc(&hist[expert[r]]) : 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int e = lid; e < g.experts; e += GROUP)
    if (hist[e]) base_of[e] = atomic_add(&CURSOR(scratch)[e], hist[e]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int r = 0; r < PER_ITEM; ++r)
    if (expert[r] >= 0) sorted[sorted_off + (long)(base_of[expert[r]] + rank[r]) * g.s_sorted] = (int)(base + r * GROUP + lid);
}
)CLC";

// The same layout as the OpenCL C struct Geometry.
struct Geometry {
  cl_long tokens, topk, s_token, s_k, s_map, s_sorted, sorted_len, s_blocks, blocks_len, numel;
  cl_int experts, block_size, has_map, pad;
};

struct Args {
  kgb_stream stream;
  cl_kernel kernel;
  cl_uint next = 0;
  cl_int error = CL_SUCCESS;
  Args& tensor(const kgb_tensor* t) {
    if (error == CL_SUCCESS) error = kgb_cl_set_tensor_arg(stream, kernel, next, t);
    next += 2;
    return *this;
  }
  template <typename T>
  Args& value(const T& v) {
    if (error == CL_SUCCESS) error = clSetKernelArg(kernel, next, sizeof v, &v);
    ++next;
    return *this;
  }
};

// The five launches, with `scratch` holding the counters, cursors and starts.
int align(kgb_stream stream, cl_mem scratch, const Geometry& g, const kgb_tensor* topk_ids, kgb_tensor* num_tokens_post_pad,
          kgb_tensor* sorted_token_ids, kgb_tensor* experts_ids, const kgb_tensor* maybe_expert_map) {
  const char* options = topk_ids->dtype == KGB_I64 ? "-cl-std=CL1.2 -DID_T=long" : "-cl-std=CL1.2 -DID_T=int";
  cl_kernel reset = nullptr, count = nullptr, scan = nullptr, fill = nullptr, scatter = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "reset_counts", &reset) != CL_SUCCESS ||
      kgb_cl_get_kernel(stream, kSource, options, "count_chunks", &count) != CL_SUCCESS ||
      kgb_cl_get_kernel(stream, kSource, options, "scan_counts", &scan) != CL_SUCCESS ||
      kgb_cl_get_kernel(stream, kSource, options, "fill_outputs", &fill) != CL_SUCCESS ||
      kgb_cl_get_kernel(stream, kSource, options, "scatter_chunks", &scatter) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  // Without a map the map arguments point at topk_ids (never read).
  const kgb_tensor* map = maybe_expert_map ? maybe_expert_map : topk_ids;
  Args r{stream, reset}, c{stream, count}, s{stream, scan}, f{stream, fill}, x{stream, scatter};
  r.value(scratch).value(g);
  c.value(scratch).tensor(topk_ids).tensor(map).value(g);
  s.value(scratch).tensor(num_tokens_post_pad).value(g);
  f.value(scratch).tensor(sorted_token_ids).tensor(experts_ids).value(g);
  x.value(scratch).tensor(topk_ids).tensor(map).tensor(sorted_token_ids).value(g);
  if (r.error != CL_SUCCESS || c.error != CL_SUCCESS || s.error != CL_SUCCESS || f.error != CL_SUCCESS || x.error != CL_SUCCESS)
    return KGB_ERR_INVALID;
  const size_t chunks = static_cast<size_t>((g.numel + kChunk - 1) / kChunk);
  const size_t experts_global = static_cast<size_t>(g.experts);
  const size_t one = 1, local = kGroup;
  const int64_t fill_work = g.sorted_len > g.blocks_len ? g.sorted_len : g.blocks_len;
  size_t fill_groups = static_cast<size_t>((fill_work + static_cast<int64_t>(kGroup) - 1) / static_cast<int64_t>(kGroup));
  fill_groups = fill_groups < 1 ? 1 : fill_groups > 1024 ? 1024 : fill_groups;
  const size_t fill_global = fill_groups * kGroup, chunk_global = chunks * kGroup;
  if (kgb_cl_enqueue(stream, reset, 1, &experts_global, nullptr) != CL_SUCCESS) return KGB_ERR_INVALID;
  if (chunks && kgb_cl_enqueue(stream, count, 1, &chunk_global, &local) != CL_SUCCESS) return KGB_ERR_INVALID;
  if (kgb_cl_enqueue(stream, scan, 1, &one, nullptr) != CL_SUCCESS) return KGB_ERR_INVALID;
  if (kgb_cl_enqueue(stream, fill, 1, &fill_global, &local) != CL_SUCCESS) return KGB_ERR_INVALID;
  if (chunks && kgb_cl_enqueue(stream, scatter, 1, &chunk_global, &local) != CL_SUCCESS) return KGB_ERR_INVALID;
  return KGB_OK;
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
  Geometry g{};
  g.tokens = topk_ids->sizes[0];
  g.topk = topk_ids->sizes[1];
  g.s_token = topk_ids->strides[0];
  g.s_k = topk_ids->strides[1];
  g.s_map = maybe_expert_map ? maybe_expert_map->strides[0] : 0;
  g.s_sorted = sorted_token_ids->strides[0];
  g.sorted_len = sorted_token_ids->sizes[0];
  g.s_blocks = experts_ids->strides[0];
  g.blocks_len = experts_ids->sizes[0];
  g.numel = g.tokens * g.topk;
  g.experts = static_cast<cl_int>(num_experts);
  g.block_size = static_cast<cl_int>(block_size);
  g.has_map = maybe_expert_map != nullptr;
  // The counters' scratch: released right after the enqueues (OpenCL frees it
  // once the commands that use it have finished).
  cl_int err = CL_SUCCESS;
  cl_mem scratch = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE, sizeof(cl_int) * (3 * kMaxExperts + 1),
                                  nullptr, &err);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const int status = align(stream, scratch, g, topk_ids, num_tokens_post_pad, sorted_token_ids, experts_ids, maybe_expert_map);
  clReleaseMemObject(scratch);
  return status;
}
