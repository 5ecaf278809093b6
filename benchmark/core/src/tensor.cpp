#include "kgb/tensor.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace kgb {

HostTensor::HostTensor(DType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t storage_elements,
                       int64_t offset)
    : dtype_(dtype), sizes_(std::move(sizes)), strides_(std::move(strides)), offset_(offset) {
  if (sizes_.size() != strides_.size()) throw std::logic_error("HostTensor: sizes and strides differ in rank");
  if (sizes_.size() > KGB_MAX_RANK) throw std::logic_error("HostTensor: rank above KGB_MAX_RANK");
  storage_.assign(static_cast<size_t>(storage_elements) * dtype_size(dtype_), std::byte{0});
}

std::vector<int64_t> HostTensor::contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    running *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

HostTensor HostTensor::contiguous(DType dtype, std::vector<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  auto strides = contiguous_strides(sizes);
  return HostTensor(dtype, std::move(sizes), std::move(strides), n);
}

int64_t HostTensor::size(int dim) const {
  int r = rank();
  if (dim < 0) dim += r;
  if (dim < 0 || dim >= r) throw std::out_of_range("HostTensor::size: dimension out of range");
  return sizes_[dim];
}

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes_) n *= s;
  return n;
}

bool HostTensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] != 1 && strides_[i] != expected) return false;
    expected *= sizes_[i];
  }
  return true;
}

int64_t HostTensor::offset_of_linear(int64_t linear) const {
  int64_t off = 0;
  for (size_t i = sizes_.size(); i-- > 0;) {
    int64_t s = sizes_[i];
    off += (linear % s) * strides_[i];
    linear /= s;
  }
  return off;
}

int64_t HostTensor::offset_of(std::span<const int64_t> index) const {
  int64_t off = 0;
  for (size_t i = 0; i < index.size() && i < strides_.size(); ++i) off += index[i] * strides_[i];
  return off;
}

std::vector<int64_t> HostTensor::unravel(int64_t linear) const {
  std::vector<int64_t> index(sizes_.size(), 0);
  for (size_t i = sizes_.size(); i-- > 0;) {
    index[i] = linear % sizes_[i];
    linear /= sizes_[i];
  }
  return index;
}

namespace {

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

}  // namespace

double HostTensor::get(int64_t linear) const {
  const std::byte* p = data();
  int64_t e = offset_of_linear(linear);
  switch (dtype_) {
    case DType::Bool: return load<uint8_t>(p, e) != 0 ? 1.0 : 0.0;
    case DType::I8: return load<int8_t>(p, e);
    case DType::I32: return load<int32_t>(p, e);
    case DType::I64: return static_cast<double>(load<int64_t>(p, e));
    case DType::F16: return half_to_float(load<uint16_t>(p, e));
    case DType::BF16: return bfloat16_to_float(load<uint16_t>(p, e));
    case DType::F32: return load<float>(p, e);
    case DType::F64: return load<double>(p, e);
    case DType::C64: return load<float>(p, 2 * e);
    case DType::C128: return load<double>(p, 2 * e);
  }
  return 0;
}

void HostTensor::set(int64_t linear, double v) {
  std::byte* p = data();
  int64_t e = offset_of_linear(linear);
  switch (dtype_) {
    case DType::Bool: store<uint8_t>(p, e, v != 0 ? 1 : 0); break;
    case DType::I8: store<int8_t>(p, e, static_cast<int8_t>(std::llround(v))); break;
    case DType::I32: store<int32_t>(p, e, static_cast<int32_t>(std::llround(v))); break;
    case DType::I64: store<int64_t>(p, e, static_cast<int64_t>(std::llround(v))); break;
    case DType::F16: store<uint16_t>(p, e, float_to_half(static_cast<float>(v))); break;
    case DType::BF16: store<uint16_t>(p, e, float_to_bfloat16(static_cast<float>(v))); break;
    case DType::F32: store<float>(p, e, static_cast<float>(v)); break;
    case DType::F64: store<double>(p, e, v); break;
    case DType::C64: store<float>(p, 2 * e, static_cast<float>(v)); store<float>(p, 2 * e + 1, 0.0f); break;
    case DType::C128: store<double>(p, 2 * e, v); store<double>(p, 2 * e + 1, 0.0); break;
  }
}

