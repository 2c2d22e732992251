// One DARMA vt LB data file as read (vt_read.cpp), before the files are merged into a
// trace (vt_import.cpp). Field names follow vt's scripts/LBDatafile_schema.py.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
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
// Written by export_vt in every rank's metadata.attributes so that import_vt can tell a complete
// set: the number of rank files of the export, and a digest of the trace exported (the same in
// every file of one export; a file left from another export has another).
inline constexpr const char* ranks_key = "vela_ranks";
inline constexpr const char* export_key = "vela_export";
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

struct VtRecords {
  std::vector<VtTask> tasks;
  std::vector<VtComm> comms;
};

struct VtPhase {
  std::int64_t id = 0;
  // Shared by the phases that vt marked identical to this one (never copied: a range of
  // identical phases costs nothing to read).
  std::shared_ptr<const VtRecords> records;
};

// The most phases a file may hold, identical_to_previous ones included (2^22).
inline constexpr std::int64_t max_phases = std::int64_t{1} << 22;

struct VtFile {
  std::string path;
  std::optional<PeId> rank;     // metadata.rank
  std::vector<VtPhase> phases;  // ascending ids, identical_to_previous ones filled in
  std::optional<double> speed;
  std::optional<double> background;
  std::optional<std::int32_t> cluster;
  std::optional<int> dims;
  std::optional<std::int64_t> ranks;     // vela_ranks
  std::optional<std::string> export_id;  // vela_export
  bool compressed = false;               // brotli
  std::size_t skipped_tasks = 0;
  std::size_t skipped_communications = 0;
  // The highest rank a task's node or an entity's home names, and where: the set of files must
  // have that rank's.
  std::int64_t highest_named = -1;
  std::string highest_named_where;
};

// Reads and checks one file, plain JSON or brotli-compressed (a UTF-8 byte order mark is
// skipped); TraceErrors name the file, the phase and the element.
VtFile read_vt_file(const std::string& path);

// The most bytes a brotli-compressed file may decompress to (1 GiB).
inline constexpr std::size_t max_decompressed_bytes = std::size_t{1} << 30;

}  // namespace vela::lb::vt_detail
