// Work buffers of the distribution layer, kept between calls so that a warmed-up map or
// ghost exchange allocates nothing.
//
// Ten buffers serve every step; a step asks for its buffer by what it holds (Workspace::Use),
// and the table below says which buffer that is. Uses that share a buffer are never live at
// the same time: the comment of each use says when it is, and a new use goes into the table
// with the same care (two live uses in one buffer would overwrite each other).
#pragma once

#include "memory/scratch_buffer.hpp"

namespace pvec::impl {

struct Workspace {
  enum Slot {
    kLabels,
    kFlags,
    kIndexA,
    kIndexB,
    kKeysAlt,
    kValsAlt,
    kTemp,
    kSend,
    kRecv,
    kPeers,
    kCount
  };

  enum class Use {
    // Every operation.
    temp,   // CUB temporaries and small counters, within one primitive call
    send,   // message blocks to the other ranks, packing to exchange
    recv,   // message blocks received (not with CUDA IPC), exchange to unpacking
    peers,  // per-peer offsets, firsts and counts, uploaded once the sizes are known
    // map.
    owner_labels,   // the owner of each particle: labelling to the selection of the tail
    wrap_flags,     // a byte per particle to wrap: labelling to the wrap
    mover_votes,    // the labelling pass's vote words: labelling to the mover list
    movers,         // the movers' indices: mover list to unpacking
    mover_keys,     // their destinations (and the sort's alternate keys): sort to packing
    mover_order,    // the movers in destination order: sort to packing
    sort_keys_alt,  // the sort's alternate keys, before the send blocks exist (send)
    sort_vals_alt,  // the sort's alternate values, before the receive blocks exist (recv)
    tail_stayers,   // stayers beyond the new end, after the mover list is made (mover_votes)
    // ghost_get's plan (the plan's own arrays live in GhostPlan).
    near_list,       // particles near a boundary: selection to the fill pass
    near_counts,     // candidates per near particle, scanned: count pass to fill pass
    cell_words,      // the count pass's records for the fill pass: count to fill
    near_votes,      // the selection's vote words: within the selection
    entry_peers,     // each entry's destination, unsorted: fill pass to sort
    sorted_payload,  // entries sorted by destination: sort to the plan's arrays
    packed_entries,  // source and shift in one word, unsorted: fill pass to sort (send)
    entry_sources,   // wide indices: sources, unsorted: fill pass to gather (send)
    entry_shifts,    // wide indices: shifts, unsorted: fill pass to gather (recv)
    entry_ids,       // wide indices: entry numbers to sort (near_counts, no longer read)
    entry_cursors,   // host: entries per range and rank, then cursors: scan to placement
  };

  static constexpr Slot slot_of(Use u) {
    switch (u) {
      case Use::temp:
        return kTemp;
      case Use::send:
      case Use::sort_keys_alt:
      case Use::packed_entries:
      case Use::entry_sources:
        return kSend;
      case Use::recv:
      case Use::sort_vals_alt:
      case Use::entry_shifts:
        return kRecv;
      case Use::peers:
        return kPeers;
      case Use::owner_labels:
      case Use::entry_peers:
        return kLabels;
      case Use::wrap_flags:
        return kFlags;
      case Use::mover_votes:
      case Use::tail_stayers:
      case Use::near_list:
        return kIndexB;
      case Use::movers:
      case Use::near_counts:
      case Use::entry_ids:
      case Use::entry_cursors:
        return kIndexA;
      case Use::mover_keys:
      case Use::cell_words:
        return kKeysAlt;
      case Use::mover_order:
      case Use::near_votes:
      case Use::sorted_payload:
        return kValsAlt;
    }
    return kTemp;
  }

  // The buffers of one side, indexed by use.
  struct Side {
    ScratchBuffer* buffers;
    ScratchBuffer& operator[](Use u) const { return buffers[slot_of(u)]; }
  };

  ScratchBuffer dev[kCount];   // the side operations run on (device memory for CUDA)
  ScratchBuffer host[kCount];  // host-side (pinned for CUDA): staging and small arrays

  void set_kinds(MemKind device_side, MemKind host_side) {
    for (auto& b : dev) b.set_kind(device_side);
    for (auto& b : host) b.set_kind(host_side);
  }
  // Buffers of the side an operation runs on.
  Side side(bool device) { return Side{device ? dev : host}; }
  Side host_side() { return Side{host}; }
  Side device_side() { return Side{dev}; }
};

}  // namespace pvec::impl
