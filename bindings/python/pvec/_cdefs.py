"""Longer than 500 lines because it mirrors the whole C interface, include/pvec.h, one to one.

The ctypes mirror of include/pvec.h: constants, enums (IntEnum), structs and a prototype for
every PVEC_API function. Public as :mod:`pvec.capi`, which re-exports all of it.

tests/test_abi.py checks every name, type, value and offset here against the ABI description
abi/pvec_abi.json (see abi/README.md) and the C dumper generated from it: a header change this
file does not follow fails there, by name.
"""

import ctypes
import enum
import types

# ---- Constants of pvec.h (the header version this binding was written against) ----------
VERSION_MAJOR = 0
VERSION_MINOR = 1
VERSION_PATCH = 0
VERSION_NUMBER = VERSION_MAJOR * 10000 + VERSION_MINOR * 100 + VERSION_PATCH
MAX_RANK = 2
MAX_NAME = 63
MAX_DIM = 4
POS = -1
# PVEC_NO_PROPS, the C sentinel for an empty property list (its address value); the Python
# API takes an empty list instead.
NO_PROPS = -1
# Flag of pvec_vtk_write (section 9): an Int32 point array "rank".
VTK_RANK_ARRAY = 1 << 4
# pvec_vector_get_imbalance's weight argument for "count particles" (section 11).
NO_WEIGHT = -2
# "No property" in pvec_verlet_options (key_prop, skip_prop; section 10) and as the mark_prop of
# pvec_vector_remove_marked (the marks are an array; section 4).
NO_PROPERTY = -2
# The longest array attribute of a checkpoint's metadata (section 9).
METADATA_MAX_VALUES = 4096


class Status(enum.IntEnum):
    """pvec_status: returned by every C function (SUCCESS = 0)."""

    SUCCESS = 0
    INVALID_ARGUMENT = 1
    INVALID_HANDLE = 2
    OUT_OF_RANGE = 3
    OVERFLOW = 4
    OUT_OF_MEMORY = 5
    NO_DEVICE = 6
    CUDA = 7
    MPI = 8
    STATE = 9
    PARTICLES_OUTSIDE = 10
    DTYPE_MISMATCH = 11
    NOT_SUPPORTED = 12
    INTERNAL = 13
    IO = 14
    STALE_MIRROR = 15


class OptionSource(enum.IntEnum):
    """pvec_option_source: where a run-time option's value in use came from."""

    DEFAULT = 0
    ENVIRONMENT = 1
    SET = 2


class DType(enum.IntEnum):
    """pvec_dtype: element types (4- and 8-byte only)."""

    FLOAT32 = 1
    FLOAT64 = 2
    INT32 = 3
    INT64 = 4
    UINT32 = 5
    UINT64 = 6


class Boundary(enum.IntEnum):
    """pvec_boundary."""

    NON_PERIODIC = 0
    PERIODIC = 1


class Backend(enum.IntEnum):
    """pvec_backend: where the device mirror lives."""

    AUTO = 0
    HOST = 1
    CUDA = 2


class HostMemory(enum.IntEnum):
    """pvec_host_memory: host mirror memory with the CUDA backend."""

    PINNED = 0
    PAGEABLE = 1


class Placement(enum.IntEnum):
    """pvec_placement: how pvec_vector_create places its initial particles."""

    EVEN = 0
    LOCAL = 1


class ReduceOp(enum.IntEnum):
    """pvec_reduce_op: how pvec_ghost_put combines ghost values with their owners', and
    what pvec_vector_reduce / pvec_vector_allreduce compute (ADD, MIN, MAX)."""

    ADD = 0
    MIN = 1
    MAX = 2
    REPLACE = 3


class Transport(enum.IntEnum):
    """pvec_transport: how the messages of a distribution call travelled."""

    NONE = 0
    MPI = 1
    MPI_STAGED = 2
    CUDA_IPC = 3
    SHARED_MEMORY = 4


class Flags(enum.IntFlag):
    """Flags of pvec_map / pvec_ghost_get / pvec_ghost_put, or-ed."""

    NONE = 0
    ON_DEVICE = 1 << 0
    MAP_REMOVE_OUTSIDE = 1 << 1
    GHOST_SKIP_POSITIONS = 1 << 2
    GHOST_REUSE_PLAN = 1 << 3


