## ir/ - what a kernel computes, independent of its mapping to threads:
## the IR, its canonical text, and the lifting from the front end's model
## (doc/lift.md).

libastra_a_SOURCES += \
	ir/ir.h ir/node.c \
	ir/print.c ir/print.h \
	ir/parse.c ir/parse.h \
	ir/lift.c ir/lift.h \
	ir/lift-stmt.c ir/lift-tile.c ir/lift-share.c ir/lift-memo.c \
	ir/lower.c ir/lower.h \
	ir/lower-reduce.c ir/lower-reduce.h \
	ir/lower-transpose.c ir/lower-transpose.h \
	ir/lower-nest.c ir/lower-nest.h \
	ir/lower-matvec.c \
	ir/lower-stencil.c \
	ir/lower-map.c
