// Host tensors: owned storage plus a strided view, the harness-side twin of
// kgb_tensor. Inputs are generated into them, references read and write them,
// and their storage bytes travel to and from the child runner.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kgb/dtype.h"
#include "kgb_kernel.h"

namespace kgb {

class HostTensor {
 public:
  HostTensor() = default;
  // Storage of `storage_elements` elements, zero-filled; the view starts at
  // element `offset` of the storage.
  HostTensor(DType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t storage_elements,
             int64_t offset = 0);
  static HostTensor contiguous(DType dtype, std::vector<int64_t> sizes);
  static std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);

  DType dtype() const { return dtype_; }
  int rank() const { return static_cast<int>(sizes_.size()); }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t size(int dim) const;  // negative dims count from the end
  int64_t offset() const { return offset_; }
  int64_t numel() const;
  bool is_contiguous() const;

  std::vector<std::byte>& storage() { return storage_; }
  const std::vector<std::byte>& storage() const { return storage_; }
  int64_t storage_elements() const { return static_cast<int64_t>(storage_.size()) / dtype_size(dtype_); }
  std::byte* data() { return storage_.data() + offset_ * dtype_size(dtype_); }
  const std::byte* data() const { return storage_.data() + offset_ * dtype_size(dtype_); }

  // Element offset (relative to data()) of the element with the given
  // row-major logical index 0..numel()-1.
  int64_t offset_of_linear(int64_t linear) const;
  int64_t offset_of(std::span<const int64_t> index) const;
  std::vector<int64_t> unravel(int64_t linear) const;  // linear -> multi-index

  // Element access by logical row-major index, converting through double,
  // int64 or complex<double>. Stores round to the tensor's dtype.
  double get(int64_t linear) const;
  void set(int64_t linear, double value);
  int64_t get_int(int64_t linear) const;
  void set_int(int64_t linear, int64_t value);
  std::complex<double> get_complex(int64_t linear) const;
  void set_complex(int64_t linear, std::complex<double> value);

  // The ABI view over this host storage (valid while the tensor lives).
  kgb_tensor view();

 private:
  DType dtype_ = DType::F32;
  std::vector<int64_t> sizes_, strides_;
  int64_t offset_ = 0;
  std::vector<std::byte> storage_;
};

// Whole-tensor conversions in logical row-major order.
std::vector<double> to_doubles(const HostTensor& t);
void from_doubles(HostTensor& t, std::span<const double> values);
std::vector<int64_t> to_ints(const HostTensor& t);
void from_ints(HostTensor& t, std::span<const int64_t> values);
std::vector<std::complex<double>> to_complex(const HostTensor& t);
void from_complex(HostTensor& t, std::span<const std::complex<double>> values);

// Rounds a double to the precision of a floating dtype (f16/bf16/f32 via
// float; identity for f64). Useful for references that emulate storage.
double round_to(DType dtype, double value);

// One element printed for a person ("1.5", "nan", "(1, -2)", "true").
std::string format_element(const HostTensor& t, int64_t linear);

}  // namespace kgb
