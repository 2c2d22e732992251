// vela-lb report: the page's pictures hold the inputs' data, bad inputs are named, and the page
// renders in a browser as a person would look at it (headless Chromium: no console error, every
// picture drawn, a screenshot that is not blank). The tests that draw skip when matplotlib or
// Chromium is missing (scripts/install-deps.sh installs both).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/program.hpp"
#include "vela/lb/io/io.hpp"
#include "vela/lb/model/metrics.hpp"

namespace {

namespace fs = std::filesystem;
using Result = vela::testing::ProgramResult;

Result vela_lb(const std::string& args) {
  return vela::testing::run_program(VELA_LB_BINARY, args);
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The Python vela-lb draws with: VELA_PYTHON, else the one the build chose.
std::string python() {
  const char* chosen = std::getenv("VELA_PYTHON");
  return chosen != nullptr && *chosen != '\0' ? chosen : VELA_REPORT_PYTHON;
}

bool have_matplotlib() {
  return vela::testing::run_command("'" + python() + "' -c 'import matplotlib' >/dev/null 2>&1")
             .status == 0;
}

std::string chromium() {
  Result r = vela::testing::run_command(
      "command -v chromium || command -v chromium-browser || command -v google-chrome");
  if (r.status != 0) return "";
  r.out.erase(r.out.find_last_not_of(" \n") + 1);
  return r.out;
}

#define SKIP_WITHOUT_MATPLOTLIB() \
  if (!have_matplotlib())         \
  GTEST_SKIP() << python() << " cannot import matplotlib (apt-get install python3-matplotlib)"

// The SVG element with this id: a group up to its matching </g>, or another element (an
// <image>) up to its end; "" when there is none.
std::string group(const std::string& html, const std::string& id) {
  const auto attribute = html.find(" id=\"" + id + "\"");
  if (attribute == std::string::npos) return "";
  const auto begin = html.rfind('<', attribute);
  if (html.compare(begin, 3, "<g ") != 0) {
    return html.substr(begin, html.find('>', attribute) + 1 - begin);
  }
  int depth = 0;
  for (std::size_t at = begin; at < html.size();) {
    const auto next_open = html.find("<g", at + 1);
    const auto next_close = html.find("</g>", at + 1);
    if (next_close == std::string::npos) return "";
    if (next_open != std::string::npos && next_open < next_close) {
      ++depth;
      at = next_open;
    } else {
      if (depth == 0) return html.substr(begin, next_close + 4 - begin);
      --depth;
      at = next_close;
    }
  }
  return "";
}

// The vertices of the first <path d="..."> of `svg` (M and L commands of a line).
std::vector<std::pair<double, double>> vertices(const std::string& svg) {
  std::vector<std::pair<double, double>> points;
  const std::regex d(R"(<path d="([^"]*)\")");
  std::smatch m;
  if (!std::regex_search(svg, m, d)) return points;
  std::istringstream in(m[1].str());
  std::string token;
  while (in >> token) {
    if (token == "M" || token == "L") {
      double x = 0, y = 0;
      in >> x >> y;
      points.emplace_back(x, y);
    }
  }
  return points;
}

// The x of every <use> (a marker) in `svg`.
std::vector<double> marker_xs(const std::string& svg) {
  std::vector<double> xs;
  const std::regex use(R"(<use [^>]*x="([-0-9.e]+)\")");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), use); it != std::sregex_iterator();
       ++it) {
    xs.push_back(std::stod((*it)[1].str()));
  }
  return xs;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class VelaLbReport : public vela::testing::ScratchDirTest {
 protected:
  // 20 steps; the application balanced after steps 5 and 12.
  std::string step_log() {
    std::string text = "step,seconds,migrate_seconds\n";
    for (int s = 1; s <= 20; ++s) {
      text += std::to_string(s) + "," + std::to_string(0.010 + 0.001 * (s % 7)) + "," +
              (s == 5 || s == 12 ? "0.002" : "0.000000000") + "\n";
    }
    write(path("steps.csv"), text);
    return path("steps.csv");
  }

  // Two dumps of one collection: a storm, then the placement greedy gave it.
  void dumps() {
    fs::create_directories(dir_ / "dumps");
    Result r =
        vela_lb("generate brams --nx 12 --ny 8 --pes 4 -o " + path("dumps/storm-step1.json"));
    ASSERT_EQ(r.status, 0) << r.out;
    r = vela_lb("run --strategy greedy " + path("dumps/storm-step1.json") + " -o " +
                path("dumps/storm-step2.json"));
    ASSERT_EQ(r.status, 0) << r.out;
  }

  // A Chrome trace as the runtime writes one: 2 PEs, entries, idle time and a balancing span.
  std::string chrome_trace() {
    std::string events =
        R"({"name":"thread_name","ph":"M","pid":0,"tid":0,"args":{"name":"PE 0"}})";
    double t = 0;
    for (int k = 0; k < 40; ++k) {
      for (int pe = 0; pe < 2; ++pe) {
        const double busy = pe == 0 ? 900.0 : 400.0;
        events += ",\n{\"name\":\"step\",\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(pe) +
                  ",\"cat\":\"entry\",\"ts\":" + std::to_string(t) +
                  ",\"dur\":" + std::to_string(busy) + "}";
        events += ",\n{\"name\":\"idle\",\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(pe) +
                  ",\"cat\":\"idle\",\"ts\":" + std::to_string(t + busy) +
                  ",\"dur\":" + std::to_string(1000.0 - busy) + "}";
      }
      t += 1000.0;
    }
    events += R"(,
{"name":"greedy","ph":"X","pid":0,"tid":0,"cat":"lb","ts":20000,"dur":300})";
    write(path("trace.json"),
          "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n" + events + "\n]}\n");
    return path("trace.json");
  }

  void expect_error(const std::string& args, const std::string& file, const std::string& what) {
    const Result r = vela_lb("report " + args + " -o " + path("r.html"));
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("vela-lb: error: " + file), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(what), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(path("r.html"))) << "no page from bad input";
  }
};

