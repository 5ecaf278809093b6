// Roofline placement of one timed case: the task's FLOP and minimum-byte
// formulas against the platform's peaks (calibrated by `kgb calibrate` where
// that ran, else the descriptor's upper bounds). The floor is the anti-cheat
// bound (DESIGN 3.5 L3: no kernel can be faster); the achieved rates and
// their fractions of the peaks say how far a kernel is from the ceiling it is
// closest to.
#pragma once

#include <string>

#include "kgb/case.h"
#include "kgb/platform.h"

namespace kgb {

struct RooflinePlacement {
  double flops = 0, bytes = 0;          // the task's formulas for this case (0 when it has none)
  double peak_gflops = 0, peak_gbs = 0;  // for the case's dtype, scaled by the cores on per-core platforms
  bool calibrated = false;               // the peaks come from `kgb calibrate`
  double floor_us = 0;                   // max(flops / peak, bytes / bandwidth), with the larger of the
                                         // calibrated and the descriptor's peaks
  double achieved_gflops = 0, achieved_gbs = 0;          // at the measured time
  double compute_fraction = 0, bandwidth_fraction = 0;   // achieved / peak
  std::string bound;                     // "memory" or "compute": the ceiling the kernel is closest to; "" when unknown
};

// The floor and the peaks for a case on a platform (nothing measured yet).
RooflinePlacement roofline_for(const Platform& platform, const CaseInstance& instance);

// The same, placed at a measured time.
RooflinePlacement place_on_roofline(const Platform& platform, const CaseInstance& instance, double median_us);

}  // namespace kgb
