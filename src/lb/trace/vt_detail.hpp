// One DARMA vt LB data file as read (vt_read.cpp), before the files are merged into a
// trace (vt_import.cpp). Field names follow vt's scripts/LBDatafile_schema.py.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vela/lb/trace/vt.hpp"

namespace vela::lb::vt_detail {

// Keys under which export_vt keeps what vt has no field for: in "metadata"."attributes" (per
// rank) and in a task's "user_defined" (per object, on the phase where it first appears).
inline constexpr const char* speed_key = "vela_speed";
inline constexpr const char* background_key = "vela_background";
inline constexpr const char* cluster_key = "vela_cluster";
inline constexpr const char* dims_key = "vela_dims";
inline constexpr const char* size_key = "vela_size";
inline constexpr std::array<const char*, 3> coordinate_keys = {"vela_x", "vela_y", "vela_z"};

struct VtTask {
  ObjectId id = 0;
  PeId node = 0;
  double time = 0.0;
  bool migratable = true;
  std::optional<std::uint64_t> size;
  std::array<std::optional<double>, 3> coords;
};

struct VtComm {
  ObjectId from = 0;
  ObjectId to = 0;
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
};

struct VtPhase {
  std::int64_t id = 0;
  std::vector<VtTask> tasks;
  std::vector<VtComm> comms;
};

struct VtFile {
  std::string path;
  std::optional<PeId> rank;     // metadata.rank
  std::vector<VtPhase> phases;  // ascending ids, identical_to_previous ones filled in
  std::optional<double> speed;
  std::optional<double> background;
  std::optional<std::int32_t> cluster;
  std::optional<int> dims;
  std::size_t skipped_tasks = 0;
  std::size_t skipped_communications = 0;
};

// Reads and checks one file; TraceErrors name the file, the phase and the element.
VtFile read_vt_file(const std::string& path);

}  // namespace vela::lb::vt_detail