TEST_F(VelaLbReport, StepTimeHasOnePointPerStepAndMarksTheBalancingStepsOfTheLog) {
  SKIP_WITHOUT_MATPLOTLIB();
  const std::string log = step_log();
  const Result r = vela_lb("report " + log + " -o " + path("r.html"));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string html = read(path("r.html"));
  const auto line = vertices(group(html, "data-step-time-0"));
  ASSERT_EQ(line.size(), 20u) << "one vertex per step of the log";
  for (std::size_t i = 1; i < line.size(); ++i) EXPECT_GT(line[i].first, line[i - 1].first);
  const std::vector<double> marks = marker_xs(group(html, "data-balancing-0"));
  ASSERT_EQ(marks.size(), 2u) << "the log balanced twice";
  EXPECT_NEAR(marks[0], line[4].first, 1e-3) << "at step 5";
  EXPECT_NEAR(marks[1], line[11].first, 1e-3) << "at step 12";
  // The page names the input and says which pictures the missing kinds would give.
  EXPECT_NE(html.find("steps.csv"), std::string::npos);
  EXPECT_NE(html.find("PE utilization timeline (a Chrome trace, --trace)"), std::string::npos);
  EXPECT_EQ(count(html, "<figure class=\"plot\""), 1u);
}

TEST_F(VelaLbReport, DumpsGiveTheToolkitsLambdaAndTheMigrationsOfTheNextPlacement) {
  SKIP_WITHOUT_MATPLOTLIB();
  dumps();
  const Result r =
      vela_lb("report " + path("dumps/storm-step2.json") + " " + path("dumps/storm-step1.json") +
              " -o " + path("r.html") + " --summary " + path("s.json"));
  ASSERT_EQ(r.status, 0) << r.out;
  const vela::lb::Instance one = vela::lb::read_instance(path("dumps/storm-step1.json"));
  const vela::lb::Instance two = vela::lb::read_instance(path("dumps/storm-step2.json"));
  vela::lb::Assignment after = vela::lb::current_assignment(two);  // same objects, same order
  const auto before_stats =
      vela::lb::load_stats(vela::lb::pe_loads(one, vela::lb::current_assignment(one)));
  const auto after_stats = vela::lb::load_stats(vela::lb::pe_loads(one, after));
  const auto moved = vela::lb::migrations(one, vela::lb::current_assignment(one), after);
  ASSERT_GT(moved.count, 0u);

  const nlohmann::json summary = nlohmann::json::parse(read(path("s.json")));
  ASSERT_EQ(summary["balancing"].size(), 1u);
  const nlohmann::json& steps = summary["balancing"][0]["steps"];
  ASSERT_EQ(steps.size(), 2u) << "ordered by -stepK, whatever the order given";
  EXPECT_EQ(steps[0]["step"], 1);
  EXPECT_DOUBLE_EQ(steps[0]["lambda_before"].get<double>(), before_stats.imbalance);
  EXPECT_DOUBLE_EQ(steps[0]["lambda_after"].get<double>(), after_stats.imbalance);
  EXPECT_EQ(steps[0]["migrations"], moved.count);
  EXPECT_EQ(steps[0]["bytes_moved"], moved.bytes);
  EXPECT_TRUE(steps[1]["pe_after"].is_null()) << "the last dump has no next placement";

  const std::string html = read(path("r.html"));
  for (int pe = 0; pe < 4; ++pe) {
    EXPECT_FALSE(group(html, "data-pe-before-0-0-" + std::to_string(pe)).empty()) << pe;
    EXPECT_FALSE(group(html, "data-pe-after-0-0-" + std::to_string(pe)).empty()) << pe;
  }
  EXPECT_TRUE(group(html, "data-pe-before-0-0-4").empty()) << "one bar per PE";
  EXPECT_EQ(marker_xs(group(html, "data-domain-moved-pe-after-0-0")).size(), moved.count)
      << "every moved block is marked on the domain";
  EXPECT_FALSE(group(html, "data-domain-pe-before-0-1").empty());
  EXPECT_FALSE(group(html, "data-migrations-0-0").empty());
}

