#include "kgb/oracle/mutate.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace kgb::oracle {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// Index of the bracket matching the one at `open`, in masked text.
std::optional<std::size_t> matching(std::string_view masked, std::size_t open, char open_ch, char close_ch) {
  int depth = 0;
  for (std::size_t i = open; i < masked.size(); ++i) {
    if (masked[i] == open_ch) ++depth;
    else if (masked[i] == close_ch && --depth == 0) return i;
  }
  return std::nullopt;
}

// Whole-identifier occurrences of `name` in masked text.
std::vector<std::size_t> occurrences(std::string_view masked, std::string_view name) {
  std::vector<std::size_t> out;
  for (std::size_t pos = masked.find(name); pos != std::string_view::npos; pos = masked.find(name, pos + 1)) {
    const bool starts = pos == 0 || !ident_char(masked[pos - 1]);
    const bool ends = pos + name.size() >= masked.size() || !ident_char(masked[pos + name.size()]);
    if (starts && ends) out.push_back(pos);
  }
  return out;
}

int line_of(std::string_view text, std::size_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

// Parameter names of a C declaration: the last identifier of each
// comma-separated piece between the outer parentheses.
std::vector<std::string> parameter_names(std::string_view declaration) {
  std::vector<std::string> names;
  const auto open = declaration.find('(');
  const auto close = declaration.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return names;
  std::string_view list = declaration.substr(open + 1, close - open - 1);
  while (!list.empty()) {
    const auto comma = list.find(',');
    std::string_view piece = trim(list.substr(0, comma));
    std::size_t end = piece.size();
    while (end > 0 && !ident_char(piece[end - 1])) --end;
    std::size_t begin = end;
    while (begin > 0 && ident_char(piece[begin - 1])) --begin;
    if (end > begin) names.emplace_back(piece.substr(begin, end - begin));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return names;
}

// Host-side perturbation for CPU platforms. Strided views are walked with the
// tensor's own strides so only elements of the view are touched.
constexpr std::string_view kCpuPerturb = R"(
#include <string.h>

static float kgb_oracle_shift_f32(float v) { return v == v && v - v == 0 ? v + 1.0f + 0.5f * (v < 0 ? -v : v) : 0.0f; }
static double kgb_oracle_shift_f64(double v) { return v == v && v - v == 0 ? v + 1.0 + 0.5 * (v < 0 ? -v : v) : 0.0; }

static void kgb_oracle_perturb(kgb_tensor* t, int every_element) {
  if (t == NULL || t->data == NULL) return;
  const int64_t count = kgb_numel(t);
  const int64_t limit = every_element ? count : (count > 0 ? 1 : 0);
  const int32_t size = kgb_dtype_size(t->dtype);
  for (int64_t i = 0; i < limit; ++i) {
    int64_t rest = i, offset = 0;
    for (int32_t d = t->rank - 1; d >= 0; --d) {
      offset += (rest % t->sizes[d]) * t->strides[d];
      rest /= t->sizes[d];
    }
    char* p = (char*)t->data + offset * size;
    switch (t->dtype) {
      case KGB_F32: case KGB_C64: { float v; memcpy(&v, p, 4); v = every_element ? 7.0f : kgb_oracle_shift_f32(v); memcpy(p, &v, 4); break; }
      case KGB_F64: case KGB_C128: { double v; memcpy(&v, p, 8); v = every_element ? 7.0 : kgb_oracle_shift_f64(v); memcpy(p, &v, 8); break; }
      case KGB_F16: { uint16_t v; memcpy(&v, p, 2); v = every_element ? (uint16_t)0x4700 : (uint16_t)(v ^ 0x4000); memcpy(p, &v, 2); break; }
      case KGB_BF16: { uint16_t v; memcpy(&v, p, 2); v = every_element ? (uint16_t)0x40E0 : (uint16_t)(v ^ 0x4000); memcpy(p, &v, 2); break; }
      case KGB_I64: { int64_t v; memcpy(&v, p, 8); v = every_element ? 7 : v + 1; memcpy(p, &v, 8); break; }
      case KGB_I32: { int32_t v; memcpy(&v, p, 4); v = every_element ? 7 : v + 1; memcpy(p, &v, 4); break; }
      case KGB_I8: { int8_t v; memcpy(&v, p, 1); v = every_element ? (int8_t)7 : (int8_t)(v + 1); memcpy(p, &v, 1); break; }
      case KGB_BOOL: { uint8_t v; memcpy(&v, p, 1); v = every_element ? (uint8_t)1 : (uint8_t)(v ^ 1); memcpy(p, &v, 1); break; }
      default: break;
    }
  }
}
)";

// Device-side perturbation for CUDA and HIP: one small kernel on the stream
// the entry was given, after the entry's own work.
constexpr std::string_view kGpuPerturb = R"(
__device__ static float kgb_oracle_shift_f32(float v) { return isfinite(v) ? v + 1.0f + 0.5f * fabsf(v) : 0.0f; }
__device__ static double kgb_oracle_shift_f64(double v) { return isfinite(v) ? v + 1.0 + 0.5 * fabs(v) : 0.0; }

__global__ static void kgb_oracle_perturb_kernel(kgb_tensor t, int64_t limit, int every_element) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < limit; i += (int64_t)gridDim.x * blockDim.x) {
    int64_t rest = i, offset = 0;
    for (int32_t d = t.rank - 1; d >= 0; --d) {
      offset += (rest % t.sizes[d]) * t.strides[d];
      rest /= t.sizes[d];
    }
    switch (t.dtype) {
      case KGB_F32: { float* p = (float*)t.data + offset; *p = every_element ? 7.0f : kgb_oracle_shift_f32(*p); break; }
      case KGB_C64: { float* p = (float*)t.data + 2 * offset; *p = every_element ? 7.0f : kgb_oracle_shift_f32(*p); break; }
      case KGB_F64: { double* p = (double*)t.data + offset; *p = every_element ? 7.0 : kgb_oracle_shift_f64(*p); break; }
      case KGB_C128: { double* p = (double*)t.data + 2 * offset; *p = every_element ? 7.0 : kgb_oracle_shift_f64(*p); break; }
      case KGB_F16: { unsigned short* p = (unsigned short*)t.data + offset; *p = every_element ? 0x4700 : (*p ^ 0x4000); break; }
      case KGB_BF16: { unsigned short* p = (unsigned short*)t.data + offset; *p = every_element ? 0x40E0 : (*p ^ 0x4000); break; }
      case KGB_I64: { long long* p = (long long*)t.data + offset; *p = every_element ? 7 : *p + 1; break; }
      case KGB_I32: { int* p = (int*)t.data + offset; *p = every_element ? 7 : *p + 1; break; }
      case KGB_I8: { signed char* p = (signed char*)t.data + offset; *p = every_element ? 7 : (signed char)(*p + 1); break; }
      case KGB_BOOL: { unsigned char* p = (unsigned char*)t.data + offset; *p = every_element ? 1 : (*p ^ 1); break; }
      default: break;
    }
  }
}

