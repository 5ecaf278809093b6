#include "device_select.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

namespace kgb::opencl {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string platform_text(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string device_text(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::vector<cl_platform_id> platforms() {
  cl_uint n = 0;
  if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_platform_id> out(n);
  if (clGetPlatformIDs(n, out.data(), nullptr) != CL_SUCCESS) return {};
  return out;
}

std::vector<cl_device_id> devices(cl_platform_id p) {
  cl_uint n = 0;
  if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_device_id> out(n);
  if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, out.data(), nullptr) != CL_SUCCESS) return {};
  return out;
}

// Short names for the usual implementations; anything else is matched as text.
std::vector<std::string> aliases(const std::string& vendor) {
  if (vendor == "pocl") return {"portable computing language", "pocl"};
  if (vendor == "nvidia") return {"nvidia"};
  if (vendor == "amd") return {"amd", "advanced micro devices"};
  if (vendor == "intel") return {"intel"};
  return {vendor};
}

}  // namespace

std::string list_devices() {
  std::string out;
  for (cl_platform_id p : platforms()) {
    out += "  platform '" + platform_text(p, CL_PLATFORM_NAME) + "' (" + platform_text(p, CL_PLATFORM_VENDOR) + ", " +
           platform_text(p, CL_PLATFORM_VERSION) + ")\n";
    for (cl_device_id d : devices(p)) out += "    device '" + device_text(d, CL_DEVICE_NAME) + "'\n";
  }
  return out.empty() ? "  (no OpenCL platform: the ICD loader found no vendor library)\n" : out;
}

DeviceChoice choose_device(const std::string& vendor, int index) {
  DeviceChoice choice;
  const std::string wanted = lower(vendor);
  auto all = platforms();
  if (all.empty()) {
    choice.error = std::string(wanted.empty() ? "no OpenCL device" : "no OpenCL device for vendor '" + vendor + "'") +
                   ": the ICD loader found no platform (no vendor library in /etc/OpenCL/vendors or OCL_ICD_VENDORS, "
                   "or the driver is not installed)";
    return choice;
  }
  for (cl_platform_id p : all) {
    std::string name = platform_text(p, CL_PLATFORM_NAME), by = platform_text(p, CL_PLATFORM_VENDOR);
    if (!wanted.empty() && wanted != "any") {
      std::string text = lower(name + " " + by);
      auto names = aliases(wanted);
      if (std::none_of(names.begin(), names.end(), [&](const std::string& a) { return text.find(a) != std::string::npos; }))
        continue;
    }
    auto ds = devices(p);
    if (ds.empty()) continue;
    if (index < 0 || index >= static_cast<int>(ds.size())) {
      choice.error = "OpenCL platform '" + name + "' has " + std::to_string(ds.size()) + " device(s); index " +
                     std::to_string(index) + " asked for";
      return choice;
    }
    choice.platform = p;
    choice.device = ds[static_cast<size_t>(index)];
    choice.description = device_text(choice.device, CL_DEVICE_NAME) + " (" + name + ", " +
                         device_text(choice.device, CL_DEVICE_VERSION) + ", driver " +
                         device_text(choice.device, CL_DRIVER_VERSION) + ")";
    return choice;
  }
  choice.error = "no OpenCL device matches vendor '" + vendor + "'; this host has:\n" + list_devices();
  while (!choice.error.empty() && choice.error.back() == '\n') choice.error.pop_back();
  return choice;
}

DeviceChoice choose_device_from_environment() {
  const char* vendor = std::getenv("KGB_OPENCL_VENDOR");
  const char* index = std::getenv("KGB_OPENCL_DEVICE");
  return choose_device(vendor ? vendor : "", index && *index ? std::atoi(index) : 0);
}

}  // namespace kgb::opencl
