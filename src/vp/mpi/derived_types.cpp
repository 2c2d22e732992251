// MPI's derived datatypes (the standard's chapter 4) on the type-map engine of typemap.cpp: the
// constructors, commit and free, the questions about extents and contents, packing (native and
// external32), and the staging every call that moves data uses: a contiguous layout is sent and
// received where it lies, any other is packed into (or unpacked from) one run of bytes, in one
// pass over the type map (O(bytes), and O(1) nodes for strided layouts).
//
// A derived type is an entry of the rank's table (Objects::types, in its heap): its handle is
// VMPI_DATATYPE_BASE + VMPI_DATATYPE_COUNT + index. A type map shares its nodes with the types
// made from it, so freeing a type that others were built on, or one a pending receive uses,
// leaves those intact (the standard's rule).
#include "derived_types.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace vela::mpi::detail {
namespace {

constexpr std::uintptr_t first_derived = VMPI_DATATYPE_BASE + VMPI_DATATYPE_COUNT;
static_assert(basic_count == VMPI_DATATYPE_COUNT - 2,
              "vela/mpi.h's predefined datatypes are typemap's Basic types, then MPI_LB, MPI_UB");

int class_of(ErrorClass c) {
  switch (c) {
    case ErrorClass::count:
      return MPI_ERR_COUNT;
    case ErrorClass::type:
      return MPI_ERR_TYPE;
    case ErrorClass::arg:
      return MPI_ERR_ARG;
    case ErrorClass::truncate:
      return MPI_ERR_TRUNCATE;
    case ErrorClass::buffer:
      return MPI_ERR_BUFFER;
    case ErrorClass::dims:
      return MPI_ERR_DIMS;
    case ErrorClass::other:
      return MPI_ERR_OTHER;
  }
  return MPI_ERR_OTHER;
}

// Runs `f`, a call into the engine, turning its TypeError into the MPI error of its class.
template <class F>
auto engine(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const TypeError& e) {
    throw MpiError(class_of(e.mpi_class()), e.what());
  }
}

DerivedType* find_derived(MPI_Datatype datatype) {
  const auto value = reinterpret_cast<std::uintptr_t>(datatype);
  if (value < first_derived || value > VMPI_DATATYPE_BASE + VMPI_INDEX_MASK) return nullptr;
  const RankMpi& mine = rank_mpi.get();
  if (mine.objects == nullptr) return nullptr;
  return mine.objects->types.find(static_cast<int>(value - first_derived));
}

// The type map of any datatype (committed or not), for the constructors.
Typemap map_of(const char* call, MPI_Datatype datatype, const char* what = "oldtype") {
  const auto value = reinterpret_cast<std::uintptr_t>(datatype);
  if (value - VMPI_DATATYPE_BASE < static_cast<std::uintptr_t>(basic_count))
    return Typemap::basic(static_cast<Basic>(value - VMPI_DATATYPE_BASE));
  if (datatype == MPI_LB || datatype == MPI_UB) {
    fail(call, MPI_ERR_TYPE,
         std::string(what) +
             " MPI_LB / MPI_UB (removed in MPI 3.0) is not supported: use "
             "MPI_Type_create_resized");
  }
  const DerivedType* d = find_derived(datatype);
  if (d == nullptr) fail_datatype(call, datatype, what);
  return d->map;
}

std::uint64_t id_of(MPI_Datatype datatype) {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(datatype));
}

// Adds `map` (made by `call` from `children`) to the rank's table; its handle.
MPI_Datatype add_type(Typemap map, std::vector<std::uint64_t> children) {
  Objects& objects = *rank_mpi.get().objects;
  const InRankHeap heap;
  map.set_children(std::move(children));
  const int index = objects.types.add(DerivedType(std::move(map)));
  DerivedType& d = *objects.types.find(index);
  d.name = "";
  Datatype& v = d.view;
  v.name = "a derived datatype";
  v.type = vp::Type::bytes;
  v.size = d.map.size();
  v.extent = d.map.extent();
  v.true_lb = d.map.true_lb();
  v.contiguous = d.map.contiguous();
  v.committed = false;
  v.map = &d.map;
  v.reducible = Reducible::none;
  if (const std::optional<Basic> b = d.map.homogeneous()) {
    const Datatype& element = datatypes[static_cast<int>(*b)];
    // A pair type is packed without its padding: reductions take it unpacked only.
    if (element.reducible != Reducible::pair && element.reducible != Reducible::pair_same) {
      v.element = &element;
      v.reducible = element.reducible;
      v.part = element.part;
    }
  }
  return reinterpret_cast<MPI_Datatype>(first_derived + static_cast<std::uintptr_t>(index));
}

// What every constructor does: checks the output, builds the map (the engine checks the
// arguments), adds it.
template <class Build>
int construct(const char* call, MPI_Datatype* newtype, std::vector<MPI_Datatype> children,
              Build build) {
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, newtype, "newtype");
    std::vector<std::uint64_t> ids;
    for (const MPI_Datatype c : children) ids.push_back(id_of(c));
    const InRankHeap heap;  // the map's nodes belong to the rank
    Typemap map = engine([&] { return build(); });
    *newtype = add_type(std::move(map), std::move(ids));
  });
}