class PopulationFlags(enum.IntFlag):
    """Flags of pvec_vector_remove_marked and pvec_vector_ids_init (or-ed with
    Flags.ON_DEVICE)."""

    NONE = 0
    REMOVE_FILL_HOLES = 1 << 12
    IDS_KEEP = 1 << 13


class RowFlags(enum.IntFlag):
    """Row sets of pvec_vector_mark_modified and pvec_vector_sync (PVEC_ROWS_*; or-ed with
    Flags.ON_DEVICE); neither: both."""

    NONE = 0
    LOCAL = 1 << 14
    GHOST = 1 << 15


class Mirror(enum.IntFlag):
    """Bits of pvec_vector_get_mirror_state (PVEC_MIRROR_*): set when that mirror holds the
    newest values of that row set."""

    HOST_LOCAL = 1
    DEVICE_LOCAL = 2
    HOST_GHOST = 4
    DEVICE_GHOST = 8


class MetadataKind(enum.IntEnum):
    """pvec_metadata_kind: what one attribute of a checkpoint's metadata holds."""

    NUMBER = 0
    STRING = 1
    ARRAY = 2


class RestartFlags(enum.IntFlag):
    """Flags of pvec_checkpoint_restart (bits no other call accepts)."""

    NONE = 0
    ZERO_MISSING = 1 << 10
    SKIP_EXTRA = 1 << 11


class NeighborFlags(enum.IntFlag):
    """Flags of section 10 (neighbour search), or-ed with Flags.ON_DEVICE."""

    NONE = 0
    CELLS_GHOSTS = 1 << 5
    SORT_MORTON = 1 << 6
    SORT_BOTH_MIRRORS = 1 << 7
    VERLET_HALF = 1 << 8
    SORT_HALO_FIRST = 1 << 9


# ---- Structs ------------------------------------------------------------------------------
class OptionInfo(ctypes.Structure):
    """pvec_option_info: one run-time option (pvec_options_get_info); strings owned by pvec."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("name", ctypes.c_char_p),
        ("accepts", ctypes.c_char_p),
        ("default_value", ctypes.c_char_p),
        ("meaning", ctypes.c_char_p),
        ("source", ctypes.c_int),
        ("value", ctypes.c_int),
    ]


class VectorDesc(ctypes.Structure):
    """pvec_vector_desc. Fill with :func:`vector_desc` (calls pvec_vector_desc_init)."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("dim", ctypes.c_int),
        ("pos_dtype", ctypes.c_int),
        ("domain_lo", ctypes.c_double * MAX_DIM),
        ("domain_hi", ctypes.c_double * MAX_DIM),
        ("boundary", ctypes.c_int * MAX_DIM),
        ("ghost_width", ctypes.c_double),
        ("n_particles", ctypes.c_int64),
        ("placement", ctypes.c_int),
        ("backend", ctypes.c_int),
        ("host_memory", ctypes.c_int),
        ("has_comm", ctypes.c_int),
        ("comm_f", ctypes.c_int64),
    ]


class Spawner(ctypes.Structure):
    """pvec_spawner: what a kernel needs to create particles (pvec_vector_spawn_begin); passed
    by value to kernels."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("counter", ctypes.POINTER(ctypes.c_ulonglong)),
        ("first", ctypes.c_int64),
        ("limit", ctypes.c_int64),
        ("capacity", ctypes.c_int64),
        ("id_first", ctypes.c_int64),
        ("id_stride", ctypes.c_int64),
    ]


class Layout(ctypes.Structure):
    """pvec_layout: what a kernel needs to index one property (or the positions)."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("prop", ctypes.c_int),
        ("name", ctypes.c_char_p),
        ("dtype", ctypes.c_int),
        ("elem_size", ctypes.c_size_t),
        ("rank", ctypes.c_int),
        ("extents", ctypes.c_int64 * MAX_RANK),
        ("ncomp", ctypes.c_int64),
        ("capacity", ctypes.c_int64),
        ("stride_elems", ctypes.c_int64),
        ("stride_bytes", ctypes.c_int64),
        ("n_local", ctypes.c_int64),
        ("n_ghost", ctypes.c_int64),
        ("generation", ctypes.c_uint64),
        ("host_ptr", ctypes.c_void_p),
        ("device_ptr", ctypes.c_void_p),
    ]


