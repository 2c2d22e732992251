// DARMA vt's LB data files ("LBDatafile": one JSON file per rank, each with the tasks and the
// communication of every recorded phase) as Vela traces, both ways. The mapping, and the vt
// fields read and written, are in docs/trace-format.md ("DARMA vt LB data files").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "vela/lb/trace/trace.hpp"

namespace vela::lb {

// What import_vt read, and what it left out.
struct VtImportSummary {
  std::size_t files = 0;
  std::size_t phases = 0;  // recorded phases, identical_to_previous ones included
  std::size_t tasks = 0;   // tasks that became loads
  // vt's phase-0 placeholder task (entity id 0, not migratable, time 0) and entities that are
  // not "object"s.
  std::size_t skipped_tasks = 0;
  // Communications with a node at one end (NodeToCollection, ...) or with an object that has no
  // task in the phase: a trace edge joins two objects alive in the step.
  std::size_t skipped_communications = 0;
  // Tasks found on another node than where the trace places their object: vt's balancer moved
  // them. A trace records loads, not placements (the replay decides those), so these are counted
  // and otherwise ignored.
  std::size_t moved_tasks = 0;
};

// Reads vt LB data files (one per rank, any order), plain JSON or brotli-compressed (vt's
// default, *.json.br), into a trace: ranks become PEs, entities objects (by "id", else
// "seq_id"), the first phase the initial instance and each later phase one step; objects missing
// from a phase are deleted, new ones created; SendRecv and Broadcast communications between
// objects become edges. The files must be a whole set: ranks 0 to N - 1 with no gap, and, for
// files export_vt wrote, all of one export. Throws TraceError naming the file, the phase and the
// element.
Trace import_vt(const std::vector<std::string>& paths, VtImportSummary* summary = nullptr);

// Writes `trace` as vt LB data files, DIRECTORY/data.<PE>.json for every PE (vt's default
// naming), creating the directory if needed: phase 0 is the initial instance, phase s + 1 step s,
// with the objects where the trace places them (initial PEs, created objects where created).
// The set is complete or absent: every file is written under a temporary name and renamed into
// place once all are written, then the rank files data.<N>.json beyond the trace's PEs (an older
// export's) are removed; a failure before the renames leaves the directory as it was. None of
// `inputs` (the files the trace came from) may be replaced or removed: that is an error, checked
// before anything is written. Returns the paths written. Throws TraceError for an invalid trace
// or a failed write.
std::vector<std::string> export_vt(const Trace& trace, const std::string& directory,
                                   const std::vector<std::string>& inputs = {});

}  // namespace vela::lb
