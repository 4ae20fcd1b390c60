"""Writes the cases of this folder: the operators added after the TVM test-suite survey
(index_put, slice_scatter, image.resize3d, nn.conv3d_transpose, image.grid_sample,
image.affine_grid, bucketize, multinomial_from_uniform, meshgrid), each a module in the
conformance corpus format (`../conformance/README.md`) whose expected results come from the
plain numpy reference implementations below, written from the operators' definitions (TOPI's
formulas, PyTorch's documented semantics) rather than from our kernels. `module.py` is the
module as TVM 0.27 prints it. Run with numpy installed: `python3 tests/new_ops/generate.py`.
The tests never need Python."""

import itertools
import json
import math
import pathlib
import zlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
F32 = np.float32


def value(a):
    if isinstance(a, tuple):
        return {"tuple": [value(x) for x in a]}
    a = np.asarray(a)
    if a.dtype.kind == "f":
        data = [
            float(x) if np.isfinite(x) else ("nan" if np.isnan(x) else ("inf" if x > 0 else "-inf"))
            for x in a.ravel().astype(np.float64)
        ]
    else:
        data = [int(x) for x in a.ravel()]
    return {"tensor": {"dtype": str(a.dtype), "shape": list(a.shape), "data": data}}


def ty(a):
    if isinstance(a, tuple):
        return "R.Tuple(" + ", ".join(ty(x) for x in a) + ")"
    shape = ", ".join(str(d) for d in a.shape)
    if len(a.shape) == 1:
        shape += ","
    return f'R.Tensor(({shape}), dtype="{a.dtype}")'


def module(params, call, out, out_ty=None):
    sig = ", ".join(f"{n}: {ty(a)}" for n, a in params)
    out_ty = out_ty or ty(out)
    return (
        "# from tvm.script import ir as I\n"
        "# from tvm.script import relax as R\n"
        "\n"
        "@I.ir_module\n"
        "class Module:\n"
        "    @R.function\n"
        f"    def main({sig}) -> {out_ty}:\n"
        "        with R.dataflow():\n"
        f"            gv: {out_ty} = {call}\n"
        "            R.output(gv)\n"
        "        return gv\n"
    )


def write(
    name, tag, description, params, call, out, rtol=1e-5, atol=1e-6, out_ty=None, text=None
):
    """One case; `text` is the whole module when it is more than `gv = call`."""
    folder = HERE / name
    folder.mkdir(exist_ok=True)
    (folder / "module.py").write_text(text or module(params, call, out, out_ty))
    case = {
        "name": name,
        "description": description,
        "tags": [tag],
        "rtol": rtol,
        "atol": atol,
        "calls": [
            {
                "function": "main",
                "inputs": [value(a) for _, a in params],
                "expected": value(out),
            }
        ],
    }
    (folder / "case.json").write_text(json.dumps(case, indent=1) + "\n")


def rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def floats(r, shape, lo=-2.0, hi=2.0):
    return r.uniform(lo, hi, size=shape).astype(F32)


# ---- index_put --------------------------------------------------------------------------------


def index_put(data, indices, values, accumulate):
    """Sequential updates over the broadcast index positions (later ones win, or all add)."""
    out = data.copy()
    b = np.broadcast_shapes(*[i.shape for i in indices])
    idx = [np.broadcast_to(i, b) for i in indices]
    if values.size == math.prod(b) and values.shape != b:
        vals = values.reshape(b)
    else:
        vals = np.broadcast_to(values, b)
    for p in itertools.product(*[range(n) for n in b]):
        at = tuple(int(i[p]) + (data.shape[d] if int(i[p]) < 0 else 0) for d, i in enumerate(idx))
        if accumulate:
            out[at] += vals[p]
        else:
            out[at] = vals[p]
    return out


def index_put_cases():
    name = "index_put_1d_negative"
    r = rng(name)
    data = floats(r, (8,))
    i0 = np.array([1, -2, 4], dtype=np.int64)
    v = floats(r, (3,))
    write(
        name,
        "index_put",
        "1-D put; a negative index counts from the end",
        [("data", data), ("i0", i0), ("values", v)],
        "R.index_put(data, (i0,), values, accumulate=False)",
        index_put(data, [i0], v, False),
    )

    name = "index_put_2d_accumulate_duplicates"
    r = rng(name)
    data = floats(r, (3, 4))
    i0 = np.array([0, 2, 0, 1, 0], dtype=np.int64)
    i1 = np.array([1, 1, 1, 3, 1], dtype=np.int64)
    v = floats(r, (5,))
    write(
        name,
        "index_put",
        "accumulate: a repeated position receives every value",
        [("data", data), ("i0", i0), ("i1", i1), ("values", v)],
        "R.index_put(data, (i0, i1), values, accumulate=True)",
        index_put(data, [i0, i1], v, True),
    )

    name = "index_put_2d_last_wins"
    r = rng(name)
    data = floats(r, (3, 4))
    i0 = np.array([2, 2, 0], dtype=np.int32)
    i1 = np.array([3, 3, 0], dtype=np.int32)
    v = floats(r, (3,))
    write(
        name,
        "index_put",
        "int32 indices; a repeated position keeps the last value",
        [("data", data), ("i0", i0), ("i1", i1), ("values", v)],
        "R.index_put(data, (i0, i1), values, accumulate=False)",
        index_put(data, [i0, i1], v, False),
    )

    name = "index_put_batched_broadcast"
    r = rng(name)
    data = np.zeros((2, 5, 5), dtype=F32)
    i0 = np.arange(2, dtype=np.int64).reshape(2, 1)
    i1 = np.arange(4, dtype=np.int64)
    i2 = i1 + 1
    v = floats(r, (2, 4))
    write(
        name,
        "index_put",
        "M[:, rows, rows + 1] = x as TVM's PyTorch frontend writes it: index shapes (2, 1), "
        "(4,), (4,) broadcast to (2, 4)",
        [("data", data), ("i0", i0), ("i1", i1), ("i2", i2), ("values", v)],
        "R.index_put(data, (i0, i1, i2), values, accumulate=False)",
        index_put(data, [i0, i1, i2], v, False),
    )

    name = "index_put_values_broadcast"
    r = rng(name)
    data = r.integers(-5, 5, size=(4, 3)).astype(np.int32)
    i0 = np.array([3, 0, 1], dtype=np.int64)
    i1 = np.array([2, 2, 0], dtype=np.int64)
    v = np.array([7], dtype=np.int32)
    write(
        name,
        "index_put",
        "one value for every position (broadcast, PyTorch's rule; TVM reads past it)",
        [("data", data), ("i0", i0), ("i1", i1), ("values", v)],
        "R.index_put(data, (i0, i1), values, accumulate=True)",
        index_put(data, [i0, i1], v, True),
        rtol=0,
        atol=0,
    )

    name = "index_put_values_flat"
    r = rng(name)
    data = floats(r, (3, 3))
    i0 = np.array([[0], [2]], dtype=np.int64)
    i1 = np.array([0, 1, 2], dtype=np.int64)
    v = floats(r, (6,))
    write(
        name,
        "index_put",
        "values with as many elements as the broadcast indices, read in order (TVM's values[k])",
        [("data", data), ("i0", i0), ("i1", i1), ("values", v)],
        "R.index_put(data, (i0, i1), values, accumulate=False)",
        index_put(data, [i0, i1], v, False),
    )

    name = "index_put_single_tensor"
    r = rng(name)
    data = floats(r, (6,))
    i0 = np.array([5, 0], dtype=np.int64)
    v = floats(r, (2,))
    write(
        name,
        "index_put",
        "indices given as one tensor rather than a tuple",
        [("data", data), ("i0", i0), ("values", v)],
        "R.index_put(data, i0, values, accumulate=False)",
        index_put(data, [i0], v, False),
    )


