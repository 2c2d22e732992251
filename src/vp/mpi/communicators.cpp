// MPI's groups, contexts and communicators (the standard's chapter 6): groups as lists of run
// ranks, communicators as a group and a context, attributes and their keys, intercommunicators.
//
// Contexts: each rank keeps the next context it has not used (Objects::next_context); a new
// communicator's context is the largest of its members' (one reduction over the parent), and each
// member then moves past it. No rank is ever in two communicators of one context, which is all
// vp's matching needs (a message matches on its receiver's side). MPI_Comm_idup's agreement runs
// while the ranks do other things, other agreements included, so the largest of its proposals
// must be its own: there each rank proposes numbers of its own (objects.hpp, idup_contexts),
// each once, in a space apart from the blocking calls'. Comm_split gathers the
// members' colours and keys at member 0 (O(n log n) there), which sends each member its new group
// (three numbers when its ranks are evenly strided, else the list after them): one gather and n
// messages (2n with lists).
#include <algorithm>
#include <cstring>
#include <numeric>
#include <tuple>

#include "internal.hpp"
#include "windows.hpp"

namespace vela::mpi::detail {
namespace {}  // namespace

// ---- groups ----

MPI_Group group_handle(int index) {
  return reinterpret_cast<MPI_Group>(static_cast<std::uintptr_t>(VMPI_GROUP_BASE + index));
}

Group& group_of(const char* call, Objects& objects, MPI_Group group, const char* what) {
  const auto value = reinterpret_cast<std::uintptr_t>(group);
  Group* found = nullptr;
  if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) == VMPI_GROUP_BASE)
    found = objects.groups.find(static_cast<int>(value & VMPI_INDEX_MASK));
  if (found == nullptr) {
    fail(call, MPI_ERR_GROUP,
         std::string(what) + " " +
             (group == MPI_GROUP_NULL ? "MPI_GROUP_NULL" : handle_text(group)) +
             " is not a group of this rank (never made, or freed)");
  }
  return *found;
}

MPI_Group add_group(Objects& objects, Group group) {
  const InRankHeap heap;
  return group_handle(objects.groups.add(std::move(group)));
}

namespace {

// A group's ranks listed by their indices `indices` in `group`.
Group pick(const Group& group, const std::vector<int>& indices) {
  std::vector<std::int32_t> ranks;
  ranks.reserve(indices.size());
  for (const int i : indices) ranks.push_back(group.rank_of(i));
  return Group::listed(std::move(ranks));
}

// Checks `n` indices of `group` (distinct, in range) named `what`.
std::vector<int> indices_of(const char* call, const Group& group, int n, const int* ranks) {
  count_of(call, n, "n");
  if (n > 0) check_out(call, ranks, "ranks");
  std::vector<int> indices(ranks, ranks + n);
  std::vector<char> seen(static_cast<std::size_t>(group.size()), 0);
  for (int i = 0; i < n; ++i) {
    const int r = indices[static_cast<std::size_t>(i)];
    if (r < 0 || r >= group.size()) {
      fail(call, MPI_ERR_RANK,
           "ranks[" + std::to_string(i) + "] " + std::to_string(r) + " is outside 0.." +
               std::to_string(group.size() - 1));
    }
    if (seen[static_cast<std::size_t>(r)] != 0) {
      fail(call, MPI_ERR_RANK,
           "ranks[" + std::to_string(i) + "] " + std::to_string(r) + " is listed twice");
    }
    seen[static_cast<std::size_t>(r)] = 1;
  }
  return indices;
}

// The indices that MPI_Group_range_incl's triplets name, in order.
std::vector<int> range_indices(const char* call, const Group& group, int n, int ranges[][3]) {
  count_of(call, n, "n");
  if (n > 0) check_out(call, ranges, "ranges");
  std::vector<int> indices;
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0];
    const int last = ranges[i][1];
    const int stride = ranges[i][2];
    const std::string which = "ranges[" + std::to_string(i) + "]";
    if (stride == 0) fail(call, MPI_ERR_ARG, which + " has stride 0");
    for (const int end : {first, last}) {
      if (end < 0 || end >= group.size()) {
        fail(call, MPI_ERR_RANK,
             which + " reaches rank " + std::to_string(end) + ", outside 0.." +
                 std::to_string(group.size() - 1));
      }
    }
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) continue;
    for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      indices.push_back(static_cast<int>(r));
    }
  }
  return indices_of(call, group, static_cast<int>(indices.size()), indices.data());
}

// Every index of `group` not in `indices`, in group order.
std::vector<int> complement(const Group& group, const std::vector<int>& indices) {
  std::vector<char> out(static_cast<std::size_t>(group.size()), 0);
  for (const int i : indices) out[static_cast<std::size_t>(i)] = 1;
  std::vector<int> kept;
  for (int i = 0; i < group.size(); ++i) {
    if (out[static_cast<std::size_t>(i)] == 0) kept.push_back(i);
  }
  return kept;
}

