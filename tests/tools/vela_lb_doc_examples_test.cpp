// The vela-lb examples of README.md and docs/*.md, run as written, in order, in one scratch
// directory. The rules that pick them out of the markdown (extract_examples below):
//
//  * In a ```sh block, a command line (a line ending in '\' joins the next) whose first word is
//    vela-lb is an example and must exit 0. Lines that start with anything else run other
//    programs (the applications, mpirun, scripts) and are not run here; the files they write
//    that a later vela-lb example reads are made by the setup step (kSetup).
//  * An example meant to fail is written as a transcript, in a block with no language: a line
//    "$ vela-lb ..." followed by what it prints. When that begins with "vela-lb: error:", the
//    command must exit 1 and print those lines; a line's trailing "..." stands for the rest of
//    it. A transcript that shows no error must exit 0.
//
// The examples run with a directory first on PATH that holds vela-lb (this build's), so each
// line runs exactly as a reader would type it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/program.hpp"

namespace {

namespace fs = std::filesystem;

struct Example {
  std::string where;    // file:line of the command's first line
  std::string command;  // continuation lines joined
  bool transcript = false;
  std::vector<std::string> expected;  // a transcript's output lines
};

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

std::string first_word(const std::string& line) {
  const std::size_t begin = line.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  const std::size_t end = line.find_first_of(" \t", begin);
  return line.substr(begin, end == std::string::npos ? end : end - begin);
}

std::vector<Example> extract_examples(const std::string& markdown, const std::string& file) {
  std::vector<Example> examples;
  std::istringstream in(markdown);
  std::string line;
  int number = 0;
  bool in_block = false;
  std::string language;
  Example* open_transcript = nullptr;  // the transcript whose output lines are being read
  std::string pending;                 // a sh command continued with '\'
  int pending_line = 0;
  while (std::getline(in, line)) {
    ++number;
    if (starts_with(line, "```")) {
      in_block = !in_block;
      language = in_block ? line.substr(3) : "";
      open_transcript = nullptr;
      pending.clear();
      continue;
    }
    if (!in_block) continue;
    if (language == "sh") {
      if (pending.empty()) pending_line = number;
      if (!line.empty() && line.back() == '\\') {
        pending += line.substr(0, line.size() - 1) + " ";
        continue;
      }
      const std::string command = pending + line;
      pending.clear();
      if (first_word(command) == "vela-lb") {
        examples.push_back({file + ":" + std::to_string(pending_line), command, false, {}});
      }
    } else if (language.empty()) {
      if (starts_with(line, "$ ")) {
        open_transcript = nullptr;
        const std::string command = line.substr(2);
        if (first_word(command) == "vela-lb") {
          examples.push_back({file + ":" + std::to_string(number), command, true, {}});
          open_transcript = &examples.back();
        }
      } else if (open_transcript != nullptr) {
        open_transcript->expected.push_back(line);
      }
    }
  }
  return examples;
}

// Files that programs other than vela-lb write in the documents and later examples read, made
// here the way vela-lb can: the Jacobi2D application's --lb-dump (README.md) and the DARMA vt
// LB data files (docs/user-guide.md).
const char* const kSetup =
    "mkdir -p dumps && vela-lb generate jacobi --nx 8 --ny 4 --pes 2 -o dumps/jacobi-step1.json "
    "&& vela-lb trace generate --nx 8 --ny 8 --pes 4 --steps 3 -o setup.trace "
    "&& vela-lb trace export-vt setup.trace --output-dir vt_lb_data";

class DocExamples : public vela::testing::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    fs::create_directories(dir_ / ".bin");
    fs::create_symlink(fs::absolute(VELA_LB_BINARY), dir_ / ".bin" / "vela-lb");
  }

  // Runs `script` with sh in the scratch directory, vela-lb on PATH; stdout and stderr together.
  vela::testing::ProgramResult shell(const std::string& script) const {
    const std::string line = "cd '" + dir_.string() + "' && PATH='" + (dir_ / ".bin").string() +
                             "':\"$PATH\" && export PATH && {\n" + script + "\n} 2>&1";
    return vela::testing::run_command(line);
  }
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// README.md, then docs/*.md in name order: the user guide builds on the README's files.
std::vector<Example> documented_examples() {
  const fs::path root = VELA_SOURCE_DIR;
  std::vector<fs::path> files = {root / "README.md"};
  std::vector<fs::path> docs;
  for (const auto& entry : fs::directory_iterator(root / "docs")) {
    if (entry.is_regular_file() && entry.path().extension() == ".md") docs.push_back(entry.path());
  }
  std::sort(docs.begin(), docs.end());
  files.insert(files.end(), docs.begin(), docs.end());
  std::vector<Example> all;
  for (const fs::path& file : files) {
    const std::vector<Example> found =
        extract_examples(read_file(file), fs::relative(file, root).string());
    all.insert(all.end(), found.begin(), found.end());
  }
  return all;
}

