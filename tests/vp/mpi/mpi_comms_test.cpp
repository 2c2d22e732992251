// Communicators, groups, attributes, error handlers, the collectives beyond the basic ones,
// persistent requests and the completion calls of vela/mpi.h, in process: each test runs a small
// MPI program on ranks through vela::mpi::run over 2 PEs, some with a balancer that moves ranks
// at every MPI_Migrate, and checks the standard's semantics.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <string>
#include <vector>

#include "run_mpi.hpp"

namespace {

using ::testing::HasSubstr;

using mpi_test::Outcome;
using mpi_test::run_mpi;
using mpi_test::world_rank;

std::atomic<int> ranks_done{0};

// Among more than 64 ranks the replies of a split go down a tree: 150 ranks in three colours
// ordered by a shuffled key (groups that are not strided) and some MPI_UNDEFINED; each new
// communicator's size, ranks and member list are what the colours and keys say.
TEST(MpiComms, SplitOfManyRanksGivesEachItsGroup) {
  ranks_done = 0;
  const Outcome o = run_mpi(150, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    const auto color = [](int r) { return r % 10 == 9 ? MPI_UNDEFINED : r % 3; };
    const auto key = [](int r) { return (r * 7) % 150; };
    MPI_Comm part;
    MPI_Comm_split(MPI_COMM_WORLD, color(me), key(me), &part);
    if (color(me) == MPI_UNDEFINED) {
      EXPECT_EQ(part, MPI_COMM_NULL);
    } else {
      std::vector<int> expected;  // world ranks of my colour, by key then world rank
      for (int r = 0; r < 150; ++r) {
        if (color(r) == color(me)) expected.push_back(r);
      }
      std::stable_sort(expected.begin(), expected.end(),
                       [&](int a, int b) { return key(a) < key(b); });
      int size = 0;
      int rank = -1;
      MPI_Comm_size(part, &size);
      MPI_Comm_rank(part, &rank);
      EXPECT_EQ(size, static_cast<int>(expected.size()));
      std::vector<int> members(expected.size(), -1);
      MPI_Allgather(&me, 1, MPI_INT, members.data(), 1, MPI_INT, part);
      EXPECT_EQ(members, expected) << "rank " << me;
      EXPECT_EQ(members[static_cast<std::size_t>(rank)], me);
      MPI_Comm_free(&part);
    }
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 150);
}

// 12 ranks split into rows of 4 (colour rank / 4) numbered backwards (key -rank), migrating at
// every step: sizes, ranks, a reduction and a broadcast in each row, and messages within a row
// whose status names the row rank.
TEST(MpiComms, SplitIntoRowsWithMigration) {
  ranks_done = 0;
  const Outcome o = run_mpi(
      12,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int me = world_rank();
        MPI_Comm row;
        EXPECT_EQ(MPI_Comm_split(MPI_COMM_WORLD, me / 4, -me, &row), MPI_SUCCESS);
        int size = 0;
        int rank = -1;
        MPI_Comm_size(row, &size);
        MPI_Comm_rank(row, &rank);
        EXPECT_EQ(size, 4);
        EXPECT_EQ(rank, 3 - me % 4);
        for (int step = 0; step < 3; ++step) {
          int sum = 0;
          MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, row);
          const int first = me / 4 * 4;
          EXPECT_EQ(sum, 4 * first + 6);
          int from_root = rank == 0 ? me : -1;
          MPI_Bcast(&from_root, 1, MPI_INT, 0, row);
          EXPECT_EQ(from_root, first + 3);  // row rank 0 is the row's highest world rank
          // A ring within the row: receive from any source; the status names the row rank.
          const int next = (rank + 1) % size;
          MPI_Send(&rank, 1, MPI_INT, next, step, row);
          int got = -1;
          MPI_Status status;
          MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, row, &status);
          EXPECT_EQ(got, (rank + size - 1) % size);
          EXPECT_EQ(status.MPI_SOURCE, got);
          EXPECT_EQ(status.MPI_TAG, step);
          MPI_Migrate();
        }
        MPI_Comm_free(&row);
        EXPECT_EQ(row, MPI_COMM_NULL);
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      "rotate");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(ranks_done, 12);
  EXPECT_GT(vela::vp::last_run().migrations, 0u);
}

// A message on a duplicate never matches a receive on the original, any tag and source
// included; MPI_UNDEFINED gives MPI_COMM_NULL.
TEST(MpiComms, DuplicateKeepsMessagesApart) {
  ranks_done = 0;
  const Outcome o = run_mpi(3, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int result = -1;
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
    EXPECT_EQ(result, MPI_CONGRUENT);
    MPI_Comm_compare(dup, dup, &result);
    EXPECT_EQ(result, MPI_IDENT);
    if (me == 1) {
      const int on_dup = 111;
      const int on_world = 222;
      MPI_Send(&on_dup, 1, MPI_INT, 0, 5, dup);
      MPI_Send(&on_world, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    }
    if (me == 0) {
      int got = 0;
      MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_EQ(got, 222);
      MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE);
      EXPECT_EQ(got, 111);
    }
    MPI_Comm none;
    MPI_Comm_split(dup, me == 2 ? MPI_UNDEFINED : 0, 0, &none);
    EXPECT_EQ(none == MPI_COMM_NULL, me == 2);
    if (none != MPI_COMM_NULL) {
      int size = 0;
      MPI_Comm_size(none, &size);
      EXPECT_EQ(size, 2);
      MPI_Comm_free(&none);
    }
    char name[MPI_MAX_OBJECT_NAME];
    int length = 0;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &length);
    EXPECT_STREQ(name, "MPI_COMM_WORLD");
    MPI_Comm_set_name(dup, "mine");
    MPI_Comm_get_name(dup, name, &length);
    EXPECT_STREQ(name, "mine");
    EXPECT_EQ(length, 4);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 3);
}

