!> pvec -- Fortran binding of the pvec C ABI (include/pvec.h): `use pvec` gives all of it.
!>
!> This module only gathers the others (docs/fortran.md, "Modules"):
!>
!>   pvec_capi          generated from abi/pvec_abi.json (abi/gen_fortran.py): the constants and
!>                      enumerators, the bind(C) structs, and c_pvec_<name>, one bind(C)
!>                      interface per function of pvec.h (handles as type(c_ptr) by value,
!>                      statuses as integer(c_int), NUL-terminated strings): exactly C.
!>   pvec_views         generated too: pvec_host_view, one specific per kind and rank.
!>   pvec_base, pvec_library, pvec_options, pvec_schemas, pvec_vectors, pvec_mirrors,
!>   pvec_transfers, pvec_coherence, pvec_population, pvec_distribution, pvec_reductions,
!>   pvec_neighbors, pvec_io, pvec_balance
!>                      the readable wrappers pvec_<name>, written by hand: type(pvec_vector) /
!>                      type(pvec_schema) handles, Fortran strings in and out, optional
!>                      arguments, 1-based particle indices, and optional `stat` and `errmsg`.
!>                      Without `stat`, a failure prints the message to error_unit and stops
!>                      the program (error stop <status>); with `stat`, the status is returned
!>                      and pvec_last_error() explains it; `errmsg` receives that message on
!>                      failure and is untouched on success, as in ALLOCATE.
!>
!> Indexing (see docs/fortran.md for the full table). C stores particle i, component c of a
!> property at base[c*C + i] with C the capacity. pvec_host_view returns a Fortran pointer whose
!> leading dimension is C, so with 1-based Fortran indices:
!>
!>   scalar           v(i)           = base[i-1]
!>   vector[n]        v(i, c+1)      = base[c*C + i-1]
!>   tensor[n][m]     v(i, b+1, a+1) = base[(a*m + b)*C + i-1]      (C entry (a,b); v is C x m x n)
!>   positions        x(i, d+1)      = pos[d*C + i-1]
!>
!> Property indices are identifiers, not array indices: use the value pvec_schema_add or
!> pvec_vector_get_prop_index gave you (0, 1, ... in declaration order, as in C) and PVEC_POS
!> for the positions. Particle indices taken or returned by the wrappers (pvec_vector_append's
!> first, pvec_vector_remove's list) are 1-based, matching the views.
module pvec
  use pvec_capi
  use pvec_base, only: pvec_vector, pvec_schema, pvec_cell_list, pvec_verlet, pvec_c_handle, &
                       pvec_vector_from_c, pvec_schema_from_c, pvec_status_string, &
                       pvec_last_error, pvec_c_string
  use pvec_library
  use pvec_options
  use pvec_schemas
  use pvec_vectors
  use pvec_mirrors, only: pvec_vector_get_layout, pvec_host_ptr, pvec_device_ptr
  use pvec_views
  use pvec_transfers
  use pvec_coherence
  use pvec_population
  use pvec_distribution
  use pvec_reductions
  use pvec_neighbors
  use pvec_io
  use pvec_balance
  implicit none
  public
end module pvec
