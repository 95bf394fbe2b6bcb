#pragma once
// The figures of the HTML report, drawn as inline SVG text: no library, no script, no network, so the page
// reads the same offline, in a pull request artefact or years later. Two kinds only, enough for what a
// report shows: horizontal bars (labels can be long: kernel ids, contract x family) and stacked line
// panels sharing one x axis (a campaign's counts over time, each on its own scale).
//
// Every <svg> has an id and a <title> first; every bar and point has a <title> with its label and value
// (a tooltip without script) and data-label / data-value attributes, so a number in a figure can be
// traced to the report field it came from. All text is escaped. A chart without data still draws its
// frame and says why it is empty.
#include <string>
#include <string_view>
#include <vector>

namespace ordo::reports::svg {

// Escapes & < > " ' for XML/HTML text and attribute values.
std::string escape(std::string_view text);
// An integral value as an integer, any other with `digits` significant digits; "n/a" for NaN and the
// infinities.
std::string format_value(double v, int digits = 3);

struct Bar {
  std::string group;  // bars of one group are drawn together under its name ("" : no group header)
  std::string label;
  double value = 0;  // NaN: no bar, "n/a"
};

struct BarChart {
  std::string id;           // the <svg>'s id
  std::string title;        // its <title>, drawn as the heading too
  std::string value_label;  // the axis, e.g. "max |error| / bound"
  std::vector<Bar> bars;
  // A vertical dashed line, e.g. the bound (1) or cuBLAS's time (ratio 1); drawn when reference_label is set.
  double reference = 0;
  std::string reference_label;
  std::string empty_reason;  // shown instead of bars when there are none
  int digits = 3;            // of the value printed at each bar
};

struct Point {
  double x = 0, y = 0;
};

struct LinePanel {
  std::string y_label;  // also the series' name
  std::vector<Point> points;
};

struct LineChart {
  std::string id, title, x_label;
  std::vector<LinePanel> panels;  // drawn top to bottom over the same x range
  std::string empty_reason;       // shown when no panel has a point
};

std::string bar_chart(const BarChart& chart);
std::string line_chart(const LineChart& chart);

}  // namespace ordo::reports::svg
