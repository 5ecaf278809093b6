// The spec loader: every malformed spec gets an error naming the file, the
// field and what was expected; one bad task never stops the others.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "kgb/process.h"
#include "kgb/task.h"

namespace {

const char* kValid = R"({
  "id": "demo/copy", "summary": "copy", "description": "out = x",
  "type_variables": {"T": ["f32", "f64"]},
  "params": [
    {"name": "x", "tensor": "input", "dtype": "T", "shape": ["N"]},
    {"name": "out", "tensor": "output", "dtype": "T", "shape": ["N"]}
  ],
  "correctness": [{"name": "small", "dims": {"N": 4}}],
  "performance": []
})";

struct SpecFolder {
  kgb::TempDir root{"kgb-spec-test"};
  std::filesystem::path write(const std::string& source, const std::string& name, const std::string& text) {
    auto dir = root.path() / source / name;
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "spec.json") << text;
    return dir / "spec.json";
  }
};

std::string replace(std::string text, const std::string& from, const std::string& to) {
  auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  return text.replace(pos, from.size(), to);
}

std::string load_error(const std::string& text) {
  SpecFolder f;
  auto path = f.write("demo", "copy", text);
  auto t = kgb::load_task_file(path);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().message.find(path.string()) != std::string::npos);  // names the file
  return t.error().message;
}

}  // namespace

TEST_CASE("a valid spec loads with its entry point and declaration") {
  SpecFolder f;
  auto t = kgb::load_task_file(f.write("demo", "copy", kValid));
  REQUIRE(t.ok());
  CHECK(t->entry == "kgb_demo_copy");
  CHECK(kgb::entry_declaration(*t) == "extern \"C\" int kgb_demo_copy(const kgb_tensor* x, kgb_tensor* out, kgb_stream stream);");
  CHECK(t->dtypes.size() == 2);
}

TEST_CASE("malformed specs name the field and what was expected") {
  CHECK(load_error("{ not json").find("not valid JSON") != std::string::npos);
  CHECK(load_error(replace(kValid, R"("summary": "copy", )", "")).find("'summary': missing") != std::string::npos);
  CHECK(load_error(replace(kValid, R"("tensor": "input")", R"("tensor": "sideways")")).find("'params[0].tensor': expected input|output|inout|view|scratch, found 'sideways'") != std::string::npos);
  CHECK(load_error(replace(kValid, R"("dtype": "T", "shape": ["N"]})", R"("dtype": "f33", "shape": ["N"]})")).find("params[0].dtype") != std::string::npos);
  CHECK(load_error(replace(kValid, R"("dims": {"N": 4})", R"("dims": {"N": -4})")).find("correctness[0].dims.N") != std::string::npos);
  CHECK(load_error(replace(kValid, R"("dims": {"N": 4})", R"("layouts": {"y": {"kind": "transposed"}})")).find("no tensor parameter named 'y'") != std::string::npos);
  CHECK(load_error(replace(kValid, R"("name": "out", "tensor": "output")", R"("name": "x", "tensor": "output")")).find("duplicate name 'x'") != std::string::npos);
  CHECK(load_error(replace(kValid, R"("id": "demo/copy")", R"("id": "demo/other")")).find("does not match its folder") != std::string::npos);
  CHECK(load_error(replace(kValid, R"("tensor": "output")", R"("tensor": "input")")).find("no output, inout, view, scratch or scalar output") != std::string::npos);
  CHECK(load_error(replace(kValid, R"("correctness": [{"name": "small", "dims": {"N": 4}}])", R"("correctness": [])")).find("at least one case") != std::string::npos);
  CHECK(load_error(replace(kValid, R"("shape": ["N"]},)", R"("shape": "N"},)")).find("params[0].shape") != std::string::npos);
}

TEST_CASE("one bad task never stops the others from loading") {
  SpecFolder f;
  f.write("demo", "copy", kValid);
  f.write("demo", "broken", "[1, 2");
  std::filesystem::create_directories(f.root.path() / "demo" / "nospec");
  auto report = kgb::load_all_tasks(f.root.path());
  REQUIRE(report.tasks.size() == 1);
  CHECK(report.tasks[0].id == "demo/copy");
  CHECK(report.errors.size() == 2);
}

TEST_CASE("task globs select by id, and comma-separated globs take the union") {
  SpecFolder f;
  f.write("demo", "copy", kValid);
  auto tasks = kgb::load_all_tasks(f.root.path()).tasks;
  CHECK(kgb::filter_tasks(tasks, "demo/*").size() == 1);
  CHECK(kgb::filter_tasks(tasks, "other/*").empty());
  CHECK(kgb::filter_tasks(tasks, "x/*,*copy").size() == 1);
  CHECK(kgb::glob_match("a*b?d", "aXXbcd"));
  CHECK_FALSE(kgb::glob_match("a*b?d", "aXXbd"));
}

TEST_CASE("the bundled tasks all load") {
  auto report = kgb::load_all_tasks(std::string(KGB_SOURCE_DIR) + "/benchmark/tasks");
  for (const auto& e : report.errors) FAIL_CHECK(e.message);
  CHECK(report.tasks.size() >= 12);
}
