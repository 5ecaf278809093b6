// The C99 compile check, compiled as C++17.
#include "kgb_half_compile_check.c"
