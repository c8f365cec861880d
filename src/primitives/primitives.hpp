// Parallel primitives for the distribution layer, on the host (loops) or the device (CUB),
// chosen by Exec. Device versions synchronise the stream when they return a count.
#pragma once

#include "backend/exec.hpp"
#include "common/index_list.hpp"
#include "memory/scratch_buffer.hpp"

#include <cstdint>

#if defined(__CUDACC__)
#include <cuda_runtime_api.h>
#endif

namespace pvec::impl {

#if defined(__CUDACC__)
// Throws Error(PVEC_ERROR_CUDA, "what: name: text") unless err is cudaSuccess (device code
// only: the files compiled by nvcc; defined in primitives.cu).
void check_cuda(cudaError_t err, const char* what);
#endif

// n as the int item count of a CUB call; PVEC_ERROR_NOT_SUPPORTED beyond 2^31-1.
int as_cub_count(int64_t n);

// Writes, in increasing order, the i in [begin, end) with (keys[i] == value) == equal to out;
// returns how many.
int64_t select_indices(const Exec& exec, const int32_t* keys, int64_t begin, int64_t end,
                       int32_t value, bool equal, int64_t* out, ScratchBuffer& tmp);

// The indices whose bits are set in words (bit b of words[w]: index 32 w + b), in increasing
// order, written to out (narrow only when 32 n_words fits); returns how many (select_where's
// last passes, and map's movers from the labelling pass's votes).
int64_t voted_indices(const Exec& exec, const uint32_t* words, int64_t n_words, IndexList out,
                      ScratchBuffer& tmp);
// voted_indices without waiting for the answer (device only): how many indices there are is
// written to *count_dev, device memory, by the queued work.
void voted_indices_async(const Exec& exec, const uint32_t* words, int64_t n_words, IndexList out,
                         ScratchBuffer& tmp, int64_t* count_dev);

// data[0..n) becomes its exclusive prefix sum (data[i] = sum of the old data[0..i)) and data[n]
// the total, which is returned: data has n + 1 elements (what data[n] held does not matter).
// With extra, *extra = data[n + 1] as well, fetched in the same copy (then data has n + 2
// elements).
int64_t exclusive_scan(const Exec& exec, int64_t* data, int64_t n, ScratchBuffer& tmp,
                       int64_t* extra = nullptr);

// Stable sort of (keys_in, vals_in) by keys in [0, max_key] into (keys_out, vals_out): n
// items each, the outputs apart from the inputs. The values are 8 bytes of any meaning (an
// index, or several fields packed); only the keys are compared.
void sort_pairs_to(const Exec& exec, const int32_t* keys_in, int32_t* keys_out,
                   const int64_t* vals_in, int64_t* vals_out, int64_t n, int32_t max_key,
                   ScratchBuffer& tmp);

// sort_pairs_to with the results back in keys/vals (the alternate buffers receive them first).
void sort_pairs(const Exec& exec, int32_t* keys, int64_t* vals, int64_t n, int32_t max_key,
                ScratchBuffer& tmp, ScratchBuffer& keys_alt, ScratchBuffer& vals_alt);

// bounds_host[b] = first position of key b in sorted keys, b in [0, buckets]; bounds_host has
// buckets + 1 entries and lives on the host.
void bucket_bounds(const Exec& exec, const int32_t* sorted_keys, int64_t n, int32_t buckets,
                   int64_t* bounds_host, ScratchBuffer& tmp);

}  // namespace pvec::impl