TEST_F(VelaLbReport, StrategyGivesAfterOnEveryDump) {
  SKIP_WITHOUT_MATPLOTLIB();
  dumps();
  const Result r = vela_lb("report " + path("dumps/storm-step1.json") +
                           " --strategy refine -p tolerance=0.02 -o " + path("r.html") +
                           " --summary " + path("s.json"));
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json step =
      nlohmann::json::parse(read(path("s.json")))["balancing"][0]["steps"][0];
  EXPECT_EQ(step["after_from"], "strategy refine");
  EXPECT_GT(step["lambda_before"].get<double>(), 0.05);
  EXPECT_LT(step["lambda_after"].get<double>(), step["lambda_before"].get<double>());
  EXPECT_GT(step["migrations"].get<int>(), 0);
}

TEST_F(VelaLbReport, UtilizationIsEachPesBusyShareOverTime) {
  SKIP_WITHOUT_MATPLOTLIB();
  const std::string trace = chrome_trace();  // PE 0 busy 90% of each millisecond, PE 1 40%
  const Result r = vela_lb("report " + trace + " --bins 8 -o " + path("r.html") + " --summary " +
                           path("s.json"));
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json t = nlohmann::json::parse(read(path("s.json")))["traces"][0];
  EXPECT_EQ(t["pes"], nlohmann::json::array({0, 1}));
  EXPECT_NEAR(t["seconds"].get<double>(), 0.040, 1e-9);
  ASSERT_EQ(t["share"]["entry"][0].size(), 8u);
  for (std::size_t b = 0; b < 8; ++b) {
    EXPECT_NEAR(t["share"]["entry"][0][b].get<double>(), 0.9, 1e-6) << b;
    EXPECT_NEAR(t["share"]["entry"][1][b].get<double>(), 0.4, 1e-6) << b;
    EXPECT_NEAR(t["share"]["idle"][1][b].get<double>(), 0.6, 1e-6) << b;
  }
  EXPECT_NEAR(t["share"]["lb"][0][4].get<double>(), 0.3 / 5.0, 1e-6) << "0.3 ms of a 5 ms bin";
  ASSERT_EQ(t["balancing"].size(), 1u);
  EXPECT_NEAR(t["balancing"][0][0].get<double>(), 0.020, 1e-9);
  const std::string html = read(path("r.html"));
  EXPECT_FALSE(group(html, "data-utilization-pes-0").empty());
  EXPECT_FALSE(group(html, "data-utilization-entry-0").empty());
}

