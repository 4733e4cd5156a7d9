// calibrate/calibrate.hpp: the calibration procedure (declared in c3/calibrate.hpp).
#pragma once

#include "c3/calibrate.hpp"
