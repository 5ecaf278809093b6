// The HTML renderer: one self-contained file. Inline CSS, charts as inline
// SVG drawn by svg.cpp, tables, and a per-task drill-down in <details>
// elements, so everything reads without JavaScript; a small script only makes
// tables sortable. Nothing is fetched: no external style, font, script or image.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "format.h"
#include "kgb/report/definitions.h"
#include "kgb/report/render.h"
#include "sections.h"
#include "svg.h"

namespace kgb::report {

namespace {

using svg::escape;

const char* kStyle = R"CSS(
:root { --fg: #1d2430; --muted: #5b6472; --line: #d8dde5; --bg: #ffffff; --panel: #f5f7fa; --ok: #1e7d45; --bad: #b03a2e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 18px 28px 8px; border-bottom: 1px solid var(--line); background: var(--panel); }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 2px 0; color: var(--muted); }
nav a { margin-right: 14px; color: #0b5cad; text-decoration: none; }
main { padding: 8px 28px 40px; max-width: 1400px; }
h2 { margin: 26px 0 10px; font-size: 18px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { margin: 18px 0 8px; font-size: 15px; }
h4 { margin: 12px 0 6px; font-size: 13px; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 14px; }
.run-card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; background: var(--panel); }
.run-card h3 { margin: 0 0 2px; display: flex; align-items: center; gap: 8px; }
.run-card .swatch { width: 12px; height: 12px; border-radius: 2px; display: inline-block; }
.run-card .describe { color: var(--muted); margin: 0 0 10px; }
.figures { display: grid; grid-template-columns: repeat(4, 1fr); gap: 8px; }
.figure { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; }
.figure .value { font-size: 20px; font-weight: 600; }
.figure .label { font-size: 12px; color: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 18px; }
figure.chart.wide { grid-column: 1 / -1; }
figure.chart { margin: 0; border: 1px solid var(--line); border-radius: 8px; padding: 10px; overflow-x: auto; }
figure.chart figcaption { font-weight: 600; margin-bottom: 6px; }
figure.chart figcaption small { font-weight: normal; color: var(--muted); display: block; }
svg.chart-svg { display: block; max-width: 100%; height: auto; font: 11px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
svg .grid { stroke: #e3e7ee; stroke-width: 1; }
svg .axis, svg .tick-line { stroke: #8a93a3; stroke-width: 1; }
svg .one { stroke: #444; stroke-width: 1; stroke-dasharray: 4 3; }
svg .curve { fill: none; stroke-width: 2.2; }
svg .tick { fill: var(--muted); }
svg .value { fill: #333; font-size: 10px; }
svg .subtitle { font-weight: 600; fill: #333; }
svg .axis-label { fill: var(--muted); }
svg .empty { fill: var(--muted); font-style: italic; }
svg .geomean { fill: #222; }
svg .dot { fill-opacity: .8; stroke: #fff; stroke-width: .8; }
svg .cell-text { fill: #222; font-size: 10.5px; }
svg .cell-text.light { fill: #fff; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.sortable th { cursor: pointer; }
table.sortable th[data-sorted]::after { content: attr(data-sorted); margin-left: 4px; color: var(--muted); }
caption { caption-side: top; text-align: left; font-style: italic; color: var(--muted); padding-bottom: 2px; }
details.task { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; background: var(--bg); }
details.task > summary { padding: 6px 10px; cursor: pointer; }
details.task[open] > summary { border-bottom: 1px solid var(--line); background: var(--panel); }
.task-body { padding: 6px 12px 10px; }
.badge { display: inline-block; padding: 0 6px; border-radius: 4px; font-size: 12px; color: #fff; margin-right: 6px; }
.badge.ok { background: var(--ok); }
.badge.bad { background: var(--bad); }
.badge.wait { background: #7a7f8a; }
pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 4px; padding: 8px 10px; overflow-x: auto; font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; white-space: pre; max-height: 480px; }
pre.feedback { white-space: pre-wrap; }
details.feedback > summary { color: #0b5cad; cursor: pointer; font-size: 12px; }
dl.definitions dt { font-weight: 600; margin-top: 8px; }
dl.definitions dd { margin: 2px 0 0 18px; color: #333; }
p.note { color: var(--muted); }
)CSS";

// Sorts tables of class "sortable" by the clicked column: numbers (with
// %, x, $ and k/M/G suffixes) numerically, the rest as text.
const char* kScript = R"JS(
(function () {
  function key(text) {
    var t = text.trim().replace(/,/g, '');
    var m = t.match(/^[+x$]?(-?\d+(?:\.\d+)?)\s*([kMG]?)/);
    if (!m) return null;
    var v = parseFloat(m[1]);
    if (m[2] === 'k') v *= 1e3; else if (m[2] === 'M') v *= 1e6; else if (m[2] === 'G') v *= 1e9;
    return v;
  }
  function sortBy(table, column, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var descending = th.getAttribute('data-sorted') !== '\u25BC';
    rows.sort(function (a, b) {
      var x = a.cells[column] ? a.cells[column].textContent : '';
      var y = b.cells[column] ? b.cells[column].textContent : '';
      var kx = key(x), ky = key(y), r;
      if (kx !== null && ky !== null) r = kx - ky;
      else if (kx !== null) r = -1;
      else if (ky !== null) r = 1;
      else r = x.localeCompare(y);
      return descending ? -r : r;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute('data-sorted'); });
    th.setAttribute('data-sorted', descending ? '\u25BC' : '\u25B2');
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      th.title = 'sort by this column';
      th.addEventListener('click', function () { sortBy(table, column, th); });
    });
  });
  document.documentElement.setAttribute('data-js', 'ready');
})();
)JS";

// A cell's text, escaped, its leading spaces (sub-rows such as "  input")
// kept as no-break spaces so HTML does not collapse them.
std::string indented(const std::string& cell) {
  const size_t start = cell.find_first_not_of(' ');
  if (start == 0 || start == std::string::npos) return escape(cell);
  std::string out;
  for (size_t i = 0; i < start; ++i) out += "&nbsp;&nbsp;";
  return out + escape(cell.substr(start));
}

std::string table_html(const TextTable& t, bool sortable) {
  std::ostringstream out;
  out << "<div class=\"table-wrap\"><table" << (sortable ? " class=\"sortable\"" : "") << ">";
  if (!t.caption.empty()) out << "<caption>" << escape(t.caption) << "</caption>";
  out << "<thead><tr>";
  for (size_t c = 0; c < t.header.size(); ++c)
    out << "<th" << (c < t.numeric.size() && t.numeric[c] ? " class=\"num\"" : "") << ">" << escape(t.header[c]) << "</th>";
  out << "</tr></thead><tbody>";
  for (const auto& row : t.rows) {
    out << "<tr>";
    for (size_t c = 0; c < t.header.size(); ++c)
      out << "<td" << (c < t.numeric.size() && t.numeric[c] ? " class=\"num\"" : "") << ">" << indented(c < row.size() ? row[c] : "") << "</td>";
    out << "</tr>";
  }
  out << "</tbody></table></div>";
  return out.str();
}

std::string figure(const std::string& id, const std::string& caption, const std::string& note, const std::string& svg_text,
                   bool wide = false) {
  return std::string("<figure class=\"chart") + (wide ? " wide" : "") + "\" data-chart=\"" + id + "\" id=\"chart-" + id + "\"><figcaption>" + escape(caption) +
         (note.empty() ? "" : "<small>" + escape(note) + "</small>") + "</figcaption>" + svg_text + "</figure>\n";
}

std::string card_figure(const std::string& value, const std::string& label) {
  return "<div class=\"figure\"><div class=\"value\">" + escape(value) + "</div><div class=\"label\">" + escape(label) + "</div></div>";
}

std::string cards(const Report& report) {
  std::ostringstream out;
  out << "<section id=\"summary-cards\"><h2>Summary</h2><div class=\"cards\">";
  for (size_t i = 0; i < report.runs.size(); ++i) {
    const RunReport& r = report.runs[i];
    out << "<div class=\"run-card\"><h3><span class=\"swatch\" style=\"background:" << svg::color(i) << "\"></span>" << escape(r.label)
        << "</h3><p class=\"describe\">" << escape(r.describe + " \u00b7 " + r.run.status) << "</p><div class=\"figures\">";
    out << card_figure(fmt::percent(r.accuracy), "accuracy (" + std::to_string(r.solved) + "/" + std::to_string(r.tasks.size()) + " solved)");
    const auto p1 = std::find_if(r.pass_at_k.begin(), r.pass_at_k.end(), [](const PassAtK& p) { return p.k == 1; });
    out << card_figure(p1 != r.pass_at_k.end() ? fmt::percent(p1->value) : "-", "pass@1 (unbiased, per " + r.sample_unit + ")");
    out << card_figure(fmt::speedup(r.geomean_solved), "speedup, geomean over solved");
    out << card_figure(fmt::speedup(r.geomean_matched), "speedup, matched subset (" + std::to_string(report.matched.size()) + ")");
    const auto f1 = std::find_if(r.fast_p.begin(), r.fast_p.end(), [](const FastP& f) { return f.p == 1.0; });
    out << card_figure(f1 != r.fast_p.end() ? fmt::percent(f1->value) : "-", "fast_1 (solved and faster than the baseline)");
    out << card_figure(fmt::count(r.tokens.per_success), "tokens per success");
    out << card_figure(fmt::usd(r.usd.per_success), "dollars per success");
    out << card_figure(fmt::seconds(r.seconds.per_task), "time per task");
    out << "</div></div>";
  }
  out << "</div></section>\n";
  return out.str();
}

std::string accuracy_chart(const Report& report) {
  svg::BarGroups c;
  c.title = "Accuracy by source and platform";
  std::vector<std::string> sources;
  for (const auto& r : report.runs)
    for (const auto& s : r.sources)
      if (std::find(sources.begin(), sources.end(), s.source) == sources.end()) sources.push_back(s.source);
  std::sort(sources.begin(), sources.end());
  sources.push_back("all");
  c.categories = sources;
  for (const auto& r : report.runs) {
    c.series.push_back(r.label + " (" + r.run.platform + ")");
    std::vector<std::optional<double>> values;
    std::vector<std::string> tips;
    for (const auto& name : sources) {
      if (name == "all") {
        values.push_back(r.accuracy);
        tips.push_back(r.label + ", all: " + std::to_string(r.solved) + "/" + std::to_string(r.tasks.size()) + " = " + fmt::percent(r.accuracy));
        continue;
      }
      auto it = std::find_if(r.sources.begin(), r.sources.end(), [&](const SourceAccuracy& s) { return s.source == name; });
      if (it == r.sources.end()) {
        values.push_back(std::nullopt);
        tips.push_back("");
      } else {
        values.push_back(it->accuracy);
        tips.push_back(r.label + ", " + name + ": " + std::to_string(it->solved) + "/" + std::to_string(it->tasks) + " = " + fmt::percent(it->accuracy));
      }
    }
    c.values.push_back(std::move(values));
    c.tooltips.push_back(std::move(tips));
  }
  return figure("accuracy", "Accuracy by source and platform", "solved tasks / all tasks; one bar per run (its platform in brackets)",
                svg::grouped_bars(c));
}

std::string speedup_chart(const Report& report) {
  std::vector<svg::Lane> lanes;
  for (const auto& r : report.runs) {
    svg::Lane lane{r.label, {}, r.geomean_solved};
    for (const auto& t : r.tasks)
      if (t.solved && t.speedup) lane.dots.push_back({t.task, *t.speedup});
    lanes.push_back(std::move(lane));
  }
  return figure("speedup", "Speedup distribution", "per task: geometric mean over its performance cases of baseline / candidate median time",
                svg::speedup_strips("Speedup distribution", lanes));
}

std::string budget_chart(const Report& report, BudgetKind kind) {
  svg::CurveChart c;
  const std::string name = budget_kind_name(kind);
  c.title = "Accuracy by " + name + " budget";
  c.log_x = kind != BudgetKind::Iterations;
  c.integer_x = kind == BudgetKind::Iterations;
  c.dollars = kind == BudgetKind::Dollars;
  c.x_label = kind == BudgetKind::Iterations ? "iterations per attempt" : kind == BudgetKind::Tokens ? "tokens per attempt (log scale)" : "dollars per attempt (log scale)";
  double cost = 0;
  for (const auto& r : report.runs) cost += r.usd.total;
  if (kind == BudgetKind::Dollars && cost <= 0) c.empty_message = "no cost recorded (the provider's price is 0 or unknown)";
  for (const auto& r : report.runs) {
    svg::StepCurve curve{r.label, {}};
    const auto& points = kind == BudgetKind::Tokens ? r.curve_tokens : kind == BudgetKind::Dollars ? r.curve_usd : r.curve_iterations;
    if (kind == BudgetKind::Dollars && cost <= 0) {
      c.curves.push_back(std::move(curve));
      continue;
    }
    for (const auto& p : points) curve.points.push_back({p.budget, p.accuracy});
    c.curves.push_back(std::move(curve));
  }
  return figure("budget-" + name, "Accuracy by " + name + " budget",
                "a task counts at budget B when one of its attempts had spent at most B at its first correct kernel", svg::step_curves(c));
}

std::string cost_chart(const Report& report) {
  std::vector<svg::HorizontalBars> panels;
  svg::HorizontalBars tokens{"tokens per success", {}, {}, {}}, dollars{"dollars per success", {}, {}, {}}, time{"time per success", {}, {}, {}};
  double cost = 0;
  for (const auto& r : report.runs) {
    tokens.labels.push_back(r.label);
    tokens.values.push_back(r.tokens.per_success);
    tokens.value_text.push_back(r.tokens.per_success ? fmt::count(r.tokens.per_success) : "no success");
    dollars.labels.push_back(r.label);
    dollars.values.push_back(r.usd.per_success);
    dollars.value_text.push_back(r.usd.per_success ? fmt::usd(r.usd.per_success) : "no success");
    time.labels.push_back(r.label);
    time.values.push_back(r.seconds.per_success);
    time.value_text.push_back(r.seconds.per_success ? fmt::seconds(r.seconds.per_success) : "no success");
    cost += r.usd.total;
  }
  panels.push_back(tokens);
  if (cost > 0) panels.push_back(dollars);
  panels.push_back(time);
  return figure("cost", "Cost per success", cost > 0 ? "totals over the run / solved tasks" : "totals over the run / solved tasks (no dollar cost recorded)",
                svg::horizontal_bars(panels), true);
}

std::string time_chart(const Report& report) {
  svg::StackedRows c;
  c.title = "Where the time went";
  c.parts = {"LLM latency", "lint", "compile", "run (correctness)", "profile (timing)", "other harness"};
  for (const auto& r : report.runs) {
    c.rows.push_back(r.label);
    c.values.push_back({r.time.llm, r.time.lint, r.time.compile, r.time.run, r.time.profile, r.time.other});
  }
  return figure("time", "Where the time went", "LLM and tool time of every attempt, summed over the run", svg::stacked_rows(c), true);
}

std::string portability_charts(const Report& report) {
  std::string out;
  for (size_t k = 0; k < report.portability.size(); ++k) {
    const auto& g = report.portability[k];
    svg::Heatmap h;
    h.title = "Portability: " + g.configuration;
    h.rows = g.tasks;
    h.columns = g.platforms;
    h.notes_header = "perf. portability";
    for (size_t i = 0; i < g.tasks.size(); ++i) {
      std::vector<svg::HeatCell> row;
      for (size_t p = 0; p < g.platforms.size(); ++p) {
        const auto& c = g.cells[i][p];
        svg::HeatCell cell;
        cell.state = !c.attempted ? svg::HeatCell::State::Missing : c.solved ? svg::HeatCell::State::Solved : svg::HeatCell::State::Failed;
        cell.speedup = c.speedup;
        cell.tooltip = g.tasks[i] + " on " + g.platforms[p] + ": " + (c.solved ? (c.speedup ? fmt::speedup(c.speedup) : "solved, not timed") : "failed");
        row.push_back(cell);
      }
      h.cells.push_back(std::move(row));
      h.row_notes.push_back(fmt::number(g.portability[i], 3));
    }
    out += figure("portability" + (k ? "-" + std::to_string(k + 1) : std::string()), "Portability heatmap: " + g.configuration,
                  "task \u00d7 platform, speedup over each platform's baseline; reference " + g.reference + "; mean performance portability " +
                      fmt::number(g.mean_portability, 3),
                  svg::heatmap(h), true);
  }
  if (!out.empty()) return out;
  // No configuration ran on two platforms: the grid of tasks over the runs
  // (each on its platform) still shows where each run succeeded and how fast.
  svg::Heatmap h;
  h.title = "Tasks by run and platform";
  std::map<std::string, std::vector<svg::HeatCell>> rows;
  for (size_t j = 0; j < report.runs.size(); ++j) {
    const auto& r = report.runs[j];
    h.columns.push_back(r.label + " (" + r.run.platform + ")");
    for (const auto& t : r.tasks) {
      auto& row = rows[t.task];
      row.resize(report.runs.size());
      svg::HeatCell& cell = row[j];
      cell.state = t.solved ? svg::HeatCell::State::Solved : svg::HeatCell::State::Failed;
      cell.speedup = t.speedup;
      cell.tooltip = t.task + " on " + r.run.platform + " (" + r.label + "): " + task_cell(r.run, t);
    }
  }
  for (auto& [task, row] : rows) {
    row.resize(report.runs.size());
    h.rows.push_back(task);
    h.cells.push_back(std::move(row));
  }
  return figure("portability", "Task \u00d7 platform heatmap",
                "speedup per task on each run's platform (a portability comparison needs one configuration run on two or more platforms)",
                svg::heatmap(h), true);
}

std::string badge(const std::string& status) {
  const char* cls = status == "solved" ? "ok" : status == "pending" || status == "running" ? "wait" : "bad";
  return "<span class=\"badge " + std::string(cls) + "\">" + escape(status) + "</span>";
}

std::string drilldown(const Report& report) {
  std::ostringstream out;
  out << "<section id=\"drilldown\"><h2>Per-task drill-down</h2>"
      << "<p class=\"note\">Each task of each run: its attempts, every iteration with the feedback the model got, the timed "
         "cases and the final kernel source.</p>";
  for (size_t ri = 0; ri < report.runs.size(); ++ri) {
    const RunReport& r = report.runs[ri];
    out << "<h3>" << escape(r.label) << " <small>" << escape(r.describe) << "</small></h3>";
    for (size_t ti = 0; ti < r.tasks.size(); ++ti) {
      const TaskResult& t = r.tasks[ti];
      out << "<details class=\"task\" id=\"task-" << ri << "-" << ti << "\"><summary>" << badge(t.solved ? "solved" : "failed") << "<b>"
          << escape(t.task) << "</b> \u2014 " << escape(task_cell(r.run, t)) << " \u00b7 " << t.attempts << " attempt(s), " << t.iterations
          << " iteration(s), " << escape(fmt::count(static_cast<double>(t.tokens.total()))) << " tokens, " << escape(fmt::seconds(t.seconds))
          << "</summary><div class=\"task-body\">";
      if (!t.cases.empty()) {
        TextTable cases;
        cases.caption = "performance cases of the fastest solved attempt";
        cases.header = {"case", "dtype", "baseline", "baseline median", "candidate median", "speedup", "95% interval"};
        cases.numeric = {false, false, false, true, true, true, true};
        for (const auto& c : t.cases) {
          std::string interval = c.speedup_high ? "[" + fmt::fixed(*c.speedup_low, 2) + ", " + fmt::fixed(*c.speedup_high, 2) + "]" : "-";
          if (c.unstable) interval += c.excluded ? " unstable, excluded" : " unstable";
          cases.rows.push_back({c.name, c.dtype, c.baseline_kind, c.baseline_us ? fmt::fixed(*c.baseline_us, 2) + " us" : "-",
                                fmt::fixed(c.candidate_us, 2) + " us", fmt::speedup(c.speedup), interval});
        }
        out << table_html(cases, false);
      }
      for (const auto& a : r.run.attempts) {
        if (a.task != t.task) continue;
        out << "<h4>attempt " << a.sample << ": " << escape(a.status) << (a.stop_reason.empty() ? "" : " (" + escape(a.stop_reason) + ")")
            << "</h4>";
        TextTable its;
        its.header = {"#", "line", "outcome", "speedup", "tokens", "dollars", "LLM", "tools", "what happened"};
        its.numeric = {true, false, false, true, true, true, true, true, false};
        out << "<div class=\"table-wrap\"><table class=\"iterations\"><thead><tr>";
        for (size_t c = 0; c < its.header.size(); ++c)
          out << "<th" << (its.numeric[c] ? " class=\"num\"" : "") << ">" << escape(its.header[c]) << "</th>";
        out << "</tr></thead><tbody>";
        std::vector<const Iteration*> ordered;
        for (const auto& it : a.iterations) ordered.push_back(&it);
        std::sort(ordered.begin(), ordered.end(), [](const Iteration* x, const Iteration* y) { return x->index < y->index; });
        for (const Iteration* it : ordered) {
          out << "<tr><td class=\"num\">" << it->index + 1 << "</td><td>" << escape(it->conversation.empty() ? "main" : it->conversation)
              << "</td><td>" << badge(it->correct ? "solved" : it->finished ? it->outcome : "running") << (it->correct ? escape(it->outcome) : "")
              << "</td><td class=\"num\">" << escape(it->correct && it->speedup > 0 ? fmt::speedup(it->speedup) : "-") << "</td><td class=\"num\">"
              << escape(fmt::count(static_cast<double>(it->tokens.total()))) << "</td><td class=\"num\">" << escape(fmt::usd(it->cost_usd))
              << "</td><td class=\"num\">" << escape(fmt::seconds(it->llm_seconds)) << "</td><td class=\"num\">"
              << escape(fmt::seconds(it->tool_seconds)) << "</td><td>" << escape(it->summary) << "</td></tr>";
          out << "<tr><td></td><td colspan=\"8\">";
          for (const auto& e : it->evaluations)
            if (e.executor != "local")
              out << "<div class=\"note\">" << escape(e.purpose) << " evaluated on " << escape(e.node.empty() ? "?" : e.node)
                  << " (" << escape(e.executor) << (e.partition.empty() ? "" : ", partition " + escape(e.partition))
                  << (e.job_id.empty() ? "" : ", job " + escape(e.job_id)) << (e.tries > 1 ? ", try " + std::to_string(e.tries) : "")
                  << ")</div>";
          if (!it->feedback.empty())
            out << "<details class=\"feedback\"><summary>feedback sent to the model after iteration " << it->index + 1
                << "</summary><pre class=\"feedback\">" << escape(it->feedback) << "</pre></details>";
          else
            out << "<span class=\"note\">no feedback: the attempt " << (it->correct ? "ended with this kernel" : "sent none after this iteration")
                << "</span>";
          out << "</td></tr>";
        }
        out << "</tbody></table></div>";
      }
      if (t.shown_attempt >= 0) {
        const Attempt& shown = r.run.attempts[static_cast<size_t>(t.shown_attempt)];
        if (!shown.best_kernel.empty())
          out << "<h4>final kernel (attempt " << shown.sample << ", iteration " << shown.best_iteration + 1 << ", "
              << escape(shown.correct ? "correct" : "best failing") << ")</h4><pre class=\"code\"><code>" << escape(shown.best_kernel)
              << "</code></pre>";
        else
          out << "<p class=\"note\">no kernel was extracted from the model's replies.</p>";
      }
      out << "</div></details>\n";
    }
  }
  out << "</section>\n";
  return out.str();
}

}  // namespace

std::string render_html(const Report& report) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      << "<title>KernelGenBench report</title><style>" << kStyle << "</style></head><body>\n";
  std::string ids;
  for (const auto& r : report.runs) ids += (ids.empty() ? "" : ", ") + r.label;
  out << "<header><h1>KernelGenBench report</h1><p>" << report.runs.size() << " run(s): " << escape(ids) << "</p><p>Generated "
      << escape(report.generated_at) << (report.store_file.empty() ? "" : " from " + escape(report.store_file)) << "</p>"
      << "<nav><a href=\"#summary-cards\">Summary</a><a href=\"#charts\">Charts</a><a href=\"#section-summary\">Metrics</a>"
      << "<a href=\"#section-tasks\">Tasks</a><a href=\"#section-task-costs\">Cost per task</a><a href=\"#drilldown\">Drill-down</a><a href=\"#definitions\">Definitions</a></nav></header>\n<main>\n";
  out << cards(report);
  out << "<section id=\"charts\"><h2>Charts</h2><div class=\"charts\">\n";
  out << accuracy_chart(report) << speedup_chart(report) << budget_chart(report, BudgetKind::Tokens)
      << budget_chart(report, BudgetKind::Iterations) << budget_chart(report, BudgetKind::Dollars) << cost_chart(report) << time_chart(report)
      << portability_charts(report);
  out << "</div></section>\n";
  for (const auto& s : report_sections(report)) {
    out << "<section id=\"section-" << s.id << "\"><h2>" << escape(s.title) << "</h2>";
    for (const auto& p : s.paragraphs) out << "<p>" << escape(p) << "</p>";
    const bool sortable = s.id != "summary" && s.id != "budget";
    for (const auto& t : s.tables) out << table_html(t, sortable);
    out << "</section>\n";
  }
  out << drilldown(report);
  out << "<section id=\"definitions\"><h2>Definitions</h2><dl class=\"definitions\">";
  for (const auto& d : metric_definitions()) out << "<dt>" << escape(d.name) << "</dt><dd>" << escape(d.text) << "</dd>";
  out << "</dl></section>\n</main>\n<script>" << kScript << "</script>\n</body></html>\n";
  return out.str();
}

}  // namespace kgb::report
