#include "task_selection.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "kgb/paths.h"
#include "kgb/process.h"

namespace kgb::test {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

struct GitOutput {
  bool ok = false;
  std::string out;
};

// One git command in `dir`; stdout only (a warning on stderr must not become
// a path).
GitOutput git(const std::filesystem::path& dir, std::vector<std::string> args) {
  SpawnOptions options;
  options.argv = {"git", "-C", dir.string()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.capture_limit = 64 << 20;
  auto child = ChildProcess::spawn(options);
  if (!child) return {};
  const ExitStatus status = (*child)->wait(deadline_after(60));
  return {status.exited && status.code == 0, (*child)->stdout_text()};
}

std::string commit_of(const std::filesystem::path& dir, const std::string& ref) {
  GitOutput r = git(dir, {"rev-parse", "--verify", "--quiet", ref + "^{commit}"});
  return r.ok ? trim(r.out) : "";
}

// The default base: the merge base with the main line where that is not HEAD
// itself (a branch), else the previous commit (on the main line).
std::pair<std::string, std::string> default_base(const std::filesystem::path& dir, const std::string& head) {
  for (const char* main_ref : {"origin/main", "main"}) {
    if (commit_of(dir, main_ref).empty()) continue;
    GitOutput mb = git(dir, {"merge-base", "HEAD", main_ref});
    const std::string base = mb.ok ? trim(mb.out) : "";
    if (!base.empty() && base != head) return {base, std::string("merge base of HEAD and ") + main_ref};
  }
  return {commit_of(dir, "HEAD~1"), "HEAD~1"};
}

bool is_task_id(std::string_view id) {
  const auto slash = id.find('/');
  return slash != std::string_view::npos && slash > 0 && slash + 1 < id.size() && id.find('/', slash + 1) == std::string_view::npos;
}

}  // namespace

bool is_primary_platform(std::string_view platform) {
  return std::find(kPrimaryPlatforms.begin(), kPrimaryPlatforms.end(), platform) != kPrimaryPlatforms.end();
}

Result<Slice> parse_slice(std::string_view text) {
  const auto bad = [&] {
    return make_error("selection.slice", "KGB_TASK_SLICE='" + std::string(text) + "': expected k/N with 0 <= k < N, e.g. 3/16");
  };
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return bad();
  Slice s;
  const auto parse = [](std::string_view part, int& value) {
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    return ec == std::errc() && end == part.data() + part.size() && !part.empty();
  };
  if (!parse(text.substr(0, slash), s.index) || !parse(text.substr(slash + 1), s.count)) return bad();
  if (s.count < 1 || s.index < 0 || s.index >= s.count) return bad();
  return s;
}

Result<SelectionSettings> settings_from_environment() {
  SelectionSettings s;
  const std::string sweep = env("KGB_TASK_SWEEP");
  if (sweep == "all") s.sweep_all = true;
  else if (!sweep.empty())
    return make_error("selection.sweep", "KGB_TASK_SWEEP='" + sweep + "': the only value is 'all' (every task in every sweep)");
  if (const std::string slice = env("KGB_TASK_SLICE"); !slice.empty()) {
    auto parsed = parse_slice(slice);
    if (!parsed) return parsed.error();
    s.forced_slice = *parsed;
  }
  s.base_ref = env("KGB_BASE_REF");
  s.family = env("KGB_TASK_FAMILY");
  return s;
}

Result<std::optional<Checkout>> inspect_checkout(const std::filesystem::path& source_root, const std::string& base_ref) {
  GitOutput inside = git(source_root, {"rev-parse", "--is-inside-work-tree"});
  if (!inside.ok || trim(inside.out) != "true") return std::optional<Checkout>{};
  Checkout c;
  c.head = commit_of(source_root, "HEAD");
  if (c.head.empty()) return std::optional<Checkout>{};  // a repository without commits
  if (!base_ref.empty()) {
    c.base = commit_of(source_root, base_ref);
    if (c.base.empty())
      return make_error("selection.base", "KGB_BASE_REF='" + base_ref + "' is not a commit of the repository at " + source_root.string());
    c.base_rule = "KGB_BASE_REF=" + base_ref;
  } else {
    std::tie(c.base, c.base_rule) = default_base(source_root, c.head);
  }
  if (c.base.empty()) return std::optional<Checkout>{c};
  // Against the work tree, not HEAD: uncommitted edits count as changes.
  GitOutput diff = git(source_root, {"-c", "core.quotepath=off", "diff", "--name-only", "--no-renames", "--relative", c.base});
  if (!diff.ok) return make_error("selection.git", "git diff --name-only " + c.base + " failed in " + source_root.string());
  GitOutput untracked = git(source_root, {"-c", "core.quotepath=off", "ls-files", "--others", "--exclude-standard"});
  if (!untracked.ok) return make_error("selection.git", "git ls-files --others failed in " + source_root.string());
  c.changed_paths = lines_of(diff.out);
  for (auto& path : lines_of(untracked.out)) c.changed_paths.push_back(std::move(path));
  return std::optional<Checkout>{c};
}

uint32_t crc32(std::string_view bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : bytes) crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

std::vector<std::string> task_ids_under(const std::filesystem::path& tasks_root) {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& source : std::filesystem::directory_iterator(tasks_root, ec)) {
    if (!source.is_directory()) continue;
    for (const auto& task : std::filesystem::directory_iterator(source.path(), ec))
      if (task.is_directory()) ids.push_back(source.path().filename().string() + "/" + task.path().filename().string());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<std::vector<std::string>> read_sentinels(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return make_error("selection.sentinels", file.string() + ": cannot be read");
  std::vector<std::string> ids;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::string id = trim(line.substr(0, line.find('#')));
    if (id.empty()) continue;
    if (!is_task_id(id))
      return make_error("selection.sentinels", file.string() + ":" + std::to_string(number) + ": '" + id + "' is not a task id (<source>/<name>)");
    ids.push_back(id);
  }
  return ids;
}

std::vector<std::string> changed_tasks(const std::vector<std::string>& task_ids,
                                       const std::vector<std::string>& changed_paths) {
  const std::set<std::string> known(task_ids.begin(), task_ids.end());
  std::set<std::string> changed;
  for (const std::string& path : changed_paths) {
    std::vector<std::string> parts;
    for (const auto& part : std::filesystem::path(path)) parts.push_back(part.string());
    // benchmark/tasks/<source>/<name>/...
    if (parts.size() >= 5 && parts[0] == "benchmark" && parts[1] == "tasks") {
      const std::string id = parts[2] + "/" + parts[3];
      if (known.count(id)) changed.insert(id);
      continue;
    }
    // backends/<backend>/baselines/<source>/<name>.<ext> or .../<name>/...
    if (parts.size() >= 5 && parts[0] == "backends" && parts[2] == "baselines") {
      std::string name = parts[4];
      if (parts.size() == 5) name = std::filesystem::path(name).stem().string();
      const std::string id = parts[3] + "/" + name;
      if (known.count(id)) changed.insert(id);
    }
  }
  return {changed.begin(), changed.end()};
}

TaskSelection select_tasks(Sweep sweep, const std::vector<std::string>& task_ids,
                           const std::vector<std::string>& sentinels, const SelectionSettings& settings,
                           const std::optional<Checkout>& checkout) {
  std::vector<std::string> family_ids;
  for (const auto& id : task_ids)
    if (settings.family.empty() || id.rfind(settings.family + "/", 0) == 0) family_ids.push_back(id);
  const std::set<std::string> in_family(family_ids.begin(), family_ids.end());

  TaskSelection s;
  if (sweep == Sweep::Primary) s.reason = "primary sweep: every task";
  else if (settings.sweep_all) s.reason = "KGB_TASK_SWEEP=all: every task";
  else if (!checkout && !settings.forced_slice) s.reason = "no git checkout: every task";
  if (!s.reason.empty()) {
    s.ids = family_ids;
    return s;
  }

  std::set<std::string> chosen;
  if (checkout) {
    for (const auto& id : changed_tasks(family_ids, checkout->changed_paths)) s.changed.push_back(id);
    // Without a base commit nothing can be called unchanged.
    if (checkout->base.empty()) s.changed = family_ids;
  }
  for (const auto& id : sentinels)
    if (in_family.count(id)) s.sentinels.push_back(id);
  s.slice = settings.forced_slice;
  if (!s.slice) s.slice = Slice{static_cast<int>(crc32(checkout->head) % kDefaultSliceCount), kDefaultSliceCount};
  for (const auto& id : family_ids)
    if (static_cast<int>(crc32(id) % static_cast<uint32_t>(s.slice->count)) == s.slice->index) s.sliced.push_back(id);
  for (const auto* part : {&s.changed, &s.sentinels, &s.sliced}) chosen.insert(part->begin(), part->end());
  s.ids.assign(chosen.begin(), chosen.end());
  s.reason = "secondary sweep: changed tasks, sentinels and slice " + s.slice->text();
  return s;
}

std::string describe(const TaskSelection& selection, const std::optional<Checkout>& checkout) {
  std::ostringstream os;
  if (selection.slice) os << "KGB_TASK_SLICE=" << selection.slice->text() << "\n";
  os << selection.reason << "\n";
  if (checkout && selection.slice) {
    os << "HEAD " << checkout->head << "; changes counted from "
       << (checkout->base.empty() ? std::string("nowhere (no base commit: every task counts as changed)")
                                  : checkout->base + " (" + checkout->base_rule + ")")
       << "\n";
  }
  const auto has = [](const std::vector<std::string>& v, const std::string& id) {
    return std::find(v.begin(), v.end(), id) != v.end();
  };
  os << selection.ids.size() << " task(s):";
  for (const auto& id : selection.ids) {
    os << " " << id;
    if (!selection.slice) continue;
    std::string why;
    if (has(selection.changed, id)) why += "changed";
    if (has(selection.sentinels, id)) why += std::string(why.empty() ? "" : ",") + "sentinel";
    if (has(selection.sliced, id)) why += std::string(why.empty() ? "" : ",") + "slice";
    os << "[" << why << "]";
  }
  os << "\n";
  return os.str();
}

Result<SweepTasks> sweep_tasks(Sweep sweep) {
  auto settings = settings_from_environment();
  if (!settings) return settings.error();
  const std::filesystem::path root = tasks_root();
  const std::vector<std::string> ids = task_ids_under(root);
  std::vector<std::string> sentinels;
  std::optional<Checkout> checkout;
  if (sweep == Sweep::Secondary && !settings->sweep_all) {
    auto read = read_sentinels(source_root() / "tests" / "tasks" / "sentinels.txt");
    if (!read) return read.error();
    sentinels = std::move(*read);
    auto inspected = inspect_checkout(source_root(), settings->base_ref);
    if (!inspected) return inspected.error();
    checkout = std::move(*inspected);
  }
  SweepTasks out;
  out.selection = select_tasks(sweep, ids, sentinels, *settings, checkout);
  std::fputs(describe(out.selection, checkout).c_str(), stdout);
  std::fflush(stdout);
  for (const auto& id : out.selection.ids) {
    auto task = load_task_file(root / id / "spec.json");
    if (task) out.tasks.push_back(std::move(*task));
    else out.load_errors.push_back(task.error());
  }
  return out;
}

}  // namespace kgb::test
