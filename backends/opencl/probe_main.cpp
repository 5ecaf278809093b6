// kgb-opencl-probe: the availability probe of the OpenCL platforms. Run with
// the platform's environment (KGB_OPENCL_VENDOR, ICD settings); exits 0 and
// names the device when one matches, 1 with the reason otherwise.
#include <cstdio>
#include <cstring>

#include "device_select.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--list") == 0) {
    std::printf("%s", kgb::opencl::list_devices().c_str());
    return 0;
  }
  auto choice = kgb::opencl::choose_device_from_environment();
  if (!choice.device) {
    std::printf("%s\n", choice.error.c_str());
    return 1;
  }
  std::printf("%s\n", choice.description.c_str());
  return 0;
}