std::vector<std::int64_t> addresses(const MPI_Aint* values, int n) {
  return std::vector<std::int64_t>(values, values + std::max(n, 0));
}

void check_array(const char* call, int count, const void* array, const char* what) {
  count_of(call, count, "count");
  if (count > 0) check_out(call, array, what);
}

}  // namespace

const Datatype& derived_of(const char* call, MPI_Datatype datatype, const char* what,
                           bool committed) {
  const DerivedType* d = find_derived(datatype);
  if (d == nullptr) fail_datatype(call, datatype, what);
  if (committed && !d->view.committed) {
    fail(call, MPI_ERR_TYPE,
         std::string(what) + " " + handle_text(datatype) +
             " is not committed (MPI_Type_commit it before communicating with it)");
  }
  return d->view;
}

const void* gathered(const void* buffer, std::size_t count, const Datatype& type,
                     std::vector<std::byte>& scratch) {
  if (type.contiguous) {
    return reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(buffer) +
                                         static_cast<std::uintptr_t>(type.true_lb));
  }
  scratch.resize(count * type.size);
  engine([&] { type.map->pack(buffer, count, scratch.data()); });
  return scratch.data();
}

void* receiving(void* buffer, std::size_t count, const Datatype& type,
                std::vector<std::byte>& scratch) {
  if (type.contiguous) {
    return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(buffer) +
                                   static_cast<std::uintptr_t>(type.true_lb));
  }
  scratch.resize(count * type.size);
  return scratch.data();
}

void scattered(const std::vector<std::byte>& scratch, std::size_t bytes, void* buffer,
               std::size_t count, const Datatype& type) {
  if (type.contiguous) return;
  engine([&] { type.map->unpack(scratch.data(), bytes, buffer, count); });
}

}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VPMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* call = "MPI_Type_contiguous";
  return construct(call, newtype, {oldtype},
                   [&] { return Typemap::contiguous(call, count, map_of(call, oldtype)); });
}

int VPMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  constexpr const char* call = "MPI_Type_vector";
  return construct(call, newtype, {oldtype}, [&] {
    return Typemap::vector(call, count, blocklength, stride, map_of(call, oldtype));
  });
}

int VPMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
  constexpr const char* call = "MPI_Type_create_hvector";
  return construct(call, newtype, {oldtype}, [&] {
    return Typemap::hvector(call, count, blocklength, stride, map_of(call, oldtype));
  });
}

int VPMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  constexpr const char* call = "MPI_Type_hvector";
  return construct(call, newtype, {oldtype}, [&] {
    return Typemap::hvector(call, count, blocklength, stride, map_of(call, oldtype));
  });
}

int VPMPI_Type_indexed(int count, const int array_of_blocklengths[],
                       const int array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  constexpr const char* call = "MPI_Type_indexed";
  return construct(call, newtype, {oldtype}, [&] {
    check_array(call, count, array_of_blocklengths, "array_of_blocklengths");
    check_array(call, count, array_of_displacements, "array_of_displacements");
    const auto n = static_cast<std::size_t>(count);
    return Typemap::indexed(call, {array_of_blocklengths, n}, {array_of_displacements, n},
                            map_of(call, oldtype));
  });
}

}  // extern "C"

namespace {
int hindexed(const char* call, int count, const int blocklengths[], const MPI_Aint displacements[],
             MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct(call, newtype, {oldtype}, [&] {
    check_array(call, count, blocklengths, "array_of_blocklengths");
    check_array(call, count, displacements, "array_of_displacements");
    const std::vector<std::int64_t> d = addresses(displacements, count);
    return Typemap::hindexed(call, {blocklengths, static_cast<std::size_t>(count)}, d,
                             map_of(call, oldtype));
  });
}

int structure(const char* call, int count, const int blocklengths[], const MPI_Aint displacements[],
              const MPI_Datatype types[], MPI_Datatype* newtype) {
  count_of(call, count, "count");
  std::vector<MPI_Datatype> children(types, types + (count > 0 && types != nullptr ? count : 0));
  return construct(call, newtype, children, [&] {
    check_array(call, count, blocklengths, "array_of_blocklengths");
    check_array(call, count, displacements, "array_of_displacements");
    check_array(call, count, types, "array_of_types");
    std::vector<Typemap> maps;
    std::vector<const Typemap*> pointers;
    maps.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) maps.push_back(map_of(call, types[i], "array_of_types[i]"));
    for (const Typemap& m : maps) pointers.push_back(&m);
    const std::vector<std::int64_t> d = addresses(displacements, count);
    return Typemap::structure(call, {blocklengths, static_cast<std::size_t>(count)}, d, pointers);
  });
}

// A datatype of any kind, committed or not (MPI_ERR_TYPE otherwise): attributes go on any.
void any_datatype(const char* call, MPI_Datatype datatype) {
  const auto value = reinterpret_cast<std::uintptr_t>(datatype);
  if (value - VMPI_DATATYPE_BASE >= VMPI_DATATYPE_COUNT && find_derived(datatype) == nullptr) {
    fail_datatype(call, datatype, "datatype");
  }
}

