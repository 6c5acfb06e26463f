// A header's type and scale, which the front end does not read.
#define SAMPLE_T float
#define NSCALE 3.5
#define TRI_M 96
#define TRI_N 40