TEST(MpiComms, GroupCalls) {
  ranks_done = 0;
  const Outcome o = run_mpi(6, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    const int evens_list[] = {4, 2, 0};
    MPI_Group evens;
    MPI_Group_incl(world, 3, evens_list, &evens);
    int size = 0;
    int rank = -2;
    MPI_Group_size(evens, &size);
    MPI_Group_rank(evens, &rank);
    EXPECT_EQ(size, 3);
    EXPECT_EQ(rank, me % 2 == 0 ? (4 - me) / 2 : MPI_UNDEFINED);
    MPI_Group odds;
    MPI_Group_excl(world, 3, evens_list, &odds);
    int ranges[1][3] = {{1, 5, 2}};
    MPI_Group odds_by_range;
    MPI_Group_range_incl(world, 1, ranges, &odds_by_range);
    int result = -1;
    MPI_Group_compare(odds, odds_by_range, &result);
    EXPECT_EQ(result, MPI_IDENT);
    MPI_Group both;
    MPI_Group_union(evens, odds, &both);
    MPI_Group_compare(both, world, &result);
    EXPECT_EQ(result, MPI_SIMILAR);  // the same ranks, another order
    MPI_Group none;
    MPI_Group_intersection(evens, odds, &none);
    MPI_Group_size(none, &size);
    EXPECT_EQ(size, 0);
    MPI_Group rest;
    MPI_Group_difference(world, evens, &rest);
    MPI_Group_compare(rest, odds, &result);
    EXPECT_EQ(result, MPI_IDENT);
    const int from[] = {0, 1, 2, MPI_PROC_NULL};
    int to[4] = {};
    MPI_Group_translate_ranks(evens, 4, from, world, to);
    EXPECT_EQ(to[0], 4);
    EXPECT_EQ(to[1], 2);
    EXPECT_EQ(to[2], 0);
    EXPECT_EQ(to[3], MPI_PROC_NULL);
    MPI_Group_translate_ranks(odds, 1, from, evens, to);
    EXPECT_EQ(to[0], MPI_UNDEFINED);
    // A communicator of the even ranks, made two ways.
    MPI_Comm created;
    MPI_Comm_create(MPI_COMM_WORLD, evens, &created);
    EXPECT_EQ(created == MPI_COMM_NULL, me % 2 != 0);
    if (me % 2 == 0) {
      MPI_Comm by_group;
      MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &by_group);
      int a = -1;
      int b = -1;
      MPI_Comm_rank(created, &a);
      MPI_Comm_rank(by_group, &b);
      EXPECT_EQ(a, (4 - me) / 2);
      EXPECT_EQ(a, b);
      int sum = 0;
      MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, by_group);
      EXPECT_EQ(sum, 6);
      MPI_Comm_free(&by_group);
      MPI_Comm_free(&created);
    }
    for (MPI_Group* g : {&world, &evens, &odds, &odds_by_range, &both, &none, &rest}) {
      MPI_Group_free(g);
      EXPECT_EQ(*g, MPI_GROUP_NULL);
    }
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 6);
}

std::atomic<int> deleted{0};

int count_deletes(MPI_Comm, int, void*, void*) {
  ++deleted;
  return MPI_SUCCESS;
}

TEST(MpiComms, AttributesAndKeys) {
  ranks_done = 0;
  deleted = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int* tag_ub = nullptr;
    int flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    EXPECT_EQ(flag, 1);
    EXPECT_GE(*tag_ub, 32767);
    int copied_key = MPI_KEYVAL_INVALID;
    int kept_key = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, &count_deletes, &copied_key, nullptr);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &count_deletes, &kept_key, nullptr);
    static int value = 42;
    MPI_Comm dup0;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup0);
    MPI_Comm_set_attr(dup0, copied_key, &value);
    MPI_Comm_set_attr(dup0, kept_key, &value);
    MPI_Comm dup1;
    MPI_Comm_dup(dup0, &dup1);
    int* got = nullptr;
    MPI_Comm_get_attr(dup1, copied_key, &got, &flag);
    EXPECT_EQ(flag, 1);
    EXPECT_EQ(got, &value);
    MPI_Comm_get_attr(dup1, kept_key, &got, &flag);
    EXPECT_EQ(flag, 0);  // MPI_COMM_NULL_COPY_FN does not copy it
    MPI_Comm_delete_attr(dup0, kept_key);
    MPI_Comm_free(&dup0);  // deletes copied_key's attribute
    MPI_Comm_free(&dup1);  // and its copy
    MPI_Comm_free_keyval(&copied_key);
    EXPECT_EQ(copied_key, MPI_KEYVAL_INVALID);
    MPI_Comm_free_keyval(&kept_key);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
  EXPECT_EQ(deleted, 2 * 3);
}

std::atomic<int> handled{0};

void note_error(MPI_Comm*, int* code, ...) {
  if (*code == MPI_ERR_RANK) ++handled;
}