// Runs the delete function of `datatype`'s attribute `keyval` holding `value`.
void delete_type_attribute(const char* call, Objects& objects, MPI_Datatype datatype, int keyval,
                           void* value) {
  const Keyval& k = keyval_of(call, objects, keyval);
  if (k.remove == nullptr) return;
  const InRankHeap heap;  // the program's code allocates from the rank's heap
  const int code =
      reinterpret_cast<MPI_Type_delete_attr_function*>(k.remove)(datatype, keyval, value, k.extra);
  if (code != MPI_SUCCESS) {
    fail(call, code,
         "the delete function of type_keyval " + std::to_string(keyval) + " returned error " +
             std::to_string(code));
  }
}

// The attributes of a datatype being freed: deleted (their functions run), then forgotten.
void drop_type_attributes(const char* call, Objects& objects, MPI_Datatype datatype) {
  const auto handle = reinterpret_cast<std::uintptr_t>(datatype);
  auto& all = objects.type_attributes;
  for (auto it = all.lower_bound({handle, INT_MIN});
       it != all.end() && it->first.first == handle;) {
    delete_type_attribute(call, objects, datatype, it->first.second, it->second);
    const InRankHeap heap;
    it = all.erase(it);
  }
}

// MPI_Type_dup: each attribute of `from` whose key's copy function says so goes on `to`.
void copy_type_attributes(const char* call, Objects& objects, MPI_Datatype from, MPI_Datatype to) {
  const auto handle = reinterpret_cast<std::uintptr_t>(from);
  std::vector<std::pair<int, void*>> copied;
  auto& all = objects.type_attributes;
  for (auto it = all.lower_bound({handle, INT_MIN}); it != all.end() && it->first.first == handle;
       ++it) {
    const Keyval& k = keyval_of(call, objects, it->first.second);
    if (k.copy == nullptr) continue;
    void* out = nullptr;
    int flag = 0;
    const int code = reinterpret_cast<MPI_Type_copy_attr_function*>(k.copy)(
        from, it->first.second, k.extra, it->second, &out, &flag);
    if (code != MPI_SUCCESS) {
      fail(call, code,
           "the copy function of type_keyval " + std::to_string(it->first.second) +
               " returned error " + std::to_string(code));
    }
    if (flag != 0) copied.emplace_back(it->first.second, out);
  }
  const InRankHeap heap;
  for (const auto& [keyval, value] : copied) {
    all[{reinterpret_cast<std::uintptr_t>(to), keyval}] = value;
  }
}
}  // namespace

extern "C" {

int VPMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                               const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
  return hindexed("MPI_Type_create_hindexed", count, array_of_blocklengths, array_of_displacements,
                  oldtype, newtype);
}

int VPMPI_Type_hindexed(int count, const int array_of_blocklengths[],
                        const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype* newtype) {
  return hindexed("MPI_Type_hindexed", count, array_of_blocklengths, array_of_displacements,
                  oldtype, newtype);
}

int VPMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* call = "MPI_Type_create_indexed_block";
  return construct(call, newtype, {oldtype}, [&] {
    check_array(call, count, array_of_displacements, "array_of_displacements");
    return Typemap::indexed_block(call, blocklength,
                                  {array_of_displacements, static_cast<std::size_t>(count)},
                                  map_of(call, oldtype));
  });
}

int VPMPI_Type_create_hindexed_block(int count, int blocklength,
                                     const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype* newtype) {
  constexpr const char* call = "MPI_Type_create_hindexed_block";
  return construct(call, newtype, {oldtype}, [&] {
    check_array(call, count, array_of_displacements, "array_of_displacements");
    const std::vector<std::int64_t> d = addresses(array_of_displacements, count);
    return Typemap::hindexed_block(call, blocklength, d, map_of(call, oldtype));
  });
}

int VPMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[],
                             const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  return structure("MPI_Type_create_struct", count, array_of_blocklengths, array_of_displacements,
                   array_of_types, newtype);
}

int VPMPI_Type_struct(int count, const int array_of_blocklengths[],
                      const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                      MPI_Datatype* newtype) {
  return structure("MPI_Type_struct", count, array_of_blocklengths, array_of_displacements,
                   array_of_types, newtype);
}

int VPMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                               const int array_of_starts[], int order, MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
  constexpr const char* call = "MPI_Type_create_subarray";
  return construct(call, newtype, {oldtype}, [&] {
    check_array(call, ndims, array_of_sizes, "array_of_sizes");
    check_array(call, ndims, array_of_subsizes, "array_of_subsizes");
    check_array(call, ndims, array_of_starts, "array_of_starts");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
      fail(call, MPI_ERR_ARG,
           "order " + std::to_string(order) + " is not MPI_ORDER_C or MPI_ORDER_FORTRAN");
    }
    const auto n = static_cast<std::size_t>(ndims);
    return Typemap::subarray(call, {array_of_sizes, n}, {array_of_subsizes, n},
                             {array_of_starts, n}, order == MPI_ORDER_FORTRAN,
                             map_of(call, oldtype));
  });
}

int VPMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                             const int array_of_distribs[], const int array_of_dargs[],
                             const int array_of_psizes[], int order, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  constexpr const char* call = "MPI_Type_create_darray";
  return construct(call, newtype, {oldtype}, [&] {
    check_array(call, ndims, array_of_gsizes, "array_of_gsizes");
    check_array(call, ndims, array_of_distribs, "array_of_distribs");
    check_array(call, ndims, array_of_dargs, "array_of_dargs");
    check_array(call, ndims, array_of_psizes, "array_of_psizes");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
      fail(call, MPI_ERR_ARG,
           "order " + std::to_string(order) + " is not MPI_ORDER_C or MPI_ORDER_FORTRAN");
    }
    const auto n = static_cast<std::size_t>(ndims);
    std::vector<int> distribs(array_of_distribs, array_of_distribs + n);
    std::vector<int> dargs(array_of_dargs, array_of_dargs + n);
    for (std::size_t i = 0; i < n; ++i) {
      // vela/mpi.h's constants are the engine's (block 0, cyclic 1, none 2); its default -1.
      if (dargs[i] == MPI_DISTRIBUTE_DFLT_DARG) dargs[i] = -1;
    }
    return Typemap::darray(call, size, rank, {array_of_gsizes, n}, distribs, dargs,
                           {array_of_psizes, n}, order == MPI_ORDER_FORTRAN, map_of(call, oldtype));
  });
}

int VPMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                              MPI_Datatype* newtype) {
  constexpr const char* call = "MPI_Type_create_resized";
  return construct(call, newtype, {oldtype},
                   [&] { return Typemap::resized(call, lb, extent, map_of(call, oldtype)); });
}

// ---- attributes (one key space with communicators and windows) ----

int VMPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int VMPI_TYPE_DUP_FN(MPI_Datatype, int, void*, void* in, void* out, int* flag) {
  std::memcpy(out, &in, sizeof in);
  *flag = 1;
  return MPI_SUCCESS;
}

int VMPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void*, void*) {
  return MPI_SUCCESS;
}

int VPMPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                             MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                             void* extra_state) {
  constexpr const char* call = "MPI_Type_create_keyval";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, type_keyval, "type_keyval");
    const InRankHeap heap;
    *type_keyval = objects.next_keyval++;
    objects.keyvals[*type_keyval] =
        Keyval{reinterpret_cast<void*>(type_copy_attr_fn),
               reinterpret_cast<void*>(type_delete_attr_fn), extra_state, false};
  });
}

int VPMPI_Type_free_keyval(int* type_keyval) {
  return free_keyval("MPI_Type_free_keyval", type_keyval);
}

int VPMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  constexpr const char* call = "MPI_Type_set_attr";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    any_datatype(call, datatype);
    keyval_of(call, objects, type_keyval);
    const auto key = std::make_pair(reinterpret_cast<std::uintptr_t>(datatype), type_keyval);
    const auto it = objects.type_attributes.find(key);
    if (it != objects.type_attributes.end()) {
      delete_type_attribute(call, objects, datatype, type_keyval, it->second);
    }
    const InRankHeap heap;
    objects.type_attributes[key] = attribute_val;
  });
}

int VPMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  constexpr const char* call = "MPI_Type_get_attr";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    any_datatype(call, datatype);
    check_out(call, attribute_val, "attribute_val");
    check_out(call, flag, "flag");
    keyval_of(call, objects, type_keyval);
    const auto it = objects.type_attributes.find(
        std::make_pair(reinterpret_cast<std::uintptr_t>(datatype), type_keyval));
    *flag = it != objects.type_attributes.end() ? 1 : 0;
    if (*flag != 0) std::memcpy(attribute_val, &it->second, sizeof it->second);
  });
}

int VPMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  constexpr const char* call = "MPI_Type_delete_attr";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    any_datatype(call, datatype);
    keyval_of(call, objects, type_keyval);
    const auto it = objects.type_attributes.find(
        std::make_pair(reinterpret_cast<std::uintptr_t>(datatype), type_keyval));
    if (it == objects.type_attributes.end()) {
      fail(call, MPI_ERR_KEYVAL,
           "type_keyval " + std::to_string(type_keyval) + " has no attribute on this datatype");
    }
    delete_type_attribute(call, objects, datatype, type_keyval, it->second);
    const InRankHeap heap;
    objects.type_attributes.erase(it);
  });
}

int VPMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* call = "MPI_Type_dup";
  const int code =
      construct(call, newtype, {oldtype}, [&] { return Typemap::dup(map_of(call, oldtype)); });
  if (code == MPI_SUCCESS && newtype != nullptr) {
    const int copied = guarded(call, [&](const Label& label) {
      copy_type_attributes(call, active(call, label), oldtype, *newtype);
    });
    if (copied != MPI_SUCCESS) return copied;
  }
  // A duplicate of a committed type is committed.
  if (code == MPI_SUCCESS && newtype != nullptr) {
    const auto value = reinterpret_cast<std::uintptr_t>(oldtype);
    const DerivedType* old = find_derived(oldtype);
    const bool committed =
        value - VMPI_DATATYPE_BASE < VMPI_DATATYPE_COUNT || (old != nullptr && old->view.committed);
    if (DerivedType* d = find_derived(*newtype)) d->view.committed = committed;
  }
  return code;
}