# ---- slice_scatter ----------------------------------------------------------------------------


def slice_scatter(data, src, start, end, step, axis):
    out = data.copy()
    n = data.shape[axis]
    for k, i in enumerate(range(start, min(end, n), step)):
        sl = [slice(None)] * data.ndim
        sl[axis] = i
        ss = [slice(None)] * data.ndim
        ss[axis] = k
        out[tuple(sl)] = src[tuple(ss)]
    return out


def slice_scatter_cases():
    for name, shape, src_shape, start, end, step, axis, desc in [
        ("slice_scatter_step2", (2, 8, 3, 2), (2, 3, 3, 2), 1, 7, 2, 1, "every other row of axis 1"),
        ("slice_scatter_axis0", (8, 4), (6, 4), 0, 6, 1, 0, "the first rows"),
        ("slice_scatter_negative_axis", (2, 5), (2, 3), 0, 3, 1, -1, "axis -1"),
        ("slice_scatter_whole_axis", (3, 4), (3, 4), 0, 4, 1, 1, "the whole axis: src itself"),
        ("slice_scatter_end_past_axis", (5,), (3,), 2, 9, 3, 0, "an end past the axis selects to its end"),
    ]:
        r = rng(name)
        data = floats(r, shape)
        src = floats(r, src_shape)
        write(
            name,
            "slice_scatter",
            desc,
            [("data", data), ("src", src)],
            f"R.slice_scatter(data, src, {start}, {end}, {step}, axis={axis})",
            slice_scatter(data, src, start, end, step, axis % len(shape)),
            rtol=0,
            atol=0,
        )


# ---- resize3d ---------------------------------------------------------------------------------


def source(o, image, target, mode, start, end):
    """TOPI's get_inx in float32."""
    o = F32(o)
    scale = F32(image) / F32(target)
    if mode == "half_pixel":
        return (o + F32(0.5)) * scale - F32(0.5)
    if mode == "align_corners":
        return F32(image - 1) / F32(target - 1) * o
    if mode == "asymmetric":
        return scale * o
    if mode == "pytorch_half_pixel":
        return (o + F32(0.5)) * scale - F32(0.5) if target > 1 else F32(0.0)
    if mode == "tf_half_pixel_for_nn":
        return (o + F32(0.5)) * scale
    if mode == "tf_crop_and_resize":
        if target > 1:
            return F32(start) * F32(image - 1) + o * (F32(end) - F32(start)) * F32(image - 1) / F32(
                target - 1
            )
        return F32(0.5) * (F32(start) + F32(end)) * F32(image - 1)
    raise ValueError(mode)


def nearest(x, rounding):
    if rounding == "round":
        return int(np.rint(x))
    if rounding == "round_prefer_floor":
        return int(np.ceil(x - F32(0.5)))
    if rounding == "round_prefer_ceil":
        return int(np.floor(x + F32(0.5)))
    if rounding == "floor":
        return int(np.floor(x + F32(1e-5)))
    if rounding == "ceil":
        return int(np.ceil(x - F32(1e-5)))
    raise ValueError(rounding)


def cubic_weights(t, a):
    t = F32(t)
    a = F32(a)
    t2 = t * t
    t3 = t2 * t
    return [
        a * (t3 - F32(2) * t2 + t),
        (a + F32(2)) * t3 - (a + F32(3)) * t2 + F32(1),
        -(a + F32(2)) * t3 + (F32(2) * a + F32(3)) * t2 - a * t,
        -a * t3 + a * t2,
    ]


def resize3d(x, size, layout, method, mode, rounding, alpha, exclude, ev, roi):
    """TOPI's _resize_3d with each axis tested and weighted by its own coordinate."""
    if rounding == "":
        rounding = "round" if mode == "align_corners" else "floor"
    if layout == "NCDHW":
        xs = x
    else:
        xs = np.transpose(x, (0, 4, 1, 2, 3))
    n, c, d, h, w = xs.shape
    dims = [d, h, w]
    windows = [(roi[2], roi[5]), (roi[1], roi[4]), (roi[0], roi[3])]
    out = np.zeros((n, c, *size), dtype=F32)
    for b, ch, *o in itertools.product(range(n), range(c), *[range(s) for s in size]):
        src = [source(o[a], dims[a], size[a], mode, *windows[a]) for a in range(3)]

        def pix(at):
            at = [min(max(at[a], 0), dims[a] - 1) for a in range(3)]
            return F32(xs[b, ch, at[0], at[1], at[2]])

        if method == "nearest_neighbor":
            v = pix([nearest(s, rounding) for s in src])
        else:
            taps = []
            for a in range(3):
                base = int(np.floor(src[a]))
                if method == "linear":
                    t = F32(src[a] - F32(base))
                    taps.append((base, [(0, F32(1) - t), (1, t)]))
                else:
                    wts = cubic_weights(src[a] - np.floor(src[a]), alpha)
                    if exclude:
                        wts = [
                            F32(0) if (base + k - 1 < 0 or base + k > dims[a]) else wt
                            for k, wt in enumerate(wts)
                        ]
                        total = sum(wts)
                        wts = [wt / total for wt in wts]
                    taps.append((base, list(zip(range(-1, 3), wts))))
            v = F32(0)
            for combo in itertools.product(*[t[1] for t in taps]):
                wgt = F32(1)
                for (_, wt) in combo:
                    wgt = wgt * wt
                at = [taps[a][0] + combo[a][0] for a in range(3)]
                v = v + pix(at) * wgt
        if mode == "tf_crop_and_resize":
            if any(s < 0 or s > dims[a] - 1 for a, s in enumerate(src)):
                v = F32(ev)
        out[(b, ch, *o)] = v
    if layout != "NCDHW":
        out = np.transpose(out, (0, 2, 3, 4, 1))
    return out.astype(x.dtype)


