// Merging the per-rank vt LB data files into one trace (docs/trace-format.md, "DARMA vt LB
// data files"): ranks are PEs, the first phase the initial instance, each later phase a step.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <new>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "io/totals.hpp"
#include "io_common.hpp"
#include "vt_detail.hpp"

namespace vela::lb {

namespace {

using vt_detail::VtComm;
using vt_detail::VtFile;
using vt_detail::VtTask;

// vt names its files data.%p.json: the last number in the name is the rank.
std::optional<PeId> rank_from_name(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  const auto last_digit = name.find_last_of("0123456789");
  if (last_digit == std::string::npos) return std::nullopt;
  std::size_t first = last_digit;
  while (first > 0 && std::isdigit(static_cast<unsigned char>(name[first - 1])) != 0) --first;
  if (last_digit - first > 8) return std::nullopt;
  return static_cast<PeId>(std::stol(name.substr(first, last_digit - first + 1)));
}

constexpr PeId max_pes = static_cast<PeId>(max_trace_pes);

// "ranks 0 to 3, 5 and 7 to 9": a set of ranks, for messages.
std::string rank_ranges(const std::map<PeId, std::size_t>& ranks) {
  std::string text;
  for (auto it = ranks.begin(); it != ranks.end();) {
    const PeId first = it->first;
    PeId last = first;
    while (++it != ranks.end() && it->first == last + 1) last = it->first;
    if (!text.empty()) text += ", ";
    text += std::to_string(first);
    if (last != first) text += (last == first + 1 ? ", " : " to ") + std::to_string(last);
  }
  return (ranks.size() == 1 ? "rank " : "ranks ") + text;
}

struct Found {
  const VtTask* task = nullptr;
  std::size_t file = 0;
};

class Importer {
 public:
  Importer(std::vector<VtFile> files, VtImportSummary& summary)
      : files_(std::move(files)), summary_(summary) {}

  Trace run() {
    summary_.files = files_.size();
    for (const VtFile& f : files_) {
      summary_.skipped_tasks += f.skipped_tasks;
      summary_.skipped_communications += f.skipped_communications;
    }
    Trace trace;
    check_one_export();
    trace.initial.pes = pes();
    trace.initial.dims = dims();
    check_same_phases();
    const std::size_t phases = files_.front().phases.size();
    summary_.phases = phases;
    if (phases == 0) throw TraceError(files_.front().path + ": has no phases");
    check_size();
    for (std::size_t k = 0; k < phases; ++k) phase(trace, k);
    try {
      validate(trace);
    } catch (const TraceError& e) {
      throw TraceError("the imported vt files make an invalid trace: " + std::string(e.what()));
    }
    // Checked phase by phase above, naming the file; this is the rule every trace read obeys.
    if (const std::string problem = trace_detail::totals_problem(trace); !problem.empty()) {
      throw TraceError("the imported vt files make a trace whose totals are out of range: " +
                       problem);
    }
    return trace;
  }

 private:
  // Files written by export_vt say how many ranks their export has and which trace it was: a
  // file left from another export, or one missing, would otherwise make a different trace.
  void check_one_export() const {
    const VtFile* marked = nullptr;  // the first file with the marks
    for (const VtFile& f : files_) {
      if (marked == nullptr && (f.ranks || f.export_id)) marked = &f;
    }
    if (marked == nullptr) return;
    for (const VtFile& f : files_) {
      if (!f.ranks || !f.export_id) {
        throw TraceError(f.path + ": is not from the same export as " + marked->path +
                         " (it lacks metadata.attributes." + vt_detail::ranks_key + " or " +
                         vt_detail::export_key + ", which " + marked->path +
                         " has); a directory should hold the files of one export only");
      }
      if (*f.export_id != *marked->export_id || *f.ranks != *marked->ranks) {
        throw TraceError(f.path + ": is from another export than " + marked->path + " (" +
                         vt_detail::export_key + " " + *f.export_id + " of " +
                         std::to_string(*f.ranks) + " ranks, against " + *marked->export_id +
                         " of " + std::to_string(*marked->ranks) +
                         "): a file left from an older export?");
      }
    }
    // More files than ranks: one is given twice, which pes() reports.
    if (static_cast<std::int64_t>(files_.size()) < *marked->ranks) {
      throw TraceError("the vt files given are " + std::to_string(files_.size()) + " of the " +
                       std::to_string(*marked->ranks) + " rank files of one export (" +
                       vt_detail::ranks_key + " in " + marked->path + "): some are missing");
    }
  }

