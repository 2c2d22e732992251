/* The BRAMS proxy's entry points (model.cpp). model.cpp is compiled once per privatization
 * method, each copy under its own names, so one executable offers every method:
 *   brams_model_privatized / brams_model_tls / brams_model_copy   the MPI program's main
 *   brams_globals_copy                                             registers the copy variant's
 *                                                                  module globals (copy-in/out)
 * brams_rank_grid is shared by the model and its runner: the rank grid of a rank count. */
#ifndef BRAMS_MODEL_HPP
#define BRAMS_MODEL_HPP

int brams_model_privatized(int argc, char** argv);
int brams_model_tls(int argc, char** argv);
int brams_model_copy(int argc, char** argv);
void brams_globals_copy(bool enable);

/* The rank grid closest to square for n ranks: px >= py, px * py = n. */
inline void brams_rank_grid(int n, int* px, int* py) {
  int best = 1;
  for (int d = 1; (long)d * d <= n; ++d) {
    if (n % d == 0) best = d;
  }
  *px = n / best;
  *py = best;
}

#endif
