// Section 11 of pvec.h: load balance.
#include "capi/guard.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

extern "C" pvec_status pvec_vector_get_imbalance(pvec_vector_t vec, int weight_prop, unsigned flags,
                                                 double* count_imbalance,
                                                 double* weight_imbalance) {
  return op_guard("pvec_vector_get_imbalance", [&] {
    auto& v = vec_of(vec);
    v.require_same_args({static_cast<double>(weight_prop), static_cast<double>(flags)},
                        "weight property and flags");
    check_flags(flags, PVEC_ON_DEVICE);
    const Imbalance b = v.imbalance(weight_prop, (flags & PVEC_ON_DEVICE) != 0);
    if (count_imbalance) *count_imbalance = b.count;
    if (weight_imbalance) *weight_imbalance = b.weight;
  });
}

extern "C" pvec_status pvec_vector_rebalance(pvec_vector_t vec, int weight_prop, double threshold,
                                             unsigned flags, double* before, double* after) {
  return op_guard("pvec_vector_rebalance", [&] {
    auto& v = vec_of(vec);
    v.require_same_args({static_cast<double>(weight_prop), threshold, static_cast<double>(flags)},
                        "weight property, threshold and flags");
    check_flags(flags, PVEC_ON_DEVICE);
    double b = 1, a = 1;
    v.rebalance(weight_prop, threshold, (flags & PVEC_ON_DEVICE) != 0, &b, &a);
    if (before) *before = b;
    if (after) *after = a;
  });
}

extern "C" pvec_status pvec_vector_follow(pvec_vector_t vec, pvec_vector_t leader, unsigned flags) {
  return op_guard("pvec_vector_follow", [&] {
    auto& v = vec_of(vec);
    DistVector* l = leader == nullptr ? nullptr : &vec_of(leader);
    v.require_same_args({static_cast<double>(flags), leader == nullptr ? 0.0 : 1.0},
                        "flags and leader (NULL or not)");
    check_flags(flags, PVEC_ON_DEVICE);
    v.follow(l, (flags & PVEC_ON_DEVICE) != 0);
  });
}