// Asynchronous balancing: the balancing thread's track (named "balancer") is not drawn as a PE;
// the end of each of its spans is a placement decided, marked on the timeline; PE 0's "apply"
// span, where the answer moved the elements, is a balancing mark as any lb span.
TEST_F(VelaLbReport, TheBalancingThreadsAnswersAreMarkedAndItIsNoPe) {
  SKIP_WITHOUT_MATPLOTLIB();
  std::string trace = read(chrome_trace());
  const std::string extra = R"(,
{"name":"thread_name","ph":"M","pid":0,"tid":2,"args":{"name":"balancer"}},
{"name":"greedy","ph":"X","pid":0,"tid":2,"cat":"lb","ts":5000,"dur":10000},
{"name":"apply greedy","ph":"X","pid":0,"tid":0,"cat":"lb","ts":30000,"dur":200})";
  trace.insert(trace.rfind("\n]}"), extra);
  write(path("async.json"), trace);
  const Result r = vela_lb("report " + path("async.json") + " --bins 8 -o " + path("r.html") +
                           " --summary " + path("s.json"));
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json t = nlohmann::json::parse(read(path("s.json")))["traces"][0];
  EXPECT_EQ(t["pes"], nlohmann::json::array({0, 1}));
  ASSERT_EQ(t["decided"].size(), 1u);
  EXPECT_NEAR(t["decided"][0].get<double>(), 0.015, 1e-9);  // 5 ms + 10 ms
  ASSERT_EQ(t["balancing"].size(), 2u);
  EXPECT_NEAR(t["balancing"][1][0].get<double>(), 0.030, 1e-9);
  EXPECT_FALSE(group(read(path("r.html")), "data-decided-0-0").empty());
}

