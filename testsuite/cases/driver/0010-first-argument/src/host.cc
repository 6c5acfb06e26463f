#include <cstdio>
int main() { printf("host\n"); return 0; }