  std::vector<Pe> pes() {
    std::map<PeId, std::size_t> ranks;  // rank -> file
    PeId count = 0;
    std::size_t count_from = 0;  // the file that names the highest rank or node
    for (std::size_t f = 0; f < files_.size(); ++f) {
      const VtFile& file = files_[f];
      const std::optional<PeId> rank = file.rank ? file.rank : rank_from_name(file.path);
      if (!rank) {
        throw TraceError(file.path +
                         ": cannot tell its rank: no metadata.rank and no number in "
                         "the file name");
      }
      const auto [it, fresh] = ranks.emplace(*rank, f);
      if (!fresh) {
        throw TraceError(file.path + ": rank " + std::to_string(*rank) + " again (" +
                         files_[it->second].path + " is rank " + std::to_string(*rank) + " too)");
      }
      // Every PE up to the highest rank exists, so a stray huge number would allocate them all.
      if (file.highest_named >= max_pes) {
        throw TraceError(file.path + ": " + file.highest_named_where + ": rank " +
                         std::to_string(file.highest_named) + " is beyond the " +
                         std::to_string(max_pes) + " PEs a trace may have");
      }
      const auto highest = std::max(*rank, static_cast<PeId>(file.highest_named));
      if (highest + 1 > count) {
        count = highest + 1;
        count_from = f;
      }
    }
    // vt writes one file per rank, 0 to N - 1: a rank without a file is a file not given.
    for (PeId r = 0; r < count; ++r) {
      if (ranks.contains(r)) continue;
      if (r < ranks.rbegin()->first) {
        throw TraceError("no vt file for rank " + std::to_string(r) + ": the files given hold " +
                         rank_ranges(ranks) +
                         "; vt writes one file per rank, 0 to N - 1 (is one missing?)");
      }
      const VtFile& naming = files_[count_from];
      throw TraceError(naming.path + ": " + naming.highest_named_where + " is rank " +
                       std::to_string(naming.highest_named) + ", but no vt file for rank " +
                       std::to_string(r) + " was given (the files given hold " +
                       rank_ranges(ranks) + "; vt writes one file per rank)");
    }
    std::vector<Pe> pes(static_cast<std::size_t>(count));
    double speeds = 0.0;
    for (const auto& [rank, f] : ranks) {
      Pe& pe = pes[static_cast<std::size_t>(rank)];
      pe.speed = files_[f].speed.value_or(1.0);
      pe.background = files_[f].background.value_or(0.0);
      pe.cluster = files_[f].cluster.value_or(0);
      speeds += pe.speed;
      if (!std::isfinite(speeds)) {
        throw TraceError(files_[f].path + ": metadata.attributes." + vt_detail::speed_key +
                         ": the ranks' speeds add up to more than the largest double; their "
                         "sum must be finite");
      }
    }
    time_ = io_detail::TimeTotal(pes);
    if (!time_.finite()) {
      throw TraceError(files_.front().path + " and the other files: metadata.attributes." +
                       vt_detail::background_key + ": " + time_.problem());
    }
    return pes;
  }

  // The loads the trace will hold, counted before any step is made (identical phases share
  // their records when read, and each becomes a step of its own here).
  void check_size() const {
    std::uint64_t tasks = 0;
    for (std::size_t k = 0; k < files_.front().phases.size(); ++k) {
      for (const VtFile& f : files_) {
        tasks += f.phases[k].records->tasks.size();
        if (tasks > max_trace_loads) {
          throw TraceError(f.path + ": phase " + std::to_string(f.phases[k].id) +
                           ": the files hold more than " + std::to_string(max_trace_loads) +
                           " tasks over their phases (identical phases counted each time), the "
                           "most loads a trace may hold (2^28)");
        }
      }
    }
  }

  int dims() const {
    std::optional<int> dims;
    std::string from;
    for (const VtFile& f : files_) {
      if (!f.dims) continue;
      if (dims && *dims != *f.dims) {
        throw TraceError(f.path + ": metadata.attributes." + vt_detail::dims_key + " is " +
                         std::to_string(*f.dims) + " but " + from + " says " +
                         std::to_string(*dims));
      }
      dims = f.dims;
      from = f.path;
    }
    return dims.value_or(0);
  }

