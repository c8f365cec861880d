// Schema: the run-time list of properties a particle carries.
#pragma once

#include <pvec.h>

#include <cstdint>
#include <string>
#include <vector>

namespace pvec::impl {

// One property (or the positions): element type and shape. ncomp components of elem_size
// bytes each; tensor entry (a,b) is component a*extents[1] + b.
struct PropertySpec {
  std::string name;
  pvec_dtype dtype = PVEC_FLOAT32;
  int rank = 0;
  int64_t extents[PVEC_MAX_RANK] = {1, 1};
  int64_t ncomp = 1;
  size_t elem_size = 4;
};

class Schema {
 public:
  // Validate and append; returns the new index. Throws Error and leaves the schema as it was.
  int add(const char* name, int dtype, int rank, const int64_t* extents);
  int count() const { return static_cast<int>(props_.size()); }
  const std::vector<PropertySpec>& props() const { return props_; }
  // Index of the property called name, or -2 when there is none.
  int find(const std::string& name) const;

 private:
  std::vector<PropertySpec> props_;
};

// The spec of the positions of a dim-dimensional vector with position type dtype.
PropertySpec position_spec(int dim, pvec_dtype dtype);

}  // namespace pvec::impl
