//! LegalizeOps rules of the less common `relax.nn` operators (rms/group/instance/batch norm,
//! activations, adaptive pooling, batch_flatten, pixel_shuffle): each case is a small module
//! in TVMScript, legalized, run through the reference TIR interpreter and compared with a
//! plain Rust implementation on deterministic inputs.

use relaxjit_relax as relax;
use serde_json::{Value as Json, json};

mod corpus;

use corpus::call_tir_runner::*;

/// A dense f64 tensor (row-major) for the reference implementations.
#[derive(Clone, Debug)]
struct T {
    shape: Vec<usize>,
    data: Vec<f64>,
}

impl T {
    fn new(shape: &[usize], f: impl Fn(usize) -> f64) -> T {
        let n = shape.iter().product();
        T {
            shape: shape.to_vec(),
            data: (0..n).map(f).collect(),
        }
    }
    fn zeros(shape: &[usize]) -> T {
        T::new(shape, |_| 0.0)
    }
    fn strides(&self) -> Vec<usize> {
        let mut s = vec![1; self.shape.len()];
        for d in (0..self.shape.len().saturating_sub(1)).rev() {
            s[d] = s[d + 1] * self.shape[d + 1];
        }
        s
    }
    fn offset(&self, idx: &[usize]) -> usize {
        idx.iter().zip(self.strides()).map(|(i, s)| i * s).sum()
    }
    fn at(&self, idx: &[usize]) -> f64 {
        self.data[self.offset(idx)]
    }
    fn unravel(&self, mut k: usize) -> Vec<usize> {
        let mut idx = vec![0; self.shape.len()];
        for d in (0..self.shape.len()).rev() {
            idx[d] = k % self.shape[d];
            k /= self.shape[d];
        }
        idx
    }
    fn json(&self) -> Json {
        json!({"tensor": {"dtype": "float32", "shape": self.shape, "data": self.data}})
    }
    /// As an int64 tensor (class indices).
    fn json_i64(&self) -> Json {
        let data: Vec<i64> = self.data.iter().map(|&v| v as i64).collect();
        json!({"tensor": {"dtype": "int64", "shape": self.shape, "data": data}})
    }
}

/// Deterministic input `seed`: values in about [-2, 2], or positive ones (variances).
fn input(shape: &[usize], seed: usize, positive: bool) -> T {
    T::new(shape, |i| {
        let v = ((i * 7 + seed * 13) as f64 * 0.37).sin() * 2.0;
        if positive { v.abs() + 0.5 } else { v }
    })
}

/// Inputs of relu6: in about [-8, 8], so that both clamps matter.
fn wide(shape: &[usize]) -> T {
    T::new(shape, |i| ((i * 5) as f64 * 0.61).sin() * 8.0)
}

/// Mean and biased variance over the elements whose index satisfies `group(idx) == g`.
fn stats(x: &T, key: impl Fn(&[usize]) -> usize, groups: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut s, mut n) = (vec![0.0; groups], vec![0.0; groups]);
    for k in 0..x.data.len() {
        let g = key(&x.unravel(k));
        s[g] += x.data[k];
        n[g] += 1.0;
    }
    let mean: Vec<f64> = s.iter().zip(&n).map(|(a, b)| a / b).collect();
    let mut v = vec![0.0; groups];
    for k in 0..x.data.len() {
        let g = key(&x.unravel(k));
        v[g] += (x.data[k] - mean[g]).powi(2);
    }
    let var = v.iter().zip(&n).map(|(a, b)| a / b).collect();
    (mean, var)
}

fn map(x: &T, f: impl Fn(&[usize], f64) -> f64) -> T {
    T::new(&x.shape, |k| f(&x.unravel(k), x.data[k]))
}

/// A reference implementation: inputs to outputs.
type Reference = fn(&[T]) -> Vec<T>;

struct Case {
    name: &'static str,
    /// `main`'s parameters, return annotation and the bound call.
    params: &'static str,
    ret: &'static str,
    call: &'static str,
    /// Input shapes and whether each must be positive.
    inputs: &'static [(&'static [usize], bool)],
    reference: Reference,
}

const EPS: f64 = 1e-5;

fn rms_last(a: &[T]) -> Vec<T> {
    let x = &a[0];
    let (ms, _) = stats(&map(x, |_, v| v * v), |i| i[0] * 3 + i[1], 6);
    vec![map(x, |i, v| {
        v / (ms[i[0] * 3 + i[1]] + EPS).sqrt() * a[1].at(&[i[2]])
    })]
}

fn rms_2d(a: &[T]) -> Vec<T> {
    let x = &a[0];
    let (ms, _) = stats(&map(x, |_, v| v * v), |i| i[0], x.shape[0]);
    vec![map(x, |i, v| {
        v / (ms[i[0]] + EPS).sqrt() * a[1].at(&[i[1]])
    })]
}

fn rms_two_axes(a: &[T]) -> Vec<T> {
    let x = &a[0];
    let (ms, _) = stats(&map(x, |_, v| v * v), |i| i[0], 2);
    vec![map(x, |i, v| {
        v / (ms[i[0]] + 1e-6).sqrt() * a[1].at(&[i[1], i[2]])
    })]
}

fn group_norm_ref(a: &[T]) -> Vec<T> {
    let x = &a[0];
    let key = |i: &[usize]| i[0] * 2 + i[1] / 2;
    let (m, v) = stats(x, key, 4);
    vec![map(x, |i, e| {
        (e - m[key(i)]) / (v[key(i)] + EPS).sqrt() * a[1].at(&[i[1]]) + a[2].at(&[i[1]])
    })]
}

fn instance_norm_ref(a: &[T]) -> Vec<T> {
    let x = &a[0];
    let key = |i: &[usize]| i[0] * 3 + i[1];
    let (m, v) = stats(x, key, 6);
    vec![map(x, |i, e| {
        (e - m[key(i)]) / (v[key(i)] + EPS).sqrt() * a[1].at(&[i[1]]) + a[2].at(&[i[1]])
    })]
}

fn batch_norm_infer(a: &[T]) -> Vec<T> {
    let out = map(&a[0], |i, e| {
        let c = i[1];
        (e - a[3].at(&[c])) / (a[4].at(&[c]) + EPS).sqrt() * a[1].at(&[c]) + a[2].at(&[c])
    });
    vec![out, a[3].clone(), a[4].clone()]
}

