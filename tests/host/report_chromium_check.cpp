// Opens the HTML page of `ordo report` in headless Chromium and checks what a reader sees against the
// report JSON itself (read here with nlohmann, not with ordo's reader): the verdict, the numbers of results
// rows (cases or relations, failed), the <svg> of every figure the report has data for (and none of the
// others); then takes a screenshot. Uses the rendered DOM
// (--dump-dom), so what is checked is what the browser parsed, not only the bytes ordo wrote.
//
// Usage: ordo_report_chromium_check ORDO_BINARY REPORT.json OUT_DIR
// Exit 0 all checks hold, 1 a check failed, 77 skipped: Chromium is not installed (ctest SKIP_RETURN_CODE).
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

int failures = 0;

void check(bool ok, const std::string& what) {
  std::cout << (ok ? "ok:     " : "FAILED: ") << what << "\n";
  if (!ok) ++failures;
}

// Chromium itself, or "" when it is not installed. ORDO_CHROMIUM overrides the search.
std::string find_chromium() {
  if (const char* env = std::getenv("ORDO_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    for (const char* name : {"chromium", "chromium-browser"}) {
      const fs::path p = fs::path(dir) / name;
      std::error_code ec;
      if (fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0) return p.string();
    }
  return "";
}

// Runs `command` through the shell; its stdout, and the exit status in *status.
std::string run(const std::string& command, int* status) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) {
    *status = -1;
    return out;
  }
  std::array<char, 65536> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int s = pclose(p);
  *status = WIFEXITED(s) ? WEXITSTATUS(s) : -1;
  return out;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }  // paths of the build tree: no quotes in them

// How the HTML serialiser writes an attribute value (the DOM dump): & and " escaped.
std::string attr(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
  return out;
}

// The <tr> of results[i] in the DOM, or "".
std::string result_row(const std::string& dom, std::size_t i) {
  const std::size_t p = dom.find("<tr id=\"result-" + std::to_string(i) + "\"");
  if (p == std::string::npos) return "";
  return dom.substr(p, dom.find("</tr>", p) - p);
}

