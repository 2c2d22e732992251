# Scotch (libscotch-dev): the imported target Scotch::Scotch (libscotch with its error handler
# libscotcherr). Installed with Vela, since its libraries are static and link Scotch privately.
include(FindPackageHandleStandardArgs)
find_path(SCOTCH_INCLUDE_DIR scotch.h PATH_SUFFIXES scotch)
find_library(SCOTCH_LIBRARY scotch)
find_library(SCOTCHERR_LIBRARY scotcherr)
find_package_handle_standard_args(Scotch REQUIRED_VARS SCOTCH_LIBRARY SCOTCHERR_LIBRARY
                                                       SCOTCH_INCLUDE_DIR)
if(Scotch_FOUND AND NOT TARGET Scotch::Scotch)
  add_library(Scotch::scotcherr UNKNOWN IMPORTED)
  set_target_properties(Scotch::scotcherr PROPERTIES IMPORTED_LOCATION "${SCOTCHERR_LIBRARY}")
  add_library(Scotch::Scotch UNKNOWN IMPORTED)
  set_target_properties(Scotch::Scotch PROPERTIES IMPORTED_LOCATION "${SCOTCH_LIBRARY}"
                                                  INTERFACE_INCLUDE_DIRECTORIES "${SCOTCH_INCLUDE_DIR}"
                                                  INTERFACE_LINK_LIBRARIES Scotch::scotcherr)
endif()
mark_as_advanced(SCOTCH_INCLUDE_DIR SCOTCH_LIBRARY SCOTCHERR_LIBRARY)
