// transport.cc — the Transport interface's default methods (transport.h).
#include "transport/transport.h"

#include "core/error.h"

namespace zcoll::transport {

zcoll_status Transport::wait_any(const Req* reqs, int n, int* index) {
  *index = -1;
  bool any = false;
  for (int i = 0; i < n; ++i) any = any || reqs[i] != kNoReq;
  if (!any) return ZCOLL_SUCCESS;
  for (;;) {
    for (int i = 0; i < n; ++i) {
      if (reqs[i] == kNoReq) continue;
      bool done = false;
      ZCOLL_CHECK(test(reqs[i], &done));
      if (done) {
        *index = i;
        return ZCOLL_SUCCESS;
      }
    }
    progress();
  }
}

zcoll_status Transport::barrier() {
  double v = 0;
  return allreduce_max(&v, 1);
}

zcoll_status Transport::baseline_allreduce(const void*, void*, size_t, zcoll_dtype) {
  return fail(ZCOLL_ERR_UNSUPPORTED, "this transport has no baseline collective library");
}

zcoll_status Transport::locality(const Locality** out) {
  if (!assumed_) assumed_ = std::make_unique<Locality>(Locality::one_per_node(size(), rank()));
  *out = assumed_.get();
  return ZCOLL_SUCCESS;
}

zcoll_status Transport::split(int, int, std::unique_ptr<Transport>* out) {
  out->reset();
  return fail(ZCOLL_ERR_UNSUPPORTED, "this transport cannot split into sub-groups");
}

zcoll_status Transport::node_transport(Transport** out) {
  if (!node_) {
    const Locality* l = nullptr;
    ZCOLL_CHECK(locality(&l));
    ZCOLL_CHECK(split(l->node, l->rank, &node_));
  }
  *out = node_.get();
  return ZCOLL_SUCCESS;
}

zcoll_status Transport::rail_transport(Transport** out) {
  if (!rail_) {
    const Locality* l = nullptr;
    ZCOLL_CHECK(locality(&l));
    ZCOLL_CHECK(split(l->local_rank, l->node, &rail_));
  }
  *out = rail_.get();
  return ZCOLL_SUCCESS;
}

void Transport::drop_subgroups() {
  node_.reset();
  rail_.reset();
}

}  // namespace zcoll::transport
