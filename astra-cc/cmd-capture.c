/*
 * cmd-capture.c - `astra-cc --capture` (see cmd-capture.h).
 *
 * A command of its own only to spell a setting on the command line: it
 * sets `capture` (and with --data `capture_data`) for this process and
 * wraps the rest of the line exactly as `astra-cc NVCC ...` would, so a
 * capture build through it and through ASTRA_CC_CAPTURE=1 are the same
 * build.  Usable as a compiler launcher: `make NVCC="astra-cc --capture --
 * nvcc"`, `-DCMAKE_CUDA_COMPILER_LAUNCHER="astra-cc;--capture;--"`.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <string.h>

#include "lib/config.h"
#include "lib/util.h"
#include "astra-cc/driver.h"
#include "astra-cc/cmd-capture.h"

int astra_cmd_capture(int argc, char **argv)
{
	int i = 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--data")) {
			astra_config_set(ASTRA_CFG_CAPTURE_DATA, "true", "--capture --data");
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else {
			break;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s --capture [--data] [--] NVCC ARGS...   (or: ASTRA_CC_CAPTURE=1 %s NVCC ARGS...)\n",
			astra_progname, astra_progname);
		return 2;
	}
	astra_config_set(ASTRA_CFG_CAPTURE, "true", "--capture");
	/* argv[i - 1] stands in for astra-cc's own name: the compile is argv[i..]. */
	return astra_driver_wrap_words(argc - i + 1, argv + i - 1);
}
