"""OpenFPM's "GPU CUDA inter-operability with plain arrays" example, with pvec in Python.

A 2D periodic box with 100 particles carrying a float, a float[2] and a float[2][2]; print
where the components live (each property is its own buffer, component rows are `capacity`
elements apart), copy the properties to the device and read particle 50 there, with the
seed's CUDA kernel through CuPy when a GPU is present, else through the host backend's
device mirror with NumPy.
"""

import numpy as np

import pvec

pvec.init()

# The domain [0,1)^2, periodic in both directions, ghost width 0.05; 100 particles.
vd = pvec.Vector(dim=2, domain=(0.0, 1.0), periodic=[True, True], ghost=0.05, n=100,
                 pos_dtype=np.float32,
                 schema=[("scalar", np.float32),          # property 0: float
                         ("vector", np.float32, 2),       # property 1: float[2]
                         ("tensor", np.float32, (2, 2))])  # property 2: float[2][2]

# Views are NumPy arrays on pvec's memory (no copy): particle index last.
rng = np.random.default_rng(42)
pos = vd.pos.numpy()                         # shape (2, 100)
pos[:] = rng.random(pos.shape, dtype=np.float32)
x, y = pos
vd["scalar"] = x + y                         # shape (100,)
vd["vector"] = [x, y]                        # shape (2, 100)
vd["tensor"] = [[x, y], [x + y, y - x]]      # shape (2, 2, 100)

vd.map()  # send particles to their owner ranks; views taken before are now stale

s, v, t = vd["scalar"], vd["vector"], vd["tensor"]


def address(view, particle, *component):
    """Address of one element: base + component offsets + particle * element size."""
    return view.ptr + sum(c * st for c, st in zip(component, view.strides)) + \
        particle * view.strides[-1]


print("First particle property 0, address: %#x" % address(s, 0))
print("First particle property 1, address: %#x" % address(v, 0, 0))
print("First particle property 2, address: %#x" % address(t, 0, 0, 0))
print("Capacity internal vector: %d" % vd.capacity)
for p in (0, 1):
    which = "First" if p == 0 else "Second"
    print("%s particle property 1 component 0, address: %#x" % (which, address(v, p, 0)))
    print("%s particle property 1 component 1, address: %#x" % (which, address(v, p, 1)))
    for a in (0, 1):
        for b in (0, 1):
            print("%s particle property 2 component %d%d, address: %#x" % (
                which, a, b, address(t, p, a, b)))

# The layout law: component rows are capacity * 4 bytes apart, particles 4 bytes apart.
cap = vd.capacity
assert cap % 64 == 0 and cap >= vd.size
assert address(v, 0, 1) - address(v, 0, 0) == 4 * cap
assert address(t, 0, 1, 0) - address(t, 0, 0, 0) == 2 * 4 * cap
assert address(v, 1, 0) - address(v, 0, 0) == 4
print()

# Offload the three properties and read particle 50 on the device mirror.
vd.host_to_device(["scalar", "vector", "tensor"])
if vd.backend == "cuda":
    import cupy as cp

    print_data_particle_50 = cp.RawKernel(r"""
    extern "C" __global__ void print_data_particle_50(float* scalar, float* vector,
                                                      float* tensor, int capacity) {
      int p = threadIdx.x + blockIdx.x * blockDim.x;
      if (p == 50) {
        printf("Scalar particle %d = %f\n", p, scalar[p]);
        printf("Vector particle %d = %f\n", p, vector[p]);
        printf("Vector particle %d = %f\n", p, vector[p + capacity]);
        printf("Tensor particle %d = %f\n", p, tensor[p + (0 * 2 + 0) * capacity]);
        printf("Tensor particle %d = %f\n", p, tensor[p + (0 * 2 + 1) * capacity]);
        printf("Tensor particle %d = %f\n", p, tensor[p + (1 * 2 + 0) * capacity]);
        printf("Tensor particle %d = %f\n", p, tensor[p + (1 * 2 + 1) * capacity]);
      }
    }""", "print_data_particle_50")
    # cupy.asarray takes the views through __cuda_array_interface__, without a copy.
    ds, dv, dt = (cp.asarray(vd.device(name)) for name in ("scalar", "vector", "tensor"))
    print_data_particle_50((1,), (100,), (ds, dv, dt, np.int32(cap)))
    cp.cuda.runtime.deviceSynchronize()
    on_device = [float(ds[50]), *cp.asnumpy(dv[:, 50]), *cp.asnumpy(dt[:, :, 50]).ravel()]
else:
    # Host backend: the device mirror is a second host buffer with the same layout.
    ds, dv, dt = (vd.device(name).numpy() for name in ("scalar", "vector", "tensor"))
    print("Scalar particle 50 = %f" % ds[50])
    print("Vector particle 50 = %f\nVector particle 50 = %f" % tuple(dv[:, 50]))
    print("Tensor particle 50 = %f\nTensor particle 50 = %f\n"
          "Tensor particle 50 = %f\nTensor particle 50 = %f" % tuple(dt[:, :, 50].ravel()))
    on_device = [float(ds[50]), *dv[:, 50], *dt[:, :, 50].ravel()]

on_host = [float(s[50]), *v[:, 50], *t[:, :, 50].ravel()]
assert np.allclose(on_device, on_host), (on_device, on_host)

vd.destroy()
pvec.finalize()
