/* Compiled as C99 and as C++17 by ctest (kgb_half_c99, kgb_half_cxx17), with
 * warnings as errors, as a candidate would include kgb_half.h and the kernel
 * ABI (kgb_abi_check.h fails the compile when a layout differs). */
#include "kgb_abi_check.h"
#include "kgb_half.h"

#include <stdio.h>

int main(void) {
  const char* cl = KGB_CL_HALF_SOURCE;
  float sum = kgb_f16_to_float(kgb_float_to_f16(1.5f)) + kgb_bf16_to_float(kgb_float_to_bf16(2.5f)) +
              kgb_f8e4m3fn_to_float(kgb_float_to_f8e4m3fn(3.5f)) + kgb_f8e4m3fn_to_float(kgb_float_to_f8e4m3fn_sat(1e6f)) +
              kgb_f8e5m2_to_float(kgb_float_to_f8e5m2(5.0f)) + kgb_f8e5m2_to_float(kgb_float_to_f8e5m2_sat(1e6f));
  /* 1.5 + 2.5 + 3.5 + 448 + 5 + 57344 */
  /* 12 elements + contiguous + 1 byte + 4 + KGB_OK */
  if (kgb_abi_check_helpers() != 18) {
    printf("kgb_kernel.h helpers gave %d\n", kgb_abi_check_helpers());
    return 1;
  }
  if (sum != 57804.5f || cl[0] == '\0') {
    printf("kgb_half.h gave %g\n", (double)sum);
    return 1;
  }
  return 0;
}
