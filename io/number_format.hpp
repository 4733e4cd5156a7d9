// io/number_format.hpp: the shortest spelling of a number that reads back exactly, for
// the files c3advisor writes (YAML profiles, CSV) and the views.
#pragma once

#include <string>

namespace c3::io::detail {

/// The shortest spelling that reads back to exactly `x` ("0.7", "1.3074e+15").
std::string format_number(double x);

}  // namespace c3::io::detail
