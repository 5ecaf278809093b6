// The parent <-> runner protocol. Framed binary messages over two pipes (the
// runner reads requests on fd 3 and writes responses on fd 4, so the kernel's
// own stdout/stderr never mix with it). No dependencies: the runner library
// compiles this file too and must stay small and fast to link.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "kgb_runner_abi.h"

namespace kgb::wire {

inline constexpr uint32_t kMagic = 0x3242474B;  // "KGB2"
inline constexpr int kRequestFd = 3;
inline constexpr int kResponseFd = 4;
// Shared memory for large arrays (optional): a memfd the parent sizes and
// fills, mapped by both sides, so hundreds of MB of tensors need no pipe.
inline constexpr int kArenaFd = 5;

enum class MessageType : uint32_t { Hello = 1, Ready = 2, Job = 3, Result = 4, Bye = 5, Fatal = 6 };
enum class JobMode : uint32_t { Check = 1, Time = 2 };
enum class Role : uint8_t { Input = 0, Output = 1, InOut = 2, View = 3, Scratch = 4 };
// What one element of the entry's argument array is.
enum class ArgKind : uint8_t {
  Tensor = 0,     // a kgb_tensor* with storage the runner allocates (or a pure view to describe)
  None = 1,       // an optional tensor that is None: NULL
  List = 2,       // a kgb_tensor_list*
  Scalar = 3,     // a value in kgb_arg (i, f, c, s)
  OptScalar = 4,  // a pointer to a value, or NULL
  IntList = 5,    // a kgb_int_list
  ScalarOut = 6,  // a kgb_scalar* in host memory
};
// The C type an optional scalar points at.
enum class OptKind : uint8_t { I64 = 0, F64 = 1, AtenScalar = 2, Int = 3 };

struct FrameHeader {
  uint32_t magic;
  uint32_t type;
  uint64_t length;  // payload bytes
};

struct TensorDesc {
  int32_t dtype = 0;
  int32_t rank = 0;
  int64_t sizes[KGB_MAX_RANK] = {};
  int64_t strides[KGB_MAX_RANK] = {};
  int64_t storage_elements = 0;
  int64_t offset = 0;     // elements from the storage start to element [0,...] (the storage_offset)
  uint8_t role = 0;       // Role
  uint8_t host_resident = 0;   // pinned host memory on GPU platforms
  uint8_t zero_init = 0;       // scratch: zero before the call (else poisoned)
  uint8_t returned = 0;        // its storage bytes come back after the call
  uint32_t flags = 0;          // KGB_TENSOR_CONJ / KGB_TENSOR_NEG
  int32_t lives_on = -1;       // >= 0: placed on that parameter's allocation (in-place BLAS, C == A)
  uint64_t storage_bytes() const;
};

struct TimingRequest {
  uint32_t warmup = 3;
  uint32_t min_iterations = 10;
  uint32_t max_iterations = 2000;
  double target_rse = 0.01;     // stop once the relative standard error is below
  double max_seconds = 2.0;     // cap on the timed loop (flushes included)
  int64_t flush_bytes = 0;      // cache-flush buffer written before every iteration
  uint32_t host_clock = 0;      // time the call by the host wall clock alone (timing: host)
  uint32_t reserved = 0;
};

struct ListItemDesc {
  int64_t byte_offset = -1;  // in the list's allocation; -1: a None item
  TensorDesc tensor;
};

struct ListDesc {
  uint8_t role = 0;  // Role
  uint8_t pointer_array = 0;
  int32_t dtype = 0;
  uint64_t allocation_bytes = 0;
  std::vector<ListItemDesc> items;
};

// One parameter of a job, in spec order.
struct ParamDesc {
  ArgKind kind = ArgKind::Tensor;
  TensorDesc tensor;              // Tensor
  ListDesc list;                  // List
  kgb_arg value{};                // Scalar; OptScalar: the pointed value (i, f or s)
  OptKind opt = OptKind::I64;     // OptScalar
  uint8_t none = 0;               // OptScalar: None
  std::vector<int64_t> int_list;  // IntList
  bool is_tensor() const { return kind == ArgKind::Tensor; }
  // Bytes the parent sends for this parameter in each input set.
  bool sends_bytes() const;
  // Bytes that come back after the call (written tensors, written lists).
  uint64_t returned_bytes() const;
};

struct Job {
  JobMode mode = JobMode::Check;
  uint8_t poison = 0xFF;  // byte written over output storage before the first call
  TimingRequest timing;
  std::string key;        // the entry to call: "<task id>" or "<task id>.<overload>"
  std::vector<ParamDesc> params;
  // sets[s][p]: storage bytes of input/inout tensor p (or the packed
  // allocation of input/inout list p) in input set s; empty otherwise.
  // Borrowed, never copied: the parent points at its host tensors, the runner
  // at the received payload or arena; both outlive the job.
  std::vector<std::vector<std::span<const std::byte>>> sets;
  // Non-zero: the arrays travel in the arena (at arena_layout's offsets), not
  // in the message, and the runner puts the outputs there too. The arena is
  // at least this large.
  uint64_t arena_bytes = 0;
};

// Where the arrays of a job lie in the arena: inputs in (set, parameter)
// order, each 64-byte aligned, then the outputs in the same order.
struct ArenaLayout {
  std::vector<std::vector<uint64_t>> inputs;  // [set][param] offset (meaningless for empty arrays)
  uint64_t outputs_begin = 0;
  uint64_t outputs_bytes = 0;  // room for every returned storage of every set
  uint64_t total() const { return outputs_begin + outputs_bytes; }
};
inline uint64_t arena_align(uint64_t x) { return (x + 63) & ~uint64_t{63}; }
ArenaLayout arena_layout(const std::vector<ParamDesc>& params, const std::vector<std::vector<uint64_t>>& input_lengths);
ArenaLayout arena_layout(const Job& job);  // from the lengths of job.sets

// What a view descriptor said after the call, mapped back to the runner's
// allocations.
struct ViewReport {
  int32_t param = -1;     // the view parameter
  int32_t item = -1;      // list item (view lists), else -1
  int32_t holder = -1;    // parameter whose allocation holds data; -1: outside every allocation
  uint8_t unchanged = 0;  // the descriptor is exactly what the runner passed in
  uint8_t misaligned = 0; // data is not on an element boundary of that allocation
  int64_t element_offset = 0;           // of data from the allocation's start, in elements
  int64_t reported_storage_offset = 0;  // the descriptor's storage_offset field
  int32_t rank = 0;
  int64_t sizes[KGB_MAX_RANK] = {};
  int64_t strides[KGB_MAX_RANK] = {};
};

struct JobResult {
  int32_t status = 0;      // the kernel's return value (first non-zero seen)
  std::string error;       // runner-side error (allocation, device fault), empty when none
  double child_seconds = 0;           // wall time of the whole job inside the runner
  double loop_seconds = 0;            // wall time of the timed loop inside the runner (time jobs)
  double warmup_seconds = 0;          // wall time of the warm-up calls inside the runner (time jobs)
  std::vector<double> times_us;       // per timed iteration, device timer (host clock for host timing)
  std::vector<double> host_times_us;  // per timed iteration, host wall clock to a device-wide sync
  int64_t launches = -1;              // kernel launches observed during the calls (-1: not counted)
  int64_t library_launches = -1;      // library kernels launched during the calls, not in `launches` (-1: not counted)
  int64_t copies = -1;                // copy and fill commands issued during the calls (-1: not counted)
  // Per set, per parameter: hash of an input's storage after the calls (check
  // jobs; 0 otherwise), and the bytes of returned storage (empty otherwise).
  std::vector<std::vector<uint64_t>> hashes;
  std::vector<std::vector<std::vector<std::byte>>> outputs;
  std::vector<std::vector<ViewReport>> views;     // per set: every view descriptor after the last call
  std::vector<std::vector<kgb_scalar>> scalars;   // per set: every host scalar result, in parameter order
  // The output bytes were written to the arena (from outputs_begin, in order)
  // and only their lengths travel in the message.
  bool outputs_in_arena = false;
};

struct Ready {
  std::string backend;
  std::string device;         // name, clocks
  std::string implementation; // "candidate" or the baseline kind
  bool resolved = false;      // an implementation exists for the task
};

uint64_t hash_bytes(const void* data, size_t n);

class Writer {
 public:
  template <typename T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    append(&v, sizeof(T));
  }
  void put_string(const std::string& s);
  void put_bytes(const std::vector<std::byte>& b);
  void append(const void* p, size_t n);
  std::vector<std::byte>& buffer() { return buffer_; }

