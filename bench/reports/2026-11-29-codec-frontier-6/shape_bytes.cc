// shape_bytes.cc — Bcast of every field of a directory (dims from the file name,
// name_AxBxC.f32) with the dense codec, mode doc, the default chunk and pipeline
// segments, REL 1e-2/1e-3/1e-4: the bytes the root sends without the field's shape
// and with it (zcoll_comm_set_shape), and the largest error against the reported
// bound; one JSON line per case. Run on 2 ranks:
//   mpicxx -O2 -std=c++17 shape_bytes.cc -I include -I build/include -L build/src/coll \
//     -L build -lzcoll_mpi -lzcoll -o shape_bytes && mpiexec -n 2 ./shape_bytes DIR
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <string>
#include <vector>

#include "zcoll_mpi.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string dir = argc > 1 ? argv[1] : "../shared/data";
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n.size() > 4 && n.substr(n.size() - 4) == ".f32") names.push_back(n);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  cfg.min_bytes = 0;
  cfg.threads = 1;
  cfg.codec_flags = ZCOLL_FORMAT_FLAG_DENSE;
  zcoll_comm* zc = nullptr;
  if (zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc) != ZCOLL_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
  zcoll_comm_set_mode(zc, ZCOLL_MODE_DOC);
  for (const std::string& n : names) {
    std::ifstream f(dir + "/" + n, std::ios::binary | std::ios::ate);
    std::vector<float> x(static_cast<size_t>(f.tellg()) / 4);
    f.seekg(0);
    f.read(reinterpret_cast<char*>(x.data()), static_cast<std::streamsize>(x.size() * 4));
    std::vector<uint64_t> dims;  // from "name_AxBxC.f32"
    const std::string t = n.substr(n.rfind('_') + 1, n.size() - 4 - n.rfind('_') - 1);
    for (size_t pos = 0; pos <= t.size();) {
      size_t q = t.find('x', pos);
      if (q == std::string::npos) q = t.size();
      dims.push_back(std::stoull(t.substr(pos, q - pos)));
      pos = q + 1;
    }
    for (double rel : {1e-2, 1e-3, 1e-4}) {
      zcoll_comm_set_error_bound(zc, ZCOLL_EB_REL, rel);
      unsigned long long sent[2] = {0, 0};
      double worst_over_bound = 0;
      char reason[160] = "";
      for (int shaped = 0; shaped < 2; ++shaped) {
        zcoll_comm_set_shape(zc, shaped ? static_cast<uint32_t>(dims.size()) : 0, dims.data());
        std::vector<float> buf = x;
        if (rank != 0) std::fill(buf.begin(), buf.end(), 0.0f);
        if (zcoll_bcast(zc, buf.data(), buf.size(), MPI_FLOAT, 0) != ZCOLL_SUCCESS)
          MPI_Abort(MPI_COMM_WORLD, 2);
        zcoll_report r = ZCOLL_REPORT_INITIALIZER;
        zcoll_comm_last_report(zc, &r);
        double worst = 0;
        for (size_t i = 0; i < x.size(); ++i)
          worst = std::max(worst, std::fabs(static_cast<double>(buf[i]) - x[i]));
        worst_over_bound = std::max(worst_over_bound, worst / r.error_bound);
        sent[shaped] = rank == 0 ? r.bytes_sent : 0;
        if (shaped) std::snprintf(reason, sizeof reason, "%s", r.reason);
      }
      MPI_Allreduce(MPI_IN_PLACE, sent, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      MPI_Allreduce(MPI_IN_PLACE, &worst_over_bound, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (rank == 0)
        std::printf(
            "{\"file\": \"%s\", \"rel\": %g, \"bytes\": %zu, \"sent_flat\": %llu, "
            "\"sent_shaped\": %llu, \"gain\": %.4f, \"max_err_over_bound\": %.4f, "
            "\"reason\": \"%s\"}\n",
            n.c_str(), rel, x.size() * 4, sent[0], sent[1],
            static_cast<double>(sent[0]) / static_cast<double>(sent[1]), worst_over_bound, reason);
    }
  }
  zcoll_comm_free(zc);
  MPI_Finalize();
  return 0;
}
