## rules/ - the offline rule catalogue: one file per rule, one registry.

libastra_a_SOURCES +=
