// Derived datatypes through vela/mpi.h's calls, in process on 2 PEs: halos of a 2D array sent as
// columns (MPI_Type_vector), structs with absolute addresses (MPI_BOTTOM), a transpose gathered
// through a resized type, reductions on a contiguous type and a program's operator on a struct
// type, persistent and nonblocking receives
// that unpack on completion, packing (native and external32), and the questions about a type.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "run_mpi.hpp"

namespace {

using ::testing::HasSubstr;

using mpi_test::Outcome;
using mpi_test::run_mpi;
using mpi_test::world_rank;

std::atomic<int> ranks_done{0};

constexpr int rows = 6;
constexpr int cols = 5;

// Rank r's array holds 100 * r + 10 * i + j; it sends its last column to its right neighbour's
// first column (blocking) and its first column to its left neighbour's last (nonblocking), both
// as one MPI_Type_vector, with migrations between steps.
TEST(MpiDatatypes, ColumnHalosAsVectors) {
  ranks_done = 0;
  const Outcome o = run_mpi(
      4,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int me = world_rank();
        const int left = (me + 3) % 4;
        const int right = (me + 1) % 4;
        MPI_Datatype column;
        MPI_Type_vector(rows, 1, cols, MPI_DOUBLE, &column);
        MPI_Type_commit(&column);
        int size = 0;
        MPI_Type_size(column, &size);
        EXPECT_EQ(size, rows * 8);
        MPI_Aint lb = -1;
        MPI_Aint extent = -1;
        MPI_Type_get_extent(column, &lb, &extent);
        EXPECT_EQ(lb, 0);
        EXPECT_EQ(extent, ((rows - 1) * cols + 1) * 8);
        for (int step = 0; step < 3; ++step) {
          double a[rows][cols];
          for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j) a[i][j] = 100 * me + 10 * i + j + 1000 * step;
          MPI_Request request;
          MPI_Irecv(&a[0][cols - 1], 1, column, right, 1, MPI_COMM_WORLD, &request);
          MPI_Send(&a[0][1], 1, column, left, 1, MPI_COMM_WORLD);
          MPI_Status status;
          MPI_Sendrecv(&a[0][cols - 2], 1, column, right, 2, &a[0][0], 1, column, left, 2,
                       MPI_COMM_WORLD, &status);
          int count = -1;
          MPI_Get_count(&status, column, &count);
          EXPECT_EQ(count, 1);
          MPI_Get_elements(&status, column, &count);
          EXPECT_EQ(count, rows);
          MPI_Wait(&request, MPI_STATUS_IGNORE);
          for (int i = 0; i < rows; ++i) {
            EXPECT_EQ(a[i][0], 100 * left + 10 * i + (cols - 2) + 1000 * step);
            EXPECT_EQ(a[i][cols - 1], 100 * right + 10 * i + 1 + 1000 * step);
            for (int j = 1; j < cols - 1; ++j)
              EXPECT_EQ(a[i][j], 100 * me + 10 * i + j + 1000 * step);  // untouched
          }
          MPI_Migrate();
        }
        MPI_Type_free(&column);
        EXPECT_EQ(column, MPI_DATATYPE_NULL);
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      "rotate");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}

struct Particle {
  int id;
  double position[3];
  char tag[3];
};

