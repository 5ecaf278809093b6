// The task selection of the per-task sweeps: the pure rules, then the git side
// against real temporary repositories, then the repository's own sentinel
// list.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/process.h"
#include "task_selection.h"

namespace {

namespace fs = std::filesystem;
using namespace kgb::test;

const std::vector<std::string> kIds{"aten/add", "aten/mm", "aten/softmax", "blas/saxpy", "blas/sgemm", "vllm/rms_norm"};

bool has(const std::vector<std::string>& v, const std::string& id) { return std::find(v.begin(), v.end(), id) != v.end(); }

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A real repository in a private folder; git runs as a process.
struct Repo {
  kgb::TempDir dir{"kgb-selection-repo"};

  std::string git(std::vector<std::string> args) {
    std::vector<std::string> argv{"git", "-C", dir.path().string(), "-c", "user.name=kgb test", "-c", "user.email=kgb@test",
                                  "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = kgb::run_command(argv, dir.path(), 60);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    REQUIRE_MESSAGE((r->status.exited && r->status.code == 0), "git failed: " << r->output);
    return r->output;
  }
  void task(const std::string& id, const std::string& text = "{}") { write_file(dir.path() / "benchmark/tasks" / id / "spec.json", text); }
  std::string commit(const std::string& message) {
    git({"add", "-A"});
    git({"commit", "-q", "-m", message});
    std::string head = git({"rev-parse", "HEAD"});
    head.erase(head.find_last_not_of("\n") + 1);
    return head;
  }
  std::optional<Checkout> inspect(const std::string& base_ref = "") {
    auto c = inspect_checkout(dir.path(), base_ref);
    REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
    return *c;
  }
};

}  // namespace

TEST_CASE("crc32 is zlib's CRC-32") {
  CHECK(crc32("") == 0u);
  CHECK(crc32("123456789") == 0xCBF43926u);
  CHECK(crc32("a") == 0xE8B7BE43u);
  CHECK(crc32("The quick brown fox jumps over the lazy dog") == 0x414FA339u);
}

TEST_CASE("KGB_TASK_SLICE parses k/N and rejects everything else with the variable's name") {
  auto s = parse_slice("3/8");
  REQUIRE(s.ok());
  CHECK(s->index == 3);
  CHECK(s->count == 8);
  CHECK(s->text() == "3/8");
  CHECK(parse_slice("0/16").ok());
  for (const char* bad : {"8/8", "-1/8", "3", "3/0", "x/8", "3/8x", "/8", "3/", "", " 3/8"}) {
    CAPTURE(bad);
    auto r = parse_slice(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("KGB_TASK_SLICE") != std::string::npos);
  }
}

TEST_CASE("the environment: KGB_TASK_SWEEP=all, a forced slice, the base ref, the family; bad values are errors") {
  ::setenv("KGB_TASK_SWEEP", "all", 1);
  ::setenv("KGB_TASK_SLICE", "5/8", 1);
  ::setenv("KGB_BASE_REF", "origin/topic", 1);
  ::setenv("KGB_TASK_FAMILY", "blas", 1);
  auto s = settings_from_environment();
  REQUIRE(s.ok());
  CHECK(s->sweep_all);
  REQUIRE(s->forced_slice);
  CHECK(s->forced_slice->index == 5);
  CHECK(s->base_ref == "origin/topic");
  CHECK(s->family == "blas");
  ::setenv("KGB_TASK_SWEEP", "everything", 1);
  auto bad_sweep = settings_from_environment();
  REQUIRE_FALSE(bad_sweep.ok());
  CHECK(bad_sweep.error().message.find("KGB_TASK_SWEEP='everything'") != std::string::npos);
  ::unsetenv("KGB_TASK_SWEEP");
  ::setenv("KGB_TASK_SLICE", "9/8", 1);
  CHECK_FALSE(settings_from_environment().ok());
  for (const char* name : {"KGB_TASK_SLICE", "KGB_BASE_REF", "KGB_TASK_FAMILY"}) ::unsetenv(name);
  auto plain = settings_from_environment();
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->sweep_all);
  CHECK_FALSE(plain->forced_slice);
  CHECK(plain->base_ref.empty());
  CHECK(plain->family.empty());
}

