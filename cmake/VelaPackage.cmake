# What `cmake --install` puts in a prefix, and the Debian package made of it (cpack -G DEB):
# the public headers, the static libraries with a CMake package config (find_package(Vela),
# targets vela::lb, vela::rt, ...) and pkg-config files, the vela-lb tool and the MPI compiler
# wrappers (installed by src/vp/mpi), and the licence.
include(CMakePackageConfigHelpers)

set(vela_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Vela)

# The libraries a program links, under their exported names: vela::pup, vela::lb, ...
set(vela_installed_libraries vela_pup vela_lb vela_rt vela_vp vela_mpi vela_vp_heap vela_mpi_main
                             vela_mpi_image_main)
foreach(library IN LISTS vela_installed_libraries)
  string(REGEX REPLACE "^vela_" "" export_name ${library})
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${export_name})
endforeach()

install(TARGETS ${vela_installed_libraries} EXPORT VelaTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS vela-lb RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# vela-lb report draws with this tool, looked for in ../share/vela from the program.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/report/vela_report.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/vela)
# Relaunches a job that lost a process from its last checkpoint (docs/user-guide.md).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/vela-run/vela-run DESTINATION ${CMAKE_INSTALL_BINDIR})
# vela/sim is the simulator behind `vela-lb simulate`, a program rather than an installed library.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/vela DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        PATTERN sim EXCLUDE)
# The platforms of `vela-lb simulate --platform NAME`, looked for in ../share/vela/platforms.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/platforms DESTINATION ${CMAKE_INSTALL_DATADIR}/vela
        FILES_MATCHING PATTERN "*.xml")
# The licence (MIT), in share/doc/vela. The Debian package carries it where Debian keeps every
# package's licence as well, /usr/share/doc/vela/copyright: that copy belongs to a component of
# its own that only cpack installs (CPACK_INSTALL_CMAKE_PROJECTS below), not `cmake --install`.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/vela
        RENAME copyright COMPONENT debian_copyright EXCLUDE_FROM_ALL)
install(EXPORT VelaTargets NAMESPACE vela:: DESTINATION ${vela_cmake_dir})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/VelaConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/VelaConfig.cmake
                              INSTALL_DESTINATION ${vela_cmake_dir})
# 0.x: a minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/VelaConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/VelaConfig.cmake ${PROJECT_BINARY_DIR}/VelaConfigVersion.cmake
        DESTINATION ${vela_cmake_dir})
# The Find modules of the dependencies without a CMake config of their own.
install(FILES ${PROJECT_SOURCE_DIR}/cmake/modules/FindMETIS.cmake
              ${PROJECT_SOURCE_DIR}/cmake/modules/FindScotch.cmake
              ${PROJECT_SOURCE_DIR}/cmake/modules/FindGLPK.cmake
              ${PROJECT_SOURCE_DIR}/cmake/modules/FindZoltan.cmake
              ${PROJECT_SOURCE_DIR}/cmake/modules/FindHwloc.cmake
              ${PROJECT_SOURCE_DIR}/cmake/modules/FindBrotliDec.cmake
        DESTINATION ${vela_cmake_dir}/modules)

# ---- pkg-config: one file per library (vela-lb.pc, vela-rt.pc, ...) ----

