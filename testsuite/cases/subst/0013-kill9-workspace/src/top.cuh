#pragma once
static const char *top_file = __FILE__;
