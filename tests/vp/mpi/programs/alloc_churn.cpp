// Memory allocation in ranks: each rank allocates blocks from 16 B to 4 MiB (malloc, calloc,
// realloc, new[], std::vector), checks and frees most of them at once and keeps the rest across
// MPI_Migrate, to check and free them wherever the rank moved (another PE, another process: a
// block freed by another PE's thread, or in the per-rank heap copied there). The checksum of
// what was read back must not depend on where the ranks ran. Then the limits, as C and C++ say:
// a 1 GiB block is given or refused (malloc's nullptr, new's std::bad_alloc), never a crash;
// with "exhaust", a rank allocates 1 MiB blocks until refused (a rank heap's end), frees them
// and allocates again.
//   alloc_churn [STEPS [exhaust]]
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace {

struct Block {
  unsigned char* p;
  std::size_t size;
  std::uint8_t seed;
  bool array_new;
};

std::uint64_t lcg(std::uint64_t& state) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return state >> 33;
}

void fill(const Block& b) {
  for (std::size_t i = 0; i + 1 < b.size; i += 61) b.p[i] = static_cast<unsigned char>(b.seed + i);
  b.p[b.size - 1] = b.seed;
}

// The sum of the block's checked bytes; aborts the job on a byte that changed.
std::uint64_t check_and_free(const Block& b, int rank) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i + 1 < b.size; i += 61) {
    const auto want = static_cast<unsigned char>(b.seed + i);
    if (b.p[i] != want) {
      std::printf("rank %d: byte %zu of a block of %zu changed\n", rank, i, b.size);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    sum += want;
  }
  if (b.p[b.size - 1] != b.seed) MPI_Abort(MPI_COMM_WORLD, 3);
  if (b.array_new) {
    delete[] b.p;
  } else {
    std::free(b.p);
  }
  return sum + b.size;
}

Block allocate(std::uint64_t& state, int k) {
  const std::size_t size = (std::size_t{16} << (lcg(state) % 19)) + lcg(state) % 13;
  Block b{nullptr, size, static_cast<std::uint8_t>(lcg(state)), false};
  switch (k % 4) {
    case 0:
      b.p = static_cast<unsigned char*>(std::malloc(size));
      break;
    case 1:
      b.p = static_cast<unsigned char*>(std::calloc(size, 1));
      break;
    case 2: {
      // Grown by realloc from a quarter of its size: the first quarter must survive.
      auto* q = static_cast<unsigned char*>(std::malloc(size / 4 + 1));
      if (q != nullptr) std::memset(q, 0x5a, size / 4 + 1);
      b.p = static_cast<unsigned char*>(std::realloc(q, size));
      if (b.p != nullptr && b.p[size / 4] != 0x5a) MPI_Abort(MPI_COMM_WORLD, 4);
      break;
    }
    default:
      b.p = new unsigned char[size];
      b.array_new = true;
  }
  if (b.p == nullptr) MPI_Abort(MPI_COMM_WORLD, 5);
  fill(b);
  return b;
}

// Shows the compiler that `p` is used, so that it cannot elide a 1 GiB block's allocation (no
// global to store it in: the ranks share the program's globals in builds without images).
void keep(void* p) {
  asm volatile("" : : "r"(p) : "memory");
}

const char* one_gib_malloc() {
  void* p = std::malloc(std::size_t{1} << 30);
  keep(p);
  if (p == nullptr) return "nullptr";
  static_cast<unsigned char*>(p)[0] = 1;
  static_cast<unsigned char*>(p)[(std::size_t{1} << 30) - 1] = 1;
  std::free(p);
  return "given";
}

const char* one_gib_new() {
  try {
    auto* p = new unsigned char[std::size_t{1} << 30];
    keep(p);
    p[0] = 1;
    delete[] p;
    return "given";
  } catch (const std::bad_alloc&) {
    return "bad_alloc";
  }
}

// 1 MiB blocks until one is refused (at most 4096: 4 GiB), all freed, then one more.
void exhaust(int rank) {
  std::vector<void*> blocks;
  blocks.reserve(4096);
  bool refused = false;
  while (blocks.size() < 4096) {
    void* p = std::malloc(std::size_t{1} << 20);
    if (p == nullptr) {
      refused = true;
      break;
    }
    blocks.push_back(p);
  }
  const std::size_t count = blocks.size();
  for (void* p : blocks) std::free(p);
  void* again = std::malloc(std::size_t{1} << 20);
  std::printf("rank %d: exhaustion: %s after %zu blocks of 1 MiB, then %s\n", rank,
              refused ? "refused" : "not reached", count,
              again != nullptr ? "given again" : "still refused");
  std::free(again);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int steps = argc > 1 ? std::atoi(argv[1]) : 6;
  const bool exhaustion = argc > 2 && std::strcmp(argv[2], "exhaust") == 0;
  std::uint64_t state = 12345u + 977u * static_cast<std::uint64_t>(rank);
  std::uint64_t checksum = 0;
  std::size_t blocks = 0;
  std::vector<Block> kept;  // allocated before the last MPI_Migrate
  for (int step = 0; step < steps; ++step) {
    std::vector<Block> fresh;
    for (int k = 0; k < 48; ++k) fresh.push_back(allocate(state, k));
    blocks += fresh.size();
    for (const Block& b : kept) checksum += check_and_free(b, rank);
    kept.clear();
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      if (i % 3 == 0) {
        kept.push_back(fresh[i]);
      } else {
        checksum += check_and_free(fresh[i], rank);
      }
    }
    MPI_Migrate();
  }
  for (const Block& b : kept) checksum += check_and_free(b, rank);
  std::uint64_t total = 0;
  MPI_Reduce(&checksum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  std::printf("rank %d: %zu blocks checked and freed\n", rank, blocks);
  if (rank == 0) std::printf("checksum: %llu\n", static_cast<unsigned long long>(total));
  const char* by_malloc = one_gib_malloc();
  const char* by_new = one_gib_new();
  std::printf("rank %d: 1 GiB by malloc: %s, by new: %s\n", rank, by_malloc, by_new);
  if (exhaustion) exhaust(rank);
  MPI_Finalize();
  return 0;
}
