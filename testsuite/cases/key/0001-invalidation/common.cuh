#pragma once
#define SCALE 3.0f
