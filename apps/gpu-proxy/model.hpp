// The GPU proxy's MPI program (model.cpp) and what its runner (main.cpp) shares with it.
#pragma once

// The program's main: the body of every rank (every process under Open MPI).
int gpu_proxy_model(int argc, char** argv);

// The rank grid closest to square for n ranks: px >= py, px * py = n.
inline void gpu_proxy_rank_grid(int n, int* px, int* py) {
  int best = 1;
  for (int d = 1; static_cast<long>(d) * d <= n; ++d) {
    if (n % d == 0) best = d;
  }
  *px = n / best;
  *py = best;
}