class MemoryStats(ctypes.Structure):
    """pvec_memory_stats: process-wide accounting of pvec's allocations."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("host_bytes", ctypes.c_int64),
        ("pinned_bytes", ctypes.c_int64),
        ("device_bytes", ctypes.c_int64),
        ("host_allocs", ctypes.c_int64),
        ("pinned_allocs", ctypes.c_int64),
        ("device_allocs", ctypes.c_int64),
    ]


class OpStats(ctypes.Structure):
    """pvec_op_stats: figures of the last map / ghost_get / ghost_put on a vector."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("compute_seconds", ctypes.c_double),
        ("exchange_seconds", ctypes.c_double),
        ("bytes_sent", ctypes.c_int64),
        ("bytes_received", ctypes.c_int64),
        ("particles_sent", ctypes.c_int64),
        ("particles_received", ctypes.c_int64),
        ("particles_self", ctypes.c_int64),
        ("transport", ctypes.c_int64),
    ]


class CellListInfo(ctypes.Structure):
    """pvec_cell_list_info: a cell list's geometry and arrays (pvec_cell_list_get_info)."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("dim", ctypes.c_int),
        ("span", ctypes.c_int),
        ("on_device", ctypes.c_int),
        ("sorted", ctypes.c_int),
        ("cutoff", ctypes.c_double),
        ("origin", ctypes.c_double * 3),
        ("width", ctypes.c_double * 3),
        ("inv_width", ctypes.c_double * 3),
        ("dims", ctypes.c_int64 * 3),
        ("ncells", ctypes.c_int64),
        ("n_local", ctypes.c_int64),
        ("n_entries", ctypes.c_int64),
        ("cell_offsets", ctypes.POINTER(ctypes.c_int32)),
        ("cell_particles", ctypes.POINTER(ctypes.c_int32)),
        ("local_offsets", ctypes.POINTER(ctypes.c_int32)),
    ]


class VerletInfo(ctypes.Structure):
    """pvec_verlet_info: a Verlet list's CSR arrays (pvec_verlet_get_info)."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("half", ctypes.c_int),
        ("on_device", ctypes.c_int),
        ("cutoff", ctypes.c_double),
        ("skin", ctypes.c_double),
        ("n", ctypes.c_int64),
        ("n_pairs", ctypes.c_int64),
        ("offsets", ctypes.POINTER(ctypes.c_int64)),
        ("neighbors", ctypes.POINTER(ctypes.c_int32)),
    ]


