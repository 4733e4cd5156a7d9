// c3/c3.hpp: the whole public API of c3advisor.
#pragma once

#if !defined(__cplusplus) || __cplusplus < 202002L
#error "c3advisor's C++ headers need C++20 (e.g. -std=c++20, or CMake's cxx_std_20, which the target c3advisor::c3 requests); from C or an older C++, use the C API, c3advisor.h"
#endif

#include "c3/advisor.hpp"
#include "c3/calibrate.hpp"
#include "c3/errors.hpp"
#include "c3/evaluate.hpp"
#include "c3/fractions.hpp"
#include "c3/io.hpp"
#include "c3/measure.hpp"
#include "c3/measurements.hpp"
#include "c3/model.hpp"
#include "c3/profile.hpp"
#include "c3/settings.hpp"
#include "c3/strategy.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "c3/views.hpp"
