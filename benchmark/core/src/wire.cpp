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

std::vector<std::byte> encode_hello(const std::string& task_id) {
  Writer w;
  w.put_string(task_id);
  return std::move(w.buffer());
}

bool decode_hello(const std::vector<std::byte>& payload, std::string& task_id) {
  Reader r(payload.data(), payload.size());
  return r.get_string(task_id, 4096) && r.done();
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

EncodedJob encode_job_pieces(const Job& job) {
  EncodedJob out;
  Writer w;
  w.put(job.mode);
  w.put(job.poison);
  w.put(job.timing);
  w.put<uint32_t>(static_cast<uint32_t>(job.params.size()));
  for (const auto& p : job.params) {
    w.put<uint8_t>(p.is_tensor ? 1 : 0);
    if (p.is_tensor) w.put(p.tensor);
    else w.put(p.scalar);
  }
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
      if (p.is_tensor && static_cast<Role>(p.tensor.role) != Role::Input) layout.outputs_bytes += arena_align(p.tensor.storage_bytes());
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
  if (!r.get(job.mode) || !r.get(job.poison) || !r.get(job.timing) || !r.get(n) || n > 64) return false;
  job.params.resize(n);
  for (auto& p : job.params) {
    uint8_t is_tensor = 0;
    if (!r.get(is_tensor)) return false;
    p.is_tensor = is_tensor != 0;
    if (p.is_tensor ? !r.get(p.tensor) : !r.get(p.scalar)) return false;
    if (p.is_tensor && (p.tensor.rank < 0 || p.tensor.rank > KGB_MAX_RANK)) return false;
  }
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
  w.put<uint64_t>(res.times_us.size());
  w.append(res.times_us.data(), res.times_us.size() * sizeof(double));
  w.put<uint64_t>(res.host_times_us.size());
  w.append(res.host_times_us.data(), res.host_times_us.size() * sizeof(double));
  w.put(res.launches);
  w.put(res.library_launches);
  w.put<uint8_t>(res.outputs_in_arena ? 1 : 0);
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
  if (!r.get(res.status) || !r.get_string(res.error, 1 << 16) || !r.get(res.child_seconds) || !r.get(n_times)) return false;
  if (n_times > 10'000'000) return false;
  res.times_us.resize(n_times);
  if (!r.take(res.times_us.data(), n_times * sizeof(double))) return false;
  uint64_t n_host = 0;
  if (!r.get(n_host) || n_host > 10'000'000) return false;
  res.host_times_us.resize(n_host);
  uint8_t in_arena = 0;
  if (!r.take(res.host_times_us.data(), n_host * sizeof(double)) || !r.get(res.launches) ||
      !r.get(res.library_launches) || !r.get(in_arena))
    return false;
  res.outputs_in_arena = in_arena != 0;
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
