/*
 * commands.h - astra-cc's own commands (--show-config, -s, --warmup, ...).
 *
 * Each command is one row of a table: its spellings and a function that
 * receives the command's arguments (argv[0] is the command as typed).  The
 * implementations live with the module they belong to (cache/, passes/,
 * agents/); this table only names them.
 */
#ifndef ASTRA_COMMANDS_H
#define ASTRA_COMMANDS_H

#include "astra-cc/driver.h"

struct astra_command {
	const char *lng;      /* "--show-stats" */
	const char *shrt;     /* "-s", or NULL */
	astra_command_fn fn;
	const char *args;     /* for --help */
	const char *help;
};

/* The command argv[1] names, or NULL when argv is a compile command. */
const struct astra_command *astra_command_find(int argc, char **argv);
/* Print the usage text. */
void astra_command_usage(FILE *out);

#endif