fn batch_norm_train(a: &[T]) -> Vec<T> {
    let x = &a[0];
    let (m, v) = stats(x, |i| i[1], 3);
    let out = map(x, |i, e| {
        (e - m[i[1]]) / (v[i[1]] + EPS).sqrt() * a[1].at(&[i[1]]) + a[2].at(&[i[1]])
    });
    let nm = map(&a[3], |i, e| 0.9 * e + 0.1 * m[i[0]]);
    let nv = map(&a[4], |i, e| 0.9 * e + 0.1 * v[i[0]]);
    vec![out, nm, nv]
}

fn relu6_ref(a: &[T]) -> Vec<T> {
    vec![map(&a[0], |_, v| v.clamp(0.0, 6.0))]
}

fn selu_ref(a: &[T]) -> Vec<T> {
    let (alpha, scale) = (1.673_263_242_354_377_3, 1.050_700_987_355_480_5);
    vec![map(&a[0], |_, v| {
        scale * if v > 0.0 { v } else { alpha * (v.exp() - 1.0) }
    })]
}

fn softplus_ref(a: &[T]) -> Vec<T> {
    vec![map(&a[0], |_, v| {
        let bx = 2.0 * v;
        if bx > 3.0 {
            v
        } else {
            (1.0 + bx.exp()).ln() / 2.0
        }
    })]
}

fn prelu_ref(a: &[T]) -> Vec<T> {
    vec![map(
        &a[0],
        |i, v| if v > 0.0 { v } else { v * a[1].at(&[i[1]]) },
    )]
}

/// Adaptive average pooling of NC + spatial `x` to `out` spatial sizes.
fn adaptive(x: &T, out: &[usize]) -> T {
    let k = out.len();
    let mut shape = x.shape[..2].to_vec();
    shape.extend_from_slice(out);
    let o = T::zeros(&shape);
    T::new(&shape, |flat| {
        let i = o.unravel(flat);
        let ranges: Vec<(usize, usize)> = (0..k)
            .map(|d| {
                let (n, m) = (x.shape[2 + d], out[d]);
                (i[2 + d] * n / m, ((i[2 + d] + 1) * n).div_ceil(m))
            })
            .collect();
        let (mut s, mut cnt) = (0.0, 0.0);
        for kk in 0..x.data.len() {
            let j = x.unravel(kk);
            if j[0] == i[0]
                && j[1] == i[1]
                && (0..k).all(|d| ranges[d].0 <= j[2 + d] && j[2 + d] < ranges[d].1)
            {
                s += x.data[kk];
                cnt += 1.0;
            }
        }
        s / cnt
    })
}

fn adaptive1(a: &[T]) -> Vec<T> {
    vec![adaptive(&a[0], &[3])]
}
fn adaptive2(a: &[T]) -> Vec<T> {
    vec![adaptive(&a[0], &[2, 3])]
}
fn adaptive2_same(a: &[T]) -> Vec<T> {
    vec![adaptive(&a[0], &[4, 5])]
}
fn adaptive3(a: &[T]) -> Vec<T> {
    vec![adaptive(&a[0], &[2, 2, 1])]
}

fn batch_flatten_ref(a: &[T]) -> Vec<T> {
    let x = &a[0];
    let rest = x.data.len() / x.shape[0];
    vec![T {
        shape: vec![x.shape[0], rest],
        data: x.data.clone(),
    }]
}

fn pixel_shuffle_ref(a: &[T]) -> Vec<T> {
    let x = &a[0];
    let r = 2;
    let shape = [x.shape[0], x.shape[1] / 4, x.shape[2] * r, x.shape[3] * r];
    let o = T::zeros(&shape);
    vec![T::new(&shape, |k| {
        let i = o.unravel(k);
        x.at(&[
            i[0],
            i[1] * r * r + (i[2] % r) * r + i[3] % r,
            i[2] / r,
            i[3] / r,
        ])
    })]
}

/// Pooling of NC + spatial `x`: `pads` are (before, after) per spatial dimension.
fn pool_ref(
    x: &T,
    ps: &[usize],
    st: &[usize],
    dil: &[usize],
    pads: &[(usize, usize)],
    max: bool,
    include_pad: bool,
) -> T {
    let k = ps.len();
    let mut shape = x.shape[..2].to_vec();
    for d in 0..k {
        let n = x.shape[2 + d] + pads[d].0 + pads[d].1;
        shape.push((n - dil[d] * (ps[d] - 1) - 1) / st[d] + 1);
    }
    let o = T::zeros(&shape);
    T::new(&shape, |flat| {
        let i = o.unravel(flat);
        let (mut acc, mut cnt) = (if max { f64::NEG_INFINITY } else { 0.0 }, 0.0);
        let total: usize = ps.iter().product();
        for w in 0..total {
            let mut r = vec![0; k];
            let mut q = w;
            for d in (0..k).rev() {
                r[d] = q % ps[d];
                q /= ps[d];
            }
            let mut idx = vec![i[0], i[1]];
            let mut inside = true;
            for d in 0..k {
                let p = (i[2 + d] * st[d] + r[d] * dil[d]) as i64 - pads[d].0 as i64;
                inside &= p >= 0 && p < x.shape[2 + d] as i64;
                idx.push(p.max(0) as usize);
            }
            if inside {
                let v = x.at(&idx);
                acc = if max { acc.max(v) } else { acc + v };
                cnt += 1.0;
            } else if include_pad {
                cnt += 1.0;
            }
        }
        if max { acc } else { acc / cnt }
    })
}

fn max_pool1d_ref(a: &[T]) -> Vec<T> {
    vec![pool_ref(&a[0], &[3], &[2], &[1], &[(1, 1)], true, false)]
}
fn avg_pool1d_ref(a: &[T]) -> Vec<T> {
    vec![pool_ref(&a[0], &[3], &[2], &[2], &[(1, 0)], false, false)]
}
fn max_pool3d_ref(a: &[T]) -> Vec<T> {
    vec![pool_ref(
        &a[0],
        &[2, 2, 2],
        &[2, 2, 2],
        &[1, 1, 1],
        &[(0, 0); 3],
        true,
        false,
    )]
}
fn avg_pool3d_incl_ref(a: &[T]) -> Vec<T> {
    vec![pool_ref(
        &a[0],
        &[2, 2, 2],
        &[1, 2, 2],
        &[1, 1, 1],
        &[(1, 1), (0, 0), (1, 1)],
        false,
        true,
    )]
}
fn avg_pool3d_excl_ref(a: &[T]) -> Vec<T> {
    vec![pool_ref(
        &a[0],
        &[2, 2, 2],
        &[1, 2, 2],
        &[1, 1, 1],
        &[(1, 1), (0, 0), (1, 1)],
        false,
        false,
    )]
}

