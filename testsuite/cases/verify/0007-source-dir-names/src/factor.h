#define FACTOR 2.0f