# `-lname` for a library file found by a Find module (they live in the linker's default paths
# on Debian), the file itself otherwise.
function(vela_link_flag library out)
  get_filename_component(directory ${library} DIRECTORY)
  get_filename_component(file ${library} NAME)
  if(file MATCHES "^lib(.+)\\.(so|a)$" AND directory IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
    set(${out} "-l${CMAKE_MATCH_1}" PARENT_SCOPE)
  else()
    set(${out} "${library}" PARENT_SCOPE)
  endif()
endfunction()

foreach(dependency METIS SCOTCH SCOTCHERR GLPK ZOLTAN)
  vela_link_flag(${${dependency}_LIBRARY} vela_${dependency}_flag)
endforeach()

# The .pc files find the prefix from where they lie, so the prefix may be chosen at install time.
if(IS_ABSOLUTE ${CMAKE_INSTALL_LIBDIR})
  set(vela_pc_prefix ${CMAKE_INSTALL_PREFIX})
else()
  file(RELATIVE_PATH vela_pc_up /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
  set(vela_pc_prefix "\${pcfiledir}/${vela_pc_up}")
  string(REGEX REPLACE "/$" "" vela_pc_prefix ${vela_pc_prefix})
endif()

# Requires: other .pc files (Vela's, and the dependencies that ship one); Libs: this library,
# then the dependencies without a .pc file. Libs rather than Libs.private: the libraries are
# static, so every program needs what they link.
function(vela_pkg_config name description requires libs cflags)
  set(text "prefix=${vela_pc_prefix}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}

Name: ${name}
Description: ${description}
Version: ${PROJECT_VERSION}
Requires: ${requires}
Cflags: -I\${includedir}${cflags}
Libs: -L\${libdir} ${libs}
")
  file(WRITE ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc "${text}")
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()

vela_pkg_config(vela-pup "Vela: serialization with one pup() for sizing, packing and unpacking"
                "" "-lvela_pup" "")
vela_pkg_config(vela-lb "Vela: the load-balancing toolkit (instances, strategies, policies)"
                "libbrotlidec ompi-c"
                "-lvela_lb ${vela_METIS_flag} ${vela_SCOTCH_flag} ${vela_SCOTCHERR_flag} ${vela_GLPK_flag} ${vela_ZOLTAN_flag} -pthread"
                "")
vela_pkg_config(vela-rt "Vela: the message-driven runtime with measurement-based balancing"
                "vela-lb vela-pup hwloc fmt CLI11" "-lvela_rt -pthread" "")
vela_pkg_config(vela-vp "Vela: ranks as migratable user-level threads" "vela-rt fmt"
                "-lvela_vp -lboost_context" "")
vela_pkg_config(vela-mpi "Vela: the MPI C subset over ranks (keep your own main)" "vela-vp CLI11"
                "-lvela_mpi" "")
vela_pkg_config(vela-mpi-main
                "Vela: MPI programs compiled unchanged as ranks (the main() that runs them)"
                "vela-mpi" "-lvela_mpi_main -lvela_vp_heap" " -I\${includedir}/vela/mpi/compat")

# ---- the Debian package: cpack -G DEB ----

set(CPACK_PACKAGE_NAME vela)
set(CPACK_PACKAGE_VENDOR "Vela developers")
set(CPACK_PACKAGE_CONTACT "Vela developers <vela@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Measurement-based dynamic load balancing: toolkit, runtime and vela-lb")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RPM_PACKAGE_LICENSE MIT)
# Everything `cmake --install` installs, and the Debian copyright file.
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};${PROJECT_NAME};ALL;/"
                                 "${PROJECT_BINARY_DIR};${PROJECT_NAME};debian_copyright;/")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The Depends line is written out rather than computed by CPACK_DEBIAN_PACKAGE_SHLIBDEPS:
# dpkg-shlibdeps would see only the shared libraries vela-lb loads, while the package is
# mostly static libraries and headers, whose users need the -dev packages (headers, the .so
# to link, CMake configs and .pc files), and those bring the runtime libraries. The list is
# what src/*/CMakeLists.txt find, as scripts/install-deps.sh installs them; g++ because the
# wrappers vela-mpicc and vela-mpicxx run it.
# vela-lb loads libsimgrid when it was built with the simulator (src/sim/CMakeLists.txt).
set(vela_simgrid_depends "")
if(VELA_HAVE_SIMGRID)
  set(vela_simgrid_depends ", libsimgrid3.32")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libmetis-dev, libscotch-dev, libglpk-dev, libtrilinos-zoltan-dev, libopenmpi-dev, libhwloc-dev, libbrotli-dev, libboost-context-dev (>= 1.74), libfmt-dev, nlohmann-json3-dev (>= 3), libcli11-dev, g++${vela_simgrid_depends}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "cmake (>= 3.25), pkg-config, openmpi-bin, python3-matplotlib")
include(CPack)