/// Grouped N-d convolution (NC + spatial, OI + spatial) with `pads` before each dimension and
/// the output shape `out`.
fn conv_ref(
    x: &T,
    w: &T,
    out: &[usize],
    st: &[usize],
    pads: &[usize],
    dil: &[usize],
    groups: usize,
) -> T {
    let k = st.len();
    let o = T::zeros(out);
    let cin_g = x.shape[1] / groups;
    let cout_g = w.shape[0] / groups;
    T::new(out, |flat| {
        let i = o.unravel(flat);
        let g = i[1] / cout_g;
        let mut acc = 0.0;
        for kk in 0..w.data.len() / w.shape[0] {
            let mut wi = vec![i[1]];
            let mut q = kk;
            let mut r = vec![0; k + 1];
            for d in (0..=k).rev() {
                r[d] = q % w.shape[1 + d];
                q /= w.shape[1 + d];
            }
            wi.extend(&r);
            let mut xi = vec![i[0], g * cin_g + r[0]];
            let mut inside = true;
            for d in 0..k {
                let p = (i[2 + d] * st[d] + r[1 + d] * dil[d]) as i64 - pads[d] as i64;
                inside &= p >= 0 && p < x.shape[2 + d] as i64;
                xi.push(p.max(0) as usize);
            }
            if inside {
                acc += x.at(&xi) * w.at(&wi);
            }
        }
        acc
    })
}

fn conv3d_ref(a: &[T]) -> Vec<T> {
    vec![conv_ref(
        &a[0],
        &a[1],
        &[1, 4, 2, 2, 3],
        &[1, 2, 1],
        &[0, 1, 1],
        &[1, 1, 2],
        2,
    )]
}

/// Grouped, dilated conv1d_transpose (NCW, IOW with O per group):
/// `out[b, g*cout_g + c, j*s + t*dil - pad] += x[b, i, j] * w[i, c, t]` for `i` in group `g`.
fn conv1d_transpose_g(
    x: &T,
    w: &T,
    [s, dil]: [usize; 2],
    pad: i64,
    width: usize,
    groups: usize,
) -> T {
    let cin_g = x.shape[1] / groups;
    let cout_g = w.shape[1];
    let mut out = T::zeros(&[x.shape[0], cout_g * groups, width]);
    for b in 0..x.shape[0] {
        for i in 0..x.shape[1] {
            let g = i / cin_g;
            for j in 0..x.shape[2] {
                for c in 0..cout_g {
                    for t in 0..w.shape[2] {
                        let o = (j * s + t * dil) as i64 - pad;
                        if o >= 0 && (o as usize) < width {
                            let off = out.offset(&[b, g * cout_g + c, o as usize]);
                            out.data[off] += x.at(&[b, i, j]) * w.at(&[i, c, t]);
                        }
                    }
                }
            }
        }
    }
    out
}

fn conv1d_transpose_ref(a: &[T]) -> Vec<T> {
    vec![conv1d_transpose_g(&a[0], &a[1], [2, 1], 1, 9, 1)]
}
fn conv1d_transpose_grouped_ref(a: &[T]) -> Vec<T> {
    vec![conv1d_transpose_g(&a[0], &a[1], [1, 1], 0, 6, 2)]
}
fn conv1d_transpose_dilated_ref(a: &[T]) -> Vec<T> {
    vec![conv1d_transpose_g(&a[0], &a[1], [2, 2], 1, 12, 2)]
}

/// Grouped conv2d_transpose, stride 1, no padding: 2-D analogue of the above.
fn conv2d_transpose_grouped_ref(a: &[T]) -> Vec<T> {
    let (x, w) = (&a[0], &a[1]);
    let groups = 2;
    let cin_g = x.shape[1] / groups;
    let cout_g = w.shape[1];
    let (oh, ow) = (x.shape[2] + w.shape[2] - 1, x.shape[3] + w.shape[3] - 1);
    let mut out = T::zeros(&[x.shape[0], cout_g * groups, oh, ow]);
    for i in 0..x.shape[1] {
        let g = i / cin_g;
        for (h, ww) in (0..x.shape[2]).flat_map(|h| (0..x.shape[3]).map(move |ww| (h, ww))) {
            for c in 0..cout_g {
                for (p, q) in (0..w.shape[2]).flat_map(|p| (0..w.shape[3]).map(move |q| (p, q))) {
                    let off = out.offset(&[0, g * cout_g + c, h + p, ww + q]);
                    out.data[off] += x.at(&[0, i, h, ww]) * w.at(&[i, c, p, q]);
                }
            }
        }
    }
    vec![out]
}

/// Class indices in [0, 4) for nll_loss.
fn targets(shape: &[usize]) -> T {
    T::new(shape, |i| ((i * 3 + 1) % 4) as f64)
}

/// nll_loss with `reduction` ("none", "sum", "mean"), optional weights, `ignore` index.
fn nll_ref(a: &[T], reduction: &str, ignore: i64) -> Vec<T> {
    let (p, t) = (&a[0], &a[1]);
    let w = |c: usize| a.get(2).map_or(1.0, |w| w.at(&[c]));
    let (mut sum, mut wsum) = (0.0, 0.0);
    let loss = map(t, |i, tv| {
        if tv as i64 == ignore {
            return 0.0;
        }
        let c = tv as usize;
        let mut idx = vec![i[0], c];
        idx.extend(&i[1..]);
        -p.at(&idx) * w(c)
    });
    for (k, &tv) in t.data.iter().enumerate() {
        if tv as i64 != ignore {
            sum += loss.data[k];
            wsum += w(tv as usize);
        }
    }
    match reduction {
        "none" => vec![loss],
        "sum" => vec![T::new(&[], |_| sum)],
        _ => vec![T::new(&[], |_| sum / wsum)],
    }
}

fn nll_mean(a: &[T]) -> Vec<T> {
    nll_ref(a, "mean", 1)
}
fn nll_sum(a: &[T]) -> Vec<T> {
    nll_ref(a, "sum", -100)
}
fn nll_none(a: &[T]) -> Vec<T> {
    nll_ref(a, "none", 2)
}

fn cross_entropy_2d(a: &[T]) -> Vec<T> {
    let s: f64 = a[0].data.iter().zip(&a[1].data).map(|(x, y)| x * y).sum();
    vec![T::new(&[], |_| -s / a[0].shape[0] as f64)]
}
fn cross_entropy_3d(a: &[T]) -> Vec<T> {
    cross_entropy_2d(a)
}
fn cross_entropy_1d(a: &[T]) -> Vec<T> {
    let s: f64 = a[0].data.iter().zip(&a[1].data).map(|(x, y)| x * y).sum();
    vec![T::new(&[], |_| -s)]
}