// A struct type with absolute addresses sent from MPI_BOTTOM; an array of structs with a struct
// type resized to sizeof(Particle); broadcast and gathered.
TEST(MpiDatatypes, StructsAndAbsoluteAddresses) {
  ranks_done = 0;
  const Outcome o = run_mpi(3, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    Particle p{};
    MPI_Aint base = 0;
    MPI_Aint displacements[3];
    MPI_Get_address(&p, &base);
    MPI_Get_address(&p.id, &displacements[0]);
    MPI_Get_address(&p.position, &displacements[1]);
    MPI_Get_address(&p.tag, &displacements[2]);
    const int lengths[3] = {1, 3, 3};
    const MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Datatype absolute;
    MPI_Type_create_struct(3, lengths, displacements, types, &absolute);
    MPI_Type_commit(&absolute);
    if (me == 0) {
      p = Particle{7, {1.5, 2.5, 3.5}, {'a', 'b', 'c'}};
    }
    MPI_Bcast(MPI_BOTTOM, 1, absolute, 0, MPI_COMM_WORLD);
    EXPECT_EQ(p.id, 7);
    EXPECT_EQ(p.position[2], 3.5);
    EXPECT_EQ(p.tag[1], 'b');
    MPI_Type_free(&absolute);
    // Relative displacements, resized to the struct's size for arrays.
    for (MPI_Aint& d : displacements) d -= base;
    MPI_Datatype relative;
    MPI_Datatype particle;
    MPI_Type_create_struct(3, lengths, displacements, types, &relative);
    MPI_Type_create_resized(relative, 0, sizeof(Particle), &particle);
    MPI_Type_commit(&particle);
    MPI_Aint lb = -1;
    MPI_Aint extent = 0;
    MPI_Type_get_extent(particle, &lb, &extent);
    EXPECT_EQ(extent, static_cast<MPI_Aint>(sizeof(Particle)));
    Particle mine[2] = {{me, {me + 0.25, 0, 0}, {'x', 'y', 'z'}}, {10 + me, {0, me + 0.5, 0}, {}}};
    Particle all[6] = {};
    MPI_Allgather(mine, 2, particle, all, 2, particle, MPI_COMM_WORLD);
    for (int r = 0; r < 3; ++r) {
      EXPECT_EQ(all[2 * r].id, r);
      EXPECT_EQ(all[2 * r].position[0], r + 0.25);
      EXPECT_EQ(all[2 * r].tag[2], 'z');
      EXPECT_EQ(all[2 * r + 1].id, 10 + r);
      EXPECT_EQ(all[2 * r + 1].position[1], r + 0.5);
    }
    int combiner = -1;
    int ni = 0;
    int na = 0;
    int nd = 0;
    MPI_Type_get_envelope(particle, &ni, &na, &nd, &combiner);
    EXPECT_EQ(combiner, MPI_COMBINER_RESIZED);
    EXPECT_EQ(na, 2);
    EXPECT_EQ(nd, 1);
    MPI_Aint bounds[2];
    MPI_Datatype inner;
    MPI_Type_get_contents(particle, 0, 2, 1, nullptr, bounds, &inner);
    EXPECT_EQ(bounds[1], static_cast<MPI_Aint>(sizeof(Particle)));
    EXPECT_EQ(inner, relative);
    MPI_Type_free(&relative);  // the resized type keeps its own copy of the layout
    MPI_Bcast(mine, 2, particle, 1, MPI_COMM_WORLD);
    EXPECT_EQ(mine[1].id, 11);
    MPI_Type_free(&particle);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 3);
}

// The transpose idiom: each rank sends its row, the root receives it as a column through a
// vector type resized to one double, so that rank r's column starts r doubles in.
TEST(MpiDatatypes, GatherColumnsThroughAResizedType) {
  ranks_done = 0;
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    constexpr int n = 4;
    double row[n];
    for (int j = 0; j < n; ++j) row[j] = 10 * me + j;
    MPI_Datatype column;
    MPI_Datatype one_column;
    MPI_Type_vector(n, 1, n, MPI_DOUBLE, &column);
    MPI_Type_create_resized(column, 0, sizeof(double), &one_column);
    MPI_Type_commit(&one_column);
    double matrix[n][n] = {};
    MPI_Gather(row, n, MPI_DOUBLE, matrix, 1, one_column, 0, MPI_COMM_WORLD);
    if (me == 0) {
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) EXPECT_EQ(matrix[i][j], 10 * j + i);
    }
    // Scatter it back by columns: each rank gets its row again.
    double back[n] = {};
    MPI_Scatter(matrix, 1, one_column, back, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int j = 0; j < n; ++j) EXPECT_EQ(back[j], row[j]);
    // Alltoall of single columns: rank r gets column r of everyone's 4x4 block.
    double block[n][n];
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) block[i][j] = 100 * me + 10 * i + j;
    double got[n][n] = {};
    MPI_Alltoall(block, 1, one_column, got, n, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int s = 0; s < n; ++s)
      for (int i = 0; i < n; ++i) EXPECT_EQ(got[s][i], 100 * s + 10 * i + me);
    MPI_Type_free(&one_column);
    MPI_Type_free(&column);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}

