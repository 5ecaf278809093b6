// device-limits: device-wide settings (persisting L2, access-policy windows,
// limits, cache and memory-pool configuration) change the machine for every
// later measurement. Per-kernel attributes (cudaFuncSetAttribute,
// cudaFuncSetCacheConfig) are fine.
#include "rules/name_rule.h"
#include "rules/rules.h"

namespace kgb::lint::detail {

NameRuleSpec device_limits_spec(const RuleSetup& setup) {
  NameRuleSpec spec;
  spec.patterns = NamePatterns{
      "cudaCtxResetPersistingL2Cache", "cudaDeviceSetLimit", "cudaDeviceSetCacheConfig",
      "cudaDeviceSetSharedMemConfig", "cudaStreamSetAttribute", "cudaDeviceSetMemPool", "cudaMemPoolSetAttribute",
      "cudaSetDeviceFlags", "cudaDeviceSetGraphMemAttribute", "cudaAccessPolicyWindow", "*::accessPolicyWindow",
      "cudaStreamAttributeAccessPolicyWindow", "cudaLaunchAttributeAccessPolicyWindow",
      "cudaKernelNodeAttributeAccessPolicyWindow", "cudaLimitPersistingL2CacheSize", "cudaAccessPropertyPersisting",
      "cuCtxSetLimit", "cuCtxSetCacheConfig", "cuCtxResetPersistingL2Cache", "cuStreamSetAttribute",
      "cuCtxSetSharedMemConfig", "CU_LIMIT_PERSISTING_L2_CACHE_SIZE", "hipDeviceSetLimit", "hipDeviceSetCacheConfig",
      "hipDeviceSetSharedMemConfig", "hipStreamSetAttribute", "hipCtxSetCacheConfig", "hipSetDeviceFlags",
      "hipDeviceSetMemPool", "hipMemPoolSetAttribute", "hipAccessPolicyWindow",
  };
  spec.patterns.add_all(split_list(setup.option("device-limits", "extra", "")));
  spec.what = "a device-wide setting (persisting L2, access policy window, device limit or cache configuration)";
  spec.reason = "it changes the device for everything measured after it";
  spec.hint = "remove it; per-kernel settings such as cudaFuncSetAttribute and cudaFuncSetCacheConfig are fine";
  return spec;
}

std::unique_ptr<Rule> create_device_limits(const RuleInfo& info, PassState& state) {
  return std::make_unique<NameRule>(info, state, device_limits_spec(state.setup));
}

}  // namespace kgb::lint::detail
