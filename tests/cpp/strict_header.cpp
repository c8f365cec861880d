// Compiled with -Wall -Wextra -Wshadow -Wconversion -pedantic -Werror (see tests.cmake): every
// template of pvec.hpp is instantiated here so that a warning anywhere in the header fails the
// build; pvec_neighbors.hpp (and the views it includes) is held to the same flags. strict_sum
// is called by test_hpp_views.cpp, so this is not dead code.
#include <pvec.hpp>
#include <pvec_neighbors.hpp>

#include <cstdint>

template struct pvec::view<float>;
template struct pvec::view<const double>;
template struct pvec::view<std::int32_t>;
template struct pvec::view<std::int64_t>;
template struct pvec::view<std::uint32_t>;
template struct pvec::view<const std::uint64_t>;

template float* pvec::vector::host_ptr<float>(int) const;
template double* pvec::vector::device_ptr<double>(int) const;
template pvec::view<std::int32_t> pvec::vector::host_view<std::int32_t>(int) const;
template pvec::view<const std::uint64_t> pvec::vector::device_view<const std::uint64_t>(int) const;
template bool pvec::vector::is_current<float>(const pvec::view<float>&) const;
template void pvec::vector::check_view<float>(const pvec::view<float>&) const;
template int pvec::schema::add_scalar<long long>(const std::string&);
template int pvec::schema::add_vector<unsigned>(const std::string&, std::int64_t);
template int pvec::schema::add_tensor<double>(const std::string&, std::int64_t, std::int64_t);
template pvec::vector_desc& pvec::vector_desc::pos_type<float>();

static_assert(pvec::dtype_of<long>() == PVEC_INT64, "long is 8 bytes on LP64");
static_assert(pvec::dtype_of<long long>() == PVEC_INT64, "");
static_assert(pvec::dtype_of<unsigned long long>() == PVEC_UINT64, "");
static_assert(pvec::dtype_of<int>() == PVEC_INT32, "");
static_assert(pvec::dtype_of<const volatile unsigned>() == PVEC_UINT32, "");

namespace pvec_cpp_test {

// Sum over particles and components of an int64 property, read through a const view.
std::int64_t strict_sum(const pvec::vector& vec, int prop) {
  const pvec::view<const std::int64_t> v = vec.host_view<const std::int64_t>(prop);
  std::int64_t sum = 0;
  for (std::int64_t i = 0; i < vec.size(); ++i)
    for (std::int64_t c = 0; c < v.ncomp(); ++c) sum += v(i, c);
  return sum;
}

}  // namespace pvec_cpp_test
