// plan_entries_host: the entries of ghost_get's plan on the host, in two passes instead of the
// device's five (select, count, scan, fill, sort by destination; halo/near_passes.cuh).
//
// Pass 1 (scan) runs over the particles in tiles: GhostNear votes a tile (vectorised), and each
// particle it keeps is examined at once, while its coordinates are in the cache, so the
// positions are read once, in order. A particle with candidates leaves a record (its index and
// its cell word) and adds its entries to its range's count per destination rank. Pass 2
// (place) walks the records again and writes each entry straight at its place in the plan: the
// entries of rank r from range t start after those of every rank below r and of the ranges
// before t for r. That is the order of the device path's stable sort by rank of the entries in
// particle order, so the plan is bitwise the same at any thread count, and no count, offset,
// packed-entry or sorted array is written. Both passes run in the same parallel ranges
// (backend/host_parallel.hpp): a range's records and counts are its own.
#pragma once

#include "backend/host_parallel.hpp"
#include "common/index_list.hpp"
#include "halo/ghost_candidates.cuh"
#include "halo/ghost_near.cuh"
#include "memory/scratch_buffer.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

namespace pvec::impl {

namespace detail {

constexpr int64_t kPlanTile = 512;  // particles voted at a time

// Counts a particle's entries by destination rank (pass 1).
struct CountByRank {
  int64_t* count;
  void operator()(int r, uint32_t) const { ++count[r]; }
};

// Writes a particle's entries at their ranks' cursors (pass 2).
struct PlaceByRank {
  int64_t* cursor;
  IndexList src;
  int32_t* shift;
  int64_t i;
  void operator()(int r, uint32_t code) const {
    const int64_t at = cursor[r]++;
    src.set(at, i);
    shift[at] = static_cast<int32_t>(code);
  }
};

// The entries (rank, shift code) of the fast-path cell words a range has met, so that most
// particles' entries are a look-up instead of a walk over their combinations: a particle near
// one face, edge or corner of the subdomain has the same entries as every other particle
// there, and a range meets a few dozen words. Open addressing on the word; a word with more
// than kMax entries, or met when every slot is taken, is walked each time.
struct EntryPatterns {
  static constexpr int kSlots = 64;  // a power of 2
  static constexpr int kMax = 8;
  static constexpr uint32_t kEmpty = 0xffffffffu;  // GhostCandidates::kNoCellWord
  struct Pattern {
    int32_t n;  // entries; -1: more than kMax
    int32_t rank[kMax];
    uint32_t code[kMax];
  };
  uint32_t word[kSlots];
  Pattern pattern[kSlots];
  int used = 0;

  EntryPatterns() { std::fill(word, word + kSlots, kEmpty); }

  // The pattern of cell word w (of a record with candidates, from f), or null when it is not
  // kept (then the caller walks the record).
  template <class GC>
  const Pattern* find(const GC& f, uint32_t w) {
    uint32_t s = (w * 2654435761u) >> 26;
    for (; word[s] != w; s = (s + 1) & (kSlots - 1)) {
      if (word[s] != kEmpty) continue;
      if (used >= kSlots / 2) return nullptr;  // keep probes short
      Collect c{&pattern[s]};
      c.p->n = 0;
      f.emit_in_cells_to(f.from_cell_word(0, w), c);
      word[s] = w;
      ++used;
      break;
    }
    return pattern[s].n >= 0 ? &pattern[s] : nullptr;
  }

