#include "typemap.hpp"

#include <gtest/gtest.h>

using namespace vela::mpi::detail;
TEST(Typemap, Basic) { EXPECT_EQ(Typemap::basic(Basic::int_).size(), 4u); }
