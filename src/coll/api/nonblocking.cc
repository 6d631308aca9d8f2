// nonblocking.cc — the handle's queue of calls and its progress thread (see
// nonblocking.h), and the requests.
//
// A request is shared by its caller (until zcoll_request_free) and the queue
// (until it completes): a count of two references, under the request's mutex;
// whoever drops the last one deletes it. The progress thread copies the
// call's report and, on failure, its own thread's zcoll_last_error() text into
// the request before marking it complete; zcoll_test / zcoll_wait hand both to
// the caller.
#include "coll/api/nonblocking.h"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "coll/control/comm.h"
#include "core/error.h"
#include "core/log.h"

struct zcoll_request {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  int refs = 2;  // the caller's and the queue's
  zcoll_status status = ZCOLL_SUCCESS;
  char error[512] = "";
  zcoll_report report{};
  // what runs: a collective (call, with its own copy of recvcounts) or a job
  zcoll::coll::Call call;
  std::vector<size_t> recvcounts;
  zcoll::coll::Job job;
  // on_complete
  void (*notify)(void*) = nullptr;
  void* notify_arg = nullptr;
};

namespace zcoll::coll {

void release_request(zcoll_request* r) {
  bool last;
  {
    std::lock_guard<std::mutex> lk(r->m);
    last = --r->refs == 0;
  }
  if (last) delete r;
}

namespace {

// Record the outcome, wake the waiters, run the completion callback; then
// drop the queue's reference. Called once per request.
void complete(zcoll_request* r, zcoll_status status, const zcoll_report& report) {
  void (*notify)(void*) = nullptr;
  void* arg = nullptr;
  {
    std::lock_guard<std::mutex> lk(r->m);
    r->status = status;
    r->report = report;
    r->report.status = status;
    if (status != ZCOLL_SUCCESS) std::snprintf(r->error, sizeof r->error, "%s", zcoll_last_error());
    r->done = true;
    notify = r->notify;
    arg = r->notify_arg;
  }
  r->cv.notify_all();
  if (notify) notify(arg);
  release_request(r);
}

// Run the request's call or job on this thread, with the handle.
void run_request(zcoll_comm* zc, zcoll_request* r) {
  zcoll_report rep{};
  rep.struct_size = sizeof rep;
  zcoll_status s;
  if (r->job) {
    s = guarded("zcoll nonblocking job", [&] { return r->job(zc, &rep); });
  } else {
    s = guarded("zcoll nonblocking collective", [&] { return run_call(zc, r->call); });
    rep = zc->report;
  }
  complete(r, s, rep);
}

// The one line a process prints when a nonblocking call cannot overlap.
void notice_inline(const zcoll_comm& zc) {
  static std::atomic<bool> said{false};
  if (zc.progress_inline_asked || said.exchange(true)) return;
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  const char* level = provided == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
                      : provided == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                      : provided == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                                                          : "MPI_THREAD_MULTIPLE";
  log::write(log::kWarn, zc.tp->rank(), zc.tp->size(),
             "nonblocking calls run to completion at their start (no overlap): MPI provides %s, "
             "a progress thread needs MPI_THREAD_MULTIPLE (MPI_Init_thread; docs/nonblocking.md)",
             level);
}

}  // namespace

// ---- the queue and its thread ----------------------------------------------------------
class Progress {
 public:
  explicit Progress(zcoll_comm* zc) : zc_(zc) {}
  ~Progress() { stop(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void push(zcoll_request* r, std::function<void(zcoll_comm*)> set) {
    std::lock_guard<std::mutex> lk(m_);
    queue_.push_back(Item{r, std::move(set)});
    if (!worker_.joinable()) worker_ = std::thread([this] { loop(); });
    work_.notify_one();
  }
  bool idle() {
    std::lock_guard<std::mutex> lk(m_);
    return queue_.empty() && !busy_;
  }
  void drain() {
    if (std::this_thread::get_id() == worker_id_) return;  // a job of this queue
    std::unique_lock<std::mutex> lk(m_);
    idle_.wait(lk, [&] { return queue_.empty() && !busy_; });
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    work_.notify_one();
    if (worker_.joinable()) worker_.join();
  }

 private:
  struct Item {
    zcoll_request* req;                    // a call or job, or
    std::function<void(zcoll_comm*)> set;  // a per-call setting
  };
  void loop() {
    worker_id_ = std::this_thread::get_id();
    std::unique_lock<std::mutex> lk(m_);
    for (;;) {
      work_.wait(lk, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopped with nothing left
      Item it = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lk.unlock();
      if (it.req)
        run_request(zc_, it.req);
      else
        it.set(zc_);
      lk.lock();
      busy_ = false;
      if (queue_.empty()) idle_.notify_all();
    }
  }

  zcoll_comm* zc_;
  std::mutex m_;
  std::condition_variable work_, idle_;
  std::deque<Item> queue_;
  bool busy_ = false, stop_ = false;
  std::thread worker_;
  std::atomic<std::thread::id> worker_id_{};
};

void ProgressDeleter::operator()(Progress* p) const { delete p; }

void init_progress(zcoll_comm* zc, const char* progress) {
  zc->progress_inline_asked = progress && (progress[0] == 'i' || progress[0] == 'I');
  int provided = MPI_THREAD_SINGLE;
  if (MPI_Query_thread(&provided) != MPI_SUCCESS) provided = MPI_THREAD_SINGLE;
#ifdef ZCOLL_WITH_SMPI
  provided = MPI_THREAD_SINGLE;  // simulated ranks are threads of one process already
#endif
  zc->progress_thread = !zc->progress_inline_asked && provided == MPI_THREAD_MULTIPLE;
}

namespace {
zcoll_status start(zcoll_comm* zc, zcoll_request* r, zcoll_request** out) {
  *out = r;
  if (!zc->progress_thread) {  // run it now, on the caller's thread
    notice_inline(*zc);
    run_request(zc, r);
    return ZCOLL_SUCCESS;
  }
  if (!zc->progress) zc->progress.reset(new Progress(zc));
  zc->progress->push(r, nullptr);
  return ZCOLL_SUCCESS;
}
}  // namespace

zcoll_status start_call(zcoll_comm* zc, const Call& k, zcoll_request** out) {
  auto* r = new zcoll_request;
  r->call = k;
  if (k.recvcounts) {  // the caller's array may go once the call has started
    r->recvcounts.assign(k.recvcounts, k.recvcounts + zc->tp->size());
    r->call.recvcounts = r->recvcounts.data();
  }
  return start(zc, r, out);
}

zcoll_status start_job(zcoll_comm* zc, Job job, zcoll_request** out) {
  auto* r = new zcoll_request;
  r->job = std::move(job);
  return start(zc, r, out);
}

MPI_Comm handle_comm(const zcoll_comm* zc) { return zc->tp->comm(); }

void on_complete(zcoll_request* r, void (*fn)(void*), void* arg) {
  {
    std::lock_guard<std::mutex> lk(r->m);
    if (!r->done) {
      r->notify = fn;
      r->notify_arg = arg;
      return;
    }
  }
  fn(arg);
}

bool request_done(zcoll_request* r) {
  std::lock_guard<std::mutex> lk(r->m);
  return r->done;
}

void wait_request(zcoll_request* r) {
  std::unique_lock<std::mutex> lk(r->m);
  r->cv.wait(lk, [&] { return r->done; });
}

zcoll_status request_result(const zcoll_request* r, zcoll_report* report) {
  // complete: status, report and error no longer change
  if (report) *report = r->report;
  if (r->status != ZCOLL_SUCCESS) return fail(r->status, "%s", r->error);
  return ZCOLL_SUCCESS;
}

void drain(zcoll_comm* zc) {
  if (zc && zc->progress) zc->progress->drain();
}

void apply_setting(zcoll_comm* zc, std::function<void(zcoll_comm*)> set) {
  if (!zc->progress || zc->progress->idle()) {
    set(zc);  // nothing pending, and only this thread queues: the thread stays idle
    return;
  }
  zc->progress->push(nullptr, std::move(set));
}

void stop_progress(zcoll_comm* zc) {
  if (!zc->progress) return;
  zc->progress->drain();
  zc->progress.reset();  // stops and joins the thread
}

}  // namespace zcoll::coll
