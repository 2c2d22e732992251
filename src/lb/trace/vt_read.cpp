// Reading one DARMA vt LB data file. The fields and their types follow vt's
// scripts/LBDatafile_schema.py (DARMA-tasking/vt) and what LBDataHolder::toJson writes
// (src/vt/vrt/collection/balance/lb_data_holder.cc). Read here:
//   top level:  "type" (optional, "LBDatafile"), "metadata", "phases"
//   metadata:   "type" (optional, "LBDatafile"), "rank", "phases" ("skipped",
//               "identical_to_previous": {"list": [int], "range": [[int, int]]}), "attributes"
//   phase:      "id", "tasks", "communications"
//   task:       "entity" {"type", "id" | "seq_id", "home", "migratable"}, "node", "resource",
//               "time", "user_defined" (only the vela_* keys export_vt writes)
//   communication: "type", "from" / "to" {"type", "id" | "seq_id"}, "messages", "bytes"
// Everything else ("subphases", "index", "collection_id", "objgroup_id", "lb_iterations",
// "shared_node", other attributes and user_defined keys) is allowed and ignored.
#include <brotli/decode.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "io/format.hpp"
#include "io/read_file.hpp"
#include "io/totals.hpp"
#include "io_common.hpp"
#include "json_schema.hpp"
#include "vt_detail.hpp"

namespace vela::lb::vt_detail {

namespace {

using json = nlohmann::json;
using trace_detail::int64_max;
using trace_detail::Schema;

constexpr std::int64_t pe_max = std::numeric_limits<PeId>::max();

// ---- plain or brotli-compressed

// True when `text` starts, after a byte order mark and white space, as a JSON document of vt
// does ('{', or '[' for the parser to reject), or holds nothing else (the parser says so).
bool json_start(std::string_view text) {
  if (text.starts_with(io_detail::utf8_bom)) text.remove_prefix(io_detail::utf8_bom.size());
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos || text[first] == '{' || text[first] == '[';
}

std::string byte_text(std::string_view text) {
  if (text.empty()) return "nothing";
  std::array<char, 16> shown{};
  std::snprintf(shown.data(), shown.size(), "byte 0x%02x", static_cast<unsigned char>(text[0]));
  return shown.data();
}

struct BrotliDecoder {
  BrotliDecoder() : state(BrotliDecoderCreateInstance(nullptr, nullptr, nullptr)) {
    if (state == nullptr) throw std::bad_alloc();
  }
  ~BrotliDecoder() { BrotliDecoderDestroyInstance(state); }
  BrotliDecoder(const BrotliDecoder&) = delete;
  BrotliDecoder& operator=(const BrotliDecoder&) = delete;

  std::string error() const {
    return std::string("brotli's decoder fails with ") +
           BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state));
  }

  BrotliDecoderState* state;
};

std::string not_json_nor_brotli(std::string_view raw, const std::string& brotli_error) {
  return "not a vt LB data file: neither JSON (it starts with " + byte_text(raw) +
         ", not '{') nor brotli-compressed JSON (" + brotli_error + ")";
}

// For the first bytes of a file that is not plain JSON: "" when they start a brotli stream
// whose contents start as JSON, else what is wrong.
std::string brotli_probe(std::string_view first) {
  BrotliDecoder decoder;
  std::array<std::uint8_t, 4096> out{};
  std::size_t in_left = first.size();
  const auto* in = reinterpret_cast<const std::uint8_t*>(first.data());
  std::size_t out_left = out.size();
  std::uint8_t* next_out = out.data();
  const BrotliDecoderResult result =
      BrotliDecoderDecompressStream(decoder.state, &in_left, &in, &out_left, &next_out, nullptr);
  if (result == BROTLI_DECODER_RESULT_ERROR) return not_json_nor_brotli(first, decoder.error());
  const std::string_view produced(reinterpret_cast<const char*>(out.data()), out.size() - out_left);
  if (!json_start(produced)) {
    return "brotli-compressed, but what it holds is not JSON (it starts with " +
           byte_text(produced) + ")";
  }
  return "";
}

