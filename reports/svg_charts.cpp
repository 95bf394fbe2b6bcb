// Inline SVG bar and line charts (svg_charts.h).
#include "reports/svg_charts.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ordo::reports::svg {
namespace {

constexpr double kWidth = 960;
constexpr double kCharWidth = 6.6;  // of the 12 px sans-serif labels, to size the label column

std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// The shortest text that reads back as v (what the JSON holds), for data-value.
std::string exact(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

// The smallest of 1, 2, 5 x 10^k with at most 5 steps to cover [0, top]: the axis end and its step.
void nice_axis(double top, double* end, double* step) {
  if (!(top > 0) || !std::isfinite(top)) top = 1;
  const double raw = top / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double s = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      s = m * mag;
      break;
    }
  *step = s;
  *end = std::ceil(top / s - 1e-9) * s;
}

std::string truncated(const std::string& s, std::size_t max_chars) {
  if (s.size() <= max_chars) return s;
  return s.substr(0, max_chars - 3) + "...";
}

void open_svg(std::ostringstream& o, const std::string& id, const std::string& title, double height) {
  // No xmlns: inline in HTML the parser puts <svg> in the SVG namespace itself, and the page holds no URL.
  o << "<svg id=\"" << escape(id) << "\" role=\"img\" width=\"" << px(kWidth) << "\" height=\"" << px(height)
    << "\" viewBox=\"0 0 " << px(kWidth) << " " << px(height)
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n<title>" << escape(title) << "</title>\n"
    << "<rect x=\"0\" y=\"0\" width=\"" << px(kWidth) << "\" height=\"" << px(height)
    << "\" fill=\"#ffffff\" stroke=\"#d0d7de\"/>\n<text x=\"12\" y=\"22\" font-size=\"15\" font-weight=\"bold\">"
    << escape(title) << "</text>\n";
}

std::string empty_chart(const std::string& id, const std::string& title, const std::string& reason) {
  std::ostringstream o;
  open_svg(o, id, title, 90);
  o << "<text class=\"no-data\" x=\"12\" y=\"56\" fill=\"#57606a\">No data: " << escape(reason) << "</text>\n</svg>\n";
  return o.str();
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string format_value(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  // Counts (and round axis ticks) read as integers; "%.3g" would print 2426 as 2.43e+03.
  if (v == std::floor(v) && std::fabs(v) < 1e12)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string bar_chart(const BarChart& c) {
  if (c.bars.empty()) return empty_chart(c.id, c.title, c.empty_reason);
  std::size_t longest = 0;
  double top = c.reference_label.empty() ? 0 : c.reference;
  for (const Bar& b : c.bars) {
    longest = std::max(longest, b.label.size());
    if (std::isfinite(b.value)) top = std::max(top, b.value);
  }
  const std::size_t max_chars = 64;
  const double label_w = std::clamp(kCharWidth * static_cast<double>(std::min(longest, max_chars)) + 24, 120.0, 460.0);
  const double x0 = label_w, x1 = kWidth - 80;
  double end = 1, step = 1;
  nice_axis(top, &end, &step);
  auto x_of = [&](double v) { return x0 + (x1 - x0) * std::clamp(v, 0.0, end) / end; };

  // Rows first (group headers and bars), to know the height.
  std::ostringstream rows;
  double y = 44;
  std::string group;
  bool first = true;
  for (const Bar& b : c.bars) {
    if (!b.group.empty() && (first || b.group != group)) {
      y += first ? 0 : 6;
      rows << "<text x=\"12\" y=\"" << px(y + 13) << "\" font-weight=\"bold\">" << escape(b.group) << "</text>\n";
      y += 20;
    }
    first = false;
    group = b.group;
    const std::string name = b.group.empty() ? b.label : b.group + " / " + b.label;
    rows << "<g class=\"bar\" data-group=\"" << escape(b.group) << "\" data-label=\"" << escape(b.label)
         << "\" data-value=\"" << exact(b.value) << "\"><title>" << escape(name) << ": "
         << format_value(b.value, c.digits) << "</title><text x=\"" << px(x0 - 8) << "\" y=\"" << px(y + 11)
         << "\" text-anchor=\"end\">" << escape(truncated(b.label, max_chars)) << "</text>";
    if (std::isfinite(b.value)) {
      const double w = std::max(x_of(b.value) - x0, b.value > 0 ? 1.0 : 0.0);
      rows << "<rect x=\"" << px(x0) << "\" y=\"" << px(y + 2) << "\" width=\"" << px(w) << "\" height=\"12\" fill=\""
           << (!c.reference_label.empty() && b.value > c.reference ? "#cf222e" : "#0969da") << "\"/>";
      rows << "<text x=\"" << px(x0 + w + 4) << "\" y=\"" << px(y + 11) << "\">" << format_value(b.value, c.digits)
           << "</text>";
    } else {
      rows << "<text x=\"" << px(x0 + 4) << "\" y=\"" << px(y + 11) << "\" fill=\"#57606a\">n/a</text>";
    }
    rows << "</g>\n";
    y += 18;
  }
  const double plot_bottom = y + 4;
  std::ostringstream o;
  open_svg(o, c.id, c.title, plot_bottom + 46);
  // Axis and grid under the bars.
  for (double t = 0; t <= end * (1 + 1e-9); t += step) {
    const double x = x_of(t);
    o << "<line x1=\"" << px(x) << "\" y1=\"40\" x2=\"" << px(x) << "\" y2=\"" << px(plot_bottom)
      << "\" stroke=\"#eaeef2\"/><text x=\"" << px(x) << "\" y=\"" << px(plot_bottom + 16)
      << "\" text-anchor=\"middle\" fill=\"#57606a\">" << format_value(t) << "</text>\n";
  }
  o << "<line x1=\"" << px(x0) << "\" y1=\"40\" x2=\"" << px(x0) << "\" y2=\"" << px(plot_bottom)
    << "\" stroke=\"#57606a\"/>\n";
  o << "<text x=\"" << px((x0 + x1) / 2) << "\" y=\"" << px(plot_bottom + 36) << "\" text-anchor=\"middle\">"
    << escape(c.value_label) << "</text>\n";
  o << rows.str();
  if (!c.reference_label.empty()) {
    const double x = x_of(c.reference);
    o << "<g class=\"reference\" data-value=\"" << exact(c.reference) << "\"><title>" << escape(c.reference_label)
      << "</title><line x1=\"" << px(x) << "\" y1=\"36\" x2=\"" << px(x) << "\" y2=\"" << px(plot_bottom)
      << "\" stroke=\"#cf222e\" stroke-dasharray=\"5,3\"/><text x=\"" << px(x + 4) << "\" y=\"36\" fill=\"#cf222e\">"
      << escape(c.reference_label) << "</text></g>\n";
  }
  o << "</svg>\n";
  return o.str();
}

std::string line_chart(const LineChart& c) {
  double xmin = 0, xmax = 0;
  bool any = false;
  for (const LinePanel& p : c.panels)
    for (const Point& pt : p.points) {
      xmin = any ? std::min(xmin, pt.x) : pt.x;
      xmax = any ? std::max(xmax, pt.x) : pt.x;
      any = true;
    }
  if (!any) return empty_chart(c.id, c.title, c.empty_reason);
  if (xmax <= xmin) xmax = xmin + 1;  // one point: still an axis
  const double x0 = 90, x1 = kWidth - 30, panel_h = 140, gap = 34;
  auto x_of = [&](double x) { return x0 + (x1 - x0) * (x - xmin) / (xmax - xmin); };
  std::ostringstream o;
  const double height = 44 + static_cast<double>(c.panels.size()) * (panel_h + gap) + 30;
  open_svg(o, c.id, c.title, height);
  double top = 44;
  for (const LinePanel& p : c.panels) {
    double ymax = 0;
    for (const Point& pt : p.points) ymax = std::max(ymax, pt.y);
    double end = 1, step = 1;
    nice_axis(ymax, &end, &step);
    const double bottom = top + panel_h;
    auto y_of = [&](double v) { return bottom - panel_h * std::clamp(v, 0.0, end) / end; };
    for (double t = 0; t <= end * (1 + 1e-9); t += step)
      o << "<line x1=\"" << px(x0) << "\" y1=\"" << px(y_of(t)) << "\" x2=\"" << px(x1) << "\" y2=\"" << px(y_of(t))
        << "\" stroke=\"#eaeef2\"/><text x=\"" << px(x0 - 6) << "\" y=\"" << px(y_of(t) + 4)
        << "\" text-anchor=\"end\" fill=\"#57606a\">" << format_value(t) << "</text>\n";
    o << "<text x=\"" << px(x0) << "\" y=\"" << px(top - 6) << "\" font-weight=\"bold\">" << escape(p.y_label)
      << "</text>\n";
    o << "<g class=\"series\" data-series=\"" << escape(p.y_label)
      << "\"><polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"2\" points=\"";
    for (const Point& pt : p.points) o << px(x_of(pt.x)) << "," << px(y_of(pt.y)) << " ";
    o << "\"/>\n";
    for (const Point& pt : p.points)
      o << "<circle cx=\"" << px(x_of(pt.x)) << "\" cy=\"" << px(y_of(pt.y)) << "\" r=\"3\" fill=\"#0969da\" data-x=\""
        << exact(pt.x) << "\" data-value=\"" << exact(pt.y) << "\"><title>" << escape(c.x_label) << " "
        << format_value(pt.x) << ": " << escape(p.y_label) << " " << format_value(pt.y) << "</title></circle>\n";
    o << "</g>\n";
    // The shared x axis under every panel: each reads alone.
    for (int i = 0; i <= 5; ++i) {
      const double x = xmin + (xmax - xmin) * i / 5;
      o << "<text x=\"" << px(x_of(x)) << "\" y=\"" << px(bottom + 16) << "\" text-anchor=\"middle\" fill=\"#57606a\">"
        << format_value(x) << "</text>\n";
    }
    o << "<line x1=\"" << px(x0) << "\" y1=\"" << px(bottom) << "\" x2=\"" << px(x1) << "\" y2=\"" << px(bottom)
      << "\" stroke=\"#57606a\"/>\n";
    top = bottom + gap;
  }
  o << "<text x=\"" << px((x0 + x1) / 2) << "\" y=\"" << px(height - 10) << "\" text-anchor=\"middle\">"
    << escape(c.x_label) << "</text>\n</svg>\n";
  return o.str();
}

}  // namespace ordo::reports::svg
