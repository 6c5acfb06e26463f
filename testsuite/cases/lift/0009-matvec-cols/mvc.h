/* sizes and the element type as PolyBench's headers give them: macros */
#define MVC_N 45
#define MVC_M 70
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