def f32_list(v):
    return "[" + ", ".join(f"T.float32({float(x)!r})" for x in v) + "]"


def resize3d_cases():
    for name, shape, size, layout, method, mode, rounding, alpha, exclude, ev, roi in [
        ("resize3d_linear_half_pixel", (1, 2, 3, 4, 5), (5, 3, 7), "NCDHW", "linear", "half_pixel", "", -0.75, 0, 0.0, [0.0] * 6),
        ("resize3d_nearest_asymmetric", (1, 1, 2, 3, 4), (4, 6, 8), "NCDHW", "nearest_neighbor", "asymmetric", "", -0.75, 0, 0.0, [0.0] * 6),
        ("resize3d_nearest_round_align", (1, 2, 3, 3, 3), (5, 4, 2), "NCDHW", "nearest_neighbor", "align_corners", "round", -0.75, 0, 0.0, [0.0] * 6),
        ("resize3d_cubic_align_corners", (1, 1, 4, 4, 4), (3, 5, 6), "NCDHW", "cubic", "align_corners", "", -0.75, 0, 0.0, [0.0] * 6),
        ("resize3d_cubic_exclude", (1, 1, 3, 4, 5), (4, 4, 4), "NCDHW", "cubic", "half_pixel", "", -0.5, 1, 0.0, [0.0] * 6),
        ("resize3d_linear_ndhwc", (2, 3, 2, 4, 3), (4, 3, 5), "NDHWC", "linear", "pytorch_half_pixel", "", -0.75, 0, 0.0, [0.0] * 6),
        ("resize3d_tf_crop_and_resize", (1, 1, 3, 4, 4), (3, 4, 5), "NCDHW", "linear", "tf_crop_and_resize", "", -0.75, 0, -1.0, [0.125, -0.25, 0.0, 0.875, 1.25, 1.375]),
    ]:
        r = rng(name)
        x = floats(r, shape)
        out = resize3d(x, size, layout, method, mode, rounding, alpha, exclude, ev, roi)
        call = (
            f"R.image.resize3d(x, R.shape([{size[0]}, {size[1]}, {size[2]}]), roi={f32_list(roi)}, "
            f'layout="{layout}", method="{method}", coordinate_transformation_mode="{mode}", '
            f'rounding_method="{rounding}", cubic_alpha={alpha!r}, cubic_exclude={exclude}, '
            f"extrapolation_value={ev!r}, out_dtype=None)"
        )
        write(name, "resize3d", f"{method}, {mode}, {layout}", [("x", x)], call, out, 1e-5, 1e-5)


# ---- conv3d_transpose -------------------------------------------------------------------------


def conv3d_transpose(x, w, strides, padding, output_padding, dilation, groups):
    n, cin, *ins = x.shape
    _, cout_g, *ks = w.shape
    cin_g = cin // groups
    outs = [
        (ins[a] - 1) * strides[a] - padding[a] - padding[a + 3] + dilation[a] * (ks[a] - 1)
        + output_padding[a] + 1
        for a in range(3)
    ]
    out = np.zeros((n, cout_g * groups, *outs), dtype=np.float64)
    for b, ci, *p in itertools.product(range(n), range(cin), *[range(s) for s in ins]):
        g = ci // cin_g
        for co, *k in itertools.product(range(cout_g), *[range(s) for s in ks]):
            o = [p[a] * strides[a] - padding[a] + k[a] * dilation[a] for a in range(3)]
            if all(0 <= o[a] < outs[a] for a in range(3)):
                out[(b, g * cout_g + co, *o)] += float(x[(b, ci, *p)]) * float(w[(ci, co, *k)])
    return out.astype(F32)


def conv3d_transpose_cases():
    for name, xs, ws, strides, padding, opad, dil, groups, desc in [
        ("conv3d_transpose_basic", (1, 2, 3, 3, 3), (2, 3, 2, 2, 2), [1, 1, 1], [0] * 6, [0, 0, 0], [1, 1, 1], 1, "unit strides"),
        ("conv3d_transpose_strided_padded", (1, 2, 2, 3, 2), (2, 2, 3, 2, 3), [2, 1, 2], [1, 0, 1, 0, 1, 1], [1, 0, 0], [1, 1, 1], 1, "strides, padding and output padding"),
        ("conv3d_transpose_groups_dilation", (2, 4, 2, 2, 2), (4, 1, 2, 2, 2), [1, 2, 1], [0, 1, 0, 0, 1, 0], [0, 1, 0], [2, 1, 1], 2, "groups and dilation"),
    ]:
        r = rng(name)
        x = floats(r, xs)
        w = floats(r, ws)
        out = conv3d_transpose(x, w, strides, padding, opad, dil, groups)
        call = (
            f"R.nn.conv3d_transpose(x, w, strides={strides}, padding={padding}, "
            f"output_padding={opad}, dilation={dil}, groups={groups}, data_layout=\"NCDHW\", "
            f'kernel_layout="IODHW", out_layout="NCDHW", out_dtype=None)'
        )
        write(name, "conv3d_transpose", desc, [("x", x), ("w", w)], call, out, 1e-5, 1e-5)


# ---- grid_sample / affine_grid ----------------------------------------------------------------


def unnormalize(g, size, corners):
    g = F32(g)
    if corners:
        return (g + F32(1)) * F32(size - 1) / F32(2)
    return F32(-0.5) + (g + F32(1)) * F32(size) / F32(2)


def reflect(v, size, corners):
    size, start = (F32(size - 1), F32(0)) if corners else (F32(size), F32(-0.5))
    if start <= v <= size + start:
        return F32(v)
    dist = abs(start - v)
    times = int(np.trunc(np.trunc(dist) / size))
    extra = F32(dist - F32(times) * size)
    return F32(size - extra + start) if times % 2 else F32(extra + start)


def clip(v, size):
    return min(max(v, F32(0)), F32(size - 1))


