// The terminal table and Markdown renderers, over report_sections().
#include <algorithm>
#include <sstream>

#include "kgb/report/definitions.h"
#include "kgb/report/render.h"
#include "sections.h"

namespace kgb::report {

namespace {

// Display width of UTF-8 text: code points, not bytes.
size_t width(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string pad(const std::string& s, size_t w, bool right) {
  const size_t n = width(s);
  if (n >= w) return s;
  return right ? std::string(w - n, ' ') + s : s + std::string(w - n, ' ');
}

void text_table(std::ostream& out, const TextTable& t) {
  if (!t.caption.empty()) out << t.caption << "\n";
  std::vector<size_t> widths(t.header.size(), 0);
  for (size_t c = 0; c < t.header.size(); ++c) widths[c] = width(t.header[c]);
  for (const auto& row : t.rows)
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) widths[c] = std::max(widths[c], width(row[c]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t c = 0; c < widths.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const bool right = c < t.numeric.size() && t.numeric[c];
      text += (c ? "  " : "") + (c + 1 == widths.size() && !right ? cell : pad(cell, widths[c], right));
    }
    out << text << "\n";
  };
  line(t.header);
  std::string rule;
  for (size_t c = 0; c < widths.size(); ++c) rule += (c ? "  " : "") + std::string(widths[c], '-');
  out << rule << "\n";
  for (const auto& row : t.rows) line(row);
}

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

void markdown_table(std::ostream& out, const TextTable& t) {
  if (!t.caption.empty()) out << "*" << markdown_cell(t.caption) << "*\n\n";
  out << "|";
  for (const auto& h : t.header) out << " " << markdown_cell(h) << " |";
  out << "\n|";
  for (size_t c = 0; c < t.header.size(); ++c) out << (c < t.numeric.size() && t.numeric[c] ? " ---: |" : " --- |");
  out << "\n";
  for (const auto& row : t.rows) {
    out << "|";
    for (size_t c = 0; c < t.header.size(); ++c) out << " " << markdown_cell(c < row.size() ? row[c] : "") << " |";
    out << "\n";
  }
  out << "\n";
}

}  // namespace

std::string render_table(const Report& report) {
  std::ostringstream out;
  bool first = true;
  for (const auto& s : report_sections(report)) {
    out << (first ? "" : "\n") << "== " << s.title << " ==\n";
    first = false;
    for (const auto& p : s.paragraphs) out << p << "\n";
    for (size_t i = 0; i < s.tables.size(); ++i) {
      if (i || !s.paragraphs.empty()) out << "\n";
      text_table(out, s.tables[i]);
    }
  }
  out << "\nMetric definitions: kgb report --help\n";
  return out.str();
}

std::string render_markdown(const Report& report) {
  std::ostringstream out;
  out << "# KernelGenBench report\n\n";
  for (const auto& s : report_sections(report)) {
    out << "## " << s.title << "\n\n";
    for (const auto& p : s.paragraphs) out << p << "\n\n";
    for (const auto& t : s.tables) markdown_table(out, t);
  }
  out << "## Definitions\n\n";
  for (const auto& d : metric_definitions()) out << "- **" << d.name << "**: " << d.text << "\n";
  return out.str();
}

}  // namespace kgb::report
