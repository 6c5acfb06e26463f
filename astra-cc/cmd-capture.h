/*
 * cmd-capture.h - the --capture command (argv[0] is "--capture"):
 * `astra-cc --capture [--data] [--] NVCC COMMAND...` compiles one command
 * as a capture build (passes/capture.h, doc/capture.md), as
 * ASTRA_CC_CAPTURE=1 does.
 */
#ifndef ASTRA_CMD_CAPTURE_H
#define ASTRA_CMD_CAPTURE_H

int astra_cmd_capture(int argc, char **argv);

#endif