// The decompressed contents of a brotli-compressed file, at most max_decompressed_bytes.
std::string decompress(std::string_view raw, const std::string& path) {
  BrotliDecoder decoder;
  std::string text;
  std::size_t in_left = raw.size();
  const auto* in = reinterpret_cast<const std::uint8_t*>(raw.data());
  for (;;) {
    // Room doubles, up to one byte past the limit, so that going past it is seen.
    const std::size_t have = text.size();
    text.resize(have + std::min(std::max<std::size_t>(std::size_t{1} << 16, have),
                                max_decompressed_bytes + 1 - have));
    std::size_t out_left = text.size() - have;
    auto* next_out = reinterpret_cast<std::uint8_t*>(text.data() + have);
    const BrotliDecoderResult result =
        BrotliDecoderDecompressStream(decoder.state, &in_left, &in, &out_left, &next_out, nullptr);
    text.resize(text.size() - out_left);
    if (text.size() > max_decompressed_bytes) {
      throw TraceError(path + ": decompresses to more than " +
                       std::to_string(max_decompressed_bytes) +
                       " bytes (1 GiB), the most a vt LB data file may hold");
    }
    switch (result) {
      case BROTLI_DECODER_RESULT_SUCCESS:
        if (in_left != 0) {
          throw TraceError(path + ": " + std::to_string(in_left) +
                           " bytes follow the end of the brotli-compressed data");
        }
        if (!json_start(text)) {
          throw TraceError(path +
                           ": brotli-compressed, but what it holds is not JSON (it starts "
                           "with " +
                           byte_text(text) + ")");
        }
        return text;
      case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
        continue;
      case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
        throw TraceError(path + ": truncated: the brotli-compressed data ends early");
      case BROTLI_DECODER_RESULT_ERROR:
      default:
        throw TraceError(path + ": " + not_json_nor_brotli(raw, decoder.error()));
    }
  }
}

// vt's bit-encoded "id", else its "seq_id" (the schema requires one of them).
ObjectId entity_id(const Schema& schema, const json& entity, const std::string& where) {
  if (const json* id = Schema::optional(entity, "id")) {
    return schema.signed_integer(*id, where + ".id", 0, int64_max,
                                 "an entity id (an integer >= 0)");
  }
  if (const json* id = Schema::optional(entity, "seq_id")) {
    return schema.signed_integer(*id, where + ".seq_id", 0, int64_max,
                                 "an entity id (an integer >= 0)");
  }
  schema.fail(where, "has neither \"id\" nor \"seq_id\"");
}

void read_user_defined(const Schema& schema, const json& task, const std::string& where,
                       VtTask& out) {
  const json* user = Schema::optional(task, "user_defined");
  if (user == nullptr) return;
  schema.object(*user, where + ".user_defined");
  if (const json* size = Schema::optional(*user, size_key)) {
    out.size = schema.unsigned_integer(*size, where + ".user_defined." + size_key);
  }
  for (std::size_t d = 0; d < coordinate_keys.size(); ++d) {
    if (const json* c = Schema::optional(*user, coordinate_keys[d])) {
      out.coords[d] = schema.number(*c, where + ".user_defined." + coordinate_keys[d]);
    }
  }
}

// The task's object, or nothing for tasks that are not objects' work.
// Notes a rank that a task's node or an entity's home names: the set needs that rank's file.
void named_rank(VtFile& file, std::int64_t rank, const std::string& where) {
  if (rank <= file.highest_named) return;  // the first place that names it
  file.highest_named = rank;
  file.highest_named_where = where;
}

