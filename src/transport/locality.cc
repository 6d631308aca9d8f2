// locality.cc — node numbering from per-rank labels (locality.h).
#include "transport/locality.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>

#include "core/error.h"

namespace zcoll::transport {

std::vector<int> Locality::ranks_on_node(int n) const {
  std::vector<int> out;
  for (int r = 0; r < size; ++r)
    if (node_of_rank[r] == n) out.push_back(r);
  return out;
}

std::vector<int> Locality::rail_ranks(int l) const {
  std::vector<int> out(nodes, -1);
  for (int r = 0; r < size; ++r)
    if (local_of_rank[r] == l) out[node_of_rank[r]] = r;
  out.erase(std::remove(out.begin(), out.end(), -1), out.end());
  return out;
}

std::string Locality::describe() const {
  std::string s = std::to_string(nodes) + (nodes == 1 ? " node (" : " nodes (");
  for (int n = 0; n < nodes; ++n) s += (n ? "+" : "") + std::to_string(node_size[n]);
  return s + (blocked ? ", by node)" : ", not by node)");
}

Locality Locality::from_labels(const std::vector<int64_t>& label, int rank) {
  Locality l;
  l.size = static_cast<int>(label.size());
  l.rank = rank;
  l.node_of_rank.resize(l.size);
  l.local_of_rank.resize(l.size);
  std::map<int64_t, int> index;  // label -> node, numbered by first (lowest) rank
  for (int r = 0; r < l.size; ++r) {
    auto it = index.emplace(label[r], static_cast<int>(index.size())).first;
    const int n = it->second;
    if (n == static_cast<int>(l.node_size.size())) l.node_size.push_back(0);
    l.node_of_rank[r] = n;
    l.local_of_rank[r] = l.node_size[n]++;
    if (r > 0 && n != l.node_of_rank[r - 1] && l.local_of_rank[r] != 0) l.blocked = false;
  }
  l.nodes = static_cast<int>(l.node_size.size());
  l.node = l.size ? l.node_of_rank[rank] : 0;
  l.local_rank = l.size ? l.local_of_rank[rank] : 0;
  l.local_size = l.size ? l.node_size[l.node] : 1;
  if (l.nodes) {
    l.min_local_size = *std::min_element(l.node_size.begin(), l.node_size.end());
    l.max_local_size = *std::max_element(l.node_size.begin(), l.node_size.end());
  }
  return l;
}

Locality Locality::one_per_node(int size, int rank) {
  std::vector<int64_t> label(size);
  for (int r = 0; r < size; ++r) label[r] = r;
  return from_labels(label, rank);
}

Locality Locality::subset(const Locality& parent, const std::vector<int>& members, int rank) {
  std::vector<int64_t> label(members.size());
  for (size_t i = 0; i < members.size(); ++i) label[i] = parent.node_of_rank[members[i]];
  return from_labels(label, rank);
}

zcoll_status parse_node_map(const char* text, std::vector<int64_t>* labels) {
  labels->clear();
  const char* p = text ? text : "";
  for (;;) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(p, &end, 10);
    if (end == p || v < 0 || errno != 0 || (*end != ',' && *end != '\0'))
      return fail(ZCOLL_ERR_INVALID_ARG,
                  "ZCOLL_NODE_MAP=%s: expected node labels (integers >= 0), one per "
                  "MPI_COMM_WORLD rank, comma-separated",
                  text ? text : "");
    labels->push_back(v);
    if (*end == '\0') return ZCOLL_SUCCESS;
    p = end + 1;
  }
}

}  // namespace zcoll::transport