TEST_F(VelaLbReport, ReplayJsonHasEachPolicysSeriesStepByStep) {
  ASSERT_EQ(vela_lb("trace generate --nx 8 --ny 8 --pes 4 --steps 12 -o " + path("t.json")).status,
            0);
  const Result r = vela_lb("replay " + path("t.json") +
                           " --compare never --compare periodic:every=4,strategy=greedy "
                           "--strategy-time 0 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json replay = nlohmann::json::parse(r.out);
  EXPECT_EQ(replay["format"], "vela-replay");
  EXPECT_EQ(replay["version"], 1);
  EXPECT_EQ(replay["steps"], 12);
  ASSERT_EQ(replay["policies"].size(), 2u);
  EXPECT_EQ(replay["policies"][0]["relative_to_never"], 1.0);
  const nlohmann::json& periodic = replay["policies"][1];
  const nlohmann::json& series = periodic["series"];
  ASSERT_EQ(series["time"].size(), 12u);
  std::size_t applied = 0;
  std::uint64_t migrations = 0, bytes = 0;
  double total = 0;
  for (std::size_t s = 0; s < 12; ++s) {
    applied += series["applied"][s].get<bool>() ? 1 : 0;
    migrations += series["migrations"][s].get<std::uint64_t>();
    bytes += series["bytes_moved"][s].get<std::uint64_t>();
    total += series["time"][s].get<double>() + series["migration_seconds"][s].get<double>() +
             series["strategy_seconds"][s].get<double>();
  }
  EXPECT_GT(applied, 0u);
  EXPECT_EQ(periodic["balances"], applied);
  EXPECT_EQ(periodic["migrations"], migrations);
  EXPECT_EQ(periodic["bytes_moved"], bytes);
  EXPECT_NEAR(periodic["total"].get<double>(), total, 1e-9 * total);
}

TEST_F(VelaLbReport, BadInputsAreNamedWithWhatWasExpected) {
  const std::string log = step_log();
  expect_error(path("missing.csv"), path("missing.csv"), "No such file");
  write(path("notes.txt"), "hello\nworld\n");
  expect_error(path("notes.txt"), path("notes.txt"), "expected a step log");
  write(path("bad.csv"), "step,seconds,migrate_seconds\n1,0.5,0\n2,abc,0\n");
  expect_error(path("bad.csv"), path("bad.csv"), "line 3: seconds 'abc': expected seconds >= 0");
  write(path("short.csv"), "step,seconds,migrate_seconds\n1,0.5\n");
  expect_error(path("short.csv"), path("short.csv"), "line 2: expected 3 values");
  write(path("header.csv"), "step,seconds,migrate_seconds\n");
  expect_error(path("header.csv"), path("header.csv"), "no steps");
  write(path("empty.csv"), "");
  expect_error(path("empty.csv"), path("empty.csv"), "empty file");
  write(path("cut.json"), "{\"traceEvents\": [");
  expect_error(path("cut.json"), path("cut.json"), "not JSON");
  // A number beyond a double's range (found by fuzz/report_inputs.cpp): named, not the JSON
  // library's error.
  write(path("huge.json"), R"({"traceEvents":[{"name":"x","ph":"X","tid":0,"ts":1e999}]})");
  expect_error(path("huge.json"), path("huge.json"), "a number out of range");
  write(path("other.json"), "{\"a\": 1}");
  expect_error(path("other.json"), path("other.json"), "a JSON document of unknown kind");
  write(path("none.json"), "[]");
  expect_error(path("none.json"), path("none.json"), "no strategies");
  write(path("instants.json"), R"({"traceEvents":[{"name":"x","ph":"i","tid":0,"ts":1}]})");
  expect_error(path("instants.json"), path("instants.json"), "no complete events");
  write(path("phase.json"), R"({"traceEvents":[{"name":"x","ph":1,"tid":0,"ts":1}]})");
  expect_error(path("phase.json"), path("phase.json"), "traceEvents[0].ph: expected a phase text");
  write(path("binary.csv"), std::string("step\0\1\2", 7));
  expect_error(path("binary.csv"), path("binary.csv"), "binary data");
  fs::create_directories(dir_ / "dumps");
  expect_error(path("dumps"), path("dumps"), "is a directory");
  write(path("bad-instance.json"), R"({"format": "vela-instance", "version": 1})");
  expect_error(path("bad-instance.json"), path("bad-instance.json"), "missing field");
  // A good input before a bad one: still no page.
  expect_error(log + " " + path("bad.csv"), path("bad.csv"), "line 3");
}

TEST_F(VelaLbReport, OutputNeverReplacesAnInput) {
  const std::string log = step_log();
  const std::string before = read(log);
  Result r = vela_lb("report " + log + " -o " + log);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("would replace the input"), std::string::npos) << r.out;
  EXPECT_EQ(read(log), before);
  r = vela_lb("report " + log + " -o " + path("no/such/folder/r.html"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("does not exist"), std::string::npos) << r.out;
}

TEST_F(VelaLbReport, WithoutMatplotlibTheErrorNamesThePackage) {
  const std::string log = step_log();
  // A Python whose matplotlib cannot be imported: a module of that name that fails.
  fs::create_directories(dir_ / "fake");
  write(path("fake/matplotlib.py"), "raise ImportError('no matplotlib here')\n");
  Result r = vela::testing::run_command("PYTHONPATH='" + path("fake") + "' " + VELA_LB_BINARY +
                                        " report " + log + " -o " + path("r.html") + " 2>&1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("cannot import matplotlib"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("apt-get install python3-matplotlib"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("r.html")));
  r = vela::testing::run_command("VELA_PYTHON=" + path("no-python") + " " + VELA_LB_BINARY +
                                 " report " + log + " -o " + path("r.html") + " 2>&1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("no-python"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("python3-matplotlib"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("r.html")));
}

// Every kind of input at once, opened in headless Chromium as a person would.
TEST_F(VelaLbReport, PageRendersInABrowserWithEveryPictureDrawn) {
  SKIP_WITHOUT_MATPLOTLIB();
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "no chromium on PATH (apt-get install chromium)";
  const std::string log = step_log();
  dumps();
  const std::string trace = chrome_trace();
  ASSERT_EQ(vela::testing::run_command(
                std::string(VELA_LB_BINARY) + " compare " + path("dumps/storm-step1.json") +
                " -s greedy,refine,hilbert --format json > " + path("compare.json"))
                .status,
            0);
  ASSERT_EQ(vela_lb("trace generate --nx 8 --ny 8 --pes 4 --steps 12 -o " + path("t.json")).status,
            0);
  ASSERT_EQ(vela::testing::run_command(std::string(VELA_LB_BINARY) + " replay " + path("t.json") +
                                       " --compare never --compare periodic:every=4,strategy="
                                       "greedy --strategy-time 0 --format json > " +
                                       path("replay.json"))
                .status,
            0);
  const Result r =
      vela_lb("report " + log + " " + path("dumps/storm-step1.json") + " " +
              path("dumps/storm-step2.json") + " " + trace + " " + path("compare.json") + " " +
              path("replay.json") + " -o " + path("page.html"));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string html = read(path("page.html"));
  const std::size_t figures = count(html, "<figure class=\"plot\"");
  EXPECT_GE(figures, 10u) << "step time, replay (2), λ, migrations, PE load (2), domain (2), "
                             "comparison, utilization";
  for (const char* id :
       {"data-step-time-0", "data-replay-time-0-0", "data-lambda-before-0", "data-migrations-0-0",
        "data-compare-points-0", "data-utilization-entry-0", "data-utilization-pes-0"}) {
    EXPECT_FALSE(group(html, id).empty()) << id;
  }
  EXPECT_EQ(marker_xs(group(html, "data-compare-points-0")).size(), 3u) << "one per strategy";
  // Nothing to fetch: no element loads anything from elsewhere.
  for (const char* fetch : {"src=\"http", "<link", "<script src", "@import", "url(http"}) {
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
  }

  const std::string url = "file://" + path("page.html");
  const std::string flags = " --headless --no-sandbox --disable-gpu --hide-scrollbars";
  Result dom = vela::testing::run_command("'" + browser + "'" + flags +
                                          " --enable-logging=stderr --v=0 --dump-dom '" + url +
                                          "' 2>'" + path("console.txt") + "'");
  ASSERT_EQ(dom.status, 0) << read(path("console.txt"));
  const std::string console = read(path("console.txt"));
  EXPECT_EQ(console.find("CONSOLE"), std::string::npos) << "a console message:\n" << console;
  const std::string rendered =
      "data-rendered=\"" + std::to_string(figures) + "/" + std::to_string(figures) + "\"";
  EXPECT_NE(dom.out.find(rendered), std::string::npos)
      << "the page's own check: every picture has a size and drawn data";

  const Result shot = vela::testing::run_command(
      "'" + browser + "'" + flags + " --window-size=1200,2400 --screenshot='" + path("page.png") +
      "' '" + url + "' >/dev/null 2>&1");
  ASSERT_EQ(shot.status, 0);
  ASSERT_TRUE(fs::exists(path("page.png")));
  // A blank or nearly blank page has few coloured pixels and few distinct colours.
  const Result pixels = vela::testing::run_command(
      "'" + python() +
      "' -c 'import sys; from PIL import Image; im = Image.open(sys.argv[1]).convert(\"RGB\"); "
      "px = list(im.getdata()); ink = sum(1 for p in px if min(p) < 200) / len(px); "
      "print(\"%.4f %d\" % (ink, len(set(px))))' '" +
      path("page.png") + "'");
  ASSERT_EQ(pixels.status, 0) << pixels.out;
  double ink = 0;
  std::size_t colours = 0;
  std::istringstream(pixels.out) >> ink >> colours;
  EXPECT_GT(ink, 0.03) << "share of pixels with ink: " << pixels.out;
  EXPECT_GT(colours, 200u) << "distinct colours: " << pixels.out;
}

}  // namespace
