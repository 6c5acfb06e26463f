/*
 * cmd-warmup.h - the --warmup command (argv[0] is "--warmup").
 */
#ifndef ASTRA_CMD_WARMUP_H
#define ASTRA_CMD_WARMUP_H

int astra_cmd_warmup(int argc, char **argv);

#endif
