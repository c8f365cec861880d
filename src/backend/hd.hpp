// PVEC_HD marks functions callable from host and device code.
#pragma once
#if defined(__CUDACC__)
#define PVEC_HD __host__ __device__
#else
#define PVEC_HD
#endif
