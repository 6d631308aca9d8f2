# check_imports.cmake — cmake -DLIB=libzcoll_pmpi.so -DNM=nm -P check_imports.cmake
# The shim must never call an MPI_ entry point (it would come back into itself
# or into another PMPI tool): `nm -D --undefined-only` may list PMPI_ symbols
# but no MPI_ one. It must define every entry point it intercepts, and export
# nothing else (its copies of libzcoll / libzcoll_mpi stay private).
execute_process(COMMAND ${NM} -D --undefined-only ${LIB} OUTPUT_VARIABLE undef RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIB}")
endif()
string(REGEX MATCHALL "[ \t]MPI_[A-Za-z0-9_]+" imported "${undef}")
if(imported)
  message(FATAL_ERROR "libzcoll_pmpi.so imports MPI_ symbols (add them to "
                      "src/pmpi/pmpi_redirect.h or call PMPI_ directly):${imported}")
endif()
string(REGEX MATCHALL "[ \t]PMPI_Allreduce[\n]" pmpi "${undef}")
if(NOT pmpi)
  message(FATAL_ERROR "no PMPI_Allreduce import: is ${LIB} the shim?")
endif()
execute_process(COMMAND ${NM} -D --defined-only ${LIB} OUTPUT_VARIABLE defined)
set(expected MPI_Init MPI_Init_thread MPI_Finalize MPI_Pcontrol MPI_Allreduce MPI_Reduce
    MPI_Reduce_scatter_block MPI_Reduce_scatter MPI_Allgather MPI_Bcast MPI_Scatter MPI_Gather)
if(LARGE_COUNT)
  list(APPEND expected MPI_Allreduce_c MPI_Reduce_c MPI_Reduce_scatter_block_c
       MPI_Reduce_scatter_c MPI_Allgather_c MPI_Bcast_c MPI_Scatter_c MPI_Gather_c)
endif()
foreach(sym IN LISTS expected)
  if(NOT defined MATCHES " T ${sym}\n")
    message(FATAL_ERROR "${LIB} does not define ${sym}")
  endif()
endforeach()
string(REGEX MATCHALL " [TDBRVW] [A-Za-z_][A-Za-z0-9_]*" exported "${defined}")
foreach(e IN LISTS exported)
  string(REGEX REPLACE "^ [TDBRVW] " "" name "${e}")
  if(NOT name MATCHES "^MPI_")
    message(FATAL_ERROR "${LIB} exports ${name} (only MPI_ entry points may be exported)")
  endif()
endforeach()
list(LENGTH expected n)
message(STATUS "ok: no MPI_ import, ${n} entry points defined, nothing else exported")
