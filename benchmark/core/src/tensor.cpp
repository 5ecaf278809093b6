#include "kgb/tensor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace kgb {

using tensor_detail::load;
using tensor_detail::store;

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

bool HostTensor::elements_disjoint() const {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, size) of dimensions with more than one element
  for (size_t i = 0; i < sizes_.size(); ++i)
    if (sizes_[i] > 1) dims.emplace_back(std::abs(strides_[i]), sizes_[i]);
  std::sort(dims.begin(), dims.end());
  int64_t extent = 1;  // storage span covered by the dimensions so far
  for (auto [stride, size] : dims) {
    if (stride < extent) return false;
    extent = stride * (size - 1) + extent;
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

double HostTensor::get(int64_t linear) const { return get_at(offset_of_linear(linear)); }
void HostTensor::set(int64_t linear, double v) { set_at(offset_of_linear(linear), v); }
int64_t HostTensor::get_int(int64_t linear) const { return get_int_at(offset_of_linear(linear)); }
void HostTensor::set_int(int64_t linear, int64_t v) { set_int_at(offset_of_linear(linear), v); }

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
  t.storage_offset = offset_;
  t.flags = flags_;
  return t;
}

OffsetWalker::OffsetWalker(const HostTensor& t, int64_t linear) : rank_(t.rank()) {
  for (int d = rank_; d-- > 0;) {
    sizes_[d] = t.sizes()[d];
    strides_[d] = t.strides()[d];
    index_[d] = sizes_[d] > 0 ? linear % sizes_[d] : 0;
    if (sizes_[d] > 0) linear /= sizes_[d];
    offset_ += index_[d] * strides_[d];
  }
}

std::vector<char> storage_in_view(const HostTensor& t) {
  std::vector<char> in_view(static_cast<size_t>(t.storage_elements()), 0);
  OffsetWalker w(t, 0);
  for (int64_t i = 0; i < t.numel(); ++i, w.next()) in_view[static_cast<size_t>(t.offset() + w.offset())] = 1;
  return in_view;
}

int64_t reference_threads() {
  static const int64_t threads = [] {
    const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
    const char* env = std::getenv("KGB_REFERENCE_THREADS");
    if (env == nullptr || *env == '\0') return cores;
    char* end = nullptr;
    const long requested = std::strtol(env, &end, 10);
    if (*end != '\0' || requested < 1) throw std::runtime_error("KGB_REFERENCE_THREADS must be a positive integer");
    return std::min<int64_t>(requested, cores);
  }();
  return threads;
}

void parallel_chunks(int64_t n, const std::function<void(int64_t, int64_t)>& fn, bool parallel) {
  const int64_t chunks = (n + kParallelChunk - 1) / kParallelChunk;
  const int64_t workers = parallel ? std::min<int64_t>(chunks, reference_threads()) : 1;
  std::atomic<int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    for (int64_t c; (c = next.fetch_add(1)) < chunks;) {
      try {
        fn(c * kParallelChunk, std::min(n, (c + 1) * kParallelChunk));
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  if (workers <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    // Worker threads run at a lower priority: a timed runner of this or another
    // process (sharded validation) keeps its core while references are built.
    for (int64_t w = 1; w < workers; ++w)
      pool.emplace_back([&work] {
        setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
        work();
      });
    work();
    for (auto& th : pool) th.join();
  }
  if (failure) std::rethrow_exception(failure);
}

std::vector<double> to_doubles(const HostTensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  parallel_chunks(t.numel(), [&](int64_t first, int64_t last) {
    OffsetWalker w(t, first);
    for (int64_t i = first; i < last; ++i, w.next()) out[static_cast<size_t>(i)] = t.get_at(w.offset());
  });
  return out;
}

void from_doubles(HostTensor& t, std::span<const double> values) {
  if (static_cast<int64_t>(values.size()) != t.numel()) throw std::logic_error("from_doubles: element count differs");
  parallel_chunks(t.numel(), [&](int64_t first, int64_t last) {
    OffsetWalker w(t, first);
    for (int64_t i = first; i < last; ++i, w.next()) t.set_at(w.offset(), values[static_cast<size_t>(i)]);
  }, t.elements_disjoint());
}

std::vector<int64_t> to_ints(const HostTensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.numel()));
  parallel_chunks(t.numel(), [&](int64_t first, int64_t last) {
    OffsetWalker w(t, first);
    for (int64_t i = first; i < last; ++i, w.next()) out[static_cast<size_t>(i)] = t.get_int_at(w.offset());
  });
  return out;
}

void from_ints(HostTensor& t, std::span<const int64_t> values) {
  if (static_cast<int64_t>(values.size()) != t.numel()) throw std::logic_error("from_ints: element count differs");
  parallel_chunks(t.numel(), [&](int64_t first, int64_t last) {
    OffsetWalker w(t, first);
    for (int64_t i = first; i < last; ++i, w.next()) t.set_int_at(w.offset(), values[static_cast<size_t>(i)]);
  }, t.elements_disjoint());
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
    case DType::F16: return half_to_float(double_to_half(value));
    case DType::BF16: return bfloat16_to_float(double_to_bfloat16(value));
    case DType::F8E4M3FN: return fp8_e4m3fn_to_double(double_to_fp8_e4m3fn(value, true));
    case DType::F8E5M2: return fp8_e5m2_to_double(double_to_fp8_e5m2(value, true));
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
