#include "particles/schema.hpp"

#include "common/dtype.hpp"
#include "common/checked.hpp"
#include "common/error.hpp"

#include <cstring>
#include <limits>

namespace pvec::impl {

int Schema::add(const char* name, int dtype, int rank, const int64_t* extents) {
  if (name == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "property name is NULL");
  size_t len = std::strlen(name);
  if (len == 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "property name is empty");
  if (len > PVEC_MAX_NAME)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "property name is ", len, " bytes long; at most ",
         PVEC_MAX_NAME, " allowed");
  if (std::strcmp(name, "pos") == 0)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "property name \"pos\" is reserved for the positions");
  if (find(name) != -2) fail(PVEC_ERROR_INVALID_ARGUMENT, "duplicate property name \"", name, "\"");
  if (!dtype_valid(dtype)) fail(PVEC_ERROR_INVALID_ARGUMENT, "unknown dtype ", dtype);
  if (rank < 0 || rank > PVEC_MAX_RANK)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "rank ", rank, " out of range 0..", PVEC_MAX_RANK);
  if (rank > 0 && extents == nullptr)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "extents is NULL for rank ", rank);

  PropertySpec spec;
  spec.name = name;
  spec.dtype = static_cast<pvec_dtype>(dtype);
  spec.rank = rank;
  spec.elem_size = dtype_size(dtype);
  int64_t ncomp = 1;
  for (int k = 0; k < rank; ++k) {
    if (extents[k] < 1)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "extent ", k, " of \"", name, "\" is ", extents[k],
           "; must be >= 1");
    spec.extents[k] = extents[k];
    ncomp = checked_mul(ncomp, extents[k], "component count");
  }
  // A row of 64 particles of every component must be addressable in bytes.
  checked_mul(checked_mul(ncomp, static_cast<int64_t>(spec.elem_size), "property bytes"), 64,
              "property bytes");
  spec.ncomp = ncomp;
  props_.push_back(std::move(spec));
  return count() - 1;
}

int Schema::find(const std::string& name) const {
  for (size_t k = 0; k < props_.size(); ++k)
    if (props_[k].name == name) return static_cast<int>(k);
  return -2;
}

PropertySpec position_spec(int dim, pvec_dtype dtype) {
  PropertySpec spec;
  spec.name = "pos";
  spec.dtype = dtype;
  spec.rank = 1;
  spec.extents[0] = dim;
  spec.ncomp = dim;
  spec.elem_size = dtype_size(dtype);
  return spec;
}

}  // namespace pvec::impl