int VPMPI_Type_commit(MPI_Datatype* datatype) {
  constexpr const char* call = "MPI_Type_commit";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, datatype, "datatype");
    const auto value = reinterpret_cast<std::uintptr_t>(*datatype);
    if (value - VMPI_DATATYPE_BASE < VMPI_DATATYPE_COUNT) return;  // predefined: committed
    DerivedType* d = find_derived(*datatype);
    if (d == nullptr) fail_datatype(call, *datatype, "datatype");
    d->view.committed = true;
  });
}

int VPMPI_Type_free(MPI_Datatype* datatype) {
  constexpr const char* call = "MPI_Type_free";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, datatype, "datatype");
    const auto value = reinterpret_cast<std::uintptr_t>(*datatype);
    if (value - VMPI_DATATYPE_BASE < VMPI_DATATYPE_COUNT) {
      fail(call, MPI_ERR_TYPE, "a predefined datatype cannot be freed");
    }
    if (find_derived(*datatype) == nullptr) fail_datatype(call, *datatype, "datatype");
    drop_type_attributes(call, objects, *datatype);
    objects.types.remove(static_cast<int>(value - first_derived));
    *datatype = MPI_DATATYPE_NULL;
  });
}

}  // extern "C"

namespace {
// The extent and lower bound of any datatype, committed or not.
struct Bounds {
  std::int64_t lb;
  std::int64_t extent;
  std::int64_t true_lb;
  std::int64_t true_extent;
  std::size_t size;
};

Bounds bounds_of(const char* call, MPI_Datatype datatype) {
  const auto value = reinterpret_cast<std::uintptr_t>(datatype);
  if (value - VMPI_DATATYPE_BASE < VMPI_DATATYPE_COUNT) {
    const Datatype& t = datatypes[value - VMPI_DATATYPE_BASE];
    const auto extent = static_cast<std::int64_t>(t.size);
    return {0, extent, 0, extent, t.size};
  }
  const Typemap& m = *derived_of(call, datatype, "datatype", false).map;
  return {m.lb(), m.extent(), m.true_lb(), m.true_extent(), m.size()};
}

template <class Lb, class Extent>
int extent_call(const char* call, MPI_Datatype datatype, Lb* lb, Extent* extent, bool true_one) {
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, lb, "lb");
    check_out(call, extent, "extent");
    const Bounds b = bounds_of(call, datatype);
    *lb = static_cast<Lb>(true_one ? b.true_lb : b.lb);
    *extent = static_cast<Extent>(true_one ? b.true_extent : b.extent);
  });
}
}  // namespace

extern "C" {

int VPMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  return extent_call("MPI_Type_get_extent", datatype, lb, extent, false);
}

int VPMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return extent_call("MPI_Type_get_extent_x", datatype, lb, extent, false);
}

int VPMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  return extent_call("MPI_Type_get_true_extent", datatype, true_lb, true_extent, true);
}

int VPMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                                 MPI_Count* true_extent) {
  return extent_call("MPI_Type_get_true_extent_x", datatype, true_lb, true_extent, true);
}

int VPMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  MPI_Aint lb = 0;
  return extent_call("MPI_Type_extent", datatype, &lb, extent, false);
}

int VPMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint extent = 0;
  return extent_call("MPI_Type_lb", datatype, displacement, &extent, false);
}

int VPMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  const int code = extent_call("MPI_Type_ub", datatype, &lb, &extent, false);
  if (code == MPI_SUCCESS && displacement != nullptr) *displacement = lb + extent;
  return code;
}

int VPMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  constexpr const char* call = "MPI_Type_set_name";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, type_name, "type_name");
    DerivedType* d = find_derived(datatype);
    if (d == nullptr) fail(call, MPI_ERR_TYPE, "only a derived datatype can be named");
    const InRankHeap heap;
    d->name = std::string(type_name).substr(0, MPI_MAX_OBJECT_NAME - 1);
  });
}

int VPMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  constexpr const char* call = "MPI_Type_get_name";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, type_name, "type_name");
    check_out(call, resultlen, "resultlen");
    const auto value = reinterpret_cast<std::uintptr_t>(datatype);
    std::string name;
    if (value - VMPI_DATATYPE_BASE < VMPI_DATATYPE_COUNT) {
      name = datatypes[value - VMPI_DATATYPE_BASE].name;
    } else {
      const DerivedType* d = find_derived(datatype);
      if (d == nullptr) fail_datatype(call, datatype, "datatype");
      name = d->name;
    }
    std::memcpy(type_name, name.c_str(), name.size() + 1);
    *resultlen = static_cast<int>(name.size());
  });
}

int VPMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                            int* num_datatypes, int* combiner) {
  constexpr const char* call = "MPI_Type_get_envelope";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, num_integers, "num_integers");
    check_out(call, num_addresses, "num_addresses");
    check_out(call, num_datatypes, "num_datatypes");
    check_out(call, combiner, "combiner");
    const auto value = reinterpret_cast<std::uintptr_t>(datatype);
    if (value - VMPI_DATATYPE_BASE < VMPI_DATATYPE_COUNT) {
      *num_integers = *num_addresses = *num_datatypes = 0;
      *combiner = MPI_COMBINER_NAMED;
      return;
    }
    const DerivedType* d = find_derived(datatype);
    if (d == nullptr) fail_datatype(call, datatype, "datatype");
    const Envelope& e = d->map.envelope();
    *num_integers = static_cast<int>(e.integers.size());
    *num_addresses = static_cast<int>(e.addresses.size());
    *num_datatypes = static_cast<int>(e.children.size());
    constexpr int combiners[] = {
        MPI_COMBINER_NAMED,    MPI_COMBINER_DUP,           MPI_COMBINER_CONTIGUOUS,
        MPI_COMBINER_VECTOR,   MPI_COMBINER_HVECTOR,       MPI_COMBINER_INDEXED,
        MPI_COMBINER_HINDEXED, MPI_COMBINER_INDEXED_BLOCK, MPI_COMBINER_HINDEXED_BLOCK,
        MPI_COMBINER_STRUCT,   MPI_COMBINER_SUBARRAY,      MPI_COMBINER_DARRAY,
        MPI_COMBINER_RESIZED};
    *combiner = combiners[static_cast<int>(e.combiner)];
  });
}

int VPMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                            int max_datatypes, int array_of_integers[],
                            MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
  constexpr const char* call = "MPI_Type_get_contents";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    const DerivedType* d = find_derived(datatype);
    if (d == nullptr) {
      fail(call, MPI_ERR_TYPE,
           "datatype " + handle_text(datatype) + " is predefined or unknown: it has no contents");
    }
    const Envelope& e = d->map.envelope();
    if (max_integers < static_cast<int>(e.integers.size()) ||
        max_addresses < static_cast<int>(e.addresses.size()) ||
        max_datatypes < static_cast<int>(e.children.size())) {
      fail(call, MPI_ERR_ARG, "the arrays are smaller than MPI_Type_get_envelope's counts");
    }
    for (std::size_t i = 0; i < e.integers.size(); ++i) {
      std::int64_t v = e.integers[i];
      // The engine's order and distributions, as vela/mpi.h's constants.
      if (e.combiner == Combiner::subarray && i + 1 == e.integers.size())
        v = v == 0 ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
      if (e.combiner == Combiner::darray && i + 1 == e.integers.size())
        v = v == 0 ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
      array_of_integers[i] = static_cast<int>(v);
    }
    for (std::size_t i = 0; i < e.addresses.size(); ++i)
      array_of_addresses[i] = static_cast<MPI_Aint>(e.addresses[i]);
    for (std::size_t i = 0; i < e.children.size(); ++i)
      array_of_datatypes[i] =
          reinterpret_cast<MPI_Datatype>(static_cast<std::uintptr_t>(e.children[i]));
  });
}

}  // extern "C"

namespace {
template <class Count>
int elements(const char* call, const MPI_Status* status, MPI_Datatype datatype, Count* count) {
  return guarded(call, [&] {
    if (status == MPI_STATUS_IGNORE) fail(call, MPI_ERR_ARG, "status is MPI_STATUS_IGNORE (NULL)");
    check_out(call, count, "count");
    const auto value = reinterpret_cast<std::uintptr_t>(datatype);
    long long n = 0;
    if (value - VMPI_DATATYPE_BASE < VMPI_DATATYPE_COUNT) {
      const Datatype& t = datatypes[value - VMPI_DATATYPE_BASE];
      n = t.size == 0 || status->vmpi_bytes % t.size != 0
              ? -1
              : static_cast<long long>(status->vmpi_bytes / t.size);
    } else {
      n = derived_of(call, datatype, "datatype", true).map->elements_in(status->vmpi_bytes);
    }
    *count = n < 0 || n > std::numeric_limits<Count>::max() ? static_cast<Count>(MPI_UNDEFINED)
                                                            : static_cast<Count>(n);
  });
}

// MPI_Status_set_elements(_x): the status says `count` basic elements of `datatype` arrived
// (its bytes: count whole elements of a predefined type, or count of a derived type's one
// basic type), so that MPI_Get_elements and MPI_Get_count read them back.
int set_elements(const char* call, MPI_Status* status, MPI_Datatype datatype, long long count) {
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, status, "status");
    if (count < 0) fail(call, MPI_ERR_COUNT, "count " + std::to_string(count) + " is negative");
    const auto value = reinterpret_cast<std::uintptr_t>(datatype);
    std::size_t element = 0;
    if (value - VMPI_DATATYPE_BASE < VMPI_DATATYPE_COUNT) {
      element = datatypes[value - VMPI_DATATYPE_BASE].size;
    } else {
      const Datatype& t = derived_of(call, datatype, "datatype", true);
      if (t.element == nullptr) {
        fail(call, MPI_ERR_TYPE,
             "datatype " + handle_text(datatype) +
                 " is not made of one basic type: its elements have no single size");
      }
      element = t.element->size;
    }
    status->vmpi_bytes = static_cast<std::size_t>(count) * element;
  });
}
}  // namespace

