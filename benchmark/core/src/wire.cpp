#include "kgb/wire.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <sys/mman.h>
#include <unistd.h>

namespace kgb::wire {

uint64_t TensorDesc::storage_bytes() const {
  return static_cast<uint64_t>(storage_elements) * static_cast<uint64_t>(kgb_dtype_size(dtype));
}

bool ParamDesc::sends_bytes() const {
  if (kind == ArgKind::Tensor) {
    const auto r = static_cast<Role>(tensor.role);
    return (r == Role::Input || r == Role::InOut) && tensor.lives_on < 0;
  }
  if (kind == ArgKind::List) {
    const auto r = static_cast<Role>(list.role);
    return r == Role::Input || r == Role::InOut;
  }
  return false;
}

uint64_t ParamDesc::returned_bytes() const {
  if (kind == ArgKind::Tensor) return tensor.returned ? tensor.storage_bytes() : 0;
  if (kind == ArgKind::List) {
    const auto r = static_cast<Role>(list.role);
    return r == Role::Output || r == Role::InOut ? list.allocation_bytes : 0;
  }
  return 0;
}

uint64_t hash_bytes(const void* data, size_t n) {
  // Word-at-a-time multiply-xorshift: fast enough for hundreds of MB, and any
  // single changed byte changes the result.
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = 0x243F6A8885A308D3ull ^ (n * 0x9E3779B97F4A7C15ull);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h ^= w;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  for (; i < n; ++i) {
    h ^= p[i];
    h *= 0xC4CEB9FE1A85EC53ull;
  }
  h ^= h >> 29;
  return h;
}

std::vector<std::byte> large_bytes(size_t n) {
  constexpr uintptr_t kHuge = 2u << 20;
  std::vector<std::byte> v;
  v.reserve(n);  // allocated, not yet touched
  if (n >= 2 * kHuge) {
    uintptr_t begin = (reinterpret_cast<uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
    uintptr_t end = (reinterpret_cast<uintptr_t>(v.data()) + n) & ~(kHuge - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice only
  }
  v.resize(n);
  return v;
}

void Writer::append(const void* p, size_t n) {
  const auto* b = static_cast<const std::byte*>(p);
  buffer_.insert(buffer_.end(), b, b + n);
}

void Writer::put_string(const std::string& s) {
  put<uint64_t>(s.size());
  append(s.data(), s.size());
}

void Writer::put_bytes(const std::vector<std::byte>& b) {
  put<uint64_t>(b.size());
  append(b.data(), b.size());
}

bool Reader::take(void* out, size_t n) {
  if (size_ - pos_ < n) return false;
  std::memcpy(out, data_ + pos_, n);
  pos_ += n;
  return true;
}

bool Reader::skip(size_t n) {
  if (size_ - pos_ < n) return false;
  pos_ += n;
  return true;
}

bool Reader::get_string(std::string& s, size_t limit) {
  uint64_t n = 0;
  if (!get(n) || n > limit || n > size_ - pos_) return false;
  s.assign(reinterpret_cast<const char*>(data_ + pos_), n);
  pos_ += n;
  return true;
}

bool Reader::get_bytes(std::vector<std::byte>& b, size_t limit) {
  uint64_t n = 0;
  if (!get(n) || n > limit || n > size_ - pos_) return false;
  b.assign(data_ + pos_, data_ + pos_ + n);
  pos_ += n;
  return true;
}

std::vector<std::byte> encode_hello(const Hello& hello) {
  Writer w;
  w.put_string(hello.task_id);
  w.put<uint32_t>(static_cast<uint32_t>(hello.entries.size()));
  for (const auto& e : hello.entries) {
    w.put_string(e.key);
    w.put_string(e.upstream_name);
    w.put_string(e.overload);
    w.put<uint32_t>(static_cast<uint32_t>(e.params.size()));
    for (const auto& p : e.params) {
      w.put_string(p.name);
      w.put(p.kind);
      w.put(p.role);
      w.put(p.scalar_type);
      w.put(p.optional);
      w.put<uint32_t>(static_cast<uint32_t>(p.enum_names.size()));
      for (size_t k = 0; k < p.enum_names.size(); ++k) {
        w.put_string(p.enum_names[k]);
        w.put(p.enum_numbers[k]);
      }
    }
  }
  return std::move(w.buffer());
}

bool decode_hello(const std::vector<std::byte>& payload, Hello& hello) {
  Reader r(payload.data(), payload.size());
  uint32_t entries = 0;
  if (!r.get_string(hello.task_id, 4096) || !r.get(entries) || entries > 64) return false;
  hello.entries.resize(entries);
  for (auto& e : hello.entries) {
    uint32_t params = 0;
    if (!r.get_string(e.key, 4096) || !r.get_string(e.upstream_name, 4096) || !r.get_string(e.overload, 4096) || !r.get(params) ||
        params > 64)
      return false;
    e.params.resize(params);
    for (auto& p : e.params) {
      uint32_t names = 0;
      if (!r.get_string(p.name, 4096) || !r.get(p.kind) || !r.get(p.role) || !r.get(p.scalar_type) || !r.get(p.optional) ||
          !r.get(names) || names > 4096)
        return false;
      p.enum_names.resize(names);
      p.enum_numbers.resize(names);
      for (uint32_t k = 0; k < names; ++k)
        if (!r.get_string(p.enum_names[k], 4096) || !r.get(p.enum_numbers[k])) return false;
    }
  }
  return r.done();
}

std::vector<std::byte> encode_ready(const Ready& ready) {
  Writer w;
  w.put_string(ready.backend);
  w.put_string(ready.device);
  w.put_string(ready.implementation);
  w.put<uint8_t>(ready.resolved ? 1 : 0);
  return std::move(w.buffer());
}

bool decode_ready(const std::vector<std::byte>& payload, Ready& ready) {
  Reader r(payload.data(), payload.size());
  uint8_t resolved = 0;
  bool ok = r.get_string(ready.backend, 4096) && r.get_string(ready.device, 4096) &&
            r.get_string(ready.implementation, 4096) && r.get(resolved) && r.done();
  ready.resolved = resolved != 0;
  return ok;
}

uint64_t EncodedJob::size() const {
  uint64_t n = 0;
  for (const auto& p : pieces) n += p.size();
  return n;
}

namespace {

void put_param(Writer& w, const ParamDesc& p) {
  w.put(p.kind);
  switch (p.kind) {
    case ArgKind::Tensor: w.put(p.tensor); break;
    case ArgKind::None: break;
    case ArgKind::List:
      w.put(p.list.role);
      w.put(p.list.pointer_array);
      w.put(p.list.dtype);
      w.put(p.list.allocation_bytes);
      w.put<uint32_t>(static_cast<uint32_t>(p.list.items.size()));
      for (const auto& item : p.list.items) {
        w.put(item.byte_offset);
        w.put(item.tensor);
      }
      break;
    case ArgKind::Scalar: w.put(p.value); break;
    case ArgKind::OptScalar:
      w.put(p.opt);
      w.put(p.none);
      w.put(p.value);
      break;
    case ArgKind::IntList:
      w.put<uint32_t>(static_cast<uint32_t>(p.int_list.size()));
      w.append(p.int_list.data(), p.int_list.size() * sizeof(int64_t));
      break;
    case ArgKind::ScalarOut: break;
  }
}

bool valid_tensor(const TensorDesc& t) {
  return t.rank >= 0 && t.rank <= KGB_MAX_RANK && t.storage_elements >= 0 && kgb_dtype_size(t.dtype) > 0 && t.role <= 4;
}

bool get_param(Reader& r, ParamDesc& p, size_t nparams) {
  if (!r.get(p.kind)) return false;
  switch (p.kind) {
    case ArgKind::Tensor:
      return r.get(p.tensor) && valid_tensor(p.tensor) && p.tensor.lives_on < static_cast<int32_t>(nparams);
    case ArgKind::None: return true;
    case ArgKind::List: {
      uint32_t n = 0;
      if (!r.get(p.list.role) || !r.get(p.list.pointer_array) || !r.get(p.list.dtype) || !r.get(p.list.allocation_bytes) ||
          !r.get(n) || n > (1u << 20) || p.list.role > 3)
        return false;
      p.list.items.resize(n);
      for (auto& item : p.list.items) {
        if (!r.get(item.byte_offset) || !r.get(item.tensor)) return false;
        if (item.byte_offset >= 0 && (!valid_tensor(item.tensor) || static_cast<uint64_t>(item.byte_offset) + item.tensor.storage_bytes() > p.list.allocation_bytes))
          return false;
      }
      return true;
    }
    case ArgKind::Scalar: return r.get(p.value);
    case ArgKind::OptScalar: return r.get(p.opt) && r.get(p.none) && r.get(p.value) && static_cast<uint8_t>(p.opt) <= 3;
    case ArgKind::IntList: {
      uint32_t n = 0;
      if (!r.get(n) || n > (1u << 16)) return false;
      p.int_list.resize(n);
      return r.take(p.int_list.data(), n * sizeof(int64_t));
    }
    case ArgKind::ScalarOut: return true;
  }
  return false;
}

}  // namespace

EncodedJob encode_job_pieces(const Job& job) {
  EncodedJob out;
  Writer w;
  w.put(job.mode);
  w.put(job.poison);
  w.put(job.timing);
  w.put_string(job.key);
  w.put<uint32_t>(static_cast<uint32_t>(job.params.size()));
  for (const auto& p : job.params) put_param(w, p);
  w.put<uint32_t>(static_cast<uint32_t>(job.sets.size()));
  for (const auto& set : job.sets) {
    w.put<uint32_t>(static_cast<uint32_t>(set.size()));
    for (const auto& bytes : set) w.put<uint64_t>(bytes.size());
  }
  w.put<uint64_t>(job.arena_bytes);
  out.metadata = std::move(w.buffer());
  out.pieces.push_back(out.metadata);
  if (job.arena_bytes == 0)
    for (const auto& set : job.sets)
      for (const auto& bytes : set)
        if (!bytes.empty()) out.pieces.push_back(bytes);
  return out;
}

ArenaLayout arena_layout(const std::vector<ParamDesc>& params, const std::vector<std::vector<uint64_t>>& input_lengths) {
  ArenaLayout layout;
  uint64_t at = 0;
  for (const auto& set : input_lengths) {
    layout.inputs.emplace_back();
    for (uint64_t length : set) {
      layout.inputs.back().push_back(at);
      at = arena_align(at + length);
    }
  }
  layout.outputs_begin = at;
  for (size_t s = 0; s < input_lengths.size(); ++s)
    for (const auto& p : params)
      if (uint64_t bytes = p.returned_bytes()) layout.outputs_bytes += arena_align(bytes);
  return layout;
}

ArenaLayout arena_layout(const Job& job) {
  std::vector<std::vector<uint64_t>> lengths;
  for (const auto& set : job.sets) {
    lengths.emplace_back();
    for (const auto& bytes : set) lengths.back().push_back(bytes.size());
  }
  return arena_layout(job.params, lengths);
}

std::vector<std::byte> encode_job(const Job& job) {
  EncodedJob e = encode_job_pieces(job);
  std::vector<std::byte> payload;
  payload.reserve(e.size());
  for (const auto& piece : e.pieces) payload.insert(payload.end(), piece.begin(), piece.end());
  return payload;
}

bool decode_job(const std::vector<std::byte>& payload, Job& job, std::span<const std::byte> arena) {
  Reader r(payload.data(), payload.size());
  uint32_t n = 0;
  if (!r.get(job.mode) || !r.get(job.poison) || !r.get(job.timing) || !r.get_string(job.key, 4096) || !r.get(n) || n > 64)
    return false;
  job.params.resize(n);
  for (auto& p : job.params)
    if (!get_param(r, p, n)) return false;
  uint32_t sets = 0;
  if (!r.get(sets) || sets > 64) return false;
  std::vector<std::vector<uint64_t>> lengths(sets);
  for (auto& set : lengths) {
    uint32_t m = 0;
    if (!r.get(m) || m != n) return false;
    set.resize(m);
    for (auto& length : set)
      if (!r.get(length) || length > std::max<uint64_t>(payload.size(), arena.size())) return false;
  }
  if (!r.get(job.arena_bytes)) return false;
  job.sets.assign(sets, {});
  if (job.arena_bytes > 0) {
    if (arena.size() < job.arena_bytes) return false;
    ArenaLayout layout = arena_layout(job.params, lengths);
    if (layout.outputs_begin > arena.size()) return false;
    for (uint32_t s = 0; s < sets; ++s)
      for (size_t p = 0; p < lengths[s].size(); ++p)
        job.sets[s].emplace_back(arena.data() + layout.inputs[s][p], lengths[s][p]);
    return r.done();
  }
  for (uint32_t s = 0; s < sets; ++s)
    for (uint64_t length : lengths[s]) {
      const std::byte* at = r.current();
      if (!r.skip(length)) return false;
      job.sets[s].emplace_back(at, length);
    }
  return r.done();
}

namespace {

void put_result_head(Writer& w, const JobResult& res) {
  w.put(res.status);
  w.put_string(res.error);
  w.put(res.child_seconds);
  w.put(res.loop_seconds);
  w.put(res.warmup_seconds);
  w.put<uint64_t>(res.times_us.size());
  w.append(res.times_us.data(), res.times_us.size() * sizeof(double));
  w.put<uint64_t>(res.host_times_us.size());
  w.append(res.host_times_us.data(), res.host_times_us.size() * sizeof(double));
  w.put(res.launches);
  w.put(res.library_launches);
  w.put(res.copies);
  w.put<uint8_t>(res.outputs_in_arena ? 1 : 0);
  w.put<uint32_t>(static_cast<uint32_t>(res.views.size()));
  for (const auto& set : res.views) {
    w.put<uint32_t>(static_cast<uint32_t>(set.size()));
    w.append(set.data(), set.size() * sizeof(ViewReport));
  }
  w.put<uint32_t>(static_cast<uint32_t>(res.scalars.size()));
  for (const auto& set : res.scalars) {
    w.put<uint32_t>(static_cast<uint32_t>(set.size()));
    w.append(set.data(), set.size() * sizeof(kgb_scalar));
  }
  w.put<uint32_t>(static_cast<uint32_t>(res.hashes.size()));
}

}  // namespace

std::vector<std::span<const std::byte>> encode_result_pieces(const JobResult& res, std::vector<std::vector<std::byte>>& scratch) {
  // Small fields are written into scratch buffers; each output array is
  // borrowed from `res` between them, in the layout of encode_result.
  std::vector<std::span<const std::byte>> pieces;
  scratch.clear();
  Writer w;
  put_result_head(w, res);
  auto flush = [&] {
    scratch.push_back(std::move(w.buffer()));
    w.buffer().clear();
    pieces.push_back(scratch.back());
  };
  for (size_t s = 0; s < res.hashes.size(); ++s) {
    w.put<uint32_t>(static_cast<uint32_t>(res.hashes[s].size()));
    for (size_t p = 0; p < res.hashes[s].size(); ++p) {
      w.put(res.hashes[s][p]);
      w.put<uint64_t>(res.outputs[s][p].size());
      if (!res.outputs[s][p].empty() && !res.outputs_in_arena) {
        flush();
        pieces.push_back(res.outputs[s][p]);
      }
    }
  }
  flush();
  return pieces;
}

std::vector<std::byte> encode_result(const JobResult& res) {
  std::vector<std::vector<std::byte>> scratch;
  std::vector<std::byte> payload;
  for (const auto& piece : encode_result_pieces(res, scratch)) payload.insert(payload.end(), piece.begin(), piece.end());
  return payload;
}

bool decode_result(const std::vector<std::byte>& payload, JobResult& res, size_t limit, std::span<const std::byte> arena,
                   uint64_t outputs_begin, CopyOut copy_out) {
  Reader r(payload.data(), payload.size());
  uint64_t n_times = 0;
  if (!r.get(res.status) || !r.get_string(res.error, 1 << 16) || !r.get(res.child_seconds) || !r.get(res.loop_seconds) ||
      !r.get(res.warmup_seconds) || !r.get(n_times)) return false;
  if (n_times > 10'000'000) return false;
  res.times_us.resize(n_times);
  if (!r.take(res.times_us.data(), n_times * sizeof(double))) return false;
  uint64_t n_host = 0;
  if (!r.get(n_host) || n_host > 10'000'000) return false;
  res.host_times_us.resize(n_host);
  uint8_t in_arena = 0;
  if (!r.take(res.host_times_us.data(), n_host * sizeof(double)) || !r.get(res.launches) ||
      !r.get(res.library_launches) || !r.get(res.copies) || !r.get(in_arena))
    return false;
  res.outputs_in_arena = in_arena != 0;
  uint32_t view_sets = 0;
  if (!r.get(view_sets) || view_sets > 64) return false;
  res.views.assign(view_sets, {});
  for (auto& set : res.views) {
    uint32_t m = 0;
    if (!r.get(m) || m > (1u << 20)) return false;
    set.resize(m);
    if (!r.take(set.data(), m * sizeof(ViewReport))) return false;
    for (const auto& v : set)
      if (v.rank < 0 || v.rank > KGB_MAX_RANK) return false;
  }
  uint32_t scalar_sets = 0;
  if (!r.get(scalar_sets) || scalar_sets > 64) return false;
  res.scalars.assign(scalar_sets, {});
  for (auto& set : res.scalars) {
    uint32_t m = 0;
    if (!r.get(m) || m > 64) return false;
    set.resize(m);
    if (!r.take(set.data(), m * sizeof(kgb_scalar))) return false;
  }
  uint64_t arena_at = outputs_begin;
  uint32_t sets = 0;
  if (!r.get(sets) || sets > 64) return false;
  res.hashes.assign(sets, {});
  res.outputs.assign(sets, {});
  for (uint32_t s = 0; s < sets; ++s) {
    uint32_t m = 0;
    if (!r.get(m) || m > 64) return false;
    res.hashes[s].resize(m);
    res.outputs[s].resize(m);
    for (uint32_t p = 0; p < m; ++p) {
      if (!res.outputs_in_arena) {
        if (!r.get(res.hashes[s][p]) || !r.get_bytes(res.outputs[s][p], limit)) return false;
        continue;
      }
      // Copied out once: the child may still write to the shared pages.
      uint64_t length = 0;
      if (!r.get(res.hashes[s][p]) || !r.get(length) || length > limit) return false;
      if (length == 0) continue;
      if (arena_at > arena.size() || length > arena.size() - arena_at) return false;
      std::span<const std::byte> from(arena.data() + arena_at, length);
      if (copy_out) {
        copy_out(res.outputs[s][p], from);
      } else {
        res.outputs[s][p] = large_bytes(length);
        std::memcpy(res.outputs[s][p].data(), from.data(), length);
      }
      arena_at = arena_align(arena_at + length);
    }
  }
  return r.done();
}

static bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t k = ::write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

static bool read_all(int fd, void* data, size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t k = ::read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool write_frame(int fd, MessageType type, const std::vector<std::byte>& payload) {
  FrameHeader h{kMagic, static_cast<uint32_t>(type), payload.size()};
  return write_all(fd, &h, sizeof h) && write_all(fd, payload.data(), payload.size());
}

bool write_frame(int fd, MessageType type, std::span<const std::span<const std::byte>> pieces) {
  uint64_t length = 0;
  for (const auto& p : pieces) length += p.size();
  FrameHeader h{kMagic, static_cast<uint32_t>(type), length};
  if (!write_all(fd, &h, sizeof h)) return false;
  for (const auto& p : pieces)
    if (!write_all(fd, p.data(), p.size())) return false;
  return true;
}

bool read_frame(int fd, MessageType& type, std::vector<std::byte>& payload, uint64_t max_length) {
  FrameHeader h{};
  if (!read_all(fd, &h, sizeof h) || h.magic != kMagic || h.length > max_length) return false;
  type = static_cast<MessageType>(h.type);
  payload.resize(h.length);
  return read_all(fd, payload.data(), h.length);
}

}  // namespace kgb::wire