class VerletOptions(ctypes.Structure):
    """pvec_verlet_options: what pvec_verlet_create_with builds."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("cutoff", ctypes.c_double),
        ("skin", ctypes.c_double),
        ("cells_per_cutoff", ctypes.c_int),
        ("flags", ctypes.c_uint),
        ("key_prop", ctypes.c_int),
        ("skip_prop", ctypes.c_int),
        ("source", ctypes.c_void_p),
    ]


# Sizes of the first layouts of the versioned structs: the smallest struct_size pvec accepts.
OPTION_INFO_SIZE_V1 = OptionInfo.value.offset + ctypes.sizeof(ctypes.c_int)
VECTOR_DESC_SIZE_V1 = VectorDesc.comm_f.offset + ctypes.sizeof(ctypes.c_int64)
SPAWNER_SIZE_V1 = Spawner.id_stride.offset + ctypes.sizeof(ctypes.c_int64)  # the whole struct
LAYOUT_SIZE_V1 = Layout.device_ptr.offset + ctypes.sizeof(ctypes.c_void_p)
MEMORY_STATS_SIZE_V1 = MemoryStats.device_allocs.offset + ctypes.sizeof(ctypes.c_int64)
OP_STATS_SIZE_V1 = OpStats.transport.offset + ctypes.sizeof(ctypes.c_int64)  # the whole struct
CELL_LIST_INFO_SIZE_V1 = CellListInfo.local_offsets.offset + ctypes.sizeof(ctypes.c_void_p)
VERLET_INFO_SIZE_V1 = VerletInfo.neighbors.offset + ctypes.sizeof(ctypes.c_void_p)
VERLET_OPTIONS_SIZE_V1 = VerletOptions.skip_prop.offset + ctypes.sizeof(ctypes.c_int)


# ---- Prototypes: every PVEC_API function of pvec.h ---------------------------------------
_c_int_p = ctypes.POINTER(ctypes.c_int)
_c_i64_p = ctypes.POINTER(ctypes.c_int64)
_c_dbl_p = ctypes.POINTER(ctypes.c_double)
_c_i32_p = ctypes.POINTER(ctypes.c_int32)
_handle = ctypes.c_void_p  # pvec_schema_t, pvec_vector_t, pvec_retention_t (opaque)
_handle_p = ctypes.POINTER(ctypes.c_void_p)
_stream = ctypes.c_void_p  # pvec_stream_t
_st = ctypes.c_int  # pvec_status

PROTOTYPES = {
    # 1. versions, status, errors
    "pvec_version_number": (ctypes.c_int, []),
    "pvec_version_string": (ctypes.c_char_p, []),
    "pvec_status_string": (ctypes.c_char_p, [ctypes.c_int]),
    "pvec_last_error": (ctypes.c_char_p, []),
    # 2. start and end
    "pvec_init": (_st, [_c_int_p, ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p))]),
    "pvec_finalize": (_st, []),
    "pvec_initialized": (_st, [_c_int_p]),
    "pvec_cuda_device_count": (_st, [_c_int_p]),
    # 2b. run-time options
    "pvec_options_get_count": (_st, [_c_int_p]),
    "pvec_options_get_info": (_st, [ctypes.c_int, ctypes.POINTER(OptionInfo)]),
    "pvec_options_get_text": (_st, [ctypes.POINTER(ctypes.c_char_p)]),
    "pvec_options_set": (_st, [ctypes.c_char_p, ctypes.c_char_p]),
    # 3. schemas
    "pvec_dtype_size": (ctypes.c_size_t, [ctypes.c_int]),
    "pvec_dtype_name": (ctypes.c_char_p, [ctypes.c_int]),
    "pvec_schema_create": (_st, [_handle_p]),
    "pvec_schema_destroy": (_st, [_handle]),
    "pvec_schema_add": (_st, [_handle, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, _c_i64_p,
                              _c_int_p]),
    "pvec_schema_add_scalar": (_st, [_handle, ctypes.c_char_p, ctypes.c_int, _c_int_p]),
    "pvec_schema_add_vector": (_st, [_handle, ctypes.c_char_p, ctypes.c_int, ctypes.c_int64,
                                     _c_int_p]),
    "pvec_schema_add_tensor": (_st, [_handle, ctypes.c_char_p, ctypes.c_int, ctypes.c_int64,
                                     ctypes.c_int64, _c_int_p]),
    "pvec_schema_get_count": (_st, [_handle, _c_int_p]),
    "pvec_schema_get_property": (_st, [_handle, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                                       _c_int_p, _c_int_p, _c_i64_p]),
    # 4. vectors
    "pvec_vector_desc_init": (_st, [ctypes.POINTER(VectorDesc)]),
    "pvec_vector_create": (_st, [ctypes.POINTER(VectorDesc), _handle, _handle_p]),
    "pvec_vector_destroy": (_st, [_handle]),
    "pvec_vector_get_size": (_st, [_handle, _c_i64_p]),
    "pvec_vector_get_ghost_size": (_st, [_handle, _c_i64_p]),
    "pvec_vector_get_capacity": (_st, [_handle, _c_i64_p]),
    "pvec_vector_get_dim": (_st, [_handle, _c_int_p]),
    "pvec_vector_get_pos_dtype": (_st, [_handle, _c_int_p]),
    "pvec_vector_get_domain": (_st, [_handle, _c_dbl_p, _c_dbl_p]),
    "pvec_vector_get_boundaries": (_st, [_handle, _c_int_p]),
    "pvec_vector_get_ghost_width": (_st, [_handle, _c_dbl_p]),
    "pvec_vector_get_prop_count": (_st, [_handle, _c_int_p]),
    "pvec_vector_get_prop_index": (_st, [_handle, ctypes.c_char_p, _c_int_p]),
    "pvec_vector_get_backend": (_st, [_handle, _c_int_p]),
    "pvec_vector_get_generation": (_st, [_handle, ctypes.POINTER(ctypes.c_uint64)]),
    "pvec_vector_get_device": (_st, [_handle, ctypes.POINTER(ctypes.c_int)]),
    "pvec_vector_reserve": (_st, [_handle, ctypes.c_int64]),
    "pvec_vector_resize": (_st, [_handle, ctypes.c_int64]),
    "pvec_vector_append": (_st, [_handle, ctypes.c_int64, _c_i64_p]),
    "pvec_vector_remove": (_st, [_handle, _c_i64_p, ctypes.c_int64]),
    "pvec_vector_shrink_to_fit": (_st, [_handle]),
    # 4b. removal by mark, particles created by kernels, ids
    "pvec_vector_remove_marked": (_st, [_handle, ctypes.c_int, _c_i32_p, ctypes.c_uint,
                                        _c_i64_p]),
    "pvec_vector_remove_marked_async": (_st, [_handle, ctypes.c_int, _c_i32_p, ctypes.c_uint,
                                              _c_i64_p]),
    "pvec_vector_spawn_begin": (_st, [_handle, ctypes.c_int64, ctypes.c_uint,
                                      ctypes.POINTER(Spawner)]),
    "pvec_vector_spawn_commit": (_st, [_handle, _c_i64_p]),
    "pvec_vector_spawn_cancel": (_st, [_handle]),
    "pvec_vector_ids_init": (_st, [_handle, ctypes.c_int, ctypes.c_uint]),
    "pvec_vector_ids_take": (_st, [_handle, ctypes.c_int64, _c_i64_p, _c_i64_p]),
    # 5. layout and raw pointers
    "pvec_vector_get_layout": (_st, [_handle, ctypes.c_int, ctypes.POINTER(Layout)]),
    "pvec_vector_get_layouts": (_st, [_handle, _c_int_p, ctypes.c_int, ctypes.POINTER(Layout), ctypes.c_int]),
    "pvec_host_ptr": (ctypes.c_void_p, [_handle, ctypes.c_int]),
    "pvec_device_ptr": (ctypes.c_void_p, [_handle, ctypes.c_int]),
    "pvec_vector_retain": (_st, [_handle, ctypes.c_int, ctypes.c_int, _handle_p]),
    "pvec_retention_release": (_st, [_handle]),
    # 6. transfers
    "pvec_vector_set_stream": (_st, [_handle, _stream]),
    "pvec_vector_get_stream": (_st, [_handle, ctypes.POINTER(_stream)]),
    "pvec_host_to_device": (_st, [_handle, _c_int_p, ctypes.c_int]),
    "pvec_device_to_host": (_st, [_handle, _c_int_p, ctypes.c_int]),
    "pvec_host_to_device_async": (_st, [_handle, _c_int_p, ctypes.c_int, _stream]),
    "pvec_device_to_host_async": (_st, [_handle, _c_int_p, ctypes.c_int, _stream]),
    "pvec_vector_synchronize": (_st, [_handle]),
    # 6b. mirror coherence
    "pvec_vector_mark_modified": (_st, [_handle, _c_int_p, ctypes.c_int, ctypes.c_uint]),
    "pvec_vector_sync": (_st, [_handle, _c_int_p, ctypes.c_int, ctypes.c_uint]),
    "pvec_vector_get_mirror_state": (_st, [_handle, ctypes.c_int,
                                           ctypes.POINTER(ctypes.c_uint)]),
    "pvec_vector_set_auto_sync": (_st, [_handle, ctypes.c_int]),
    # 7. distribution
    "pvec_vector_get_rank": (_st, [_handle, _c_int_p]),
    "pvec_vector_get_nranks": (_st, [_handle, _c_int_p]),
    "pvec_vector_get_subdomain": (_st, [_handle, _c_dbl_p, _c_dbl_p]),
    "pvec_vector_get_owner_rank": (_st, [_handle, _c_dbl_p, _c_int_p]),
    "pvec_map": (_st, [_handle, ctypes.c_uint, _c_i64_p]),
    "pvec_ghost_get": (_st, [_handle, _c_int_p, ctypes.c_int, ctypes.c_uint]),
    "pvec_ghost_put": (_st, [_handle, _c_int_p, ctypes.c_int, ctypes.c_int, ctypes.c_uint]),
    "pvec_ghost_get_begin": (_st, [_handle, _c_int_p, ctypes.c_int, ctypes.c_uint]),
    "pvec_ghost_get_end": (_st, [_handle]),
    "pvec_ghost_put_begin": (_st, [_handle, _c_int_p, ctypes.c_int, ctypes.c_int,
                                   ctypes.c_uint]),
    "pvec_ghost_put_end": (_st, [_handle]),
    "pvec_vector_reduce": (_st, [_handle, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                                 ctypes.c_void_p]),
    "pvec_vector_allreduce": (_st, [_handle, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int,
                                    ctypes.c_int]),
    # 8. diagnostics
    "pvec_memory_get_stats": (_st, [ctypes.POINTER(MemoryStats)]),
    "pvec_vector_get_op_stats": (_st, [_handle, ctypes.POINTER(OpStats)]),
    # 9. output and restart
    "pvec_has_hdf5": (_st, [_c_int_p]),
    "pvec_vtk_write": (_st, [_handle, ctypes.c_char_p, ctypes.c_int64, ctypes.c_double,
                             _c_int_p, ctypes.c_int, ctypes.c_uint]),
    "pvec_checkpoint_write": (_st, [_handle, ctypes.c_char_p, ctypes.c_int64, ctypes.c_double,
                                    _c_int_p, ctypes.c_int, ctypes.c_int,
                                    ctypes.POINTER(ctypes.c_char_p),
                                    ctypes.POINTER(ctypes.c_char_p), _c_dbl_p, _c_int_p,
                                    ctypes.c_uint]),
    "pvec_checkpoint_describe": (_st, [ctypes.c_char_p, ctypes.POINTER(VectorDesc), _handle_p,
                                       _c_i64_p, _c_dbl_p]),
    "pvec_checkpoint_get_metadata_count": (_st, [ctypes.c_char_p, _c_int_p]),
    "pvec_checkpoint_get_metadata": (_st, [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                           ctypes.c_size_t, _c_int_p,
                                           ctypes.POINTER(ctypes.c_size_t), _c_dbl_p,
                                           ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]),
    "pvec_checkpoint_restart": (_st, [ctypes.c_char_p, ctypes.POINTER(VectorDesc), _handle, ctypes.c_uint,
                           _handle_p]),
    # 11. load balance
    "pvec_vector_get_imbalance": (_st, [_handle, ctypes.c_int, ctypes.c_uint, _c_dbl_p, _c_dbl_p]),
    "pvec_vector_follow": (_st, [_handle, _handle, ctypes.c_uint]),
    "pvec_vector_rebalance": (_st, [_handle, ctypes.c_int, ctypes.c_double, ctypes.c_uint, _c_dbl_p,
                                    _c_dbl_p]),
    # 10. neighbour search (pvec_cell_list_t, pvec_verlet_t: opaque handles)
    "pvec_cell_list_create": (_st, [_handle, ctypes.c_double, ctypes.c_int, ctypes.c_uint,
                                    _handle_p]),
    "pvec_cell_list_build": (_st, [_handle]),
    "pvec_cell_list_get_info": (_st, [_handle, ctypes.POINTER(CellListInfo)]),
    "pvec_cell_list_destroy": (_st, [_handle]),
    "pvec_vector_sort": (_st, [_handle, ctypes.c_double, ctypes.c_uint, _c_int_p]),
    "pvec_verlet_create": (_st, [_handle, ctypes.c_double, ctypes.c_double, ctypes.c_int,
                                 ctypes.c_uint, _handle_p]),
    "pvec_verlet_options_init": (_st, [ctypes.POINTER(VerletOptions)]),
    "pvec_verlet_create_with": (_st, [_handle, ctypes.POINTER(VerletOptions), _handle_p]),
    "pvec_verlet_build": (_st, [_handle]),
    "pvec_verlet_get_info": (_st, [_handle, ctypes.POINTER(VerletInfo)]),
    "pvec_verlet_check": (_st, [_handle, _c_int_p]),
    "pvec_verlet_destroy": (_st, [_handle]),
}


__all__ = sorted(name for name, value in globals().items()
                 if not name.startswith("_") and not isinstance(value, types.ModuleType))
