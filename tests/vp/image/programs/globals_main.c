/* A C program whose state lives where real programs keep it: a global counter, a static local,
 * a table of function pointers, getopt's optind/optarg, strtok's position, rand's and drand48's
 * seeds. This file defines main and never includes mpi.h (the MPI calls are in
 * globals_steps.c). Shared by the ranks of a process, every line it prints comes out wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int start(int argc, char** argv);
void step_done(int step);
void finish(long total);

int counter = 0;
static double scale = 1.0;

static int bump(int by) {
  static int calls = 0;
  counter += by;
  return ++calls;
}

static int twice(int by) {
  return bump(2 * by);
}

int (*const steps_table[2])(int) = {bump, twice};

int main(int argc, char** argv) {
  const int rank = start(argc, argv);
  int steps = 3, use_twice = 0, opt;
  while ((opt = getopt(argc, argv, "s:tk:")) != -1) {
    if (opt == 's') steps = atoi(optarg);
    if (opt == 't') use_twice = 1;
    if (opt == 'k') scale = atof(optarg);
  }
  srand(11 + (unsigned)rank);
  srand48(5 + rank);
  char words[] = "alpha beta gamma delta";
  char* word = strtok(words, " ");
  long total = 0;
  int calls = 0;
  for (int step = 0; step < steps; ++step) {
    calls = steps_table[use_twice](rank + 1);
    total += rand() % 1000 + (long)(drand48() * 1000 * scale);
    word = strtok(NULL, " ");
    step_done(step);
  }
  printf("rank %d: counter %d calls %d optind %d word %s total %ld\n", rank, counter, calls, optind,
         word != NULL ? word : "-", total);
  finish(total);
  return 0;
}
