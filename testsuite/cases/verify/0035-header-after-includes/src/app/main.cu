#include <helper.h>
#include "local.h"

#ifdef __CUDACC__
#include "../kern/all.cuh"
#endif

int main(void)
{
	return LOCAL_ZERO;
}
