/* Layout checks of the kernel ABI, usable from C99, C++17, CUDA and HIP
 * translation units: any of them that includes this header fails to compile
 * when a type's size or a field's offset differs from the documented layout
 * (docs/task-format.md §1). The ABI tests compile it with every front end. */
#ifndef KGB_ABI_CHECK_H
#define KGB_ABI_CHECK_H

#include <stddef.h>

#include "kgb_kernel.h"

/* C99 has no static assertion: a negative array size is the portable error. */
#define KGB_ABI_CHECK(name, condition) typedef char kgb_abi_check_##name[(condition) ? 1 : -1]

KGB_ABI_CHECK(version, KGB_ABI_VERSION == 2);
KGB_ABI_CHECK(tensor_size, sizeof(kgb_tensor) == 160);
KGB_ABI_CHECK(tensor_data, offsetof(kgb_tensor, data) == 0);
KGB_ABI_CHECK(tensor_dtype, offsetof(kgb_tensor, dtype) == 8);
KGB_ABI_CHECK(tensor_rank, offsetof(kgb_tensor, rank) == 12);
KGB_ABI_CHECK(tensor_sizes, offsetof(kgb_tensor, sizes) == 16);
KGB_ABI_CHECK(tensor_strides, offsetof(kgb_tensor, strides) == 80);
KGB_ABI_CHECK(tensor_storage_offset, offsetof(kgb_tensor, storage_offset) == 144);
KGB_ABI_CHECK(tensor_flags, offsetof(kgb_tensor, flags) == 152);
KGB_ABI_CHECK(tensor_list_size, sizeof(kgb_tensor_list) == 24);
KGB_ABI_CHECK(tensor_list_items, offsetof(kgb_tensor_list, items) == 8);
KGB_ABI_CHECK(tensor_list_device_data, offsetof(kgb_tensor_list, device_data) == 16);
KGB_ABI_CHECK(int_list_size, sizeof(kgb_int_list) == 16);
KGB_ABI_CHECK(complex_size, sizeof(kgb_complex) == 16);
KGB_ABI_CHECK(scalar_size, sizeof(kgb_scalar) == 24);
KGB_ABI_CHECK(scalar_value, offsetof(kgb_scalar, v) == 8);
KGB_ABI_CHECK(dtype_values, KGB_C128 == 9 && KGB_U8 == 10 && KGB_I16 == 11 && KGB_F8E4M3FN == 12 && KGB_F8E5M2 == 13);

/* Every helper of the header, called once (a front end that rejects one fails). */
static inline int kgb_abi_check_helpers(void) {
  kgb_tensor t;
  int64_t values[2] = {3, 4};
  kgb_int_list dims;
  kgb_scalar s;
  int32_t i;
  t.data = NULL;
  t.dtype = KGB_F8E4M3FN;
  t.rank = 2;
  for (i = 0; i < KGB_MAX_RANK; ++i) t.sizes[i] = t.strides[i] = 0;
  t.sizes[0] = 3;
  t.sizes[1] = 4;
  t.strides[0] = 4;
  t.strides[1] = 1;
  t.storage_offset = 0;
  t.flags = KGB_TENSOR_CONJ | KGB_TENSOR_NEG;
  t.reserved = 0;
  dims.count = 2;
  dims.values = values;
  s.dtype = KGB_C128;
  s.reserved = 0;
  s.v.c.re = 1.0;
  s.v.c.im = -1.0;
  return (int)kgb_numel(&t) + kgb_is_contiguous(&t) + kgb_dtype_size(t.dtype) + (int)dims.values[1] +
         (s.v.c.im < 0.0 ? KGB_OK : KGB_ERR_INVALID);
}

#endif /* KGB_ABI_CHECK_H */
