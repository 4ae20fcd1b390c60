//! Image operators: `R.image.resize2d`.

use crate::Result;
use crate::ir::{Call, StructInfo};

use super::common::{attr_opt_dtype, attr_str, check_arity, err, shape_arg, tensor_arg};

/// The axes of a resize layout: its rank and the positions of `H` and `W`. Any layout whose
/// axes are single letters, each at most once, with upper-case `H` and `W` among them, and
/// optionally split sub-axes (`NCHW16c`: a number and a lower-case letter) — what TVM's
/// `resize2d` takes (`NCHW`, `NHWC`, `NCHWxc`); the other axes are carried over unchanged.
pub(crate) fn resize2d_layout(layout: &str) -> Option<(usize, usize, usize)> {
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
    let h = axes.iter().position(|&c| c == 'H')?;
    let w = axes.iter().position(|&c| c == 'W')?;
    Some((axes.len(), h, w))
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
