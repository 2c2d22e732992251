// Writing instances as JSON (docs/instance-format.md): numbers are streamed through
// std::to_chars, whose shortest form reads back as the same double.
#include "vela/lb/io/io.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format.hpp"
#include "replace_file.hpp"
#include "totals.hpp"

namespace vela::lb {
namespace {

using io_detail::errno_text;
using io_detail::format_name;

// Collects the text in a large buffer and hands it to `sink` chunk by chunk.
class Output {
 public:
  explicit Output(std::function<void(std::string_view)> sink) : sink_(std::move(sink)) {
    buffer_.reserve(chunk + 64);
  }

  void text(std::string_view s) {
    buffer_.append(s);
    if (buffer_.size() >= chunk) flush();
  }

  template <class Integer>
  void integer(Integer value) {
    std::array<char, 24> digits;
    const auto result = std::to_chars(digits.data(), digits.data() + digits.size(), value);
    text(std::string_view(digits.data(), static_cast<std::size_t>(result.ptr - digits.data())));
  }

  // The shortest text that reads back as the same double.
  void real(double value) {
    if (value == 0.0 && std::signbit(value)) {
      text("-0.0");  // "-0" reads back as an integer, which has no sign
      return;
    }
    std::array<char, 32> digits;
    const auto result = std::to_chars(digits.data(), digits.data() + digits.size(), value);
    text(std::string_view(digits.data(), static_cast<std::size_t>(result.ptr - digits.data())));
  }

  void flush() {
    if (!buffer_.empty()) sink_(buffer_);
    buffer_.clear();
  }

 private:
  static constexpr std::size_t chunk = std::size_t{1} << 20;
  std::function<void(std::string_view)> sink_;
  std::string buffer_;
};

template <class Write>
void write_column(Output& out, std::string_view name, std::size_t count, bool last, Write write) {
  out.text("    \"");
  out.text(name);
  out.text("\": [");
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) out.text(",");
    write(i);
  }
  out.text(last ? "]\n" : "],\n");
}

void write_json(const Instance& instance, Output& out) {
  out.text("{\n  \"format\": \"");
  out.text(format_name);
  out.text("\",\n  \"version\": ");
  out.integer(format_version_for(instance));
  out.text(",\n  \"dims\": ");
  out.integer(instance.dims);

  const auto& pes = instance.pes;
  out.text(",\n  \"pes\": {\n");
  write_column(out, "speed", pes.size(), false, [&](std::size_t i) { out.real(pes[i].speed); });
  write_column(out, "background", pes.size(), false,
               [&](std::size_t i) { out.real(pes[i].background); });
  write_column(out, "cluster", pes.size(), true,
               [&](std::size_t i) { out.integer(pes[i].cluster); });

  const auto& objects = instance.objects;
  const std::size_t n = objects.size();
  out.text("  },\n  \"objects\": {\n");
  write_column(out, "id", n, false, [&](std::size_t i) { out.integer(objects[i].id); });
  write_column(out, "load", n, false, [&](std::size_t i) { out.real(objects[i].load); });
  write_column(out, "size", n, false, [&](std::size_t i) { out.integer(objects[i].size); });
  write_column(out, "pe", n, false, [&](std::size_t i) { out.integer(objects[i].pe); });
  write_column(out, "migratable", n, instance.dims == 0,
               [&](std::size_t i) { out.text(objects[i].migratable ? "true" : "false"); });
  constexpr std::array<std::string_view, 3> axes = {"x", "y", "z"};
  for (std::size_t axis = 0; axis < static_cast<std::size_t>(instance.dims); ++axis) {
    write_column(out, axes[axis], n, axis + 1 == static_cast<std::size_t>(instance.dims),
                 [&](std::size_t i) { out.real(objects[i].coords[axis]); });
  }

  const auto& edges = instance.edges;
  const std::size_t m = edges.size();
  out.text("  },\n  \"edges\": {\n");
  write_column(out, "from", m, false,
               [&](std::size_t e) { out.integer(objects[edges[e].from].id); });
  write_column(out, "to", m, false, [&](std::size_t e) { out.integer(objects[edges[e].to].id); });
  write_column(out, "messages", m, false, [&](std::size_t e) { out.integer(edges[e].messages); });
  write_column(out, "bytes", m, true, [&](std::size_t e) { out.integer(edges[e].bytes); });
  const auto& hyperedges = instance.hyperedges;
  if (!hyperedges.empty()) {
    out.text("  },\n  \"hyperedges\": {\n");
    write_column(out, "pins", hyperedges.size(), false, [&](std::size_t h) {
      out.text("[");
      for (std::size_t k = 0; k < hyperedges[h].pins.size(); ++k) {
        if (k > 0) out.text(",");
        out.integer(objects[hyperedges[h].pins[k]].id);
      }
      out.text("]");
    });
    write_column(out, "bytes", hyperedges.size(), true,
                 [&](std::size_t h) { out.integer(hyperedges[h].bytes); });
  }
  out.text("  }\n}\n");
  out.flush();
}

// Only a valid instance can be written: the format has no spelling for NaN or a dangling edge.
void check_writable(const Instance& instance, const std::string& prefix) {
  try {
    validate(instance);
  } catch (const InstanceError& e) {
    throw InstanceError(prefix + "cannot write an invalid instance: " + e.what());
  }
  // The reader rejects these (docs/instance-format.md, "Totals"): no file it cannot read back.
  if (const std::string problem = io_detail::totals_problem(instance); !problem.empty()) {
    throw InstanceError(prefix +
                        "cannot write an instance whose totals are out of range: " + problem);
  }
}

// Writes through stdio, whose errno says why a write failed. `path` names the file in messages.
void write_file(const Instance& instance, const std::string& target, const std::string& path) {
  std::FILE* file = std::fopen(target.c_str(), "wb");
  if (file == nullptr) {
    throw InstanceError(path + ": cannot open for writing: " + errno_text(errno));
  }
  int error = 0;
  Output out([&](std::string_view chunk) {
    if (error == 0 && !chunk.empty() &&
        std::fwrite(chunk.data(), 1, chunk.size(), file) != chunk.size()) {
      error = errno != 0 ? errno : EIO;
    }
  });
  write_json(instance, out);
  if (error == 0 && std::fflush(file) != 0) error = errno;
  if (std::fclose(file) != 0 && error == 0) error = errno;
  if (error != 0) throw InstanceError(path + ": cannot write: " + errno_text(error));
}

}  // namespace

int format_version_for(const Instance& instance) {
  return instance.hyperedges.empty() ? 1 : 2;
}

void write_instance(const Instance& instance, std::ostream& out) {
  check_writable(instance, "");
  const auto check = [&] {
    if (!out) throw InstanceError("cannot write the instance: the output stream failed");
  };
  Output output([&](std::string_view chunk) {
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    check();
  });
  write_json(instance, output);
  out.flush();
  check();
}

void write_instance(const Instance& instance, const std::string& path) {
  check_writable(instance, path + ": ");
  io_detail::replace_file<InstanceError>(
      path, [&](const std::string& target) { write_file(instance, target, path); });
}

}  // namespace vela::lb
