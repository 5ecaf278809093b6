#include "svg.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "format.h"

namespace kgb::report::svg {

namespace {

constexpr double kCharWidth = 6.4;  // of the 11px sans-serif labels, roughly

std::string num(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9) return std::to_string(static_cast<long long>(std::llround(v)));
  return fmt::fixed(v, 1);
}

std::string text(double x, double y, const std::string& s, const std::string& anchor = "start", const std::string& cls = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" + (cls.empty() ? "" : " class=\"" + cls + "\"") +
         ">" + escape(s) + "</text>";
}

std::string open_svg(double w, double h, const std::string& title) {
  return "<svg class=\"chart-svg\" viewBox=\"0 0 " + num(w) + " " + num(h) + "\" width=\"" + num(w) + "\" height=\"" + num(h) +
         "\" role=\"img\" aria-label=\"" + escape(title) + "\"><title>" + escape(title) + "</title>";
}

std::string truncate_label(const std::string& s, size_t max_chars) {
  if (s.size() <= max_chars) return s;
  return s.substr(0, max_chars > 1 ? max_chars - 1 : 0) + "\u2026";
}

// Legend entries laid out left to right, wrapping at `width`; returns the height used.
double legend(std::ostringstream& out, const std::vector<std::string>& names, double x0, double y0, double width) {
  double x = x0, y = y0;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string label = truncate_label(names[i], 40);
    const double w = 18 + kCharWidth * static_cast<double>(label.size()) + 14;
    if (x + w > x0 + width && x > x0) {
      x = x0;
      y += 16;
    }
    out << "<rect x=\"" << num(x) << "\" y=\"" << num(y - 9) << "\" width=\"12\" height=\"10\" fill=\"" << color(i) << "\"/>";
    out << text(x + 16, y, label);
    x += w;
  }
  return y - y0 + 16;
}

