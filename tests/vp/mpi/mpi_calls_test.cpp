// Every call of vela/mpi.h, in process: each test runs a small MPI "program" (a function with
// main's signature) on ranks through vela::mpi::run and checks what the calls returned.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "vela/mpi/run.hpp"
#define VELA_MPI_NO_MAIN  // the test keeps gtest's main
#include "vela/mpi.h"

namespace {

using ::testing::HasSubstr;

struct Outcome {
  int code = -1;      // what vela::mpi::run returned
  std::string error;  // the message of the vp::Error it threw, if any
};

Outcome run_mpi(int ranks, vela::mpi::Main main, const std::vector<std::string>& args = {},
                const std::string& lb = "") {
  vela::rt::Options options;
  options.pes = 2;
  options.pin = false;
  options.lb = lb;
  vela::vp::Options rank_options;
  rank_options.ranks = ranks;
  std::vector<std::string> words{"mpi_calls_test"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  vela::rt::Runtime runtime(options);
  Outcome outcome;
  try {
    outcome.code =
        vela::mpi::run(runtime, rank_options, main, static_cast<int>(words.size()), argv.data());
  } catch (const vela::vp::Error& e) {
    outcome.error = e.what();
  }
  return outcome;
}

int rank_of_world() {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int size_of_world() {
  int size = -1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

std::atomic<int> ranks_done{0};

// ---- setup and environment ----

TEST(MpiCalls, InitRankSizeAndFinalize) {
  ranks_done = 0;
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    int flag = -1;
    EXPECT_EQ(MPI_Initialized(&flag), MPI_SUCCESS);
    EXPECT_EQ(flag, 0);
    EXPECT_EQ(MPI_Init(&argc, &argv), MPI_SUCCESS);
    MPI_Initialized(&flag);
    EXPECT_EQ(flag, 1);
    const int rank = rank_of_world();
    EXPECT_GE(rank, 0);
    EXPECT_LT(rank, 4);
    EXPECT_EQ(size_of_world(), 4);
    MPI_Finalized(&flag);
    EXPECT_EQ(flag, 0);
    EXPECT_EQ(MPI_Finalize(), MPI_SUCCESS);
    MPI_Finalized(&flag);
    EXPECT_EQ(flag, 1);
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(ranks_done, 4);
}

TEST(MpiCalls, InitThreadAndEnvironment) {
  ranks_done = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    int provided = -1;
    EXPECT_EQ(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
    EXPECT_EQ(provided, MPI_THREAD_FUNNELED);
    int queried = -1;
    MPI_Query_thread(&queried);
    EXPECT_EQ(queried, MPI_THREAD_FUNNELED);
    int version = 0;
    int subversion = -1;
    MPI_Get_version(&version, &subversion);
    EXPECT_EQ(version, MPI_VERSION);
    EXPECT_EQ(subversion, MPI_SUBVERSION);
    const double t0 = MPI_Wtime();
    const double t1 = MPI_Wtime();
    EXPECT_GE(t0, 0.0);
    EXPECT_GE(t1, t0);
    EXPECT_GT(MPI_Wtick(), 0.0);
    char name[MPI_MAX_PROCESSOR_NAME];
    int length = -1;
    MPI_Get_processor_name(name, &length);
    EXPECT_GT(length, 0);
    EXPECT_EQ(static_cast<int>(std::strlen(name)), length);
    int size = 0;
    MPI_Type_size(MPI_INT, &size);
    EXPECT_EQ(size, 4);
    MPI_Type_size(MPI_DOUBLE_INT, &size);
    EXPECT_EQ(size, 16);
    MPI_Type_size(MPI_LONG_DOUBLE, &size);
    EXPECT_EQ(size, static_cast<int>(sizeof(long double)));
    char text[MPI_MAX_ERROR_STRING];
    MPI_Error_string(MPI_ERR_RANK, text, &length);
    EXPECT_THAT(std::string(text), HasSubstr("rank"));
    EXPECT_EQ(MPI_Pcontrol(1), MPI_SUCCESS);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

TEST(MpiCalls, EachRankHasItsOwnArgv) {
  ranks_done = 0;
  const Outcome o = run_mpi(3,
                            [](int argc, char** argv) {
                              MPI_Init(&argc, &argv);
                              EXPECT_EQ(argc, 3);
                              EXPECT_STREQ(argv[0], "mpi_calls_test");
                              EXPECT_STREQ(argv[1], "-n");
                              EXPECT_STREQ(argv[2], "5");
                              EXPECT_EQ(argv[3], nullptr);
                              // A rank that changes its arguments changes only its own.
                              argv[1][1] = static_cast<char>('a' + rank_of_world());
                              MPI_Barrier(MPI_COMM_WORLD);
                              EXPECT_EQ(argv[1][1], static_cast<char>('a' + rank_of_world()));
                              MPI_Finalize();
                              ++ranks_done;
                              return 0;
                            },
                            {"-n", "5"});
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 3);
}

// ---- point to point ----

TEST(MpiCalls, SendRecvWithTagsStatusAndCount) {
  ranks_done = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    if (rank_of_world() == 0) {
      const int a[3] = {1, 2, 3};
      const double b[2] = {0.5, 1.5};
      MPI_Send(a, 3, MPI_INT, 1, 5, MPI_COMM_WORLD);
      MPI_Send(b, 2, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
      MPI_Send(nullptr, 0, MPI_BYTE, 1, 9, MPI_COMM_WORLD);
    } else {
      // By tag: the second message first.
      double b[4] = {};
      MPI_Status status;
      MPI_Recv(b, 4, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &status);
      EXPECT_EQ(b[0], 0.5);
      EXPECT_EQ(b[1], 1.5);
      EXPECT_EQ(status.MPI_SOURCE, 0);
      EXPECT_EQ(status.MPI_TAG, 7);
      EXPECT_EQ(status.MPI_ERROR, MPI_SUCCESS);
      int count = -1;
      MPI_Get_count(&status, MPI_DOUBLE, &count);
      EXPECT_EQ(count, 2);
      MPI_Get_count(&status, MPI_INT, &count);
      EXPECT_EQ(count, 4);
      MPI_Get_count(&status, MPI_DOUBLE_INT, &count);
      EXPECT_EQ(count, 1);  // counted in bytes: 16 bytes are one {double, int}
      int a[8] = {};
      MPI_Recv(a, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      EXPECT_EQ(a[2], 3);
      EXPECT_EQ(status.MPI_SOURCE, 0);
      EXPECT_EQ(status.MPI_TAG, 5);
      MPI_Get_count(&status, MPI_INT, &count);
      EXPECT_EQ(count, 3);
      MPI_Get_count(&status, MPI_DOUBLE, &count);
      EXPECT_EQ(count, MPI_UNDEFINED);  // 12 bytes are no whole number of doubles
      MPI_Recv(nullptr, 0, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &status);
      MPI_Get_count(&status, MPI_BYTE, &count);
      EXPECT_EQ(count, 0);
    }
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

// The predefined types vp has no element for go as their bytes (complex, {value, index} pairs,
// REAL*16): a message of them arrives whole, and its count is in the type's elements.
TEST(MpiCalls, ComplexAndPairTypesTravelWhole) {
  ranks_done = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = rank_of_world();
    struct FloatInt {
      float value;
      int index;
    };
    float complex_values[6] = {1, 2, 3, 4, 5, 6};
    FloatInt pairs[3] = {{1.5F, 7}, {2.5F, 8}, {3.5F, 9}};
    double quads[4] = {0.25, -0.5, 8.0, 16.0};  // two REAL*16's bytes
    if (me == 0) {
      MPI_Send(complex_values, 3, MPI_COMPLEX, 1, 1, MPI_COMM_WORLD);
      MPI_Send(pairs, 3, MPI_FLOAT_INT, 1, 2, MPI_COMM_WORLD);
      MPI_Send(quads, 2, MPI_REAL16, 1, 3, MPI_COMM_WORLD);
    } else {
      float c[6] = {};
      FloatInt p[3] = {};
      double q[4] = {};
      MPI_Status status;
      int count = -1;
      MPI_Recv(c, 3, MPI_COMPLEX, 0, 1, MPI_COMM_WORLD, &status);
      MPI_Get_count(&status, MPI_COMPLEX, &count);
      EXPECT_EQ(count, 3);
      for (int i = 0; i < 6; ++i) EXPECT_EQ(c[i], complex_values[i]) << i;
      MPI_Recv(p, 3, MPI_FLOAT_INT, 0, 2, MPI_COMM_WORLD, &status);
      MPI_Get_count(&status, MPI_FLOAT_INT, &count);
      EXPECT_EQ(count, 3);
      EXPECT_EQ(p[2].value, 3.5F);
      EXPECT_EQ(p[2].index, 9);
      MPI_Recv(q, 2, MPI_REAL16, 0, 3, MPI_COMM_WORLD, &status);
      MPI_Get_count(&status, MPI_REAL16, &count);
      EXPECT_EQ(count, 2);
      EXPECT_EQ(q[3], 16.0);
    }
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

TEST(MpiCalls, AnySourceAndAnyTag) {
  ranks_done = 0;
  const Outcome o = run_mpi(5, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = rank_of_world();
    if (rank != 0) {
      const int value = rank * 10;
      MPI_Send(&value, 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
    } else {
      std::set<int> sources;
      for (int i = 1; i < 5; ++i) {
        int value = 0;
        MPI_Status status;
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        EXPECT_EQ(value, status.MPI_SOURCE * 10);
        EXPECT_EQ(status.MPI_TAG, 100 + status.MPI_SOURCE);
        sources.insert(status.MPI_SOURCE);
      }
      EXPECT_EQ(sources, (std::set<int>{1, 2, 3, 4}));
    }
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 5);
}

TEST(MpiCalls, ProcNullCompletesAtOnce) {
  ranks_done = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int x = 1;
    MPI_Status status;
    MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &status);
    EXPECT_EQ(status.MPI_SOURCE, MPI_PROC_NULL);
    EXPECT_EQ(status.MPI_TAG, MPI_ANY_TAG);
    int count = -1;
    MPI_Get_count(&status, MPI_INT, &count);
    EXPECT_EQ(count, 0);
    MPI_Request requests[2];
    MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &requests[1]);
    MPI_Status statuses[2];
    MPI_Waitall(2, requests, statuses);
    EXPECT_EQ(statuses[0].MPI_SOURCE, MPI_PROC_NULL);
    EXPECT_EQ(requests[0], MPI_REQUEST_NULL);
    EXPECT_EQ(requests[1], MPI_REQUEST_NULL);
    EXPECT_EQ(x, 1);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

TEST(MpiCalls, NonBlockingWaitWaitallWaitanyTest) {
  ranks_done = 0;
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = rank_of_world();
    const int size = size_of_world();
    const int right = (rank + 1) % size;
    const int left = (rank + size - 1) % size;

    // Waitall: a shift to both sides.
    int from_left = -1;
    int from_right = -1;
    MPI_Request requests[4];
    MPI_Irecv(&from_left, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(&from_right, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(&rank, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(&rank, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &requests[3]);
    MPI_Status statuses[4];
    MPI_Waitall(4, requests, statuses);
    EXPECT_EQ(from_left, left);
    EXPECT_EQ(from_right, right);
    EXPECT_EQ(statuses[0].MPI_SOURCE, left);
    EXPECT_EQ(statuses[1].MPI_TAG, 2);
    for (MPI_Request r : requests) EXPECT_EQ(r, MPI_REQUEST_NULL);

    // Waitany: both arrive, in some order, then none is left.
    MPI_Irecv(&from_left, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(&from_right, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &requests[1]);
    MPI_Send(&rank, 1, MPI_INT, right, 3, MPI_COMM_WORLD);
    MPI_Send(&rank, 1, MPI_INT, left, 4, MPI_COMM_WORLD);
    std::set<int> indices;
    for (int k = 0; k < 2; ++k) {
      int index = -1;
      MPI_Status status;
      MPI_Waitany(2, requests, &index, &status);
      EXPECT_TRUE(index == 0 || index == 1) << index;
      if (index != 0 && index != 1) break;
      EXPECT_EQ(status.MPI_SOURCE, index == 0 ? left : right);
      EXPECT_EQ(requests[index], MPI_REQUEST_NULL);
      indices.insert(index);
    }
    EXPECT_EQ(indices, (std::set<int>{0, 1}));
    int index = 0;
    MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
    EXPECT_EQ(index, MPI_UNDEFINED);

    // Test: polls until the message is there; Wait: a null request completes at once.
    int value = -1;
    MPI_Request request;
    MPI_Irecv(&value, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &request);
    MPI_Barrier(MPI_COMM_WORLD);  // nobody has sent tag 5 yet
    int flag = -1;
    MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    EXPECT_EQ(flag, 0);
    EXPECT_NE(request, MPI_REQUEST_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    const int message = 1000 + rank;
    MPI_Send(&message, 1, MPI_INT, right, 5, MPI_COMM_WORLD);
    MPI_Status status;
    while (flag == 0) {
      MPI_Yield();
      MPI_Test(&request, &flag, &status);
    }
    EXPECT_EQ(value, 1000 + left);
    EXPECT_EQ(status.MPI_SOURCE, left);
    EXPECT_EQ(request, MPI_REQUEST_NULL);
    MPI_Wait(&request, &status);
    EXPECT_EQ(status.MPI_SOURCE, MPI_ANY_SOURCE);
    MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    EXPECT_EQ(flag, 1);

    // Wait on a real request.
    MPI_Irecv(&value, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &request);
    MPI_Send(&message, 1, MPI_INT, left, 6, MPI_COMM_WORLD);
    MPI_Wait(&request, &status);
    EXPECT_EQ(value, 1000 + right);
    EXPECT_EQ(status.MPI_TAG, 6);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}

TEST(MpiCalls, SendrecvAndSendrecvReplace) {
  ranks_done = 0;
  const Outcome o = run_mpi(3, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = rank_of_world();
    const int right = (rank + 1) % 3;
    const int left = (rank + 2) % 3;
    double out[2] = {rank + 0.25, rank + 0.5};
    double in[2] = {};
    MPI_Status status;
    MPI_Sendrecv(out, 2, MPI_DOUBLE, right, 8, in, 2, MPI_DOUBLE, left, 8, MPI_COMM_WORLD, &status);
    EXPECT_EQ(in[0], left + 0.25);
    EXPECT_EQ(in[1], left + 0.5);
    EXPECT_EQ(status.MPI_SOURCE, left);
    long buffer[3] = {rank, rank * 2L, rank * 3L};
    MPI_Sendrecv_replace(buffer, 3, MPI_LONG, left, 9, right, 9, MPI_COMM_WORLD, &status);
    EXPECT_EQ(buffer[2], right * 3L);
    EXPECT_EQ(status.MPI_TAG, 9);
    // The rod's ends: one side is MPI_PROC_NULL.
    int edge = -1;
    const int mine = rank;
    MPI_Sendrecv(&mine, 1, MPI_INT, rank < 2 ? rank + 1 : MPI_PROC_NULL, 10, &edge, 1, MPI_INT,
                 rank > 0 ? rank - 1 : MPI_PROC_NULL, 10, MPI_COMM_WORLD, &status);
    EXPECT_EQ(edge, rank > 0 ? rank - 1 : -1);
    EXPECT_EQ(status.MPI_SOURCE, rank > 0 ? rank - 1 : MPI_PROC_NULL);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 3);
}

TEST(MpiCalls, ProbeAndIprobe) {
  ranks_done = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    if (rank_of_world() == 1) {
      const short values[5] = {1, 2, 3, 4, 5};
      MPI_Send(values, 5, MPI_SHORT, 0, 3, MPI_COMM_WORLD);
      MPI_Send(values, 2, MPI_SHORT, 0, 4, MPI_COMM_WORLD);
    } else {
      int flag = -1;
      MPI_Status status;
      MPI_Iprobe(1, 99, MPI_COMM_WORLD, &flag, &status);
      EXPECT_EQ(flag, 0);  // never sent
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      EXPECT_EQ(status.MPI_SOURCE, 1);
      EXPECT_EQ(status.MPI_TAG, 3);
      int count = 0;
      MPI_Get_count(&status, MPI_SHORT, &count);
      EXPECT_EQ(count, 5);
      std::vector<short> values(5);
      MPI_Recv(values.data(), count, MPI_SHORT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      EXPECT_EQ(values[4], 5);
      flag = 0;
      while (flag == 0) {
        MPI_Iprobe(1, 4, MPI_COMM_WORLD, &flag, &status);
        if (flag == 0) MPI_Yield();
      }
      MPI_Get_count(&status, MPI_SHORT, &count);
      EXPECT_EQ(count, 2);
      MPI_Recv(values.data(), 2, MPI_SHORT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

// ---- collectives ----

TEST(MpiCalls, BarrierBcastReduceAllreduce) {
  ranks_done = 0;
  const Outcome o = run_mpi(5, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = rank_of_world();
    MPI_Barrier(MPI_COMM_WORLD);

    int values[3] = {rank, rank, rank};
    if (rank == 2) {
      values[0] = 70;
      values[1] = 71;
      values[2] = 72;
    }
    MPI_Bcast(values, 3, MPI_INT, 2, MPI_COMM_WORLD);
    EXPECT_EQ(values[2], 72);

    const int mine[2] = {rank + 1, -rank};
    int sums[2] = {0, 0};
    MPI_Reduce(mine, sums, 2, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD);
    if (rank == 1) {
      EXPECT_EQ(sums[0], 15);
      EXPECT_EQ(sums[1], -10);
    }
    double product = 0.0;
    const double factor = rank + 1.0;
    MPI_Reduce(&factor, &product, 1, MPI_DOUBLE, MPI_PROD, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      EXPECT_EQ(product, 120.0);
    }
    // In place at the root; other ranks' recvbuf does not matter.
    long in_place = rank * 2L;
    MPI_Reduce(rank == 3 ? MPI_IN_PLACE : &in_place, rank == 3 ? &in_place : nullptr, 1, MPI_LONG,
               MPI_MAX, 3, MPI_COMM_WORLD);
    if (rank == 3) {
      EXPECT_EQ(in_place, 8L);
    }

    float smallest = 0;
    const float f = 10.0f - static_cast<float>(rank);
    MPI_Allreduce(&f, &smallest, 1, MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD);
    EXPECT_EQ(smallest, 6.0f);
    int logic[2] = {rank > 0, rank == 4};
    MPI_Allreduce(MPI_IN_PLACE, logic, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    EXPECT_EQ(logic[0], 0);
    MPI_Allreduce(MPI_IN_PLACE, logic + 1, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    EXPECT_EQ(logic[1], 1);
    const unsigned bits = 1u << rank;
    unsigned all_bits = 0;
    MPI_Allreduce(&bits, &all_bits, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD);
    EXPECT_EQ(all_bits, 0x1fu);
    const unsigned char mask = static_cast<unsigned char>(0xff ^ (1 << rank));
    unsigned char common = 0;
    MPI_Allreduce(&mask, &common, 1, MPI_BYTE, MPI_BAND, MPI_COMM_WORLD);
    EXPECT_EQ(common, 0xe0);
    struct {
      double value;
      int index;
    } located = {rank == 3 ? 9.5 : static_cast<double>(rank), rank}, best = {};
    MPI_Allreduce(&located, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    EXPECT_EQ(best.value, 9.5);
    EXPECT_EQ(best.index, 3);
    struct {
      int value;
      int index;
    } pair = {rank == 0 ? 7 : 3, rank}, least = {};
    MPI_Allreduce(&pair, &least, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
    EXPECT_EQ(least.value, 3);
    EXPECT_EQ(least.index, 1);  // ties go to the lower rank
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 5);
}

TEST(MpiCalls, GatherAllgatherScatterAlltoall) {
  ranks_done = 0;
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = rank_of_world();
    const int pair[2] = {rank, rank * rank};

    int gathered[8] = {};
    MPI_Gather(pair, 2, MPI_INT, gathered, 2, MPI_INT, 3, MPI_COMM_WORLD);
    if (rank == 3) {
      for (int r = 0; r < 4; ++r) EXPECT_EQ(gathered[2 * r + 1], r * r);
    }
    // Another receive datatype of the same bytes, and in place at the root.
    unsigned char raw[32] = {};
    MPI_Gather(pair, 2, MPI_INT, raw, 8, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      int third[2];
      std::memcpy(third, raw + 16, sizeof third);
      EXPECT_EQ(third[1], 4);
    }
    int at_root[8] = {};
    if (rank == 1) {
      at_root[2] = 1;
      at_root[3] = 1;
    }
    MPI_Gather(rank == 1 ? MPI_IN_PLACE : pair, 2, MPI_INT, at_root, 2, MPI_INT, 1, MPI_COMM_WORLD);
    if (rank == 1) {
      EXPECT_EQ(std::vector<int>(at_root, at_root + 8), (std::vector<int>{0, 0, 1, 1, 2, 4, 3, 9}));
    }

    double everyone[4] = {};
    const double mine = rank * 1.5;
    MPI_Allgather(&mine, 1, MPI_DOUBLE, everyone, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    EXPECT_EQ(everyone[3], 4.5);
    double in_place[4] = {};
    in_place[rank] = rank + 0.5;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in_place, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    EXPECT_EQ(in_place[2], 2.5);

    const long long blocks[8] = {0, 1, 10, 11, 20, 21, 30, 31};
    long long part[2] = {};
    MPI_Scatter(rank == 2 ? blocks : nullptr, 2, MPI_LONG_LONG, part, 2, MPI_LONG_LONG, 2,
                MPI_COMM_WORLD);
    EXPECT_EQ(part[1], rank * 10 + 1);
    long long kept[8] = {0, 1, 10, 11, 20, 21, 30, 31};
    long long received[2] = {-1, -1};
    MPI_Scatter(kept, 2, MPI_LONG_LONG, rank == 0 ? MPI_IN_PLACE : received, 2, MPI_LONG_LONG, 0,
                MPI_COMM_WORLD);
    if (rank != 0) {
      EXPECT_EQ(received[0], rank * 10);
    }

    int send[4];
    int receive[4] = {};
    for (int d = 0; d < 4; ++d) send[d] = rank * 100 + d;
    MPI_Alltoall(send, 1, MPI_INT, receive, 1, MPI_INT, MPI_COMM_WORLD);
    for (int s = 0; s < 4; ++s) EXPECT_EQ(receive[s], s * 100 + rank);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, send, 1, MPI_INT, MPI_COMM_WORLD);
    for (int s = 0; s < 4; ++s) EXPECT_EQ(send[s], s * 100 + rank);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}

// inout = in followed by inout as decimal digits (associative, not commutative), for 1-digit
// ranks: in * 10^(digits of inout) + inout, with a leading 0 kept by counting the ranks.
void append_digits(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const long long*>(in);
  auto* b = static_cast<long long*>(inout);
  for (int i = 0; i < *len; ++i) {
    long long scale = 10;
    while (scale <= b[i]) scale *= 10;
    b[i] = a[i] * scale + b[i];
  }
}

// Large blocks take other paths: direct gathers and allgathers (16 KiB and more) and sends
// read where they lie while receivers copy them (256 KiB and more), in place too. Every value
// where it belongs, on 5 ranks over 2 PEs.
TEST(MpiCalls, LargeBlockCollectives) {
  ranks_done = 0;
  const Outcome o = run_mpi(5, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = rank_of_world();
    for (const int count : {4096, 70000}) {  // 16 KiB and 280 KiB of ints
      const auto n = static_cast<std::size_t>(count);
      const auto value = [&](int from, int to, std::size_t i) {
        return from * 1000003 + to * 1009 + static_cast<int>(i % 997);
      };
      std::vector<int> mine(n);
      for (std::size_t i = 0; i < n; ++i) mine[i] = value(rank, 0, i);
      std::vector<int> all(5 * n, -1);
      MPI_Gather(mine.data(), count, MPI_INT, all.data(), count, MPI_INT, 2, MPI_COMM_WORLD);
      if (rank == 2) {
        for (int r = 0; r < 5; ++r)
          EXPECT_EQ(all[r * n + n - 1], value(r, 0, n - 1)) << count << " from " << r;
      }
      std::fill(all.begin(), all.end(), -1);
      MPI_Allgather(mine.data(), count, MPI_INT, all.data(), count, MPI_INT, MPI_COMM_WORLD);
      for (int r = 0; r < 5; ++r) {
        EXPECT_EQ(all[r * n], value(r, 0, 0)) << count;
        EXPECT_EQ(all[r * n + n / 2], value(r, 0, n / 2)) << count;
      }
      std::fill(all.begin(), all.end(), -1);
      all[rank * n + 7] = value(rank, 0, 7);
      MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), count, MPI_INT, MPI_COMM_WORLD);
      for (int r = 0; r < 5; ++r) EXPECT_EQ(all[r * n + 7], value(r, 0, 7)) << count;
      std::vector<int> out(5 * n), in(5 * n, -1);
      for (int d = 0; d < 5; ++d)
        for (std::size_t i = 0; i < n; ++i) out[d * n + i] = value(rank, d, i);
      MPI_Alltoall(out.data(), count, MPI_INT, in.data(), count, MPI_INT, MPI_COMM_WORLD);
      for (int s = 0; s < 5; ++s) EXPECT_EQ(in[s * n + n - 3], value(s, rank, n - 3)) << count;
      std::vector<int> part(n, -1);
      MPI_Scatter(out.data(), count, MPI_INT, part.data(), count, MPI_INT, 4, MPI_COMM_WORLD);
      EXPECT_EQ(part[n - 1], value(4, rank, n - 1)) << count;
      // Reductions: exact integer sums everywhere, at the root only for MPI_Reduce.
      std::vector<long long> terms(n), sums(n, -1);
      for (std::size_t i = 0; i < n; ++i) terms[i] = static_cast<long long>(i) * (rank + 1);
      MPI_Allreduce(terms.data(), sums.data(), count, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      for (const std::size_t i : {std::size_t{0}, n / 3, n / 2, n - 1})
        EXPECT_EQ(sums[i], static_cast<long long>(i) * 15) << count << " at " << i;
      std::fill(sums.begin(), sums.end(), -1);
      MPI_Reduce(terms.data(), sums.data(), count, MPI_LONG_LONG, MPI_MAX, 1, MPI_COMM_WORLD);
      if (rank == 1) {
        EXPECT_EQ(sums[n - 1], static_cast<long long>(n - 1) * 5) << count;
      } else {
        EXPECT_EQ(sums[0], -1) << count;  // not the root: untouched
      }
    }
    // A non-commutative operator at a large size combines in rank order (each element's result
    // names the ranks in order: 0..4 as the decimal digits 01234).
    MPI_Op concatenate;
    MPI_Op_create(&append_digits, 0, &concatenate);
    std::vector<long long> digit(20000, rank), joined(20000, -1);
    MPI_Allreduce(digit.data(), joined.data(), 20000, MPI_LONG_LONG, concatenate, MPI_COMM_WORLD);
    EXPECT_EQ(joined[0], 1234);
    EXPECT_EQ(joined[19999], 1234);
    MPI_Op_free(&concatenate);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 5);
}

// inout = in - inout: neither commutative nor associative, so each association or order of the
// ranks' values gives another result.
void subtract(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const long long*>(in);
  auto* b = static_cast<long long*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = a[i] - b[i];
}

// The reductions' tree, written here on its own: V[lo, hi) = V[lo, mid) - V[mid, hi), mid = lo
// plus the largest power of two below hi - lo.
long long subtracted_along_tree(int lo, int hi, long long (*term)(int, int), int i) {
  if (hi - lo == 1) return term(lo, i);
  int p = 1;
  while (p * 2 < hi - lo) p *= 2;
  return subtracted_along_tree(lo, lo + p, term, i) - subtracted_along_tree(lo + p, hi, term, i);
}

long long squares(int rank, int i) {
  return static_cast<long long>(rank + 1) * (rank + 1) * (i % 7 + 1);
}

// MPI_Reduce (to any root, in place at the root), MPI_Allreduce, MPI_Reduce_scatter_block and
// their nonblocking forms, with a program's operator that is neither commutative nor associative,
// all combine along the same tree, the lower ranks the left operand, small and large (the
// reduce-scatter then by blocks), several reductions in a row with no barrier between them.
TEST(MpiCalls, ReductionsOfAnyOperatorCombineAlongOneTree) {
  ranks_done = 0;
  const Outcome o = run_mpi(7, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = rank_of_world();
    MPI_Op minus;
    MPI_Op_create(&subtract, 0, &minus);
    long long folded = squares(0, 0);
    for (int r = 1; r < 7; ++r) folded -= squares(r, 0);
    EXPECT_NE(subtracted_along_tree(0, 7, &squares, 0), folded) << "the tree must differ";
    for (const int count : {3, 7 * 4096}) {
      std::vector<long long> mine(static_cast<std::size_t>(count)), got(mine.size(), -1);
      for (int i = 0; i < count; ++i) mine[static_cast<std::size_t>(i)] = squares(rank, i);
      const auto check = [&](const long long* values, int first, int n, const char* what) {
        int differ = 0;
        for (int i = 0; i < n; ++i)
          differ += values[i] != subtracted_along_tree(0, 7, &squares, first + i);
        EXPECT_EQ(differ, 0) << what << ", " << count << " elements, rank " << rank;
      };
      for (const int root : {0, 5, 6}) {
        MPI_Reduce(mine.data(), got.data(), count, MPI_LONG_LONG, minus, root, MPI_COMM_WORLD);
        if (rank == root) check(got.data(), 0, count, "MPI_Reduce");
      }
      std::vector<long long> in_place = mine;
      MPI_Reduce(rank == 3 ? MPI_IN_PLACE : in_place.data(), rank == 3 ? in_place.data() : nullptr,
                 count, MPI_LONG_LONG, minus, 3, MPI_COMM_WORLD);
      if (rank == 3) check(in_place.data(), 0, count, "MPI_Reduce in place");
      MPI_Allreduce(mine.data(), got.data(), count, MPI_LONG_LONG, minus, MPI_COMM_WORLD);
      check(got.data(), 0, count, "MPI_Allreduce");
      MPI_Request request = MPI_REQUEST_NULL;
      MPI_Iallreduce(mine.data(), got.data(), count, MPI_LONG_LONG, minus, MPI_COMM_WORLD,
                     &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      check(got.data(), 0, count, "MPI_Iallreduce");
      MPI_Ireduce(mine.data(), got.data(), count, MPI_LONG_LONG, minus, 6, MPI_COMM_WORLD,
                  &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      if (rank == 6) check(got.data(), 0, count, "MPI_Ireduce");
      if (count % 7 == 0) {
        MPI_Reduce_scatter_block(mine.data(), got.data(), count / 7, MPI_LONG_LONG, minus,
                                 MPI_COMM_WORLD);
        check(got.data(), rank * (count / 7), count / 7, "MPI_Reduce_scatter_block");
        MPI_Ireduce_scatter_block(mine.data(), got.data(), count / 7, MPI_LONG_LONG, minus,
                                  MPI_COMM_WORLD, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        check(got.data(), rank * (count / 7), count / 7, "MPI_Ireduce_scatter_block");
      }
    }
    MPI_Op_free(&minus);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 7);
}

double term(int rank, int i) {
  return std::pow(10.0, static_cast<double>((rank * 7 + i % 5) % 17) - 8.0) *
             (rank % 2 == 0 ? 1 : -1) +
         1.0 / (rank + 3 + i % 3);
}

// The reductions' tree over term(r, i), written here on its own.
double summed_along_tree(int lo, int hi, int i) {
  if (hi - lo == 1) return term(lo, i);
  int p = 1;
  while (p * 2 < hi - lo) p *= 2;
  return summed_along_tree(lo, lo + p, i) + summed_along_tree(lo + p, hi, i);
}

// A predefined operator (sums of doubles, combined in one pass into a third buffer where the
// tree allows) gives the bits of the tree, which every other association of these terms would
// change: MPI_Reduce to each root and in place, MPI_Allreduce and MPI_Iallreduce, small (the
// ranks' messages to the root) and large (in the process's memory).
TEST(MpiCalls, PredefinedReductionsHaveTheTreesBits) {
  ranks_done = 0;
  const Outcome o = run_mpi(7, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = rank_of_world();
    int told_apart = 0;  // the terms tell the tree from a fold in rank order
    for (int i = 0; i < 5; ++i) {
      double folded = term(0, i);
      for (int r = 1; r < 7; ++r) folded += term(r, i);
      told_apart += folded != summed_along_tree(0, 7, i);
    }
    EXPECT_GT(told_apart, 0);
    for (const int count : {5, 20000}) {
      std::vector<double> mine(static_cast<std::size_t>(count)), got(mine.size(), 0.0);
      for (int i = 0; i < count; ++i) mine[static_cast<std::size_t>(i)] = term(rank, i);
      const auto check = [&](const std::vector<double>& values, const char* what) {
        int differ = 0;
        for (int i = 0; i < count; i += 97) {
          const double expected = summed_along_tree(0, 7, i);
          differ += std::memcmp(&values[static_cast<std::size_t>(i)], &expected, 8) != 0;
        }
        EXPECT_EQ(differ, 0) << what << ", " << count << " doubles, rank " << rank;
      };
      for (const int root : {0, 3, 6}) {
        MPI_Reduce(mine.data(), got.data(), count, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank == root) check(got, "MPI_Reduce");
      }
      std::vector<double> in_place = mine;
      MPI_Reduce(rank == 2 ? MPI_IN_PLACE : in_place.data(), rank == 2 ? in_place.data() : nullptr,
                 count, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD);
      if (rank == 2) check(in_place, "MPI_Reduce in place");
      MPI_Allreduce(mine.data(), got.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      check(got, "MPI_Allreduce");
      MPI_Request request = MPI_REQUEST_NULL;
      MPI_Iallreduce(mine.data(), got.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      check(got, "MPI_Iallreduce");
    }
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 7);
}

// Reductions under way at once on several communicators — the three parts of a split, the world
// and a duplicate of it (the same ranks, another context) — in the process's memory (32 KiB),
// to changing roots with no barrier between them: each gets its own members' sum.
TEST(MpiCalls, ReductionsOnSeveralCommunicatorsAtOnceKeepApart) {
  ranks_done = 0;
  const Outcome o = run_mpi(10, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = rank_of_world();
    MPI_Comm part = MPI_COMM_NULL, twin = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3, rank, &part);
    MPI_Comm_dup(MPI_COMM_WORLD, &twin);
    int part_rank = -1, part_size = 0;
    MPI_Comm_rank(part, &part_rank);
    MPI_Comm_size(part, &part_size);
    constexpr int n = 4096;
    std::vector<double> mine(n), got(n);
    for (int i = 0; i < n; ++i) mine[static_cast<std::size_t>(i)] = rank + 1 + i;
    // Sums of (r + 1 + i) over the ranks r of each communicator, less i times their count.
    const double world_sum = 55;
    double part_sum = 0;
    for (int r = rank % 3; r < 10; r += 3) part_sum += r + 1;
    int wrong = 0;
    for (int round = 0; round < 6; ++round) {
      const int part_root = round % part_size;
      MPI_Reduce(mine.data(), got.data(), n, MPI_DOUBLE, MPI_SUM, part_root, part);
      if (part_rank == part_root) {
        for (int i = 0; i < n; i += 511)
          wrong += got[static_cast<std::size_t>(i)] != part_sum + part_size * i;
      }
      const int world_root = (round * 7) % 10;
      MPI_Reduce(mine.data(), got.data(), n, MPI_DOUBLE, MPI_SUM, world_root,
                 round % 2 == 0 ? MPI_COMM_WORLD : twin);
      if (rank == world_root) {
        for (int i = 0; i < n; i += 511)
          wrong += got[static_cast<std::size_t>(i)] != world_sum + 10.0 * i;
      }
    }
    EXPECT_EQ(wrong, 0) << "rank " << rank;
    MPI_Comm_free(&part);
    MPI_Comm_free(&twin);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 10);
}

// A reduce-scatter of 32 KiB and more among few ranks has each rank combine its own block: every
// block has the bits of the same block of MPI_Reduce's result (each element combined along the
// reductions' tree; the terms make every other association give other bits), with uneven and empty
// blocks, in place, and in the block form.
TEST(MpiCalls, ReduceScatterOfALargeVectorHasTheBitsOfReduce) {
  ranks_done = 0;
  const Outcome o = run_mpi(5, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = rank_of_world();
    const auto term = [](int r, int i) {
      return std::pow(10.0, static_cast<double>((r * 7 + i % 5) % 17) - 8.0) *
                 (r % 2 == 0 ? 1 : -1) +
             1.0 / (r + 3 + i % 3);
    };
    const std::vector<int> counts{9000, 0, 12001, 5000, 7000};
    const int total = 33001;  // 264 KB
    std::vector<double> mine(total), whole(total);
    for (int i = 0; i < total; ++i) mine[static_cast<std::size_t>(i)] = term(rank, i);
    MPI_Reduce(mine.data(), whole.data(), total, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Bcast(whole.data(), total, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int first = 0;
    for (int r = 0; r < rank; ++r) first += counts[static_cast<std::size_t>(r)];
    const auto same_bits = [&](const double* got, int n, const char* what) {
      int differ = 0;
      for (int i = 0; i < n; ++i)
        differ += std::memcmp(&got[i], &whole[static_cast<std::size_t>(first + i)], 8) != 0;
      EXPECT_EQ(differ, 0) << what << " on rank " << rank;
    };
    std::vector<double> block(static_cast<std::size_t>(counts[static_cast<std::size_t>(rank)]) + 1,
                              -1.0);
    MPI_Reduce_scatter(mine.data(), block.data(), counts.data(), MPI_DOUBLE, MPI_SUM,
                       MPI_COMM_WORLD);
    same_bits(block.data(), counts[static_cast<std::size_t>(rank)], "MPI_Reduce_scatter");
    EXPECT_EQ(block.back(), -1.0) << "past the block";
    std::vector<double> in_place = mine;
    MPI_Reduce_scatter(MPI_IN_PLACE, in_place.data(), counts.data(), MPI_DOUBLE, MPI_SUM,
                       MPI_COMM_WORLD);
    same_bits(in_place.data(), counts[static_cast<std::size_t>(rank)], "in place");
    first = rank * 4096;
    std::vector<double> fixed(4096);
    MPI_Reduce_scatter_block(mine.data(), fixed.data(), 4096, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    same_bits(fixed.data(), 4096, "MPI_Reduce_scatter_block");
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 5);
}

// ---- balancing, abort, exit status ----

TEST(MpiCalls, MigrateWithGreedyBalancing) {
  ranks_done = 0;
  const Outcome o = run_mpi(
      6,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int rank = rank_of_world();
        double sum = 0.0;
        for (int step = 0; step < 4; ++step) {
          // Ranks 0..2 (PE 0 at first) work much more than the others.
          const double start = MPI_Wtime();
          while (MPI_Wtime() - start < (rank < 3 ? 2e-3 : 1e-4)) {
          }
          MPI_Migrate();
          double total = 0.0;
          const double one = 1.0;
          MPI_Allreduce(&one, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
          sum += total;
        }
        EXPECT_EQ(rank_of_world(), rank);  // a rank keeps its number wherever it runs
        EXPECT_EQ(sum, 24.0);
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      {}, "greedy");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(ranks_done, 6);
  // Three heavy ranks on PE 0 and three light ones on PE 1: greedy moves a heavy one.
  EXPECT_GT(vela::vp::last_run().migrations, 0u);
}

TEST(MpiCalls, AbortEndsTheRunWithItsCode) {
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    if (rank_of_world() == 1) MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Barrier(MPI_COMM_WORLD);  // never completes: rank 1 does not come
    ADD_FAILURE() << "the barrier completed";
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.code, 7);
}

TEST(MpiCalls, ExitStatusIsTheFirstNonZeroReturnInRankOrder) {
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = rank_of_world();
    MPI_Finalize();
    return rank == 1 ? 5 : rank == 3 ? 3 : 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.code, 5);
}

// ---- errors: fatal, and named after the call ----

std::string error_of(vela::mpi::Main main, int ranks = 4) {
  const Outcome o = run_mpi(ranks, main);
  EXPECT_EQ(o.code, -1) << "the run did not fail";
  return o.error;
}

TEST(MpiCallErrors, NegativeCount) {
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                const int x = 0;
                if (rank_of_world() == 0) MPI_Send(&x, -1, MPI_INT, 1, 0, MPI_COMM_WORLD);
                MPI_Barrier(MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Send: count -1 is negative"));
}

TEST(MpiCallErrors, RankOutOfRange) {
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                const int x = 0;
                MPI_Send(&x, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Send: dest 7 is outside 0..3"));
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                int x = 0;
                MPI_Recv(&x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                return 0;
              }),
              HasSubstr("MPI_Recv: source -5 is outside 0..3 (or MPI_ANY_SOURCE, MPI_PROC_NULL)"));
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                int x = 0;
                MPI_Bcast(&x, 1, MPI_INT, 4, MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Bcast: root 4 is outside 0..3"));
}

TEST(MpiCallErrors, BadTag) {
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                const int x = 0;
                MPI_Send(&x, 1, MPI_INT, 0, -3, MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Send: tag -3 is outside 0..1073741823"));
}

TEST(MpiCallErrors, BadDatatypeAndOp) {
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                int x = 0;
                MPI_Recv(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                return 0;
              }),
              HasSubstr("MPI_Recv: datatype MPI_DATATYPE_NULL is not a datatype"));
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                const int x = 0;
                // An operator handle where a datatype belongs (C would let it through).
                MPI_Send(&x, 1, reinterpret_cast<MPI_Datatype>(MPI_SUM), 0, 0, MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Send: datatype 0x58000002 is not a datatype"));
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                int x = 0;
                int y = 0;
                MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Allreduce: op MPI_OP_NULL is not an operator"));
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                int x = 0;
                int y = 0;
                MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Allreduce: MPI_MAXLOC does not apply to MPI_INT"));
}

TEST(MpiCallErrors, NullBufferAndWrongCommunicator) {
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                MPI_Send(nullptr, 4, MPI_INT, 0, 0, MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Send: buf is NULL for 4 elements of MPI_INT"));
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                MPI_Barrier(MPI_COMM_NULL);
                return 0;
              }),
              HasSubstr("MPI_Barrier: comm MPI_COMM_NULL is not a communicator of this rank"));
}

TEST(MpiCallErrors, InPlaceWhereItDoesNotBelong) {
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                MPI_Send(MPI_IN_PLACE, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Send: buf cannot be MPI_IN_PLACE here"));
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                int x = 1;
                MPI_Reduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Reduce: MPI_IN_PLACE is the send buffer of the root only"));
}

TEST(MpiCallErrors, TruncationIsNamedAfterTheCallThatFindsIt) {
  EXPECT_THAT(error_of(
                  [](int argc, char** argv) {
                    MPI_Init(&argc, &argv);
                    int four[4] = {1, 2, 3, 4};
                    if (rank_of_world() == 0) MPI_Send(four, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
                    if (rank_of_world() == 1) {
                      MPI_Recv(four, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    }
                    return 0;
                  },
                  2),
              HasSubstr("MPI_Recv: the message from rank 0 (tag 0) has 16 bytes"));
  EXPECT_THAT(error_of(
                  [](int argc, char** argv) {
                    MPI_Init(&argc, &argv);
                    int four[4] = {1, 2, 3, 4};
                    if (rank_of_world() == 0) MPI_Send(four, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
                    if (rank_of_world() == 1) {
                      MPI_Request r;
                      MPI_Irecv(four, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
                      MPI_Wait(&r, MPI_STATUS_IGNORE);
                    }
                    return 0;
                  },
                  2),
              HasSubstr("MPI_Wait: the message from rank 0 (tag 0) has 16 bytes"));
}

TEST(MpiCallErrors, MismatchedGatherCounts) {
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                int x[2] = {};
                int all[8] = {};
                MPI_Gather(x, 2, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Gather: recvcount 1 of MPI_INT (4 bytes) does not match sendcount 2 "
                        "of MPI_INT (8 bytes)"));
}

TEST(MpiCallErrors, CallsBeforeInitAndOutsideARank) {
  EXPECT_THAT(error_of([](int, char**) {
                MPI_Barrier(MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Barrier: called before MPI_Init"));
  EXPECT_THAT(error_of([](int argc, char** argv) {
                MPI_Init(&argc, &argv);
                MPI_Finalize();
                MPI_Barrier(MPI_COMM_WORLD);
                return 0;
              }),
              HasSubstr("MPI_Barrier: called after MPI_Finalize"));
  try {
    MPI_Barrier(MPI_COMM_WORLD);
    ADD_FAILURE() << "MPI_Barrier outside a rank did not throw";
  } catch (const vela::vp::Error& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("MPI_Barrier: called outside a rank"));
  }
  int flag = -1;
  MPI_Initialized(&flag);
  EXPECT_EQ(flag, 0);
}

}  // namespace
