// Between processes (run under mpirun -np 2): one-way latency and bandwidth of Vela's entry
// messages between an element on the first process's PE and one on the last process's PE,
// beside Open MPI's own ping-pong between the same two processes in the same run (the floor).
// The payload is a std::vector<std::byte>, and in the default mode also a
// vela::rt::Buffer<std::byte> (received without being zero-filled first).
//
//   mpirun -np 2 build/bench/distribution_bench [--reps N] [--bytes N (one size only)]
//                                               [--mode pe|thread|both|pe-shm]
//                                               [--rounds N (per timing)]
// --mode pe-shm times only the default (PEs calling MPI, shared-memory rings), and --rounds
// lengthens each timing: together, a steady run to profile.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "vela/rt/buffer.hpp"
#include "vela/rt/runtime.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Raw MPI ping-pong between world ranks 0 and 1: µs one way.
double mpi_pingpong_us(std::size_t bytes, int rounds) {
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  std::vector<std::byte> buffer(bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = Clock::now();
  for (int i = 0; i < rounds; ++i) {
    if (me == 0) {
      MPI_Send(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    } else if (me == 1) {
      MPI_Recv(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  double us = s * 1e6 / (2.0 * rounds);
  MPI_Bcast(&us, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return us;
}

// Two elements, on the first and the last PE, bounce a vector of `bytes` bytes.
struct Player : vela::rt::ElementBase {
  Player() = default;
  Player(std::int32_t rounds, vela::rt::Callback done) : rounds_(rounds), done_(done) {}
  void pup(vela::pup::Archive& ar) override { ar | rounds_ | done_; }
  void ball(std::int32_t round, std::vector<std::byte> data) {
    bounce<&Player::ball>(round, std::move(data));
  }
  void ball_buffer(std::int32_t round, vela::rt::Buffer<std::byte> data) {
    bounce<&Player::ball_buffer>(round, std::move(data));
  }
  template <auto Method, class Payload>
  void bounce(std::int32_t round, Payload data) {
    if (index().x == 0 && round == rounds_) {
      contribute({}, vela::rt::ReduceOp::sum, done_);
      send<&Player::stop>(vela::rt::Index{1, 0, 0});
      return;
    }
    const std::int32_t next = index().x == 0 ? round + 1 : round;
    send<Method>(vela::rt::Index{1 - index().x, 0, 0}, next, std::move(data));
  }
  void stop() { contribute({}, vela::rt::ReduceOp::sum, done_); }
  std::int32_t rounds_ = 0;
  vela::rt::Callback done_;
};

// µs one way through Vela (process 0 measures; the others return 0).
double vela_pingpong_us(std::size_t bytes, int rounds, vela::rt::MpiProgress progress, bool shm,
                        bool buffer = false) {
  vela::rt::Options o;
  o.pin = false;
  o.mpi_progress = progress;
  o.mpi_shm = shm;
  vela::rt::Runtime runtime(o);
  Clock::time_point t0, t1;
  runtime.run([&](vela::rt::Context& ctx) {
    const vela::rt::Callback done =
        ctx.callback([&](const std::vector<double>&) { t1 = Clock::now(); });
    const vela::rt::PeId last = ctx.pes() - 1;
    auto players = ctx.create<Player>(
        "players", vela::rt::Shape::line(2),
        [last](const vela::rt::Index& i, const vela::rt::Shape&, vela::rt::PeId) {
          return i.x == 0 ? 0 : last;
        },
        rounds, done);
    t0 = Clock::now();
    if (buffer) {
      vela::rt::Buffer<std::byte> data(bytes);
      std::fill(data.begin(), data.end(), std::byte{1});
      players[0].send<&Player::ball_buffer>(0, std::move(data));
    } else {
      players[0].send<&Player::ball>(0, std::vector<std::byte>(bytes));
    }
  });
  double us = std::chrono::duration<double>(t1 - t0).count() * 1e6 / (2.0 * rounds);
  MPI_Bcast(&us, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  std::size_t only = 0;        // --bytes N: that size only
  std::string modes = "both";  // --mode pe|thread|both|pe-shm: which progress modes to time
  int rounds_given = 0;        // --rounds N: round trips per timing (default by size)
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--reps") reps = std::max(1, std::atoi(argv[i + 1]));
    if (std::string(argv[i]) == "--bytes") only = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::string(argv[i]) == "--mode") modes = argv[i + 1];
    if (std::string(argv[i]) == "--rounds") rounds_given = std::atoi(argv[i + 1]);
  }
  if (modes != "pe" && modes != "thread" && modes != "both" && modes != "pe-shm") {
    fmt::print(stderr, "distribution_bench: --mode '{}': expected pe, thread, both or pe-shm\n",
               modes);
    return 1;
  }
  if (rounds_given < 0) {
    fmt::print(stderr, "distribution_bench: --rounds {}: expected a positive count\n",
               rounds_given);
    return 1;
  }
  // The runtime initializes MPI (MPI_THREAD_MULTIPLE) when it is launched by mpirun.
  { vela::rt::Runtime probe(vela::rt::Options{}); }
  int initialized = 0;
  MPI_Initialized(&initialized);
  int size = 1, me = 0;
  if (initialized != 0) {
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
  }
  if (size < 2) {
    fmt::print(stderr, "distribution_bench: run it under mpirun with 2 processes or more\n");
    return 1;
  }
  if (me == 0) {
    fmt::print("# distribution_bench: {} processes, best of {}\n\n", size, reps);
    fmt::print(
        "One-way µs (MB/s in brackets): Open MPI's ping-pong; Vela with the PEs calling MPI "
        "(pe) and with a communication thread (thread), each through the shared-memory rings "
        "(shm, the default on one machine) and by MPI only (--no-shm); the ratios are of the "
        "default, pe with shm; Buffer: pe with shm, the payload a vela::rt::Buffer instead of a "
        "std::vector.\n\n");
    fmt::print(
        "| bytes | Open MPI | pe shm | Buffer | pe MPI | thread shm | thread MPI | pe shm / Open "
        "MPI | Buffer / Open MPI | pe shm bandwidth / Open MPI | Buffer bandwidth / Open MPI |\n");
    fmt::print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  }
  for (std::size_t bytes : {std::size_t{8}, std::size_t{1024}, std::size_t{8192},
                            std::size_t{65536}, std::size_t{1} << 20}) {
    if (only != 0 && bytes != only) continue;
    const int rounds = rounds_given > 0      ? rounds_given
                       : bytes >= (1u << 20) ? 200
                       : bytes >= 65536      ? 1000
                                             : 5000;
    double mpi = 1e300;
    double vela[2][2] = {{1e300, 1e300}, {1e300, 1e300}};  // [pe, thread][shm, MPI]
    double buffer = 1e300;                                 // pe, shm, a Buffer payload
    for (int r = 0; r < reps; ++r) {
      mpi = std::min(mpi, mpi_pingpong_us(bytes, rounds));
      for (int m = 0; m < 2; ++m) {
        if ((m == 0 && modes == "thread") || (m == 1 && modes.starts_with("pe"))) continue;
        const auto progress = m == 0 ? vela::rt::MpiProgress::pe : vela::rt::MpiProgress::thread;
        for (int shm = 0; shm < (modes == "pe-shm" ? 1 : 2); ++shm) {
          vela[m][shm] =
              std::min(vela[m][shm], vela_pingpong_us(bytes, rounds, progress, shm == 0));
        }
        if (m == 0 && modes != "pe-shm") {
          buffer = std::min(buffer, vela_pingpong_us(bytes, rounds, progress, true, true));
        }
      }
    }
    if (me == 0) {
      // A mode left out (--mode) prints as "-".
      auto time = [bytes](double us) {
        return us > 1e299 ? std::string("-")
                          : fmt::format("{:.2f} ({:.0f})", us, static_cast<double>(bytes) / us);
      };
      auto ratio = [](double a, double b) {
        return a > 1e299 || b > 1e299 ? std::string("-") : fmt::format("{:.2f}", a / b);
      };
      fmt::print("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", bytes, time(mpi),
                 time(vela[0][0]), time(buffer), time(vela[0][1]), time(vela[1][0]),
                 time(vela[1][1]), ratio(vela[0][0], mpi), ratio(buffer, mpi),
                 ratio(mpi, vela[0][0]), ratio(mpi, buffer));
    }
  }
  return 0;
}