extern "C" {

int VPMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return set_elements("MPI_Status_set_elements", status, datatype, count);
}

int VPMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

int VPMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return elements("MPI_Get_elements", status, datatype, count);
}

int VPMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return elements("MPI_Get_elements_x", status, datatype, count);
}

int VPMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  constexpr const char* call = "MPI_Pack_size";
  return guarded_on(call, comm, [&](const Label& label) {
    active(call, label, comm);
    const Datatype& t = datatype_of(call, datatype);
    check_out(call, size, "size");
    const std::size_t bytes = count_of(call, incount, "incount") * t.size;
    if (bytes > INT_MAX) fail(call, MPI_ERR_COUNT, "the packed size exceeds INT_MAX bytes");
    *size = static_cast<int>(bytes);
  });
}

int VPMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
               int* position, MPI_Comm comm) {
  constexpr const char* call = "MPI_Pack";
  return guarded_on(call, comm, [&](const Label& label) {
    active(call, label, comm);
    const Datatype& t = datatype_of(call, datatype);
    const std::size_t n = count_of(call, incount, "incount");
    check_out(call, position, "position");
    count_of(call, outsize, "outsize");
    const std::size_t bytes = n * t.size;
    if (*position < 0 ||
        static_cast<std::size_t>(*position) + bytes > static_cast<std::size_t>(outsize)) {
      fail(call, MPI_ERR_TRUNCATE,
           "packing " + std::to_string(bytes) + " bytes at position " + std::to_string(*position) +
               " overruns outsize " + std::to_string(outsize));
    }
    if (bytes > 0) check_out(call, outbuf, "outbuf");
    std::vector<std::byte> scratch;
    const void* data = gathered(inbuf, n, t, scratch);
    if (bytes > 0) std::memcpy(static_cast<std::byte*>(outbuf) + *position, data, bytes);
    *position += static_cast<int>(bytes);
  });
}

int VPMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                 MPI_Datatype datatype, MPI_Comm comm) {
  constexpr const char* call = "MPI_Unpack";
  return guarded_on(call, comm, [&](const Label& label) {
    active(call, label, comm);
    const Datatype& t = datatype_of(call, datatype);
    const std::size_t n = count_of(call, outcount, "outcount");
    check_out(call, position, "position");
    count_of(call, insize, "insize");
    const std::size_t bytes = n * t.size;
    if (*position < 0 ||
        static_cast<std::size_t>(*position) + bytes > static_cast<std::size_t>(insize)) {
      fail(call, MPI_ERR_TRUNCATE,
           "unpacking " + std::to_string(bytes) + " bytes at position " +
               std::to_string(*position) + " reads past insize " + std::to_string(insize));
    }
    if (bytes > 0) check_out(call, inbuf, "inbuf");
    const std::byte* from = static_cast<const std::byte*>(inbuf) + *position;
    std::vector<std::byte> scratch;
    void* into = receiving(outbuf, n, t, scratch);
    if (bytes > 0) std::memcpy(into, from, bytes);
    scattered(scratch, bytes, outbuf, n, t);
    *position += static_cast<int>(bytes);
  });
}

}  // extern "C"

namespace {
void check_datarep(const char* call, const char* datarep) {
  check_out(call, datarep, "datarep");
  if (std::string(datarep) != "external32") {
    fail(call, MPI_ERR_ARG,
         std::string("datarep \"") + datarep + "\" is not \"external32\" (the only one defined)");
  }
}

Typemap external_map(const char* call, MPI_Datatype datatype) {
  datatype_of(call, datatype);  // committed
  return map_of(call, datatype, "datatype");
}
}  // namespace

extern "C" {

int VPMPI_Pack_external_size(const char* datarep, int incount, MPI_Datatype datatype,
                             MPI_Aint* size) {
  constexpr const char* call = "MPI_Pack_external_size";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_datarep(call, datarep);
    check_out(call, size, "size");
    const Typemap m = external_map(call, datatype);
    *size = static_cast<MPI_Aint>(count_of(call, incount, "incount") * m.external32_size());
  });
}

int VPMPI_Pack_external(const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype,
                        void* outbuf, MPI_Aint outsize, MPI_Aint* position) {
  constexpr const char* call = "MPI_Pack_external";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_datarep(call, datarep);
    check_out(call, position, "position");
    const Typemap m = external_map(call, datatype);
    const std::size_t n = count_of(call, incount, "incount");
    const std::size_t bytes = n * m.external32_size();
    if (*position < 0 || *position + static_cast<MPI_Aint>(bytes) > outsize) {
      fail(call, MPI_ERR_TRUNCATE,
           "packing " + std::to_string(bytes) + " bytes at position " + std::to_string(*position) +
               " overruns outsize " + std::to_string(outsize));
    }
    if (bytes > 0) check_out(call, outbuf, "outbuf");
    engine([&] { m.pack_external32(inbuf, n, static_cast<std::byte*>(outbuf) + *position); });
    *position += static_cast<MPI_Aint>(bytes);
  });
}