// MPI_Group_union, _intersection and _difference: group1's ranks that `keep` accepts, then (for
// the union) group2's that group1 lacks.
template <class Keep>
int combine_groups(const char* call, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup,
                   bool append_second, Keep keep) {
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Group& a = group_of(call, objects, group1, "group1");
    const Group& b = group_of(call, objects, group2, "group2");
    check_out(call, newgroup, "newgroup");
    std::vector<std::int32_t> ranks;
    for (int i = 0; i < a.size(); ++i) {
      if (keep(b.index_of(a.rank_of(i)) >= 0)) ranks.push_back(a.rank_of(i));
    }
    if (append_second) {
      for (int i = 0; i < b.size(); ++i) {
        if (a.index_of(b.rank_of(i)) < 0) ranks.push_back(b.rank_of(i));
      }
    }
    *newgroup = add_group(objects, Group::listed(std::move(ranks)));
  });
}

// ---- contexts ----

void max_u32(const void* in, void* inout, std::size_t count, const void*) {
  const auto* a = static_cast<const std::uint32_t*>(in);
  auto* b = static_cast<std::uint32_t*>(inout);
  for (std::size_t i = 0; i < count; ++i) b[i] = std::max(a[i], b[i]);
}

// The members agreed on `context`: the rank moves past it (blocking agreements stay below
// idup_contexts).
std::uint32_t agreed(Objects& objects, std::uint32_t context, const char* call) {
  if (context >= idup_contexts - 1) {
    fail(call, MPI_ERR_INTERN,
         "the ranks have used up the 2^30 contexts of new communicators (one per communicator "
         "made, over the run)");
  }
  objects.next_context = context + 1;
  return context;
}

}  // namespace

// A context none of `members` uses: agreed by a reduction over them.
std::uint32_t agree_context(Objects& objects, const vp::Members& members, const char* call) {
  std::uint32_t context = 0;
  vp::group::allreduce(members, &objects.next_context, &context, 1, sizeof context,
                       {&max_u32, nullptr}, call);
  return agreed(objects, context, call);
}

namespace {

// Collective over intercommunicator `c`: a context no member of either group uses. Each group
// agrees on its largest next context, the leaders (rank 0 of each group) swap theirs on `c`'s
// context for the library's own messages (inter_context, as MPI_Intercomm_merge: no program's
// message can match) and tell their group; every member moves past it.
std::uint32_t agree_inter_context(Objects& objects, Communicator& c, const char* call) {
  const vp::Members members = c.members();
  std::uint32_t context = 0;
  vp::group::allreduce(members, &objects.next_context, &context, 1, sizeof context,
                       {&max_u32, nullptr}, call);
  std::int32_t theirs = 0;
  if (c.rank == 0) {
    const auto mine = static_cast<std::int32_t>(context);
    vp::sendrecv(&mine, 1, vp::Type::i32, c.remote.rank_of(0), vp::max_tag, &theirs, 1,
                 vp::Type::i32, c.remote.rank_of(0), vp::max_tag, inter_context(c));
  }
  vp::group::bcast(members, &theirs, sizeof theirs, 0, call);
  context = std::max(context, static_cast<std::uint32_t>(theirs));
  return agreed(objects, context, call);
}

}  // namespace

std::uint32_t propose_idup_context(const char* call, Objects& objects) {
  const std::uint32_t proposal = objects.next_idup_context;
  if (proposal >= own_contexts) {
    fail(call, MPI_ERR_INTERN,
         "the rank has used up its MPI_Comm_idup contexts (2^30 / " +
             std::to_string(objects.idup_stride) +
             " ranks = " + std::to_string((own_contexts - idup_contexts) / objects.idup_stride) +
             " over the run)");
  }
  objects.next_idup_context = proposal + objects.idup_stride;
  return proposal;
}

void settle_context(Objects& objects, MPI_Comm comm, std::uint32_t context) {
  const auto value = reinterpret_cast<std::uintptr_t>(comm);
  Communicator* c = objects.comms.find(static_cast<int>(value & VMPI_INDEX_MASK));
  if (c == nullptr || c->context != unsettled_context) return;  // freed before completion
  c->context = context;
  objects.by_context[context] = static_cast<int>(value & VMPI_INDEX_MASK);
  // Every later proposal of this rank lies above the agreed one (not needed for uniqueness, but
  // it keeps the ranks' numbers together, so that none runs out long before the others).
  const std::uint32_t stride = objects.idup_stride;
  if (objects.next_idup_context <= context) {
    objects.next_idup_context += ((context - objects.next_idup_context) / stride + 1) * stride;
  }
}

