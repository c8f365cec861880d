#include "common/index_list.hpp"

namespace pvec::impl {

namespace {
bool g_force_wide = false;
}  // namespace

bool narrow_indices(int64_t bound) { return !g_force_wide && IndexList::fits_narrow(bound); }
void force_wide_indices(bool wide) { g_force_wide = wide; }

}  // namespace pvec::impl
