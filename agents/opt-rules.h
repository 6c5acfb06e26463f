/*
 * opt-rules.h - the rules engine as an optimizer of the loop: struct
 * astra_optimizer named "rules" (agents/optimizer.h).  It needs no network,
 * no model and no GPU: each round the planner picks rule combinations from
 * the history of measured candidates, and each combination is built into a
 * variant.
 */
#ifndef ASTRA_RULES_OPTIMIZER_H
#define ASTRA_RULES_OPTIMIZER_H

#include "agents/optimizer.h"

/* A new "rules" optimizer (the caller calls its free()). */
struct astra_optimizer *astra_rules_optimizer_new(void);

#endif