static void kgb_oracle_perturb(kgb_tensor* t, int every_element, kgb_stream stream) {
  if (t == NULL || t->data == NULL) return;
  const int64_t count = kgb_numel(t);
  const int64_t limit = every_element ? count : (count > 0 ? 1 : 0);
  if (limit == 0) return;
  const int64_t blocks = limit < 256 * 1024 ? (limit + 255) / 256 : 1024;
  kgb_oracle_perturb_kernel<<<(unsigned)blocks, 256, 0, (KGB_ORACLE_STREAM_T)stream>>>(*t, limit, every_element);
}
)";

}  // namespace

std::string mask_comments_and_strings(std::string_view source) {
  std::string out(source);
  const std::size_t n = source.size();
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < n; ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  std::size_t i = 0;
  while (i < n) {
    const char c = source[i];
    if (c == '/' && i + 1 < n && source[i + 1] == '/') {
      std::size_t end = source.find('\n', i);
      if (end == std::string_view::npos) end = n;
      blank(i, end);
      i = end;
    } else if (c == '/' && i + 1 < n && source[i + 1] == '*') {
      std::size_t end = source.find("*/", i + 2);
      end = end == std::string_view::npos ? n : end + 2;
      blank(i, end);
      i = end;
    } else if (c == '"' && i > 0 && source[i - 1] == 'R' &&
               (i < 2 || !ident_char(source[i - 2]) || source.substr(i - 2, 1) == "8" || source[i - 2] == 'u' ||
                source[i - 2] == 'U' || source[i - 2] == 'L')) {
      // Raw string: R"delim( ... )delim"
      const std::size_t paren = source.find('(', i + 1);
      if (paren == std::string_view::npos) break;
      const std::string terminator = ")" + std::string(source.substr(i + 1, paren - i - 1)) + "\"";
      std::size_t end = source.find(terminator, paren + 1);
      end = end == std::string_view::npos ? n : end + terminator.size();
      blank(i + 1, end - 1);
      i = end;
    } else if (c == '"' || c == '\'') {
      if (c == '\'' && i > 0 && std::isxdigit(static_cast<unsigned char>(source[i - 1]))) {
        // A digit separator (1'000) when inside a number: look back for its start.
        std::size_t start = i;
        while (start > 0 && (ident_char(source[start - 1]) || source[start - 1] == '\'' || source[start - 1] == '.')) --start;
        if (std::isdigit(static_cast<unsigned char>(source[start]))) {
          ++i;
          continue;
        }
      }
      std::size_t end = i + 1;
      while (end < n && source[end] != c && source[end] != '\n') end += source[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, n);
      blank(i + 1, end - 1);
      i = end;
    } else {
      ++i;
    }
  }
  return out;
}

std::optional<EntryLocation> find_entry_definition(std::string_view source, std::string_view entry) {
  if (entry.empty()) return std::nullopt;
  const std::string masked = mask_comments_and_strings(source);
  for (std::size_t pos : occurrences(masked, entry)) {
    std::size_t k = pos + entry.size();
    while (k < masked.size() && std::isspace(static_cast<unsigned char>(masked[k]))) ++k;
    if (k >= masked.size() || masked[k] != '(') continue;
    auto close = matching(masked, k, '(', ')');
    if (!close) continue;
    k = *close + 1;
    while (k < masked.size() && std::isspace(static_cast<unsigned char>(masked[k]))) ++k;
    if (k >= masked.size() || masked[k] != '{') continue;  // a declaration or a call
    auto body_close = matching(masked, k, '{', '}');
    if (!body_close) continue;
    return EntryLocation{pos, k, *body_close};
  }
  return std::nullopt;
}