namespace {

void check_intra(const char* call, const Communicator& c, const char* what = "comm") {
  if (c.inter) {
    fail(call, MPI_ERR_COMM,
         std::string(what) + " is an intercommunicator; this call needs an intracommunicator");
  }
}

// ---- attributes ----

// The predefined attribute `keyval` of MPI_COMM_WORLD, or nullptr.
int* predefined_attribute(Objects& objects, int keyval) {
  switch (keyval) {
    case MPI_TAG_UB:
      return &objects.tag_ub;
    case MPI_HOST:
      return &objects.host;
    case MPI_IO:
      return &objects.io;
    case MPI_WTIME_IS_GLOBAL:
      return &objects.wtime_is_global;
    case MPI_UNIVERSE_SIZE:
      return &objects.universe_size;
    case MPI_LASTUSEDCODE:
      return &objects.last_used_code;
    default:
      return nullptr;
  }
}

// Runs the delete function of `comm`'s attribute `keyval` holding `value`.
void delete_attribute(const char* call, Objects& objects, MPI_Comm comm, int keyval, void* value) {
  const Keyval& k = keyval_of(call, objects, keyval);
  if (k.remove == nullptr) return;
  const int code =
      reinterpret_cast<MPI_Comm_delete_attr_function*>(k.remove)(comm, keyval, value, k.extra);
  if (code != MPI_SUCCESS) {
    fail(call, code,
         "the delete function of keyval " + std::to_string(keyval) + " returned error " +
             std::to_string(code));
  }
}

// The attributes a duplicate of `comm` gets: each key's copy function decides.
std::map<int, void*> copied_attributes(const char* call, Objects& objects, MPI_Comm comm,
                                       const Communicator& c) {
  std::map<int, void*> copied;
  for (const auto& [keyval, value] : c.attributes) {
    const Keyval& k = keyval_of(call, objects, keyval);
    if (k.copy == nullptr) continue;
    void* out = nullptr;
    int flag = 0;
    const int code = reinterpret_cast<MPI_Comm_copy_attr_function*>(k.copy)(comm, keyval, k.extra,
                                                                            value, &out, &flag);
    if (code != MPI_SUCCESS) {
      fail(call, code,
           "the copy function of keyval " + std::to_string(keyval) + " returned error " +
               std::to_string(code));
    }
    if (flag != 0) copied[keyval] = out;
  }
  return copied;
}

int create_keyval(const char* call, void* copy, void* remove, int* keyval, void* extra) {
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, keyval, "keyval");
    const InRankHeap heap;
    *keyval = objects.next_keyval++;
    objects.keyvals[*keyval] = Keyval{copy, remove, extra, false};
  });
}

int set_attribute(const char* call, MPI_Comm comm, int keyval, void* value) {
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    keyval_of(call, objects, keyval);
    const auto it = c.attributes.find(keyval);
    if (it != c.attributes.end()) delete_attribute(call, objects, comm, keyval, it->second);
    const InRankHeap heap;
    c.attributes[keyval] = value;
  });
}

int get_attribute(const char* call, MPI_Comm comm, int keyval, void* value, int* flag) {
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    check_out(call, value, "attribute_val");
    check_out(call, flag, "flag");
    *flag = 0;
    void* found = nullptr;
    if (int* predefined = predefined_attribute(objects, keyval)) {
      found = predefined;
      *flag = 1;
    } else {
      keyval_of(call, objects, keyval);
      const auto it = c.attributes.find(keyval);
      if (it == c.attributes.end()) return;
      found = it->second;
      *flag = 1;
    }
    std::memcpy(value, &found, sizeof found);
  });
}

int delete_attribute_call(const char* call, MPI_Comm comm, int keyval) {
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    keyval_of(call, objects, keyval);
    const auto it = c.attributes.find(keyval);
    if (it == c.attributes.end()) {
      fail(call, MPI_ERR_KEYVAL,
           "keyval " + std::to_string(keyval) + " has no attribute on this communicator");
    }
    delete_attribute(call, objects, comm, keyval, it->second);
    c.attributes.erase(it);
  });
}

}  // namespace

Keyval& keyval_of(const char* call, Objects& objects, int keyval) {
  const auto it = objects.keyvals.find(keyval);
  if (it == objects.keyvals.end()) {
    fail(call, MPI_ERR_KEYVAL,
         "keyval " + std::to_string(keyval) +
             (predefined_attribute(objects, keyval) != nullptr
                  ? " is predefined: it can be read, not set or deleted"
                  : " is not a key of this rank (never made, or freed)"));
  }
  return it->second;
}

int free_keyval(const char* call, int* keyval) {
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, keyval, "keyval");
    keyval_of(call, objects, *keyval);
    // Attributes already set keep their key until deleted (the standard): the key is only
    // forgotten when no communicator holds it.
    bool used = false;
    for (std::size_t i = 0; i < objects.comms.size() && !used; ++i) {
      if (const Communicator* c = objects.comms.find(static_cast<int>(i)))
        used = c->attributes.count(*keyval) != 0;
    }
    for (std::size_t i = 0; i < objects.windows.size() && !used; ++i) {
      if (const Window* w = objects.windows.find(static_cast<int>(i)))
        used = w->attributes.count(*keyval) != 0;
    }
    for (const auto& [key, value] : objects.type_attributes) used = used || key.second == *keyval;
    if (!used) objects.keyvals.erase(*keyval);
    *keyval = MPI_KEYVAL_INVALID;
  });
}

namespace {

// ---- new communicators ----

// A duplicate of `c` (handle `comm`) in `context`: its group, topology, error handler and the
// attributes its keys copy.
Communicator duplicate(const char* call, Objects& objects, MPI_Comm comm, const Communicator& c,
                       std::uint32_t context) {
  const InRankHeap heap;
  Communicator d;
  d.group = c.group;
  d.remote = c.remote;
  d.inter = c.inter;
  d.context = context;
  d.rank = c.rank;
  d.errhandler = c.errhandler;
  d.topology = c.topology;
  d.attributes = copied_attributes(call, objects, comm, c);
  return d;
}

}  // namespace

MPI_Comm add_unsettled_dup(const char* call, Objects& objects, MPI_Comm comm, Communicator& c) {
  return add_comm(objects, duplicate(call, objects, comm, c, unsettled_context));
}