TEST(MpiComms, ErrorHandlersReturnOrCall) {
  ranks_done = 0;
  handled = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int x = 0;
    int code = MPI_Send(&x, 1, MPI_INT, 9, 0, MPI_COMM_WORLD);
    int error_class = -1;
    MPI_Error_class(code, &error_class);
    EXPECT_EQ(error_class, MPI_ERR_RANK);
    EXPECT_EQ(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_EQ(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(MPI_ERR_TRUNCATE, text, &length);
    EXPECT_THAT(std::string(text), HasSubstr("truncated"));
    // A truncated receive: the class the standard names.
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (world_rank() == 0) {
      const int two[2] = {1, 2};
      MPI_Send(two, 2, MPI_INT, 1, 0, dup);
    } else {
      int one = 0;
      EXPECT_EQ(MPI_Recv(&one, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
    }
    MPI_Errhandler handler;
    MPI_Comm_create_errhandler(&note_error, &handler);
    MPI_Comm_set_errhandler(dup, handler);
    EXPECT_EQ(MPI_Send(&x, 1, MPI_INT, -7, 0, dup), MPI_ERR_RANK);
    MPI_Errhandler got;
    MPI_Comm_get_errhandler(dup, &got);
    EXPECT_EQ(got, handler);
    MPI_Errhandler_free(&handler);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
  EXPECT_EQ(handled, 2);
}

// The program's own error classes and codes: numbered after MPI_ERR_LASTCODE in the order
// added, MPI_LASTUSEDCODE following; each code's class and text; a raised one reaches the
// handler and the caller as itself. Bad use gets MPI_ERR_ARG.
TEST(MpiComms, ProgramErrorClassesAndCodes) {
  ranks_done = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int klass = -1, code = -1, other = -1;
    EXPECT_EQ(MPI_Add_error_class(&klass), MPI_SUCCESS);
    EXPECT_EQ(klass, MPI_ERR_LASTCODE + 1);
    EXPECT_EQ(MPI_Add_error_code(klass, &code), MPI_SUCCESS);
    EXPECT_EQ(code, MPI_ERR_LASTCODE + 2);
    EXPECT_EQ(MPI_Add_error_code(MPI_ERR_OTHER, &other), MPI_SUCCESS);
    EXPECT_EQ(other, MPI_ERR_LASTCODE + 3);
    int* last = nullptr;
    int flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    EXPECT_EQ(flag, 1);
    EXPECT_EQ(*last, other);
    int got = -1;
    EXPECT_EQ(MPI_Error_class(code, &got), MPI_SUCCESS);
    EXPECT_EQ(got, klass);
    EXPECT_EQ(MPI_Error_class(klass, &got), MPI_SUCCESS);
    EXPECT_EQ(got, klass);
    EXPECT_EQ(MPI_Error_class(other, &got), MPI_SUCCESS);
    EXPECT_EQ(got, MPI_ERR_OTHER);
    char text[MPI_MAX_ERROR_STRING];
    int length = -1;
    EXPECT_EQ(MPI_Error_string(code, text, &length), MPI_SUCCESS);
    EXPECT_EQ(length, 0);  // no string yet: empty
    EXPECT_EQ(MPI_Add_error_string(code, "the mesh folded"), MPI_SUCCESS);
    EXPECT_EQ(MPI_Error_string(code, text, &length), MPI_SUCCESS);
    EXPECT_EQ(std::string(text), "the mesh folded");
    EXPECT_EQ(length, 15);
    // Raised by the program: the caller gets the code itself.
    EXPECT_EQ(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code), code);
    // Bad use.
    EXPECT_EQ(MPI_Add_error_string(MPI_ERR_RANK, "mine"), MPI_ERR_ARG);  // predefined
    EXPECT_EQ(MPI_Add_error_code(code, &got), MPI_ERR_ARG);              // a code, not a class
    EXPECT_EQ(MPI_Add_error_code(other + 1, &got), MPI_ERR_ARG);         // not added
    EXPECT_EQ(MPI_Error_class(MPI_ERR_LASTCODE, &got), MPI_ERR_ARG);
    EXPECT_EQ(MPI_Error_string(other + 1, text, &length), MPI_ERR_ARG);
    const std::string long_text(MPI_MAX_ERROR_STRING, 'x');
    EXPECT_EQ(MPI_Add_error_string(code, long_text.c_str()), MPI_ERR_ARG);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

// A raised program code under MPI_ERRORS_ARE_FATAL ends the run with its text.
TEST(MpiComms, FatalProgramErrorShowsItsText) {
  const Outcome o = run_mpi(1, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int klass = -1;
    MPI_Add_error_class(&klass);
    MPI_Add_error_string(klass, "solver diverged");
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, klass);
    return 0;
  });
  EXPECT_THAT(o.error, HasSubstr("solver diverged"));
}

// A request's Fortran number: the same for the same request, back to it by f2c; 0 for null.
TEST(MpiComms, RequestFortranNumbers) {
  ranks_done = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    int in[2] = {0, 0};
    const int out[2] = {me, me};
    MPI_Request r[2];
    MPI_Irecv(&in[0], 1, MPI_INT, 1 - me, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&in[1], 1, MPI_INT, 1 - me, 1, MPI_COMM_WORLD, &r[1]);
    const MPI_Fint f0 = MPI_Request_c2f(r[0]), f1 = MPI_Request_c2f(r[1]);
    EXPECT_NE(f0, 0);
    EXPECT_NE(f1, 0);
    EXPECT_NE(f0, f1);
    EXPECT_EQ(MPI_Request_c2f(r[0]), f0);
    EXPECT_EQ(MPI_Request_f2c(f0), r[0]);
    EXPECT_EQ(MPI_Request_f2c(f1), r[1]);
    EXPECT_EQ(MPI_Request_c2f(MPI_REQUEST_NULL), 0);
    EXPECT_EQ(MPI_Request_f2c(0), MPI_REQUEST_NULL);
    EXPECT_EQ(MPI_Request_f2c(12345), MPI_REQUEST_NULL);
    MPI_Send(&out[0], 1, MPI_INT, 1 - me, 1, MPI_COMM_WORLD);
    MPI_Send(&out[1], 1, MPI_INT, 1 - me, 0, MPI_COMM_WORLD);
    MPI_Request back = MPI_Request_f2c(f1);
    MPI_Wait(&back, MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    EXPECT_EQ(in[0], 1 - me);
    EXPECT_EQ(in[1], 1 - me);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

// A message's Fortran number (MPI_Mprobe's): back to it by f2c, apart from the requests'; 0 for
// null, MPI_MESSAGE_NO_PROC's its own.
TEST(MpiComms, MessageFortranNumbers) {
  ranks_done = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    int value = me;
    MPI_Request request;
    MPI_Isend(&value, 1, MPI_INT, 1 - me, 5, MPI_COMM_WORLD, &request);
    MPI_Message message;
    MPI_Mprobe(1 - me, 5, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
    const MPI_Fint f = MPI_Message_c2f(message);
    EXPECT_NE(f, 0);
    EXPECT_NE(f, MPI_Request_c2f(request));
    EXPECT_EQ(MPI_Message_c2f(message), f);
    MPI_Message back = MPI_Message_f2c(f);
    EXPECT_EQ(back, message);
    EXPECT_EQ(MPI_Message_c2f(MPI_MESSAGE_NULL), 0);
    EXPECT_EQ(MPI_Message_f2c(0), MPI_MESSAGE_NULL);
    EXPECT_EQ(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)), MPI_MESSAGE_NO_PROC);
    int in = -1;
    MPI_Mrecv(&in, 1, MPI_INT, &back, MPI_STATUS_IGNORE);
    EXPECT_EQ(in, 1 - me);
    EXPECT_EQ(back, MPI_MESSAGE_NULL);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

TEST(MpiComms, FatalErrorNamesTheCall) {
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_free(&dup);
    MPI_Barrier(dup);  // freed: MPI_COMM_NULL now
    return 0;
  });
  EXPECT_THAT(o.error, HasSubstr("MPI_Barrier: comm MPI_COMM_NULL is not a communicator"));
}

// Decimal strings as {digits, 10^length} pairs of longs, concatenated (in before inout): an
// associative operator that is not commutative, so the result shows the order of combination.
void digits(void* in, void* inout, int* len, MPI_Datatype*) {
  const long* a = static_cast<const long*>(in);
  long* b = static_cast<long*>(inout);
  for (int i = 0; i + 1 < *len; i += 2) {
    b[i] = a[i] * b[i + 1] + b[i];
    b[i + 1] = a[i + 1] * b[i + 1];
  }
}

TEST(MpiComms, VectorCollectivesScansAndOperators) {
  ranks_done = 0;
  const Outcome o = run_mpi(
      5,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int me = world_rank();
        const int n = 5;
        for (int step = 0; step < 2; ++step) {
          // Gatherv: rank r sends r + 1 copies of r, placed backwards with gaps.
          std::vector<int> mine(static_cast<std::size_t>(me + 1), me);
          std::vector<int> counts(n);
          std::vector<int> displs(n);
          int total = 0;
          for (int r = n - 1; r >= 0; --r) {
            counts[static_cast<std::size_t>(r)] = r + 1;
            displs[static_cast<std::size_t>(r)] = total + 1;  // one gap before each block
            total += r + 2;
          }
          std::vector<int> all(static_cast<std::size_t>(total), -1);
          MPI_Gatherv(mine.data(), me + 1, MPI_INT, all.data(), counts.data(), displs.data(),
                      MPI_INT, 2, MPI_COMM_WORLD);
          if (me == 2) {
            for (int r = 0; r < n; ++r) {
              EXPECT_EQ(all[static_cast<std::size_t>(displs[static_cast<std::size_t>(r)] - 1)], -1);
              for (int k = 0; k < r + 1; ++k)
                EXPECT_EQ(all[static_cast<std::size_t>(displs[static_cast<std::size_t>(r)] + k)],
                          r);
            }
          }
          // Allgatherv in place, then Scatterv back.
          std::vector<int> every(static_cast<std::size_t>(total), -1);
          for (int k = 0; k < me + 1; ++k)
            every[static_cast<std::size_t>(displs[static_cast<std::size_t>(me)] + k)] = me;
          MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, every.data(), counts.data(),
                         displs.data(), MPI_INT, MPI_COMM_WORLD);
          for (int r = 0; r < n; ++r) {
            EXPECT_EQ(every[static_cast<std::size_t>(displs[static_cast<std::size_t>(r)] - 1)], -1);
            EXPECT_EQ(every[static_cast<std::size_t>(displs[static_cast<std::size_t>(r)])], r);
          }
          std::vector<int> back(static_cast<std::size_t>(me + 1), -1);
          MPI_Scatterv(every.data(), counts.data(), displs.data(), MPI_INT, back.data(), me + 1,
                       MPI_INT, 0, MPI_COMM_WORLD);
          EXPECT_EQ(back, mine);
          // Alltoallv: rank r sends d + r to rank d (one element each, reversed layout).
          std::vector<int> out(n);
          std::vector<int> in(n, -1);
          std::vector<int> ones(n, 1);
          std::vector<int> reversed(n);
          std::vector<int> forward(n);
          for (int d = 0; d < n; ++d) {
            out[static_cast<std::size_t>(n - 1 - d)] = d + me;
            reversed[static_cast<std::size_t>(d)] = n - 1 - d;
            forward[static_cast<std::size_t>(d)] = d;
          }
          MPI_Alltoallv(out.data(), ones.data(), reversed.data(), MPI_INT, in.data(), ones.data(),
                        forward.data(), MPI_INT, MPI_COMM_WORLD);
          for (int s = 0; s < n; ++s) EXPECT_EQ(in[static_cast<std::size_t>(s)], me + s);
          // Scan and Exscan of the ranks; Reduce_scatter of a vector of ones.
          int scan = -1;
          MPI_Scan(&me, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
          EXPECT_EQ(scan, me * (me + 1) / 2);
          int exscan = -1;
          MPI_Exscan(&me, &exscan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
          if (me > 0) {
            EXPECT_EQ(exscan, me * (me - 1) / 2);
          }
          std::vector<int> contributions(static_cast<std::size_t>(n * 2), me);
          std::vector<int> block(2, -1);
          MPI_Reduce_scatter_block(contributions.data(), block.data(), 2, MPI_INT, MPI_SUM,
                                   MPI_COMM_WORLD);
          EXPECT_EQ(block[0], 10);
          EXPECT_EQ(block[1], 10);
          std::vector<int> sizes{1, 2, 0, 1, 1};
          std::vector<int> got(2, -1);
          MPI_Reduce_scatter(contributions.data(), got.data(), sizes.data(), MPI_INT, MPI_MAX,
                             MPI_COMM_WORLD);
          EXPECT_EQ(got[0], sizes[static_cast<std::size_t>(me)] > 0 ? 4 : -1);
          // A non-commutative operator combines in rank order: digits 0 1 2 3 4.
          MPI_Op op;
          MPI_Op_create(&digits, 0, &op);
          int commute = -1;
          MPI_Op_commutative(op, &commute);
          EXPECT_EQ(commute, 0);
          const long value[2] = {me, 10};
          long number[2] = {-1, -1};
          MPI_Allreduce(value, number, 2, MPI_LONG, op, MPI_COMM_WORLD);
          EXPECT_EQ(number[0], 1234);  // "01234"
          EXPECT_EQ(number[1], 100000);
          long prefix[2] = {-1, -1};
          MPI_Scan(value, prefix, 2, MPI_LONG, op, MPI_COMM_WORLD);
          const long expected[] = {0, 1, 12, 123, 1234};
          EXPECT_EQ(prefix[0], expected[me]);
          MPI_Op_free(&op);
          // Pair types: the largest value and the lowest rank holding it.
          struct {
            float value;
            int index;
          } pair{static_cast<float>(me % 3), me}, best{};
          MPI_Allreduce(&pair, &best, 1, MPI_FLOAT_INT, MPI_MAXLOC, MPI_COMM_WORLD);
          EXPECT_EQ(best.value, 2.0f);
          EXPECT_EQ(best.index, 2);
          MPI_Migrate();
        }
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      "rotate");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 5);
}

TEST(MpiComms, PersistentRequestsAndCompletionCalls) {
  ranks_done = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    const int other = 1 - me;
    int out = 0;
    int in = -1;
    MPI_Request requests[2];
    MPI_Send_init(&out, 1, MPI_INT, other, 3, MPI_COMM_WORLD, &requests[0]);
    MPI_Recv_init(&in, 1, MPI_INT, other, 3, MPI_COMM_WORLD, &requests[1]);
    for (int round = 0; round < 4; ++round) {
      out = 100 * me + round;
      MPI_Startall(2, requests);
      MPI_Status statuses[2];
      MPI_Waitall(2, requests, statuses);
      EXPECT_NE(requests[0], MPI_REQUEST_NULL);  // inactive, not freed
      EXPECT_EQ(in, 100 * other + round);
      EXPECT_EQ(statuses[1].MPI_SOURCE, other);
    }
    MPI_Request_free(&requests[0]);
    MPI_Request_free(&requests[1]);
    // Waitsome / Testsome / Testany on plain requests.
    int values[3] = {-1, -1, -1};
    MPI_Request r[3];
    for (int k = 0; k < 3; ++k)
      MPI_Irecv(&values[k], 1, MPI_INT, other, 10 + k, MPI_COMM_WORLD, &r[k]);
    for (int k = 2; k >= 0; --k) {
      const int v = k * 7;
      MPI_Send(&v, 1, MPI_INT, other, 10 + k, MPI_COMM_WORLD);
    }
    int done = 0;
    while (done < 3) {
      int outcount = 0;
      int indices[3];
      MPI_Waitsome(3, r, &outcount, indices, MPI_STATUSES_IGNORE);
      EXPECT_GT(outcount, 0);
      done += outcount > 0 ? outcount : 3;
    }
    int outcount = 0;
    int indices[3];
    MPI_Testsome(3, r, &outcount, indices, MPI_STATUSES_IGNORE);
    EXPECT_EQ(outcount, MPI_UNDEFINED);  // nothing active
    for (int k = 0; k < 3; ++k) EXPECT_EQ(values[k], k * 7);
    int flag = 0;
    int index = -2;
    MPI_Testany(3, r, &index, &flag, MPI_STATUS_IGNORE);
    EXPECT_EQ(flag, 1);
    EXPECT_EQ(index, MPI_UNDEFINED);
    // MPI_PROC_NULL everywhere: complete at once, source MPI_PROC_NULL.
    MPI_Request null_request;
    MPI_Irecv(&in, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &null_request);
    MPI_Status status;
    MPI_Wait(&null_request, &status);
    EXPECT_EQ(status.MPI_SOURCE, MPI_PROC_NULL);
    int count = -1;
    MPI_Get_count(&status, MPI_INT, &count);
    EXPECT_EQ(count, 0);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

// Matched probes take a message out of matching: no other receive sees it. A receive can be
// cancelled before it matches. Polling with MPI_Iprobe lets the sender (on the same PE) run.
TEST(MpiComms, MatchedProbesCancelAndPolling) {
  ranks_done = 0;
  const Outcome o = run_mpi(3, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    if (me > 0) {
      const int values[2] = {10 * me, 10 * me + 1};
      MPI_Send(values, 2, MPI_INT, 0, 4, MPI_COMM_WORLD);
      MPI_Send(values, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    } else {
      int seen = 0;
      for (int k = 0; k < 2; ++k) {
        MPI_Message message;
        MPI_Status status;
        MPI_Mprobe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &message, &status);
        int count = 0;
        MPI_Get_count(&status, MPI_INT, &count);
        EXPECT_EQ(count, 2);
        // An ordinary receive of the same kind now gets the other sender's message, not this one.
        int other[2] = {};
        MPI_Status other_status;
        if (k == 0) {
          MPI_Recv(other, 2, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &other_status);
          EXPECT_NE(other_status.MPI_SOURCE, status.MPI_SOURCE);
          EXPECT_EQ(other[0], 10 * other_status.MPI_SOURCE);
          seen += other_status.MPI_SOURCE;
        }
        int got[2] = {};
        MPI_Mrecv(got, 2, MPI_INT, &message, MPI_STATUS_IGNORE);
        EXPECT_EQ(message, MPI_MESSAGE_NULL);
        EXPECT_EQ(got[1], 10 * status.MPI_SOURCE + 1);
        seen += status.MPI_SOURCE;
        if (k == 0) break;
      }
      EXPECT_EQ(seen, 3);
      // Improbe polled until the tag-5 messages arrive; Imrecv completes at once.
      for (int k = 0; k < 2; ++k) {
        int flag = 0;
        MPI_Message message;
        MPI_Status status;
        while (flag == 0) MPI_Improbe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &message, &status);
        int one = 0;
        MPI_Request request;
        MPI_Imrecv(&one, 1, MPI_INT, &message, &request);
        MPI_Wait(&request, &status);
        EXPECT_EQ(one, 10 * status.MPI_SOURCE);
      }
      // A receive nobody sends to, cancelled.
      int never = 0;
      MPI_Request request;
      MPI_Irecv(&never, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, &request);
      MPI_Cancel(&request);
      MPI_Status status;
      MPI_Wait(&request, &status);
      int cancelled = 0;
      MPI_Test_cancelled(&status, &cancelled);
      EXPECT_EQ(cancelled, 1);
    }
    // Rank 2 polls with MPI_Iprobe for what rank 1 sends after a barrier of the other two.
    if (me == 2) {
      int flag = 0;
      while (flag == 0) MPI_Iprobe(1, 6, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      int x = 0;
      MPI_Recv(&x, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_EQ(x, 6);
    } else if (me == 1) {
      const int x = 6;
      MPI_Send(&x, 1, MPI_INT, 2, 6, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 3);
}

TEST(MpiComms, IntercommunicatorAndMerge) {
  ranks_done = 0;
  const Outcome o = run_mpi(6, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    const int color = me % 2;  // evens and odds
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, color, me, &half);
    MPI_Comm inter;
    // Leaders: rank 0 of each half (world ranks 0 and 1).
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 99, &inter);
    int flag = 0;
    MPI_Comm_test_inter(inter, &flag);
    EXPECT_EQ(flag, 1);
    int remote = 0;
    MPI_Comm_remote_size(inter, &remote);
    EXPECT_EQ(remote, 3);
    int rank = -1;
    MPI_Comm_rank(inter, &rank);
    EXPECT_EQ(rank, me / 2);
    // Each rank sends its world rank to the same-numbered rank of the other half.
    int got = -1;
    MPI_Status status;
    MPI_Sendrecv(&me, 1, MPI_INT, rank, 0, &got, 1, MPI_INT, rank, 0, inter, &status);
    EXPECT_EQ(got, color == 0 ? me + 1 : me - 1);
    EXPECT_EQ(status.MPI_SOURCE, rank);
    // A duplicate: an intercommunicator of the same groups, its messages apart from inter's.
    MPI_Comm twin;
    EXPECT_EQ(MPI_Comm_dup(inter, &twin), MPI_SUCCESS);
    MPI_Comm_test_inter(twin, &flag);
    EXPECT_EQ(flag, 1);
    int result = -1;
    MPI_Comm_compare(inter, twin, &result);
    EXPECT_EQ(result, MPI_CONGRUENT);
    const int on_inter = 1, on_twin = 2;
    MPI_Send(&on_twin, 1, MPI_INT, rank, 5, twin);
    MPI_Send(&on_inter, 1, MPI_INT, rank, 5, inter);
    int first = 0, second = 0;
    MPI_Recv(&first, 1, MPI_INT, rank, 5, inter, MPI_STATUS_IGNORE);
    MPI_Recv(&second, 1, MPI_INT, rank, 5, twin, MPI_STATUS_IGNORE);
    EXPECT_EQ(first, on_inter);
    EXPECT_EQ(second, on_twin);
    MPI_Comm_free(&twin);
    // Collectives across the two groups: a barrier; a broadcast from rank 1 of the odds (world
    // rank 3) to the evens; each group's allreduce is the other group's sum (odds 1 + 3 + 5,
    // evens 0 + 2 + 4), also of a derived datatype.
    EXPECT_EQ(MPI_Barrier(inter), MPI_SUCCESS);
    double shared[3] = {0.0, 0.0, 0.0};
    if (me == 3) shared[0] = 2.5, shared[2] = -1.0;
    const int root = color == 0 ? 1 : (me == 3 ? MPI_ROOT : MPI_PROC_NULL);
    EXPECT_EQ(MPI_Bcast(shared, 3, MPI_DOUBLE, root, inter), MPI_SUCCESS);
    if (color == 0) {
      EXPECT_EQ(shared[0], 2.5);
      EXPECT_EQ(shared[2], -1.0);
    } else if (me != 3) {
      EXPECT_EQ(shared[0], 0.0);  // MPI_PROC_NULL: untouched
    }
    int other_sum = -1;
    EXPECT_EQ(MPI_Allreduce(&me, &other_sum, 1, MPI_INT, MPI_SUM, inter), MPI_SUCCESS);
    EXPECT_EQ(other_sum, color == 0 ? 9 : 6);
    MPI_Datatype every_other;
    MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    const int mine[3] = {me, -100, 10 * me};
    int theirs[3] = {0, 7, 0};
    MPI_Allreduce(mine, theirs, 1, every_other, MPI_MAX, inter);
    EXPECT_EQ(theirs[0], color == 0 ? 5 : 4);
    EXPECT_EQ(theirs[1], 7);  // between the type's elements: untouched
    EXPECT_EQ(theirs[2], color == 0 ? 50 : 40);
    MPI_Type_free(&every_other);
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, color == 0 ? 1 : 0, &merged);  // the odds first
    int merged_rank = -1;
    MPI_Comm_rank(merged, &merged_rank);
    EXPECT_EQ(merged_rank, color == 1 ? me / 2 : 3 + me / 2);
    int sum = 0;
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, merged);
    EXPECT_EQ(sum, 15);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 6);
}

// The blocking collectives on an intercommunicator of unequal groups, A = world ranks {0, 1}
// and B = {2, 3, 4}: each rank's data goes to the other group, as the standard defines each
// call; ranks move between PEs meanwhile. MPI_Scan (not defined there) is refused with
// MPI_ERR_COMM, MPI_IN_PLACE with MPI_ERR_BUFFER.
TEST(MpiComms, IntercommunicatorCollectives) {
  ranks_done = 0;
  const Outcome o = run_mpi(
      5,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int me = world_rank();
        auto [in_a, half, inter, local, remote, first_remote] = mpi_test::two_groups();
        MPI_Migrate();
        // Allgather: the other group's world ranks, in its order.
        std::vector<int> got(static_cast<std::size_t>(remote), -1);
        EXPECT_EQ(MPI_Allgather(&me, 1, MPI_INT, got.data(), 1, MPI_INT, inter), MPI_SUCCESS);
        for (int i = 0; i < remote; ++i) EXPECT_EQ(got[i], first_remote + i);
        // Alltoall: 100 * sender + receiver's rank in its group.
        std::vector<int> out(static_cast<std::size_t>(remote));
        for (int j = 0; j < remote; ++j) out[j] = 100 * me + j;
        EXPECT_EQ(MPI_Alltoall(out.data(), 1, MPI_INT, got.data(), 1, MPI_INT, inter), MPI_SUCCESS);
        for (int i = 0; i < remote; ++i) EXPECT_EQ(got[i], 100 * (first_remote + i) + local);
        // Gather at A's rank 0 (MPI_ROOT there, MPI_PROC_NULL at A's rank 1; B names root 0).
        const int a_root = in_a ? (local == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        std::vector<int> gathered(3, -1);
        EXPECT_EQ(MPI_Gather(&me, 1, MPI_INT, gathered.data(), 1, MPI_INT, a_root, inter),
                  MPI_SUCCESS);
        if (in_a && local == 0) {
          EXPECT_EQ(gathered, (std::vector<int>{2, 3, 4}));
        }
        if (in_a && local == 1) {
          EXPECT_EQ(gathered, (std::vector<int>{-1, -1, -1}));
        }
        // Gatherv, reversed: B's rank i lands at 2 - i, taking i + 1 values.
        const int counts[3] = {1, 2, 3}, displs[3] = {5, 3, 0};
        std::vector<int> packed(6, -1);
        std::vector<int> mine(3, me);
        EXPECT_EQ(MPI_Gatherv(mine.data(), local + 1, MPI_INT, packed.data(), counts, displs,
                              MPI_INT, a_root, inter),
                  MPI_SUCCESS);
        if (in_a && local == 0) {
          EXPECT_EQ(packed, (std::vector<int>{4, 4, 4, 3, 3, 2}));
        }
        // Scatter from B's rank 1 (world 3) to A: A's rank r gets 10 + r.
        const int b_root = in_a ? 1 : (local == 1 ? MPI_ROOT : MPI_PROC_NULL);
        const int spread[2] = {10, 11};
        int one = -1;
        EXPECT_EQ(MPI_Scatter(spread, 1, MPI_INT, &one, 1, MPI_INT, b_root, inter), MPI_SUCCESS);
        if (in_a) {
          EXPECT_EQ(one, 10 + local);
        }
        // Scatterv from B's rank 1: A's rank r gets r + 1 values from displs {2, 0}.
        const int scounts[2] = {1, 2}, sdispls[2] = {2, 0};
        const int values[3] = {7, 8, 9};
        int two[2] = {-1, -1};
        EXPECT_EQ(MPI_Scatterv(values, scounts, sdispls, MPI_INT, two, in_a ? local + 1 : 0,
                               MPI_INT, b_root, inter),
                  MPI_SUCCESS);
        if (in_a && local == 0) {
          EXPECT_EQ(two[0], 9);
        }
        if (in_a && local == 1) {
          EXPECT_EQ((std::vector<int>{two[0], two[1]}), (std::vector<int>{7, 8}));
        }
        // Allgatherv, reversed places.
        std::vector<int> rcounts(static_cast<std::size_t>(remote), 1), rdispls;
        for (int i = 0; i < remote; ++i) rdispls.push_back(remote - 1 - i);
        EXPECT_EQ(MPI_Allgatherv(&me, 1, MPI_INT, got.data(), rcounts.data(), rdispls.data(),
                                 MPI_INT, inter),
                  MPI_SUCCESS);
        for (int i = 0; i < remote; ++i) EXPECT_EQ(got[remote - 1 - i], first_remote + i);
        // Alltoallv with the same places.
        EXPECT_EQ(MPI_Alltoallv(out.data(), rcounts.data(), rdispls.data(), MPI_INT, got.data(),
                                rcounts.data(), rdispls.data(), MPI_INT, inter),
                  MPI_SUCCESS);
        for (int i = 0; i < remote; ++i) {
          // From rank i of the other group: its block for me, which it put at remote' - 1 - me.
          EXPECT_EQ(got[remote - 1 - i], 100 * (first_remote + i) + (in_a ? 1 - local : 2 - local))
              << i;
        }
        // Reduce at B's rank 2 (world 4): the sum over A.
        const int c_root = in_a ? 2 : (local == 2 ? MPI_ROOT : MPI_PROC_NULL);
        int sum = -1;
        EXPECT_EQ(MPI_Reduce(&me, &sum, 1, MPI_INT, MPI_SUM, c_root, inter), MPI_SUCCESS);
        if (me == 4) {
          EXPECT_EQ(sum, 0 + 1);
        }
        // Reduce-scatter: the other group's sums, scattered over this group. Both groups'
        // vectors hold recvcount times their group's size, 6 elements (A's recvcount 3, B's 2),
        // 10 me + j: element j of A's sum is 10 + 2j, of B's 90 + 3j.
        std::vector<int> vec;
        for (int j = 0; j < 6; ++j) vec.push_back(10 * me + j);
        const int each = in_a ? 3 : 2;
        std::vector<int> blocks(3, -1);
        EXPECT_EQ(
            MPI_Reduce_scatter_block(vec.data(), blocks.data(), each, MPI_INT, MPI_SUM, inter),
            MPI_SUCCESS);
        for (int i = 0; i < each; ++i) {
          const int j = each * local + i;
          EXPECT_EQ(blocks[i], in_a ? 90 + 3 * j : 10 + 2 * j) << i;
        }
        int block = -1;
        // With counts: A's {1, 2}, B's {1, 1, 1} (3 elements either way).
        const std::vector<int> a_counts = {1, 2}, b_counts = {1, 1, 1};
        std::vector<int> three;
        for (int j = 0; j < 3; ++j) three.push_back(10 * me + j);
        int pieces[2] = {-1, -1};
        EXPECT_EQ(MPI_Reduce_scatter(three.data(), pieces, in_a ? a_counts.data() : b_counts.data(),
                                     MPI_INT, MPI_SUM, inter),
                  MPI_SUCCESS);
        if (!in_a) {
          EXPECT_EQ(pieces[0], 10 + 2 * local);
        } else if (local == 0) {
          EXPECT_EQ(pieces[0], 90);
        } else {
          EXPECT_EQ((std::vector<int>{pieces[0], pieces[1]}), (std::vector<int>{93, 96}));
        }
        // A nonblocking duplicate, while A's rank 0 and B's rank 0 exchange on the original
        // first: its messages apart from the original's.
        MPI_Comm twin;
        MPI_Request made;
        EXPECT_EQ(MPI_Comm_idup(inter, &twin, &made), MPI_SUCCESS);
        int token = me;
        if (local == 0) {
          MPI_Sendrecv_replace(&token, 1, MPI_INT, 0, 3, 0, 3, inter, MPI_STATUS_IGNORE);
          EXPECT_EQ(token, in_a ? 2 : 0);
        }
        MPI_Wait(&made, MPI_STATUS_IGNORE);
        int flag = 0;
        MPI_Comm_test_inter(twin, &flag);
        EXPECT_EQ(flag, 1);
        const int mark[2] = {1, 2};
        MPI_Send(&mark[1], 1, MPI_INT, 0, 4, twin);
        MPI_Send(&mark[0], 1, MPI_INT, 0, 4, inter);
        if (local == 0) {
          for (int i = 0; i < remote; ++i) {
            int v = 0;
            MPI_Recv(&v, 1, MPI_INT, i, 4, inter, MPI_STATUS_IGNORE);
            EXPECT_EQ(v, 1);
            MPI_Recv(&v, 1, MPI_INT, i, 4, twin, MPI_STATUS_IGNORE);
            EXPECT_EQ(v, 2);
          }
        }
        MPI_Comm_free(&twin);
        // Not defined there, or not allowed.
        EXPECT_EQ(MPI_Scan(&me, &block, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
        EXPECT_EQ(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, got.data(), 1, MPI_INT, inter),
                  MPI_ERR_BUFFER);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      "rotate");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 5);
}

TEST(MpiComms, InfoObjects) {
  ranks_done = 0;
  const Outcome o = run_mpi(1, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alpha", "1");
    MPI_Info_set(info, "beta", "two");
    MPI_Info_set(info, "alpha", "one");
    int nkeys = 0;
    MPI_Info_get_nkeys(info, &nkeys);
    EXPECT_EQ(nkeys, 2);
    char key[MPI_MAX_INFO_KEY + 1];
    MPI_Info_get_nthkey(info, 1, key);
    EXPECT_STREQ(key, "beta");
    char value[16];
    int flag = 0;
    MPI_Info_get(info, "alpha", 15, value, &flag);
    EXPECT_EQ(flag, 1);
    EXPECT_STREQ(value, "one");
    MPI_Info copy;
    MPI_Info_dup(info, &copy);
    MPI_Info_delete(info, "alpha");
    MPI_Info_get(info, "alpha", 15, value, &flag);
    EXPECT_EQ(flag, 0);
    MPI_Info_get(copy, "alpha", 15, value, &flag);
    EXPECT_EQ(flag, 1);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT_EQ(MPI_Info_delete(info, "alpha"), MPI_ERR_INFO_NOKEY);
    MPI_Info_free(&info);
    MPI_Info_free(&copy);
    EXPECT_EQ(info, MPI_INFO_NULL);
    EXPECT_EQ(MPI_Info_set(info, "k", "v"), MPI_ERR_INFO);
    // Handles convert to Fortran integers and back.
    EXPECT_EQ(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)), MPI_COMM_WORLD);
    EXPECT_EQ(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)), MPI_DOUBLE);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 1);
}

