// views/bench_views.hpp: collective benchmarks for people (declared in c3/views.hpp).
#pragma once

#include "c3/views.hpp"