std::optional<VtTask> read_task(const Schema& schema, const json& task, const std::string& where,
                                VtFile& file) {
  schema.object(task, where);
  const std::string entity_where = where + ".entity";
  const json& entity = schema.object(schema.field(task, where, "entity"), entity_where);
  const std::string& type =
      schema.string(schema.field(entity, entity_where, "type"), entity_where + ".type");
  named_rank(
      file,
      schema.signed_integer(schema.field(entity, entity_where, "home"), entity_where + ".home", 0,
                            int64_max, "a rank (an integer >= 0)"),
      entity_where + ".home");
  VtTask out;
  out.migratable = schema.boolean(schema.field(entity, entity_where, "migratable"),
                                  entity_where + ".migratable");
  out.id = entity_id(schema, entity, entity_where);
  out.node = static_cast<PeId>(schema.signed_integer(
      schema.field(task, where, "node"), where + ".node", 0, pe_max, "a rank (an integer >= 0)"));
  named_rank(file, out.node, where + ".node");
  schema.string(schema.field(task, where, "resource"), where + ".resource");
  out.time = schema.number(schema.field(task, where, "time"), where + ".time");
  if (!std::isfinite(out.time) || out.time < 0.0) {
    schema.fail(where + ".time", trace_detail::show(out.time) + " must be a finite number >= 0");
  }
  read_user_defined(schema, task, where, out);
  if (type != "object") return std::nullopt;
  // vt's LBDataHolder adds this to phase 0 of every rank: "no element", not an object.
  if (out.id == 0 && !out.migratable && out.time == 0.0) return std::nullopt;
  return out;
}

// An object-to-object communication, or nothing for those with a node at one end.
std::optional<VtComm> read_comm(const Schema& schema, const json& comm, const std::string& where,
                                VtFile& file) {
  schema.object(comm, where);
  const std::string& type = schema.string(schema.field(comm, where, "type"), where + ".type");
  const json& from = schema.object(schema.field(comm, where, "from"), where + ".from");
  const json& to = schema.object(schema.field(comm, where, "to"), where + ".to");
  const std::string& from_type =
      schema.string(schema.field(from, where + ".from", "type"), where + ".from.type");
  const std::string& to_type =
      schema.string(schema.field(to, where + ".to", "type"), where + ".to.type");
  // An object's "home" (optional here, as vt writes none for a node) is a rank too.
  for (const auto& [end, entity] : {std::pair{".from", &from}, std::pair{".to", &to}}) {
    if (const json* home = Schema::optional(*entity, "home")) {
      named_rank(file,
                 schema.signed_integer(*home, where + end + ".home", 0, int64_max,
                                       "a rank (an integer >= 0)"),
                 where + end + ".home");
    }
  }
  VtComm out;
  out.from = entity_id(schema, from, where + ".from");
  out.to = entity_id(schema, to, where + ".to");
  out.messages =
      schema.unsigned_integer(schema.field(comm, where, "messages"), where + ".messages");
  const double bytes = schema.number(schema.field(comm, where, "bytes"), where + ".bytes");
  // vt keeps byte counts as doubles; 2^64 and beyond do not fit the trace's 64-bit counts.
  if (!std::isfinite(bytes) || bytes < 0.0 || bytes >= 0x1p64) {
    schema.fail(where + ".bytes", trace_detail::show(bytes) + " must be a number in [0, 2^64)");
  }
  out.bytes = bytes < 0x1p63 ? static_cast<std::uint64_t>(std::llround(bytes))
                             : static_cast<std::uint64_t>(bytes);
  const bool between_objects = from_type == "object" && to_type == "object";
  if (!between_objects || (type != "SendRecv" && type != "Broadcast")) return std::nullopt;
  return out;
}

VtPhase read_phase(const Schema& schema, const json& phase, const std::string& at, VtFile& file) {
  schema.object(phase, at);
  VtPhase out;
  out.id = schema.signed_integer(schema.field(phase, at, "id"), at + ".id", 0, int64_max,
                                 "a phase id (an integer >= 0)");
  const std::string where = at + " (phase " + std::to_string(out.id) + ")";
  auto records = std::make_shared<VtRecords>();
  // vt leaves "tasks" out of a phase in which the rank had no object.
  if (const json* tasks = Schema::optional(phase, "tasks")) {
    schema.array(*tasks, where + ".tasks", "tasks");
    records->tasks.reserve(tasks->size());
    for (std::size_t k = 0; k < tasks->size(); ++k) {
      auto task = read_task(schema, (*tasks)[k], Schema::at(where + ".tasks", k), file);
      if (task) {
        records->tasks.push_back(*task);
      } else {
        ++file.skipped_tasks;
      }
    }
  }
  if (const json* comms = Schema::optional(phase, "communications")) {
    schema.array(*comms, where + ".communications", "communications");
    for (std::size_t k = 0; k < comms->size(); ++k) {
      auto comm = read_comm(schema, (*comms)[k], Schema::at(where + ".communications", k), file);
      if (comm) {
        records->comms.push_back(*comm);
      } else {
        ++file.skipped_communications;
      }
    }
  }
  out.records = std::move(records);
  return out;
}