def grid_sample(x, grid, method, padding, corners):
    n, c, *sizes = x.shape
    k = len(sizes)
    outs = grid.shape[2:]
    out = np.zeros((n, c, *outs), dtype=F32)

    def pixel(b, ch, at):
        if all(0 <= at[a] < sizes[a] for a in range(k)):
            return F32(x[(b, ch, *at)])
        return F32(0)

    for b, ch, *p in itertools.product(range(n), range(c), *[range(s) for s in outs]):
        coords = [unnormalize(grid[(b, k - 1 - a, *p)], sizes[a], corners) for a in range(k)]
        padded = []
        for a, v in enumerate(coords):
            if padding == "reflection":
                v = clip(reflect(v, sizes[a], corners), sizes[a])
            elif padding == "border":
                v = clip(v, sizes[a])
            padded.append(v)
        if method == "nearest":
            v = pixel(b, ch, [int(np.rint(v)) for v in padded])
        elif method == "bilinear":
            base = [int(np.floor(v)) for v in padded]
            frac = [F32(padded[a] - F32(base[a])) for a in range(k)]
            v = F32(0)
            for offs in itertools.product(*[[0, 1]] * k):
                wgt = F32(1)
                for a in range(k):
                    wgt = wgt * (frac[a] if offs[a] else F32(1) - frac[a])
                v = v + pixel(b, ch, [base[a] + offs[a] for a in range(k)]) * wgt
        else:
            A = F32(-0.75)

            def w1(t):
                return ((A + F32(2)) * t - (A + F32(3))) * t * t + F32(1)

            def w2(t):
                return ((A * t - F32(5) * A) * t + F32(8) * A) * t - F32(4) * A

            def interp(ps, t):
                ws = [w2(t + F32(1)), w1(t), w1(F32(1) - t), w2(F32(2) - t)]
                return sum(pv * wv for pv, wv in zip(ps, ws))

            y, xx = coords
            y0, x0 = int(np.floor(y)), int(np.floor(xx))
            ty_, tx_ = F32(y - F32(y0)), F32(xx - F32(x0))

            def tap(base, o, size):
                v = base + o
                if padding == "zeros":
                    return v
                f = F32(v)
                if padding == "reflection":
                    f = reflect(f, size, corners)
                return int(clip(f, size))

            rows = []
            for j in range(4):
                yy = tap(y0, j - 1, sizes[0])
                rows.append(
                    interp([pixel(b, ch, [yy, tap(x0, o, sizes[1])]) for o in (-1, 0, 1, 2)], tx_)
                )
            v = interp(rows, ty_)
        out[(b, ch, *p)] = v
    return out


def affine_grid(theta, size, corners):
    k = len(size)
    n = theta.shape[0]
    out = np.zeros((n, k, *size), dtype=F32)
    if corners:
        starts = [F32(-1.0)] * k
        steps = [F32((2.0 - 1e-7) / (s - 1)) for s in size]
    else:
        starts = [F32(-1.0 + 1.0 / s) for s in size]
        steps = [F32(2.0 / s) for s in size]
    for b, d, *p in itertools.product(range(n), range(k), *[range(s) for s in size]):
        v = theta[b, d, k]
        for r in range(k):
            v = v + theta[b, d, k - 1 - r] * (starts[r] + F32(p[r]) * steps[r])
        out[(b, d, *p)] = v
    return out


def image_grid_cases():
    for name, xs, gs, method, padding, corners in [
        ("grid_sample_bilinear_zeros", (1, 2, 3, 4), (1, 2, 3, 5), "bilinear", "zeros", False),
        ("grid_sample_bilinear_border_corners", (2, 1, 4, 3), (2, 2, 2, 3), "bilinear", "border", True),
        ("grid_sample_nearest_reflection", (1, 2, 3, 3), (1, 2, 4, 4), "nearest", "reflection", False),
        ("grid_sample_bicubic_zeros", (1, 1, 4, 4), (1, 2, 3, 3), "bicubic", "zeros", False),
        ("grid_sample_bicubic_reflection_corners", (1, 1, 3, 4), (1, 2, 2, 3), "bicubic", "reflection", True),
        ("grid_sample_3d_trilinear", (1, 2, 3, 3, 4), (1, 3, 2, 2, 3), "bilinear", "zeros", False),
        ("grid_sample_3d_nearest_border", (1, 1, 2, 3, 3), (1, 3, 2, 3, 2), "nearest", "border", True),
    ]:
        r = rng(name)
        x = floats(r, xs)
        grid = floats(r, gs, -1.4, 1.4)
        layout = "NCHW" if len(xs) == 4 else "NCDHW"
        out = grid_sample(x, grid, method, padding, corners)
        call = (
            f'R.image.grid_sample(x, grid, method="{method}", layout="{layout}", '
            f'padding_mode="{padding}", align_corners={corners})'
        )
        write(name, "grid_sample", f"{method}, {padding}, align_corners={corners}", [("x", x), ("grid", grid)], call, out, 1e-5, 1e-5)

    for name, n, size, corners in [
        ("affine_grid_2d_centers", 2, (3, 4), False),
        ("affine_grid_2d_corners", 1, (4, 3), True),
        ("affine_grid_3d_centers", 1, (2, 3, 4), False),
    ]:
        r = rng(name)
        k = len(size)
        theta = floats(r, (n, k, k + 1))
        out = affine_grid(theta, size, corners)
        dims = ", ".join(str(s) for s in size)
        call = f"R.image.affine_grid(theta, R.shape([{dims}]), align_corners={corners})"
        write(name, "affine_grid", f"{k}-D, align_corners={corners}", [("theta", theta)], call, out, 1e-5, 1e-5)


# ---- bucketize, multinomial_from_uniform, meshgrid --------------------------------------------


def search_cases():
    name = "bucketize_left"
    r = rng(name)
    b = np.array([-1.0, 0.0, 0.5, 2.0], dtype=F32)
    x = np.array([[-2.0, -1.0, 0.25], [0.5, 2.0, 3.0]], dtype=F32)
    write(
        name,
        "bucketize",
        "values on a boundary go before it",
        [("x", x), ("b", b)],
        "R.bucketize(x, b, out_int32=False, right=False)",
        np.searchsorted(b, x, side="left").astype(np.int64),
        0,
        0,
    )
    name = "bucketize_right_int32"
    x = np.array([-5, 0, 1, 3, 3, 9, 10], dtype=np.int64)
    b = np.array([0, 3, 9], dtype=np.int64)
    write(
        name,
        "bucketize",
        "right: values on a boundary go after it; int32 result",
        [("x", x), ("b", b)],
        "R.bucketize(x, b, out_int32=True, right=True)",
        np.searchsorted(b, x, side="right").astype(np.int32),
        0,
        0,
    )

    name = "multinomial_from_uniform"
    r = rng(name)
    prob = r.uniform(0.0, 1.0, size=(3, 5)).astype(F32)
    prob[1, 2] = 0.0
    prob = (prob / prob.sum(axis=1, keepdims=True)).astype(F32)
    u = np.array([[0.0], [0.3], [0.999], [0.55], [1.0]], dtype=F32)
    rows = np.array([[0], [1], [2], [1], [0]], dtype=np.int64)
    cum = np.cumsum(prob, axis=1, dtype=F32)
    idx = []
    for i in range(u.shape[0]):
        c = cum[rows[i, 0]]
        j = next((j for j in range(prob.shape[1]) if u[i, 0] < c[j]), prob.shape[1] - 1)
        idx.append([j])
    write(
        name,
        "multinomial_from_uniform",
        "the first column whose cumulative probability exceeds the sample; the last when none does",
        [("prob", prob), ("u", u), ("rows", rows)],
        'R.multinomial_from_uniform(prob, u, rows, dtype="int64")',
        np.array(idx, dtype=np.int64),
        0,
        0,
    )

    for name, indexing in [("meshgrid_ij", "ij"), ("meshgrid_xy", "xy")]:
        r = rng(name)
        a = floats(r, (2,))
        b = floats(r, (3,))
        c = floats(r, (4,))
        out = tuple(g.astype(F32) for g in np.meshgrid(a, b, c, indexing=indexing))
        write(
            name,
            "meshgrid",
            f"three vectors of different lengths, indexing={indexing}",
            [("a", a), ("b", b), ("c", c)],
            f'R.meshgrid((a, b, c), indexing="{indexing}")',
            out,
            0,
            0,
        )


