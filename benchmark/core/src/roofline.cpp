#include "kgb/roofline.h"

#include <algorithm>
#include <thread>

namespace kgb {

RooflinePlacement roofline_for(const Platform& platform, const CaseInstance& inst) {
  RooflinePlacement r;
  if (auto flops = evaluate_case_expression(inst, inst.task->flops); flops && *flops > 0) r.flops = *flops;
  if (auto bytes = evaluate_case_expression(inst, inst.task->bytes); bytes && *bytes > 0) r.bytes = *bytes;
  const bool half = inst.dtype == DType::F16 || inst.dtype == DType::BF16;
  r.peak_gflops = inst.dtype == DType::F64 ? platform.peak.gflops_fp64
                  : half                   ? std::max(platform.peak.gflops_fp16, platform.peak.gflops_fp32)
                                           : platform.peak.gflops_fp32;
  r.peak_gbs = platform.peak.bandwidth_gbs;
  if (platform.peak.per_core) {
    const double cores = std::max(1u, std::thread::hardware_concurrency());
    r.peak_gflops *= cores;
    r.peak_gbs *= cores;
  }
  r.calibrated = !platform.calibrated_from.empty();
  if (r.flops > 0 && r.peak_gflops > 0) r.floor_us = std::max(r.floor_us, r.flops / (r.peak_gflops * 1e9) * 1e6);
  if (r.bytes > 0 && r.peak_gbs > 0) r.floor_us = std::max(r.floor_us, r.bytes / (r.peak_gbs * 1e9) * 1e6);
  return r;
}

RooflinePlacement place_on_roofline(const Platform& platform, const CaseInstance& inst, double median_us) {
  RooflinePlacement r = roofline_for(platform, inst);
  if (median_us <= 0) return r;
  const double seconds = median_us * 1e-6;
  r.achieved_gflops = r.flops / seconds / 1e9;
  r.achieved_gbs = r.bytes / seconds / 1e9;
  if (r.peak_gflops > 0) r.compute_fraction = r.achieved_gflops / r.peak_gflops;
  if (r.peak_gbs > 0) r.bandwidth_fraction = r.achieved_gbs / r.peak_gbs;
  if (r.compute_fraction > 0 || r.bandwidth_fraction > 0)
    r.bound = r.bandwidth_fraction >= r.compute_fraction ? "memory" : "compute";
  return r;
}

}  // namespace kgb