namespace {

int dup(const char* call, MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    if (info != MPI_INFO_NULL && info != MPI_INFO_ENV) {
      const auto value = reinterpret_cast<std::uintptr_t>(info);
      if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) != VMPI_INFO_BASE ||
          objects.infos.find(static_cast<int>(value & VMPI_INDEX_MASK)) == nullptr) {
        fail(call, MPI_ERR_INFO, "info " + handle_text(info) + " is not an info object");
      }
    }
    check_out(call, newcomm, "newcomm");
    const std::uint32_t context =
        c.inter ? agree_inter_context(objects, c, call) : agree_context(objects, c.members(), call);
    *newcomm = add_comm(objects, duplicate(call, objects, comm, c, context));
  });
}

// What member 0 of a split sends each member: its new communicator's context, its index in the
// new group and the group (strided, or `size` ranks following).
struct SplitReply {
  std::uint32_t context = 0;
  std::int32_t index = -1;  // -1: MPI_COMM_NULL (colour MPI_UNDEFINED)
  std::int32_t size = 0;
  std::int32_t first = 0;
  std::int32_t stride = 1;
  std::int32_t listed = 0;
};

struct SplitEntry {
  std::int32_t color;
  std::int32_t key;
  std::uint32_t next_context;
};

// Member 0 of a split: sorts the entries by (colour, key, index) and makes every member's reply
// (a SplitReply, in member order, for a scatter down a tree); sends each other member of a
// group whose ranks are not evenly strided the group's ranks, so that a member receives no more
// than its reply says. `own` gets member 0's group's ranks when they are listed.
std::vector<SplitReply> answer_split(const vp::Collective& lists,
                                     const std::vector<SplitEntry>& entries, const Group& parent,
                                     std::vector<std::int32_t>& own) {
  const auto entry = [&](int i) -> const SplitEntry& {
    return entries[static_cast<std::size_t>(i)];
  };
  std::uint32_t context = 0;
  for (const SplitEntry& e : entries) context = std::max(context, e.next_context);
  std::vector<int> order(entries.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return std::tie(entry(a).color, entry(a).key) < std::tie(entry(b).color, entry(b).key);
  });
  std::vector<SplitReply> replies(entries.size());
  for (std::size_t begin = 0; begin < order.size();) {
    const int color = entry(order[begin]).color;
    std::size_t end = begin;
    std::vector<std::int32_t> ranks;
    for (; end < order.size() && entry(order[end]).color == color; ++end) {
      ranks.push_back(parent.rank_of(order[end]));
    }
    const Group g = Group::listed(ranks);
    SplitReply reply;
    reply.context = context;
    reply.size = g.size();
    reply.first = g.first();
    reply.stride = g.stride();
    reply.listed = g.is_strided() ? 0 : 1;
    for (std::size_t k = begin; k < end; ++k) {
      reply.index = color == MPI_UNDEFINED ? -1 : static_cast<std::int32_t>(k - begin);
      replies[static_cast<std::size_t>(order[k])] = reply;
      if (reply.listed == 0 || color == MPI_UNDEFINED) continue;
      if (order[k] == 0) {
        own = ranks;
      } else {
        lists.put(ranks.data(), ranks.size() * sizeof(std::int32_t), order[k]);
      }
    }
    begin = end;
  }
  return replies;
}

int split(const char* call, MPI_Comm comm, int color, int key, MPI_Comm* newcomm, bool by_process) {
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    check_intra(call, c);
    check_out(call, newcomm, "newcomm");
    if (color < 0 && color != MPI_UNDEFINED) {
      fail(call, MPI_ERR_ARG,
           "color " + std::to_string(color) + " is negative (and not MPI_UNDEFINED)");
    }
    if (by_process && color != MPI_UNDEFINED) color = vp::process();
    *newcomm = split_comm(call, objects, c, color, key);
  });
}

// A new communicator of `group` (a subgroup of `c`'s) in `context`, or MPI_COMM_NULL for a rank
// outside it.
MPI_Comm of_group(Objects& objects, const Communicator& c, const Group& group,
                  std::uint32_t context, int me) {
  const int index = group.index_of(me);
  if (index < 0) return MPI_COMM_NULL;
  const InRankHeap heap;
  Communicator d;
  d.group = group;
  d.context = context;
  d.rank = index;
  d.errhandler = c.errhandler;
  return add_comm(objects, std::move(d));
}

void check_subgroup(const char* call, const Group& group, const Communicator& c) {
  for (int i = 0; i < group.size(); ++i) {
    if (c.group.index_of(group.rank_of(i)) < 0) {
      fail(call, MPI_ERR_GROUP,
           "group holds run rank " + std::to_string(group.rank_of(i)) +
               ", which is not in comm's group");
    }
  }
}

// The contexts of MPI_Comm_create_group's own messages: apart from every allocated context
// (which stay below 2^31).
constexpr std::uint32_t create_group_contexts = 0x80000000u;

