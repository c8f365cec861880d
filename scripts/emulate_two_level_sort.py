#!/usr/bin/env python3
# emulate_two_level_sort.py -- a host emulation of the decomposition in
# src/neighbors/two_level_sort.cu (spans of whole buckets found by the 32-way warp search,
# per-span stable sort by the offset from the span's first cell with the padding key `top`,
# the cells each span writes, the split counts), checked against a stable argsort and
# bincounts, and the warp search against a linear scan. It checks the index arithmetic, not
# the CUDA code (that is tests/neighbors/test_two_level_sort.cpp on a GPU). Needs NumPy; about
# 3 minutes. Usage: python3 scripts/emulate_two_level_sort.py
import sys

import numpy as np

kSpanRows=2048; kCap=4096; kMaxSpanBits=15; kUpper=16
def bits_for(nb):
    b=1
    while b<31 and (1<<b)<nb: b+=1
    return b
def warp_first_above(keys,L,b0,lo,hi):
    while hi-lo>32:
        step=(hi-lo+31)//32
        p=[ (lo+l*step)<hi and (keys[lo+l*step]>>L)>b0 for l in range(32)]
        if not any(p):
            lo += ((hi-1-lo)//step)*step+1
        else:
            f=p.index(True)
            if f==0: return lo
            hi=lo+f*step; lo += (f-1)*step+1
    p=[(lo+l)<hi and (keys[lo+l]>>L)>b0 for l in range(32)]
    return lo+p.index(True) if any(p) else hi
def two_level(keys,nb,n_split):
    n=len(keys); bits=bits_for(nb); L=bits-kUpper
    idx=np.argsort(keys>>L,kind='stable'); sk=keys[idx]; order=idx.copy()
    spans=(n+kSpanRows-1)//kSpanRows
    bounds=[0]*(spans+1); bounds[spans]=n; over=False
    for j in range(1,spans):
        lo=j*kSpanRows; hi=min(lo+kCap,n)
        b=warp_first_above(sk,L,sk[lo-1]>>L,lo,hi)
        # check against brute
        bb=lo
        while bb<n and (sk[bb]>>L)<=(sk[lo-1]>>L): bb+=1
        if b!=min(bb,hi): print("search mismatch",j,b,bb,hi); sys.exit(1)
        bounds[j]=b
        if b==hi and hi<n: over=True
    offsets=np.full(nb+1,-7); split=np.full(nb+1,-7)
    for j in range(spans):
        s,e=bounds[j],bounds[j+1]
        if e<=s: continue
        if e-s>kCap: over=True; continue
        m=e-s; fb=sk[s]>>L; lb=sk[e-1]>>L; base=fb<<L; top=((lb+1)<<L)-base
        if top>=(1<<kMaxSpanBits): over=True; continue
        rel=np.concatenate([sk[s:e]-base, np.full(kCap-m,top)])
        it=np.concatenate([order[s:e], np.zeros(kCap-m,dtype=order.dtype)])
        p=np.argsort(rel,kind='stable'); rk=rel[p]; ri=it[p]
        order[s:e]=ri[:m]
        c_from=0 if s==0 else (((sk[s-1]>>L)+1)<<L)
        c_to=nb+1 if e==n else base+top
        for c in range(c_from,c_to):
            x=c-base
            lo=0 if x<=0 else (m if x>=top else int(np.searchsorted(rk[:m],x,'left')))
            offsets[c]=s+lo
            cnt=0
            if 0<=x<top:
                hi=int(np.searchsorted(rk[:m],x+1,'left'))
                cnt=int(np.searchsorted(ri[lo:hi],n_split,'left'))
            split[c]=cnt
    if over: return None
    split=np.concatenate([[0],np.cumsum(split[:-1])])
    return offsets,order,split
def ref(keys,nb,n_split):
    order=np.argsort(keys,kind='stable')
    counts=np.bincount(keys,minlength=nb)
    offsets=np.concatenate([[0],np.cumsum(counts)])
    sc=np.bincount(keys[:n_split],minlength=nb) if n_split>0 else np.zeros(nb,dtype=int)
    split=np.concatenate([[0],np.cumsum(sc)])
    return offsets,order,split
rng=np.random.default_rng(1)
cases=[]
cases.append(("rand17", rng.integers(0,100003,300001), 100003))
cases.append(("rand18 dense", rng.integers(0,(1<<17)+1,400000), (1<<17)+1))
k=rng.integers(0,1<<20,500000); cases.append(("sorted", np.sort(k), 1<<20)); cases.append(("desc", np.sort(k)[::-1].copy(), 1<<20))
k=rng.integers(0,1<<21,1<<19)&~7; cases.append(("every8 (sparse-ish)", k, 1<<21))
nb=(1<<19)+77; k=rng.integers(0,nb,600000); k[:1500*101:101]=0; k[1:1500*103+1:103]=nb-1; cases.append(("crowded ends", k, nb))
nb=1<<22; k=rng.integers(0,nb,300000); k[rng.integers(0,300000,5000)]=640+rng.integers(0,64,5000); cases.append(("crowd bucket", k, nb))
bad=0
for name,k,nb in cases:
    k=np.asarray(k,dtype=np.int64); n=len(k)
    for ns in (n,0,n//3):
        r=two_level(k,nb,ns); w=ref(k,nb,ns)
        if r is None:
            print(name,ns,"fell back")
            if name!="crowd bucket": bad+=1
            continue
        ok=all(np.array_equal(a,b) for a,b in zip(r,w))
        print(name,ns,"OK" if ok else "MISMATCH")
        if not ok: bad+=1
        if name=="crowd bucket": bad+=1  # must fall back (reached only if it did not)
print("emulate_two_level_sort:", "FAILED" if bad else "all cases agree")
sys.exit(1 if bad else 0)
