# ZcollSelectMPI.cmake — choose which MPI implementation the build uses.
#
#   -DZCOLL_MPI=mpich     Debian's MPICH wrappers (mpicc.mpich, mpicxx.mpich, mpirun.mpich)
#   -DZCOLL_MPI=openmpi   Debian's Open MPI wrappers (mpicc.openmpi, mpicxx.openmpi, mpirun.openmpi)
#   -DZCOLL_MPI=          (default) whatever FindMPI finds first: the `mpicc`/`mpirun`
#                         alternatives, i.e. the system default.
#
# Debian switches the generic mpicc / mpirun / mpi.h alternatives to whichever MPI was
# installed last, so a build that must use a given MPI names its wrappers explicitly.
# Explicit -DMPI_C_COMPILER / -DMPI_CXX_COMPILER / -DMPIEXEC_EXECUTABLE still win.
#
# For Open MPI the tests' launcher flags (MPIEXEC_PREFLAGS, unless given) become
# `--oversubscribe` (the tests start up to 5 ranks, more than the cores of a small
# machine; MPICH's hydra does that by itself) and, when configuring as root,
# `--allow-run-as-root` (Open MPI refuses to run as root otherwise).
set(ZCOLL_MPI "" CACHE STRING "MPI implementation: mpich, openmpi, or empty for the system default")
set_property(CACHE ZCOLL_MPI PROPERTY STRINGS "" mpich openmpi)

if(ZCOLL_MPI STREQUAL "")
  return()
endif()
if(NOT ZCOLL_MPI MATCHES "^(mpich|openmpi)$")
  message(FATAL_ERROR "ZCOLL_MPI must be mpich, openmpi or empty, not '${ZCOLL_MPI}'")
endif()

# find_program caches the result; give an explicit cache entry priority
find_program(ZCOLL_MPI_CC NAMES mpicc.${ZCOLL_MPI} DOC "C wrapper of ZCOLL_MPI")
find_program(ZCOLL_MPI_CXX NAMES mpicxx.${ZCOLL_MPI} mpic++.${ZCOLL_MPI} DOC "C++ wrapper of ZCOLL_MPI")
find_program(ZCOLL_MPI_RUN NAMES mpirun.${ZCOLL_MPI} mpiexec.${ZCOLL_MPI} DOC "launcher of ZCOLL_MPI")
foreach(_v ZCOLL_MPI_CC ZCOLL_MPI_CXX ZCOLL_MPI_RUN)
  if(NOT ${_v})
    message(FATAL_ERROR "ZCOLL_MPI=${ZCOLL_MPI}: ${_v} not found (is ${ZCOLL_MPI} installed? "
                        "Open MPI: bash scripts/setup.sh --openmpi)")
  endif()
endforeach()

if(NOT DEFINED MPI_C_COMPILER)
  set(MPI_C_COMPILER "${ZCOLL_MPI_CC}" CACHE FILEPATH "MPI C compiler wrapper")
endif()
if(NOT DEFINED MPI_CXX_COMPILER)
  set(MPI_CXX_COMPILER "${ZCOLL_MPI_CXX}" CACHE FILEPATH "MPI C++ compiler wrapper")
endif()
if(NOT DEFINED MPIEXEC_EXECUTABLE)
  set(MPIEXEC_EXECUTABLE "${ZCOLL_MPI_RUN}" CACHE FILEPATH "MPI launcher")
endif()
if(ZCOLL_MPI STREQUAL "openmpi" AND NOT DEFINED MPIEXEC_PREFLAGS)
  set(_pre --oversubscribe)
  execute_process(COMMAND id -u OUTPUT_VARIABLE _uid OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_uid STREQUAL "0")
    list(APPEND _pre --allow-run-as-root)
  endif()
  set(MPIEXEC_PREFLAGS "${_pre}" CACHE STRING "flags before the program in mpiexec calls")
endif()
message(STATUS "zcoll: MPI ${ZCOLL_MPI}: ${MPI_CXX_COMPILER}, launcher ${MPIEXEC_EXECUTABLE} ${MPIEXEC_PREFLAGS}")
