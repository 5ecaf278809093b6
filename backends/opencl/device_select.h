// Chooses the OpenCL device of a platform descriptor: KGB_OPENCL_VENDOR names
// the OpenCL platform ("pocl", "nvidia", "amd", "intel" or any text found in
// the platform's name or vendor, case-insensitive; empty: the first platform
// with a device) and KGB_OPENCL_DEVICE the device index inside it (default 0).
#pragma once

#include <string>

#include "kgb_opencl.h"

namespace kgb::opencl {

struct DeviceChoice {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string description;  // "pthread-haswell (Portable Computing Language, OpenCL 3.0 PoCL 3.1)"
  std::string error;        // why none was chosen
};

DeviceChoice choose_device(const std::string& vendor, int index);
// The selector of this process: KGB_OPENCL_VENDOR and KGB_OPENCL_DEVICE.
DeviceChoice choose_device_from_environment();
// Every platform and device this process sees, one per line, for messages.
std::string list_devices();

}  // namespace kgb::opencl