# ---- nonzero ----------------------------------------------------------------------------------


def nonzero_cases():
    any2 = 'R.Tensor(dtype="int64", ndim=2)'
    x = np.array([[0.0, 1.5, -0.0, np.nan], [0.0, 0.0, -2.0, 0.0], [3.0, 0.0, 0.0, 0.25]], dtype=F32)
    write(
        "nonzero_2d",
        "nonzero",
        "positions of the non-zero elements, row-major; NaN counts, -0.0 does not",
        [("x", x)],
        "R.nonzero(x)",
        np.stack(np.nonzero(x)).astype(np.int64),
        0,
        0,
        out_ty=any2,
    )
    x = np.zeros((2, 3), dtype=np.int32)
    write(
        "nonzero_none",
        "nonzero",
        "no non-zero element: a (2, 0) result",
        [("x", x)],
        "R.nonzero(x)",
        np.zeros((2, 0), dtype=np.int64),
        0,
        0,
        out_ty=any2,
    )
    x = np.array(True)
    write(
        "nonzero_scalar",
        "nonzero",
        "a rank-0 input counts as (1,)",
        [("x", x)],
        "R.nonzero(x)",
        np.zeros((1, 1), dtype=np.int64),
        0,
        0,
        out_ty=any2,
    )
    x = np.array([0, 4, 0, -1, 7, 0], dtype=np.int64)
    idx = np.nonzero(x)[0]
    out = x[idx] * 2
    # As the printer writes it: `n`, bound by the match_cast, declared as a TypeVar.
    # The return type is the body's with `n` erased: `n` is defined by the match_cast, out of
    # the callers' scope (TVM's Function constructor).
    text = (
        "# from tvm.script import ir as I\n"
        "# from tvm.script import tirx as T\n"
        "# from tvm.tirx.layout import Axis\n"
        "# from tvm.script import relax as R\n"
        "\n"
        "@I.ir_module\n"
        "class Module:\n"
        "    @R.function\n"
        '    def main(x: R.Tensor((6,), dtype="int64")) -> R.Tensor(dtype="int64", ndim=1):\n'
        "        n = T.int64()\n"
        "        with R.dataflow():\n"
        '            lv: R.Tensor((1, n), dtype="int64") = R.match_cast(R.nonzero(x), '
        'R.Tensor((1, n), dtype="int64"))\n'
        '            lv1: R.Tensor((n,), dtype="int64") = R.reshape(lv, R.shape([n]))\n'
        '            lv2: R.Tensor((n,), dtype="int64") = R.take(x, lv1, axis=0, mode="fast")\n'
        '            gv: R.Tensor((n,), dtype="int64") = R.add(lv2, lv2)\n'
        "            R.output(gv)\n"
        "        return gv\n"
    )
    write(
        "nonzero_match_cast",
        "nonzero",
        "the ONNX frontend's form: the count named by a match_cast, then used by operators",
        [("x", x)],
        None,
        out,
        0,
        0,
        text=text,
    )


# ---- unique -----------------------------------------------------------------------------------


def unique_ref(x, sorted_, want_index, want_inverse, want_counts, axis):
    """TVM's relax.run.unique (numpy's unique, reordered by first occurrence when unsorted)."""
    values, index, inverse, counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True, axis=axis
    )
    inverse = np.asarray(inverse).reshape(-1)
    if not sorted_:
        order = np.argsort(index, kind="stable")
        values = np.take(values, order, axis=0 if axis is None else axis)
        index = index[order]
        counts = counts[order]
        remap = np.empty_like(order)
        remap[order] = np.arange(len(order))
        inverse = remap[inverse]
    out = [values]
    if want_index:
        out.append(index.astype(np.int64))
    if want_inverse:
        out.append(inverse.astype(np.int64))
    if want_counts:
        out.append(counts.astype(np.int64))
    return out[0] if len(out) == 1 else tuple(out)


def unique_cases():
    def ty_any(a):
        return f'R.Tensor(dtype="{a.dtype}", ndim={a.ndim})'

    for name, x, flags, axis, desc in [
        (
            "unique_sorted_flat",
            np.array([[3.0, 1.0, -0.0, 3.0, 2.5], [0.0, 1.0, 7.0, 2.5, -4.0]], dtype=F32),
            (True, False, False, False),
            None,
            "the sorted unique values of the flattened tensor; -0.0 and 0.0 are one",
        ),
        (
            "unique_first_occurrence_all_outputs",
            np.array([4, 2, 4, 9, 2, 2, -1], dtype=np.int64),
            (False, True, True, True),
            None,
            "sorted=False: values in order of first occurrence, with index, inverse and counts",
        ),
        (
            "unique_axis_columns",
            np.array([[1, 0, 1, 2], [5, 3, 5, 5], [0, 0, 0, 1]], dtype=np.int32),
            (True, False, True, True),
            1,
            "unique columns (axis=1), sorted, with inverse and counts",
        ),
    ]:
        out = unique_ref(x, *flags, axis)
        args = ", ".join(f"T.bool({f})" for f in flags)
        if axis is not None:
            args += f", {axis}"
        if isinstance(out, tuple):
            out_ty = "R.Tuple(" + ", ".join(ty_any(o) for o in out) + ")"
        else:
            out_ty = ty_any(out)
        # The flags print as `T.bool(...)`, and the header then imports `T` (as the printer
        # writes it).
        text = module([("x", x)], f"R.unique(x, {args})", out, out_ty).replace(
            "# from tvm.script import ir as I\n",
            "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n"
            "# from tvm.tirx.layout import Axis\n",
        )
        write(name, "unique", desc, [("x", x)], None, out, 0, 0, text=text)


