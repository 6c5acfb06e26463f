/*
 * cmd-explain.h - the --explain command (argv[0] is "--explain").
 */
#ifndef ASTRA_CMD_EXPLAIN_H
#define ASTRA_CMD_EXPLAIN_H

int astra_cmd_explain(int argc, char **argv);

#endif
