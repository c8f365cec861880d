// Parallel primitives for the distribution layer, on the host (loops) or the device (CUB),
// chosen by Exec. Device versions synchronise the stream when they return a count.
#pragma once

#include "backend/exec.hpp"
#include "backend/indices.hpp"
#include "memory/scratch_buffer.hpp"

#include <cstdint>

namespace pvec::detail {

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

// out[i] = sum of in[0..i); returns the total. out may alias in.
int64_t exclusive_scan(const Exec& exec, const int64_t* in, int64_t* out, int64_t n,
                       ScratchBuffer& tmp);

// Stable sort of (keys, vals) by keys in [0, max_key]; results back in keys/vals.
void sort_pairs(const Exec& exec, int32_t* keys, int64_t* vals, int64_t n, int32_t max_key,
                ScratchBuffer& tmp, ScratchBuffer& keys_alt, ScratchBuffer& vals_alt);

// bounds_host[b] = first position of key b in sorted keys, b in [0, buckets]; bounds_host has
// buckets + 1 entries and lives on the host.
void bucket_bounds(const Exec& exec, const int32_t* sorted_keys, int64_t n, int32_t buckets,
                   int64_t* bounds_host, ScratchBuffer& tmp);

}  // namespace pvec::detail
