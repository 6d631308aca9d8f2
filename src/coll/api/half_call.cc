// half_call.cc — see half_call.h: zcoll's 16-bit MPI datatypes and the
// collectives on them (float32 copies in, one rounding to 16 bits out).
#include "coll/api/half_call.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <vector>

#include "codec/value_types.h"
#include "coll/control/call_report.h"
#include "coll/control/collective.h"
#include "core/error.h"
#include "transport/clock.h"

// The reason text is cut to zcoll_report.reason on purpose.
#pragma GCC diagnostic ignored "-Wformat-truncation"

namespace zcoll::coll {

namespace {

// ---- the datatypes ------------------------------------------------------------------
// Created on first use, freed when MPI_COMM_SELF's attributes are deleted (the
// start of MPI_Finalize), so that a later MPI session could create them again.
std::mutex g_types_mutex;
MPI_Datatype g_types[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};  // bfloat16, float16
int g_keyval = MPI_KEYVAL_INVALID;

int index_of(zcoll_dtype d) { return d == ZCOLL_BFLOAT16 ? 0 : 1; }

int free_types(MPI_Comm, int, void*, void*) {
  std::lock_guard<std::mutex> lock(g_types_mutex);
  for (MPI_Datatype& t : g_types)
    if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  g_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

zcoll_status create_types() {
  MPI_Datatype made[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  const char* names[2] = {"ZCOLL_BFLOAT16", "ZCOLL_FLOAT16"};
  for (int i = 0; i < 2; ++i) {
    // two bytes without arithmetic: MPI's predefined ops refuse it (no silent
    // integer sum), data movement and user-defined ops work
    if (MPI_Type_contiguous(2, MPI_BYTE, &made[i]) != MPI_SUCCESS ||
        MPI_Type_commit(&made[i]) != MPI_SUCCESS)
      return fail(ZCOLL_ERR_MPI, "creating the %s datatype failed", names[i]);
    MPI_Type_set_name(made[i], names[i]);
  }
  int key = MPI_KEYVAL_INVALID;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_types, &key, nullptr) != MPI_SUCCESS ||
      MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr) != MPI_SUCCESS)
    return fail(ZCOLL_ERR_MPI, "registering the 16-bit datatypes' release at MPI_Finalize failed");
  g_types[0] = made[0];
  g_types[1] = made[1];
  g_keyval = key;
  return ZCOLL_SUCCESS;
}

// ---- the call -----------------------------------------------------------------------
bool is_reduction_op(MPI_Op op) {
  return op == MPI_SUM || op == MPI_PROD || op == MPI_MAX || op == MPI_MIN;
}

// MPI's other predefined ops: not defined on zcoll's 16-bit datatypes (MPI
// would fail, or with MPI_ERRORS_ARE_FATAL abort), so refused before any MPI
// call. User-defined ops go to MPI with the 16-bit values.
bool is_other_predefined_op(MPI_Op op) {
  const MPI_Op others[] = {MPI_LAND, MPI_LOR,    MPI_LXOR,   MPI_BAND,    MPI_BOR,
                           MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
  for (MPI_Op o : others)
    if (op == o) return true;
  return false;
}

template <typename T>
void widen(const void* src, float* dst, size_t n) {
  const T* s = static_cast<const T*>(src);
  for (size_t i = 0; i < n; ++i) dst[i] = ValueTraits<T>::widen(s[i]);
}

// dst = to16(src); returns the largest |to16(v) - v| over finite v (in double,
// exact): +Inf when a finite value overflows the 16-bit range.
template <typename T>
double narrow(const float* src, void* dst, size_t n) {
  T* d = static_cast<T*>(dst);
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const float v = src[i];
    d[i] = ValueTraits<T>::narrow(v);
    if (!std::isfinite(v)) continue;
    const double e = std::fabs(static_cast<double>(ValueTraits<T>::widen(d[i])) - v);
    worst = e > worst ? e : worst;
  }
  return worst;
}

// The float32 copies of a call's buffers and the call on them.
struct Staged {
  Call f32;
  const void* in_src = nullptr;  // 16-bit input to widen (nullptr: none on this rank)
  float* in_dst = nullptr;
  size_t in_n = 0;
  void* out_dst = nullptr;  // 16-bit output to write (nullptr: none on this rank)
  size_t out_n = 0;
};

// Where the input and output of k are, and the float32 call with the same
// shape (MPI_IN_PLACE kept: the input goes to the matching place of the
// float32 receive buffer).
Staged stage(zcoll_comm* zc, const Call& k, zcoll_dtype half) {
  const int N = zc->tp->size(), r = zc->tp->rank();
  const CollectiveTraits& t = traits(k.coll);
  const size_t in_n = input_values(k, N, r), out_n = output_values(k, N, r);
  const size_t total = total_values(k, N);
  Staged s;
  s.f32 = k;
  s.f32.datatype = MPI_FLOAT;
  s.f32.values16 = half;
  const bool may = !t.in_place_root_only || r == k.root;
  // the float32 receive buffer has room for every layout: the output, and the
  // input where MPI_IN_PLACE puts it there (Reduce_scatter: all blocks)
  const size_t recv_n = std::max({out_n, t.in_place == InPlace::kRecvbuf ? in_n : 0,
                                  t.in_place == InPlace::kOwnBlock ? total : 0,
                                  k.coll == ZCOLL_COLL_BCAST ? k.count : 0});
  zc->half_recv.resize(std::max<size_t>(recv_n, 1));
  float* rb = zc->half_recv.data();
  s.f32.recvbuf = rb;
  s.out_dst = out_n ? k.recvbuf : nullptr;
  s.out_n = out_n;
  switch (t.in_place) {
    case InPlace::kNone:  // Bcast: the root's buffer is the input, left as it is
      if (r == k.root) {
        s.in_src = k.recvbuf, s.in_dst = rb, s.in_n = k.count;
        s.out_dst = nullptr;
      }
      return s;
    case InPlace::kRecvbuf:
      if (may && k.sendbuf == MPI_IN_PLACE) {
        s.in_src = k.recvbuf, s.in_dst = rb, s.in_n = in_n;
        return s;
      }
      break;
    case InPlace::kOwnBlock:
      if (may && k.sendbuf == MPI_IN_PLACE) {
        const size_t block = static_cast<size_t>(t.rooted ? k.root : r) * k.count;
        s.in_src = static_cast<const uint8_t*>(k.recvbuf) + 2 * block;
        s.in_dst = rb + block, s.in_n = k.count;
        return s;
      }
      break;
    case InPlace::kRootSendBlock:
      if (may && k.recvbuf == MPI_IN_PLACE) {  // the root's block stays in sendbuf
        s.f32.recvbuf = MPI_IN_PLACE;
        s.out_dst = nullptr;
      }
      break;
  }
  if (in_n && k.sendbuf && k.sendbuf != MPI_IN_PLACE) {
    zc->half_send.resize(in_n);
    s.in_src = k.sendbuf, s.in_dst = zc->half_send.data(), s.in_n = in_n;
    s.f32.sendbuf = zc->half_send.data();
  }
  return s;
}

zcoll_status refuse(zcoll_comm* zc, const Call& k, zcoll_status st, const char* why) {
  CallReport rep(zc, k);
  ++zc->calls;  // every call advances the tag epoch alike (dispatch.cc)
  rep->mode = ZCOLL_MODE_MPI;
  rep->algorithm = ZCOLL_ALGO_NONE;
  std::snprintf(rep->reason, sizeof rep->reason, "%s", why);
  return rep.finish(fail(st, "%s", why));
}

}  // namespace

