# smpi_build.cmake — the ZCOLL_SMPI=ON build (included by the top-level
# CMakeLists.txt after the codec libraries): libzcoll_mpi with the simulation
# hooks (src/coll/datapath/sim_cost.h, ZCOLL_WITH_SMPI), zcoll-bench and the simscale
# driver, all against SMPI's MPI. No tests, fuzzers or install rules; the
# smoke sweep is a CTest test here (label smpi).

# SMPI's malloc interception is not wanted (shared memory is asked for
# explicitly with SMPI_SHARED_MALLOC), and its macros break C++ headers.
add_compile_definitions(SMPI_NO_OVERRIDE_MALLOC=1)
add_compile_options("SHELL:-include ${PROJECT_SOURCE_DIR}/tools/simscale/smpi_undef.h")
foreach(_t zcoll_objects zcoll_core)
  target_compile_definitions(${_t} PRIVATE SMPI_NO_OVERRIDE_MALLOC=1)
  target_compile_options(${_t} PRIVATE "SHELL:-include ${PROJECT_SOURCE_DIR}/tools/simscale/smpi_undef.h")
endforeach()

# smpicxx provides mpi.h and libsimgrid: an empty MPI target for src/coll.
add_library(MPI::MPI_CXX INTERFACE IMPORTED)
add_library(MPI::MPI_C INTERFACE IMPORTED)
set(ZCOLL_HAVE_MPI ON)
set(_zcoll_tests ${ZCOLL_BUILD_TESTS})
set(ZCOLL_BUILD_TESTS OFF)  # the gtest/mpiexec tests cannot run under SMPI
add_subdirectory(${PROJECT_SOURCE_DIR}/src/transport ${PROJECT_BINARY_DIR}/src/transport)
add_subdirectory(${PROJECT_SOURCE_DIR}/src/coll ${PROJECT_BINARY_DIR}/src/coll)
target_sources(zcoll_mpi_objects PRIVATE ${PROJECT_SOURCE_DIR}/src/coll/datapath/sim_cost.cc)
foreach(_t zcoll_transport zcoll_mpi_objects)
  target_compile_definitions(${_t} PRIVATE ZCOLL_WITH_SMPI=1)
endforeach()
add_subdirectory(${PROJECT_SOURCE_DIR}/tools/zcoll_bench ${PROJECT_BINARY_DIR}/tools/zcoll_bench)
set(ZCOLL_BUILD_TESTS ${_zcoll_tests})
if(ZCOLL_BUILD_TESTS)
  enable_testing()
endif()
add_subdirectory(${PROJECT_SOURCE_DIR}/tools/simscale ${PROJECT_BINARY_DIR}/tools/simscale)