// Ticks of a 1-2-5 series inside [lo, hi] on a log axis.
std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> ticks;
  for (double d = std::pow(10.0, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
    for (double m : {1.0, 2.0, 5.0})
      if (m * d >= lo * 0.9999 && m * d <= hi * 1.0001) ticks.push_back(m * d);
  if (ticks.size() > 10) {
    std::vector<double> fewer;
    for (double t : ticks)
      if (std::fabs(std::log10(t) - std::round(std::log10(t))) < 1e-9) fewer.push_back(t);
    if (fewer.size() >= 2) ticks = fewer;
  }
  return ticks;
}

std::vector<double> linear_ticks(double lo, double hi, bool integer) {
  const double span = hi - lo;
  double step = std::pow(10.0, std::floor(std::log10(span > 0 ? span : 1)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (span / (step * m) <= 8) {
      step *= m;
      break;
    }
  if (integer) step = std::max(1.0, std::round(step));
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step) * step; t <= hi + 1e-9; t += step) ticks.push_back(t);
  return ticks;
}

std::string speedup_colour(double s) {
  // log2 speedup in [-2, 2] -> orange .. pale .. green.
  const double t = std::clamp(std::log2(s) / 2.0, -1.0, 1.0);
  auto mix = [](int a, int b, double f) { return static_cast<int>(std::lround(a + (b - a) * f)); };
  int r, g, b;
  if (t < 0) {
    const double f = -t;
    r = mix(245, 230, f), g = mix(245, 120, f), b = mix(240, 30, f);
  } else {
    r = mix(245, 30, t), g = mix(245, 150, t), b = mix(240, 80, t);
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

}  // namespace

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

const std::string& color(size_t series) {
  static const std::vector<std::string> palette = {"#0072b2", "#e69f00", "#009e73", "#cc79a7",
                                                   "#56b4e9", "#d55e00", "#7a6f00", "#555555"};
  return palette[series % palette.size()];
}

std::string grouped_bars(const BarGroups& c) {
  const double left = 48, right = 16, top = 34, bottom = 46;
  const double plot_h = 210;
  const size_t n_series = std::max<size_t>(c.series.size(), 1);
  const double bar_w = std::clamp(420.0 / static_cast<double>(n_series * std::max<size_t>(c.categories.size(), 1)), 8.0, 36.0);
  const double group_w = bar_w * static_cast<double>(n_series) + 18;
  const double plot_w = std::max(360.0, group_w * static_cast<double>(c.categories.size()));
  std::ostringstream legend_svg;
  const double legend_h = legend(legend_svg, c.series, left, 18, plot_w);
  const double top_total = top + legend_h - 16;
  const double w = left + plot_w + right, h = top_total + plot_h + bottom;
  std::ostringstream out;
  out << open_svg(w, h, c.title) << legend_svg.str();
  for (int pct = 0; pct <= 100; pct += 25) {
    const double y = top_total + plot_h * (1 - pct / 100.0);
    out << "<line class=\"grid\" x1=\"" << num(left) << "\" x2=\"" << num(left + plot_w) << "\" y1=\"" << num(y) << "\" y2=\"" << num(y) << "\"/>";
    out << text(left - 6, y + 4, std::to_string(pct) + "%", "end", "tick");
  }
  for (size_t g = 0; g < c.categories.size(); ++g) {
    const double gx = left + group_w * static_cast<double>(g) + 9;
    for (size_t s = 0; s < c.series.size(); ++s) {
      const auto& v = s < c.values.size() && g < c.values[s].size() ? c.values[s][g] : std::optional<double>();
      if (!v) continue;
      const double bh = plot_h * std::clamp(*v, 0.0, 1.0);
      const double x = gx + bar_w * static_cast<double>(s), y = top_total + plot_h - bh;
      const std::string tip = s < c.tooltips.size() && g < c.tooltips[s].size() ? c.tooltips[s][g] : "";
      out << "<rect class=\"bar\" x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(bar_w - 2) << "\" height=\""
          << num(std::max(bh, 0.5)) << "\" fill=\"" << color(s) << "\"><title>" << escape(tip) << "</title></rect>";
      if (bar_w >= 22) out << text(x + (bar_w - 2) / 2, y - 3, fmt::fixed(100 * *v, 0), "middle", "value");
    }
    out << text(gx + bar_w * static_cast<double>(n_series) / 2, top_total + plot_h + 16,
                truncate_label(c.categories[g], static_cast<size_t>(group_w / kCharWidth)), "middle");
  }
  out << "<line class=\"axis\" x1=\"" << num(left) << "\" x2=\"" << num(left + plot_w) << "\" y1=\"" << num(top_total + plot_h)
      << "\" y2=\"" << num(top_total + plot_h) << "\"/>";
  out << "</svg>";
  return out.str();
}

std::string horizontal_bars(const std::vector<HorizontalBars>& panels) {
  const double panel_w = 360, label_w = 130, bar_h = 18, gap = 8, top = 28;
  size_t rows = 0;
  for (const auto& p : panels) rows = std::max(rows, p.labels.size());
  const double h = top + static_cast<double>(rows) * (bar_h + gap) + 12;
  const double w = panel_w * static_cast<double>(std::max<size_t>(panels.size(), 1));
  std::ostringstream out;
  std::string title;
  for (const auto& p : panels) title += (title.empty() ? "" : "; ") + p.title;
  out << open_svg(w, h, title);
  for (size_t k = 0; k < panels.size(); ++k) {
    const auto& p = panels[k];
    const double x0 = panel_w * static_cast<double>(k);
    out << text(x0 + 4, 16, p.title, "start", "subtitle");
    double max_v = 0;
    for (const auto& v : p.values)
      if (v) max_v = std::max(max_v, *v);
    const double bar_max = panel_w - label_w - 80;
    for (size_t i = 0; i < p.labels.size(); ++i) {
      const double y = top + static_cast<double>(i) * (bar_h + gap);
      out << text(x0 + label_w - 6, y + 13, truncate_label(p.labels[i], static_cast<size_t>(label_w / kCharWidth) - 1), "end");
      const auto& v = p.values[i];
      const double bw = v && max_v > 0 ? bar_max * *v / max_v : 0;
      if (v)
        out << "<rect class=\"bar\" x=\"" << num(x0 + label_w) << "\" y=\"" << num(y) << "\" width=\"" << num(std::max(bw, 1.0))
            << "\" height=\"" << num(bar_h) << "\" fill=\"" << color(i) << "\"><title>" << escape(p.labels[i] + ": " + p.value_text[i])
            << "</title></rect>";
      out << text(x0 + label_w + bw + 5, y + 13, i < p.value_text.size() ? p.value_text[i] : "", "start", "value");
    }
  }
  out << "</svg>";
  return out.str();
}

std::string step_curves(const CurveChart& c) {
  const double left = 52, right = 20, top = 34, bottom = 44, plot_w = 470, plot_h = 210;
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& curve : c.curves)
    for (const auto& [b, a] : curve.points) {
      if (c.log_x && b <= 0) continue;
      lo = any ? std::min(lo, b) : b;
      hi = any ? std::max(hi, b) : b;
      any = true;
    }
  std::ostringstream legend_svg;
  std::vector<std::string> names;
  for (const auto& curve : c.curves) names.push_back(curve.name);
  const double legend_h = legend(legend_svg, names, left, 18, plot_w);
  const double top_total = top + legend_h - 16;
  const double w = left + plot_w + right, h = top_total + plot_h + bottom;
  std::ostringstream out;
  out << open_svg(w, h, c.title) << legend_svg.str();
  for (int pct = 0; pct <= 100; pct += 25) {
    const double y = top_total + plot_h * (1 - pct / 100.0);
    out << "<line class=\"grid\" x1=\"" << num(left) << "\" x2=\"" << num(left + plot_w) << "\" y1=\"" << num(y) << "\" y2=\"" << num(y) << "\"/>";
    out << text(left - 6, y + 4, std::to_string(pct) + "%", "end", "tick");
  }
  out << "<line class=\"axis\" x1=\"" << num(left) << "\" x2=\"" << num(left + plot_w) << "\" y1=\"" << num(top_total + plot_h)
      << "\" y2=\"" << num(top_total + plot_h) << "\"/>";
  out << text(left + plot_w / 2, h - 6, c.x_label, "middle", "axis-label");
  if (!any) {
    out << text(left + plot_w / 2, top_total + plot_h / 2, c.empty_message, "middle", "empty");
    out << "</svg>";
    return out.str();
  }
  // Domain: a margin around the recorded budgets.
  double x_lo, x_hi;
  if (c.log_x) {
    x_lo = lo / 2;
    x_hi = hi * 2;
  } else {
    x_lo = 0;
    x_hi = c.integer_x ? std::ceil(hi) + 1 : (hi > 0 ? hi * 1.15 : 1);
  }
  auto sx = [&](double b) {
    const double f = c.log_x ? (std::log(b) - std::log(x_lo)) / (std::log(x_hi) - std::log(x_lo)) : (b - x_lo) / (x_hi - x_lo);
    return left + plot_w * std::clamp(f, 0.0, 1.0);
  };
  auto sy = [&](double a) { return top_total + plot_h * (1 - std::clamp(a, 0.0, 1.0)); };
  for (double t : c.log_x ? log_ticks(x_lo, x_hi) : linear_ticks(x_lo, x_hi, c.integer_x)) {
    const double x = sx(t);
    out << "<line class=\"tick-line\" x1=\"" << num(x) << "\" x2=\"" << num(x) << "\" y1=\"" << num(top_total + plot_h) << "\" y2=\""
        << num(top_total + plot_h + 4) << "\"/>";
    out << text(x, top_total + plot_h + 16, c.dollars ? fmt::usd(t) : fmt::count(t), "middle", "tick");
  }
  for (size_t i = 0; i < c.curves.size(); ++i) {
    std::string d = "M" + num(sx(x_lo)) + "," + num(sy(0));
    double acc = 0;
    for (const auto& [b, a] : c.curves[i].points) {
      const double x = sx(c.log_x && b <= 0 ? x_lo : b);
      d += " H" + num(x) + " V" + num(sy(a));
      acc = a;
    }
    d += " H" + num(sx(x_hi));
    // Runs often share steps (same tasks solved at the same cost): a dash
    // pattern per curve keeps the ones drawn underneath visible.
    static const char* const dashes[] = {"", "7 4", "2 3", "9 3 2 3"};
    const char* dash = dashes[i % 4];
    out << "<path class=\"curve\" d=\"" << d << "\" stroke=\"" << color(i) << "\""
        << (*dash ? std::string(" stroke-dasharray=\"") + dash + "\"" : std::string()) << "><title>" << escape(c.curves[i].name + ": " + fmt::percent(acc) + " at the largest budget") << "</title></path>";
    for (const auto& [b, a] : c.curves[i].points)
      out << "<circle cx=\"" << num(sx(c.log_x && b <= 0 ? x_lo : b)) << "\" cy=\"" << num(sy(a)) << "\" r=\"3\" fill=\"" << color(i)
          << "\"><title>" << escape(c.curves[i].name + ": " + fmt::percent(a) + " within " + (c.dollars ? fmt::usd(b) : fmt::count(b)))
          << "</title></circle>";
  }
  out << "</svg>";
  return out.str();
}

std::string speedup_strips(const std::string& title, const std::vector<Lane>& lanes) {
  const double left = 120, right = 24, top = 30, lane_h = 56, bottom = 40, plot_w = 420;
  double lo = 0.5, hi = 2;
  for (const auto& l : lanes)
    for (const auto& [task, s] : l.dots)
      if (s > 0) {
        lo = std::min(lo, s / 1.3);
        hi = std::max(hi, s * 1.3);
      }
  const double h = top + lane_h * static_cast<double>(std::max<size_t>(lanes.size(), 1)) + bottom, w = left + plot_w + right;
  auto sx = [&](double s) { return left + plot_w * (std::log(s) - std::log(lo)) / (std::log(hi) - std::log(lo)); };
  std::ostringstream out;
  out << open_svg(w, h, title);
  const double plot_bottom = top + lane_h * static_cast<double>(std::max<size_t>(lanes.size(), 1));
  for (double t : log_ticks(lo, hi)) {
    out << "<line class=\"grid\" x1=\"" << num(sx(t)) << "\" x2=\"" << num(sx(t)) << "\" y1=\"" << num(top) << "\" y2=\"" << num(plot_bottom) << "\"/>";
    out << text(sx(t), plot_bottom + 16, fmt::speedup(t), "middle", "tick");
  }
  out << "<line class=\"one\" x1=\"" << num(sx(1)) << "\" x2=\"" << num(sx(1)) << "\" y1=\"" << num(top - 6) << "\" y2=\"" << num(plot_bottom) << "\"/>";
  out << text(left + plot_w / 2, h - 6, "speedup over the baseline (log scale; one dot per solved, timed task)", "middle", "axis-label");
  if (lanes.empty() || std::all_of(lanes.begin(), lanes.end(), [](const Lane& l) { return l.dots.empty(); }))
    out << text(left + plot_w / 2, top + lane_h / 2, "no solved, timed task", "middle", "empty");
  for (size_t i = 0; i < lanes.size(); ++i) {
    const double y = top + lane_h * static_cast<double>(i) + lane_h / 2;
    out << text(left - 8, y + 4, truncate_label(lanes[i].name, 17), "end");
    for (size_t k = 0; k < lanes[i].dots.size(); ++k) {
      const auto& [task, s] = lanes[i].dots[k];
      if (s <= 0) continue;
      const double jitter = (static_cast<double>(k % 5) - 2.0) * 3.0;  // fixed spread so equal speedups stay visible
      out << "<circle class=\"dot\" cx=\"" << num(sx(s)) << "\" cy=\"" << num(y + jitter) << "\" r=\"4\" fill=\"" << color(i)
          << "\"><title>" << escape(task + ": " + fmt::speedup(s)) << "</title></circle>";
    }
    if (lanes[i].geomean && *lanes[i].geomean > 0) {
      const double x = sx(*lanes[i].geomean);
      out << "<path class=\"geomean\" d=\"M" << num(x) << "," << num(y - 24) << " l5,5 l-5,5 l-5,-5 z\"><title>"
          << escape(lanes[i].name + " geometric mean: " + fmt::speedup(lanes[i].geomean)) << "</title></path>";
      out << text(x, y - 27, "geomean " + fmt::speedup(lanes[i].geomean), "middle", "value");
    }
  }
  out << "</svg>";
  return out.str();
}

std::string stacked_rows(const StackedRows& c) {
  const double left = 150, right = 90, top = 16, row_h = 24, plot_w = 480;
  std::ostringstream legend_svg;
  const double y_legend = top + static_cast<double>(c.rows.size()) * row_h + 18;
  const double legend_h = legend(legend_svg, c.parts, left, y_legend, plot_w);
  const double h = y_legend + legend_h, w = left + plot_w + right;
  double max_total = 0;
  for (const auto& r : c.values) {
    double t = 0;
    for (double v : r) t += v;
    max_total = std::max(max_total, t);
  }
  std::ostringstream out;
  out << open_svg(w, h, c.title);
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const double y = top + static_cast<double>(i) * row_h;
    out << text(left - 8, y + 13, truncate_label(c.rows[i], 22), "end");
    double x = left, total = 0;
    for (size_t p = 0; p < c.parts.size() && p < c.values[i].size(); ++p) {
      const double v = c.values[i][p];
      total += v;
      if (v <= 0 || max_total <= 0) continue;
      const double bw = plot_w * v / max_total;
      out << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(bw) << "\" height=\"" << num(row_h - 6) << "\" fill=\""
          << color(p) << "\"><title>" << escape(c.rows[i] + ", " + c.parts[p] + ": " + fmt::seconds(v)) << "</title></rect>";
      x += bw;
    }
    out << text(x + 6, y + 13, fmt::seconds(total), "start", "value");
  }
  out << legend_svg.str() << "</svg>";
  return out.str();
}

