// Text parameters: a value chosen from a list (such as a strategy name), with a default, checked
// with an error naming the owner, the parameter, the bad value and every allowed value; and the
// plain decimal numbers every numeric parameter is written in. (The other numeric parameters'
// tests are in instance_test.cpp.)
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
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
  EXPECT_EQ(
      rejection(specs(), {{"rounds", "up"}}),
      "sorter: parameter 'rounds' = 'up' is not a plain decimal number (such as 2, 0.05 or 1e-3)");
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

TEST(PlainDecimal, TakesDecimalNotationOnly) {
  EXPECT_EQ(parse_decimal("0.05"), 0.05);
  EXPECT_EQ(parse_decimal("-2.5"), -2.5);
  EXPECT_EQ(parse_decimal(".5"), 0.5);
  EXPECT_EQ(parse_decimal("4."), 4.0);
  EXPECT_EQ(parse_decimal("1e-3"), 1e-3);
  EXPECT_EQ(parse_decimal("2E+6"), 2e6);
  EXPECT_EQ(parse_decimal("010"), 10.0) << "decimal, never octal";
  EXPECT_EQ(parse_decimal("0"), 0.0);
  for (const char* bad : {"0x1p-3", "0x10",  " 0.1",   "0.1 ", "\t1",      "inf", "-inf", "nan",
                          "+1",     "1e999", "-1e999", "1e",   "1e+",      ".",   "-",    "",
                          "1,5",    "1.2.3", "1e5x",   "--1",  "infinity", "0b1"}) {
    EXPECT_EQ(parse_decimal(bad), std::nullopt) << "'" << bad << "'";
  }
}

TEST(PlainDecimal, UnsignedIntegersAreDigitsWithoutALeadingZero) {
  EXPECT_EQ(parse_decimal_unsigned("0"), 0u);
  EXPECT_EQ(parse_decimal_unsigned("1024"), 1024u);
  EXPECT_EQ(parse_decimal_unsigned("18446744073709551615"),
            std::numeric_limits<std::uint64_t>::max());
  for (const char* bad :
       {"-1", "+1", "0x10", "010", "00", " 7", "7 ", "1.0", "1e3", "", "18446744073709551616"}) {
    EXPECT_EQ(parse_decimal_unsigned(bad), std::nullopt) << "'" << bad << "'";
  }
}

TEST(PlainDecimal, NumericParametersRejectWhatIsNotPlainDecimal) {
  const std::vector<ParamSpec> spec = {{"tolerance", "slack", 0.05, 0.0, 10.0, false},
                                       {"bits", "resolution", 16, 1, 31, true}};
  for (const char* bad : {"0x1p-3", " 0.1", "0.1 ", "inf", "nan"}) {
    EXPECT_EQ(rejection(spec, {{"tolerance", bad}}),
              std::string("sorter: parameter 'tolerance' = '") + bad +
                  "' is not a plain decimal number (such as 2, 0.05 or 1e-3)");
  }
  EXPECT_EQ(rejection(spec, {{"bits", "0x10"}}),
            "sorter: parameter 'bits' = '0x10' is not a plain decimal number (such as 2, 0.05 "
            "or 1e-3)");
  const ParamValues v("sorter", spec, {{"tolerance", ".25"}, {"bits", "010"}});
  EXPECT_EQ(v.get("tolerance"), 0.25);
  EXPECT_EQ(v.get("bits"), 10.0);
}

}  // namespace
}  // namespace vela::lb
