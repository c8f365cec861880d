#!/usr/bin/env python3
# Writes the seed corpus fuzz/corpus/ for fuzz_capi (see the op decoding in fuzz_capi.cpp).
# Usage: python3 fuzz/make_corpus.py fuzz/corpus
import os
import sys
out=sys.argv[1]
os.makedirs(out,exist_ok=True)
def create(slot, props, shape, box, width, n, place=0, mem=0):
    b=[(slot<<5)|0, len(props)]
    for (dt,rank,e0,e1) in props: b+= [dt-1, rank, e0-1, e1-1]
    b+=[shape, box, width, n, place, mem]
    return b
def op(slot,kind,*args): return [(slot<<5)|kind]+list(args)
def u16(v): return [v&255, v>>8]
seeds={}
# 1: 3D fully periodic float64, ghosts, map, put, bad calls
s=create(0,[(2,0,1,1),(3,1,3,1)], 0b00111000|0, 0, 2, 100)
s+=op(0,1,50,1)           # append 50 with values
s+=op(0,11,0,0,1)         # map host, label
s+=op(0,12,0,0,1,1)       # ghost_get host, all, label
s+=op(0,14,0,2,1)         # ghost_put host replace all
s+=op(0,12,0,1,1)         # ghost_get reuse all
s+=op(0,12,0,3,1)         # reuse + skip positions
for w in range(12): s+=op(0,15,w,3,1,2)
seeds['ghosts_3d']=s
# 2: 2D float32 mixed periodic; growth, remove, resize, reserve, shrink, transfers
s=create(0,[(1,2,2,2),(6,0,1,1),(4,1,2,1)], 0b00001101, 4, 1, 10)
for k in range(5): s+=op(0,1,30,1)
s+=op(0,3,5)+u16(3)+u16(70)+u16(11)+u16(0)+u16(140)
s+=op(0,7,1,0,1)          # h2d all
s+=op(0,9,1)+u16(7)+[1]   # write device particle 7
s+=op(0,7,0,1,0,0b101)    # d2h async some
s+=op(0,4,0x80)+u16(700)+op(0,5,0x80)+u16(2000)+op(0,6)+op(0,4,3)+op(0,6)
seeds['growth_2d']=s
# 3: displaced particles, map refuses, then removes them
s=create(0,[(5,0,1,1)], 0b00010010|0, 1, 3, 60)
s+=op(0,1,0,0)
s+=op(0,11,0,0,1)         # label + map
s+=op(0,10)+u16(3)+[0,2]+op(0,10)+u16(9)+[1,5]+op(0,10)+u16(20)+[2,0]
s+=op(0,11,0,0,0)         # map refuses
s+=op(0,11,1,1,0)         # map device, remove outside
s+=op(0,12,1,0,1,1)       # ghost_get device
s+=op(0,14,1,0,1)
seeds['outside']=s
# 4: three slots, 1D and 4D, destroy and recreate
s=create(0,[], 0b00001000, 2, 1, 5)
s+=create(1,[(2,2,3,2)], 0b01111011|0b100, 5, 2, 0x7f)
s+=create(2,[(3,0,1,1),(4,0,1,1),(1,0,1,1),(2,0,1,1)], 0b00000000, 0, 0, 200)
s+=op(1,12,0,0,1,1)+op(0,1,100,1)+op(2,3,10)+u16(1)*10+op(1,31)+op(1,1,5,1)+op(0,12,1,0,1,1)
seeds['slots']=s
# 5: tensor props, exact reserve, async transfers, empty vector
s=create(0,[(2,2,3,3),(5,1,3,1)], 0b00111100|0b010, 7, 3, 0)
s+=op(0,6)+op(0,5,1)+op(0,1,64,1)+op(0,1,1,1)+op(0,7,1,1,1)+op(0,4,0)+op(0,6)+op(0,15,6,1,1)
seeds['tensor_empty']=s
# 6: SKIP_POSITIONS refused after a transfer replaced that mirror's positions, on both mirrors
s=create(0,[(2,0,1,1)], 0b00111000|0, 0, 2, 100)
s+=op(0,1,50,1)+op(0,11,0,0,1)
s+=op(0,12,0,0,1,1)       # ghost_get host, new plan
s+=op(0,7,1,0,1)+op(0,7,0,0,1)  # h2d all, d2h all: host positions replaced
s+=op(0,12,0,3,1)         # reuse + skip on host: refused
s+=op(0,12,0,0,1,0)       # new plan sends the positions
s+=op(0,12,0,3,1)         # reuse + skip: accepted
s+=op(0,12,1,0,1,0)       # ghost_get device, new plan
s+=op(0,7,1,0,1)          # h2d all: device positions replaced
s+=op(0,12,1,3,1)         # reuse + skip on device: refused
seeds['skip_after_transfer']=s
# 7: pvec_vector_sort (kind 18): halo-first, Morton, both mirrors, on each side, bad widths and flags
s=create(0,[(2,0,1,1),(5,1,3,1)], 0b00111000|0, 0, 2, 100)
s+=op(0,1,80,1)+op(0,11,0,0,1)         # append, map with labels
s+=op(0,12,0,0,1,1)                    # ghost_get (a plan the sort must forget)
s+=op(0,18,0,4,0)+op(0,18,0,4,1)       # halo-first on the host, cell widths L/2 and L/7
s+=op(0,12,0,1,1)                      # reuse after the sort: refused (no plan)
s+=op(0,7,1,0,1)                       # h2d all
s+=op(0,18,1,3,2)+op(0,18,1,1,1)       # device: Morton + both mirrors, then Morton alone
s+=op(0,18,0,5,0)+op(0,18,0,8,0)       # Morton with halo-first; an unknown flag
for w in (4,5,6): s+=op(0,18,0,0,w)    # widths 0, -1, NaN
s+=op(0,10)+u16(7)+[0,0]+op(0,18,0,4,2)  # a NaN position: refused, nothing moved
seeds['sort_orders']=s
for k,v in seeds.items():
    open(os.path.join(out,k),'wb').write(bytes(x&255 for x in v))
print(len(seeds))
