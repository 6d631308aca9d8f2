// handles.cc — one zcoll handle per communicator, cached as an attribute of
// that communicator: the keyval's delete callback frees the handle, so the
// user's MPI_Comm_free (or MPI_Finalize) releases it with the communicator.
// Handles still alive at MPI_Finalize are released in creation order (the
// order is the same on every rank: creation is collective).
#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "pmpi/shim.h"

namespace zcoll::pmpi {

namespace {

struct Entry {
  MPI_Comm comm;
  zcoll_comm* zc;
  bool overlap = false;  // a progress thread on every rank (handle_overlaps)
};

int g_keyval = MPI_KEYVAL_INVALID;
std::vector<Entry*> g_live;  // creation order
int g_created = 0;

int delete_entry(MPI_Comm, int, void* attr, void*) {
  Entry* e = static_cast<Entry*>(attr);
  g_live.erase(std::remove(g_live.begin(), g_live.end(), e), g_live.end());
  // zcoll_comm_free frees the handle's duplicate (PMPI_Comm_free): allowed
  // inside a delete callback, and collective like the MPI_Comm_free that runs it.
  if (e->zc) zcoll_comm_free(e->zc);
  delete e;
  return MPI_SUCCESS;
}

}  // namespace

void init_cache() {
  if (g_keyval == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_entry, &g_keyval, nullptr);
}

zcoll_comm* handle_for(MPI_Comm comm) {
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, g_keyval, &value, &found);
  if (found) return static_cast<Entry*>(value)->zc;

  // First eligible call on comm (every rank is here): the name rule, checked
  // to agree across the ranks, then the handle.
  char name[MPI_MAX_OBJECT_NAME] = {0};
  int len = 0;
  PMPI_Comm_get_name(comm, name, &len);
  const int match = fnmatch(settings().comms.c_str(), name, 0) == 0 ? 1 : 0;
  int agree[2] = {match, -match};
  PMPI_Allreduce(MPI_IN_PLACE, agree, 2, MPI_INT, MPI_MAX, comm);
  if (agree[0] != -agree[1])
    die(comm,
        "communicator \"%s\" matches ZCOLL_PMPI_COMMS=%s on some of its ranks only (names "
        "differ across ranks); name it alike on every rank or change the pattern",
        name, settings().comms.c_str());
  Entry* e = new Entry{comm, nullptr};
  if (match) {
    zcoll_comm_config cfg;
    zcoll_comm_config_init(&cfg);
    cfg.min_bytes = 0;  // the shim applies its own threshold (ZCOLL_PMPI_MIN_BYTES)
    const zcoll_status st = zcoll_comm_create(comm, &cfg, &e->zc);
    if (st != ZCOLL_SUCCESS) {
      // the ranks agree on the outcome (zcoll_comm_create), so all pass through
      int rank = 0;
      PMPI_Comm_rank(comm, &rank);
      if (rank == 0)
        std::fprintf(stderr,
                     "zcoll-pmpi: no zcoll handle for communicator \"%s\" (%s); its calls pass "
                     "through to MPI\n",
                     name, zcoll_last_error());
      e->zc = nullptr;
    } else {
      ++g_created;
      // nonblocking calls go to zcoll only where every rank has a progress
      // thread (MPI_THREAD_MULTIPLE): agreed, so that all ranks route alike
      int threaded = 0;
      zcoll_comm_progress(e->zc, &threaded);
      int both[2] = {threaded, -threaded};
      PMPI_Allreduce(MPI_IN_PLACE, both, 2, MPI_INT, MPI_MAX, comm);
      e->overlap = both[0] == 1 && both[1] == -1;
    }
  }
  PMPI_Comm_set_attr(comm, g_keyval, e);
  g_live.push_back(e);
  return e->zc;
}

bool handle_overlaps(MPI_Comm comm) {
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, g_keyval, &value, &found);
  return found && static_cast<Entry*>(value)->zc && static_cast<Entry*>(value)->overlap;
}

void release_handles() {
  if (g_keyval == MPI_KEYVAL_INVALID) return;
  const std::vector<Entry*> live = g_live;  // the callback edits g_live
  for (Entry* e : live) PMPI_Comm_delete_attr(e->comm, g_keyval);
  PMPI_Comm_free_keyval(&g_keyval);
}

int handles_created() { return g_created; }

}  // namespace zcoll::pmpi