bool half_dtype_of(MPI_Datatype datatype, zcoll_dtype* dtype) {
  if (datatype == MPI_DATATYPE_NULL) return false;
  std::lock_guard<std::mutex> lock(g_types_mutex);
  if (datatype == g_types[0]) return *dtype = ZCOLL_BFLOAT16, true;
  if (datatype == g_types[1]) return *dtype = ZCOLL_FLOAT16, true;
  return false;
}

zcoll_status run_half_call(zcoll_comm* zc, const Call& k, zcoll_dtype dtype) {
  const double t0 = now_seconds();
  const CollectiveTraits& t = traits(k.coll);
  if (zc->device)
    return refuse(zc, k, ZCOLL_ERR_UNSUPPORTED,
                  "bfloat16/float16 collectives run on host buffers only (no device kernels)");
  if (t.reduction && is_other_predefined_op(k.op))
    return refuse(zc, k, ZCOLL_ERR_UNSUPPORTED,
                  "bfloat16/float16 take MPI_SUM/PROD/MAX/MIN or a user-defined op");
  if (t.reduction && !is_reduction_op(k.op)) {  // MPI on the 16-bit type itself
    CallReport rep(zc, k);
    ++zc->calls;  // every call advances the tag epoch alike (dispatch.cc)
    rep->mode = ZCOLL_MODE_MPI;
    rep->algorithm = ZCOLL_ALGO_NATIVE;
    std::snprintf(rep->reason, sizeof rep->reason,
                  "op is not MPI_SUM/PROD/MAX/MIN: MPI on the 16-bit values");
    const double tc = now_seconds();
    const zcoll_status st = run_native(zc, k, false, dtype);
    rep->time_comm = now_seconds() - tc;
    return rep.finish(st);
  }
  const Staged s = stage(zc, k, dtype);
  if (s.in_src) {
    if (dtype == ZCOLL_BFLOAT16)
      widen<Bf16>(s.in_src, s.in_dst, s.in_n);
    else
      widen<Fp16>(s.in_src, s.in_dst, s.in_n);
  }
  const double t_in = now_seconds() - t0;
  const zcoll_status st = run_call(zc, s.f32);
  if (st != ZCOLL_SUCCESS) return st;
  const double t1 = now_seconds();
  double rounding = 0;
  if (s.out_dst) {
    const float* res = zc->half_recv.data();
    rounding = dtype == ZCOLL_BFLOAT16 ? narrow<Bf16>(res, s.out_dst, s.out_n)
                                       : narrow<Fp16>(res, s.out_dst, s.out_n);
  }
  zcoll_report& rep = zc->report;
  rep.error_bound += rounding;
  if (rep.eb_per_compression > 0) rep.error_factor = rep.error_bound / rep.eb_per_compression;
  rep.time_total += t_in + (now_seconds() - t1);
  const size_t used = std::strlen(rep.reason);
  std::snprintf(rep.reason + used, sizeof rep.reason - used, "; %s via float32 (+%.3g rounding)",
                dtype == ZCOLL_BFLOAT16 ? "bfloat16" : "float16", rounding);
  return ZCOLL_SUCCESS;
}

zcoll_status half_datatype(zcoll_dtype dtype, MPI_Datatype* datatype) {
  if (!datatype) return fail(ZCOLL_ERR_INVALID_ARG, "datatype is NULL");
  switch (dtype) {
    case ZCOLL_FLOAT32: *datatype = MPI_FLOAT; return ZCOLL_SUCCESS;
    case ZCOLL_FLOAT64: *datatype = MPI_DOUBLE; return ZCOLL_SUCCESS;
    case ZCOLL_BFLOAT16:
    case ZCOLL_FLOAT16: break;
    default: return fail(ZCOLL_ERR_INVALID_ARG, "unknown dtype code %d", static_cast<int>(dtype));
  }
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (!init || fin) return fail(ZCOLL_ERR_MPI, "MPI is not initialized (or already finalized)");
  std::lock_guard<std::mutex> lock(g_types_mutex);
  if (g_types[0] == MPI_DATATYPE_NULL) ZCOLL_CHECK(create_types());
  *datatype = g_types[index_of(dtype)];
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::coll
