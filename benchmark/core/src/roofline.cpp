#include "kgb/roofline.h"

#include <algorithm>
#include <thread>

namespace kgb {

namespace {

struct Peaks {
  double gflops = 0, gbs = 0;
};

// A peak set's rate for the case's dtype, for the whole machine.
Peaks peaks_for(const PlatformPeak& peak, DType dtype) {
  const bool half = dtype == DType::F16 || dtype == DType::BF16;
  Peaks p;
  p.gflops = dtype == DType::F64 ? peak.gflops_fp64 : half ? std::max(peak.gflops_fp16, peak.gflops_fp32) : peak.gflops_fp32;
  p.gbs = peak.bandwidth_gbs;
  if (peak.per_core) {
    const double cores = std::max(1u, std::thread::hardware_concurrency());
    p.gflops *= cores;
    p.gbs *= cores;
  }
  return p;
}

}  // namespace

RooflinePlacement roofline_for(const Platform& platform, const CaseInstance& inst) {
  RooflinePlacement r;
  if (auto flops = evaluate_case_expression(inst, inst.task->flops); flops && *flops > 0) r.flops = *flops;
  if (auto bytes = evaluate_case_expression(inst, inst.task->bytes); bytes && *bytes > 0) r.bytes = *bytes;
  const Peaks measured = peaks_for(platform.peak, inst.dtype);
  r.peak_gflops = measured.gflops;
  r.peak_gbs = measured.gbs;
  r.calibrated = !platform.calibrated_from.empty();
  // The floor rejects a kernel as impossible: it takes the larger of the
  // calibrated and the descriptor's figures, so that a calibration taken on
  // a busy machine never rejects an honest kernel timed on a quiet one.
  const Peaks descriptor = peaks_for(platform.descriptor_peak, inst.dtype);
  const double floor_gflops = std::max(measured.gflops, descriptor.gflops), floor_gbs = std::max(measured.gbs, descriptor.gbs);
  if (r.flops > 0 && floor_gflops > 0) r.floor_us = std::max(r.floor_us, r.flops / (floor_gflops * 1e9) * 1e6);
  if (r.bytes > 0 && floor_gbs > 0) r.floor_us = std::max(r.floor_us, r.bytes / (floor_gbs * 1e9) * 1e6);
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
