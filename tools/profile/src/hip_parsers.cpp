// Parser of the AMDGPU backend's kernel resource-usage remarks (hipcc
// -Rpass-analysis=kernel-resource-usage), the one profile a compile-only HIP
// platform has:
//   candidate.hip:11:1: remark: Function Name: _ZN12_GLOBAL__N_111saxpy_unit4E... [-Rpass-analysis=...]
//   candidate.hip:11:1: remark:     SGPRs: 18 [-Rpass-analysis=kernel-resource-usage]
//   ...     VGPRs: 16 / AGPRs: 0 / ScratchSize [bytes/lane]: 0 / Occupancy [waves/SIMD]: 8
//   ...     SGPRs Spill: 0 / VGPRs Spill: 0 / LDS Size [bytes/block]: 0
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>

#include "kgb/profile.h"
#include "text_util.h"

namespace kgb::profile {
namespace {

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

}  // namespace

std::vector<KernelProfile> parse_hip_resource_usage(std::string_view text) {
  static const std::regex remark(R"(remark:\s+(.*?)\s*\[-Rpass-analysis=kernel-resource-usage\]\s*$)");
  static const std::vector<std::pair<std::string, std::string>> keys = {
      {"SGPRs Spill", "sgpr_spill"}, {"VGPRs Spill", "vgpr_spill"}, {"SGPRs", "sgpr"}, {"VGPRs", "vgpr"}, {"AGPRs", "agpr"},
      {"ScratchSize [bytes/lane]", "scratch_bytes"}, {"Occupancy [waves/SIMD]", "occupancy_waves"},
      {"LDS Size [bytes/block]", "lds_bytes"}};
  std::vector<KernelProfile> kernels;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, remark)) continue;
    const std::string body = m[1];
    if (body.rfind("Function Name: ", 0) == 0) {
      KernelProfile k;
      k.id = static_cast<int64_t>(kernels.size());
      k.name = demangle(trim(body.substr(15)));
      k.launches = 0;
      kernels.push_back(std::move(k));
      continue;
    }
    if (kernels.empty()) continue;
    const auto colon = body.rfind(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(body.substr(0, colon));
    for (const auto& [label, name] : keys)
      if (key == label) {
        kernels.back().attributes[name] = std::atof(body.c_str() + colon + 1);
        break;
      }
  }
  return kernels;
}

}  // namespace kgb::profile
