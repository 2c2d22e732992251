// Checkpoint/restart (--checkpoint DIR --checkpoint-every K, --restart DIR).
//
// A checkpoint is taken at a sync point, when every element of the collection waits for its
// resume: the root asks every PE for its elements, each PE packs them (pup) and sends them to
// the root, which writes DIR/<collection>.ckpt (a temporary file, fsync, rename: a crash leaves
// the previous checkpoint or the new one, never a mix) and then goes on with the sync point
// (balancing or resuming). Each PE also reports how many entry messages to the collection it
// sent and delivered; when the sums differ a message was in flight, which the file could not
// hold, so that checkpoint is skipped with a warning rather than written wrong.
//
// On --restart, Context::create reads the collection's file, checks it (magic, version, length,
// checksum, then that the collection has the same name, shape, element type and creation
// arguments), sends each PE the elements its initial placement gives it on this run's PE count,
// and resumes them all: the computation goes on from the sync point with the same result.
// The format is in docs/file-formats.md.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <utility>

#include "core/runtime_state.hpp"

namespace vela::rt::detail {

namespace {

static_assert(std::endian::native == std::endian::little,
              "checkpoint files are little-endian, as this machine writes them");

constexpr char magic[8] = {'V', 'E', 'L', 'A', 'C', 'K', 'P', 'T'};
// Version 2: the checksum is FNV-1a with its standard offset basis. Version 1 files (the same
// layout, checksummed from a basis one digit short of it) are still read.
constexpr std::uint32_t version = 2;
constexpr std::uint32_t oldest_version = 1;
constexpr std::size_t header_bytes = sizeof(magic) + 4 + 8;  // magic, version, body length
constexpr std::size_t trailer_bytes = 8;                     // checksum of the body

// What a checkpoint file's body holds: the collection, then its elements.
struct CheckpointHead {
  std::string collection;
  std::int32_t dims = 1, nx = 1, ny = 1, nz = 1;
  std::string type;                  // the element type (its factory's mangled name)
  std::vector<std::byte> arguments;  // the creation arguments, packed
  std::uint64_t syncs = 0;           // sync points the collection had passed
  std::int32_t pes = 0;              // PEs of the run that wrote it (for information)
  void pup(pup::Archive& ar) {
    ar | collection | dims | nx | ny | nz | type | arguments | syncs | pes;
  }
};
struct CheckpointFile {
  CheckpointHead head;
  std::vector<SavedElement> elements;  // in linear order
  void pup(pup::Archive& ar) { ar | head | elements; }
};

// FNV-1a over 64 bits: detects a flipped or lost byte of the body (not an adversary's edit; a
// checkpoint is the run's own file). Written here rather than linking a hashing library for a
// few lines; fed piece by piece as the body is written.
constexpr std::uint64_t checksum_start = 14695981039346656037ull;  // FNV-1a's offset basis
constexpr std::uint64_t version1_checksum_start = 1469598103934665603ull;
std::uint64_t checksum(std::span<const std::byte> bytes, std::uint64_t h = checksum_start) {
  for (const std::byte b : bytes) h = (h ^ static_cast<std::uint8_t>(b)) * 1099511628211ull;
  return h;
}

// A collection's name becomes a file name: letters, digits, '_', '-' and '.' only.
std::filesystem::path file_of(const std::string& dir, const std::string& collection,
                              const char* option) {
  const bool safe =
      !collection.empty() && collection != "." && collection != ".." &&
      collection.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == std::string::npos;
  if (!safe) {
    throw std::invalid_argument(std::string(option) + " " + dir + ": collection name '" +
                                collection +
                                "' cannot name a checkpoint file (letters, digits, '_', '-' and "
                                "'.' only)");
  }
  return std::filesystem::path(dir) / (collection + ".ckpt");
}

[[noreturn]] void write_failed(const std::filesystem::path& path, const char* what) {
  throw std::runtime_error("--checkpoint: " + path.string() + ": " + what + ": " +
                           std::strerror(errno));
}

// Temporary files that writers killed while writing left beside `path` (NAME.ckpt.tmpPID of a
// process that no longer exists) go; a live writer's stays. Called before each write and at a
// restart, so a killed run's leftovers do not pile up.
void remove_stale_temporaries(const std::filesystem::path& path) {
  std::error_code ec;
  const std::string prefix = path.filename().string() + ".tmp";
  for (const auto& entry : std::filesystem::directory_iterator(path.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.rfind(prefix, 0) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stol(digits));
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      std::filesystem::remove(entry.path(), ignored);
    }
  }
}

// A new file written through a temporary one in the same directory, synced, then renamed over
// it (commit()): readers see the old file or the new one, whole. Dropped without commit(), the
// temporary file goes.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path path) : path_(std::move(path)) {
    std::error_code ec;
    std::filesystem::create_directories(path_.parent_path(), ec);
    if (ec) {
      throw std::runtime_error("--checkpoint: " + path_.parent_path().string() +
                               ": cannot create the directory: " + ec.message());
    }
    temporary_ = path_.string() + ".tmp" + std::to_string(static_cast<long>(::getpid()));
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) write_failed(temporary_, "cannot create");
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    std::error_code ec;
    if (!committed_) std::filesystem::remove(temporary_, ec);
  }

  void write(const void* data, std::size_t bytes) {
    const auto* at = static_cast<const char*>(data);
    while (bytes > 0) {
      const ssize_t n = ::write(fd_, at, bytes);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) write_failed(temporary_, "cannot write");
      at += n;
      bytes -= static_cast<std::size_t>(n);
    }
  }

  void commit() {
    if (::fsync(fd_) != 0) write_failed(temporary_, "cannot sync");
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) write_failed(temporary_, "cannot close");
    if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
      write_failed(path_, "cannot rename the new checkpoint over it");
    }
    committed_ = true;
    // The rename itself survives a crash once the directory is synced.
    const int dir = ::open(path_.parent_path().empty() ? "." : path_.parent_path().c_str(),
                           O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }

 private:
  std::filesystem::path path_;
  std::filesystem::path temporary_;
  int fd_ = -1;
  bool committed_ = false;
};

