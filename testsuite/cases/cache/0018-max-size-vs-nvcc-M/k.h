#define K 1.0f
