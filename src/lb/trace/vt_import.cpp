// Merging the per-rank vt LB data files into one trace (docs/trace-format.md, "DARMA vt LB
// data files"): ranks are PEs, the first phase the initial instance, each later phase a step.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

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

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return b > std::numeric_limits<std::uint64_t>::max() - a
             ? std::numeric_limits<std::uint64_t>::max()
             : a + b;
}

constexpr PeId max_pes = PeId{1} << 24;

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
    trace.initial.pes = pes();
    trace.initial.dims = dims();
    check_same_phases();
    const std::size_t phases = files_.front().phases.size();
    summary_.phases = phases;
    if (phases == 0) throw TraceError(files_.front().path + ": has no phases");
    for (std::size_t k = 0; k < phases; ++k) phase(trace, k);
    try {
      validate(trace);
    } catch (const TraceError& e) {
      throw TraceError("the imported vt files make an invalid trace: " + std::string(e.what()));
    }
    return trace;
  }

 private:
  std::vector<Pe> pes() {
    std::map<PeId, std::size_t> ranks;  // rank -> file
    PeId count = 0;
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
      PeId highest = *rank;
      for (const auto& phase : file.phases) {
        for (const VtTask& t : phase.tasks) highest = std::max(highest, t.node);
      }
      // Every PE up to the highest rank exists, so a stray huge number would allocate them all.
      if (highest >= max_pes) {
        throw TraceError(file.path + ": rank or node " + std::to_string(highest) +
                         " is beyond the " + std::to_string(max_pes) + " PEs a trace may have");
      }
      count = std::max(count, highest + 1);
    }
    std::vector<Pe> pes(static_cast<std::size_t>(count));
    for (const auto& [rank, f] : ranks) {
      Pe& pe = pes[static_cast<std::size_t>(rank)];
      pe.speed = files_[f].speed.value_or(1.0);
      pe.background = files_[f].background.value_or(0.0);
      pe.cluster = files_[f].cluster.value_or(0);
    }
    return pes;
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
    for (std::size_t f = 0; f < files_.size(); ++f) {
      for (const VtTask& t : files_[f].phases[k].tasks) {
        const auto [it, fresh] = tasks.emplace(t.id, Found{&t, f});
        if (!fresh) {
          const std::string& other = files_[it->second.file].path;
          throw TraceError(files_[f].path + ": " + name + ": object id " + std::to_string(t.id) +
                           " has a second task" +
                           (it->second.file == f ? "" : " (its first is in " + other + ")"));
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
      step.created.push_back(object(t, trace.initial.dims));
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
      Object o = object(t, instance.dims);
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

  static Object object(const VtTask& t, int dims) {
    Object o;
    o.id = t.id;
    o.size = t.size.value_or(0);
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
    for (const VtFile& f : files_) {
      for (const VtComm& c : f.phases[k].comms) {
        if (!tasks.contains(c.from) || !tasks.contains(c.to)) {
          ++summary_.skipped_communications;
          continue;
        }
        TraceEdge& e = edges[{c.from, c.to}];
        e.from = c.from;
        e.to = c.to;
        e.messages = saturating_add(e.messages, c.messages);
        e.bytes = saturating_add(e.bytes, c.bytes);
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
};

}  // namespace

Trace import_vt(const std::vector<std::string>& paths, VtImportSummary* summary) {
  if (paths.empty()) throw TraceError("vt import: no files given");
  std::vector<VtFile> files;
  files.reserve(paths.size());
  for (const std::string& path : paths) files.push_back(vt_detail::read_vt_file(path));
  VtImportSummary counted;
  Trace trace = Importer(std::move(files), counted).run();
  if (summary != nullptr) *summary = counted;
  return trace;
}

}  // namespace vela::lb