TEST_CASE("changed paths map to tasks: the task folder and its baseline files, nothing else") {
  const std::vector<std::string> paths{
      "benchmark/tasks/aten/mm/spec.json",
      "benchmark/tasks/aten/mm/solutions/cuda.cu",
      "backends/cpu/baselines/blas/saxpy.cpp",
      "backends/cuda/baselines/vllm/rms_norm/kernel.cu",
      "backends/opencl/baselines/aten/add.cpp",
      "backends/opencl/baselines/plain_common.h",      // shared by every baseline: no single task
      "benchmark/tasks/aten/unknown/spec.json",        // not a task of the list
      "benchmark/tasks/README.md",
      "benchmark/core/src/evaluator.cpp",
      "tests/tasks/softmax_reference_test.cpp",
  };
  CHECK(changed_tasks(kIds, paths) == std::vector<std::string>{"aten/add", "aten/mm", "blas/saxpy", "vllm/rms_norm"});
  CHECK(changed_tasks(kIds, {}).empty());
}

TEST_CASE("primary sweeps take every task of the family whatever the checkout says") {
  SelectionSettings settings;
  Checkout checkout{"0123", "4567", "test", {}};
  auto all = select_tasks(Sweep::Primary, kIds, {"aten/add"}, settings, checkout);
  CHECK(all.ids == kIds);
  CHECK_FALSE(all.slice);
  settings.family = "aten";
  auto aten = select_tasks(Sweep::Primary, kIds, {}, settings, checkout);
  CHECK(aten.ids == std::vector<std::string>{"aten/add", "aten/mm", "aten/softmax"});
  // A family is a whole folder name, not a prefix.
  settings.family = "ate";
  CHECK(select_tasks(Sweep::Primary, kIds, {}, settings, checkout).ids.empty());
}

TEST_CASE("a secondary sweep takes the changed tasks, the sentinels and one slice") {
  std::vector<std::string> ids;
  for (int i = 0; i < 64; ++i) ids.push_back("fam" + std::to_string(i % 2) + "/task" + std::to_string(i));
  std::sort(ids.begin(), ids.end());
  Checkout checkout{"3f2a9c", "b00b1e", "test", {"benchmark/tasks/fam1/task7/spec.json"}};
  const std::vector<std::string> sentinels{"fam0/task0", "fam1/task1"};
  SelectionSettings settings;
  auto s = select_tasks(Sweep::Secondary, ids, sentinels, settings, checkout);
  REQUIRE(s.slice);
  CHECK(s.slice->count == kDefaultSliceCount);
  CHECK(s.slice->index == static_cast<int>(crc32("3f2a9c") % kDefaultSliceCount));
  CHECK(s.changed == std::vector<std::string>{"fam1/task7"});
  CHECK(s.sentinels == sentinels);
  for (const auto& id : s.sliced) CHECK(static_cast<int>(crc32(id) % kDefaultSliceCount) == s.slice->index);
  std::set<std::string> expected(s.sliced.begin(), s.sliced.end());
  expected.insert({"fam1/task7", "fam0/task0", "fam1/task1"});
  CHECK(s.ids == std::vector<std::string>(expected.begin(), expected.end()));
  CHECK(s.ids.size() < ids.size());

  // The slices partition the tasks: every task in exactly one.
  std::multiset<std::string> seen;
  for (int k = 0; k < 8; ++k) {
    settings.forced_slice = Slice{k, 8};
    auto part = select_tasks(Sweep::Secondary, ids, {}, settings, Checkout{"x", "y", "test", {}});
    CHECK(part.slice->index == k);
    seen.insert(part.sliced.begin(), part.sliced.end());
  }
  CHECK(seen == std::multiset<std::string>(ids.begin(), ids.end()));

  // A shard sees its own family only, with the same slice.
  settings.forced_slice.reset();
  settings.family = "fam1";
  auto shard = select_tasks(Sweep::Secondary, ids, sentinels, settings, checkout);
  CHECK(shard.sentinels == std::vector<std::string>{"fam1/task1"});
  for (const auto& id : shard.ids) CHECK(id.rfind("fam1/", 0) == 0);
  for (const auto& id : s.ids)
    if (id.rfind("fam1/", 0) == 0) CHECK(has(shard.ids, id));
}

