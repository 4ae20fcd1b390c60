//! `relaxjit.lrn`: ONNX's local response normalization across channels, computed the way the
//! TIR lowering computes it (the squares summed in channel order, divided by the window size,
//! times alpha, plus bias, to the power beta, dividing the input), one `(batch, channel)`
//! plane per task.

use vm::{Error, Result};

use super::{Float, PARALLEL_ELEMENTS, View, for_each_chunk};

/// `out = x / (bias + alpha · mean(x², channel window))^beta`; `ints` are the window size and
/// the channels it reaches before the output's, `f` alpha, beta and bias.
pub(super) fn lrn<T: Float>(
    x: &View<T>,
    ints: &[i64],
    f: &[f64],
    out: &mut [T],
    out_shape: &[usize],
) -> Result<()> {
    let bad = |what: String| Err(Error::value_error(what));
    let (&[size, before], &[alpha, beta, bias]) = (ints, f) else {
        return bad(format!(
            "expects 2 integers and 3 floats, got {} and {}",
            ints.len(),
            f.len()
        ));
    };
    if x.shape.len() < 3 {
        return bad(format!("input of shape {:?}: expected (N, C, …)", x.shape));
    }
    if out_shape != x.shape {
        return bad(format!(
            "output shape {out_shape:?}, expected the input's {:?}",
            x.shape
        ));
    }
    if size < 1 || !(0..size).contains(&before) {
        return bad(format!(
            "window of {size} channels starting {before} before: expected size ≥ 1 and 0 ≤ before < size"
        ));
    }
    if out.is_empty() {
        return Ok(());
    }
    let (size, before) = (size as usize, before as usize);
    let channels = x.shape[1];
    let plane: usize = x.shape[2..].iter().product();
    let count = T::from_f64(size as f64);
    let (alpha, bias) = (T::from_f64(alpha), T::from_f64(bias));
    let beta_t = T::from_f64(beta);
    let row = |r: usize, o: &mut [T]| {
        let (n, c) = (r / channels, r % channels);
        // The window [c - before, c - before + size), clipped to the channels.
        let lo = c.saturating_sub(before);
        let hi = (c + size - before).min(channels);
        o.fill(T::ZERO);
        for cc in lo..hi {
            let src = &x.data[(n * channels + cc) * plane..][..plane];
            o.iter_mut().zip(src).for_each(|(o, &s)| *o += s.mul(s));
        }
        let xs = &x.data[r * plane..][..plane];
        let base = |sum: T| (sum.div(count)).mul(alpha) + bias;
        // Powers with an exact square-root form skip the libm call (and vectorize).
        if beta == 0.75 {
            normalize(o, xs, |s| {
                let r = base(s).sqrt();
                r.mul(r.sqrt())
            });
        } else if beta == 0.5 {
            normalize(o, xs, |s| base(s).sqrt());
        } else if beta == 1.0 {
            normalize(o, xs, base);
        } else {
            normalize(o, xs, |s| base(s).powf(beta_t));
        }
    };
    let spread = (out.len() >= PARALLEL_ELEMENTS).then_some((4096 / plane).max(1));
    for_each_chunk(out, plane, spread, row);
    Ok(())
}

/// `o[i] = xs[i] / den(o[i])`, `o` holding the sums of squares.
#[inline(always)]
fn normalize<T: Float>(o: &mut [T], xs: &[T], den: impl Fn(T) -> T) {
    o.iter_mut().zip(xs).for_each(|(o, &x)| *o = x.div(den(*o)));
}
