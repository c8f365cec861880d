"""Render docs/images/io_particles.png: particles written by pvec_vtk_write, read back as
ParaView reads them (the .pvtp index of the pieces), colored by a property, with VTK offscreen.

    PYTHONPATH=bindings/python PVEC_LIBRARY=<build>/src/libpvec.so \
        xvfb-run -a /usr/bin/python3 scripts/render_io_picture.py [--out FILE.png]

Needs NumPy and python3-vtk9. Debian's VTK renders offscreen through an X server only, hence
xvfb-run (apt-get install xvfb); a VTK built with EGL or OSMesa needs none.
The particles: 20000 in the unit cube, in a shell around the centre plus a uniform haze, rho = distance from the centre; written as step 0 into a temporary folder.
"""

import argparse
import os
import tempfile

import numpy as np

import pvec


def write_particles(prefix, n=20000):
    rng = np.random.default_rng(7)
    with pvec.Vector(dim=3, domain=(0.0, 1.0), n=n, pos_dtype=np.float32, backend="host",
                     schema=[("rho", np.float32), ("vel", np.float32, 3)]) as vec:
        pos = vec.pos.numpy()  # shape (3, n)
        m = pos.shape[1]
        shell = m * 3 // 4
        d = rng.normal(size=(3, shell))
        d /= np.linalg.norm(d, axis=0)
        r = 0.35 + 0.03 * rng.normal(size=shell)
        pos[:, :shell] = np.clip(0.5 + r * d, 0.0, 0.999)
        pos[:, shell:] = rng.random((3, m - shell), dtype=np.float32)
        rho = np.linalg.norm(pos - 0.5, axis=0)
        vec["rho"] = rho
        vec["vel"] = pos - 0.5
        vec.write_vtk(prefix, step=0, time=0.0)
    return prefix + "_000000.pvtp"


def render(pvtp, out, prop="rho"):
    import vtk

    reader = vtk.vtkXMLPPolyDataReader()
    reader.SetFileName(pvtp)
    reader.Update()
    data = reader.GetOutput()
    if data.GetNumberOfPoints() == 0:
        raise SystemExit("no points read from " + pvtp)
    data.GetPointData().SetActiveScalars(prop)
    lo, hi = data.GetPointData().GetArray(prop).GetRange()

    lut = vtk.vtkLookupTable()
    lut.SetHueRange(0.667, 0.0)  # blue to red, like ParaView's rainbow
    lut.SetTableRange(lo, hi)
    lut.Build()

    mapper = vtk.vtkPolyDataMapper()
    mapper.SetInputData(data)
    mapper.SetScalarModeToUsePointData()
    mapper.SetLookupTable(lut)
    mapper.SetScalarRange(lo, hi)
    actor = vtk.vtkActor()
    actor.SetMapper(mapper)
    actor.GetProperty().SetPointSize(3)

    outline = vtk.vtkOutlineFilter()
    outline.SetInputData(data)
    omapper = vtk.vtkPolyDataMapper()
    omapper.SetInputConnection(outline.GetOutputPort())
    oactor = vtk.vtkActor()
    oactor.SetMapper(omapper)
    oactor.GetProperty().SetColor(0.2, 0.2, 0.2)

    bar = vtk.vtkScalarBarActor()
    bar.SetLookupTable(lut)
    bar.SetTitle(prop)
    bar.SetNumberOfLabels(4)
    bar.GetTitleTextProperty().SetColor(0.1, 0.1, 0.1)
    bar.GetLabelTextProperty().SetColor(0.1, 0.1, 0.1)
    bar.SetWidth(0.1)
    bar.SetHeight(0.5)

    ren = vtk.vtkRenderer()
    ren.SetBackground(1.0, 1.0, 1.0)
    ren.AddActor(actor)
    ren.AddActor(oactor)
    ren.AddActor2D(bar)
    cam = ren.GetActiveCamera()
    cam.SetPosition(2.4, 1.6, 2.0)
    cam.SetFocalPoint(0.5, 0.5, 0.5)
    cam.SetViewUp(0, 0, 1)
    ren.ResetCamera()
    cam.Zoom(1.2)

    win = vtk.vtkRenderWindow()
    win.SetOffScreenRendering(1)
    win.AddRenderer(ren)
    win.SetSize(640, 480)
    win.Render()

    grab = vtk.vtkWindowToImageFilter()
    grab.SetInput(win)
    grab.Update()
    png = vtk.vtkPNGWriter()
    png.SetFileName(out)
    png.SetInputConnection(grab.GetOutputPort())
    png.Write()
    return data.GetNumberOfPoints()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/images/io_particles.png")
    args = ap.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pvec_picture.") as tmp:
        pvtp = write_particles(os.path.join(tmp, "particles"))
        n = render(pvtp, args.out)
    print(f"{args.out}: {n} particles, {os.path.getsize(args.out)} bytes")


if __name__ == "__main__":
    main()