/// Attention (B, S, N, H) with an optional 4-D bias (input 3), `scale` and a causal offset.
fn attention_ref(a: &[T], scale: Option<f64>, offset: Option<usize>) -> T {
    let (q, k, v) = (&a[0], &a[1], &a[2]);
    let (b, s, n, h) = (q.shape[0], q.shape[1], q.shape[2], q.shape[3]);
    let (skv, hv) = (k.shape[1], v.shape[3]);
    let scale = scale.unwrap_or(1.0 / (h as f64).sqrt());
    let mut out = T::zeros(&[b, s, n, hv]);
    for bb in 0..b {
        for hh in 0..n {
            for i in 0..s {
                let allowed = |j: usize| offset.is_none_or(|o| j <= i + o);
                let p: Vec<f64> = (0..skv)
                    .map(|j| {
                        let dot: f64 = (0..h)
                            .map(|d| q.at(&[bb, i, hh, d]) * k.at(&[bb, j, hh, d]))
                            .sum();
                        let bias = a.get(3).map_or(0.0, |bt| {
                            let full = [bb, hh, i, j];
                            let skip = 4 - bt.shape.len();
                            let idx: Vec<usize> = (0..bt.shape.len())
                                .map(|d| if bt.shape[d] == 1 { 0 } else { full[skip + d] })
                                .collect();
                            bt.at(&idx)
                        });
                        dot * scale + bias
                    })
                    .collect();
                let m = (0..skv)
                    .filter(|&j| allowed(j))
                    .map(|j| p[j])
                    .fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = (0..skv)
                    .map(|j| if allowed(j) { (p[j] - m).exp() } else { 0.0 })
                    .collect();
                let z: f64 = e.iter().sum();
                for d in 0..hv {
                    let off = out.offset(&[bb, i, hh, d]);
                    out.data[off] = (0..skv).map(|j| e[j] / z * v.at(&[bb, j, hh, d])).sum();
                }
            }
        }
    }
    out
}

fn attention_plain(a: &[T]) -> Vec<T> {
    vec![attention_ref(a, None, None)]
}
fn attention_bias_bottom_right(a: &[T]) -> Vec<T> {
    vec![attention_ref(a, Some(0.5), Some(2))]
}
fn attention_top_left(a: &[T]) -> Vec<T> {
    vec![attention_ref(a, None, Some(0))]
}

fn max_pool1d_ceil_ref(a: &[T]) -> Vec<T> {
    vec![pool_ref(&a[0], &[2], &[2], &[1], &[(0, 1)], true, false)]
}
/// ceil_mode: the reference pads after by the extra cells the last window needs.
fn avg_pool2d_ceil_ref(a: &[T]) -> Vec<T> {
    vec![pool_ref(
        &a[0],
        &[3, 2],
        &[2, 2],
        &[1, 1],
        &[(1, 2), (0, 1)],
        false,
        false,
    )]
}

/// group_norm of NHWC data (channels last, 4 channels in 2 groups).
fn group_norm_nhwc(a: &[T]) -> Vec<T> {
    let x = &a[0];
    let key = |i: &[usize]| i[0] * 2 + i[3] / 2;
    let (m, v) = stats(x, key, 4);
    vec![map(x, |i, e| {
        (e - m[key(i)]) / (v[key(i)] + EPS).sqrt() * a[1].at(&[i[3]]) + a[2].at(&[i[3]])
    })]
}

/// batch_norm (inference) of NHWC data, without scale or center.
fn batch_norm_nhwc(a: &[T]) -> Vec<T> {
    let out = map(&a[0], |i, e| {
        let c = i[3];
        (e - a[3].at(&[c])) / (a[4].at(&[c]) + 1e-3).sqrt()
    });
    vec![out, a[3].clone(), a[4].clone()]
}

