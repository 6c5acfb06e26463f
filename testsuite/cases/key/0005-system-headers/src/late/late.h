#pragma once
#define LATE_OFFSET 0.0f
