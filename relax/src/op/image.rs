//! Image operators: `R.image.resize2d`, `R.image.resize3d`.

use tir::{DataType, PrimExpr};

use crate::Result;
use crate::ir::{AttrValue, Attrs, Call, Expr, ExprKind, StructInfo};

use super::common::{attr_opt_dtype, attr_str, check_arity, err, shape_arg, tensor_arg};

/// The rank of a resize layout and the positions of the upper-case axes `spatial` in it. Any
/// layout whose axes are single letters, each at most once, with `spatial` among them, and
/// optionally split sub-axes (`NCHW16c`: a number and a lower-case letter) — what TVM's
/// resizes take (`NCHW`, `NHWC`, `NCHWxc`; `NCDHW`, `NDHWC`, `NCDHWxc`); the other axes are
/// carried over unchanged.
pub(crate) fn layout_axes(layout: &str, spatial: &[char]) -> Option<(usize, Vec<usize>)> {
    let mut axes: Vec<char> = Vec::new();
    let mut digits = false;
    for ch in layout.chars() {
        if ch.is_ascii_digit() {
            digits = true;
            continue;
        }
        if !ch.is_ascii_alphabetic() || axes.contains(&ch) || digits != ch.is_ascii_lowercase() {
            return None;
        }
        digits = false;
        axes.push(ch);
    }
    if digits {
        return None;
    }
    let positions = spatial
        .iter()
        .map(|s| axes.iter().position(|c| c == s))
        .collect::<Option<Vec<usize>>>()?;
    Some((axes.len(), positions))
}

/// The rank of a `resize2d` layout and the positions of `H` and `W` in it.
pub(crate) fn resize2d_layout(layout: &str) -> Option<(usize, usize, usize)> {
    let (rank, p) = layout_axes(layout, &['H', 'W'])?;
    Some((rank, p[0], p[1]))
}

/// `R.image.resize2d(x, size, roi, layout, method, …, out_dtype)`: `x` with its `H` and `W`
/// axes (by `layout`) replaced by the two values of `size`, of dtype `out_dtype` (unset or
/// `"void"`: `x`'s).
pub(super) fn infer_resize2d(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let layout = attr_str(call, "layout")?;
    let Some((rank, h, w)) = resize2d_layout(&layout) else {
        return Err(err(
            call,
            format!("layout \"{layout}\" has no H and W axes (NCHW, NHWC or NCHWxc)"),
        ));
    };
    if let Some(n) = x.ndim()
        && n != rank
    {
        return Err(err(
            call,
            format!("data must have rank {rank} for layout \"{layout}\", got rank {n}"),
        ));
    }
    let (size, size_ndim) = shape_arg(call, args, 1)?;
    if size_ndim >= 0 && size_ndim != 2 {
        return Err(err(
            call,
            format!("size must have 2 values (height, width), got {size_ndim}"),
        ));
    }
    let dtype = attr_opt_dtype(call, "out_dtype")?.or(x.dtype);
    match (&x.shape, size) {
        (Some(shape), Some(size)) => {
            let mut out = shape.clone();
            out[h] = size[0].clone();
            out[w] = size[1].clone();
            Ok(x.with_shape(out, dtype))
        }
        _ => Ok(x.with_ndim(rank as i64, dtype)),
    }
}

/// `R.image.resize3d(x, size, roi, layout, method, …, out_dtype)`: `x` with its `D`, `H` and
/// `W` axes (by `layout`) replaced by the three values of `size`, of dtype `out_dtype` (unset:
/// `x`'s). TVM's `InferTypeResize3D`.
pub(super) fn infer_resize3d(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let layout = attr_str(call, "layout")?;
    let Some((rank, axes)) = layout_axes(&layout, &['D', 'H', 'W']) else {
        return Err(err(
            call,
            format!("layout \"{layout}\" has no D, H and W axes (NCDHW, NDHWC or NCDHWxc)"),
        ));
    };
    if let Some(n) = x.ndim()
        && n != rank
    {
        return Err(err(
            call,
            format!("data must have rank {rank} for layout \"{layout}\", got rank {n}"),
        ));
    }
    let (size, size_ndim) = shape_arg(call, args, 1)?;
    if size_ndim != 3 {
        return Err(err(
            call,
            format!("size must be a shape of 3 values (depth, height, width), got {size_ndim}"),
        ));
    }
    let dtype = attr_opt_dtype(call, "out_dtype")?.or(x.dtype);
    match (&x.shape, size) {
        (Some(shape), Some(size)) => {
            let mut out = shape.clone();
            for (a, s) in axes.iter().zip(size) {
                out[*a] = s;
            }
            Ok(x.with_shape(out, dtype))
        }
        _ => Ok(x.with_ndim(rank as i64, dtype)),
    }
}

