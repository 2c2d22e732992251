# Brotli's decoder (libbrotli-dev), for DARMA vt's compressed LB data files: the imported target
# Brotli::decoder. Installed with Vela, since its libraries are static and link it privately.
include(FindPackageHandleStandardArgs)
find_path(BROTLIDEC_INCLUDE_DIR brotli/decode.h)
find_library(BROTLIDEC_LIBRARY brotlidec)
find_package_handle_standard_args(BrotliDec REQUIRED_VARS BROTLIDEC_LIBRARY BROTLIDEC_INCLUDE_DIR)
if(BrotliDec_FOUND AND NOT TARGET Brotli::decoder)
  add_library(Brotli::decoder UNKNOWN IMPORTED)
  set_target_properties(Brotli::decoder PROPERTIES IMPORTED_LOCATION "${BROTLIDEC_LIBRARY}"
                                                   INTERFACE_INCLUDE_DIRECTORIES "${BROTLIDEC_INCLUDE_DIR}")
endif()
mark_as_advanced(BROTLIDEC_INCLUDE_DIR BROTLIDEC_LIBRARY)