// The phase ids listed under metadata.phases.identical_to_previous ("list" and "range"), at most
// max_phases of them (a range is counted before it is expanded).
std::vector<std::int64_t> identical_phases(const Schema& schema, const json& metadata) {
  std::vector<std::int64_t> ids;
  const json* phases = Schema::optional(metadata, "phases");
  if (phases == nullptr) return ids;
  const std::string where = "metadata.phases";
  schema.object(*phases, where);
  const json* identical = Schema::optional(*phases, "identical_to_previous");
  if (identical == nullptr) return ids;
  const std::string at = where + ".identical_to_previous";
  schema.object(*identical, at);
  const auto id = [&](const json& v, const std::string& w) {
    return schema.signed_integer(v, w, 0, int64_max, "a phase id (an integer >= 0)");
  };
  if (const json* list = Schema::optional(*identical, "list")) {
    schema.array(*list, at + ".list", "phase ids");
    if (list->size() > static_cast<std::size_t>(max_phases)) {
      schema.fail(at + ".list", "has more than " + std::to_string(max_phases) +
                                    " phases, the most a file may hold (2^22)");
    }
    for (std::size_t k = 0; k < list->size(); ++k)
      ids.push_back(id((*list)[k], Schema::at(at + ".list", k)));
  }
  if (const json* ranges = Schema::optional(*identical, "range")) {
    schema.array(*ranges, at + ".range", "[first, last] pairs");
    for (std::size_t k = 0; k < ranges->size(); ++k) {
      const std::string w = Schema::at(at + ".range", k);
      const json& pair = schema.array((*ranges)[k], w, "two phase ids");
      if (pair.size() != 2) schema.fail(w, "expected [first, last], got " + pair.dump());
      const std::int64_t first = id(pair[0], w + "[0]");
      const std::int64_t last = id(pair[1], w + "[1]");
      if (last < first) schema.fail(w, "expected first <= last, got " + pair.dump());
      if (last - first >= max_phases - static_cast<std::int64_t>(ids.size())) {
        schema.fail(w, pair.dump() + " makes more than " + std::to_string(max_phases) +
                           " identical phases, the most a file may hold (2^22)");
      }
      for (std::int64_t p = first; p <= last; ++p) ids.push_back(p);
    }
  }
  return ids;
}

void read_metadata(const Schema& schema, const json& metadata, VtFile& file) {
  schema.object(metadata, "metadata");
  if (const json* type = Schema::optional(metadata, "type")) {
    if (schema.string(*type, "metadata.type") != "LBDatafile") {
      schema.fail("metadata.type", "expected \"LBDatafile\", got " + Schema::describe(*type));
    }
  }
  if (const json* rank = Schema::optional(metadata, "rank")) {
    file.rank = static_cast<PeId>(
        schema.signed_integer(*rank, "metadata.rank", 0, pe_max, "a rank (an integer >= 0)"));
  }
  const json* attributes = Schema::optional(metadata, "attributes");
  if (attributes == nullptr) return;
  const std::string at = "metadata.attributes";
  schema.object(*attributes, at);
  if (const json* v = Schema::optional(*attributes, speed_key)) {
    const std::string where = at + "." + speed_key;
    file.speed = schema.number(*v, where);
    const std::string problem = io_detail::speeds_problem({Pe{*file.speed, 0.0, 0}});
    // "PE 0: speed ..." -> "speed ..."
    if (!problem.empty()) schema.fail(where, problem.substr(problem.find(' ', 3) + 1));
  }
  if (const json* v = Schema::optional(*attributes, background_key)) {
    const std::string where = at + "." + background_key;
    file.background = schema.number(*v, where);
    if (!std::isfinite(*file.background) || *file.background < 0.0) {
      schema.fail(where, trace_detail::show(*file.background) + " must be a finite number >= 0");
    }
  }
  if (const json* v = Schema::optional(*attributes, ranks_key)) {
    file.ranks = schema.signed_integer(*v, at + "." + ranks_key, 1, max_trace_pes,
                                       "a number of ranks (an integer from 1 to 2^24)");
  }
  if (const json* v = Schema::optional(*attributes, export_key)) {
    file.export_id = schema.string(*v, at + "." + export_key);
  }
  if (const json* v = Schema::optional(*attributes, cluster_key)) {
    file.cluster = static_cast<std::int32_t>(schema.signed_integer(
        *v, at + "." + cluster_key, 0, std::numeric_limits<std::int32_t>::max(),
        "a cluster (an integer >= 0)"));
  }
  if (const json* v = Schema::optional(*attributes, dims_key)) {
    file.dims = static_cast<int>(schema.signed_integer(*v, at + "." + dims_key, 0, 3, "0 to 3"));
  }
}

