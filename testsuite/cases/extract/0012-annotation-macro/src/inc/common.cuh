#pragma once
#define SCALE 2.0f
static const char *common_file = __FILE__;
