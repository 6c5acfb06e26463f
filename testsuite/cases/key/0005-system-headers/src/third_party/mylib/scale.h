/* A third-party library reached through -isystem. */
#pragma once
#define MYLIB_SCALE 2.0f
