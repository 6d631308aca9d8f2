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

}  // namespace zcoll::transport