TEST_CASE("every task: KGB_TASK_SWEEP=all, no git checkout, or no base commit") {
  SelectionSettings settings;
  settings.sweep_all = true;
  auto all = select_tasks(Sweep::Secondary, kIds, {}, settings, Checkout{"1", "2", "test", {}});
  CHECK(all.ids == kIds);
  CHECK(all.reason.find("KGB_TASK_SWEEP=all") != std::string::npos);
  settings.sweep_all = false;
  auto tarball = select_tasks(Sweep::Secondary, kIds, {}, settings, std::nullopt);
  CHECK(tarball.ids == kIds);
  CHECK(tarball.reason.find("no git") != std::string::npos);
  auto no_base = select_tasks(Sweep::Secondary, kIds, {}, settings, Checkout{"1", "", "HEAD~1", {}});
  CHECK(no_base.ids == kIds);
  // A forced slice applies without git too.
  settings.forced_slice = Slice{0, 8};
  auto forced = select_tasks(Sweep::Secondary, kIds, {"blas/saxpy"}, settings, std::nullopt);
  CHECK(has(forced.ids, "blas/saxpy"));
  for (const auto& id : forced.ids)
    if (id != "blas/saxpy") CHECK(crc32(id) % 8 == 0);
}

TEST_CASE("the printed selection names the slice, the base and why each task was chosen") {
  Checkout checkout{"abc123", "def456", "merge base of HEAD and origin/main", {"benchmark/tasks/aten/mm/x"}};
  SelectionSettings settings;
  settings.forced_slice = Slice{2, 8};
  auto s = select_tasks(Sweep::Secondary, kIds, {"blas/saxpy"}, settings, checkout);
  const std::string text = describe(s, checkout);
  CHECK(text.rfind("KGB_TASK_SLICE=2/8\n", 0) == 0);
  CHECK(text.find("def456 (merge base of HEAD and origin/main)") != std::string::npos);
  CHECK(text.find("aten/mm[changed") != std::string::npos);
  CHECK(text.find("blas/saxpy[sentinel") != std::string::npos);
  const std::string primary = describe(select_tasks(Sweep::Primary, kIds, {}, {}, checkout), checkout);
  CHECK(primary.find("KGB_TASK_SLICE") == std::string::npos);
  CHECK(primary.find("6 task(s): aten/add aten/mm") != std::string::npos);
}

TEST_CASE("sentinel files: comments and blank lines, a clear error for a bad line or a missing file") {
  kgb::TempDir dir("kgb-sentinels");
  write_file(dir.path() / "ok.txt", "# one per family\naten/add\n\n  blas/saxpy   # strides\n");
  auto ok = read_sentinels(dir.path() / "ok.txt");
  REQUIRE(ok.ok());
  CHECK(*ok == std::vector<std::string>{"aten/add", "blas/saxpy"});
  write_file(dir.path() / "bad.txt", "aten/add\naten\n");
  auto bad = read_sentinels(dir.path() / "bad.txt");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("bad.txt:2: 'aten' is not a task id") != std::string::npos);
  CHECK_FALSE(read_sentinels(dir.path() / "missing.txt").ok());
}

TEST_CASE("git: changes since the merge base with main, including uncommitted and untracked files") {
  Repo repo;
  repo.git({"init", "-q"});
  repo.task("aten/add");
  repo.task("aten/mm");
  repo.task("blas/saxpy");
  write_file(repo.dir.path() / "backends/cpu/baselines/blas/saxpy.cpp", "// baseline\n");
  const std::string fork_point = repo.commit("tasks");
  repo.git({"checkout", "-q", "-b", "topic"});
  repo.task("aten/mm", "{\"changed\": 1}");
  const std::string head = repo.commit("change mm");

  auto c = repo.inspect();
  REQUIRE(c);
  CHECK(c->head == head);
  CHECK(c->base == fork_point);
  CHECK(c->base_rule == "merge base of HEAD and main");
  CHECK(changed_tasks(task_ids_under(repo.dir.path() / "benchmark/tasks"), c->changed_paths) == std::vector<std::string>{"aten/mm"});

  // Work not yet committed counts: an edited baseline and a new task folder.
  write_file(repo.dir.path() / "backends/cpu/baselines/blas/saxpy.cpp", "// faster baseline\n");
  repo.task("vllm/new_op");
  c = repo.inspect();
  const auto ids = task_ids_under(repo.dir.path() / "benchmark/tasks");
  CHECK(ids == std::vector<std::string>{"aten/add", "aten/mm", "blas/saxpy", "vllm/new_op"});
  CHECK(changed_tasks(ids, c->changed_paths) == std::vector<std::string>{"aten/mm", "blas/saxpy", "vllm/new_op"});

  // KGB_BASE_REF overrides the rule; an unknown ref is an error naming it.
  c = repo.inspect("HEAD");
  CHECK(c->base == head);
  CHECK(c->base_rule == "KGB_BASE_REF=HEAD");
  auto unknown = inspect_checkout(repo.dir.path(), "no-such-branch");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("KGB_BASE_REF='no-such-branch'") != std::string::npos);
}

