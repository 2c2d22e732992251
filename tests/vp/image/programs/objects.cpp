// A C++ program with what C++ adds to a program's globals: a global object whose constructor
// and destructor print (once per rank, as once per MPI process), a static member, a function
// static object, thread_locals (one with a destructor), a class with virtual functions and an
// exception thrown and caught after each migration.
#include <mpi.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Announced {
  std::string name = "announced";
  int rank = -1;
  Announced() { std::printf("constructed %s\n", name.c_str()); }
  ~Announced() { std::printf("destroyed %s of rank %d\n", name.c_str(), rank); }
};

struct Shape {
  static int made;
  Shape() { ++made; }
  virtual ~Shape() = default;
  virtual int sides() const { return 0; }
};
int Shape::made = 0;

struct Square : Shape {
  int sides() const override { return 4; }
};

thread_local int per_thread = 100;
// A thread_local object with a destructor: destroyed once per rank (the process's thread), at
// its end, before the global objects.
thread_local Announced per_thread_object;
std::vector<int> history;

std::vector<int>& seen() {
  static std::vector<int> values;
  return values;
}

}  // namespace

Announced announced;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  announced.rank = rank;
  per_thread_object.name = "thread_local";
  per_thread_object.rank = rank;
  int caught = 0;
  for (int step = 0; step < 3; ++step) {
    const Square square;
    const Shape& shape = square;
    history.push_back(shape.sides() * (rank + step));
    seen().push_back(step);
    per_thread += rank;
    MPI_Migrate();
    try {
      throw std::runtime_error("step " + std::to_string(step));
    } catch (const std::exception& e) {
      caught += static_cast<int>(std::string(e.what()).size());
    }
  }
  int last = history.back();
  std::printf("rank %d: made %d history %zu last %d seen %zu thread %d caught %d\n", rank,
              Shape::made, history.size(), last, seen().size(), per_thread, caught);
  MPI_Finalize();
  return 0;
}