// Frees communicator `index` of `objects` (its attributes' delete functions first).
void free_comm(const char* call, Objects& objects, MPI_Comm* comm) {
  Communicator& c = comm_of(call, objects, *comm);
  const int index = static_cast<int>(reinterpret_cast<std::uintptr_t>(*comm) & VMPI_INDEX_MASK);
  if (index == world_index || index == self_index) {
    fail(call, MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
  }
  for (const auto& [keyval, value] : c.attributes) {
    delete_attribute(call, objects, *comm, keyval, value);
  }
  objects.by_context.erase(c.context);
  objects.comms.remove(index);
  *comm = MPI_COMM_NULL;
}

// ---- intercommunicators ----

// What the leaders of an intercommunicator's two groups exchange: the largest next context of
// their group, its size, then its ranks.
std::vector<std::int32_t> leader_exchange(const char* call, const std::vector<std::int32_t>& mine,
                                          int peer_rank, int tag, std::uint32_t context) {
  std::int32_t size = static_cast<std::int32_t>(mine.size());
  std::int32_t their_size = 0;
  vp::sendrecv(&size, 1, vp::Type::i32, peer_rank, tag, &their_size, 1, vp::Type::i32, peer_rank,
               tag, context);
  std::vector<std::int32_t> theirs(static_cast<std::size_t>(their_size));
  vp::sendrecv(mine.data(), mine.size(), vp::Type::i32, peer_rank, tag, theirs.data(),
               theirs.size(), vp::Type::i32, peer_rank, tag, context);
  static_cast<void>(call);
  return theirs;
}

}  // namespace

MPI_Comm split_comm(const char* call, Objects& objects, Communicator& c, int color, int key) {
  const vp::Members members = c.members();
  const int n = members.size;
  const SplitEntry mine{color, key, objects.next_context};
  std::vector<SplitEntry> entries(c.rank == 0 ? static_cast<std::size_t>(n) : 0);
  vp::group::gather(members, &mine, sizeof mine, entries.data(), 0, call);
  const vp::Collective lists(members, call);
  std::vector<SplitReply> replies;
  std::vector<std::int32_t> ranks;
  if (c.rank == 0) replies = answer_split(lists, entries, c.group, ranks);
  // The replies go down a binomial tree among many members: rank 0 sends log2(n) messages.
  SplitReply reply;
  vp::group::scatter(members, replies.data(), sizeof reply, &reply, 0, call);
  if (c.rank != 0 && reply.listed != 0 && reply.index >= 0) {
    ranks.resize(static_cast<std::size_t>(reply.size));
    lists.get(ranks.data(), ranks.size() * sizeof(std::int32_t), 0);
  }
  objects.next_context = std::max(objects.next_context, reply.context + 1);
  if (reply.index < 0) return MPI_COMM_NULL;
  const InRankHeap heap;
  Communicator d;
  if (reply.listed != 0) {
    d.group = Group::listed(std::vector<std::int32_t>(ranks.begin(), ranks.end()));  // rank's heap
  } else {
    d.group = Group::strided(reply.first, reply.stride, reply.size);
  }
  d.context = reply.context;
  d.rank = reply.index;
  d.errhandler = c.errhandler;
  return add_comm(objects, std::move(d));
}

MPI_Comm subcomm(const char* call, Objects& objects, Communicator& c, const Group& group) {
  const std::uint32_t context = agree_context(objects, c.members(), call);
  return of_group(objects, c, group, context, c.group.rank_of(c.rank));
}

}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

// ---- the predefined attribute functions ----

int VMPI_COMM_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int VMPI_COMM_DUP_FN(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  std::memcpy(out, &in, sizeof in);
  *flag = 1;
  return MPI_SUCCESS;
}

int VMPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void*, void*) {
  return MPI_SUCCESS;
}

// ---- communicators ----

int VPMPI_Comm_rank(MPI_Comm comm, int* rank) {
  constexpr const char* call = "MPI_Comm_rank";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_out(call, rank, "rank");
    *rank = c.rank;
  });
}

int VPMPI_Comm_size(MPI_Comm comm, int* size) {
  constexpr const char* call = "MPI_Comm_size";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_out(call, size, "size");
    *size = c.group.size();
  });
}

int VPMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return dup("MPI_Comm_dup", comm, MPI_INFO_NULL, newcomm);
}

int VPMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return dup("MPI_Comm_dup_with_info", comm, info, newcomm);
}

int VPMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return split("MPI_Comm_split", comm, color, key, newcomm, false);
}

int VPMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                          MPI_Comm* newcomm) {
  constexpr const char* call = "MPI_Comm_split_type";
  static_cast<void>(info);
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) {
    return guarded_on(call, comm, [&] {
      fail(call, MPI_ERR_ARG,
           "split_type " + std::to_string(split_type) +
               " is not MPI_COMM_TYPE_SHARED (or MPI_UNDEFINED)");
    });
  }
  // The ranks of one process share its memory; a rank moving to another process afterwards
  // stays in the communicator it had.
  return split(call, comm, split_type == MPI_UNDEFINED ? MPI_UNDEFINED : 0, key, newcomm, true);
}

int VPMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  constexpr const char* call = "MPI_Comm_create";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    check_intra(call, c);
    const Group g = group_of(call, objects, group);
    check_out(call, newcomm, "newcomm");
    check_subgroup(call, g, c);
    const std::uint32_t context = agree_context(objects, c.members(), call);
    *newcomm = of_group(objects, c, g, context, c.group.rank_of(c.rank));
  });
}

int VPMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  constexpr const char* call = "MPI_Comm_create_group";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    check_intra(call, c);
    const Group g = group_of(call, objects, group);
    check_out(call, newcomm, "newcomm");
    check_tag(call, "tag", tag, false);
    check_subgroup(call, g, c);
    const int me = c.group.rank_of(c.rank);
    const int index = g.index_of(me);
    if (index < 0) {
      fail(call, MPI_ERR_GROUP, "the calling rank is not in group (only its members call)");
    }
    // Only the group's members take part: their own messages, numbered by the tag.
    std::uint32_t calls = static_cast<std::uint32_t>(tag);
    const vp::Members members = g.members(c.context | create_group_contexts, index, &calls);
    const std::uint32_t context = agree_context(objects, members, call);
    *newcomm = of_group(objects, c, g, context, me);
  });
}

int VPMPI_Comm_free(MPI_Comm* comm) {
  constexpr const char* call = "MPI_Comm_free";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, comm, "comm");
    free_comm(call, objects, comm);
  });
}

int VPMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  constexpr const char* call = "MPI_Comm_compare";
  return guarded_on(call, comm1, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Communicator& a = comm_of(call, objects, comm1, "comm1");
    const Communicator& b = comm_of(call, objects, comm2, "comm2");
    check_out(call, result, "result");
    if (comm1 == comm2) {
      *result = MPI_IDENT;
    } else if (a.inter != b.inter) {
      *result = MPI_UNEQUAL;
    } else if (a.group == b.group && a.remote == b.remote) {
      *result = MPI_CONGRUENT;
    } else if (a.group.same_members(b.group) && a.remote.same_members(b.remote)) {
      *result = MPI_SIMILAR;
    } else {
      *result = MPI_UNEQUAL;
    }
  });
}

int VPMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  constexpr const char* call = "MPI_Comm_set_name";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    check_out(call, comm_name, "comm_name");
    const std::string name(comm_name);
    if (name.size() >= MPI_MAX_OBJECT_NAME) {
      fail(call, MPI_ERR_ARG,
           "comm_name has " + std::to_string(name.size()) +
               " characters; at most MPI_MAX_OBJECT_NAME - 1 (" +
               std::to_string(MPI_MAX_OBJECT_NAME - 1) + ")");
    }
    const InRankHeap heap;
    c.name = name;
  });
}

int VPMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  constexpr const char* call = "MPI_Comm_get_name";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_out(call, comm_name, "comm_name");
    check_out(call, resultlen, "resultlen");
    std::memcpy(comm_name, c.name.c_str(), c.name.size() + 1);
    *resultlen = static_cast<int>(c.name.size());
  });
}

int VPMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  constexpr const char* call = "MPI_Comm_test_inter";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_out(call, flag, "flag");
    *flag = c.inter ? 1 : 0;
  });
}

int VPMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  constexpr const char* call = "MPI_Comm_remote_size";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_out(call, size, "size");
    if (!c.inter) fail(call, MPI_ERR_COMM, "comm is not an intercommunicator");
    *size = c.remote.size();
  });
}

int VPMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  constexpr const char* call = "MPI_Comm_remote_group";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Communicator& c = comm_of(call, objects, comm);
    check_out(call, group, "group");
    if (!c.inter) fail(call, MPI_ERR_COMM, "comm is not an intercommunicator");
    *group = add_group(objects, c.remote);
  });
}

int VPMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  constexpr const char* call = "MPI_Comm_group";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Communicator& c = comm_of(call, objects, comm);
    check_out(call, group, "group");
    *group = add_group(objects, c.group);
  });
}

// Vela takes no hints on communicators: MPI_Comm_get_info gives an empty info object.
int VPMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  constexpr const char* call = "MPI_Comm_set_info";
  return guarded_on(call, comm, [&](const Label& label) {
    active(call, label, comm);
    if (info == MPI_INFO_NULL) fail(call, MPI_ERR_INFO, "info is MPI_INFO_NULL");
  });
}

int VPMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  constexpr const char* call = "MPI_Comm_get_info";
  return guarded_on(call, comm, [&](const Label& label) {
    active(call, label, comm);
    check_out(call, info_used, "info_used");
    VPMPI_Info_create(info_used);
  });
}

int VPMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                           int remote_leader, int tag, MPI_Comm* newintercomm) {
  constexpr const char* call = "MPI_Intercomm_create";
  return guarded_on(call, local_comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& local = comm_of(call, objects, local_comm, "local_comm");
    check_intra(call, local, "local_comm");
    check_peer(local.group.size(), call, "local_leader", local_leader, false, false);
    check_out(call, newintercomm, "newintercomm");
    check_tag(call, "tag", tag, false);
    const vp::Members members = local.members();
    // The group's largest next context, then (at the leader) the other group's.
    std::uint32_t context = 0;
    vp::group::allreduce(members, &objects.next_context, &context, 1, sizeof context,
                         {&max_u32, nullptr}, call);
    std::vector<std::int32_t> remote;
    std::int32_t remote_size = 0;
    if (local.rank == local_leader) {
      Communicator& peer = comm_of(call, objects, peer_comm, "peer_comm");
      check_peer(peer.peers().size(), call, "remote_leader", remote_leader, false, false);
      const int peer_rank = peer.peers().rank_of(remote_leader);
      std::vector<std::int32_t> mine = local.group.ranks();
      mine.push_back(static_cast<std::int32_t>(context));
      remote = leader_exchange(call, mine, peer_rank, tag, peer.context);
      if (remote.empty()) fail(call, MPI_ERR_INTERN, "the remote leader sent no group");
      context = std::max(context, static_cast<std::uint32_t>(remote.back()));
      remote.pop_back();
      remote_size = static_cast<std::int32_t>(remote.size());
    }
    vp::group::bcast(members, &context, sizeof context, local_leader, call);
    vp::group::bcast(members, &remote_size, sizeof remote_size, local_leader, call);
    remote.resize(static_cast<std::size_t>(remote_size));
    vp::group::bcast(members, remote.data(), remote.size() * sizeof(std::int32_t), local_leader,
                     call);
    objects.next_context = std::max(objects.next_context, context + 1);
    const InRankHeap heap;
    Communicator d;
    d.group = local.group;
    d.remote = Group::listed(std::move(remote));
    d.inter = true;
    d.context = context;
    d.rank = local.rank;
    d.errhandler = local.errhandler;
    for (int i = 0; i < d.remote.size(); ++i) {
      if (d.group.index_of(d.remote.rank_of(i)) >= 0) {
        fail(call, MPI_ERR_COMM,
             "the two groups overlap (run rank " + std::to_string(d.remote.rank_of(i)) +
                 " is in both)");
      }
    }
    *newintercomm = add_comm(objects, std::move(d));
  });
}

int VPMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  constexpr const char* call = "MPI_Intercomm_merge";
  return guarded_on(call, intercomm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, intercomm, "intercomm");
    if (!c.inter) fail(call, MPI_ERR_COMM, "intercomm is not an intercommunicator");
    check_out(call, newintracomm, "newintracomm");
    const vp::Members members = c.members();
    // Each group agrees on its largest next context; the leaders (rank 0 of each group) swap
    // that and their `high`.
    std::uint32_t context = 0;
    vp::group::allreduce(members, &objects.next_context, &context, 1, sizeof context,
                         {&max_u32, nullptr}, call);
    std::int32_t theirs[2] = {0, 0};
    if (c.rank == 0) {
      const std::int32_t mine[2] = {static_cast<std::int32_t>(context), high != 0 ? 1 : 0};
      vp::sendrecv(mine, 2, vp::Type::i32, c.remote.rank_of(0), vp::max_tag, theirs, 2,
                   vp::Type::i32, c.remote.rank_of(0), vp::max_tag, inter_context(c));
    }
    vp::group::bcast(members, theirs, sizeof theirs, 0, call);
    context = std::max(context, static_cast<std::uint32_t>(theirs[0]));
    objects.next_context = std::max(objects.next_context, context + 1);
    // The group with high false comes first; on a tie, the group whose leader has the lower
    // run rank.
    const bool mine_high = high != 0;
    const bool their_high = theirs[1] != 0;
    const bool first =
        mine_high != their_high ? !mine_high : c.group.rank_of(0) < c.remote.rank_of(0);
    std::vector<std::int32_t> ranks = first ? c.group.ranks() : c.remote.ranks();
    const std::vector<std::int32_t> second = first ? c.remote.ranks() : c.group.ranks();
    ranks.insert(ranks.end(), second.begin(), second.end());
    const InRankHeap heap;
    Communicator d;
    d.group = Group::listed(std::move(ranks));
    d.context = context;
    d.rank = d.group.index_of(c.group.rank_of(c.rank));
    d.errhandler = c.errhandler;
    *newintracomm = add_comm(objects, std::move(d));
  });
}

// ---- attributes ----

int VPMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                             MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                             void* extra_state) {
  return create_keyval("MPI_Comm_create_keyval", reinterpret_cast<void*>(comm_copy_attr_fn),
                       reinterpret_cast<void*>(comm_delete_attr_fn), comm_keyval, extra_state);
}

int VPMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                        void* extra_state) {
  return create_keyval("MPI_Keyval_create", reinterpret_cast<void*>(copy_fn),
                       reinterpret_cast<void*>(delete_fn), keyval, extra_state);
}

int VPMPI_Comm_free_keyval(int* comm_keyval) {
  return free_keyval("MPI_Comm_free_keyval", comm_keyval);
}

int VPMPI_Keyval_free(int* keyval) {
  return free_keyval("MPI_Keyval_free", keyval);
}

int VPMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  return set_attribute("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}

int VPMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return set_attribute("MPI_Attr_put", comm, keyval, attribute_val);
}

int VPMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  return get_attribute("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}

int VPMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return get_attribute("MPI_Attr_get", comm, keyval, attribute_val, flag);
}

int VPMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  return delete_attribute_call("MPI_Comm_delete_attr", comm, comm_keyval);
}

int VPMPI_Attr_delete(MPI_Comm comm, int keyval) {
  return delete_attribute_call("MPI_Attr_delete", comm, keyval);
}

// ---- groups ----

int VPMPI_Group_size(MPI_Group group, int* size) {
  constexpr const char* call = "MPI_Group_size";
  return guarded(call, [&](const Label& label) {
    const Group& g = group_of(call, active(call, label), group);
    check_out(call, size, "size");
    *size = g.size();
  });
}

int VPMPI_Group_rank(MPI_Group group, int* rank) {
  constexpr const char* call = "MPI_Group_rank";
  return guarded(call, [&](const Label& label) {
    const Group& g = group_of(call, active(call, label), group);
    check_out(call, rank, "rank");
    const int index = g.index_of(label.rank());
    *rank = index < 0 ? MPI_UNDEFINED : index;
  });
}

int VPMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                                int ranks2[]) {
  constexpr const char* call = "MPI_Group_translate_ranks";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Group& a = group_of(call, objects, group1, "group1");
    const Group& b = group_of(call, objects, group2, "group2");
    count_of(call, n, "n");
    if (n > 0) {
      check_out(call, ranks1, "ranks1");
      check_out(call, ranks2, "ranks2");
    }
    for (int i = 0; i < n; ++i) {
      const int r = ranks1[i];
      if (r == MPI_PROC_NULL) {
        ranks2[i] = MPI_PROC_NULL;
        continue;
      }
      check_peer(a.size(), call, "ranks1[i]", r, true, false);
      const int index = b.index_of(a.rank_of(r));
      ranks2[i] = index < 0 ? MPI_UNDEFINED : index;
    }
  });
}

int VPMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  constexpr const char* call = "MPI_Group_compare";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Group& a = group_of(call, objects, group1, "group1");
    const Group& b = group_of(call, objects, group2, "group2");
    check_out(call, result, "result");
    *result = a == b ? MPI_IDENT : a.same_members(b) ? MPI_SIMILAR : MPI_UNEQUAL;
  });
}

int VPMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return combine_groups("MPI_Group_union", group1, group2, newgroup, true,
                        [](bool) { return true; });
}

int VPMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return combine_groups("MPI_Group_intersection", group1, group2, newgroup, false,
                        [](bool in_second) { return in_second; });
}

int VPMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return combine_groups("MPI_Group_difference", group1, group2, newgroup, false,
                        [](bool in_second) { return !in_second; });
}

int VPMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  constexpr const char* call = "MPI_Group_incl";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Group& g = group_of(call, objects, group);
    check_out(call, newgroup, "newgroup");
    *newgroup = add_group(objects, pick(g, indices_of(call, g, n, ranks)));
  });
}

int VPMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  constexpr const char* call = "MPI_Group_excl";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Group& g = group_of(call, objects, group);
    check_out(call, newgroup, "newgroup");
    *newgroup = add_group(objects, pick(g, complement(g, indices_of(call, g, n, ranks))));
  });
}

int VPMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  constexpr const char* call = "MPI_Group_range_incl";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Group& g = group_of(call, objects, group);
    check_out(call, newgroup, "newgroup");
    *newgroup = add_group(objects, pick(g, range_indices(call, g, n, ranges)));
  });
}

int VPMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  constexpr const char* call = "MPI_Group_range_excl";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Group& g = group_of(call, objects, group);
    check_out(call, newgroup, "newgroup");
    *newgroup = add_group(objects, pick(g, complement(g, range_indices(call, g, n, ranges))));
  });
}

int VPMPI_Group_free(MPI_Group* group) {
  constexpr const char* call = "MPI_Group_free";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, group, "group");
    group_of(call, objects, *group);
    if (*group != MPI_GROUP_EMPTY) {
      objects.groups.remove(
          static_cast<int>(reinterpret_cast<std::uintptr_t>(*group) & VMPI_INDEX_MASK));
    }
    *group = MPI_GROUP_NULL;
  });
}

}  // extern "C"

// The MPI names, weak aliases of the profiling names (a tool's own MPI_x takes their place).
VMPI_PROFILED(Comm_rank);
VMPI_PROFILED(Comm_size);
VMPI_PROFILED(Comm_dup);
VMPI_PROFILED(Comm_dup_with_info);
VMPI_PROFILED(Comm_split);
VMPI_PROFILED(Comm_split_type);
VMPI_PROFILED(Comm_create);
VMPI_PROFILED(Comm_create_group);
VMPI_PROFILED(Comm_free);
VMPI_PROFILED(Comm_compare);
VMPI_PROFILED(Comm_set_name);
VMPI_PROFILED(Comm_get_name);
VMPI_PROFILED(Comm_test_inter);
VMPI_PROFILED(Comm_remote_size);
VMPI_PROFILED(Comm_remote_group);
VMPI_PROFILED(Comm_group);
VMPI_PROFILED(Comm_set_info);
VMPI_PROFILED(Comm_get_info);
VMPI_PROFILED(Intercomm_create);
VMPI_PROFILED(Intercomm_merge);
VMPI_PROFILED(Comm_create_keyval);
VMPI_PROFILED(Keyval_create);
VMPI_PROFILED(Comm_free_keyval);
VMPI_PROFILED(Keyval_free);
VMPI_PROFILED(Comm_set_attr);
VMPI_PROFILED(Attr_put);
VMPI_PROFILED(Comm_get_attr);
VMPI_PROFILED(Attr_get);
VMPI_PROFILED(Comm_delete_attr);
VMPI_PROFILED(Attr_delete);
VMPI_PROFILED(Group_size);
VMPI_PROFILED(Group_rank);
VMPI_PROFILED(Group_translate_ranks);
VMPI_PROFILED(Group_compare);
VMPI_PROFILED(Group_union);
VMPI_PROFILED(Group_intersection);
VMPI_PROFILED(Group_difference);
VMPI_PROFILED(Group_incl);
VMPI_PROFILED(Group_excl);
VMPI_PROFILED(Group_range_incl);
VMPI_PROFILED(Group_range_excl);
VMPI_PROFILED(Group_free);
