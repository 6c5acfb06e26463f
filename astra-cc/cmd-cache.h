/*
 * cmd-cache.h - astra-cc's cache commands, as rows of the command table
 * (astra-cc/commands.c): statistics (cmd-stats.c), inspection
 * (cmd-entries.c), limits and cleanup (cmd-cleanup.c).
 *
 * Each takes the command's arguments (argv[0] is the command as typed,
 * possibly with "=VALUE" attached) and returns the exit status: 0, 1 when
 * the command could not do its job (the reason on stderr), 2 for a usage
 * mistake.  Output goes to stdout; --json variants print one JSON value.
 */
#ifndef ASTRA_CMD_CACHE_H
#define ASTRA_CMD_CACHE_H

/* -s, --show-stats [--json] */
int astra_cache_cmd_show_stats(int argc, char **argv);
/* -z, --zero-stats */
int astra_cache_cmd_zero_stats(int argc, char **argv);
/* --show-entry KEY [--arch CC] [--transcript] [--json]  (KEY: 4+ hex digits) */
int astra_cache_cmd_show_entry(int argc, char **argv);
/* --list [--json] */
int astra_cache_cmd_list(int argc, char **argv);
/* -M SIZE, --max-size=SIZE: keep max_size in the user config file */
int astra_cache_cmd_max_size(int argc, char **argv);
/* -C, --clear */
int astra_cache_cmd_clear(int argc, char **argv);
/* --cleanup [--json] */
int astra_cache_cmd_cleanup(int argc, char **argv);
/* --evict-older-than AGE [--json]  (AGE: 3600, 3600s, 90m, 12h, 30d) */
int astra_cache_cmd_evict(int argc, char **argv);

/*
 * `-M` is also nvcc's "write make dependencies" option.  astra-cc treats
 * `astra-cc -M SIZE` as its own command only when that is the whole command
 * and SIZE parses as a size; anything else is an nvcc command.  argv as
 * main() sees it (argv[1] == "-M").
 */
int astra_cache_cmd_is_max_size(int argc, char **argv);

#endif
