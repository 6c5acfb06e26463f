/* mm.cuh - the sizes of the test's matrix product, written the way
 * PolyBench-ACC's headers write theirs. */
#ifndef MM_CUH
# define MM_CUH

/* the default dataset */
# if !defined(MINI_DATASET) && !defined(LARGE_DATASET)
#  define STANDARD_DATASET
# endif

/* #define NI 7  (not this one: a comment) */
# if !defined(NI) && !defined(NJ) && !defined(NK)
#  ifdef MINI_DATASET
#define NI 32
#define NJ 32
#define NK 32
#  elif defined(STANDARD_DATASET) && !defined(LARGE_DATASET)
#define NI 96
# define NJ	80
#  define NK (NI / 2)
#  else
#define NI 4096
#define NJ 4096
#define NK 4096
#  endif
# endif

# ifndef DATA_TYPE
#  define DATA_TYPE double
# endif

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8
#endif