TEST_CASE("git: on the main line the base is HEAD~1; with one commit there is none; origin/main wins in a clone") {
  Repo repo;
  repo.git({"init", "-q"});
  repo.task("aten/add");
  repo.task("blas/saxpy");
  const std::string first = repo.commit("first");
  auto only = repo.inspect();
  REQUIRE(only);
  CHECK(only->base.empty());  // nothing to compare with: every task counts as changed
  CHECK(select_tasks(Sweep::Secondary, task_ids_under(repo.dir.path() / "benchmark/tasks"), {}, {}, only).ids.size() == 2);

  repo.task("blas/saxpy", "{\"v\": 2}");
  const std::string second = repo.commit("second");
  auto on_main = repo.inspect();
  CHECK(on_main->base == first);
  CHECK(on_main->base_rule == "HEAD~1");
  CHECK(changed_tasks({"aten/add", "blas/saxpy"}, on_main->changed_paths) == std::vector<std::string>{"blas/saxpy"});

  // A clone on a branch: origin/main is the main line.
  Repo clone;
  auto cloned = kgb::run_command({"git", "clone", "-q", repo.dir.path().string(), (clone.dir.path() / "c").string()}, clone.dir.path(), 60);
  REQUIRE(cloned.ok());
  REQUIRE(cloned->status.code == 0);
  const fs::path work = clone.dir.path() / "c";
  auto run = [&](std::vector<std::string> args) {
    std::vector<std::string> argv{"git", "-C", work.string(), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = kgb::run_command(argv, work, 60);
    REQUIRE(r.ok());
    REQUIRE_MESSAGE(r->status.code == 0, r->output);
  };
  run({"checkout", "-q", "-b", "feature"});
  write_file(work / "benchmark/tasks/aten/add/spec.json", "{\"v\": 3}");
  run({"commit", "-q", "-am", "feature"});
  auto branch = inspect_checkout(work, "");
  REQUIRE(branch.ok());
  REQUIRE(*branch);
  CHECK((*branch)->base == second);
  CHECK((*branch)->base_rule == "merge base of HEAD and origin/main");
  CHECK(changed_tasks({"aten/add", "blas/saxpy"}, (*branch)->changed_paths) == std::vector<std::string>{"aten/add"});
}

TEST_CASE("git: a folder outside any repository (a source tarball) has no checkout") {
  kgb::TempDir plain("kgb-selection-tarball");
  auto c = inspect_checkout(plain.path(), "");
  REQUIRE(c.ok());
  CHECK_FALSE(c->has_value());
}

TEST_CASE("tests/tasks/sentinels.txt names one existing task for every source family") {
  auto sentinels = read_sentinels(kgb::source_root() / "tests" / "tasks" / "sentinels.txt");
  REQUIRE_MESSAGE(sentinels.ok(), (sentinels.ok() ? "" : sentinels.error().message));
  const auto ids = task_ids_under(kgb::source_root() / "benchmark" / "tasks");
  std::set<std::string> families;
  for (const auto& id : ids) families.insert(id.substr(0, id.find('/')));
  std::set<std::string> covered;
  for (const auto& id : *sentinels) {
    CAPTURE(id);
    CHECK(has(ids, id));
    const std::string family = id.substr(0, id.find('/'));
    CHECK_MESSAGE(covered.insert(family).second, "a second sentinel for " << family);
  }
  for (const auto& family : families) CHECK_MESSAGE(covered.count(family), "no sentinel for the family " << family);
}

TEST_CASE("the primary platforms are platforms the repository describes; the rest are secondary") {
  std::set<std::string> described;
  for (const auto& p : kgb::load_all_platforms()) described.insert(p.name);
  for (const auto name : kPrimaryPlatforms) {
    CAPTURE(name);
    CHECK(described.count(std::string(name)));
    CHECK(is_primary_platform(name));
  }
  for (const char* name : {"cpu-aarch64", "cpu-riscv64", "cuda-sm80", "cuda-sm100", "hip-gfx90a", "opencl-nvidia"}) {
    CAPTURE(name);
    CHECK(described.count(name));
    CHECK_FALSE(is_primary_platform(name));
  }
}