const CASES: &[Case] = &[
    Case {
        name: "rms_norm last axis",
        params: r#"x: R.Tensor((2, 3, 4), dtype="float32"), w: R.Tensor((4,), dtype="float32")"#,
        ret: r#"R.Tensor((2, 3, 4), dtype="float32")"#,
        call: "R.nn.rms_norm(x, w, axes=[-1], epsilon=1.0000000000000001e-05)",
        inputs: &[(&[2, 3, 4], false), (&[4], false)],
        reference: rms_last,
    },
    Case {
        name: "rms_norm two axes",
        params: r#"x: R.Tensor((2, 3, 4), dtype="float32"), w: R.Tensor((3, 4), dtype="float32")"#,
        ret: r#"R.Tensor((2, 3, 4), dtype="float32")"#,
        call: "R.nn.rms_norm(x, w, axes=[1, 2], epsilon=9.9999999999999995e-07)",
        inputs: &[(&[2, 3, 4], false), (&[3, 4], false)],
        reference: rms_two_axes,
    },
    Case {
        name: "group_norm",
        params: r#"x: R.Tensor((2, 4, 3, 2), dtype="float32"), g: R.Tensor((4,), dtype="float32"), b: R.Tensor((4,), dtype="float32")"#,
        ret: r#"R.Tensor((2, 4, 3, 2), dtype="float32")"#,
        call: "R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2, 3], epsilon=1.0000000000000001e-05, center=True, scale=True)",
        inputs: &[(&[2, 4, 3, 2], false), (&[4], false), (&[4], false)],
        reference: group_norm_ref,
    },
    Case {
        name: "instance_norm",
        params: r#"x: R.Tensor((2, 3, 2, 3), dtype="float32"), g: R.Tensor((3,), dtype="float32"), b: R.Tensor((3,), dtype="float32")"#,
        ret: r#"R.Tensor((2, 3, 2, 3), dtype="float32")"#,
        call: "R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2, 3], epsilon=1.0000000000000001e-05, center=True, scale=True)",
        inputs: &[(&[2, 3, 2, 3], false), (&[3], false), (&[3], false)],
        reference: instance_norm_ref,
    },
    Case {
        name: "batch_norm inference",
        params: r#"x: R.Tensor((2, 3, 2, 2), dtype="float32"), g: R.Tensor((3,), dtype="float32"), b: R.Tensor((3,), dtype="float32"), m: R.Tensor((3,), dtype="float32"), v: R.Tensor((3,), dtype="float32")"#,
        ret: r#"R.Tuple(R.Tensor((2, 3, 2, 2), dtype="float32"), R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32"))"#,
        call: "R.nn.batch_norm(x, g, b, m, v, axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=False)",
        inputs: &[
            (&[2, 3, 2, 2], false),
            (&[3], false),
            (&[3], false),
            (&[3], false),
            (&[3], true),
        ],
        reference: batch_norm_infer,
    },
    Case {
        name: "batch_norm training",
        params: r#"x: R.Tensor((2, 3, 2, 2), dtype="float32"), g: R.Tensor((3,), dtype="float32"), b: R.Tensor((3,), dtype="float32"), m: R.Tensor((3,), dtype="float32"), v: R.Tensor((3,), dtype="float32")"#,
        ret: r#"R.Tuple(R.Tensor((2, 3, 2, 2), dtype="float32"), R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32"))"#,
        call: "R.nn.batch_norm(x, g, b, m, v, axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=True)",
        inputs: &[
            (&[2, 3, 2, 2], false),
            (&[3], false),
            (&[3], false),
            (&[3], false),
            (&[3], true),
        ],
        reference: batch_norm_train,
    },
    Case {
        name: "relu6",
        params: r#"x: R.Tensor((3, 5), dtype="float32")"#,
        ret: r#"R.Tensor((3, 5), dtype="float32")"#,
        call: "R.nn.relu6(x)",
        inputs: &[(&[3, 5], true)],
        reference: relu6_ref,
    },
    Case {
        name: "selu",
        params: r#"x: R.Tensor((3, 5), dtype="float32")"#,
        ret: r#"R.Tensor((3, 5), dtype="float32")"#,
        call: "R.nn.selu(x)",
        inputs: &[(&[3, 5], false)],
        reference: selu_ref,
    },
    Case {
        name: "softplus",
        params: r#"x: R.Tensor((3, 5), dtype="float32")"#,
        ret: r#"R.Tensor((3, 5), dtype="float32")"#,
        call: "R.nn.softplus(x, beta=2.0, threshold=3.0)",
        inputs: &[(&[3, 5], false)],
        reference: softplus_ref,
    },
    Case {
        name: "prelu",
        params: r#"x: R.Tensor((2, 3, 4), dtype="float32"), a: R.Tensor((3,), dtype="float32")"#,
        ret: r#"R.Tensor((2, 3, 4), dtype="float32")"#,
        call: "R.nn.prelu(x, a, axis=1)",
        inputs: &[(&[2, 3, 4], false), (&[3], false)],
        reference: prelu_ref,
    },
    Case {
        name: "adaptive_avg_pool1d",
        params: r#"x: R.Tensor((1, 2, 7), dtype="float32")"#,
        ret: r#"R.Tensor((1, 2, 3), dtype="float32")"#,
        call: "R.nn.adaptive_avg_pool1d(x, output_size=[3], layout=\"NCW\")",
        inputs: &[(&[1, 2, 7], false)],
        reference: adaptive1,
    },
    Case {
        name: "adaptive_avg_pool2d",
        params: r#"x: R.Tensor((2, 2, 5, 7), dtype="float32")"#,
        ret: r#"R.Tensor((2, 2, 2, 3), dtype="float32")"#,
        call: "R.nn.adaptive_avg_pool2d(x, output_size=[2, 3], layout=\"NCHW\")",
        inputs: &[(&[2, 2, 5, 7], false)],
        reference: adaptive2,
    },
    Case {
        name: "adaptive_avg_pool2d without output_size",
        params: r#"x: R.Tensor((1, 2, 4, 5), dtype="float32")"#,
        ret: r#"R.Tensor((1, 2, 4, 5), dtype="float32")"#,
        call: "R.nn.adaptive_avg_pool2d(x)",
        inputs: &[(&[1, 2, 4, 5], false)],
        reference: adaptive2_same,
    },
    Case {
        name: "adaptive_avg_pool3d",
        params: r#"x: R.Tensor((1, 2, 3, 4, 2), dtype="float32")"#,
        ret: r#"R.Tensor((1, 2, 2, 2, 1), dtype="float32")"#,
        call: "R.nn.adaptive_avg_pool3d(x, output_size=[2, 2, 1], layout=\"NCDHW\")",
        inputs: &[(&[1, 2, 3, 4, 2], false)],
        reference: adaptive3,
    },
    Case {
        name: "batch_flatten",
        params: r#"x: R.Tensor((2, 3, 2, 2), dtype="float32")"#,
        ret: r#"R.Tensor((2, 12), dtype="float32")"#,
        call: "R.nn.batch_flatten(x)",
        inputs: &[(&[2, 3, 2, 2], false)],
        reference: batch_flatten_ref,
    },
    Case {
        name: "pixel_shuffle",
        params: r#"x: R.Tensor((1, 8, 2, 3), dtype="float32")"#,
        ret: r#"R.Tensor((1, 2, 4, 6), dtype="float32")"#,
        call: "R.nn.pixel_shuffle(x, upscale_factor=2)",
        inputs: &[(&[1, 8, 2, 3], false)],
        reference: pixel_shuffle_ref,
    },
    Case {
        name: "max_pool1d padded",
        params: r#"x: R.Tensor((1, 2, 7), dtype="float32")"#,
        ret: r#"R.Tensor((1, 2, 4), dtype="float32")"#,
        call: "R.nn.max_pool1d(x, pool_size=[3], strides=[2], dilation=[1], padding=[1, 1], ceil_mode=False, count_include_pad=False, layout=\"NCW\", out_layout=\"NCW\")",
        inputs: &[(&[1, 2, 7], false)],
        reference: max_pool1d_ref,
    },
    Case {
        name: "avg_pool1d dilated, padded, pad excluded",
        params: r#"x: R.Tensor((1, 2, 7), dtype="float32")"#,
        ret: r#"R.Tensor((1, 2, 2), dtype="float32")"#,
        call: "R.nn.avg_pool1d(x, pool_size=[3], strides=[2], dilation=[2], padding=[1, 0], ceil_mode=False, count_include_pad=False, layout=\"NCW\", out_layout=\"NCW\")",
        inputs: &[(&[1, 2, 7], false)],
        reference: avg_pool1d_ref,
    },
    Case {
        name: "max_pool3d",
        params: r#"x: R.Tensor((1, 2, 4, 4, 4), dtype="float32")"#,
        ret: r#"R.Tensor((1, 2, 2, 2, 2), dtype="float32")"#,
        call: "R.nn.max_pool3d(x, pool_size=[2, 2, 2], strides=[2, 2, 2], dilation=[1, 1, 1], padding=[0, 0, 0, 0, 0, 0], layout=\"NCDHW\")",
        inputs: &[(&[1, 2, 4, 4, 4], false)],
        reference: max_pool3d_ref,
    },
    Case {
        name: "avg_pool3d pad included",
        params: r#"x: R.Tensor((1, 2, 3, 4, 4), dtype="float32")"#,
        ret: r#"R.Tensor((1, 2, 4, 2, 3), dtype="float32")"#,
        call: "R.nn.avg_pool3d(x, pool_size=[2, 2, 2], strides=[1, 2, 2], dilation=[1, 1, 1], padding=[1, 0, 1, 1, 0, 1], count_include_pad=True, layout=\"NCDHW\")",
        inputs: &[(&[1, 2, 3, 4, 4], false)],
        reference: avg_pool3d_incl_ref,
    },
    Case {
        name: "avg_pool3d pad excluded",
        params: r#"x: R.Tensor((1, 2, 3, 4, 4), dtype="float32")"#,
        ret: r#"R.Tensor((1, 2, 4, 2, 3), dtype="float32")"#,
        call: "R.nn.avg_pool3d(x, pool_size=[2, 2, 2], strides=[1, 2, 2], dilation=[1, 1, 1], padding=[1, 0, 1, 1, 0, 1], count_include_pad=False, layout=\"NCDHW\")",
        inputs: &[(&[1, 2, 3, 4, 4], false)],
        reference: avg_pool3d_excl_ref,
    },
    Case {
        name: "conv3d grouped, strided, padded, dilated",
        params: r#"x: R.Tensor((1, 4, 3, 4, 4), dtype="float32"), w: R.Tensor((4, 2, 2, 3, 2), dtype="float32")"#,
        ret: r#"R.Tensor((1, 4, 2, 2, 3), dtype="float32")"#,
        call: "R.nn.conv3d(x, w, strides=[1, 2, 1], padding=[0, 1, 1, 0, 1, 0], dilation=[1, 1, 2], groups=2, data_layout=\"NCDHW\", kernel_layout=\"OIDHW\", out_layout=\"NCDHW\")",
        inputs: &[(&[1, 4, 3, 4, 4], false), (&[4, 2, 2, 3, 2], false)],
        reference: conv3d_ref,
    },
    Case {
        name: "conv1d_transpose strided, padded, output_padding",
        params: r#"x: R.Tensor((1, 2, 4), dtype="float32"), w: R.Tensor((2, 3, 3), dtype="float32")"#,
        ret: r#"R.Tensor((1, 3, 9), dtype="float32")"#,
        call: "R.nn.conv1d_transpose(x, w, strides=[2], padding=[1, 0], output_padding=[1], dilation=[1], groups=1, data_layout=\"NCW\", kernel_layout=\"IOW\", out_layout=\"NCW\")",
        inputs: &[(&[1, 2, 4], false), (&[2, 3, 3], false)],
        reference: conv1d_transpose_ref,
    },
    Case {
        name: "conv1d_transpose dilated, grouped, strided, padded",
        params: r#"x: R.Tensor((1, 4, 5), dtype="float32"), w: R.Tensor((4, 3, 3), dtype="float32")"#,
        ret: r#"R.Tensor((1, 6, 12), dtype="float32")"#,
        call: "R.nn.conv1d_transpose(x, w, strides=[2], padding=[1, 0], output_padding=[0], dilation=[2], groups=2, data_layout=\"NCW\", kernel_layout=\"IOW\", out_layout=\"NCW\")",
        inputs: &[(&[1, 4, 5], false), (&[4, 3, 3], false)],
        reference: conv1d_transpose_dilated_ref,
    },
    Case {
        name: "attention",
        params: r#"q: R.Tensor((1, 3, 2, 4), dtype="float32"), k: R.Tensor((1, 5, 2, 4), dtype="float32"), v: R.Tensor((1, 5, 2, 3), dtype="float32")"#,
        ret: r#"R.Tensor((1, 3, 2, 3), dtype="float32")"#,
        call: "R.nn.attention(q, k, v)",
        inputs: &[
            (&[1, 3, 2, 4], false),
            (&[1, 5, 2, 4], false),
            (&[1, 5, 2, 3], false),
        ],
        reference: attention_plain,
    },
    Case {
        name: "attention with bias, scale, BottomRight mask",
        params: r#"q: R.Tensor((2, 3, 2, 4), dtype="float32"), k: R.Tensor((2, 5, 2, 4), dtype="float32"), v: R.Tensor((2, 5, 2, 3), dtype="float32"), b: R.Tensor((2, 2, 3, 5), dtype="float32")"#,
        ret: r#"R.Tensor((2, 3, 2, 3), dtype="float32")"#,
        call: "R.nn.attention(q, k, v, b, scale=0.5, causal_mask=\"BottomRight\")",
        inputs: &[
            (&[2, 3, 2, 4], false),
            (&[2, 5, 2, 4], false),
            (&[2, 5, 2, 3], false),
            (&[2, 2, 3, 5], false),
        ],
        reference: attention_bias_bottom_right,
    },
    Case {
        name: "attention TopLeft mask",
        params: r#"q: R.Tensor((1, 4, 1, 2), dtype="float32"), k: R.Tensor((1, 4, 1, 2), dtype="float32"), v: R.Tensor((1, 4, 1, 2), dtype="float32")"#,
        ret: r#"R.Tensor((1, 4, 1, 2), dtype="float32")"#,
        call: "R.nn.attention(q, k, v, causal_mask=\"TopLeft\")",
        inputs: &[
            (&[1, 4, 1, 2], false),
            (&[1, 4, 1, 2], false),
            (&[1, 4, 1, 2], false),
        ],
        reference: attention_top_left,
    },
    Case {
        name: "cross_entropy_with_logits 2-D",
        params: r#"x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((3, 4), dtype="float32")"#,
        ret: r#"R.Tensor((), dtype="float32")"#,
        call: "R.nn.cross_entropy_with_logits(x, y)",
        inputs: &[(&[3, 4], false), (&[3, 4], true)],
        reference: cross_entropy_2d,
    },
    Case {
        name: "cross_entropy_with_logits 1-D",
        params: r#"x: R.Tensor((5,), dtype="float32"), y: R.Tensor((5,), dtype="float32")"#,
        ret: r#"R.Tensor((), dtype="float32")"#,
        call: "R.nn.cross_entropy_with_logits(x, y)",
        inputs: &[(&[5], false), (&[5], true)],
        reference: cross_entropy_1d,
    },
    Case {
        name: "nll_loss mean, weights, ignore_index",
        params: r#"p: R.Tensor((3, 4, 2), dtype="float32"), t: R.Tensor((3, 2), dtype="int64"), w: R.Tensor((4,), dtype="float32")"#,
        ret: r#"R.Tensor((), dtype="float32")"#,
        call: "R.nn.nll_loss(p, t, w, reduction=\"mean\", ignore_index=1)",
        inputs: &[(&[3, 4, 2], false), (&[3, 2], false), (&[4], true)],
        reference: nll_mean,
    },
    Case {
        name: "nll_loss sum",
        params: r#"p: R.Tensor((5, 4), dtype="float32"), t: R.Tensor((5,), dtype="int64")"#,
        ret: r#"R.Tensor((), dtype="float32")"#,
        call: "R.nn.nll_loss(p, t, reduction=\"sum\")",
        inputs: &[(&[5, 4], false), (&[5], false)],
        reference: nll_sum,
    },
    Case {
        name: "nll_loss none",
        params: r#"p: R.Tensor((5, 4), dtype="float32"), t: R.Tensor((5,), dtype="int64"), w: R.Tensor((4,), dtype="float32")"#,
        ret: r#"R.Tensor((5,), dtype="float32")"#,
        call: "R.nn.nll_loss(p, t, w, reduction=\"none\", ignore_index=2)",
        inputs: &[(&[5, 4], false), (&[5], false), (&[4], true)],
        reference: nll_none,
    },
    Case {
        name: "rms_norm symbolic batch",
        params: r#"x: R.Tensor(("n", 4), dtype="float32"), w: R.Tensor((4,), dtype="float32")"#,
        ret: r#"R.Tensor(("n", 4), dtype="float32")"#,
        call: "R.nn.rms_norm(x, w, axes=[-1], epsilon=1.0000000000000001e-05)",
        inputs: &[(&[3, 4], false), (&[4], false)],
        reference: rms_2d,
    },
    Case {
        name: "batch_flatten symbolic",
        params: r#"x: R.Tensor(("n", 3, "m"), dtype="float32")"#,
        ret: r#"R.Tensor(("n", "m * 3"), dtype="float32")"#,
        call: "R.nn.batch_flatten(x)",
        inputs: &[(&[2, 3, 4], false)],
        reference: batch_flatten_ref,
    },
    Case {
        name: "max_pool1d ceil_mode",
        params: r#"x: R.Tensor((1, 2, 5), dtype="float32")"#,
        ret: r#"R.Tensor((1, 2, 3), dtype="float32")"#,
        call: "R.nn.max_pool1d(x, pool_size=[2], strides=[2], ceil_mode=True, layout=\"NCW\")",
        inputs: &[(&[1, 2, 5], false)],
        reference: max_pool1d_ceil_ref,
    },
    Case {
        name: "avg_pool2d ceil_mode, padded, pad excluded",
        params: r#"x: R.Tensor((1, 2, 6, 5), dtype="float32")"#,
        ret: r#"R.Tensor((1, 2, 4, 3), dtype="float32")"#,
        call: "R.nn.avg_pool2d(x, pool_size=[3, 2], strides=[2, 2], padding=[1, 0, 1, 0], ceil_mode=True, count_include_pad=False, layout=\"NCHW\")",
        inputs: &[(&[1, 2, 6, 5], false)],
        reference: avg_pool2d_ceil_ref,
    },
    Case {
        name: "group_norm channels last",
        params: r#"x: R.Tensor((2, 3, 2, 4), dtype="float32"), g: R.Tensor((4,), dtype="float32"), b: R.Tensor((4,), dtype="float32")"#,
        ret: r#"R.Tensor((2, 3, 2, 4), dtype="float32")"#,
        call: "R.nn.group_norm(x, g, b, num_groups=2, channel_axis=-1, axes=[1, 2], epsilon=1.0000000000000001e-05, center=True, scale=True)",
        inputs: &[(&[2, 3, 2, 4], false), (&[4], false), (&[4], false)],
        reference: group_norm_nhwc,
    },
    Case {
        name: "batch_norm channels last, no scale or center",
        params: r#"x: R.Tensor((2, 2, 2, 3), dtype="float32"), g: R.Tensor((3,), dtype="float32"), b: R.Tensor((3,), dtype="float32"), m: R.Tensor((3,), dtype="float32"), v: R.Tensor((3,), dtype="float32")"#,
        ret: r#"R.Tuple(R.Tensor((2, 2, 2, 3), dtype="float32"), R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32"))"#,
        call: "R.nn.batch_norm(x, g, b, m, v, axis=-1, epsilon=0.001, center=False, scale=False, momentum=0.10000000000000001, training=False)",
        inputs: &[
            (&[2, 2, 2, 3], false),
            (&[3], false),
            (&[3], false),
            (&[3], false),
            (&[3], true),
        ],
        reference: batch_norm_nhwc,
    },
    Case {
        name: "cross_entropy_with_logits 3-D",
        params: r#"x: R.Tensor((2, 3, 2), dtype="float32"), y: R.Tensor((2, 3, 2), dtype="float32")"#,
        ret: r#"R.Tensor((), dtype="float32")"#,
        call: "R.nn.cross_entropy_with_logits(x, y)",
        inputs: &[(&[2, 3, 2], false), (&[2, 3, 2], true)],
        reference: cross_entropy_3d,
    },
    Case {
        name: "attention with a broadcast (1, S, S_kv) bias",
        params: r#"q: R.Tensor((2, 3, 2, 4), dtype="float32"), k: R.Tensor((2, 5, 2, 4), dtype="float32"), v: R.Tensor((2, 5, 2, 3), dtype="float32"), b: R.Tensor((1, 3, 5), dtype="float32")"#,
        ret: r#"R.Tensor((2, 3, 2, 3), dtype="float32")"#,
        call: "R.nn.attention(q, k, v, b)",
        inputs: &[
            (&[2, 3, 2, 4], false),
            (&[2, 5, 2, 4], false),
            (&[2, 5, 2, 3], false),
            (&[1, 3, 5], false),
        ],
        reference: attention_plain,
    },
    Case {
        name: "conv1d_transpose grouped",
        params: r#"x: R.Tensor((1, 4, 4), dtype="float32"), w: R.Tensor((4, 3, 3), dtype="float32")"#,
        ret: r#"R.Tensor((1, 6, 6), dtype="float32")"#,
        call: "R.nn.conv1d_transpose(x, w, strides=[1], padding=[0, 0], output_padding=[0], dilation=[1], groups=2, data_layout=\"NCW\", kernel_layout=\"IOW\", out_layout=\"NCW\")",
        inputs: &[(&[1, 4, 4], false), (&[4, 3, 3], false)],
        reference: conv1d_transpose_grouped_ref,
    },
    Case {
        name: "conv2d_transpose grouped",
        params: r#"x: R.Tensor((1, 4, 3, 2), dtype="float32"), w: R.Tensor((4, 1, 2, 3), dtype="float32")"#,
        ret: r#"R.Tensor((1, 2, 4, 4), dtype="float32")"#,
        call: "R.nn.conv2d_transpose(x, w, strides=[1, 1], padding=[0, 0, 0, 0], output_padding=[0, 0], dilation=[1, 1], groups=2, data_layout=\"NCHW\", kernel_layout=\"IOHW\", out_layout=\"NCHW\")",
        inputs: &[(&[1, 4, 3, 2], false), (&[4, 1, 2, 3], false)],
        reference: conv2d_transpose_grouped_ref,
    },
];

