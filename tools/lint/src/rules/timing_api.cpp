// timing-api: measuring time is the harness's job. A kernel that reads clocks
// or events can tell when it is being timed, or fake its own duration.
#include "rules/name_rule.h"
#include "rules/rules.h"

namespace kgb::lint::detail {

NameRuleSpec timing_api_spec(const RuleSetup& setup) {
  NameRuleSpec spec;
  spec.patterns = NamePatterns{
      // host clocks
      "clock", "clock_gettime", "clock_getres", "clock_nanosleep", "gettimeofday", "time", "times", "getrusage",
      "timespec_get", "ftime", "std::chrono", "std::clock", "std::time", "std::timespec_get", "cuda::std::chrono",
      "omp_get_wtime", "omp_get_wtick", "__rdtsc", "__rdtscp", "_rdtsc", "__rdpmc", "__builtin_ia32_rdtsc",
      "__builtin_ia32_rdtscp", "__builtin_ia32_rdpmc", "__builtin_readcyclecounter", "__builtin_readsteadycounter",
      "__builtin_arm_rsr64",
      // device clocks and events
      "clock64", "__globaltimer", "__nvvm_read_ptx_sreg_clock", "__nvvm_read_ptx_sreg_clock64",
      "__nvvm_read_ptx_sreg_globaltimer", "cudaEvent*", "cuEvent*", "hipEvent*", "cudaProfilerStart",
      "cudaProfilerStop", "cupti*", "wall_clock64", "__builtin_amdgcn_s_memtime", "__builtin_amdgcn_s_memrealtime",
      "__builtin_readcyclecounter", "clGetEventProfilingInfo",
  };
  spec.patterns.add_all(split_list(setup.option("timing-api", "extra", "")));
  spec.asm_markers = {"globaltimer", "%clock", "rdtsc", "rdpmc", "cntvct", "cntpct", "pmccntr", "rdcycle", "rdtime",
                      "s_memtime", "s_memrealtime"};
  spec.what = "a timing or clock API";
  spec.reason = "timing belongs to the harness; a kernel that reads clocks or events can adapt to being measured";
  spec.hint = "remove the timing code";
  return spec;
}

std::unique_ptr<Rule> create_timing_api(const RuleInfo& info, PassState& state) {
  return std::make_unique<NameRule>(info, state, timing_api_spec(state.setup));
}

}  // namespace kgb::lint::detail
