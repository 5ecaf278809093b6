// Link-time wrapper of the CUDA runtime's kernel registration. Candidate
// executables are linked with -Wl,--wrap=__cudaRegisterFunction, so the
// registration code that nvcc generates for every kernel of the executable
// calls this function first: it records the kernel's (mangled) name as one of
// the candidate's own, then registers it as usual. See launch_counter.h.
//
// Kept in a file of its own: the linker pulls it out of the runner library
// only when the wrapper is in use, so executables linked without it (the
// baseline runner, the probe) need no __real___cudaRegisterFunction.
#include <cuda_runtime.h>

#include "launch_counter.h"

extern "C" {

void __real___cudaRegisterFunction(void** fat_cubin_handle, const char* host_function, char* device_function,
                                   const char* device_name, int thread_limit, uint3* tid, uint3* bid, dim3* block_dim,
                                   dim3* grid_dim, int* warp_size);

void __wrap___cudaRegisterFunction(void** fat_cubin_handle, const char* host_function, char* device_function,
                                   const char* device_name, int thread_limit, uint3* tid, uint3* bid, dim3* block_dim,
                                   dim3* grid_dim, int* warp_size) {
  kgb::runner::cuda::note_own_kernel(device_name);
  if (device_function && device_function != device_name) kgb::runner::cuda::note_own_kernel(device_function);
  __real___cudaRegisterFunction(fat_cubin_handle, host_function, device_function, device_name, thread_limit, tid, bid,
                                block_dim, grid_dim, warp_size);
}

}  // extern "C"