void check_row(const std::string& dom, const json& report, std::size_t i) {
  const json& row = report["results"][i];
  const std::string tr = result_row(dom, i);
  const std::string name = "results[" + std::to_string(i) + "]";
  check(!tr.empty(), name + " has its table row");
  check(tr.find("data-property=\"" + attr(row["property"].get<std::string>()) + "\"") != std::string::npos,
        name + " row: data-property " + row["property"].get<std::string>());
  check(tr.find("data-kernel=\"" + attr(row["kernel"].get<std::string>()) + "\"") != std::string::npos,
        name + " row: data-kernel " + row["kernel"].get<std::string>());
  // The count names its unit: "27 relations" for `ordo check`'s invariance rows, "66 cases" otherwise.
  const long long count = row["cases"].get<long long>();
  std::string unit = row.value("unit", "cases");
  if (count == 1) unit.pop_back();
  check(tr.find("data-field=\"cases\" data-unit=\"" + attr(row.value("unit", "cases")) + "\">" + std::to_string(count) +
                " " + unit + "</td>") != std::string::npos,
        name + " row: " + std::to_string(count) + " " + unit);
  for (const char* field : {"failed", "skipped"}) {
    const std::string cell =
        "data-field=\"" + std::string(field) + "\">" + std::to_string(row[field].get<long long>()) + "</td>";
    check(tr.find(cell) != std::string::npos,
          name + " row: " + field + " = " + std::to_string(row[field].get<long long>()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: ordo_report_chromium_check ORDO_BINARY REPORT.json OUT_DIR\n";
    return 2;
  }
  const std::string ordo = argv[1], report_path = argv[2];
  const fs::path out = fs::absolute(argv[3]);
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    std::cout << "SKIP: chromium is not installed (Debian: apt-get install chromium); the HTML report was not opened "
                 "in a browser\n";
    return 77;
  }
  fs::remove_all(out);
  fs::create_directories(out);
  const fs::path html = out / "report.html", png = out / "report.png";
  std::ifstream in(report_path);
  const json report = json::parse(in);

  int status = 0;
  run(quoted(ordo) + " report " + quoted(report_path) + " --html " + quoted(html) + " --md " +
          quoted(out / "report.md"),
      &status);
  check(status == 0, "ordo report wrote " + html.string());
  if (status != 0) return 1;

  // A profile of its own: a Chromium already running (or a parallel test) must not be reused.
  const std::string browser = "timeout 180 " + quoted(chromium) +
                              " --headless --disable-gpu --no-sandbox --user-data-dir=" + quoted(out / "profile") + " ";
  const std::string dom =
      run(browser + "--dump-dom " + quoted("file://" + html.string()) + " 2>" + quoted(out / "chromium.log"), &status);
  check(status == 0 && !dom.empty(),
        "chromium --dump-dom rendered the page (log: " + (out / "chromium.log").string() + ")");
  std::ofstream(out / "dom.html") << dom;

  // The verdict: the JSON's, and its headline counts the JSON's rows.
  const std::string verdict = report["verdict"].get<std::string>();
  const std::size_t v = dom.find("id=\"verdict\"");
  const std::string verdict_el = v == std::string::npos ? "" : dom.substr(v, dom.find("</p>", v) - v);
  check(verdict_el.find("data-verdict=\"" + verdict + "\"") != std::string::npos, "#verdict says " + verdict);
  const std::string word = verdict.rfind("pass", 0) == 0 ? "PASS"
                           : verdict == "fail"           ? "FAIL"
                           : verdict == "inconclusive"   ? "INCONCLUSIVE"
                                                         : "INTERRUPTED";
  check(verdict_el.find("<strong>" + word) != std::string::npos, "#verdict reads " + word);
  const std::string rows = std::to_string(report["results"].size()) + " checks";
  check(verdict_el.find(rows) != std::string::npos, "#verdict counts " + rows);

  // Results rows: every one present; the first, and the first with a failed case, number for number.
  std::size_t present = 0;
  for (std::size_t i = 0; i < report["results"].size(); ++i) present += result_row(dom, i).empty() ? 0 : 1;
  check(present == report["results"].size(),
        std::to_string(present) + " of " + std::to_string(report["results"].size()) + " results rows in the page");
  if (!report["results"].empty()) check_row(dom, report, 0);
  for (std::size_t i = 0; i < report["results"].size(); ++i)
    if (report["results"][i]["failed"].get<long long>() > 0) {
      check_row(dom, report, i);
      break;
    }

  // A figure is drawn where the report has its data, and left out where it has none.
  bool any_tightness = false, any_cases = false;
  for (const json& row : report["results"]) {
    any_tightness = any_tightness || !row.value("max_error_over_bound_by_family", json::object()).empty();
    any_cases = any_cases || !row.value("families", json::object()).empty() ||
                !row.value("shape_classes", json::object()).empty();
  }
  const std::pair<const char*, bool> figures[] = {{"fig-error-bound", any_tightness},
                                                  {"fig-bench-ratio", !report.value("bench", json::array()).empty()},
                                                  {"fig-cases", any_cases},
                                                  {"fig-timeline", !report.value("timeline", json::array()).empty()}};
  for (const auto& [id, drawn] : figures) {
    const std::size_t p = dom.find(std::string("<svg id=\"") + id + "\"");
    if (drawn)
      check(p != std::string::npos && dom.find("<title>", p) < dom.find("</svg>", p),
            std::string("figure <svg id=\"") + id + "\"> with its <title>");
    else
      check(p == std::string::npos, std::string("no figure <svg id=\"") + id + "\">: the report has no data for it");
  }

  run(browser + "--screenshot=" + quoted(png) + " --window-size=1280,2000 " + quoted("file://" + html.string()) +
          " >>" + quoted(out / "chromium.log") + " 2>&1",
      &status);
  std::ifstream shot(png, std::ios::binary);
  std::string head(8, '\0');
  shot.read(head.data(), 8);
  std::error_code ec;
  const auto bytes = fs::file_size(png, ec);
  check(status == 0 && head == "\x89PNG\r\n\x1a\n" && !ec && bytes > 20000,
        "screenshot " + png.string() + " (" + std::to_string(ec ? 0 : bytes) + " bytes)");

  std::cout << (failures == 0 ? "PASS" : "FAIL") << ": the HTML report in Chromium, " << failures
            << " check(s) failed\n";
  return failures == 0 ? 0 : 1;
}