// Whether `out` holds `expected` as a line, or, when it ends in "...", a line starting with
// what comes before.
bool printed(const std::string& out, const std::string& expected) {
  const std::string marker = "...";
  const bool prefix = expected.size() >= marker.size() &&
                      expected.compare(expected.size() - marker.size(), marker.size(), marker) == 0;
  const std::string want = prefix ? expected.substr(0, expected.size() - marker.size()) : expected;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (prefix ? starts_with(line, want) : line == want) return true;
  }
  return false;
}

TEST(DocExampleRules, PickTheVelaLbLinesOfShBlocksAndTheTranscripts) {
  const std::string markdown =
      "Text with vela-lb run inline is not an example.\n"
      "```sh\n"
      "vela-lb generate brams -o a.json        # a comment\n"
      "build/apps/jacobi2d/jacobi2d --lb greedy --lb-dump dumps/\n"
      "vela-lb compare -s greedy,refine \\\n"
      "    -p refine:tolerance=0.1 a.json\n"
      "```\n"
      "```cpp\n"
      "vela-lb strategies\n"
      "```\n"
      "```\n"
      "$ vela-lb run --strategy refine --param tolerance=-1 a.json\n"
      "vela-lb: error: refine: parameter 'tolerance' = -1 is out of range [0, 10]\n"
      "$ ls\n"
      "a.json\n"
      "```\n"
      "```\n"
      "vela-lb: error: an error message listed alone\n"
      "```\n";
  const std::vector<Example> found = extract_examples(markdown, "x.md");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].where, "x.md:3");
  EXPECT_EQ(found[0].command, "vela-lb generate brams -o a.json        # a comment");
  EXPECT_FALSE(found[0].transcript);
  EXPECT_EQ(found[1].where, "x.md:5");
  EXPECT_EQ(found[1].command,
            "vela-lb compare -s greedy,refine      -p refine:tolerance=0.1 a.json");
  EXPECT_TRUE(found[2].transcript);
  EXPECT_EQ(found[2].where, "x.md:12");
  ASSERT_EQ(found[2].expected.size(), 1u);
  EXPECT_EQ(found[2].expected[0],
            "vela-lb: error: refine: parameter 'tolerance' = -1 is out of range [0, 10]");

  EXPECT_TRUE(printed("x\nvela-lb: error: a, b, c\n", "vela-lb: error: a, b, ..."));
  EXPECT_FALSE(printed("x\nvela-lb: error: a, c\n", "vela-lb: error: a, b, ..."));
  EXPECT_FALSE(printed("vela-lb: error: a, b, c\n", "vela-lb: error: a, b"));
}

TEST_F(DocExamples, EveryDocumentedCommandRunsAsWritten) {
  const std::vector<Example> examples = documented_examples();
  // The extraction found the documents' examples (among them the two of issue 15 that a
  // repeatable option used to break).
  const auto documented = [&](const std::string& command) {
    return std::any_of(examples.begin(), examples.end(),
                       [&](const Example& e) { return e.command.find(command) == 0; });
  };
  EXPECT_TRUE(
      documented("vela-lb run --strategy refine --param tolerance=0.02 storm.json -o "
                 "balanced.json"));
  EXPECT_TRUE(
      documented("vela-lb compare -s greedy,refine -p refine:tolerance=0.02 storm.json "
                 "--format csv"));
  EXPECT_GE(examples.size(), 20u);

  const vela::testing::ProgramResult setup = shell(kSetup);
  ASSERT_EQ(setup.status, 0) << kSetup << "\n" << setup.out;
  for (const Example& e : examples) {
    SCOPED_TRACE(e.where + ": " + e.command);
    const vela::testing::ProgramResult r = shell(e.command);
    const bool fails =
        e.transcript && !e.expected.empty() && starts_with(e.expected.front(), "vela-lb: error:");
    EXPECT_EQ(r.status, fails ? 1 : 0) << r.out;
    if (!e.transcript) continue;
    for (const std::string& line : e.expected)
      EXPECT_TRUE(printed(r.out, line)) << line << "\n" << r.out;
  }
}

}  // namespace
