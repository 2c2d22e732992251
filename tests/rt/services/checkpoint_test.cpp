// Checkpoint/restart: elements written at sync points and restored on another PE count give the
// uninterrupted run's results; a checkpoint that could not hold the state (a message in flight)
// is skipped; bad checkpoints and options are refused with the file or option named.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "vela/rt/runtime.hpp"

namespace {

namespace fs = std::filesystem;

// An element with state that changes every step (a value and the step it is at), contributing
// the value to a sum every step and reaching a sync point every step but the last.
class Stepper : public vela::rt::ElementBase {
 public:
  Stepper() = default;
  Stepper(std::int32_t steps, vela::rt::Callback each) : steps_(steps), each_(each) {
    value_ = 1.0 + 0.25 * index().x;
  }
  void pup(vela::pup::Archive& ar) override { ar | steps_ | each_ | step_ | value_; }
  void start() { advance(); }
  void resume_from_sync() override { advance(); }

 private:
  void advance() {
    value_ = value_ * 1.0625 + 0.001 * (index().x + 1);
    ++step_;
    contribute({value_}, vela::rt::ReduceOp::sum, each_);
    if (step_ < steps_) at_sync();
  }

  std::int32_t steps_ = 0;
  vela::rt::Callback each_;
  std::int32_t step_ = 0;
  double value_ = 0.0;
};

struct Outcome {
  std::vector<double> sums;  // the per-step sums main received, in order
  vela::rt::RunStats stats;
};

Outcome run_steppers(vela::rt::Options o, std::int32_t steps = 7, std::int32_t elements = 13) {
  o.pin = false;
  Outcome out;
  vela::rt::Runtime runtime(o);
  runtime.run([&](vela::rt::Context& ctx) {
    auto each = ctx.callback([&](const std::vector<double>& v) { out.sums.push_back(v.at(0)); });
    auto steppers = ctx.create<Stepper>("steppers", vela::rt::Shape::line(elements),
                                        vela::rt::InitialMap::block, steps, each);
    if (!ctx.restarted()) steppers.broadcast<&Stepper::start>();
  });
  out.stats = runtime.stats();
  return out;
}

vela::rt::Options options(int pes, const std::string& lb = "") {
  vela::rt::Options o;
  o.pes = pes;
  o.lb = lb;
  return o;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("vela-checkpoint-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

std::uint64_t bits(double v) {
  return std::bit_cast<std::uint64_t>(v);
}

TEST(Checkpoint, RestartOnAnotherPeCountGivesTheUninterruptedRunsResults) {
  const Outcome whole = run_steppers(options(2));
  ASSERT_EQ(whole.sums.size(), 7u);
  for (const auto& [write_pes, read_pes] : {std::pair{3, 2}, std::pair{1, 4}, std::pair{2, 1}}) {
    const fs::path dir = fresh_dir("pes");
    vela::rt::Options o = options(write_pes, "rotate");  // elements move before they are saved
    o.checkpoint = dir.string();
    o.checkpoint_every = 2;
    const Outcome written = run_steppers(o);
    EXPECT_EQ(written.sums, whole.sums);
    // Sync points 1..6; saved at 2, 4 and 6, each replacing the last.
    EXPECT_EQ(written.stats.checkpoints, 3u);
    EXPECT_TRUE(fs::exists(dir / "steppers.ckpt"));
    EXPECT_FALSE(fs::exists(dir / "steppers.ckpt.tmp"));

    vela::rt::Options r = options(read_pes);
    r.restart = dir.string();
    const Outcome restarted = run_steppers(r);
    EXPECT_EQ(restarted.stats.restored, 13u);
    EXPECT_EQ(restarted.stats.restored_sync, 6u);
    // Only the last step runs again, with the same sum to the bit.
    ASSERT_EQ(restarted.sums.size(), 1u) << write_pes << " -> " << read_pes << " PEs";
    EXPECT_EQ(bits(restarted.sums[0]), bits(whole.sums.back()));
    fs::remove_all(dir);
  }
}

TEST(Checkpoint, ARestartedRunCheckpointsAgainAndCountsSyncPointsOn) {
  const Outcome whole = run_steppers(options(2), 9);
  const fs::path first = fresh_dir("first");
  const fs::path second = fresh_dir("second");
  vela::rt::Options o = options(2);
  o.checkpoint = first.string();
  o.checkpoint_every = 3;
  run_steppers(o, 9);  // saved at sync 3 and 6 (8 sync points)

  vela::rt::Options r = options(3);
  r.restart = first.string();
  r.checkpoint = second.string();
  r.checkpoint_every = 4;
  const Outcome again = run_steppers(r, 9);
  EXPECT_EQ(again.stats.restored_sync, 6u);
  EXPECT_EQ(again.stats.checkpoints, 1u);  // sync 8 of the same count
  ASSERT_EQ(again.sums.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(bits(again.sums[i]), bits(whole.sums[6 + i]));

  vela::rt::Options r2 = options(1);
  r2.restart = second.string();
  const Outcome last = run_steppers(r2, 9);
  EXPECT_EQ(last.stats.restored_sync, 8u);
  ASSERT_EQ(last.sums.size(), 1u);
  EXPECT_EQ(bits(last.sums[0]), bits(whole.sums.back()));
  fs::remove_all(first);
  fs::remove_all(second);
}

// Element 0 sends element 1 a message and then reaches its sync point; element 1 reaches its own
// before that message runs (one PE: system messages overtake entry messages). The checkpoint
// could not hold that message, so it is skipped, with a warning, and the run goes on.
class Sender : public vela::rt::ElementBase {
 public:
  Sender() = default;
  explicit Sender(vela::rt::Callback done) : done_(done) {}
  void pup(vela::pup::Archive& ar) override { ar | done_ | got_; }
  void start() {
    if (index().x == 0) send<&Sender::note>(vela::rt::Index{1, 0, 0}, 5);
    at_sync();
  }
  void note(std::int32_t v) { got_ += v; }
  // The resume overtakes the message still queued; what it sends itself runs after it.
  void resume_from_sync() override { send<&Sender::finish>(index()); }
  void finish() { contribute({static_cast<double>(got_)}, vela::rt::ReduceOp::sum, done_); }

 private:
  vela::rt::Callback done_;
  std::int32_t got_ = 0;
};

TEST(Checkpoint, AMessageInFlightAtTheSyncPointSkipsTheCheckpoint) {
  const fs::path dir = fresh_dir("flight");
  vela::rt::Options o = options(1);
  o.pin = false;
  o.checkpoint = dir.string();
  o.checkpoint_every = 1;
  std::vector<double> total;
  vela::rt::Runtime runtime(o);
  ::testing::internal::CaptureStderr();
  runtime.run([&](vela::rt::Context& ctx) {
    auto done = ctx.callback([&](const std::vector<double>& v) { total = v; });
    auto s =
        ctx.create<Sender>("senders", vela::rt::Shape::line(2), vela::rt::InitialMap::block, done);
    s.broadcast<&Sender::start>();
  });
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(runtime.stats().checkpoints, 0u);
  EXPECT_FALSE(fs::exists(dir / "senders.ckpt"));
  EXPECT_NE(err.find("collection senders, sync point 1: 1 message(s)"), std::string::npos) << err;
  EXPECT_NE(err.find("skipped"), std::string::npos) << err;
  EXPECT_EQ(total, std::vector<double>{5.0});  // the run itself is unaffected
  fs::remove_all(dir);
}

// Writes a checkpoint of 13 steppers at sync point 2 and returns its file.
fs::path written_checkpoint(const std::string& name) {
  const fs::path dir = fresh_dir(name);
  vela::rt::Options o = options(2);
  o.checkpoint = dir.string();
  o.checkpoint_every = 2;
  run_steppers(o, 3);
  return dir / "steppers.ckpt";
}

std::string restart_error(const fs::path& dir, std::int32_t steps = 3, std::int32_t elements = 13) {
  vela::rt::Options r = options(2);
  r.restart = dir.string();
  try {
    const Outcome o = run_steppers(r, steps, elements);
    return "no error; " + std::to_string(o.sums.size()) + " sums";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::vector<char> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const fs::path& p, const std::vector<char>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// 64-bit FNV-1a as docs/checkpoint-format.md specifies it, from `basis`.
std::uint64_t fnv1a(const char* data, std::size_t n,
                    std::uint64_t basis = 14695981039346656037ull) {
  std::uint64_t h = basis;
  for (std::size_t i = 0; i < n; ++i)
    h = (h ^ static_cast<unsigned char>(data[i])) * 1099511628211ull;
  return h;
}

// The trailer is FNV-1a of the body with the standard parameters (a checker written from the
// document accepts real files), and files of version 1, whose checksum started from a basis
// one digit short, are still read.
TEST(Checkpoint, TheChecksumIsStandardFnv1aAndVersionOneFilesAreRead) {
  // The reference itself, against FNV's published test vectors.
  ASSERT_EQ(fnv1a("", 0), 0xcbf29ce484222325ull);
  ASSERT_EQ(fnv1a("a", 1), 0xaf63dc4c8601ec8cull);
  ASSERT_EQ(fnv1a("foobar", 6), 0x85944171f73967e8ull);

  const fs::path file = written_checkpoint("fnv");
  const fs::path dir = file.parent_path();
  std::vector<char> bytes = read_all(file);
  ASSERT_GT(bytes.size(), 28u);
  std::uint32_t version = 0;
  std::memcpy(&version, bytes.data() + 8, 4);
  EXPECT_EQ(version, 2u);
  const std::size_t body = bytes.size() - 28;
  std::uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + 20 + body, 8);
  EXPECT_EQ(stored, fnv1a(bytes.data() + 20, body));

  // The same body as version 1 wrote it.
  version = 1;
  std::memcpy(bytes.data() + 8, &version, 4);
  const std::uint64_t old = fnv1a(bytes.data() + 20, body, 1469598103934665603ull);
  std::memcpy(bytes.data() + 20 + body, &old, 8);
  write_all(file, bytes);
  EXPECT_EQ(restart_error(dir), "no error; 1 sums");
  // A version 1 file with the standard checksum is corrupted, and an unknown version refused.
  std::memcpy(bytes.data() + 20 + body, &stored, 8);
  write_all(file, bytes);
  EXPECT_NE(restart_error(dir).find("corrupted"), std::string::npos);
  version = 3;
  std::memcpy(bytes.data() + 8, &version, 4);
  write_all(file, bytes);
  EXPECT_NE(restart_error(dir).find("reads versions 1 to 2"), std::string::npos);
  fs::remove_all(dir);
}

// A writer killed while writing leaves NAME.ckpt.tmpPID behind; the next checkpoint (and a
// restart) removes it when that process is gone, and leaves a live writer's alone (issue 36,
// finding 8).
TEST(Checkpoint, TemporariesOfDeadWritersAreRemoved) {
  const fs::path dir = fresh_dir("stale");
  fs::create_directories(dir);
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);  // gone (and reaped)
  const fs::path stale = dir / ("steppers.ckpt.tmp" + std::to_string(dead));
  const fs::path live = dir / ("steppers.ckpt.tmp" + std::to_string(::getppid()));
  const fs::path other = dir / "notes.txt.tmp1";
  for (const fs::path& p : {stale, live, other}) write_all(p, std::vector<char>(100, 'x'));
  vela::rt::Options o = options(2);
  o.checkpoint = dir.string();
  o.checkpoint_every = 2;
  run_steppers(o, 3);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(other));
  // At a restart too.
  write_all(stale, std::vector<char>(100, 'x'));
  EXPECT_EQ(restart_error(dir), "no error; 1 sums");
  EXPECT_FALSE(fs::exists(stale));
  fs::remove_all(dir);
}

TEST(Checkpoint, ACorruptedOrTruncatedCheckpointIsRefusedNamingTheFile) {
  const fs::path file = written_checkpoint("bad");
  const fs::path dir = file.parent_path();
  const std::vector<char> good = read_all(file);
  ASSERT_GT(good.size(), 100u);
  const std::string name = file.string();

  // Every single flipped byte is caught: in the header, the body or the checksum.
  for (std::size_t at = 0; at < good.size(); at += std::max<std::size_t>(1, good.size() / 31)) {
    std::vector<char> bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    write_all(file, bad);
    const std::string e = restart_error(dir);
    EXPECT_NE(e.find(name), std::string::npos) << "byte " << at << ": " << e;
    EXPECT_EQ(e.find("no error"), std::string::npos) << "byte " << at << ": " << e;
  }
  std::vector<char> bad = good;
  bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 1);
  write_all(file, bad);
  EXPECT_NE(restart_error(dir).find("corrupted"), std::string::npos);

  for (const std::size_t keep :
       {std::size_t{0}, std::size_t{10}, good.size() / 2, good.size() - 1}) {
    write_all(file,
              std::vector<char>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(keep)));
    const std::string e = restart_error(dir);
    EXPECT_NE(e.find("truncated"), std::string::npos) << keep << " bytes: " << e;
    EXPECT_NE(e.find(name), std::string::npos) << e;
  }
  std::vector<char> longer = good;
  longer.push_back('x');
  write_all(file, longer);
  EXPECT_NE(restart_error(dir).find("extended"), std::string::npos);

  write_all(file, std::vector<char>(200, 'z'));
  EXPECT_NE(restart_error(dir).find("not a Vela checkpoint"), std::string::npos);

  // The good file again, restarted with another problem: refused, not silently mixed.
  write_all(file, good);
  EXPECT_EQ(restart_error(dir), "no error; 1 sums");
  EXPECT_NE(restart_error(dir, 4).find("other arguments"), std::string::npos);
  EXPECT_NE(restart_error(dir, 3, 12).find("shape (12)"), std::string::npos);
  fs::remove(file);
  EXPECT_NE(restart_error(dir).find("no checkpoint file"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Checkpoint, OptionsAreChecked) {
  vela::rt::Options o = options(1);
  o.checkpoint = "somewhere";
  try {
    vela::rt::Runtime runtime(o);
    FAIL() << "--checkpoint without --checkpoint-every accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--checkpoint-every"), std::string::npos) << e.what();
  }
  o.checkpoint.clear();
  o.checkpoint_every = 3;
  EXPECT_THROW(vela::rt::Runtime{o}, std::invalid_argument);
}

}  // namespace
