/* yield_when_idle.c — an MPI that leaves the core when it has nothing to do, for
 * the tests: preloaded (LD_PRELOAD) into every process CTest starts
 * (cmake/ZcollTestYield.cmake), it wraps UCX's ucp_worker_progress, the call
 * MPICH's ch4:ucx device (Debian's MPICH) polls in every blocking MPI call, and
 * sleeps 20 us after 64 polls in a row that made no progress.
 *
 * Why: the MPI tests start up to 8 ranks on a 2-core machine. A rank waiting in
 * MPI spins for its whole time slice while the rank it waits for is not
 * running, so every message costs a scheduler slice: 90% of the MPI tests'
 * CPU time went to polling. The library's own answer for ranks that outnumber
 * cores, ZCOLL_WAIT_SLEEP, covers zcoll's waits only, not the MPI calls of the
 * tests and of the MPI library itself. MPI's semantics are untouched: the same
 * calls, in the same order, only later by at most the sleep.
 * Open MPI has this knob built in (OMPI_MCA_mpi_yield_when_idle, set beside). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef unsigned (*progress_fn)(void* worker);

static progress_fn real_progress;
static __thread unsigned idle_polls;

enum { kIdlePollsBeforeSleep = 64, kSleepNanoseconds = 20000 };

/* UCX's own function: next in the global scope, or, when the MPI library was
 * loaded with RTLD_LOCAL (Python's mpi4py), from the libucp already loaded. */
static progress_fn find_real_progress(void) {
  void* f = dlsym(RTLD_NEXT, "ucp_worker_progress");
  if (f == NULL) {
    void* ucp = dlopen("libucp.so.0", RTLD_LAZY | RTLD_NOLOAD);
    if (ucp != NULL) f = dlsym(ucp, "ucp_worker_progress");
  }
  if (f == NULL) {
    fprintf(stderr, "yield_when_idle: ucp_worker_progress not found: %s\n", dlerror());
    abort();
  }
  return (progress_fn)f;
}

unsigned ucp_worker_progress(void* worker) {
  progress_fn real = __atomic_load_n(&real_progress, __ATOMIC_ACQUIRE);
  if (real == NULL) { /* first call: any thread finds the same function */
    real = find_real_progress();
    __atomic_store_n(&real_progress, real, __ATOMIC_RELEASE);
  }
  const unsigned events = real(worker);
  if (events != 0) {
    idle_polls = 0;
  } else if (++idle_polls >= kIdlePollsBeforeSleep) {
    const struct timespec pause = {0, kSleepNanoseconds};
    nanosleep(&pause, NULL);
  }
  return events;
}