# ---- roi_align --------------------------------------------------------------------------------


def roi_align(data, rois, pooled, scale, sample_ratio, aligned, layout, mode):
    """TOPI's roi_align in float32: bins of bilinear samples, averaged or maxed."""
    x = data if layout == "NCHW" else np.transpose(data, (0, 3, 1, 2))
    _, c, h, w = x.shape
    ph_n, pw_n = pooled
    out = np.zeros((rois.shape[0], c, ph_n, pw_n), dtype=F32)

    def bilinear(b, ch, y, xx):
        if y < -1.0 or xx < -1.0 or y > h or xx > w:
            return F32(0)
        y = min(max(y, F32(0)), F32(h - 1))
        xx = min(max(xx, F32(0)), F32(w - 1))
        y0, x0 = int(np.floor(y)), int(np.floor(xx))
        wy_h, wx_h = F32(y - F32(y0)), F32(xx - F32(x0))
        v = F32(0)
        for wx, xp in [(F32(1) - wx_h, x0), (wx_h, x0 + 1)]:
            for wy, yp in [(F32(1) - wy_h, y0), (wy_h, y0 + 1)]:
                if 0 <= yp <= h - 1 and 0 <= xp <= w - 1:
                    v = v + wx * wy * F32(x[b, ch, yp, xp])
        return v

    for i in range(rois.shape[0]):
        r = rois[i]
        b = int(np.int32(r[0]))
        sw, sh, ew, eh = (F32(r[k]) * F32(scale) for k in (1, 2, 3, 4))
        rh = eh - sh if aligned else max(eh - sh, F32(1))
        rw = ew - sw if aligned else max(ew - sw, F32(1))
        bh, bw = F32(rh / F32(ph_n)), F32(rw / F32(pw_n))
        gh = sample_ratio if sample_ratio > 0 else int(np.ceil(rh / F32(ph_n)))
        gw = sample_ratio if sample_ratio > 0 else int(np.ceil(rw / F32(pw_n)))
        for ch, p, q in itertools.product(range(c), range(ph_n), range(pw_n)):
            base_h = sh + F32(p) * bh
            base_w = sw + F32(q) * bw
            vals = [
                bilinear(
                    b,
                    ch,
                    base_h + (F32(a) + F32(0.5)) * bh / F32(gh),
                    base_w + (F32(bb) + F32(0.5)) * bw / F32(gw),
                )
                for a in range(max(gh, 0))
                for bb in range(max(gw, 0))
            ]
            if mode == "avg":
                out[i, ch, p, q] = sum((v / F32(gh * gw) for v in vals), F32(0))
            else:
                out[i, ch, p, q] = max(vals) if vals else np.finfo(F32).min
    return out if layout == "NCHW" else np.transpose(out, (0, 2, 3, 1))


def roi_align_cases():
    rois = np.array(
        [
            [0, 0.5, 1.0, 6.0, 5.5],
            [1, -2.0, -1.0, 3.0, 9.0],
            [0, 2.0, 2.0, 2.5, 2.25],
        ],
        dtype=F32,
    )
    for name, layout, pooled, scale, ratio, aligned, mode, desc in [
        ("roi_align_avg_nchw", "NCHW", (2, 3), 1.0, -1, False, "avg", "adaptive sample grid, average"),
        ("roi_align_max_ratio2", "NCHW", (3, 3), 0.5, 2, False, "max", "2x2 samples per bin, maximum"),
        ("roi_align_aligned_nhwc", "NHWC", (2, 2), 1.0, -1, True, "avg", "NHWC, aligned (no minimum size)"),
    ]:
        r = rng(name)
        shape = (2, 3, 6, 7) if layout == "NCHW" else (2, 6, 7, 3)
        data = floats(r, shape)
        out = roi_align(data, rois, pooled, scale, ratio, aligned, layout, mode)
        call = (
            f"R.vision.roi_align(data, rois, pooled_size=[{pooled[0]}, {pooled[1]}], "
            f"spatial_scale={scale!r}, sample_ratio={ratio}, aligned={aligned}, "
            f'layout="{layout}", mode="{mode}")'
        )
        write(name, "roi_align", desc, [("data", data), ("rois", rois)], call, out, 1e-5, 1e-5)


def get_valid_counts(data, threshold, id_index, score_index):
    b, n, k = data.shape
    count = np.zeros((b,), dtype=np.int32)
    out = np.full(data.shape, -1.0, dtype=data.dtype)
    idx = np.full((b, n), -1, dtype=np.int32)
    for i in range(b):
        for j in range(n):
            ok = data[i, j, score_index] > data.dtype.type(threshold)
            if id_index >= 0:
                ok = ok and data[i, j, id_index] >= 0
            if ok:
                out[i, count[i]] = data[i, j]
                idx[i, count[i]] = j
                count[i] += 1
    return count, out, idx


def get_valid_counts_cases():
    r = rng("get_valid_counts")
    data = r.uniform(-1.0, 1.0, size=(2, 5, 6)).astype(F32)
    data[:, :, 0] = np.array([[0, -1, 2, 1, 0], [-1, -1, 3, 0, 1]], dtype=F32)
    for name, threshold, id_index, score_index, desc in [
        ("get_valid_counts_default", 0.0, 0, 1, "score above 0 and class id not negative"),
        ("get_valid_counts_no_id", 0.25, -1, 2, "id_index -1: the score alone decides"),
    ]:
        out = get_valid_counts(data, threshold, id_index, score_index)
        call = (
            f"R.vision.get_valid_counts(data, score_threshold={threshold!r}, "
            f"id_index={id_index}, score_index={score_index})"
        )
        write(name, "get_valid_counts", desc, [("data", data)], call, out, 0, 0)


def nms_iou(a, b):
    """TVM's calculate_overlap in float32: corners in either order, 0 for an empty union."""
    a_l, a_t, a_r, a_b = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
    b_l, b_t, b_r, b_b = min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])
    z = F32(0)
    w = max(z, min(a_r, b_r) - max(a_l, b_l))
    h = max(z, min(a_b, b_b) - max(a_t, b_t))
    area = F32(h * w)
    u = F32((a_r - a_l) * (a_b - a_t) + (b_r - b_l) * (b_b - b_t) - area)
    return z if u <= 0 else F32(area / u)