int64_t HostTensor::get_int(int64_t linear) const {
  const std::byte* p = data();
  int64_t e = offset_of_linear(linear);
  switch (dtype_) {
    case DType::Bool: return load<uint8_t>(p, e) != 0;
    case DType::I8: return load<int8_t>(p, e);
    case DType::I32: return load<int32_t>(p, e);
    case DType::I64: return load<int64_t>(p, e);
    default: return static_cast<int64_t>(get(linear));
  }
}

void HostTensor::set_int(int64_t linear, int64_t v) {
  std::byte* p = data();
  int64_t e = offset_of_linear(linear);
  switch (dtype_) {
    case DType::Bool: store<uint8_t>(p, e, v != 0 ? 1 : 0); break;
    case DType::I8: store<int8_t>(p, e, static_cast<int8_t>(v)); break;
    case DType::I32: store<int32_t>(p, e, static_cast<int32_t>(v)); break;
    case DType::I64: store<int64_t>(p, e, v); break;
    default: set(linear, static_cast<double>(v));
  }
}

std::complex<double> HostTensor::get_complex(int64_t linear) const {
  const std::byte* p = data();
  int64_t e = offset_of_linear(linear);
  if (dtype_ == DType::C64) return {load<float>(p, 2 * e), load<float>(p, 2 * e + 1)};
  if (dtype_ == DType::C128) return {load<double>(p, 2 * e), load<double>(p, 2 * e + 1)};
  return {get(linear), 0.0};
}

void HostTensor::set_complex(int64_t linear, std::complex<double> v) {
  std::byte* p = data();
  int64_t e = offset_of_linear(linear);
  if (dtype_ == DType::C64) {
    store<float>(p, 2 * e, static_cast<float>(v.real()));
    store<float>(p, 2 * e + 1, static_cast<float>(v.imag()));
  } else if (dtype_ == DType::C128) {
    store<double>(p, 2 * e, v.real());
    store<double>(p, 2 * e + 1, v.imag());
  } else {
    set(linear, v.real());
  }
}

kgb_tensor HostTensor::view() {
  kgb_tensor t{};
  t.data = data();
  t.dtype = static_cast<int32_t>(dtype_);
  t.rank = rank();
  for (int i = 0; i < rank(); ++i) {
    t.sizes[i] = sizes_[i];
    t.strides[i] = strides_[i];
  }
  return t;
}

std::vector<double> to_doubles(const HostTensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) out[i] = t.get(i);
  return out;
}

void from_doubles(HostTensor& t, std::span<const double> values) {
  if (static_cast<int64_t>(values.size()) != t.numel()) throw std::logic_error("from_doubles: element count differs");
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, values[i]);
}

std::vector<int64_t> to_ints(const HostTensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) out[i] = t.get_int(i);
  return out;
}

void from_ints(HostTensor& t, std::span<const int64_t> values) {
  if (static_cast<int64_t>(values.size()) != t.numel()) throw std::logic_error("from_ints: element count differs");
  for (int64_t i = 0; i < t.numel(); ++i) t.set_int(i, values[i]);
}

std::vector<std::complex<double>> to_complex(const HostTensor& t) {
  std::vector<std::complex<double>> out(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) out[i] = t.get_complex(i);
  return out;
}

void from_complex(HostTensor& t, std::span<const std::complex<double>> values) {
  if (static_cast<int64_t>(values.size()) != t.numel()) throw std::logic_error("from_complex: element count differs");
  for (int64_t i = 0; i < t.numel(); ++i) t.set_complex(i, values[i]);
}

double round_to(DType dtype, double value) {
  switch (dtype) {
    case DType::F16: return half_to_float(float_to_half(static_cast<float>(value)));
    case DType::BF16: return bfloat16_to_float(float_to_bfloat16(static_cast<float>(value)));
    case DType::F32: case DType::C64: return static_cast<float>(value);
    default: return value;
  }
}

std::string format_element(const HostTensor& t, int64_t linear) {
  std::ostringstream os;
  os.precision(9);
  if (is_complex(t.dtype())) {
    auto c = t.get_complex(linear);
    os << "(" << c.real() << ", " << c.imag() << ")";
  } else if (t.dtype() == DType::Bool) {
    os << (t.get_int(linear) ? "true" : "false");
  } else if (is_integral(t.dtype())) {
    os << t.get_int(linear);
  } else {
    os << t.get(linear);
  }
  return os.str();
}

}  // namespace kgb