 private:
  std::vector<std::byte> buffer_;
};

class Reader {
 public:
  Reader(const std::byte* data, size_t size) : data_(data), size_(size) {}
  template <typename T>
  bool get(T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    return take(&v, sizeof(T));
  }
  bool get_string(std::string& s, size_t limit = 1 << 20);
  bool get_bytes(std::vector<std::byte>& b, size_t limit);
  bool take(void* out, size_t n);
  bool skip(size_t n);
  const std::byte* current() const { return data_ + pos_; }
  bool done() const { return pos_ == size_; }

 private:
  const std::byte* data_;
  size_t size_;
  size_t pos_ = 0;
};

// The entries of the task (primary and overloads) as a generic baseline
// needs them to build a call by name: the upstream operator, and each
// parameter's name and kind. Candidates ignore it.
struct SignatureParam {
  std::string name;
  uint8_t kind = 0;         // ArgKind of the parameter when present
  uint8_t role = 0;         // Role (tensors and lists)
  uint8_t scalar_type = 0;  // kgb::ScalarType (scalars)
  uint8_t optional = 0;
  std::vector<std::string> enum_names;  // enums: names in the order of enum_numbers
  std::vector<int64_t> enum_numbers;
};
struct EntrySignature {
  std::string key;            // "aten/add" or "aten/add.Scalar"
  std::string upstream_name;  // "aten::add"
  std::string overload;       // "Tensor", "Scalar", "" ...
  std::vector<SignatureParam> params;
};
struct Hello {
  std::string task_id;
  std::vector<EntrySignature> entries;
};