 private:
  struct Collect {
    Pattern* p;
    void operator()(int r, uint32_t code) const {
      if (p->n < 0) return;
      if (p->n == kMax) {
        p->n = -1;
        return;
      }
      p->rank[p->n] = r;
      p->code[p->n++] = code;
    }
  };
};

// The cell word of the fast path's masks (GhostCandidates::count_in_masks, then cell_word):
// per dimension a byte with the first cell in bits 0-2 and the mask from there in bits 3-7.
template <int DIM>
uint32_t cell_word_of_masks(const uint32_t (*mask)[kPlanTile], int64_t c) {
  uint32_t w = 0;
  for (int d = 0; d < DIM; ++d) {
    const uint32_t m = mask[d][c];
    const uint32_t first = m != 0 ? static_cast<uint32_t>(__builtin_ctz(m)) : 0u;
    w |= (first | (m >> first) << 3) << (8 * d);
  }
  return w;
}

// The indices q < len with vote[q] = 1 (votes are 0 or 1), ascending, into kept; returns how
// many. Eight votes at a time: most groups of a tile have none (a tenth of the particles are
// near a face, and in cell order they come in stretches), and a group's bits are found in one
// multiplication (byte i of v, 0 or 1, lands in bit i of the top byte) instead of a loop whose
// every step waits for the previous count. vote must have room up to len rounded up to 8.
inline int64_t kept_of_votes(unsigned char* vote, int64_t len, int32_t* kept) {
  static_assert(kPlanTile % 8 == 0, "tiles of whole groups of eight votes");
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "vote q0 + i is byte i of v");
  for (int64_t q = len; q % 8 != 0; ++q) vote[q] = 0;
  int64_t k = 0;
  for (int64_t q0 = 0; q0 < len; q0 += 8) {
    uint64_t v;
    std::memcpy(&v, vote + q0, sizeof v);
    if (v == 0) continue;
    uint32_t bits = static_cast<uint32_t>((v * 0x0102040810204080ull) >> 56);
    while (bits != 0) {
      kept[k++] = static_cast<int32_t>(q0 + __builtin_ctz(bits));
      bits &= bits - 1;
    }
  }
  return k;
}

template <class T, int DIM>
struct HostPlanPasses {
  const GhostCandidates<T, DIM>* f;
  const GhostNear<T, DIM>* near_test;
  IndexList records;  // near particles with candidates: a range's from its first particle on
  uint32_t* words;    // their cell words (GhostCandidates::cell_word)
  int64_t* counts;    // [range][rank]: entries, then (after the prefix) cursors
  int P;
  int64_t begin[kHostMaxThreads];
  int64_t n_records[kHostMaxThreads];
  IndexList src;
  int32_t* shift;

  static constexpr int64_t kTile = kPlanTile;

  // The fast path's cell masks (GhostCandidates::count_in_cells' comparisons) of the k
  // particles t0 + kept[c] of a tile, into mask[d][c], and whether each lies inside this
  // rank's subdomain (where they apply) into fast[c]: branch-free loops over the tile, which
  // the compiler vectorises, instead of a few mispredicted branches per particle.
  void cell_masks(int64_t t0, const int32_t* kept, int64_t k, uint32_t (*mask)[kTile],
                  unsigned char* fast) const {
    const NearCells<T, DIM>& cells = f->cells;
    T x[kTile];
    for (int64_t c = 0; c < k; ++c) fast[c] = 1;
    for (int d = 0; d < DIM; ++d) {
      const T* col = f->pos + d * f->cap + t0;
      for (int64_t c = 0; c < k; ++c) x[c] = col[kept[c]];
      const T lo = cells.own.lo[d], hi = cells.own.hi[d];
      for (int64_t c = 0; c < k; ++c) fast[c] &= (x[c] >= lo) & (x[c] < hi);
      uint32_t* m = mask[d];
      for (int64_t c = 0; c < k; ++c) m[c] = 0;
      for (int q = 0; q < NearCells<T, DIM>::kCells; ++q) {
        if (((cells.exists[d] >> q) & 1u) == 0) continue;
        const T add = cells.add[d][q], a = cells.lo[d][q], z = cells.hi[d][q];
        for (int64_t c = 0; c < k; ++c) {
          const T v = static_cast<T>(x[c] + add);
          m[c] |= static_cast<uint32_t>((v >= a) & (v < z)) << q;
        }
      }
    }
  }

