// pmpi_redirect.h — every MPI function zcoll calls, renamed to its PMPI_ twin,
// so the shim's copy of zcoll never calls an MPI_ entry point that the shim
// itself (or another PMPI tool preloaded with it) defines. Used twice
// (src/pmpi/CMakeLists.txt): force-included (-include) into the shim's own
// sources, after <mpi.h>; and read by CMake, its "#define MPI_x PMPI_x" lines
// becoming the objcopy --redefine-syms list applied to libzcoll_mpi's objects
// in the shim. The test pmpi.no_mpi_imports checks the result on the built
// library (nm -D --undefined-only lists no MPI_ symbol).
//
// A new MPI call in src/coll, src/transport or src/pmpi must be added here
// (one "#define MPI_x PMPI_x" per line); the test names it when it is missing.
#pragma once

#include <mpi.h>

#define MPI_Allgather PMPI_Allgather
#define MPI_Allgather_c PMPI_Allgather_c
#define MPI_Allreduce PMPI_Allreduce
#define MPI_Allreduce_c PMPI_Allreduce_c
#define MPI_Barrier PMPI_Barrier
#define MPI_Bcast PMPI_Bcast
#define MPI_Bcast_c PMPI_Bcast_c
#define MPI_Cancel PMPI_Cancel
#define MPI_Comm_create_keyval PMPI_Comm_create_keyval
#define MPI_Comm_dup PMPI_Comm_dup
#define MPI_Comm_free PMPI_Comm_free
#define MPI_Comm_group PMPI_Comm_group
#define MPI_Comm_rank PMPI_Comm_rank
#define MPI_Comm_set_attr PMPI_Comm_set_attr
#define MPI_Comm_set_errhandler PMPI_Comm_set_errhandler
#define MPI_Comm_size PMPI_Comm_size
#define MPI_Comm_split PMPI_Comm_split
#define MPI_Comm_split_type PMPI_Comm_split_type
#define MPI_Comm_test_inter PMPI_Comm_test_inter
#define MPI_Error_string PMPI_Error_string
#define MPI_Finalized PMPI_Finalized
#define MPI_Gather PMPI_Gather
#define MPI_Gather_c PMPI_Gather_c
#define MPI_Get_count PMPI_Get_count
#define MPI_Get_count_c PMPI_Get_count_c
#define MPI_Group_free PMPI_Group_free
#define MPI_Group_size PMPI_Group_size
#define MPI_Group_translate_ranks PMPI_Group_translate_ranks
#define MPI_Initialized PMPI_Initialized
#define MPI_Iprobe PMPI_Iprobe
#define MPI_Irecv PMPI_Irecv
#define MPI_Irecv_c PMPI_Irecv_c
#define MPI_Isend PMPI_Isend
#define MPI_Isend_c PMPI_Isend_c
#define MPI_Query_thread PMPI_Query_thread
#define MPI_Recv PMPI_Recv
#define MPI_Reduce PMPI_Reduce
#define MPI_Reduce_c PMPI_Reduce_c
#define MPI_Reduce_scatter PMPI_Reduce_scatter
#define MPI_Reduce_scatter_block PMPI_Reduce_scatter_block
#define MPI_Reduce_scatter_block_c PMPI_Reduce_scatter_block_c
#define MPI_Reduce_scatter_c PMPI_Reduce_scatter_c
#define MPI_Request_free PMPI_Request_free
#define MPI_Scatter PMPI_Scatter
#define MPI_Scatter_c PMPI_Scatter_c
#define MPI_Sendrecv PMPI_Sendrecv
#define MPI_Test PMPI_Test
#define MPI_Testany PMPI_Testany
#define MPI_Type_commit PMPI_Type_commit
#define MPI_Type_contiguous PMPI_Type_contiguous
#define MPI_Type_free PMPI_Type_free
#define MPI_Type_get_extent PMPI_Type_get_extent
#define MPI_Type_get_true_extent PMPI_Type_get_true_extent
#define MPI_Type_set_name PMPI_Type_set_name
#define MPI_Type_size PMPI_Type_size
#define MPI_Wait PMPI_Wait
#define MPI_Waitany PMPI_Waitany
#define MPI_Wtime PMPI_Wtime
