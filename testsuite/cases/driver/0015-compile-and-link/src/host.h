int host_check(const float *y, int n);
