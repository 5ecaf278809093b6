// The in-process cache of candidate builds (kgb/compile_cache.h): keys that
// change with every input of the build, least-recently-used eviction, and the
// compile step reusing an identical build with a real g++ and runner library.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "kgb/compile_cache.h"
#include "kgb/evaluator.h"
#include "kgb/platform.h"
#include "kgb/task.h"

namespace {

std::string bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

struct TempFolder {
  std::filesystem::path path;
  TempFolder() {
    char pattern[] = "/tmp/kgb-compile-cache-XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~TempFolder() { std::filesystem::remove_all(path); }
};

std::shared_ptr<const kgb::CompiledBuild> entry_of(size_t bytes) {
  auto e = std::make_shared<kgb::CompiledBuild>();
  e->object.assign(bytes, 'o');
  return e;
}

}  // namespace

TEST_CASE("a build's key changes with the source, the glue, the commands and the files they name") {
  TempFolder dir;
  const auto library = dir.path / "librunner.a";
  std::ofstream(library) << "one";
  const std::vector<std::vector<std::string>> commands{{"g++", "-O3", "-c", "candidate.cpp"}, {"g++", library.string(), "-o", "candidate"}};
  const std::string base = kgb::CompileCache::key("cpu-x86_64", "int f();", "glue", commands);
  CHECK(base == kgb::CompileCache::key("cpu-x86_64", "int f();", "glue", commands));
  CHECK(base != kgb::CompileCache::key("cpu-x86_64", "int f(); ", "glue", commands));
  CHECK(base != kgb::CompileCache::key("cpu-x86_64", "int f();", "glue2", commands));
  CHECK(base != kgb::CompileCache::key("cpu-aarch64", "int f();", "glue", commands));
  auto flags = commands;
  flags[0][1] = "-O2";
  CHECK(base != kgb::CompileCache::key("cpu-x86_64", "int f();", "glue", flags));
  // Fields are length-prefixed: moving text between two of them changes the key.
  CHECK(kgb::CompileCache::key("p", "ab", "c", {}) != kgb::CompileCache::key("p", "a", "bc", {}));
  // A rebuilt runner library (same path, new contents and time) is another build.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::ofstream(library) << "rebuilt";
  CHECK(base != kgb::CompileCache::key("cpu-x86_64", "int f();", "glue", commands));
}

TEST_CASE("the cache keeps the most recently used builds within its byte budget") {
  kgb::CompileCache cache(1000);
  cache.insert("a", entry_of(400), 400);
  cache.insert("b", entry_of(400), 400);
  CHECK(cache.find("a") != nullptr);  // a is now the most recent
  cache.insert("c", entry_of(400), 400);  // evicts b
  CHECK(cache.find("b") == nullptr);
  CHECK(cache.find("a") != nullptr);
  CHECK(cache.find("c") != nullptr);
  cache.insert("huge", entry_of(5000), 5000);  // larger than the budget: not kept, nothing evicted
  CHECK(cache.find("huge") == nullptr);
  CHECK(cache.stats().entries == 2);
  CHECK(cache.stats().bytes <= 1000);
  CHECK(cache.stats().hits == 3);
  CHECK(cache.stats().misses == 2);
}

TEST_CASE("an identical candidate is built once per process; its artefacts come back byte for byte and run") {
  auto platform = kgb::load_platform("cpu-x86_64");
  REQUIRE(platform.ok());
  auto task = kgb::load_task_file(std::string(KGB_TEST_DIR) + "/tasks/test/scale/spec.json");
  REQUIRE(task.ok());
  // The test task's correct kernel, in a spelling no other test builds.
  const std::string source = bytes_of(std::string(KGB_TEST_DIR) + "/kernels/scale_impl.inc") +
                             "\nextern \"C\" int kgb_test_scale(const kgb_tensor* x, double alpha, kgb_tensor* out, "
                             "kgb_stream stream) {\n  return scale_impl(x, alpha, out);\n}\n// compile cache test " +
                             std::to_string(::getpid()) + "\n";
  TempFolder first, second, third;
  auto built = kgb::compile_candidate(*task, *platform, source, first.path, kgb::EvalHooks{});
  REQUIRE(built.ok);
  CHECK_FALSE(built.cached);
  auto again = kgb::compile_candidate(*task, *platform, source, second.path, kgb::EvalHooks{});
  REQUIRE(again.ok);
  CHECK(again.cached);
  CHECK(again.seconds < built.seconds);
  CHECK(bytes_of(again.object) == bytes_of(built.object));
  CHECK(bytes_of(again.executable) == bytes_of(built.executable));
  struct stat st{};
  REQUIRE(::stat(again.executable.c_str(), &st) == 0);
  CHECK((st.st_mode & S_IXUSR) != 0);
  // Any change to the source is a new build.
  auto changed = kgb::compile_candidate(*task, *platform, source + " ", third.path, kgb::EvalHooks{});
  REQUIRE(changed.ok);
  CHECK_FALSE(changed.cached);

  // The reused build evaluates like the original one.
  kgb::EvalOptions o;
  o.time = false;
  o.seed = 3;
  o.seeds_per_case = 1;
  kgb::Verdict v = kgb::evaluate(*task, *platform, source, o, kgb::EvalHooks{});
  INFO(v.summary);
  CHECK(v.outcome == kgb::Outcome::Passed);
}
