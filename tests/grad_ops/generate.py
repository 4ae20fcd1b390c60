"""Writes the cases of this folder: the backward operators of `R.grad.*` (nll_loss_backward,
max_pool2d_backward, avg_pool2d_backward, take_backward), each a module in the conformance
corpus format (`../conformance/README.md`) whose expected results come from the plain numpy
reference implementations below, written from the operators' definitions (a scatter over the
pooling windows, `np.add.at`, the gradient of a weighted sum) rather than from TVM's kernels.
`module.py` is the module as TVM 0.27 prints it. Run with numpy installed:
`python3 tests/grad_ops/generate.py`. The tests never need Python."""

import json
import pathlib
import shutil
import zlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def value(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        data = [float(x) for x in a.ravel().astype(np.float64)]
    else:
        data = [int(x) for x in a.ravel()]
    return {"tensor": {"dtype": str(a.dtype), "shape": list(a.shape), "data": data}}


def ty(a):
    shape = ", ".join(str(d) for d in a.shape)
    if len(a.shape) == 1:
        shape += ","
    return f'R.Tensor(({shape}), dtype="{a.dtype}")'


def module(params, call, out):
    sig = ", ".join(f"{n}: {ty(a)}" for n, a in params)
    return (
        "# from tvm.script import ir as I\n"
        "# from tvm.script import relax as R\n"
        "\n"
        "@I.ir_module\n"
        "class Module:\n"
        "    @R.function\n"
        f"    def main({sig}) -> {ty(out)}:\n"
        "        with R.dataflow():\n"
        f"            gv: {ty(out)} = {call}\n"
        "            R.output(gv)\n"
        "        return gv\n"
    )


def write(name, description, params, call, out, error=None):
    folder = HERE / name
    folder.mkdir(exist_ok=True)
    (folder / "module.py").write_text(module(params, call, out))
    c = {"function": "main", "inputs": [value(a) for _, a in params]}
    if error is None:
        c["expected"] = value(out)
    else:
        c["expect_error"] = True
        c["error_message"] = error
    case = {
        "name": name,
        "description": description,
        "tags": ["grad"],
        "rtol": 1e-5,
        "atol": 1e-6,
        "calls": [c],
    }
    (folder / "case.json").write_text(json.dumps(case, indent=1) + "\n")


def rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


# ---- nll_loss_backward -------------------------------------------------------------------


def nll_loss_backward(og, pred, targets, weights, reduction, ignore_index):
    """The gradient of nll_loss w.r.t. predictions: the loss is linear in them,
    `l_i = -w[t_i] * pred[i, t_i]` over the targets that are not `ignore_index`."""
    c = pred.shape[0] if pred.ndim == 1 else pred.shape[1]
    w = np.ones(c, pred.dtype) if weights is None else weights
    t = targets.astype(np.int64)
    counted = t != ignore_index
    wt = np.where(counted, w[np.where(counted, t, 0)], 0).astype(np.float64)
    if reduction == "none":
        coef = og.astype(np.float64) * wt
    elif reduction == "sum":
        coef = np.broadcast_to(og.astype(np.float64), t.shape) * wt
    else:
        coef = np.broadcast_to(og.astype(np.float64), t.shape) * wt / wt.sum()
    grad = np.zeros(pred.shape, np.float64)
    if pred.ndim == 1:
        if counted:
            grad[t] = -coef
    else:
        for idx in np.ndindex(*t.shape):
            if counted[idx]:
                grad[(idx[0], t[idx]) + idx[1:]] = -coef[idx]
    return grad.astype(pred.dtype)


def nll_case(name, description, pred_shape, targets, weights, reduction, ignore_index, og_shape):
    r = rng(name)
    f32 = np.float32
    pred = r.standard_normal(pred_shape).astype(f32)
    og = r.uniform(0.5, 2.0, og_shape).astype(f32)
    targets = np.asarray(targets, np.int64)
    params = [("output_grad", og), ("predictions", pred), ("targets", targets)]
    args = "output_grad, predictions, targets"
    if weights is not None:
        weights = np.asarray(weights, f32)
        params.append(("weights", weights))
        args += ", weights"
    out = nll_loss_backward(og, pred, targets, weights, reduction, ignore_index)
    call = (
        f'R.grad.nll_loss_backward({args}, reduction="{reduction}", '
        f"ignore_index={ignore_index})"
    )
    write(name, description, params, call, out)


# ---- pool2d backward ---------------------------------------------------------------------


def pool_out(n, k, s, before, after, ceil_mode):
    return (n + before + after + (s - 1 if ceil_mode else 0) - k) // s + 1


def pool2d_backward(og, x, kind, pool, strides, padding, ceil_mode, include_pad):
    """Scatters each output gradient over its window (NCHW): max pooling to the window's
    first largest element in row-major order (padding never counts), average pooling to every
    element of the window inside the data, divided by `kh * kw` with `count_include_pad`,
    else by the number of those elements."""
    kh, kw = pool
    sh, sw = strides
    pt, pl, pb, pr = padding
    n, c, h, w = x.shape
    oh = pool_out(h, kh, sh, pt, pb, ceil_mode)
    ow = pool_out(w, kw, sw, pl, pr, ceil_mode)
    assert og.shape == (n, c, oh, ow), (og.shape, (n, c, oh, ow))
    grad = np.zeros(x.shape, np.float64)
    for b, ch, i, j in np.ndindex(n, c, oh, ow):
        rows = [r for r in range(i * sh - pt, i * sh - pt + kh) if 0 <= r < h]
        cols = [q for q in range(j * sw - pl, j * sw - pl + kw) if 0 <= q < w]
        if not rows or not cols:
            continue
        g = float(og[b, ch, i, j])
        if kind == "max":
            best = None
            for r in rows:
                for q in cols:
                    if best is None or x[b, ch, r, q] > x[b, ch, best[0], best[1]]:
                        best = (r, q)
            grad[b, ch, best[0], best[1]] += g
        else:
            count = kh * kw if include_pad else len(rows) * len(cols)
            for r in rows:
                for q in cols:
                    grad[b, ch, r, q] += g / count
    return grad.astype(x.dtype)


def pool_case(name, description, kind, shape, pool, strides, padding, ceil_mode, include_pad,
              layout="NCHW", levels=None):
    r = rng(name)
    f32 = np.float32
    if levels is None:
        x = r.standard_normal(shape).astype(f32)
    else:
        # Few distinct values: many windows hold their maximum more than once.
        x = r.integers(0, levels, shape).astype(f32)
    n, c, h, w = shape
    oh = pool_out(h, pool[0], strides[0], padding[0], padding[2], ceil_mode)
    ow = pool_out(w, pool[1], strides[1], padding[1], padding[3], ceil_mode)
    og = r.uniform(0.5, 2.0, (n, c, oh, ow)).astype(f32)
    out = pool2d_backward(og, x, kind, pool, strides, padding, ceil_mode, include_pad)
    if layout == "NHWC":
        og, x, out = (a.transpose(0, 2, 3, 1).copy() for a in (og, x, out))
    lst = lambda v: "[" + ", ".join(str(i) for i in v) + "]"
    call = (
        f"R.grad.{kind}_pool2d_backward(output_grad, data, pool_size={lst(pool)}, "
        f"strides={lst(strides)}, dilation=[1, 1], padding={lst(padding)}, "
        f"ceil_mode={ceil_mode}, count_include_pad={include_pad}, layout=\"{layout}\", "
        f"out_layout=\"{layout}\")"
    )
    write(name, description, [("output_grad", og), ("data", x)], call, out)


# ---- take_backward -----------------------------------------------------------------------


def take_backward(og, x, indices, axis):
    """`np.add.at`: every element of the output gradient added at the position its index
    names, repeated indices accumulating."""
    out = np.zeros(x.shape, np.float64)
    if axis is None:
        np.add.at(out.reshape(-1), indices.astype(np.int64), og.astype(np.float64))
    else:
        a = axis % x.ndim
        np.add.at(out, (slice(None),) * a + (indices.astype(np.int64),), og.astype(np.float64))
    return out.astype(x.dtype)


def take_case(name, description, shape, indices, axis, idtype="int64", error=None):
    r = rng(name)
    f32 = np.float32
    x = r.standard_normal(shape).astype(f32)
    indices = np.asarray(indices, idtype)
    if axis is None:
        og_shape = indices.shape
    else:
        a = axis % len(shape)
        og_shape = shape[:a] + indices.shape + shape[a + 1:]
    og = r.uniform(-2.0, 2.0, og_shape).astype(f32)
    out = np.zeros(x.shape, f32) if error else take_backward(og, x, indices, axis)
    call = f'R.grad.take_backward(output_grad, x, indices, axis={axis}, mode="")'
    params = [("output_grad", og), ("x", x), ("indices", indices)]
    write(name, description, params, call, out, error)


if __name__ == "__main__":
    for old in HERE.iterdir():
        if old.is_dir():
            shutil.rmtree(old)

    nll_case("nll_mean_weights_ignore", "reduction mean, weights, ignore_index 1 (>= 0) present in the targets",
             (2, 4, 3), [[1, 0, 3], [2, 1, 1]], [0.5, 2.0, 1.5, 3.0], "mean", 1, ())
    nll_case("nll_mean_no_weights", "reduction mean without weights, ignore_index -1 (no target equals it)",
             (3, 5), [4, 0, 4], None, "mean", -1, ())
    nll_case("nll_sum_weights", "reduction sum with weights, ignore_index 2 present",
             (2, 3, 2, 2), [[[0, 2], [1, 1]], [[2, 2], [0, 1]]], [1.0, 0.25, 4.0], "sum", 2, ())
    nll_case("nll_sum_no_weights_ignore", "reduction sum without weights, ignore_index 0 present",
             (4, 3), [0, 1, 2, 0], None, "sum", 0, ())
    nll_case("nll_none_weights", "reduction none: output_grad of the targets' shape, weights, ignore_index 3",
             (2, 4, 3), [[3, 0, 2], [1, 3, 3]], [2.0, 1.0, 0.5, 1.5], "none", 3, (2, 3))
    nll_case("nll_none_no_weights", "reduction none without weights, default ignore_index -100 absent",
             (3, 2), [1, 0, 1], None, "none", -100, (3,))
    nll_case("nll_1d_mean_weights", "1-D predictions (no batch), 0-D target, mean with weights",
             (5,), 3, [1.0, 2.0, 3.0, 4.0, 5.0], "mean", -100, ())
    nll_case("nll_1d_sum_no_weights", "1-D predictions, 0-D target, sum without weights",
             (4,), 2, None, "sum", -1, ())
    nll_case("nll_negative_ignore_present", "a target equal to the negative ignore_index -100 is ignored "
             "(TVM's kernel reads outside the weights there; ours follows the forward nll_loss)",
             (3, 4), [2, -100, 0], [1.0, 2.0, 3.0, 4.0], "mean", -100, ())

    pool_case("max_tvm_parser_case", "TVM's parser test: pool 5x5, strides 2, padding [2, 1, 2, 1], ceil_mode, ties",
              "max", (1, 2, 10, 10), (5, 5), (2, 2), (2, 1, 2, 1), True, False, levels=4)
    pool_case("max_k3_s1_ties", "pool 3x3 stride 1 without padding on 4x4 (windows past the last output), ties",
              "max", (2, 2, 4, 4), (3, 3), (1, 1), (0, 0, 0, 0), False, False, levels=3)
    pool_case("max_all_equal", "every element equal: each window's first element takes its gradient",
              "max", (1, 1, 5, 5), (2, 3), (1, 2), (1, 0, 1, 1), False, False, levels=1)
    pool_case("max_stride_gt_pool", "stride 3 > pool 2, asymmetric padding [1, 0, 0, 1]",
              "max", (1, 2, 7, 6), (2, 2), (3, 3), (1, 0, 0, 1), False, False)
    pool_case("max_ceil_nhwc", "NHWC layout, ceil_mode, padding [1, 1, 0, 0], ties",
              "max", (2, 3, 5, 6), (3, 2), (2, 2), (1, 1, 0, 0), True, False, layout="NHWC", levels=3)
    pool_case("avg_tvm_parser_case", "TVM's parser test: pool 5x5, strides 2, padding [2, 1, 2, 1], ceil_mode, padding not counted",
              "avg", (1, 2, 10, 10), (5, 5), (2, 2), (2, 1, 2, 1), True, False)
    pool_case("avg_include_pad", "count_include_pad: divided by 3 * 3 at the borders too, padding 1",
              "avg", (1, 2, 5, 6), (3, 3), (2, 2), (1, 1, 1, 1), False, True)
    pool_case("avg_include_pad_ceil", "count_include_pad with ceil_mode: windows past the data divided by kh * kw",
              "avg", (2, 1, 6, 5), (3, 2), (2, 2), (0, 1, 1, 0), True, True)
    pool_case("avg_exclude_pad", "padding not counted, stride 1, padding [1, 2, 1, 0]",
              "avg", (1, 2, 4, 5), (2, 3), (1, 1), (1, 2, 1, 0), False, False)
    pool_case("avg_no_padding", "no padding, overlapping windows",
              "avg", (2, 2, 5, 5), (3, 3), (2, 1), (0, 0, 0, 0), False, False)

    take_case("take_axis1_repeated", "axis 1, repeated indices accumulate", (2, 4, 3), [1, 3, 1, 1, 0], 1)
    take_case("take_axis_neg1_int32", "axis -1 (the last), int32 indices, repeated", (2, 3, 4), [0, 3, 3], -1, "int32")
    take_case("take_axis_neg3", "axis -3 (the first) of a rank-3 tensor", (3, 2, 2), [2, 2, 0], -3)
    take_case("take_axis_none", "no axis: x taken flat", (2, 3), [5, 0, 5, 2], None)
    take_case("take_axis0_2d_indices", "axis 0 with 2-D indices", (4, 2), [[3, 1], [3, 3]], 0)
    take_case("take_index_out_of_range", "an index past the axis is an error, not a write outside x",
              (2, 3), [0, 3], 1, error="index outside the axis")
    take_case("take_negative_index", "a negative index is an error (TVM's kernel writes outside x)",
              (4,), [-1], 0, error="negative index")
