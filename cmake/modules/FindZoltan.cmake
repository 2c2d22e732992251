# Zoltan (libtrilinos-zoltan-dev, built against Open MPI): the imported target Zoltan::Zoltan.
# Installed with Vela, since its libraries are static and link Zoltan privately.
include(FindPackageHandleStandardArgs)
find_path(ZOLTAN_INCLUDE_DIR zoltan.h PATH_SUFFIXES trilinos)
find_library(ZOLTAN_LIBRARY NAMES trilinos_zoltan zoltan)
find_package_handle_standard_args(Zoltan REQUIRED_VARS ZOLTAN_LIBRARY ZOLTAN_INCLUDE_DIR)
if(Zoltan_FOUND AND NOT TARGET Zoltan::Zoltan)
  add_library(Zoltan::Zoltan UNKNOWN IMPORTED)
  set_target_properties(Zoltan::Zoltan PROPERTIES IMPORTED_LOCATION "${ZOLTAN_LIBRARY}"
                                                  INTERFACE_INCLUDE_DIRECTORIES "${ZOLTAN_INCLUDE_DIR}")
endif()
mark_as_advanced(ZOLTAN_INCLUDE_DIR ZOLTAN_LIBRARY)
