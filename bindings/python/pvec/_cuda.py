"""The little CUDA knowledge the binding needs, without any CUDA Python package: streams given
as objects of other libraries."""


def stream_handle(stream):
    """The cudaStream_t value (an int; 0 is the legacy default stream) of stream: an int, or an
    object with ``__cuda_stream__()`` (CUDA Python protocol), ``.ptr`` (CuPy),
    ``.cuda_stream`` (PyTorch) or ``.handle`` (Numba)."""
    if stream is None:
        return 0
    if isinstance(stream, int) and not isinstance(stream, bool):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attr in ("ptr", "cuda_stream"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    if hasattr(stream, "handle"):
        handle = stream.handle
        return int(getattr(handle, "value", handle) or 0)
    raise TypeError("cannot get a CUDA stream from %r: pass an int or a CuPy/PyTorch/Numba "
                    "stream" % (stream,))