// Writes a checkpoint file, streaming the elements' states from where they are (no copy of
// the whole body in memory): the same bytes as packing a CheckpointFile of `head` and
// `elements`.
std::uint64_t write_file(const std::filesystem::path& path, const CheckpointHead& head,
                         const std::vector<SavedElement>& elements) {
  const std::vector<std::byte> front = pup::pack(head);
  constexpr std::size_t prefix_bytes = 8 + 4 + 8;  // an element's linear, reductions, length
  std::uint64_t length = front.size() + 8;
  for (const SavedElement& e : elements) length += prefix_bytes + e.state.size();

  remove_stale_temporaries(path);
  AtomicFile out(path);
  out.write(magic, sizeof(magic));
  out.write(&version, 4);
  out.write(&length, 8);
  out.write(front.data(), front.size());
  std::uint64_t sum = checksum(front);
  std::uint64_t count = elements.size();
  out.write(&count, 8);
  sum = checksum(std::as_bytes(std::span(&count, 1)), sum);
  for (const SavedElement& e : elements) {
    // The element's pup() up to its state's bytes, which follow as they are.
    std::array<std::byte, prefix_bytes> prefix;
    pup::Packer packer{std::span<std::byte>(prefix)};
    std::uint64_t linear = e.linear;
    std::uint32_t reductions = e.reductions;
    packer | linear | reductions;
    packer.length(e.state.size());
    out.write(prefix.data(), prefix.size());
    sum = checksum(prefix, sum);
    if (!e.state.empty()) out.write(e.state.data(), e.state.size());
    sum = checksum(e.state, sum);
  }
  out.write(&sum, 8);
  out.commit();
  return header_bytes + length + trailer_bytes;
}

[[noreturn]] void bad_file(const std::filesystem::path& path, const std::string& what) {
  throw std::runtime_error("--restart: " + path.string() + ": " + what);
}

