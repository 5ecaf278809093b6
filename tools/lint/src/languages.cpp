#include <algorithm>
#include <cctype>

#include "kgb/lint.h"

namespace kgb::lint {

std::string_view language_name(Language language) {
  switch (language) {
    case Language::Cpp: return "c++";
    case Language::Cuda: return "cuda";
    case Language::Hip: return "hip";
    case Language::OpenCLHost: return "opencl-host";
    case Language::OpenCLC: return "opencl-c";
  }
  return "c++";
}

std::optional<Language> language_for_backend(std::string_view backend) {
  if (backend == "cpu") return Language::Cpp;
  if (backend == "cuda") return Language::Cuda;
  if (backend == "hip") return Language::Hip;
  if (backend == "opencl") return Language::OpenCLHost;
  return std::nullopt;
}

Language language_for(const Platform& platform) {
  return language_for_backend(platform.backend).value_or(Language::Cpp);
}

std::optional<Language> language_for_file(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c++") return Language::Cpp;
  if (ext == ".cu") return Language::Cuda;
  if (ext == ".hip") return Language::Hip;
  if (ext == ".cl") return Language::OpenCLC;
  return std::nullopt;
}

}  // namespace kgb::lint
