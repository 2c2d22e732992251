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
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "io_common.hpp"
#include "vt_detail.hpp"

namespace vela::lb {

namespace {

using json = nlohmann::json;
namespace vt = vt_detail;

// One PE's file, written a phase at a time (so that a long trace never sits in memory as text)
// to a hidden temporary file beside it, which commit() renames into place.
class RankFile {
 public:
  RankFile(std::string path, std::string temporary, json metadata)
      : path_(std::move(path)), temporary_(std::move(temporary)) {
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
  }

  void commit() {
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
    // The first failure's reason (the disk full, a file size limit, no permission) is reported.
    int error = file == nullptr ? errno : 0;
    if (file != nullptr && std::fwrite(text_.data(), 1, text_.size(), file) != text_.size()) {
      error = errno;
    }
    if (file != nullptr && std::fclose(file) != 0 && error == 0) error = errno;
    if (error != 0) {
      throw TraceError(path_ + ": cannot write: " + std::strerror(error));
    }
    text_.clear();
  }

  std::string path_;
  std::string temporary_;
  std::string text_;
  bool first_ = true;
  bool started_ = false;
};

// FNV-1a over the trace's binary encoding (every field, in a fixed order): export_vt's
// vela_export, the same in every file of one export and different (but for a 2^-64 chance) for
// another trace.
std::string digest(const Trace& trace) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : trace_detail::encode_trace_binary(trace)) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  }
  std::array<char, 17> text{};
  std::snprintf(text.data(), text.size(), "%016llx", static_cast<unsigned long long>(hash));
  return text.data();
}

// The rank a file name of vt's default naming, data.<rank>.json, stands for.
std::optional<std::uint64_t> rank_file(const std::string& name) {
  constexpr std::string_view prefix = "data.";
  constexpr std::string_view suffix = ".json";
  if (!name.starts_with(prefix) || !name.ends_with(suffix)) return std::nullopt;
  const std::string_view digits =
      std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  std::uint64_t rank = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return rank;
}

json entity(ObjectId id, PeId home, bool migratable) {
  return {{"type", "object"}, {"id", id}, {"home", home}, {"migratable", migratable}};
}

class Exporter {
 public:
  Exporter(const Trace& trace, const std::string& directory) : trace_(trace) {
    const Instance& in = trace.initial;
    const std::string id = digest(trace);
    const std::string tag = ".tmp" + std::to_string(std::random_device{}());
    for (std::size_t p = 0; p < in.pes.size(); ++p) {
      const Pe& pe = in.pes[p];
      json metadata = {{"type", "LBDatafile"},
                       {"rank", p},
                       {"attributes",
                        {{vt::speed_key, pe.speed},
                         {vt::background_key, pe.background},
                         {vt::cluster_key, pe.cluster},
                         {vt::dims_key, in.dims},
                         {vt::ranks_key, in.pes.size()},
                         {vt::export_key, id}}}};
      const std::string name = "data." + std::to_string(p) + ".json";
      const auto path = std::filesystem::path(directory) / name;
      // Hidden, and not named *.json: a directory listing of rank files never takes it.
      const auto temporary = std::filesystem::path(directory) / ("." + name + tag);
      files_.emplace_back(path.string(), temporary.string(), std::move(metadata));
      paths_.push_back(path.string());
    }
  }

  // Writes every file under its temporary name, then renames them all into place: a failure
  // before the renames leaves the directory as it was.
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
    try {
      for (RankFile& f : files_) f.commit();
    } catch (...) {
      // Checked beforehand (every target a regular file or absent), so hardly ever: the set is
      // then mixed, and vela_export tells an import so.
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

std::vector<std::string> export_vt(const Trace& trace, const std::string& directory,
                                   const std::vector<std::string>& inputs) {
  try {
    validate(trace);
  } catch (const TraceError& e) {
    throw TraceError(directory + ": cannot export an invalid trace: " + e.what());
  }
  if (const std::string problem = trace_detail::totals_problem(trace); !problem.empty()) {
    throw TraceError(directory +
                     ": cannot export a trace whose totals are out of range: " + problem);
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
  namespace fs = std::filesystem;
  const std::uint64_t ranks = trace.initial.pes.size();
  // What the export replaces (its rank files) and removes (rank files beyond its ranks, left
  // from an older export): none of them may be an input.
  std::vector<fs::path> touched;
  for (std::uint64_t p = 0; p < ranks; ++p) {
    touched.push_back(fs::path(directory) / ("data." + std::to_string(p) + ".json"));
  }
  std::vector<fs::path> stale;
  std::error_code ec;
  if (fs::is_directory(directory, ec)) {
    for (const auto& entry : fs::directory_iterator(directory, ec)) {
      const auto rank = rank_file(entry.path().filename().string());
      if (rank && *rank >= ranks) stale.push_back(entry.path());
    }
    if (ec) throw TraceError(directory + ": cannot list the directory: " + ec.message());
  }
  // A rank file that cannot be replaced (a directory) would fail only at the renames, leaving a
  // mixed set.
  for (const fs::path& file : touched) {
    if (fs::is_directory(fs::symlink_status(file, ec))) {
      throw TraceError(file.string() + ": is a directory; the export cannot replace it");
    }
  }
  touched.insert(touched.end(), stale.begin(), stale.end());
  for (const fs::path& file : touched) {
    for (const std::string& input : inputs) {
      if (fs::equivalent(file, input, ec)) {
        throw TraceError(file.string() + ": is the input " + input + ", which the export would " +
                         (std::find(stale.begin(), stale.end(), file) == stale.end()
                              ? "replace"
                              : "remove as a rank file of an older export") +
                         "; export into another directory");
      }
    }
  }
  const bool existed = fs::exists(directory, ec);
  fs::create_directories(directory, ec);
  if (ec) throw TraceError(directory + ": cannot create the directory: " + ec.message());
  std::vector<std::string> written;
  try {
    written = Exporter(trace, directory).run();
  } catch (...) {
    if (!existed) fs::remove(directory, ec);  // only if empty: what this export created
    throw;
  }
  // The new set is complete: rank files beyond it would make an import read a mix.
  for (const fs::path& file : stale) {
    fs::remove(file, ec);
    if (ec) {
      throw TraceError(file.string() + ": cannot remove this rank file of an older export: " +
                       ec.message() + "; an import of " + directory + " would mix the two");
    }
  }
  return written;
}

}  // namespace vela::lb
