# hwloc (libhwloc-dev): the imported target Hwloc::Hwloc. Installed with Vela, since its
# libraries are static and link hwloc privately.
include(FindPackageHandleStandardArgs)
find_path(HWLOC_INCLUDE_DIR hwloc.h)
find_library(HWLOC_LIBRARY hwloc)
find_package_handle_standard_args(Hwloc REQUIRED_VARS HWLOC_LIBRARY HWLOC_INCLUDE_DIR)
if(Hwloc_FOUND AND NOT TARGET Hwloc::Hwloc)
  add_library(Hwloc::Hwloc UNKNOWN IMPORTED)
  set_target_properties(Hwloc::Hwloc PROPERTIES IMPORTED_LOCATION "${HWLOC_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${HWLOC_INCLUDE_DIR}")
endif()
mark_as_advanced(HWLOC_INCLUDE_DIR HWLOC_LIBRARY)