def non_max_suppression(data, valid_count, indices, max_output_size=-1, iou_threshold=0.5,
                        force_suppress=False, top_k=-1, coord_start=2, score_index=1,
                        id_index=0, return_indices=True, invalid_to_bottom=False,
                        soft_nms_sigma=0.0, score_threshold=0.0):
    """TVM's own numpy reference (python/tvm/topi/testing/nms_python.py), in float32."""
    b, n, _ = data.shape
    out = np.full_like(data, -1.0)
    bix = np.full((b, n), -1, dtype=np.int32)
    compacted = np.full((b, n), -1, dtype=np.int32)
    count = np.zeros((b, 1), dtype=np.int32)
    soft = soft_nms_sigma > 0.0
    thresh = F32(score_threshold if soft else 0.0)
    scale = F32(-0.5 / soft_nms_sigma) if soft else F32(0)
    box = lambda i, j: out[i, j, coord_start:coord_start + 4]
    same = lambda i, j, k: force_suppress or id_index < 0 or out[i, j, id_index] == out[i, k, id_index]
    for i in range(b):
        nkeep = int(valid_count[i])
        if 0 < top_k < nkeep:
            nkeep = top_k
        order = np.argsort(-data[i, :int(valid_count[i]), score_index], kind="stable")
        for j in range(nkeep):
            out[i, j] = data[i, order[j]]
            bix[i, j] = order[j]
        if soft:
            sel = 0
            while sel < nkeep and (max_output_size < 0 or sel < max_output_size):
                best, best_score = -1, thresh
                for j in range(sel, nkeep):
                    if bix[i, j] >= 0 and out[i, j, score_index] > best_score:
                        best, best_score = j, out[i, j, score_index]
                if best < 0:
                    break
                out[i, [sel, best]] = out[i, [best, sel]]
                bix[i, [sel, best]] = bix[i, [best, sel]]
                for j in range(sel + 1, nkeep):
                    if bix[i, j] < 0 or out[i, j, score_index] <= thresh or not same(i, sel, j):
                        continue
                    o = nms_iou(box(i, sel), box(i, j))
                    if o >= F32(iou_threshold):
                        bix[i, j] = -1
                    else:
                        out[i, j, score_index] *= np.exp(scale * o * o, dtype=F32)
                        if out[i, j, score_index] <= thresh:
                            bix[i, j] = -1
                sel += 1
            count[i, 0] = sel
            for j in range(sel):
                compacted[i, j] = indices[i, bix[i, j]]
            out[i, sel:] = -1.0
            continue
        valid = 0
        for j in range(nkeep):
            if out[i, j, score_index] <= thresh or 0 < max_output_size <= valid:
                out[i, j] = -1.0
                bix[i, j] = -1
                continue
            valid += 1
            for k in range(j + 1, nkeep):
                if out[i, k, score_index] > thresh and same(i, j, k):
                    if nms_iou(box(i, j), box(i, k)) >= F32(iou_threshold):
                        out[i, k, score_index] = -1.0
                        bix[i, k] = -1
        kept = [indices[i, x] for x in bix[i] if x >= 0]
        compacted[i, :len(kept)] = kept
        count[i, 0] = len(kept)
    if return_indices:
        return (out, compacted, count) if soft else (compacted, count)
    if invalid_to_bottom:
        moved = np.full_like(data, -1.0)
        for i in range(b):
            rows = [r for r in out[i] if r[score_index] >= 0]
            moved[i, :len(rows)] = rows
        return moved
    return out


def nms_data():
    """Two batches of 8 boxes (class id, score, x1, y1, x2, y2) with overlapping clusters and
    distinct scores, the valid boxes first as get_valid_counts leaves them."""
    r = rng("non_max_suppression")
    centers = np.array([[0.3, 0.3], [0.7, 0.6], [0.35, 0.32], [0.5, 0.5]], dtype=F32)
    data = np.zeros((2, 8, 6), dtype=F32)
    for i in range(2):
        c = centers[r.integers(0, 4, size=8)] + r.uniform(-0.04, 0.04, size=(8, 2))
        size = r.uniform(0.15, 0.3, size=(8, 2))
        data[i, :, 0] = r.integers(0, 2, size=8)
        data[i, :, 1] = r.permutation(np.linspace(0.1, 0.95, 8))
        data[i, :, 2:4] = c - size / 2
        data[i, :, 4:6] = c + size / 2
    data[1, 3, [2, 4]] = data[1, 3, [4, 2]]  # corners in the other order
    valid = np.array([8, 6], dtype=np.int32)
    idx = np.tile(np.arange(8, dtype=np.int32), (2, 1))
    idx[1] = np.array([2, 0, 1, 5, 3, 4, -1, -1], dtype=np.int32)
    return data.astype(F32), valid, idx


def attr_float(v):
    """A double attribute as TVM prints it (17 significant digits)."""
    t = f"{v:.17g}"
    return t if ("." in t or "e" in t) else t + ".0"


def attr(v):
    return attr_float(v) if isinstance(v, float) else repr(v)


def non_max_suppression_cases():
    data, valid, idx = nms_data()
    params = [("data", data), ("valid_count", valid), ("indices", idx)]
    for name, kw, desc in [
        ("nms_indices_default", {}, "hard NMS per class, box indices remapped through indices"),
        ("nms_indices_force_top_k", {"force_suppress": True, "top_k": 5, "iou_threshold": 0.3,
                                     "max_output_size": 3}, "across classes, top 5, at most 3"),
        ("nms_data_no_id", {"return_indices": False, "id_index": -1, "iou_threshold": 0.4},
         "the rearranged data, class ignored"),
        ("nms_data_invalid_to_bottom", {"return_indices": False, "invalid_to_bottom": True},
         "suppressed rows moved below the kept ones"),
        ("nms_soft", {"soft_nms_sigma": 0.5, "score_threshold": 0.2, "iou_threshold": 0.9,
                      "force_suppress": True}, "soft-NMS: Gaussian decay of overlapping scores"),
    ]:
        out = non_max_suppression(data, valid, idx, **kw)
        attrs = {"max_output_size": -1, "iou_threshold": 0.5, "force_suppress": False,
                 "top_k": -1, "coord_start": 2, "score_index": 1, "id_index": 0,
                 "return_indices": True, "invalid_to_bottom": False, "soft_nms_sigma": 0.0,
                 "score_threshold": 0.0}
        attrs.update(kw)
        text = ", ".join(f"{k}={attr(v)}" for k, v in attrs.items())
        call = f"R.vision.non_max_suppression(data, valid_count, indices, {text})"
        write(name, "non_max_suppression", desc, params, call, out, 1e-5, 1e-6)