std::atomic<bool> receive_posted{false};

// A synchronous send completes only once its receive matched it (blocking, nonblocking and
// persistent, small and large, with a matched probe too); a buffered one needs the attached
// buffer to hold it and completes at once whatever its size.
TEST(MpiComms, SynchronousSendsWaitForTheMatchAndBufferedOnesForNothing) {
  ranks_done = 0;
  receive_posted = false;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    std::vector<double> big(100000, 1.5);  // 800 KB: above the eager size
    if (me == 0) {
      MPI_Request r;
      int flag = -1;
      MPI_Issend(big.data(), 10, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &r);
      for (int i = 0; i < 5; ++i) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
      EXPECT_EQ(flag, 0);  // rank 1 receives tag 1 only after tag 2, sent below
      const int go = 1;
      MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      // Blocking: returns only after rank 1 posted its receive (it computes first), though a
      // message this small is copied at once.
      MPI_Ssend(big.data(), 10, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);  // small: copied at once
      EXPECT_TRUE(receive_posted.load());
      // Persistent, twice; the second matched by a matched probe.
      MPI_Request p;
      MPI_Ssend_init(&go, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &p);
      for (int k = 0; k < 2; ++k) {
        MPI_Start(&p);
        MPI_Wait(&p, MPI_STATUS_IGNORE);
      }
      MPI_Request_free(&p);
      // Buffered: nothing attached, then too small, then enough (800 KB completes at once).
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      EXPECT_EQ(MPI_Bsend(&go, 1, MPI_INT, 1, 5, MPI_COMM_WORLD), MPI_ERR_BUFFER);
      std::vector<char> space(1000);
      MPI_Buffer_attach(space.data(), 1000);
      EXPECT_EQ(MPI_Bsend(big.data(), 1000, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD), MPI_ERR_BUFFER);
      void* detached = nullptr;
      int size = 0;
      MPI_Buffer_detach(&detached, &size);
      EXPECT_EQ(detached, space.data());
      std::vector<char> large(800000 + MPI_BSEND_OVERHEAD);
      MPI_Buffer_attach(large.data(), static_cast<int>(large.size()));
      EXPECT_EQ(MPI_Bsend(big.data(), 100000, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD), MPI_SUCCESS);
      MPI_Request b;
      MPI_Ibsend(big.data(), 100000, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD, &b);
      flag = 0;
      MPI_Test(&b, &flag, MPI_STATUS_IGNORE);
      EXPECT_EQ(flag, 1);
      MPI_Buffer_detach(&detached, &size);
      MPI_Send(&go, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);  // rank 1 receives 5 and 6 after this
    } else {
      int go = 0;
      std::vector<double> in(100000, 0.0);
      MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(in.data(), 10, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_EQ(in[9], 1.5);
      const double until = MPI_Wtime() + 0.05;
      while (MPI_Wtime() < until) {
      }
      receive_posted = true;
      MPI_Recv(in.data(), 100000, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_EQ(in[9], 1.5);
      MPI_Recv(&go, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Message message;
      MPI_Mprobe(0, 4, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
      MPI_Mrecv(&go, 1, MPI_INT, &message, MPI_STATUS_IGNORE);
      MPI_Recv(&go, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (const int tag : {5, 6}) {
        in.assign(in.size(), 0.0);
        MPI_Recv(in.data(), 100000, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        EXPECT_EQ(in[99999], 1.5);
      }
    }
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

}  // namespace