std::string heatmap(const Heatmap& c) {
  size_t label_chars = 8;
  for (const auto& r : c.rows) label_chars = std::max(label_chars, std::min<size_t>(r.size(), 34));
  const double left = 12 + kCharWidth * static_cast<double>(label_chars), cell_w = 104, cell_h = 22, top = 40;
  const bool notes = !c.row_notes.empty();
  const double notes_w = notes ? 130 : 0;
  // Wide enough for the colour key below the grid too.
  const double w = std::max(left + cell_w * static_cast<double>(c.columns.size()) + notes_w + 12, left + 6 * 80.0);
  const double h = top + cell_h * static_cast<double>(c.rows.size()) + 34;
  std::ostringstream out;
  out << open_svg(w, h, c.title);
  for (size_t j = 0; j < c.columns.size(); ++j)
    out << text(left + cell_w * (static_cast<double>(j) + 0.5), top - 10, truncate_label(c.columns[j], static_cast<size_t>(cell_w / kCharWidth)),
                "middle", "subtitle");
  if (notes) out << text(left + cell_w * static_cast<double>(c.columns.size()) + notes_w / 2, top - 10, c.notes_header, "middle", "subtitle");
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const double y = top + cell_h * static_cast<double>(i);
    out << text(left - 8, y + 15, truncate_label(c.rows[i], label_chars), "end");
    for (size_t j = 0; j < c.columns.size(); ++j) {
      const HeatCell cell = i < c.cells.size() && j < c.cells[i].size() ? c.cells[i][j] : HeatCell{};
      std::string fill = "#eeeeee", label = "-", cls = "cell-text";
      if (cell.state == HeatCell::State::Failed) {
        fill = "#c0392b";
        label = "failed";
        cls = "cell-text light";
      } else if (cell.state == HeatCell::State::Solved) {
        fill = cell.speedup ? speedup_colour(*cell.speedup) : "#b8d4ea";
        label = cell.speedup ? fmt::speedup(cell.speedup) : "solved";
      }
      const double x = left + cell_w * static_cast<double>(j);
      out << "<rect class=\"cell\" x=\"" << num(x + 1) << "\" y=\"" << num(y + 1) << "\" width=\"" << num(cell_w - 2) << "\" height=\""
          << num(cell_h - 2) << "\" fill=\"" << fill << "\"><title>" << escape(cell.tooltip) << "</title></rect>";
      out << text(x + cell_w / 2, y + 15, label, "middle", cls);
    }
    if (notes && i < c.row_notes.size())
      out << text(left + cell_w * static_cast<double>(c.columns.size()) + notes_w / 2, y + 15, c.row_notes[i], "middle", "value");
  }
  // Colour key.
  const double ky = top + cell_h * static_cast<double>(c.rows.size()) + 14;
  double kx = left;
  for (double s : {0.25, 0.5, 1.0, 2.0, 4.0}) {
    out << "<rect x=\"" << num(kx) << "\" y=\"" << num(ky) << "\" width=\"34\" height=\"12\" fill=\"" << speedup_colour(s) << "\"/>";
    out << text(kx + 38, ky + 10, fmt::speedup(s), "start", "tick");
    kx += 80;
  }
  out << "<rect x=\"" << num(kx) << "\" y=\"" << num(ky) << "\" width=\"34\" height=\"12\" fill=\"#c0392b\"/>" << text(kx + 38, ky + 10, "failed", "start", "tick");
  out << "</svg>";
  return out.str();
}

}  // namespace kgb::report::svg
