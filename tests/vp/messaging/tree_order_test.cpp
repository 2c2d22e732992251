// The reductions' tree (src/vp/messaging/tree_order.hpp), against the nodes enumerated here from
// its definition: V[lo, hi) = V[lo, mid) op V[mid, hi), mid = lo plus the largest power of two
// below hi - lo.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "messaging/tree_order.hpp"

namespace {

using vela::vp::detail::combine_along_tree;
using vela::vp::detail::nodes_ending_at;
using vela::vp::detail::tree_path;
using vela::vp::detail::TreeStep;

struct Node {
  int lo, mid, hi;
};

void enumerate(int lo, int hi, std::vector<Node>& nodes) {
  if (hi - lo < 2) return;
  int p = 1;
  while (p * 2 < hi - lo) p *= 2;
  nodes.push_back({lo, lo + p, hi});
  enumerate(lo, lo + p, nodes);
  enumerate(lo + p, hi, nodes);
}

// The association as text: "(a.b)" for a node of children a and b.
std::string spelled(int lo, int hi) {
  if (hi - lo == 1) return std::to_string(lo);
  int p = 1;
  while (p * 2 < hi - lo) p *= 2;
  return "(" + spelled(lo, lo + p) + "." + spelled(lo + p, hi) + ")";
}

// For every member count up to 300 and every member: the nodes ending at it, lowest first (the
// shortcut for all but the last member), and its path up, with the side it comes from.
TEST(TreeOrder, NodesEndingAtAMemberAndItsPathAreTheTreesOwn) {
  for (int n = 1; n <= 300; ++n) {
    std::vector<Node> nodes;
    enumerate(0, n, nodes);
    ASSERT_EQ(nodes.size(), static_cast<std::size_t>(n - 1)) << n;
    for (int i = 0; i < n; ++i) {
      std::vector<int> expected;  // mids of the nodes ending at i, smallest first
      for (int size = 2; size <= n; ++size) {
        for (const Node& node : nodes) {
          if (node.hi - 1 == i && node.hi - node.lo == size) expected.push_back(node.mid);
        }
      }
      std::vector<int> got;
      nodes_ending_at(n, i, [&](int mid) { got.push_back(mid); });
      EXPECT_EQ(got, expected) << "n " << n << ", member " << i;

      std::array<TreeStep, 32> steps;
      const int k = tree_path(n, i, steps);
      int containing = 0;
      for (const Node& node : nodes) containing += node.lo <= i && i < node.hi;
      ASSERT_EQ(k, containing) << "n " << n << ", member " << i;
      for (int j = 0; j < k; ++j) {
        const TreeStep& s = steps[static_cast<std::size_t>(j)];
        bool found = false;
        for (const Node& node : nodes) {
          if (node.mid != s.mid) continue;
          found = true;
          EXPECT_EQ(s.last, node.hi - 1);
          EXPECT_EQ(s.left, i < node.mid);
          EXPECT_TRUE(node.lo <= i && i < node.hi);
          if (j > 0) {  // lowest first: each node holds the one below
            EXPECT_LT(steps[static_cast<std::size_t>(j - 1)].last - node.lo, node.hi - node.lo);
          }
        }
        EXPECT_TRUE(found) << "n " << n << ", member " << i << ", mid " << s.mid;
      }
    }
  }
}

// Combined in place, the vectors give the tree's association, spelled out, in the last one.
TEST(TreeOrder, CombiningAlongTheTreeInPlaceGivesItsAssociation) {
  for (int n = 1; n <= 70; ++n) {
    std::vector<std::string> v(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = std::to_string(i);
    combine_along_tree(
        n, [&](int i) { return &v[static_cast<std::size_t>(i)]; },
        [](const std::string* left, std::string* right) {
          *right = "(" + *left + "." + *right + ")";
        });
    EXPECT_EQ(v.back(), spelled(0, n)) << n;
  }
  // The binomial tree rooted at member 0, the lower members the left operand.
  EXPECT_EQ(spelled(0, 6), "(((0.1).(2.3)).(4.5))");
}

}  // namespace
