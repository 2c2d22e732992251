// The model's rules, enforced by validate(), and strategy parameters.
#include "vela/lb/model/instance.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "vela/lb/model/params.hpp"

namespace vela::lb {
namespace {

Instance two_objects() {
  Instance in;
  in.dims = 2;
  in.pes = {{}, {}};
  in.objects = {{1, 1.0, 8, {0, 0, 0}, 0, true}, {2, 2.0, 8, {1, 0, 0}, 1, true}};
  in.edges = {{0, 1, 1, 8}};
  return in;
}

// The message validate() throws, or "" when it accepts the instance.
std::string rejection(const Instance& in) {
  try {
    validate(in);
  } catch (const InstanceError& e) {
    return e.what();
  }
  return "";
}

TEST(Validate, AcceptsAWellFormedInstance) {
  EXPECT_EQ(rejection(two_objects()), "");
}

TEST(Validate, RejectsEachBrokenRuleNamingTheElement) {
  Instance in = two_objects();
  in.objects[1].id = 1;
  EXPECT_NE(rejection(in).find("object 1 (id 1): duplicate object id"), std::string::npos);

  in = two_objects();
  in.objects[0].load = -0.5;
  EXPECT_NE(rejection(in).find("object 0 (id 1): load"), std::string::npos);
  in.objects[0].load = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(rejection(in).find("must be a finite number >= 0"), std::string::npos);

  in = two_objects();
  in.objects[1].pe = 2;
  EXPECT_NE(rejection(in).find("PE 2 does not exist (the instance has 2 PEs)"), std::string::npos);

  in = two_objects();
  in.edges[0].to = 5;
  EXPECT_NE(rejection(in).find("edge 0: object index 5 is out of range"), std::string::npos);

  in = two_objects();
  in.pes[1].speed = 0.0;
  EXPECT_NE(rejection(in).find("PE 1: speed"), std::string::npos);

  in = two_objects();
  in.pes[0].background = -1.0;
  EXPECT_NE(rejection(in).find("PE 0: background load"), std::string::npos);

  in = two_objects();
  in.dims = 4;
  EXPECT_NE(rejection(in).find("dims is 4"), std::string::npos);

  in = two_objects();
  in.objects[1].coords[1] = std::numeric_limits<double>::infinity();
  EXPECT_NE(rejection(in).find("coordinate 1 is not finite"), std::string::npos);

  in = two_objects();
  in.pes.clear();
  EXPECT_NE(rejection(in).find("no PEs"), std::string::npos);
}

TEST(Validate, ChecksAnAssignmentAgainstItsInstance) {
  const Instance in = two_objects();
  EXPECT_NO_THROW(validate(in, {{1, 1}}));
  EXPECT_THROW(validate(in, {{1}}), InstanceError);
  EXPECT_THROW(validate(in, {{0, -1}}), InstanceError);
  EXPECT_THROW(validate(in, {{0, 2}}), InstanceError);
  EXPECT_EQ(current_assignment(in), (Assignment{{0, 1}}));
}

Instance three_objects() {
  Instance in = two_objects();
  in.objects.push_back({3, 1.0, 8, {2, 0, 0}, 0, true});
  in.hyperedges = {{{0, 1, 2}, 64}, {{2, 0}, 8}};
  return in;
}

TEST(Validate, RejectsBrokenHyperedgesNamingThem) {
  EXPECT_EQ(rejection(three_objects()), "");
  Instance in = three_objects();
  in.hyperedges[1].pins = {2};
  EXPECT_EQ(rejection(in), "hyperedge 1: 1 pin; a hyperedge needs at least 2");
  in.hyperedges[1].pins = {};
  EXPECT_EQ(rejection(in), "hyperedge 1: 0 pins; a hyperedge needs at least 2");
  in = three_objects();
  in.hyperedges[0].pins = {0, 1, 3};
  EXPECT_EQ(rejection(in),
            "hyperedge 0: pin 2 is object index 3, out of range (the instance has 3 objects)");
  in = three_objects();
  in.hyperedges[1].pins = {2, 0, 2};
  EXPECT_EQ(rejection(in), "hyperedge 1: pin 2 repeats object index 2");
  // An object may be a pin of any number of hyperedges, and hyperedges may repeat.
  in = three_objects();
  in.hyperedges.push_back(in.hyperedges[0]);
  EXPECT_EQ(rejection(in), "");
}

TEST(CommunicationNets, AreTheHyperedgesWhenThereAreAny) {
  const Instance in = three_objects();
  EXPECT_EQ(communication_nets(in), in.hyperedges);
}

TEST(CommunicationNets, OtherwiseOneNetPerSenderWithItsReceivers) {
  Instance in = three_objects();
  in.hyperedges.clear();
  // 0 sends 100 to 1 and 50 + 30 to 2 (two edges); 2 sends 7 to 0; 1 sends only to itself.
  in.edges = {{0, 2, 1, 50}, {0, 1, 1, 100}, {2, 0, 1, 7}, {1, 1, 1, 9}, {0, 2, 1, 30}};
  const std::vector<Hyperedge> nets = communication_nets(in);
  ASSERT_EQ(nets.size(), 2u);
  // Mean bytes per receiver, rounded up: (100 + 80) / 2 = 90; 7 / 1 = 7.
  EXPECT_EQ(nets[0], (Hyperedge{{0, 1, 2}, 90}));
  EXPECT_EQ(nets[1], (Hyperedge{{2, 0}, 7}));
  in.edges = {{1, 0, 1, 3}, {1, 2, 1, 2}};
  EXPECT_EQ(communication_nets(in), (std::vector<Hyperedge>{{{1, 0, 2}, 3}}));  // 5 / 2 up
  in.edges.clear();
  EXPECT_TRUE(communication_nets(in).empty());
}

std::vector<ParamSpec> specs() {
  return {{"tolerance", "allowed overload", 0.05, 0.0, 1.0, false},
          {"rounds", "how many", 3, 1, 10, true}};
}

std::string param_rejection(const RawParams& raw) {
  try {
    ParamValues v("refine", specs(), raw);
  } catch (const ParamError& e) {
    return e.what();
  }
  return "";
}

TEST(Params, DefaultsFillWhatIsNotGiven) {
  const ParamValues v("refine", specs(), {{"rounds", "7"}});
  EXPECT_DOUBLE_EQ(v.get("tolerance"), 0.05);
  EXPECT_DOUBLE_EQ(v.get("rounds"), 7.0);
  EXPECT_THROW(v.get("speed"), ParamError);
}

TEST(Params, BadValuesAreRejectedNamingOwnerAndKey) {
  EXPECT_EQ(param_rejection({{"speed", "1"}}),
            "refine: unknown parameter 'speed' (known: tolerance, rounds)");
  EXPECT_EQ(param_rejection({{"tolerance", "abc"}}),
            "refine: parameter 'tolerance' = 'abc' is not a plain decimal number (such as 2, 0.05 "
            "or 1e-3)");
  EXPECT_EQ(param_rejection({{"tolerance", "0.1x"}}),
            "refine: parameter 'tolerance' = '0.1x' is not a plain decimal number (such as 2, 0.05 "
            "or 1e-3)");
  EXPECT_EQ(param_rejection({{"rounds", "2.5"}}),
            "refine: parameter 'rounds' = '2.5' must be an integer");
  EXPECT_EQ(param_rejection({{"tolerance", "1.5"}}),
            "refine: parameter 'tolerance' = 1.5 is out of range [0, 1]");
  EXPECT_EQ(param_rejection({{"tolerance", "nan"}}),
            "refine: parameter 'tolerance' = 'nan' is not a plain decimal number (such as 2, 0.05 "
            "or 1e-3)");
  EXPECT_EQ(param_rejection({{"tolerance", "0.5"}, {"rounds", "10"}}), "");
}

TEST(Params, ParsesKeyValueText) {
  RawParams raw;
  parse_param("tolerance=0.1", raw);
  EXPECT_EQ(raw.at("tolerance"), "0.1");
  EXPECT_THROW(parse_param("tolerance=0.2", raw), ParamError);  // given twice
  EXPECT_THROW(parse_param("tolerance", raw), ParamError);
  EXPECT_THROW(parse_param("=1", raw), ParamError);
  EXPECT_THROW(parse_param("k=", raw), ParamError);
}

}  // namespace
}  // namespace vela::lb
