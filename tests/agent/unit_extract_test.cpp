// Code extraction from model replies.
#include <doctest/doctest.h>

#include <chrono>

#include "kgb/agent/extract.h"

using namespace kgb::agent;

namespace {

ExtractOptions saxpy(bool cut = false) {
  ExtractOptions o;
  o.entry = "kgb_blas_saxpy";
  o.language = "cpp";
  o.reply_was_cut = cut;
  return o;
}

const char* kKernel =
    "#include \"kgb_kernel.h\"\n"
    "extern \"C\" int kgb_blas_saxpy(const kgb_tensor* x, kgb_stream stream) {\n"
    "  // a } in a comment and \"}\" in a string do not count\n"
    "  return 0;\n"
    "}\n";

}  // namespace

TEST_CASE("a fenced block inside prose") {
  const std::string reply = std::string("Here is my kernel.\n\n```cpp\n") + kKernel + "```\n\nIt vectorises well.";
  const auto e = extract_code(reply, saxpy());
  CHECK(e.status == ExtractStatus::Ok);
  CHECK(e.code == kKernel);
  CHECK(e.blocks == 1);
}

TEST_CASE("several blocks: the one defining the entry wins, the later one among equals") {
  const std::string first = std::string("```cpp\n") + kKernel + "```\n";
  const std::string improved = std::string(kKernel).replace(std::string(kKernel).find("return 0"), 8, "return 1");
  const std::string reply = "A sketch:\n```\nfor (i...) y[i] += a * x[i];\n```\nA call:\n```c\nkgb_blas_saxpy(&x, s);\n```\n" +
                            first + "Better:\n```c++\n" + improved + "```\n```bash\nmake\n```\n";
  const auto e = extract_code(reply, saxpy());
  CHECK(e.status == ExtractStatus::Ok);
  CHECK(e.blocks == 5);
  CHECK(e.chosen_block == 3);
  CHECK(e.code == improved);
}

TEST_CASE("missing fences: the code is found between the prose") {
  const std::string reply = std::string("Sure, here it is:\n") + kKernel + "\nHope this helps!\n";
  const auto e = extract_code(reply, saxpy());
  CHECK(e.status == ExtractStatus::Ok);
  CHECK(e.unfenced);
  CHECK(e.code.find("#include") == 0);
  CHECK(e.code.find("Hope") == std::string::npos);
  CHECK(e.code.find("return 0;") != std::string::npos);
}

TEST_CASE("a missing closing fence with balanced braces is accepted") {
  const std::string reply = std::string("```cpp\n") + kKernel;
  const auto e = extract_code(reply, saxpy());
  CHECK(e.status == ExtractStatus::Ok);
  CHECK(e.note == "the closing fence is missing");
}

TEST_CASE("truncated code: cut off at the token limit, or braces left open") {
  const std::string cut = "```cpp\n#include \"kgb_kernel.h\"\nextern \"C\" int kgb_blas_saxpy(const kgb_tensor* x) {\n  for (;;) {";
  CHECK(extract_code(cut, saxpy(true)).status == ExtractStatus::Truncated);
  CHECK(extract_code(cut, saxpy(false)).status == ExtractStatus::Truncated);
  // A closed block that the provider still reports as cut: braces decide.
  const std::string closed_but_open = cut + "\n```\n";
  CHECK(extract_code(closed_but_open, saxpy(true)).status == ExtractStatus::Truncated);
  CHECK(extract_code(std::string("```cpp\n") + kKernel + "```", saxpy(true)).status == ExtractStatus::Ok);
}

TEST_CASE("no code: prose, empty replies, blocks in other languages") {
  CHECK(extract_code("I cannot help with that.", saxpy()).status == ExtractStatus::NoCode);
  CHECK(extract_code("", saxpy()).status == ExtractStatus::NoCode);
  CHECK(extract_code("   \n\n", saxpy()).status == ExtractStatus::NoCode);
  const auto py = extract_code("```python\nimport torch\nprint(torch.add)\n```", saxpy());
  CHECK(py.status == ExtractStatus::NoCode);
  CHECK(py.note.find("none holds") != std::string::npos);
}

TEST_CASE("a megabyte of prose is no code, found quickly") {
  std::string text;
  while (text.size() < (1u << 20)) text += "The quick brown fox jumps over the lazy dog. ";
  const auto start = std::chrono::steady_clock::now();
  const auto e = extract_code(text, saxpy());
  CHECK(e.status == ExtractStatus::NoCode);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
}

TEST_CASE("binary replies and oversized code") {
  std::string binary(2048, '\0');
  for (size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<char>(i * 131);
  CHECK(extract_code(binary, saxpy()).status == ExtractStatus::Binary);
  std::string invalid_utf8;
  for (int i = 0; i < 500; ++i) invalid_utf8 += "\xff\xfe ok ";
  CHECK(extract_code(invalid_utf8, saxpy()).status == ExtractStatus::Binary);
  // Valid UTF-8 beyond ASCII is text.
  CHECK(extract_code("Voilà — le noyau:\n```cpp\nint kgb_blas_saxpy() { return 0; }\n```", saxpy()).status == ExtractStatus::Ok);
  ExtractOptions small = saxpy();
  small.max_code_bytes = 64;
  CHECK(extract_code(std::string("```cpp\n") + kKernel + "```", small).status == ExtractStatus::TooLarge);
}

TEST_CASE("status names") {
  CHECK(extract_status_name(ExtractStatus::NoCode) == "no-code");
  CHECK(extract_status_name(ExtractStatus::Truncated) == "truncated-code");
  CHECK(extract_status_name(ExtractStatus::Binary) == "binary-reply");
}