TEST(MpiDatatypes, ReductionsOnDerivedTypes) {
  ranks_done = 0;
  const Outcome o = run_mpi(3, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    MPI_Datatype triple;
    MPI_Type_contiguous(3, MPI_DOUBLE, &triple);
    MPI_Type_commit(&triple);
    const double mine[2][3] = {{1.0 * me, 2.0, 3.0}, {4.0, 5.0 * me, 6.0}};
    double sum[2][3] = {};
    MPI_Allreduce(mine, sum, 2, triple, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(sum[0][0], 3.0);
    EXPECT_EQ(sum[0][1], 6.0);
    EXPECT_EQ(sum[1][1], 15.0);
    // A strided type: every other int of six, reduced in place.
    MPI_Datatype evens;
    MPI_Type_vector(3, 1, 2, MPI_INT, &evens);
    MPI_Type_commit(&evens);
    int values[6] = {me, -1, me + 1, -1, me + 2, -1};
    MPI_Allreduce(MPI_IN_PLACE, values, 1, evens, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(values[0], 2);
    EXPECT_EQ(values[2], 3);
    EXPECT_EQ(values[4], 4);
    EXPECT_EQ(values[1], -1);  // the holes are not written
    // A struct of an int and a double has no single basic type: refused, MPI_ERR_OP.
    const int lengths[2] = {1, 1};
    const MPI_Aint displacements[2] = {0, 8};
    const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype mixed;
    MPI_Type_create_struct(2, lengths, displacements, types, &mixed);
    MPI_Type_commit(&mixed);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char in[16] = {};
    char out[16] = {};
    EXPECT_EQ(MPI_Allreduce(in, out, 1, mixed, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    EXPECT_EQ(MPI_Send(values, 1, uncommitted, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_EQ(MPI_Type_vector(-1, 1, 1, MPI_INT, &uncommitted), MPI_ERR_COUNT);
    for (MPI_Datatype* t : {&triple, &evens, &mixed, &uncommitted}) MPI_Type_free(t);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 3);
}

// A value and where it is, as BLACS's combines keep them: a double and two ints, with a hole.
struct Located {
  double value;
  int row;
  int column;
};

// A program's operator on a struct type: the largest |value|, ties to the smaller row.
void largest_magnitude(void* in, void* inout, int* len, MPI_Datatype* datatype) {
  EXPECT_NE(*datatype, MPI_DOUBLE);  // called with the program's own datatype
  auto* a = static_cast<const Located*>(in);
  auto* b = static_cast<Located*>(inout);
  for (int i = 0; i < *len; ++i) {
    const bool take = std::abs(a[i].value) > std::abs(b[i].value) ||
                      (std::abs(a[i].value) == std::abs(b[i].value) && a[i].row < b[i].row);
    if (take) b[i] = a[i];
  }
}

// A program's operator takes any datatype (BLACS reduces structs of a value and its indices):
// it is called with the elements as the datatype lays them out, and with the datatype.
TEST(MpiDatatypes, ProgramOperatorsOnStructTypes) {
  ranks_done = 0;
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    const int lengths[2] = {1, 2};
    const MPI_Aint displacements[2] = {offsetof(Located, value), offsetof(Located, row)};
    const MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Datatype located;
    MPI_Type_create_struct(2, lengths, displacements, types, &located);
    MPI_Type_commit(&located);
    MPI_Op op;
    MPI_Op_create(&largest_magnitude, 1, &op);
    // Two elements: the largest magnitude is rank 2's in the first, a tie of ranks 1 and 3 in
    // the second (the smaller row wins).
    const Located mine[2] = {{me == 2 ? -9.0 : 1.0 * me, me, 10 + me},
                             {me % 2 == 1 ? 5.0 : 0.5, me, 20 + me}};
    Located result[2] = {};
    MPI_Allreduce(mine, result, 2, located, op, MPI_COMM_WORLD);
    EXPECT_EQ(result[0].value, -9.0);
    EXPECT_EQ(result[0].row, 2);
    EXPECT_EQ(result[0].column, 12);
    EXPECT_EQ(result[1].row, 1);
    EXPECT_EQ(result[1].column, 21);
    Located at_root[2] = {};
    MPI_Reduce(mine, at_root, 2, located, op, 3, MPI_COMM_WORLD);
    if (me == 3) {
      EXPECT_EQ(at_root[0].row, 2);
      EXPECT_EQ(at_root[1].row, 1);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&located);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}

TEST(MpiDatatypes, PersistentAndVectorCollectivesWithDerivedTypes) {
  ranks_done = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    const int other = 1 - me;
    MPI_Datatype pairs;  // the first two of every three ints
    MPI_Type_vector(2, 2, 3, MPI_INT, &pairs);
    MPI_Type_commit(&pairs);
    int out[6] = {1, 2, -9, 4, 5, -9};
    int in[6] = {0, 0, 77, 0, 0, 77};
    MPI_Request requests[2];
    MPI_Recv_init(in, 1, pairs, other, 0, MPI_COMM_WORLD, &requests[0]);
    MPI_Send_init(out, 1, pairs, other, 0, MPI_COMM_WORLD, &requests[1]);
    for (int round = 0; round < 3; ++round) {
      out[0] = 10 * me + round;
      MPI_Startall(2, requests);
      MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
      EXPECT_EQ(in[0], 10 * other + round);
      EXPECT_EQ(in[1], 2);
      EXPECT_EQ(in[2], 77);
      EXPECT_EQ(in[4], 5);
    }
    MPI_Request_free(&requests[0]);
    MPI_Request_free(&requests[1]);
    // Gatherv of `pairs` blocks at displacements in extents.
    int all[2 * 9];
    for (int& v : all) v = -1;
    const int counts[2] = {1, 1};
    const int displs[2] = {2, 0};  // extents: rank 0's block after rank 1's
    MPI_Aint lb = 0;
    MPI_Aint extent = 0;
    MPI_Type_get_extent(pairs, &lb, &extent);
    EXPECT_EQ(extent, 5 * 4);
    MPI_Allgatherv(out, 1, pairs, all, counts, displs, pairs, MPI_COMM_WORLD);
    EXPECT_EQ(all[0], 10 * 1 + 2);  // rank 1's out[0] after its last round
    EXPECT_EQ(all[10], 10 * 0 + 2);
    EXPECT_EQ(all[2], -1);  // a hole of the type
    MPI_Type_free(&pairs);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

TEST(MpiDatatypes, PackingNativeAndExternal32) {
  ranks_done = 0;
  const Outcome o = run_mpi(1, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Datatype column;
    MPI_Type_vector(3, 1, 2, MPI_INT, &column);
    MPI_Type_commit(&column);
    const int source[6] = {1, 0, 2, 0, 3, 0};
    int size = 0;
    MPI_Pack_size(1, column, MPI_COMM_WORLD, &size);
    EXPECT_EQ(size, 12);
    char packed[32];
    int position = 0;
    MPI_Pack(source, 1, column, packed, sizeof packed, &position, MPI_COMM_WORLD);
    const double x = 0.5;
    MPI_Pack(&x, 1, MPI_DOUBLE, packed, sizeof packed, &position, MPI_COMM_WORLD);
    EXPECT_EQ(position, 20);
    int target[3] = {};
    double y = 0;
    position = 0;
    MPI_Unpack(packed, 20, &position, target, 3, MPI_INT, MPI_COMM_WORLD);
    MPI_Unpack(packed, 20, &position, &y, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    EXPECT_EQ(target[0], 1);
    EXPECT_EQ(target[2], 3);
    EXPECT_EQ(y, 0.5);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    position = 16;
    EXPECT_EQ(MPI_Pack(source, 1, column, packed, 20, &position, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    // external32: big-endian, MPI_LONG in 4 bytes.
    const long values[2] = {1, -2};
    unsigned char external[16] = {};
    MPI_Aint at = 0;
    MPI_Aint bytes = 0;
    MPI_Pack_external_size("external32", 2, MPI_LONG, &bytes);
    EXPECT_EQ(bytes, 8);
    MPI_Pack_external("external32", values, 2, MPI_LONG, external, sizeof external, &at);
    const unsigned char expected[8] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe};
    EXPECT_EQ(std::memcmp(external, expected, 8), 0);
    long back[2] = {};
    at = 0;
    MPI_Unpack_external("external32", external, 8, &at, back, 2, MPI_LONG);
    EXPECT_EQ(back[1], -2);
    EXPECT_EQ(MPI_Pack_external("native", values, 2, MPI_LONG, external, 16, &at), MPI_ERR_ARG);
    MPI_Type_free(&column);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 1);
}

TEST(MpiDatatypes, UncommittedTypeIsFatalByDefault) {
  const Outcome o = run_mpi(1, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    int x[2] = {};
    MPI_Send(x, 1, t, 0, 0, MPI_COMM_WORLD);
    return 0;
  });
  EXPECT_THAT(o.error, HasSubstr("MPI_Send: datatype"));
  EXPECT_THAT(o.error, HasSubstr("is not committed"));
}

// The Fortran 90 parameterized types: the smallest gfortran kind that holds the precision and
// range (SELECTED_INT_KIND / SELECTED_REAL_KIND), MPI_ERR_ARG where none does.
TEST(MpiDatatypes, Fortran90TypesAreTheSmallestKindThatFits) {
  ranks_done = 0;
  const Outcome o = run_mpi(1, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Type_create_f90_integer(2, &t);
    EXPECT_EQ(t, MPI_INTEGER1);
    MPI_Type_create_f90_integer(9, &t);
    EXPECT_EQ(t, MPI_INTEGER4);
    MPI_Type_create_f90_integer(10, &t);
    EXPECT_EQ(t, MPI_INTEGER8);
    MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t);
    EXPECT_EQ(t, MPI_REAL4);
    MPI_Type_create_f90_real(7, 37, &t);
    EXPECT_EQ(t, MPI_REAL8);
    MPI_Type_create_f90_real(MPI_UNDEFINED, 400, &t);
    EXPECT_EQ(t, MPI_REAL16);
    MPI_Type_create_f90_complex(15, 307, &t);
    EXPECT_EQ(t, MPI_COMPLEX16);
    // A status set by hand (generalized requests' query functions do this) reads back.
    MPI_Status status;
    MPI_Status_set_elements(&status, MPI_DOUBLE, 5);
    int elements = -1;
    MPI_Get_elements(&status, MPI_DOUBLE, &elements);
    EXPECT_EQ(elements, 5);
    MPI_Get_count(&status, MPI_INT, &elements);
    EXPECT_EQ(elements, 10);
    int size = 0;
    MPI_Type_size(t, &size);
    EXPECT_EQ(size, 16);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT_EQ(MPI_Type_create_f90_integer(19, &t), MPI_ERR_ARG);
    EXPECT_EQ(MPI_Type_create_f90_real(34, MPI_UNDEFINED, &t), MPI_ERR_ARG);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 1);
}

std::atomic<int> type_deletes{0};

int count_type_deletes(MPI_Datatype, int, void* value, void*) {
  if (value != nullptr) ++type_deletes;
  return MPI_SUCCESS;
}

// Attributes on datatypes, predefined and derived: read back, copied by MPI_Type_dup when the
// key's copy function says so, deleted (the delete function running) when replaced or freed.
TEST(MpiDatatypes, AttributesOnDatatypes) {
  ranks_done = 0;
  type_deletes = 0;
  const Outcome o = run_mpi(1, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int copied_key = MPI_KEYVAL_INVALID;
    int plain_key = MPI_KEYVAL_INVALID;
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, &count_type_deletes, &copied_key, nullptr);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, &count_type_deletes, &plain_key, nullptr);
    int a = 1;
    int b = 2;
    MPI_Type_set_attr(MPI_DOUBLE, plain_key, &a);  // a predefined type takes attributes too
    int* got = nullptr;
    int flag = 0;
    MPI_Type_get_attr(MPI_DOUBLE, plain_key, &got, &flag);
    EXPECT_EQ(flag, 1);
    EXPECT_EQ(got, &a);
    MPI_Type_get_attr(MPI_INT, plain_key, &got, &flag);
    EXPECT_EQ(flag, 0);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_set_attr(pair, copied_key, &a);
    MPI_Type_set_attr(pair, plain_key, &b);
    MPI_Datatype copy;
    MPI_Type_dup(pair, &copy);
    MPI_Type_get_attr(copy, copied_key, &got, &flag);
    EXPECT_EQ(flag, 1);
    EXPECT_EQ(got, &a);
    MPI_Type_get_attr(copy, plain_key, &got, &flag);
    EXPECT_EQ(flag, 0);                           // MPI_TYPE_NULL_COPY_FN: not copied
    MPI_Type_delete_attr(MPI_DOUBLE, plain_key);  // 1
    MPI_Type_free(&pair);                         // 2 and 3
    MPI_Type_free(&copy);                         // 4
    EXPECT_EQ(type_deletes, 4);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT_EQ(MPI_Type_delete_attr(MPI_DOUBLE, plain_key), MPI_ERR_KEYVAL);
    MPI_Type_free_keyval(&copied_key);
    MPI_Type_free_keyval(&plain_key);
    EXPECT_EQ(MPI_Type_set_attr(MPI_INT, 12345, &a), MPI_ERR_KEYVAL);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 1);
}

}  // namespace
