// measure/measure.hpp: ground truth for accuracy work (declared in c3/measure.hpp).
#pragma once

#include "c3/measure.hpp"
#include "measure/recorder.hpp"
