// The reductions' association (docs/architecture.md, "Collectives"): members lo .. hi - 1 of a
// group combine as V[lo, hi) = V[lo, mid) op V[mid, hi), mid = lo plus the largest power of two
// below hi - lo, down to single members. It is the binomial tree rooted at member 0 with the
// lower members the left operand (each member combines its children in increasing distance),
// so every deterministic reduction — along that tree by messages, in a process's memory by
// whichever member completes a node, or over vectors all gathered in one place — gives the
// same bits for the same member count, whatever the placement.
//
// An inner node [lo, hi) is named by mid (1 .. n - 1, one each: in the tree's in-order the inner
// nodes fall between consecutive members). The nodes on a member's path are at most 32
// (log2 n + 1); walking them costs O(log n).
#pragma once

#include <array>
#include <cstddef>

namespace vela::vp::detail {

// mid of the inner node [lo, hi), hi - lo >= 2.
inline int tree_split(int lo, int hi) {
  int p = 1;
  while (p * 2 < hi - lo) p *= 2;
  return lo + p;
}

// An inner node on a member's path: its mid, its last member, and whether the member's subtree
// is its left child.
struct TreeStep {
  int mid = 0;
  int last = 0;
  bool left = false;
};

// The inner nodes from member `i`'s leaf up to the root [0, n), lowest first; returns how many.
inline int tree_path(int n, int i, std::array<TreeStep, 32>& steps) {
  std::array<TreeStep, 32> down;
  int k = 0;
  for (int lo = 0, hi = n; hi - lo >= 2;) {
    const int mid = tree_split(lo, hi);
    down[static_cast<std::size_t>(k++)] = {mid, hi - 1, i < mid};
    if (i < mid) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  for (int j = 0; j < k; ++j)
    steps[static_cast<std::size_t>(j)] = down[static_cast<std::size_t>(k - 1 - j)];
  return k;
}

// Calls node(mid) for each inner node whose last member is `i`, lowest first: the nodes that a
// combination in member order completes when member i's vector comes. Below the last member
// they are the aligned blocks of 2, 4, 8, ... members ending at i (every node off the tree's
// right edge is one: the splits fall on multiples of the powers of two below them), so no walk
// is needed; the last member ends every node of its path.
template <class Node>
void nodes_ending_at(int n, int i, Node&& node) {
  if (i < n - 1) {
    const int end = i + 1;
    for (int size = 2; end % size == 0; size *= 2) node(end - size / 2);
    return;
  }
  std::array<TreeStep, 32> steps;
  const int k = tree_path(n, i, steps);
  for (int j = 0; j < k && steps[static_cast<std::size_t>(j)].last == i; ++j)
    node(steps[static_cast<std::size_t>(j)].mid);
}

// n vectors where at(i) points (member i's), combined along the tree in place: the result ends
// in at(n - 1); combine(in, inout) sets inout = in op inout (in the lower members'). The left
// child [lo, mid) of a node ending at i is then in at(mid - 1), its right child in at(i). n - 1
// combinations, no scratch.
template <class At, class Combine>
void combine_along_tree(int n, At&& at, Combine&& combine) {
  for (int i = 1; i < n; ++i) nodes_ending_at(n, i, [&](int mid) { combine(at(mid - 1), at(i)); });
}

}  // namespace vela::vp::detail