Mutation inject_compile_error(std::string_view source, std::string_view entry) {
  Mutation m;
  m.kind = "compile_error";
  // A plausible slip: calling a validation helper that was never written.
  const std::string statement = "  if (kgb_validate_arguments() != 0) return 2;";
  if (auto where = find_entry_definition(source, entry)) {
    std::size_t insert_at = where->body_open + 1;
    m.source = std::string(source.substr(0, insert_at)) + "\n" + statement + std::string(source.substr(insert_at));
    m.line = line_of(m.source, insert_at + 1);
    return m;
  }
  // No recognisable entry: the same slip at file scope still fails to compile.
  m.source = std::string(source);
  if (!m.source.empty() && m.source.back() != '\n') m.source += '\n';
  m.source += "static const int kgb_arguments_checked = kgb_validate_arguments();\n";
  m.line = line_of(m.source, m.source.size() - 1);
  return m;
}

kgb::Result<Mutation> inject_wrong_result(const KernelTarget& target) {
  const bool gpu = target.backend == "cuda" || target.backend == "hip";
  if (target.backend != "cpu" && !gpu)
    return make_error("oracle.no-wrapper", "no wrong-result wrapper for the " + target.backend + " backend");
  if (target.outputs.empty()) return make_error("oracle.no-wrapper", target.task_id + " has no output");
  if (!find_entry_definition(target.source, target.entry))
    return make_error("oracle.no-wrapper", "the entry " + target.entry + " is not defined in the solution");

  std::string declaration(trim(target.entry_declaration));
  while (!declaration.empty() && (declaration.back() == ';' || std::isspace(static_cast<unsigned char>(declaration.back()))))
    declaration.pop_back();
  const std::vector<std::string> names = parameter_names(declaration);
  if (names.empty() || std::find(names.begin(), names.end(), target.outputs.front()) == names.end())
    return make_error("oracle.no-wrapper", "cannot read the parameters of " + target.entry);

  // Rename every use of the entry in code (not in comments or strings).
  const std::string impl = target.entry + "_oracle_impl";
  const std::string masked = mask_comments_and_strings(target.source);
  std::string renamed = target.source;
  auto positions = occurrences(masked, target.entry);
  for (auto it = positions.rbegin(); it != positions.rend(); ++it) renamed.replace(*it, target.entry.size(), impl);

  std::string call = impl + "(";
  for (std::size_t i = 0; i < names.size(); ++i) call += (i ? ", " : "") + names[i];
  call += ")";
  const std::string every = target.statistical ? "1" : "0";

  Mutation m;
  m.kind = "wrong_result";
  m.source = renamed;
  if (!m.source.empty() && m.source.back() != '\n') m.source += '\n';
  if (gpu) {
    m.source += target.backend == "hip" ? "#define KGB_ORACLE_STREAM_T hipStream_t\n" : "#define KGB_ORACLE_STREAM_T cudaStream_t\n";
    m.source += kGpuPerturb;
  } else {
    m.source += kCpuPerturb;
  }
  m.source += "\n" + declaration + " {\n";
  m.source += "  const int status = " + call + ";\n";
  m.source += "  if (status != 0) return status;\n";
  // The first output is made wrong, whatever its kind: values of a tensor or
  // of a list's first item, the metadata of a view, a host scalar's value.
  const std::string& out = target.outputs.front();
  const std::string kind = target.output_kinds.empty() ? "tensor" : target.output_kinds.front();
  const std::string stream_arg = gpu ? ", " + names.back() : "";
  if (kind == "list") {
    m.source += "  if (" + out + "->count > 0) kgb_oracle_perturb(" + out + "->items[0], " + every + stream_arg + ");\n";
  } else if (kind == "view_list") {  // a list of views: the first item's metadata
    m.source += "  if (" + out + "->count > 0) {\n";
    m.source += "    kgb_tensor* first = " + out + "->items[0];\n";
    m.source += "    first->data = (char*)first->data + kgb_dtype_size(first->dtype);\n";
    m.source += "    first->storage_offset += 1;\n  }\n";
  } else if (kind == "view") {
    m.source += "  " + out + "->data = (char*)" + out + "->data + kgb_dtype_size(" + out + "->dtype);\n";
    m.source += "  " + out + "->storage_offset += 1;\n";
  } else if (kind == "scalar") {
    m.source += "  if (" + out + "->dtype == KGB_F64) " + out + "->v.f += 1.0; else " + out + "->v.i += 1;\n";
  } else {
    m.source += "  kgb_oracle_perturb(" + out + ", " + every + stream_arg + ");\n";
  }
  m.source += "  return 0;\n}\n";
  return m;
}

}  // namespace kgb::oracle