def all_class_nms(boxes, scores, max_out, iou_threshold, score_threshold, fmt):
    """TVM's all_class_non_max_suppression: per batch and class, greedy NMS over the boxes
    scoring above score_threshold by descending score (stable), at most max_out kept; none
    when iou_threshold is not positive; a box scoring <= 0 is never suppressed."""
    b, c, n = scores.shape
    kept = []
    for i in range(b):
        for k in range(c):
            order = np.argsort(-scores[i, k], kind="stable")
            s = scores[i, k][order].copy()
            valid = int(np.sum(s > F32(score_threshold)))
            sel = []
            if iou_threshold > 0:
                for j in range(valid):
                    if not (s[j] > -1 and len(sel) < max_out):
                        continue
                    sel.append((int(order[j]), s[j]))
                    for q in range(j + 1, valid):
                        if s[q] > 0 and nms_iou(boxes[i, order[j]], boxes[i, order[q]]) >= F32(iou_threshold):
                            s[q] = -1
            kept.append(sel)
    if fmt == "onnx":
        rows = [(bc // c, bc % c, j) for bc, sel in enumerate(kept) for j, _ in sel]
        return (np.array(rows, dtype=np.int64).reshape(-1, 3), np.array([len(rows)], dtype=np.int64))
    idx = np.zeros((b, c * n, 2), dtype=np.int64)
    sc = np.zeros((b, c * n), dtype=F32)
    cnt = np.zeros((b,), dtype=np.int64)
    for i in range(b):
        m = 0
        for k in range(c):
            for j, v in kept[i * c + k]:
                idx[i, m] = (k, j)
                sc[i, m] = v
                m += 1
        cnt[i] = m
    return idx, sc, cnt


def all_class_nms_cases():
    r = rng("all_class_non_max_suppression")
    centers = np.array([[0.2, 0.2], [0.6, 0.7], [0.25, 0.22]], dtype=F32)
    c = centers[r.integers(0, 3, size=(2, 7))] + r.uniform(-0.05, 0.05, size=(2, 7, 2))
    size = r.uniform(0.2, 0.35, size=(2, 7, 2))
    boxes = np.concatenate([c - size / 2, c + size / 2], axis=2).astype(F32)
    scores = r.uniform(0.0, 1.0, size=(2, 3, 7)).astype(F32)
    for name, max_out, iou, thr, fmt, desc in [
        ("all_class_nms_onnx", 3, 0.4, 0.2, "onnx", "ONNX rows (batch, class, box), trimmed"),
        ("all_class_nms_onnx_none", 2, 0.5, 1.0, "onnx", "no score above the threshold: 0 rows"),
        ("all_class_nms_tensorflow", 4, 0.5, 0.1, "tensorflow", "padded per-batch indices and scores"),
    ]:
        out = all_class_nms(boxes, scores, max_out, iou, thr, fmt)
        consts = (
            f"R.const({max_out}, \"int64\"), R.const({attr_float(float(F32(iou)))}, \"float32\"), "
            f"R.const({attr_float(float(F32(thr)))}, \"float32\")"
        )
        call = f"R.vision.all_class_non_max_suppression(boxes, scores, {consts}, output_format=\"{fmt}\")"
        if fmt == "onnx":
            total = 2 * 3 * 7
            # The function's return type is the call's inferred one (TVM's Function
            # constructor), though the value has only the selected rows.
            inferred = f'R.Tuple(R.Tensor(({total}, 3), dtype="int64"), R.Tensor((1,), dtype="int64"))'
            text = module([("boxes", boxes), ("scores", scores)], call, out, inferred)
            write(name, "all_class_non_max_suppression", desc,
                  [("boxes", boxes), ("scores", scores)], call, out, 0, 0, text=text)
        else:
            write(name, "all_class_non_max_suppression", desc,
                  [("boxes", boxes), ("scores", scores)], call, out, 1e-6, 1e-7)


def multibox_transform_loc(cls, loc, anchor, clip, threshold, variances, keep_background,
                           apply_softmax):
    """TOPI's multibox_transform_loc in float32."""
    b, c, n = cls.shape
    l = loc.reshape(b, n, 4)
    a = anchor[0]
    vx, vy, vw, vh = (F32(v) for v in variances)
    half = F32(0.5)
    ay, ax = (a[:, 1] + a[:, 3]) * half, (a[:, 0] + a[:, 2]) * half
    ah, aw = a[:, 3] - a[:, 1], a[:, 2] - a[:, 0]
    yc = l[:, :, 1] * vy * ah + ay
    xc = l[:, :, 0] * vx * aw + ax
    hh = half * np.exp(l[:, :, 3] * vh) * ah
    hw = half * np.exp(l[:, :, 2] * vw) * aw
    boxes = np.stack([yc - hh, xc - hw, yc + hh, xc + hw], axis=2).astype(F32)
    if clip:
        boxes = np.clip(boxes, 0, 1)
    if apply_softmax:
        e = np.exp(cls - cls.max(axis=1, keepdims=True))
        s = (e / e.sum(axis=1, keepdims=True)).astype(F32)
    else:
        s = cls.copy()
    s = s * (s >= F32(threshold)).astype(F32)
    if not keep_background:
        s[:, 0, :] = 0
    return boxes, s


def multibox_transform_loc_cases():
    r = rng("multibox_transform_loc")
    cls = r.normal(size=(2, 3, 5)).astype(F32)
    loc = r.normal(scale=0.5, size=(2, 20)).astype(F32)
    lt = r.uniform(0.0, 0.7, size=(1, 5, 2))
    anchor = np.concatenate([lt, lt + r.uniform(0.1, 0.4, size=(1, 5, 2))], axis=2).astype(F32)
    params = [("cls_pred", cls), ("loc_pred", loc), ("anchor", anchor)]
    for name, clip, thr, var, keep, soft, desc in [
        ("multibox_transform_loc_default", False, 0.0, (1.0, 1.0, 1.0, 1.0), True, True,
         "defaults"),
        ("multibox_transform_loc_clip", True, 0.3, (0.1, 0.1, 0.2, 0.2), False, True,
         "clipped boxes, TFLite variances, threshold, no background"),
        ("multibox_transform_loc_scores", False, 0.25, (1.0, 1.0, 1.0, 1.0), True, False,
         "scores as given (apply_softmax=False), threshold"),
    ]:
        out = multibox_transform_loc(cls, loc, anchor, clip, thr, var, keep, soft)
        call = (f"R.vision.multibox_transform_loc(cls_pred, loc_pred, anchor, clip={clip}, "
                f"threshold={attr_float(thr)}, variances=[{', '.join(attr_float(v) for v in var)}], "
                f"keep_background={keep}, apply_softmax={soft})")
        write(name, "multibox_transform_loc", desc, params, call, out, 1e-5, 1e-6)


if __name__ == "__main__":
    non_max_suppression_cases()
    all_class_nms_cases()
    multibox_transform_loc_cases()
    get_valid_counts_cases()
    roi_align_cases()
    unique_cases()
    nonzero_cases()
    index_put_cases()
    slice_scatter_cases()
    resize3d_cases()
    conv3d_transpose_cases()
    image_grid_cases()
    search_cases()
