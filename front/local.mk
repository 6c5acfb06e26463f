## front/ - reading kernel code: the libclang adapter (extract.c), the
## pragma, the kernel model, the headers a kernel can see, the key's text.

libastra_a_SOURCES += \
	front/extract.c front/extract.h \
	front/includes.c front/includes.h \
	front/kernel.c front/kernel.h \
	front/expand.c front/expand.h \
	front/lex.c front/lex.h \
	front/key.c front/key.h \
	front/pragma.c front/pragma-clauses.c front/pragma.h front/pragma-int.h \
	front/types.c front/types.h
