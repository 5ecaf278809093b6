// Host tensors: owned storage plus a strided view, the harness-side twin of
// kgb_tensor. Inputs are generated into them, references read and write them,
// and their storage bytes travel to and from the child runner.
#pragma once

#include <cmath>
#include <complex>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <functional>
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
  int64_t offset() const { return offset_; }  // the view's storage_offset
  // KGB_TENSOR_CONJ / KGB_TENSOR_NEG: the logical value is the conjugate /
  // negation of what is stored (inputs of resolve_conj / resolve_neg cases).
  uint32_t flags() const { return flags_; }
  void set_flags(uint32_t flags) { flags_ = flags; }
  int64_t numel() const;
  bool is_contiguous() const;
  // No two logical elements share storage (false for broadcast or other
  // overlapping views): writes of different elements may run in parallel.
  bool elements_disjoint() const;

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

  // Element access by element offset relative to data() (what offset_of*
  // and OffsetWalker give): the fast path for loops over large tensors.
  double get_at(int64_t element) const;
  void set_at(int64_t element, double value);
  int64_t get_int_at(int64_t element) const;
  void set_int_at(int64_t element, int64_t value);

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
  uint32_t flags_ = 0;
  std::vector<std::byte> storage_;
};

namespace tensor_detail {

template <typename T>
T load(const std::byte* base, int64_t element) {
  T v;
  std::memcpy(&v, base + element * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
void store(std::byte* base, int64_t element, T v) {
  std::memcpy(base + element * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

}  // namespace tensor_detail

inline double HostTensor::get_at(int64_t e) const {
  const std::byte* p = data();
  switch (dtype_) {
    case DType::Bool: return tensor_detail::load<uint8_t>(p, e) != 0 ? 1.0 : 0.0;
    case DType::I8: return tensor_detail::load<int8_t>(p, e);
    case DType::I32: return tensor_detail::load<int32_t>(p, e);
    case DType::I64: return static_cast<double>(tensor_detail::load<int64_t>(p, e));
    case DType::F16: return half_to_float(tensor_detail::load<uint16_t>(p, e));
    case DType::BF16: return bfloat16_to_float(tensor_detail::load<uint16_t>(p, e));
    case DType::F32: return tensor_detail::load<float>(p, e);
    case DType::F64: return tensor_detail::load<double>(p, e);
    case DType::C64: return tensor_detail::load<float>(p, 2 * e);
    case DType::C128: return tensor_detail::load<double>(p, 2 * e);
    case DType::U8: return tensor_detail::load<uint8_t>(p, e);
    case DType::I16: return tensor_detail::load<int16_t>(p, e);
    case DType::F8E4M3FN: return fp8_e4m3fn_to_double(tensor_detail::load<uint8_t>(p, e));
    case DType::F8E5M2: return fp8_e5m2_to_double(tensor_detail::load<uint8_t>(p, e));
  }
  return 0;
}

inline void HostTensor::set_at(int64_t e, double v) {
  std::byte* p = data();
  switch (dtype_) {
    case DType::Bool: tensor_detail::store<uint8_t>(p, e, v != 0 ? 1 : 0); break;
    case DType::I8: tensor_detail::store<int8_t>(p, e, static_cast<int8_t>(std::llround(v))); break;
    case DType::I32: tensor_detail::store<int32_t>(p, e, static_cast<int32_t>(std::llround(v))); break;
    case DType::I64: tensor_detail::store<int64_t>(p, e, static_cast<int64_t>(std::llround(v))); break;
    case DType::F16: tensor_detail::store<uint16_t>(p, e, double_to_half(v)); break;
    case DType::BF16: tensor_detail::store<uint16_t>(p, e, double_to_bfloat16(v)); break;
    case DType::F32: tensor_detail::store<float>(p, e, static_cast<float>(v)); break;
    case DType::F64: tensor_detail::store<double>(p, e, v); break;
    case DType::C64: tensor_detail::store<float>(p, 2 * e, static_cast<float>(v)); tensor_detail::store<float>(p, 2 * e + 1, 0.0f); break;
    case DType::C128: tensor_detail::store<double>(p, 2 * e, v); tensor_detail::store<double>(p, 2 * e + 1, 0.0); break;
    case DType::U8: tensor_detail::store<uint8_t>(p, e, static_cast<uint8_t>(std::llround(v))); break;
    case DType::I16: tensor_detail::store<int16_t>(p, e, static_cast<int16_t>(std::llround(v))); break;
    // Harness storage saturates: fp8 inputs are drawn wide, then rounded with
    // saturation; E5M2 keeps the infinities a case's special values ask for.
    case DType::F8E4M3FN: tensor_detail::store<uint8_t>(p, e, double_to_fp8_e4m3fn(v, true)); break;
    case DType::F8E5M2: tensor_detail::store<uint8_t>(p, e, double_to_fp8_e5m2(v, !std::isinf(v))); break;
  }
}

inline int64_t HostTensor::get_int_at(int64_t e) const {
  const std::byte* p = data();
  switch (dtype_) {
    case DType::Bool: return tensor_detail::load<uint8_t>(p, e) != 0;
    case DType::I8: return tensor_detail::load<int8_t>(p, e);
    case DType::I32: return tensor_detail::load<int32_t>(p, e);
    case DType::I64: return tensor_detail::load<int64_t>(p, e);
    case DType::U8: return tensor_detail::load<uint8_t>(p, e);
    case DType::I16: return tensor_detail::load<int16_t>(p, e);
    default: return static_cast<int64_t>(get_at(e));
  }
}

inline void HostTensor::set_int_at(int64_t e, int64_t v) {
  std::byte* p = data();
  switch (dtype_) {
    case DType::Bool: tensor_detail::store<uint8_t>(p, e, v != 0 ? 1 : 0); break;
    case DType::I8: tensor_detail::store<int8_t>(p, e, static_cast<int8_t>(v)); break;
    case DType::I32: tensor_detail::store<int32_t>(p, e, static_cast<int32_t>(v)); break;
    case DType::I64: tensor_detail::store<int64_t>(p, e, v); break;
    case DType::U8: tensor_detail::store<uint8_t>(p, e, static_cast<uint8_t>(v)); break;
    case DType::I16: tensor_detail::store<int16_t>(p, e, static_cast<int16_t>(v)); break;
    default: set_at(e, static_cast<double>(v));
  }
}

// Walks the element offsets of a view in row-major order from a starting
// logical index, with additions only (no division per element).
class OffsetWalker {
 public:
  OffsetWalker(const HostTensor& t, int64_t linear);
  int64_t offset() const { return offset_; }
  void next() {
    for (int d = rank_; d-- > 0;) {
      offset_ += strides_[d];
      if (++index_[d] < sizes_[d]) return;
      offset_ -= strides_[d] * sizes_[d];
      index_[d] = 0;
    }
  }

 private:
  int rank_ = 0;
  int64_t offset_ = 0;
  int64_t index_[KGB_MAX_RANK] = {}, sizes_[KGB_MAX_RANK] = {}, strides_[KGB_MAX_RANK] = {};
};

// One flag per storage element: 1 where the view has an element. The gaps
// of padded or stepped storage are the zeros.
std::vector<char> storage_in_view(const HostTensor& t);

// Runs fn(first, last) over [0, n) in fixed-size chunks on reference_threads()
// threads, the workers at a lower priority. The chunking does not depend on
// the thread count, so per-chunk work seeded by the chunk number gives the
// same result on every machine.
inline constexpr int64_t kParallelChunk = 1 << 16;
// The cores, or fewer when KGB_REFERENCE_THREADS says so (concurrent
// validations share the host).
int64_t reference_threads();
// With parallel == false the chunks run in order on the calling thread.
void parallel_chunks(int64_t n, const std::function<void(int64_t first, int64_t last)>& fn, bool parallel = true);

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