CheckpointFile read_checkpoint(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    bad_file(path, "no checkpoint file there (written by --checkpoint DIR)");
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) bad_file(path, "cannot read its size: " + ec.message());
  if (size < header_bytes + trailer_bytes) {
    bad_file(path, "truncated: " + std::to_string(size) + " bytes, shorter than a checkpoint's " +
                       std::to_string(header_bytes + trailer_bytes) + "-byte header and trailer");
  }
  std::ifstream in(path, std::ios::binary);
  char head[header_bytes];
  if (!in.read(head, header_bytes)) bad_file(path, "cannot read its header");
  if (std::memcmp(head, magic, sizeof(magic)) != 0) {
    bad_file(path, "not a Vela checkpoint (its first 8 bytes are not VELACKPT)");
  }
  std::uint32_t file_version = 0;
  std::memcpy(&file_version, head + sizeof(magic), 4);
  if (file_version < oldest_version || file_version > version) {
    bad_file(path, "checkpoint format version " + std::to_string(file_version) +
                       ", this build reads versions " + std::to_string(oldest_version) + " to " +
                       std::to_string(version));
  }
  std::uint64_t length = 0;
  std::memcpy(&length, head + sizeof(magic) + 4, 8);
  const std::uint64_t expected = header_bytes + length + trailer_bytes;
  if (length > size || expected != size) {
    bad_file(path, "truncated or extended: its header gives a " + std::to_string(length) +
                       "-byte body, so " + std::to_string(length + header_bytes + trailer_bytes) +
                       " bytes in all, but the file has " + std::to_string(size));
  }
  std::vector<std::byte> body(static_cast<std::size_t>(length));
  std::uint64_t stored = 0;
  if (!in.read(reinterpret_cast<char*>(body.data()), static_cast<std::streamsize>(length)) ||
      !in.read(reinterpret_cast<char*>(&stored), 8)) {
    bad_file(path, "cannot read its body");
  }
  if (checksum(body, file_version == 1 ? version1_checksum_start : checksum_start) != stored) {
    bad_file(path, "corrupted: the body's checksum does not match the one stored");
  }
  CheckpointFile file;
  try {
    pup::unpack(body, file);
  } catch (const pup::PupError& e) {
    bad_file(path, std::string("its body does not unpack: ") + e.what());
  }
  return file;
}

// The root: every PE's part is in.
void write_checkpoint(RuntimeState& state, CollectionInfo& info) {
  CheckpointRound& round = info.checkpoint;
  CheckpointPart& all = round.all;
  round.active = false;
  if (all.sent != all.delivered) {
    std::fprintf(stderr,
                 "vela: --checkpoint: collection %s, sync point %llu: %llu message(s) to its "
                 "elements were in flight (sent before at_sync() but not yet run), which a "
                 "checkpoint cannot hold: this checkpoint is skipped\n",
                 info.name.c_str(), static_cast<unsigned long long>(info.lb.syncs),
                 static_cast<unsigned long long>(all.sent - all.delivered));
    all = {};
    return;
  }
  std::sort(all.elements.begin(), all.elements.end(),
            [](const SavedElement& a, const SavedElement& b) { return a.linear < b.linear; });
  if (all.elements.size() != members(info)) {
    throw std::logic_error("--checkpoint: collection " + info.name + " has " +
                           std::to_string(members(info)) + " elements but the PEs packed " +
                           std::to_string(all.elements.size()));
  }
  const CheckpointHead head{info.name,      info.shape.dims, info.shape.nx,
                            info.shape.ny,  info.shape.nz,   factory(info.factory).type,
                            info.arguments, info.lb.syncs,   state.pes};
  const std::vector<SavedElement> elements = std::move(all.elements);
  all = {};
  const std::uint64_t bytes =
      write_file(file_of(state.options.checkpoint, info.name, "--checkpoint"), head, elements);
  state.stats.checkpoints += 1;
  state.stats.checkpoint_bytes += bytes;
  state.stats.checkpoint_seconds +=
      std::chrono::duration<double>(Clock::now() - round.from).count();
}

}  // namespace

bool start_checkpoint(RuntimeState& state, CollectionInfo& info) {
  const Options& o = state.options;
  if (o.checkpoint.empty() || info.lb.syncs % static_cast<std::uint64_t>(o.checkpoint_every) != 0) {
    return false;
  }
  CheckpointRound& round = info.checkpoint;
  round.active = true;
  round.parts = 0;
  round.all = {};
  round.from = Clock::now();
  for (PeId p = 0; p < state.pes; ++p) {
    post_system(state, p, Kind::checkpoint_collect, info.id, 0, {});
  }
  return true;
}