std::vector<std::byte> encode_hello(const Hello& hello);
bool decode_hello(const std::vector<std::byte>& payload, Hello& hello);
std::vector<std::byte> encode_ready(const Ready& r);
bool decode_ready(const std::vector<std::byte>& payload, Ready& r);
// A job travels as a metadata block (modes, parameters, the length of every
// byte array) followed by the arrays themselves, so large tensors go to the
// pipe straight from where they live. The pieces, in order, make the payload.
struct EncodedJob {
  std::vector<std::byte> metadata;
  std::vector<std::span<const std::byte>> pieces;  // metadata first, then the arrays (borrowed from the job)
  uint64_t size() const;
};
EncodedJob encode_job_pieces(const Job& job);
std::vector<std::byte> encode_job(const Job& job);  // the same payload in one buffer
// The decoded job's sets point into `payload` (or `arena` for an arena job),
// which must outlive it.
bool decode_job(const std::vector<std::byte>& payload, Job& job, std::span<const std::byte> arena = {});
std::vector<std::byte> encode_result(const JobResult& r);
// The same payload as pieces: the output arrays are borrowed from `r`.
std::vector<std::span<const std::byte>> encode_result_pieces(const JobResult& r, std::vector<std::vector<std::byte>>& scratch);
// Copies one output out of the arena into `to`.
using CopyOut = void (*)(std::vector<std::byte>& to, std::span<const std::byte> from);
// `limit` caps every byte array the parent accepts (a hostile child cannot make it allocate more).
// Outputs left in the arena are copied out of `arena`, from `outputs_begin`,
// with `copy_out` (default: a plain copy into large_bytes(); the parent passes
// a parallel one).
bool decode_result(const std::vector<std::byte>& payload, JobResult& r, size_t limit,
                   std::span<const std::byte> arena = {}, uint64_t outputs_begin = 0, CopyOut copy_out = nullptr);

// A zero-filled byte vector whose memory is advised for transparent huge
// pages before it is first touched: filling 64 MiB then takes 32 page faults
// instead of 16384.
std::vector<std::byte> large_bytes(size_t n);

// Blocking helpers for the runner side (the parent uses its own deadline-aware I/O).
bool write_frame(int fd, MessageType type, const std::vector<std::byte>& payload);
bool write_frame(int fd, MessageType type, std::span<const std::span<const std::byte>> pieces);
bool read_frame(int fd, MessageType& type, std::vector<std::byte>& payload, uint64_t max_length);

}  // namespace kgb::wire