fn module_text(case: &Case) -> String {
    format!(
        "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n\
         @I.ir_module\nclass Module:\n    @R.function\n    def main({}) -> {}:\n        \
         with R.dataflow():\n            y = {}\n            R.output(y)\n        return y\n",
        case.params, case.ret, case.call
    )
}

fn run_case(case: &Case) -> Result<(), String> {
    let module = relax::parse_module(&module_text(case)).map_err(|e| format!("parse: {e}"))?;
    let out = relax::legalize::legalize_ops(&module).map_err(|e| format!("legalize: {e}"))?;
    coverage(&out).map_err(|e| format!("not a call_tir chain: {e}"))?;
    let ins: Vec<T> = case
        .inputs
        .iter()
        .enumerate()
        .map(|(k, (s, pos))| {
            if case.name == "relu6" {
                wide(s)
            } else if case.name.starts_with("nll_loss") && k == 1 {
                targets(s)
            } else {
                input(s, k, *pos)
            }
        })
        .collect();
    // The interpreter sees f32 inputs; the reference uses the same rounded values.
    let ins: Vec<T> = ins
        .into_iter()
        .map(|t| T {
            data: t.data.iter().map(|&v| f64::from(v as f32)).collect(),
            ..t
        })
        .collect();
    let values: Vec<Value> = ins
        .iter()
        .enumerate()
        .map(|(k, t)| {
            value_from_json(&if case.name.starts_with("nll_loss") && k == 1 {
                t.json_i64()
            } else {
                t.json()
            })
        })
        .collect::<Result<_, _>>()?;
    let got = run_main(&out, &values)?;
    let want = (case.reference)(&ins);
    let want = if want.len() == 1 {
        want[0].json()
    } else {
        json!({"tuple": want.iter().map(T::json).collect::<Vec<_>>()})
    };
    compare(&got, &want, 1e-5, 1e-5)
}

