#error "the wrong detail.cuh: quoted includes must look next to the includer first"