VtFile read_document(const json& doc, const std::string& path) {
  const Schema schema(path);
  VtFile file;
  file.path = path;
  schema.object(doc, "the top level");
  if (const json* type = Schema::optional(doc, "type")) {
    if (schema.string(*type, "type") != "LBDatafile") {
      schema.fail("type", "expected \"LBDatafile\", got " + Schema::describe(*type));
    }
  }
  std::vector<std::int64_t> identical;
  if (const json* metadata = Schema::optional(doc, "metadata")) {
    read_metadata(schema, *metadata, file);
    identical = identical_phases(schema, *metadata);
  }
  const json& phases = schema.array(schema.field(doc, "", "phases"), "phases", "phases");
  std::map<std::int64_t, VtPhase> by_id;
  for (std::size_t p = 0; p < phases.size(); ++p) {
    VtPhase phase = read_phase(schema, phases[p], Schema::at("phases", p), file);
    const std::int64_t id = phase.id;
    if (!by_id.emplace(id, std::move(phase)).second) {
      schema.fail(Schema::at("phases", p), "phase " + std::to_string(id) + " appears twice");
    }
  }
  // A phase vt marked identical to the one before it and left out is a copy of that one.
  std::sort(identical.begin(), identical.end());
  for (const std::int64_t id : identical) {
    if (by_id.contains(id)) continue;
    const auto previous = by_id.lower_bound(id);
    if (previous == by_id.begin()) {
      schema.fail("metadata.phases.identical_to_previous",
                  "phase " + std::to_string(id) + " has no earlier phase to copy");
    }
    VtPhase copy = std::prev(previous)->second;  // shares the records
    copy.id = id;
    by_id.emplace(id, std::move(copy));
  }
  for (auto& [id, phase] : by_id) file.phases.push_back(std::move(phase));
  return file;
}

}  // namespace

VtFile read_vt_file(const std::string& path) {
  // Binary data that is not brotli's (such as /dev/zero) is refused from its first bytes.
  const std::string raw = trace_detail::read_file(path, [](std::string_view first) {
    return json_start(first) ? std::string() : brotli_probe(first);
  });
  // vt writes brotli unless run with --vt_lb_data_compress=false; brotli has no magic number, so
  // whatever does not start as JSON is taken for it.
  const bool compressed = !json_start(raw);
  const std::string inflated = compressed ? decompress(raw, path) : std::string();
  const std::string& text = compressed ? inflated : raw;
  const std::string decompressed = compressed ? "decompressed: " : "";
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw TraceError(path + ": " + decompressed + trace_detail::json_error_message(e, text));
  }
  try {
    VtFile file = read_document(doc, path);
    file.compressed = compressed;
    return file;
  } catch (const json::exception& e) {
    throw TraceError(path + ": " + trace_detail::json_error_message(e, text));
  }
}

}  // namespace vela::lb::vt_detail
