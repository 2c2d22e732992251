// Binding PE threads to cores (on unless --no-pin) through hwloc.
#pragma once

#include <string>
#include <vector>

struct hwloc_topology;  // hwloc's topology handle; only pinning.cpp includes hwloc

namespace vela::rt {

// Owns the hwloc topology of this machine, restricted to the cores this process may use, and
// binds threads to them. Never aborts: when hwloc cannot load the topology or the system
// refuses a binding (common in containers), pin() says why and the run goes on unpinned.
//
// pin() may be called concurrently from many threads (it only reads the topology). Make the
// Pinning before pinning any thread: "available" is read from the process's binding, which
// shrinks once its threads are pinned.
class Pinning {
 public:
  Pinning();
  ~Pinning();

  Pinning(const Pinning&) = delete;
  Pinning& operator=(const Pinning&) = delete;

  // Cores available to this process, at least 1. Without a topology, the number of hardware
  // threads the standard library reports.
  int cores() const;

  // Binds the calling thread to one processing unit of core `pe % cores()`: a single PU, so
  // that the OS does not move the PE between hyperthreads of the core. Returns false and
  // fills `why_not` (when given) if it cannot.
  bool pin(int pe, std::string* why_not);

  // Binds the calling thread to the processing units of cores first .. first + count - 1
  // (the balancing thread to the cores set aside: --lb-pes). False with `why_not` filled if it
  // cannot.
  bool pin_to_cores(int first, int count, std::string* why_not);

  // OS indexes of the processing units of the core PE `pe` is bound to; the first is the
  // one pin() binds to. Empty without a topology.
  std::vector<unsigned> core_pus(int pe) const;

 private:
  hwloc_topology* topology_ = nullptr;  // null when hwloc could not load one
  std::string load_error_;              // why there is no topology
  // Per available core, in hwloc's logical order, the OS indexes of its allowed PUs.
  std::vector<std::vector<unsigned>> cores_;
};

// Cores available to this process, at least 1 (a Pinning made and dropped for the question).
int available_cores();

}  // namespace vela::rt
