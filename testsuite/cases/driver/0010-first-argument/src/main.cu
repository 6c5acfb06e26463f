#include <cstdio>
extern "C" int demo(void);
int main() { printf("demo says %d\n", demo()); return 0; }
