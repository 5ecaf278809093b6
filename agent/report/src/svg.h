// Inline SVG charts for the HTML report, drawn by the program: no library,
// no script, no network. Every chart is a complete <svg> element sized by its
// viewBox; text is HTML-escaped.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kgb::report::svg {

std::string escape(std::string_view text);  // & < > " '
const std::string& color(size_t series);     // a colour-blind-friendly palette, cycling

// Grouped vertical bars of fractions in [0, 1] (drawn as percentages).
struct BarGroups {
  std::string title;
  std::vector<std::string> categories;  // x groups
  std::vector<std::string> series;      // one bar per series in each group
  std::vector<std::vector<std::optional<double>>> values;  // [series][category]; nullopt: no bar
  std::vector<std::vector<std::string>> tooltips;          // [series][category]
};
std::string grouped_bars(const BarGroups& chart);

// Horizontal bars, one per label, of arbitrary non-negative values.
struct HorizontalBars {
  std::string title;
  std::vector<std::string> labels;
  std::vector<std::optional<double>> values;
  std::vector<std::string> value_text;  // printed after each bar
};
// Several panels side by side in one SVG.
std::string horizontal_bars(const std::vector<HorizontalBars>& panels);

// Step curves of accuracy (0..1) against a budget.
struct StepCurve {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (budget, accuracy from there on), ascending
};
struct CurveChart {
  std::string title, x_label;
  bool log_x = false;
  bool integer_x = false;
  bool dollars = false;  // x tick labels as money
  std::string empty_message = "no task solved: every curve is flat at 0%";
  std::vector<StepCurve> curves;
};
std::string step_curves(const CurveChart& chart);

// Dots on a logarithmic speedup axis, one lane per series, with a marker at
// each lane's geometric mean and a reference line at 1x.
struct Lane {
  std::string name;
  std::vector<std::pair<std::string, double>> dots;  // (task, speedup)
  std::optional<double> geomean;
};
std::string speedup_strips(const std::string& title, const std::vector<Lane>& lanes);

// Stacked horizontal bars (e.g. time split), one per row.
struct StackedRows {
  std::string title;
  std::vector<std::string> parts;  // legend
  std::vector<std::string> rows;
  std::vector<std::vector<double>> values;  // [row][part]
  std::string unit;                          // appended to totals
};
std::string stacked_rows(const StackedRows& chart);

// Task x column grid coloured by speedup (log scale, red = failed).
struct HeatCell {
  enum class State { Missing, Failed, Solved } state = State::Missing;
  std::optional<double> speedup;
  std::string tooltip;
};
struct Heatmap {
  std::string title;
  std::vector<std::string> rows, columns;
  std::vector<std::vector<HeatCell>> cells;  // [row][column]
  std::vector<std::string> row_notes;        // optional text after each row (e.g. portability)
  std::string notes_header;
};
std::string heatmap(const Heatmap& chart);

}  // namespace kgb::report::svg
