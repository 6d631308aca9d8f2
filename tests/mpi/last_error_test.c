/* last_error_test.c — one last-error slot per process: a failure inside
 * libzcoll_mpi is readable with zcoll_last_error() (libzcoll), in C. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <zcoll_mpi.h>

static int check(int ok, const char* what) {
  if (!ok)
    fprintf(stderr, "last_error_test: FAILED: %s (last error: \"%s\")\n", what, zcoll_last_error());
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  int bad = 0;
  zcoll_mode mode;
  MPI_Init(&argc, &argv);
  /* a pure libzcoll_mpi failure */
  bad +=
      check(zcoll_mode_from_name("no-such-mode", &mode) == ZCOLL_ERR_INVALID_ARG, "mode_from_name");
  bad += check(strstr(zcoll_last_error(), "no-such-mode") != NULL, "mode_from_name message");
  /* a libzcoll call clears it */
  bad += check(zcoll_get_version(NULL) == ZCOLL_ERR_INVALID_ARG, "get_version(NULL)");
  bad += check(strstr(zcoll_last_error(), "no-such-mode") == NULL, "message replaced");
  /* a failure deep in libzcoll_mpi's core (the configuration check), collective */
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  cfg.error_bound = -1.0;
  zcoll_comm* zc = NULL;
  zcoll_status s = zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc);
  bad += check(s == ZCOLL_ERR_INVALID_ARG, "comm_create with error_bound -1");
  bad += check(strstr(zcoll_last_error(), "error_bound") != NULL, "comm_create message");
  /* and success clears nothing it should not: a good handle works */
  cfg.error_bound = 1e-3;
  s = zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc);
  bad += check(s == ZCOLL_SUCCESS, "comm_create");
  if (s == ZCOLL_SUCCESS) zcoll_comm_free(zc);
  MPI_Finalize();
  if (!bad) printf("last_error_test: ok\n");
  return bad ? 1 : 0;
}
