// Writing a trace as DARMA vt LB data files, one per PE, that vt's
// scripts/LBDatafile_schema.py accepts. Written (and nothing else):
//   top level:  "metadata" {"type": "LBDatafile", "rank", "attributes" {vela_speed,
//               vela_background, vela_cluster, vela_dims}}, "phases"
//   phase:      "id", "tasks", "communications" (left out when the PE sends nothing)
//   task:       "entity" {"type": "object", "id", "home", "migratable"}, "node",
//               "resource": "cpu", "time" (a float, as the schema requires), and, on the phase
//               where the object first appears, "user_defined" {vela_size, vela_x, ...}
//   communication: "type": "SendRecv", "from" / "to" (entities as in tasks), "messages",
//               "bytes" (a float), in the file of the sender's PE
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "io_common.hpp"
#include "vt_detail.hpp"

namespace vela::lb {

namespace {

using json = nlohmann::json;
namespace vt = vt_detail;

// One PE's file, written a phase at a time, so that a long trace never sits in memory as text.
class RankFile {
 public:
  RankFile(std::string path, json metadata) : path_(std::move(path)), temporary_(path_ + ".tmp") {
    text_ = "{\"metadata\": " + metadata.dump() + ",\n\"phases\": [";
  }

  void phase(const json& phase) {
    text_ += first_ ? "\n" : ",\n";
    first_ = false;
    text_ += phase.dump();
    if (text_.size() > (std::size_t{1} << 22)) flush();
  }

  void finish() {
    text_ += "\n]}\n";
    flush();
    std::error_code ec;
    std::filesystem::rename(temporary_, path_, ec);
    if (ec) throw TraceError(path_ + ": cannot replace: " + ec.message());
  }

  void abandon() {
    std::error_code ec;
    std::filesystem::remove(temporary_, ec);
  }

 private:
  void flush() {
    std::FILE* file = std::fopen(temporary_.c_str(), started_ ? "ab" : "wb");
    started_ = true;
    bool ok = file != nullptr && std::fwrite(text_.data(), 1, text_.size(), file) == text_.size();
    if (file != nullptr) ok = std::fclose(file) == 0 && ok;
    if (!ok) throw TraceError(path_ + ": cannot write");
    text_.clear();
  }

  std::string path_;
  std::string temporary_;
  std::string text_;
  bool first_ = true;
  bool started_ = false;
};

json entity(ObjectId id, PeId home, bool migratable) {
  return {{"type", "object"}, {"id", id}, {"home", home}, {"migratable", migratable}};
}

class Exporter {
 public:
  Exporter(const Trace& trace, const std::string& directory) : trace_(trace) {
    const Instance& in = trace.initial;
    for (std::size_t p = 0; p < in.pes.size(); ++p) {
      const Pe& pe = in.pes[p];
      json metadata = {{"type", "LBDatafile"},
                       {"rank", p},
                       {"attributes",
                        {{vt::speed_key, pe.speed},
                         {vt::background_key, pe.background},
                         {vt::cluster_key, pe.cluster},
                         {vt::dims_key, in.dims}}}};
      const auto path = std::filesystem::path(directory) / ("data." + std::to_string(p) + ".json");
      files_.emplace_back(path.string(), std::move(metadata));
      paths_.push_back(path.string());
    }
  }

  std::vector<std::string> run() {
    try {
      TraceCursor cursor(trace_);
      for (const Object& o : trace_.initial.objects) home_.emplace(o.id, o.pe);
      write_phase(0, cursor.instance(), trace_.initial.objects);
      while (cursor.next()) {
        const TraceStep& step = trace_.steps[cursor.steps_done() - 1];
        for (const Object& o : step.created) home_.emplace(o.id, o.pe);
        write_phase(cursor.steps_done(), cursor.instance(), step.created);
      }
      for (RankFile& f : files_) f.finish();
    } catch (...) {
      for (RankFile& f : files_) f.abandon();
      throw;
    }
    return paths_;
  }

 private:
  json task(const Object& o, bool first_appearance) const {
    json t = {{"entity", entity(o.id, home_.at(o.id), o.migratable)},
              {"node", o.pe},
              {"resource", "cpu"},
              {"time", o.load}};
    if (first_appearance) {
      json user = {{vt::size_key, o.size}};
      for (std::size_t d = 0; d < static_cast<std::size_t>(trace_.initial.dims); ++d) {
        user[vt::coordinate_keys[d]] = o.coords[d];
      }
      t["user_defined"] = std::move(user);
    }
    return t;
  }

  void write_phase(std::size_t id, const Instance& in, const std::vector<Object>& appearing) {
    std::unordered_map<ObjectId, bool> fresh;
    for (const Object& o : appearing) fresh.emplace(o.id, true);
    std::vector<json> phases(files_.size());
    for (json& p : phases) p = {{"id", id}, {"tasks", json::array()}};
    for (const Object& o : in.objects) {
      phases[static_cast<std::size_t>(o.pe)]["tasks"].push_back(task(o, fresh.contains(o.id)));
    }
    for (const Edge& e : in.edges) {
      const Object& from = in.objects[e.from];
      const Object& to = in.objects[e.to];
      json comm = {{"type", "SendRecv"},
                   {"from", entity(from.id, home_.at(from.id), from.migratable)},
                   {"to", entity(to.id, home_.at(to.id), to.migratable)},
                   {"messages", e.messages},
                   {"bytes", static_cast<double>(e.bytes)}};
      phases[static_cast<std::size_t>(from.pe)]["communications"].push_back(std::move(comm));
    }
    for (std::size_t p = 0; p < files_.size(); ++p) files_[p].phase(phases[p]);
  }

  const Trace& trace_;
  std::vector<RankFile> files_;
  std::vector<std::string> paths_;
  std::unordered_map<ObjectId, PeId> home_;  // the PE where each object first appears
};

}  // namespace

std::vector<std::string> export_vt(const Trace& trace, const std::string& directory) {
  try {
    validate(trace);
  } catch (const TraceError& e) {
    throw TraceError(directory + ": cannot export an invalid trace: " + e.what());
  }
  const auto negative = [](const Object& o) { return o.id < 0; };
  bool any_negative =
      std::any_of(trace.initial.objects.begin(), trace.initial.objects.end(), negative);
  for (const TraceStep& step : trace.steps) {
    any_negative = any_negative || std::any_of(step.created.begin(), step.created.end(), negative);
  }
  if (any_negative) {
    throw TraceError(directory +
                     ": cannot export: vt entity ids are unsigned, and the trace has "
                     "a negative object id");
  }
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) throw TraceError(directory + ": cannot create the directory: " + ec.message());
  return Exporter(trace, directory).run();
}

}  // namespace vela::lb
