// MPI's groups and info objects for Fortran (the standard's chapters 6 and 9; conventions in
// bindings.hpp). MPI_GROUP_RANGE_INCL's and MPI_GROUP_RANGE_EXCL's ranges, an INTEGER array
// RANGES(3, N), lie in memory as C's int ranges[n][3]. An info key or value loses its leading
// and trailing blanks (the standard's rule for Fortran); MPI_INFO_GET's VALUELEN is the room
// in VALUE, which it leaves unchanged when the key is not there.
#include "bindings.hpp"

using namespace vela::mpi::fortran;

namespace {

// A CHARACTER key or value: its text without leading or trailing blanks.
std::string stripped(const char* s, std::size_t length) {
  std::size_t first = 0;
  while (first < length && s[first] == ' ') ++first;
  return text_in(s + first, length - first);
}

// RANGES(3, N) as C's ranges[n][3].
using Ranges = int (*)[3];

}  // namespace

extern "C" {

// ---- groups ----

VELA_FORTRAN(group_size, (F * g, F* size, F* ierr), { *ierr = MPI_Group_size(group(g), size); })
VELA_FORTRAN(group_rank, (F * g, F* rank, F* ierr), { *ierr = MPI_Group_rank(group(g), rank); })

VELA_FORTRAN(group_translate_ranks, (F * a, F* n, F* ranks_a, F* b, F* ranks_b, F* ierr),
             { *ierr = MPI_Group_translate_ranks(group(a), *n, ranks_a, group(b), ranks_b); })

VELA_FORTRAN(group_compare, (F * a, F* b, F* result, F* ierr),
             { *ierr = MPI_Group_compare(group(a), group(b), result); })

VELA_FORTRAN(group_union, (F * a, F* b, F* n, F* ierr), {
  HandleOut<MPI_Group> made(n);
  *ierr = MPI_Group_union(group(a), group(b), made.get());
})

VELA_FORTRAN(group_intersection, (F * a, F* b, F* n, F* ierr), {
  HandleOut<MPI_Group> made(n);
  *ierr = MPI_Group_intersection(group(a), group(b), made.get());
})

VELA_FORTRAN(group_difference, (F * a, F* b, F* n, F* ierr), {
  HandleOut<MPI_Group> made(n);
  *ierr = MPI_Group_difference(group(a), group(b), made.get());
})

VELA_FORTRAN(group_incl, (F * g, F* count, F* ranks, F* n, F* ierr), {
  HandleOut<MPI_Group> made(n);
  *ierr = MPI_Group_incl(group(g), *count, ranks, made.get());
})

VELA_FORTRAN(group_excl, (F * g, F* count, F* ranks, F* n, F* ierr), {
  HandleOut<MPI_Group> made(n);
  *ierr = MPI_Group_excl(group(g), *count, ranks, made.get());
})

VELA_FORTRAN(group_range_incl, (F * g, F* count, F* ranges, F* n, F* ierr), {
  HandleOut<MPI_Group> made(n);
  *ierr = MPI_Group_range_incl(group(g), *count, reinterpret_cast<Ranges>(ranges), made.get());
})

VELA_FORTRAN(group_range_excl, (F * g, F* count, F* ranges, F* n, F* ierr), {
  HandleOut<MPI_Group> made(n);
  *ierr = MPI_Group_range_excl(group(g), *count, reinterpret_cast<Ranges>(ranges), made.get());
})

VELA_FORTRAN(group_free, (F * g, F* ierr), {
  HandleInOut<MPI_Group> freed(g);
  *ierr = MPI_Group_free(freed.get());
})

// ---- info objects ----

VELA_FORTRAN(info_create, (F * i, F* ierr), {
  HandleOut<MPI_Info> made(i);
  *ierr = MPI_Info_create(made.get());
})

VELA_FORTRAN(info_set,
             (F * i, char* key, char* value, F* ierr, std::size_t key_length,
              std::size_t value_length),
             {
               *ierr = MPI_Info_set(info(i), stripped(key, key_length).c_str(),
                                    stripped(value, value_length).c_str());
             })

VELA_FORTRAN(info_get,
             (F * i, char* key, F* valuelen, char* value, F* flag, F* ierr, std::size_t key_length,
              std::size_t value_length),
             {
               std::vector<char> c(static_cast<std::size_t>(std::max(*valuelen, 0)) + 1, '\0');
               *ierr = MPI_Info_get(info(i), stripped(key, key_length).c_str(), *valuelen, c.data(),
                                    flag);
               if (*ierr == MPI_SUCCESS && *flag != 0) text_out(c.data(), value, value_length);
             })

VELA_FORTRAN(info_get_valuelen,
             (F * i, char* key, F* valuelen, F* flag, F* ierr, std::size_t key_length), {
               *ierr = MPI_Info_get_valuelen(info(i), stripped(key, key_length).c_str(), valuelen,
                                             flag);
             })

VELA_FORTRAN(info_get_nkeys, (F * i, F* nkeys, F* ierr),
             { *ierr = MPI_Info_get_nkeys(info(i), nkeys); })

VELA_FORTRAN(info_get_nthkey, (F * i, F* n, char* key, F* ierr, std::size_t key_length), {
  TextOut text(key, key_length, MPI_MAX_INFO_KEY);
  *ierr = MPI_Info_get_nthkey(info(i), *n, text.get());
})

VELA_FORTRAN(info_delete, (F * i, char* key, F* ierr, std::size_t key_length),
             { *ierr = MPI_Info_delete(info(i), stripped(key, key_length).c_str()); })

VELA_FORTRAN(info_dup, (F * i, F* n, F* ierr), {
  HandleOut<MPI_Info> made(n);
  *ierr = MPI_Info_dup(info(i), made.get());
})

VELA_FORTRAN(info_free, (F * i, F* ierr), {
  HandleInOut<MPI_Info> freed(i);
  *ierr = MPI_Info_free(freed.get());
})

}  // extern "C"