#[test]
fn nn_rules_match_reference_implementations() {
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|c| run_case(c).err().map(|e| format!("{}: {e}", c.name)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unsupported_attributes_are_errors_naming_the_operator() {
    let cases = [
        (
            r#"x: R.Tensor((1, 2, 4, 4), dtype="float32")"#,
            r#"R.Tensor((1, 2, 2, 4), dtype="float32")"#,
            "R.nn.adaptive_avg_pool2d(x, output_size=[2, 2], layout=\"NHWC\")",
            "relax.nn.adaptive_avg_pool2d",
        ),
        (
            r#"x: R.Tensor((3, 5), dtype="float32")"#,
            r#"R.Tensor((3, 5), dtype="float32")"#,
            "R.nn.softplus(x, beta=0.0, threshold=20.0)",
            "relax.nn.softplus",
        ),
        (
            r#"x: R.Tensor((1, 2, 4), dtype="float32"), w: R.Tensor((2, 3, 3), dtype="float32")"#,
            r#"R.Tensor((1, 3, 4), dtype="float32")"#,
            "R.nn.conv1d_transpose(x, w, strides=[1], padding=[0, 0], dilation=[0])",
            "relax.nn.conv1d_transpose",
        ),
    ];
    for (params, ret, call, op) in cases {
        let case = Case {
            name: "",
            params,
            ret,
            call,
            inputs: &[],
            reference: |_| Vec::new(),
        };
        let module = relax::parse_module(&module_text(&case)).expect("parses");
        let err = relax::legalize::legalize_ops(&module)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains(op) && err.contains("LegalizeOps"),
            "{call}: {err}"
        );
    }
}

/// Norms of float16 data accumulate in float32 and round the result back to float16.
#[test]
fn float16_norms_accumulate_in_float32() {
    let cases: [(&str, &str, &str, Reference); 2] = [
        (
            r#"x: R.Tensor((2, 3, 4), dtype="float16"), w: R.Tensor((4,), dtype="float16")"#,
            r#"R.Tensor((2, 3, 4), dtype="float16")"#,
            "R.nn.rms_norm(x, w, axes=[-1], epsilon=1.0000000000000001e-05)",
            rms_last,
        ),
        (
            r#"x: R.Tensor((2, 3, 2, 3), dtype="float16"), g: R.Tensor((3,), dtype="float16"), b: R.Tensor((3,), dtype="float16")"#,
            r#"R.Tensor((2, 3, 2, 3), dtype="float16")"#,
            "R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2, 3], epsilon=1.0000000000000001e-05, center=True, scale=True)",
            instance_norm_ref,
        ),
    ];
    let f16 = |t: &T| json!({"tensor": {"dtype": "float16", "shape": t.shape, "data": t.data}});
    for (params, ret, call, reference) in cases {
        let case = Case {
            name: "",
            params,
            ret,
            call,
            inputs: &[],
            reference,
        };
        let module = relax::parse_module(&module_text(&case)).expect("parses");
        let out = relax::legalize::legalize_ops(&module).expect("legalizes");
        let main = module.relax_function("main").expect("main");
        let ins: Vec<T> = main
            .params
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let shape: Vec<usize> = p
                    .struct_info()
                    .tensor_shape()
                    .map(|s| {
                        s.iter()
                            .filter_map(|d| d.as_int())
                            .map(|d| d as usize)
                            .collect()
                    })
                    .unwrap_or_default();
                let t = input(&shape, k, false);
                T {
                    data: t
                        .data
                        .iter()
                        .map(|&v| half::f16::from_f64(v).to_f64())
                        .collect(),
                    ..t
                }
            })
            .collect();
        let values: Vec<Value> = ins
            .iter()
            .map(|t| value_from_json(&f16(t)))
            .collect::<Result<_, _>>()
            .expect("inputs");
        let got = run_main(&out, &values).expect("runs");
        let want = reference(&ins);
        compare(&got, &f16(&want[0]), 2e-3, 2e-3).unwrap_or_else(|e| panic!("{call}: {e}"));
    }
}
