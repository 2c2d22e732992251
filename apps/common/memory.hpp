// Whether a problem fits in the memory this machine can give it, checked by the applications
// before they allocate (an allocation failure deep in a run, or paging without end, is what a
// too-large problem gave before). Header-only: the applications' plain-MPI builds include it too.
//
// The available memory is the kernel's estimate of what a new program may use (MemAvailable in
// /proc/meminfo), lowered to an address-space or data limit set on the process; under Open MPI
// a problem's bytes are shared by the job's processes and this machine holds its own ones
// (OMPI_COMM_WORLD_LOCAL_SIZE of OMPI_COMM_WORLD_SIZE). Costs: one read of /proc/meminfo.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace vela::apps {

inline double available_memory() {
  double bytes = 0;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    double kib = 0;
    meminfo >> kib;
    if (key == "MemAvailable:") bytes = kib * 1024;
    meminfo.ignore(1 << 10, '\n');
  }
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit limit{};
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) continue;
    const auto cap = static_cast<double>(limit.rlim_cur);
    bytes = bytes > 0 ? std::min(bytes, cap) : cap;
  }
  return bytes;
}

inline std::string memory_text(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  for (; bytes >= 1024 && u < 6; ++u) bytes /= 1024;
  char text[64];
  std::snprintf(text, sizeof text, "%.1f %s", bytes, units[u]);
  return text;
}

// True when `need` bytes of the whole job fit here; else prints "PROGRAM: WHAT needs about N
// (HOW), more than the M of memory available here: ..." on stderr and returns false.
inline bool fits_in_memory(const char* program, double need, const std::string& what,
                           const char* how) {
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const char* world = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (local != nullptr && world != nullptr && std::atof(world) > 0)
    need = need * std::atof(local) / std::atof(world);
  const double have = available_memory();
  if (have <= 0 || need <= have) return true;
  std::fprintf(stderr,
               "%s: %s needs about %s (%s), more than the %s of memory available here: make "
               "the problem smaller, or use more machines\n",
               program, what.c_str(), memory_text(need).c_str(), how, memory_text(have).c_str());
  return false;
}

}  // namespace vela::apps