int VPMPI_Unpack_external(const char* datarep, const void* inbuf, MPI_Aint insize,
                          MPI_Aint* position, void* outbuf, int outcount, MPI_Datatype datatype) {
  constexpr const char* call = "MPI_Unpack_external";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_datarep(call, datarep);
    check_out(call, position, "position");
    const Typemap m = external_map(call, datatype);
    const std::size_t n = count_of(call, outcount, "outcount");
    const std::size_t bytes = n * m.external32_size();
    if (*position < 0 || *position + static_cast<MPI_Aint>(bytes) > insize) {
      fail(call, MPI_ERR_TRUNCATE,
           "unpacking " + std::to_string(bytes) + " bytes at position " +
               std::to_string(*position) + " reads past insize " + std::to_string(insize));
    }
    if (bytes > 0) check_out(call, inbuf, "inbuf");
    engine(
        [&] { m.unpack_external32(static_cast<const std::byte*>(inbuf) + *position, outbuf, n); });
    *position += static_cast<MPI_Aint>(bytes);
  });
}

// The predefined type of a Fortran kind's size (MPI_Type_match_size).
int VPMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  constexpr const char* call = "MPI_Type_match_size";
  return guarded(call, [&] {
    check_out(call, datatype, "datatype");
    MPI_Datatype found = MPI_DATATYPE_NULL;
    if (typeclass == MPI_TYPECLASS_INTEGER) {
      found = size == 1   ? MPI_INTEGER1
              : size == 2 ? MPI_INTEGER2
              : size == 4 ? MPI_INTEGER4
              : size == 8 ? MPI_INTEGER8
                          : MPI_DATATYPE_NULL;
    } else if (typeclass == MPI_TYPECLASS_REAL) {
      found = size == 4    ? MPI_REAL4
              : size == 8  ? MPI_REAL8
              : size == 16 ? MPI_REAL16
                           : MPI_DATATYPE_NULL;
    } else if (typeclass == MPI_TYPECLASS_COMPLEX) {
      found = size == 8    ? MPI_COMPLEX8
              : size == 16 ? MPI_COMPLEX16
              : size == 32 ? MPI_COMPLEX32
                           : MPI_DATATYPE_NULL;
    } else {
      fail(call, MPI_ERR_ARG,
           "typeclass " + std::to_string(typeclass) +
               " is not MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX");
    }
    if (found == MPI_DATATYPE_NULL) {
      fail(call, MPI_ERR_ARG,
           "no predefined type of class " + std::to_string(typeclass) + " has " +
               std::to_string(size) + " bytes");
    }
    *datatype = found;
  });
}

}  // extern "C"

// The MPI names, weak aliases of the profiling names (a tool's own MPI_x takes their place).
VMPI_PROFILED(Type_contiguous);
VMPI_PROFILED(Type_vector);
VMPI_PROFILED(Type_create_hvector);
VMPI_PROFILED(Type_hvector);
VMPI_PROFILED(Type_indexed);
VMPI_PROFILED(Type_create_hindexed);
VMPI_PROFILED(Type_hindexed);
VMPI_PROFILED(Type_create_indexed_block);
VMPI_PROFILED(Type_create_hindexed_block);
VMPI_PROFILED(Type_create_struct);
VMPI_PROFILED(Type_struct);
VMPI_PROFILED(Type_create_subarray);
VMPI_PROFILED(Type_create_darray);
VMPI_PROFILED(Type_create_resized);
VMPI_PROFILED(Type_dup);
VMPI_PROFILED(Status_set_elements);
VMPI_PROFILED(Status_set_elements_x);
VMPI_PROFILED(Type_create_keyval);
VMPI_PROFILED(Type_free_keyval);
VMPI_PROFILED(Type_set_attr);
VMPI_PROFILED(Type_get_attr);
VMPI_PROFILED(Type_delete_attr);
VMPI_PROFILED(Type_commit);
VMPI_PROFILED(Type_free);
VMPI_PROFILED(Type_get_extent);
VMPI_PROFILED(Type_get_extent_x);
VMPI_PROFILED(Type_get_true_extent);
VMPI_PROFILED(Type_get_true_extent_x);
VMPI_PROFILED(Type_extent);
VMPI_PROFILED(Type_lb);
VMPI_PROFILED(Type_ub);
VMPI_PROFILED(Type_set_name);
VMPI_PROFILED(Type_get_name);
VMPI_PROFILED(Type_get_envelope);
VMPI_PROFILED(Type_get_contents);
VMPI_PROFILED(Get_elements);
VMPI_PROFILED(Get_elements_x);
VMPI_PROFILED(Pack_size);
VMPI_PROFILED(Pack);
VMPI_PROFILED(Unpack);
VMPI_PROFILED(Pack_external_size);
VMPI_PROFILED(Pack_external);
VMPI_PROFILED(Unpack_external);
VMPI_PROFILED(Type_match_size);