void on_checkpoint_collect(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  CollectionTable& table = pe.table(message.collection);
  CheckpointPart part;
  part.sent = table.sent;
  part.delivered = table.delivered;
  part.elements.reserve(table.local);
  pe.checkpoint.packing = true;
  try {
    for (std::uint64_t i = 0; i < table.slots.size(); ++i) {
      ElementBase* element = table.slots[i].element;
      if (element == nullptr) continue;
      part.elements.push_back({i, ElementAccess::reductions(*element), pup::pack(*element)});
    }
  } catch (...) {
    pe.checkpoint.packing = false;
    throw;
  }
  pe.checkpoint.packing = false;
  post_system(state, 0, Kind::checkpoint_part, message.collection, 0, pup::pack(part));
}

void on_checkpoint_part(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  CollectionInfo& info = state.collection(message.collection);
  CheckpointRound& round = info.checkpoint;
  CheckpointPart part;
  pup::unpack(message.payload(), part);
  round.all.sent += part.sent;
  round.all.delivered += part.delivered;
  for (SavedElement& e : part.elements) round.all.elements.push_back(std::move(e));
  if (++round.parts < state.pes) return;
  write_checkpoint(state, info);
  continue_sync(state, info);
}

void restore_collection(RuntimeState& state, CollectionInfo& info) {
  const std::filesystem::path path = file_of(state.options.restart, info.name, "--restart");
  remove_stale_temporaries(path);
  CheckpointFile file = read_checkpoint(path);
  const CheckpointHead& head = file.head;
  const Shape& shape = info.shape;
  if (head.collection != info.name) {
    bad_file(path, "holds collection '" + head.collection + "', not '" + info.name + "'");
  }
  if (head.dims != shape.dims || head.nx != shape.nx || head.ny != shape.ny ||
      head.nz != shape.nz) {
    const Shape saved{head.nx, head.ny, head.nz, head.dims};
    bad_file(path, "collection " + info.name + " had shape " +
                       to_string({saved.nx, saved.ny, saved.nz}, saved.dims) +
                       " when it was written, this run creates it with shape " +
                       to_string({shape.nx, shape.ny, shape.nz}, shape.dims));
  }
  if (head.type != factory(info.factory).type) {
    bad_file(path, "collection " + info.name + "'s elements were of type " + head.type +
                       ", this run creates type " + factory(info.factory).type);
  }
  if (head.arguments != info.arguments) {
    bad_file(path, "collection " + info.name +
                       " was created with other arguments in the run that wrote it (restart "
                       "with the same problem options; only runtime options such as --pes may "
                       "change)");
  }
  // A fixed collection's every element, a dynamic one's those there were, in index order.
  if (info.dynamic ? file.elements.size() > shape.size() : file.elements.size() != shape.size()) {
    bad_file(path, "holds " + std::to_string(file.elements.size()) + " elements, collection " +
                       info.name + " has " + (info.dynamic ? "at most " : "") +
                       std::to_string(shape.size()));
  }
  std::vector<std::vector<SavedElement>> by_pe(static_cast<std::size_t>(state.pes));
  for (std::size_t i = 0; i < file.elements.size(); ++i) {
    const std::uint64_t linear = file.elements[i].linear;
    const bool in_order =
        info.dynamic ? linear < shape.size() && (i == 0 || file.elements[i - 1].linear < linear)
                     : linear == i;
    if (!in_order) {
      bad_file(path, info.dynamic ? "element " + std::to_string(linear) +
                                        " is outside the collection, out of order or stored twice"
                                  : "element " + std::to_string(i) + " is missing or stored twice");
    }
  }
  restore_membership(info, file.elements);
  const std::uint64_t restored = file.elements.size();
  for (SavedElement& e : file.elements) {
    by_pe[static_cast<std::size_t>(info.home[e.linear])].push_back(std::move(e));
  }
  info.lb.syncs = head.syncs;
  state.stats.restored += restored;
  state.stats.restored_sync = head.syncs;
  // Each PE builds its elements, then (queued after every PE's restore, as the root's messages
  // to one PE keep their order) resumes them; a message to an element not yet restored waits
  // for it.
  for (PeId p = 0; p < state.pes; ++p) {
    post_system(state, p, Kind::restore, info.id, 0, pup::pack(by_pe[static_cast<std::size_t>(p)]));
  }
  for (PeId p = 0; p < state.pes; ++p) post_system(state, p, Kind::resume, info.id, 0, {});
}

}  // namespace vela::rt::detail
