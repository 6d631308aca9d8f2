// locality.h — which ranks of a transport's group share a node (docs/transport.md,
// "Locality"), fixed for the transport's life: the MPI transport finds it on its
// first use, from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) or, to emulate nodes
// on one machine, ZCOLL_NODE_MAP; the in-process transport has the layout it is
// given; a sub-transport inherits its parent's, restricted to its ranks.
//
// Numbering is the same on every rank (it depends only on the node of each rank):
//   node        nodes are numbered 0..nodes-1 in the order of their lowest rank;
//   local rank  a rank's index among its node's ranks, in rank order;
//   rail l      the ranks with local rank l, one from each node that has more
//               than l ranks, in node order. With uneven nodes the rails past
//               the smallest node's size span fewer nodes: on nodes of 3 + 1
//               ranks, rail 0 has 2 ranks, rails 1 and 2 one each (a rank with
//               no peer on the other nodes is alone on its rail).
// Ranks need not be ordered by node (`blocked` says whether they are).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zcoll.h"

namespace zcoll::transport {

struct Locality {
  int rank = 0;  // this rank in the group
  int size = 1;  // ranks in the group
  int node = 0;  // this rank's node, in [0, nodes)
  int nodes = 1;
  int local_rank = 0;                          // this rank's index on its node
  int local_size = 1;                          // ranks on this rank's node
  int min_local_size = 1, max_local_size = 1;  // over the nodes
  bool blocked = true;             // each node's ranks are consecutive ranks of the group
  std::vector<int> node_of_rank;   // size entries
  std::vector<int> local_of_rank;  // size entries: each rank's local rank
  std::vector<int> node_size;      // nodes entries: ranks per node

  // Every node holds the same number of ranks.
  bool uniform() const { return min_local_size == max_local_size; }
  // The ranks of node n, ascending.
  std::vector<int> ranks_on_node(int n) const;
  // Rail l: the rank with local rank l of each node that has one, by node.
  std::vector<int> rail_ranks(int l) const;
  // One line for logs and test messages, e.g. "3 nodes (2+2+1, by node)".
  std::string describe() const;

  // From a label per rank (ranks with equal labels share a node; any values).
  static Locality from_labels(const std::vector<int64_t>& label, int rank);
  // Nothing known: every rank on a node of its own (the safe assumption: no
  // rank counts on shared memory with another).
  static Locality one_per_node(int size, int rank);
  // The locality of a sub-group: members[i] is the parent rank of the
  // sub-group's rank i; rank is this rank in the sub-group.
  static Locality subset(const Locality& parent, const std::vector<int>& members, int rank);
};

// ZCOLL_NODE_MAP's text: a node label (an integer >= 0) per MPI_COMM_WORLD rank,
// comma-separated ("0,0,1,1,1", "0,1,0,1"); entries past the world size are
// unused. ZCOLL_ERR_INVALID_ARG on anything else.
zcoll_status parse_node_map(const char* text, std::vector<int64_t>* labels);

}  // namespace zcoll::transport
