#error "the wrong h.cuh: lib/k.cu includes lib/h.cuh"
