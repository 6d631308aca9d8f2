// half_call.h — collectives on bfloat16 / float16 buffers (zcoll 1.2).
//
// MPI has no bfloat16 datatype (and float16 only as MPICH's MPIX_C_FLOAT16), so
// zcoll hands out its own: zcoll_mpi_datatype(ZCOLL_BFLOAT16 / ZCOLL_FLOAT16)
// returns a committed contiguous type of 2 bytes (named "ZCOLL_BFLOAT16",
// "ZCOLL_FLOAT16"), created once and freed at MPI_Finalize. A zcoll call with
// one of them runs as the same call on float32: the 16-bit inputs are widened
// exactly into float32 copies, the float32 collective runs (every mode and
// algorithm, the MPI fallback included, accumulating in float32: homomorphic
// sums on the integer codes, DOC and raw reductions in float32), and the result
// is rounded once to 16 bits (to nearest, ties to even). The report is the
// float32 call's, with the largest rounding error of this rank's result values
// added to error_bound, so the reported bound holds against the exact result
// of the 16-bit inputs (the float32 arithmetic's rounding on top, as for
// float32). User-defined ops go to MPI on the 16-bit type itself (they see the
// 16-bit values); MPI's other predefined ops are not defined on it and are
// refused (ZCOLL_ERR_UNSUPPORTED). The float32 call carries the 16-bit type
// (Call::values16) into the agreement, so a datatype that differs across ranks
// is ZCOLL_ERR_MISMATCH. Device handles refuse 16-bit types.
#pragma once

#include <mpi.h>

#include "coll/control/comm.h"

namespace zcoll::coll {

// zcoll_mpi_datatype: MPI_FLOAT, MPI_DOUBLE, or zcoll's 16-bit datatypes.
zcoll_status half_datatype(zcoll_dtype dtype, MPI_Datatype* datatype);

// The 16-bit type datatype stands for (false: none of zcoll's 16-bit types).
bool half_dtype_of(MPI_Datatype datatype, zcoll_dtype* dtype);

// The collective k on a 16-bit type (the description above).
zcoll_status run_half_call(zcoll_comm* zc, const Call& k, zcoll_dtype dtype);

}  // namespace zcoll::coll
