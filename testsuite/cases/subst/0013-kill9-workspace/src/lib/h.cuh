#pragma once
#define FACTOR 3.0f
static const char *h_file = __FILE__;