  // Every rank records every phase (a rank without objects records it with no tasks).
  void check_same_phases() const {
    const VtFile& first = files_.front();
    for (const VtFile& f : files_) {
      const auto& a = first.phases;
      const auto& b = f.phases;
      for (std::size_t k = 0; k < std::max(a.size(), b.size()); ++k) {
        if (k < a.size() && k < b.size() && a[k].id == b[k].id) continue;
        const bool b_lacks = k >= b.size() || (k < a.size() && a[k].id < b[k].id);
        const VtFile& lacking = b_lacks ? f : first;
        const VtFile& having = b_lacks ? first : f;
        const std::int64_t id = b_lacks ? a[k].id : b[k].id;
        throw TraceError(lacking.path + ": has no phase " + std::to_string(id) + ", which " +
                         having.path + " has; every rank's file must hold the same phases");
      }
    }
  }

  void phase(Trace& trace, std::size_t k) {
    const std::int64_t phase_id = files_.front().phases[k].id;
    const std::string name = "phase " + std::to_string(phase_id);
    std::unordered_map<ObjectId, Found> tasks;
    io_detail::TimeTotal time = time_;
    for (std::size_t f = 0; f < files_.size(); ++f) {
      for (const VtTask& t : files_[f].phases[k].records->tasks) {
        const auto [it, fresh] = tasks.emplace(t.id, Found{&t, f});
        if (!fresh) {
          const std::string& other = files_[it->second.file].path;
          throw TraceError(files_[f].path + ": " + name + ": object id " + std::to_string(t.id) +
                           " has a second task" +
                           (it->second.file == f ? "" : " (its first is in " + other + ")"));
        }
        if (!time.add(t.time)) {
          throw TraceError(files_[f].path + ": " + name + ": object id " + std::to_string(t.id) +
                           ": " + time.problem());
        }
      }
    }
    summary_.tasks += tasks.size();
    std::vector<ObjectId> ids;
    ids.reserve(tasks.size());
    for (const auto& [id, found] : tasks) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    const std::vector<TraceEdge> edges = phase_edges(k, tasks);
    if (k == 0) {
      initial(trace.initial, ids, tasks, edges);
      return;
    }
    TraceStep& step = trace.steps.emplace_back();
    // Deletions, in alive order.
    for (const ObjectId id : alive_) {
      if (!tasks.contains(id)) {
        step.deleted.push_back(id);
        deleted_at_.emplace(id, phase_id);
      }
    }
    if (!step.deleted.empty()) {
      std::erase_if(alive_, [&](ObjectId id) { return !tasks.contains(id); });
      const std::unordered_set<ObjectId> gone(step.deleted.begin(), step.deleted.end());
      std::erase_if(
          edges_, [&](const TraceEdge& e) { return gone.contains(e.from) || gone.contains(e.to); });
    }
    // Creations, by id.
    for (const ObjectId id : ids) {
      if (pe_.contains(id)) continue;
      if (const auto it = deleted_at_.find(id); it != deleted_at_.end()) {
        throw TraceError(files_[tasks[id].file].path + ": " + name + ": object id " +
                         std::to_string(id) + " comes back after having no task in phase " +
                         std::to_string(it->second) + "; a trace never reuses an id");
      }
      const VtTask& t = *tasks[id].task;
      step.created.push_back(object(t, trace.initial.dims, tasks[id].file));
      alive_.push_back(id);
      pe_.emplace(id, t.node);
    }
    for (const ObjectId id : step.deleted) pe_.erase(id);
    step.loads.reserve(alive_.size());
    for (const ObjectId id : alive_) {
      const VtTask& t = *tasks[id].task;
      step.loads.push_back(t.time);
      if (t.node != pe_[id]) ++summary_.moved_tasks;
    }
    if (edges != edges_) {
      step.replaces_edges = true;
      step.edges = edges;
      edges_ = edges;
    }
  }