/// What TVM's Python `R.image.resize3d` builds before the call: `size` as a shape (one value
/// for all three axes, or a tuple of three), and `roi` as six `float32` values (one number
/// for all six).
// The signature of every `CanonicalizeFn`, which may also add or remove arguments.
#[allow(clippy::ptr_arg)]
pub(super) fn canon_resize3d(args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()> {
    canon_size(args, 3);
    if let Some(size) = args.get_mut(1) {
        let single = match size.kind() {
            ExprKind::ShapeExpr(d) if d.len() == 1 => Some(d[0].clone()),
            _ => None,
        };
        if let Some(d) = single {
            *size = Expr::shape(vec![d; 3]);
        }
    }
    let f32 = |v: f64| AttrValue::Expr(PrimExpr::float(DataType::FLOAT32, v));
    let number = |v: &AttrValue| match v {
        AttrValue::Int(i) => Some(*i as f64),
        AttrValue::Float(f) => Some(*f),
        _ => None,
    };
    let roi = match attrs.get("roi") {
        Some(AttrValue::List(items)) => Some(AttrValue::List(
            items
                .iter()
                .map(|i| number(i).map(f32).unwrap_or_else(|| i.clone()))
                .collect(),
        )),
        Some(v) => number(v).map(|r| AttrValue::List(vec![f32(r); 6])),
        None => None,
    };
    if let Some(roi) = roi {
        attrs.set("roi", roi);
    }
    Ok(())
}

/// `size` given as a tuple of integers (or one integer for `repeat` axes), as TVM's Python
/// functions turn it into a shape before the call.
fn canon_size(args: &mut [Expr], repeat: usize) {
    let Some(size) = args.get_mut(1) else {
        return;
    };
    let prim = |e: &Expr| match e.kind() {
        ExprKind::PrimValue(p) => Some(p.clone()),
        _ => None,
    };
    let dims = match size.kind() {
        ExprKind::Tuple(items) => items.iter().map(prim).collect::<Option<Vec<PrimExpr>>>(),
        ExprKind::PrimValue(p) => Some(vec![p.clone(); repeat]),
        _ => None,
    };
    if let Some(dims) = dims {
        *size = Expr::shape(dims);
    }
}

/// `R.image.affine_grid(data, size, align_corners)`: `data` the affine matrices `(N, k,
/// k + 1)` for `size` of `k` = 2 (`H, W`) or 3 (`D, H, W`) values; the result is the sampling
/// grid `(N, k, *size)` of `data`'s dtype. TVM's `InferTypeAffineGrid`.
pub(super) fn infer_affine_grid(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let (size, k) = shape_arg(call, args, 1)?;
    if k != 2 && k != 3 {
        return Err(err(
            call,
            format!("size must be a shape of 2 (H, W) or 3 (D, H, W) values, got {k}"),
        ));
    }
    if let Some(n) = x.ndim()
        && n != 3
    {
        return Err(err(
            call,
            format!(
                "data must have rank 3 (batch, {k}, {}), got rank {n}",
                k + 1
            ),
        ));
    }
    if let Some(shape) = &x.shape {
        for (d, want) in [(1, k), (2, k + 1)] {
            if let Some(v) = shape.get(d).and_then(PrimExpr::as_int)
                && v != want
            {
                return Err(err(
                    call,
                    format!(
                        "data must have shape (batch, {k}, {}) for a {k}-D grid, got {}",
                        k + 1,
                        super::common::shape_str(shape)
                    ),
                ));
            }
        }
    }
    match (&x.shape, size) {
        (Some(shape), Some(size)) => {
            let mut out = vec![shape[0].clone(), PrimExpr::i64(k)];
            out.extend(size);
            Ok(x.with_shape(out, x.dtype))
        }
        _ => Ok(x.with_ndim(k + 2, x.dtype)),
    }
}

/// `R.image.affine_grid`'s `size` as TVM's Python function builds it (one value: a square
/// 2-D grid).
// The signature of every `CanonicalizeFn`, which may also add or remove arguments.
#[allow(clippy::ptr_arg)]
pub(super) fn canon_affine_grid(args: &mut Vec<Expr>, _attrs: &mut Attrs) -> Result<()> {
    canon_size(args, 2);
    Ok(())
}

/// `R.image.grid_sample(data, grid, method, layout, padding_mode, align_corners)`: `data` in
/// `layout` (a permutation of `NCHW`, or `NCDHW` for a volume), `grid` `(N, k, *out)`; the
/// result is `data` with its spatial axes replaced by `grid`'s last `k` dimensions. TVM's
/// `InferTypeGridSample`.
pub(super) fn infer_grid_sample(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let grid = tensor_arg(call, args, 1)?;
    let layout = attr_str(call, "layout")?;
    let target: &[char] = if layout == "NCDHW" {
        &['N', 'C', 'D', 'H', 'W']
    } else {
        &['N', 'C', 'H', 'W']
    };
    let positions = match layout_axes(&layout, target) {
        Some((rank, p)) if rank == target.len() => p,
        _ => {
            return Err(err(
                call,
                format!("layout \"{layout}\" is not a permutation of NCHW (or NCDHW)"),
            ));
        }
    };
    let rank = target.len();
    if let Some(n) = x.ndim()
        && n != rank
    {
        return Err(err(
            call,
            format!("data must have rank {rank} for layout \"{layout}\", got rank {n}"),
        ));
    }
    if let Some(n) = grid.ndim()
        && n != rank
    {
        return Err(err(
            call,
            format!(
                "grid must have rank {rank} (batch, {}, spatial...) for layout \"{layout}\", \
                 got rank {n}",
                rank - 2
            ),
        ));
    }
    match (&x.shape, &grid.shape) {
        (Some(shape), Some(gshape)) => {
            let mut out = shape.clone();
            for (t, &p) in positions.iter().enumerate().skip(2) {
                out[p] = gshape[t].clone();
            }
            Ok(x.with_shape(out, x.dtype))
        }
        _ => Ok(x.with_ndim(rank as i64, x.dtype)),
    }
}

#[cfg(test)]
mod tests {
    use super::resize2d_layout;

    #[test]
    fn layouts() {
        assert_eq!(resize2d_layout("NCHW"), Some((4, 2, 3)));
        assert_eq!(resize2d_layout("NHWC"), Some((4, 1, 2)));
        assert_eq!(resize2d_layout("NCHW16c"), Some((5, 2, 3)));
        for bad in ["NCW", "NCHH", "NCHW16", "NC16HW", "NCHWc", "", "NC-HW"] {
            assert_eq!(resize2d_layout(bad), None, "{bad}");
        }
    }
}
