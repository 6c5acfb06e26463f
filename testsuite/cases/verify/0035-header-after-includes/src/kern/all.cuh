/* Reached from the compile unit; includes the kernel's header after a
 * declaration it uses. */
#include <helper.h>
#include "scale_kernel.cuh"