  void initial(Instance& instance, const std::vector<ObjectId>& ids,
               const std::unordered_map<ObjectId, Found>& tasks,
               const std::vector<TraceEdge>& edges) {
    std::unordered_map<ObjectId, std::uint32_t> position;
    for (const ObjectId id : ids) {
      const VtTask& t = *tasks.at(id).task;
      Object o = object(t, instance.dims, tasks.at(id).file);
      o.load = t.time;
      position.emplace(id, static_cast<std::uint32_t>(instance.objects.size()));
      instance.objects.push_back(o);
      alive_.push_back(id);
      pe_.emplace(id, t.node);
    }
    for (const TraceEdge& e : edges) {
      instance.edges.push_back({position.at(e.from), position.at(e.to), e.messages, e.bytes});
    }
    edges_ = edges;
  }

  Object object(const VtTask& t, int dims, std::size_t file) {
    Object o;
    o.id = t.id;
    o.size = t.size.value_or(0);
    if (!sizes_.add(o.size)) {
      throw TraceError(files_[file].path + ": object id " + std::to_string(t.id) +
                       ": user_defined." + vt_detail::size_key +
                       ": the sizes of the objects add up to more than 2^64 - 1 bytes (the bytes "
                       "of a migration must fit in 64 bits)");
    }
    for (std::size_t d = 0; d < static_cast<std::size_t>(dims); ++d) {
      o.coords[d] = t.coords[d].value_or(0.0);
    }
    o.pe = t.node;
    o.migratable = t.migratable;
    return o;
  }

  // The phase's communication between objects that have a task in it, by (from, to); repeats
  // (in one file or several) add up, as vt adds up a rank's records of one pair.
  std::vector<TraceEdge> phase_edges(std::size_t k,
                                     const std::unordered_map<ObjectId, Found>& tasks) {
    std::map<std::pair<ObjectId, ObjectId>, TraceEdge> edges;
    // The phase's edges together are a communication cut's most: within 64 bits.
    io_detail::CountTotal bytes;
    io_detail::CountTotal messages;
    for (const VtFile& f : files_) {
      for (const VtComm& c : f.phases[k].records->comms) {
        if (!tasks.contains(c.from) || !tasks.contains(c.to)) {
          ++summary_.skipped_communications;
          continue;
        }
        if (!bytes.add(c.bytes) || !messages.add(c.messages)) {
          throw TraceError(f.path + ": phase " + std::to_string(f.phases[k].id) +
                           ": communication from object id " + std::to_string(c.from) + " to " +
                           std::to_string(c.to) +
                           ": the phase's communications add up to more "
                           "than 2^64 - 1 " +
                           (bytes.fits() ? "messages" : "bytes") +
                           " (a communication cut must fit in 64 bits)");
        }
        TraceEdge& e = edges[{c.from, c.to}];
        e.from = c.from;
        e.to = c.to;
        e.messages += c.messages;  // within the phase's total, checked above
        e.bytes += c.bytes;
      }
    }
    std::vector<TraceEdge> list;
    list.reserve(edges.size());
    for (const auto& [key, e] : edges) list.push_back(e);
    return list;
  }

  std::vector<VtFile> files_;
  VtImportSummary& summary_;
  std::vector<ObjectId> alive_;                            // alive order
  std::unordered_map<ObjectId, PeId> pe_;                  // alive id -> PE in the trace
  std::unordered_map<ObjectId, std::int64_t> deleted_at_;  // id -> first phase without it
  std::vector<TraceEdge> edges_;                           // current edges
  io_detail::TimeTotal time_{{}};                          // the PEs' backgrounds, no load yet
  io_detail::CountTotal sizes_;                            // of every object made
};

}  // namespace

Trace import_vt(const std::vector<std::string>& paths, VtImportSummary* summary) {
  if (paths.empty()) throw TraceError("vt import: no files given");
  std::vector<VtFile> files;
  files.reserve(paths.size());
  for (const std::string& path : paths) {
    try {
      files.push_back(vt_detail::read_vt_file(path));
    } catch (const std::bad_alloc&) {
      throw TraceError(path + ": out of memory while reading it as a vt LB data file");
    }
  }
  VtImportSummary counted;
  try {
    Trace trace = Importer(std::move(files), counted).run();
    if (summary != nullptr) *summary = counted;
    return trace;
  } catch (const std::bad_alloc&) {
    throw TraceError("vt import of " + std::to_string(paths.size()) + " files (" + paths.front() +
                     ", ...): out of memory while making the trace");
  }
}

}  // namespace vela::lb
