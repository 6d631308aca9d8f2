# ZcollTestYield.cmake — every test CTest starts runs with an MPI that yields the
# core when idle (tests/support/yield_when_idle.c): the MPI tests start more
# ranks than a small machine has cores, and spinning ranks made them 5-10 times
# slower. The preload is prepended to LD_PRELOAD (the PMPI shim's tests keep
# theirs, tests/pmpi/run_pmpi.sh), Open MPI gets its own knob.
# A yielding MPI test's ranks use about one core between them (waits sleep), so
# CTest counts it as ZCOLL_TEST_RANK_SLOTS processors (default 1) instead of one
# per rank: with -j2 two MPI tests share the two cores (CTest 323 s -> 194 s, the
# report of issue 35); builds inside tests (label build) keep theirs.
# -DZCOLL_TEST_YIELD=OFF runs the tests with MPI spinning as it ships; the
# sanitizer build (ZCOLL_SANITIZE) leaves it off: its runtime must come first; so
# does the SimGrid build (ZCOLL_SMPI: no MPI processes).
include_guard(GLOBAL)

set(_zcoll_yield_default ON)
if(ZCOLL_SANITIZE OR ZCOLL_SMPI OR NOT ZCOLL_BUILD_TESTS)
  set(_zcoll_yield_default OFF)
endif()
option(ZCOLL_TEST_YIELD "Tests: MPI leaves the core when idle (LD_PRELOAD, tests/support)"
       ${_zcoll_yield_default})

set(ZCOLL_TEST_RANK_SLOTS 1 CACHE STRING "CTest processors an MPI test's ranks count for (yielding)")
if(ZCOLL_TEST_YIELD AND ZCOLL_BUILD_TESTS)
  add_library(zcoll_test_yield MODULE ${PROJECT_SOURCE_DIR}/tests/support/yield_when_idle.c)
  target_link_libraries(zcoll_test_yield PRIVATE ${CMAKE_DL_LIBS})
  set_target_properties(zcoll_test_yield PROPERTIES C_STANDARD 11)
  target_compile_definitions(zcoll_test_yield PRIVATE _GNU_SOURCE)  # RTLD_NEXT
endif()

# The tests registered so far in the calling directory get the preload: call it
# last in each directory whose tests start MPI ranks (CMake 3.25 cannot set a
# test property from another directory).
function(zcoll_tests_yield_when_idle)
  if(NOT TARGET zcoll_test_yield)
    return()
  endif()
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT_MODIFICATION
                 "LD_PRELOAD=path_list_prepend:$<TARGET_FILE:zcoll_test_yield>"
                 "OMPI_MCA_mpi_yield_when_idle=set:1")
    get_test_property(${t} PROCESSORS np)
    get_test_property(${t} LABELS labels)
    if(np GREATER ZCOLL_TEST_RANK_SLOTS AND NOT "build" IN_LIST labels)
      set_tests_properties(${t} PROPERTIES PROCESSORS ${ZCOLL_TEST_RANK_SLOTS})
    endif()
  endforeach()
endfunction()
