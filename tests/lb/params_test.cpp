// Text parameters: a value chosen from a list (such as a strategy name), with a default, checked
// with an error naming the owner, the parameter, the bad value and every allowed value. (The
// numeric parameters' tests are in instance_test.cpp.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vela/lb/model/params.hpp"

namespace vela::lb {
namespace {

std::vector<ParamSpec> specs() {
  return {
      {"rounds", "how many", 3, 1, 10, true},
      text_param("order", "which way", "up", std::vector<std::string>{"up", "down", "sideways"})};
}

std::string rejection(const std::vector<ParamSpec>& with, const RawParams& raw) {
  try {
    ParamValues v("sorter", with, raw);
  } catch (const ParamError& e) {
    return e.what();
  }
  return "";
}

TEST(TextParams, DefaultWhenNotGivenAndTheGivenValueOtherwise) {
  const ParamValues defaults("sorter", specs(), {});
  EXPECT_EQ(defaults.text("order"), "up");
  EXPECT_DOUBLE_EQ(defaults.get("rounds"), 3.0);
  const ParamValues given("sorter", specs(), {{"order", "sideways"}, {"rounds", "4"}});
  EXPECT_EQ(given.text("order"), "sideways");
  EXPECT_DOUBLE_EQ(given.get("rounds"), 4.0);
  EXPECT_EQ(given.texts().size(), 1u);
  EXPECT_EQ(given.all().size(), 1u);
}

TEST(TextParams, AValueOutsideTheChoicesIsRejectedListingThem) {
  EXPECT_EQ(rejection(specs(), {{"order", "down"}}), "");
  EXPECT_EQ(rejection(specs(), {{"order", "Down"}}),
            "sorter: parameter 'order' = 'Down' is not one of: up, down, sideways");
  EXPECT_EQ(rejection(specs(), {{"order", "3"}}),
            "sorter: parameter 'order' = '3' is not one of: up, down, sideways");
  EXPECT_EQ(rejection(specs(), {{"order", ""}}),
            "sorter: parameter 'order' = '' is not one of: up, down, sideways");
  // Unknown keys still list every parameter, text ones included.
  EXPECT_EQ(rejection(specs(), {{"ordre", "up"}}),
            "sorter: unknown parameter 'ordre' (known: rounds, order)");
  // Numbers are still checked as numbers.
  EXPECT_EQ(rejection(specs(), {{"rounds", "up"}}),
            "sorter: parameter 'rounds' = 'up' is not a number");
}

TEST(TextParams, ReadingAParameterAsTheWrongKindIsAnError) {
  const ParamValues v("sorter", specs(), {});
  try {
    v.get("order");
    ADD_FAILURE() << "a text parameter read as a number";
  } catch (const ParamError& e) {
    EXPECT_EQ(std::string(e.what()), "sorter: parameter 'order' is text, not a number");
  }
  try {
    v.text("rounds");
    ADD_FAILURE() << "a numeric parameter read as text";
  } catch (const ParamError& e) {
    EXPECT_EQ(std::string(e.what()), "sorter: parameter 'rounds' is a number, not text");
  }
  EXPECT_THROW(v.text("colour"), ParamError);
  EXPECT_THROW(v.get("colour"), ParamError);
}

TEST(TextParams, ChoicesAreComputedWhenAValueIsChecked) {
  // A spec made before its choices are known (a strategy listing the registry) sees them later.
  std::vector<std::string> registered = {"a"};
  const std::vector<ParamSpec> late = {
      text_param("pick", "one of what is registered", "a", [&registered] { return registered; })};
  EXPECT_NE(rejection(late, {{"pick", "b"}}), "");
  registered.push_back("b");
  EXPECT_EQ(rejection(late, {{"pick", "b"}}), "");
  EXPECT_EQ(ParamValues("sorter", late, {{"pick", "b"}}).text("pick"), "b");
}

TEST(TextParams, OnlyTextParametersAreText) {
  const std::vector<ParamSpec> s = specs();
  EXPECT_FALSE(s[0].is_text());
  EXPECT_TRUE(s[1].is_text());
  EXPECT_EQ(s[1].default_text, "up");
  EXPECT_EQ(s[1].choices(), (std::vector<std::string>{"up", "down", "sideways"}));
  EXPECT_EQ(join_choices({"x", "y"}), "x, y");
  EXPECT_EQ(join_choices({}), "");
}

}  // namespace
}  // namespace vela::lb
