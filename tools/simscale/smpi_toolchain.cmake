# smpi_toolchain.cmake — included before project() when ZCOLL_SMPI=ON: compile
# with SimGrid's SMPI wrappers, which add SMPI's mpi.h, link libsimgrid and make
# every program a shared object that smpirun loads once per simulated rank.
find_program(ZCOLL_SMPICC smpicc)
find_program(ZCOLL_SMPICXX smpicxx)
if(NOT ZCOLL_SMPICC OR NOT ZCOLL_SMPICXX)
  message(FATAL_ERROR "ZCOLL_SMPI=ON needs SimGrid's smpicc/smpicxx "
                      "(Debian: apt-get install libsimgrid-dev simgrid)")
endif()
if(DEFINED CMAKE_CXX_COMPILER AND NOT CMAKE_CXX_COMPILER STREQUAL ZCOLL_SMPICXX
   AND NOT CMAKE_CXX_COMPILER MATCHES "smpicxx$")
  message(FATAL_ERROR "ZCOLL_SMPI=ON: this build directory was configured with "
                      "${CMAKE_CXX_COMPILER}; use a fresh one (e.g. build-smpi)")
endif()
set(CMAKE_C_COMPILER "${ZCOLL_SMPICC}" CACHE FILEPATH "SMPI C wrapper" FORCE)
set(CMAKE_CXX_COMPILER "${ZCOLL_SMPICXX}" CACHE FILEPATH "SMPI C++ wrapper" FORCE)
