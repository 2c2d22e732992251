// Binding PE threads to cores with hwloc; failures are reported, never fatal.
#include "core/pinning.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <thread>

namespace vela::rt {
namespace {

std::string errno_text(int error) {
  return std::generic_category().message(error);
}

// OS indexes of the allowed PUs of `object`.
std::vector<unsigned> allowed_pus(hwloc_topology_t topology, hwloc_obj_t object) {
  std::vector<unsigned> pus;
  hwloc_bitmap_t set = hwloc_bitmap_dup(object->cpuset);
  if (set == nullptr) return pus;
  hwloc_bitmap_and(set, set, hwloc_topology_get_allowed_cpuset(topology));
  for (int pu = hwloc_bitmap_first(set); pu >= 0; pu = hwloc_bitmap_next(set, pu))
    pus.push_back(static_cast<unsigned>(pu));
  hwloc_bitmap_free(set);
  return pus;
}

// A loaded topology of this machine with `flags`, or null (and errno set).
hwloc_topology_t load_topology(unsigned long flags) {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return nullptr;
  if (hwloc_topology_set_flags(topology, flags) == 0 && hwloc_topology_load(topology) == 0)
    return topology;
  const int error = errno;
  hwloc_topology_destroy(topology);
  errno = error;
  return nullptr;
}

// Binds the calling thread to the processing units `pus` (OS indexes): 0, or the errno of the
// refusal (ENOMEM where no bitmap could be made).
int bind_thread(hwloc_topology_t topology, const std::vector<unsigned>& pus) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == nullptr) return ENOMEM;
  for (const unsigned pu : pus) hwloc_bitmap_set(set, pu);
  const int error = hwloc_set_cpubind(topology, set, HWLOC_CPUBIND_THREAD) != 0 ? errno : 0;
  hwloc_bitmap_free(set);
  return error;
}

}  // namespace

Pinning::Pinning() {
  // Only the cores this process may run on (taskset, cgroup cpusets) count as available;
  // where hwloc cannot restrict the discovery, fall back to the whole machine.
  hwloc_topology_t topology =
      load_topology(HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM | HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING);
  if (topology == nullptr) topology = load_topology(0);
  if (topology == nullptr) {
    load_error_ = "hwloc could not load the machine topology: " + errno_text(errno);
    return;
  }
  topology_ = topology;

  // Machines whose cores hwloc cannot see still have PUs: use them as the cores.
  const hwloc_obj_type_t type =
      hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  const int count = hwloc_get_nbobjs_by_type(topology, type);
  for (int i = 0; i < count; ++i) {
    std::vector<unsigned> pus =
        allowed_pus(topology, hwloc_get_obj_by_type(topology, type, static_cast<unsigned>(i)));
    if (!pus.empty()) cores_.push_back(std::move(pus));
  }
  if (cores_.empty()) load_error_ = "hwloc found no core this process may run on";
}

Pinning::~Pinning() {
  if (topology_ != nullptr) hwloc_topology_destroy(topology_);
}

int Pinning::cores() const {
  if (!cores_.empty()) return static_cast<int>(cores_.size());
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

std::vector<unsigned> Pinning::core_pus(int pe) const {
  if (pe < 0 || cores_.empty()) return {};
  return cores_[static_cast<std::size_t>(pe) % cores_.size()];
}

bool Pinning::pin(int pe, std::string* why_not) {
  const auto refuse = [&](std::string reason) {
    if (why_not != nullptr) *why_not = std::move(reason);
    return false;
  };
  if (pe < 0) return refuse("cannot pin PE " + std::to_string(pe) + ": PE numbers start at 0");
  if (topology_ == nullptr || cores_.empty())
    return refuse("cannot pin PE " + std::to_string(pe) + ": " + load_error_);
  if (hwloc_topology_get_support(topology_)->cpubind->set_thisthread_cpubind == 0)
    return refuse("cannot pin PE " + std::to_string(pe) +
                  ": this system does not support binding threads");

  const std::size_t core = static_cast<std::size_t>(pe) % cores_.size();
  const unsigned pu = cores_[core].front();
  const int error = bind_thread(topology_, {pu});
  if (error != 0) {
    return refuse("cannot pin PE " + std::to_string(pe) + " to core " + std::to_string(core) +
                  " (PU " + std::to_string(pu) + "): " + errno_text(error));
  }
  return true;
}

bool Pinning::pin_to_cores(int first, int count, std::string* why_not) {
  const std::string what =
      "cannot pin to cores " + std::to_string(first) + ".." + std::to_string(first + count - 1);
  const auto refuse = [&](const std::string& reason) {
    if (why_not != nullptr) *why_not = what + ": " + reason;
    return false;
  };
  if (topology_ == nullptr || cores_.empty()) return refuse(load_error_);
  if (first < 0 || count < 1 || static_cast<std::size_t>(first + count) > cores_.size()) {
    return refuse("this process may use cores 0.." + std::to_string(cores_.size() - 1));
  }
  std::vector<unsigned> pus;
  for (int c = first; c < first + count; ++c) {
    const auto& core = cores_[static_cast<std::size_t>(c)];
    pus.insert(pus.end(), core.begin(), core.end());
  }
  const int error = bind_thread(topology_, pus);
  if (error != 0) return refuse(errno_text(error));
  return true;
}

int available_cores() {
  return Pinning().cores();
}

}  // namespace vela::rt
