/* sizes and the element type as PolyBench's headers give them: macros */
#define MV_N 70
#define MV_M 45
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
