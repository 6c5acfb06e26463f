#pragma once
#define FORCED_BIAS 0.0f
