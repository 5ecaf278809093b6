// The report as titled sections of text tables, shared by the terminal,
// Markdown and HTML renderers (HTML adds charts and the drill-down).
#pragma once

#include <string>
#include <vector>

#include "kgb/report/report.h"

namespace kgb::report {

struct TextTable {
  std::string caption;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // per column: right-aligned
};

struct Section {
  std::string id, title;
  std::vector<std::string> paragraphs;
  std::vector<TextTable> tables;
};

// Sections with ids: runs, summary, differences (2+ runs), sources, budget,
// portability (when a configuration ran on 2+ platforms), tasks, task-costs,
// placement (when evaluations ran on an executor other than this machine).
std::vector<Section> report_sections(const Report& report);

// Budgets at which the text renderers sample the budget curves: a 1-2-5
// series covering the recorded first-success costs (iterations: 1..max).
std::vector<double> budget_grid(const Report& report, BudgetKind kind);

// One line per task and run: "solved 1.23x (it. 2)" / "failed: wrong-result".
std::string task_cell(const Run& run, const TaskResult& task);

}  // namespace kgb::report