  // Pass 1 over particles [b, e), range t.
  void scan(int64_t b, int64_t e, int t) {
    using GC = GhostCandidates<T, DIM>;
    int64_t* count = counts + static_cast<int64_t>(t) * P;
    std::fill(count, count + P, int64_t{0});
    CountByRank sink{count};
    EntryPatterns seen;
    unsigned char vote[kTile], fast[kTile];
    int32_t kept[kTile];
    uint32_t mask[DIM][kTile];
    int64_t m = b;
    for (int64_t t0 = b; t0 < e; t0 += kTile) {
      const int64_t len = std::min(e - t0, kTile);
      near_test->vote(t0, len, vote);
      const int64_t k = kept_of_votes(vote, len, kept);
      if (f->use_cells) cell_masks(t0, kept, k, mask, fast);
      for (int64_t c = 0; c < k; ++c) {
        const int64_t i = t0 + kept[c];
        if (f->use_cells && fast[c] != 0) {
          const uint32_t w = cell_word_of_masks<DIM>(mask, c);
          if (const EntryPatterns::Pattern* p = seen.find(*f, w)) {
            if (p->n == 0) continue;  // no candidates
            records.set(m, i);
            words[m++] = w;
            for (int q = 0; q < p->n; ++q) ++count[p->rank[q]];
            continue;
          }
        }
        typename GC::Item rec;  // examine's other paths, and patterns not kept
        rec.in_cells = false;
        typename GC::Input in;
        f->load(i, in);
        if (f->examine(i, in, rec) == 0) continue;
        records.set(m, i);
        words[m++] = f->cell_word(rec);
        f->emit_to(rec, sink);
      }
    }
    begin[t] = b;
    n_records[t] = m - b;
  }

  // Pass 2 over the records of range t (counts + t P holds its cursors by then).
  void place(int t) const {  // (its own EntryPatterns: ranges run in parallel)
    using GC = GhostCandidates<T, DIM>;
    PlaceByRank sink{counts + static_cast<int64_t>(t) * P, src, shift, 0};
    EntryPatterns seen;
    for (int64_t j = begin[t], end = begin[t] + n_records[t]; j < end; ++j) {
      sink.i = records[j];
      const uint32_t w = words[j];
      if (w != GC::kNoCellWord) {
        if (const EntryPatterns::Pattern* p = seen.find(*f, w)) {
          for (int q = 0; q < p->n; ++q) sink(p->rank[q], p->code[q]);
          continue;
        }
        f->emit_in_cells_to(f->from_cell_word(sink.i, w), sink);
        continue;
      }
      typename GC::Input in;  // not a fast-path record: examined again, as FillNear does
      f->load(sink.i, in);
      f->emit_to(sink.i, in, sink);
    }
  }
};

}  // namespace detail

// The plan's entries of this rank's n particles, sorted by destination rank (f's output
// pointers are not used): `records` and `words` have room for n, `counts` is grown to
// threads x P words; `make_room(total)` returns the plan's source list and shift array with
// room for total entries. bounds (P + 1 words) receives the first entry of each rank and the
// total, which is returned.
template <class T, int DIM, class MakeRoom>
int64_t plan_entries_host(const GhostCandidates<T, DIM>& f, const GhostNear<T, DIM>& near_test,
                          int64_t n, int P, IndexList records, uint32_t* words,
                          ScratchBuffer& counts, MakeRoom&& make_room, int64_t* bounds) {
  using Passes = detail::HostPlanPasses<T, DIM>;
  Passes x{};
  x.f = &f;
  x.near_test = &near_test;
  x.records = records;
  x.words = words;
  x.P = P;
  x.counts = counts.ensure_as<int64_t>(static_cast<size_t>(std::max(host_threads(), 1)) * P);
  int ranges = 0;
  if (n > 0)
    ranges = host_ranges(
        n, kHostGrain,
        [](void* c, int64_t b, int64_t e, int t) { static_cast<Passes*>(c)->scan(b, e, t); }, &x);
  // Rank r's entries start after those of the ranks below; range t's after the earlier ranges'.
  int64_t total = 0;
  for (int r = 0; r < P; ++r) {
    bounds[r] = total;
    for (int t = 0; t < ranges; ++t) {
      int64_t& c = x.counts[static_cast<int64_t>(t) * P + r];
      const int64_t k = c;
      c = total;
      total += k;
    }
  }
  bounds[P] = total;
  const auto room = make_room(total);
  x.src = room.first;
  x.shift = room.second;
  if (total > 0)
    host_ranges(
        ranges, 1,
        [](void* c, int64_t b, int64_t e, int) {
          for (int64_t t = b; t < e; ++t) static_cast<const Passes*>(c)->place(static_cast<int>(t));
        },
        &x);
  return total;
}

}  // namespace pvec::impl
