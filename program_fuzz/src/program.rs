//! A seed → a random Relax program ([`Case`]): one operator that has a library fast path
//! (`relax::transform::dispatch_library`), with random but mostly valid shapes and attributes
//! chosen to reach the forms DispatchLibrary rewrites and the edges of their kernels, then
//! sometimes the epilogue the library fuses (bias add, relu/gelu, residual add, batch norm).
//! A few programs are made invalid (an argument of the wrong shape, rank or dtype at run time,
//! or a declared shape that contradicts the operator), so that both paths must fail.
//!
//! The families (weights in [`FAMILIES`]): matmul (2-D, batched, broadcast batch with extents
//! 0 and 1, matrix-vector, vector-matrix, `x @ w.T` through `R.permute_dims`, the strided
//! attention view, symbolic rows, constant weights), conv1d/conv2d/conv3d (groups, depthwise,
//! strides, dilation, asymmetric padding, tiny and one-column images, kernels bigger than the
//! image, constant weights large enough for the packed and Winograd kernels),
//! conv1d/conv2d_transpose, max/avg pool 2d, adaptive_avg_pool2d, softmax/log_softmax,
//! layer_norm, concat, LRN (the eight bindings of the ONNX lowering), take, argmax/argmin and
//! the spatial mean.

use kernel_fuzz::rng::Rng;

use crate::case::{Case, Compare, TensorSpec};

/// The operator families and their weights.
pub const FAMILIES: [(&str, u64); 16] = [
    ("matmul", 22),
    ("conv2d", 18),
    ("conv1d", 5),
    ("conv3d", 4),
    ("conv2d_transpose", 6),
    ("conv1d_transpose", 3),
    ("pool2d", 10),
    ("adaptive_avg_pool2d", 3),
    ("softmax", 5),
    ("layer_norm", 5),
    ("concat", 5),
    ("lrn", 4),
    ("take", 5),
    ("argreduce", 5),
    ("spatial_mean", 3),
    ("invalid_matmul", 1),
];

/// A dimension: its value, and the symbolic variable that declares it (if any).
#[derive(Clone, Copy, Debug)]
struct Dim {
    v: i64,
    sym: Option<&'static str>,
}

fn st(v: i64) -> Dim {
    Dim { v, sym: None }
}

fn sts(vs: &[i64]) -> Vec<Dim> {
    vs.iter().map(|&v| st(v)).collect()
}

fn values(ds: &[Dim]) -> Vec<i64> {
    ds.iter().map(|d| d.v).collect()
}

fn shape_text(ds: &[Dim]) -> String {
    let items: Vec<String> = ds
        .iter()
        .map(|d| d.sym.map_or_else(|| d.v.to_string(), str::to_string))
        .collect();
    match items.len() {
        1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}

fn list(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(", "))
}

fn py(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

struct Param {
    name: String,
    dtype: String,
    dims: Vec<Dim>,
    range: Option<(i64, i64)>,
}

/// A program being built.
#[derive(Default)]
struct Prog {
    params: Vec<Param>,
    consts: Vec<TensorSpec>,
    body: Vec<String>,
    /// The result so far (a variable of the body).
    last: String,
    next: usize,
    /// The longest sum an output element is made of.
    reduction: u64,
    /// The computation is exact on small integers (no division, transcendental function).
    exact: bool,
    /// The computation is exact on any values (copies, comparisons).
    always_exact: bool,
}

impl Prog {
    fn param(&mut self, name: &str, dtype: &str, dims: Vec<Dim>) -> String {
        self.params.push(Param {
            name: name.to_string(),
            dtype: dtype.to_string(),
            dims,
            range: None,
        });
        name.to_string()
    }

    /// A weight: a parameter, or a metadata constant when `constant`.
    fn weight(&mut self, name: &str, dtype: &str, shape: &[i64], constant: bool) -> String {
        if constant {
            self.consts.push(TensorSpec::new(dtype, shape));
            format!("metadata[\"ir.GenericConst\"][{}]", self.consts.len() - 1)
        } else {
            self.param(name, dtype, sts(shape))
        }
    }

    /// Binds `value` to a fresh variable, which becomes the result.
    fn bind(&mut self, value: String) -> String {
        let v = format!("t{}", self.next);
        self.next += 1;
        self.body.push(format!("{v} = {value}"));
        self.last = v.clone();
        v
    }

    fn script(&self) -> String {
        let mut syms: Vec<&str> = self
            .params
            .iter()
            .flat_map(|p| p.dims.iter().filter_map(|d| d.sym))
            .collect();
        syms.sort_unstable();
        syms.dedup();
        let mut s =
            String::from("# from tvm.script import ir as I\n# from tvm.script import relax as R\n");
        for v in &syms {
            s += &format!("{v} = TypeVar(\"{v}\")\n");
        }
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| {
                format!(
                    "{}: R.Tensor({}, dtype=\"{}\")",
                    p.name,
                    shape_text(&p.dims),
                    p.dtype
                )
            })
            .collect();
        s += "\n@I.ir_module\nclass Module:\n    @R.function\n";
        s += &format!("    def main({}):\n", params.join(", "));
        s += "        with R.dataflow():\n";
        for line in &self.body {
            s += &format!("            {line}\n");
        }
        s += &format!("            y = {}\n", self.last);
        s += "            R.output(y)\n        return y\n";
        s
    }
}

/// A dimension of a tensor: mostly small, sometimes long enough for the kernels' tiles.
fn dim(r: &mut Rng) -> i64 {
    match r.weighted(&[20, 50, 25, 5]) {
        0 => 1,
        1 => r.range(2, 8),
        2 => r.range(9, 40),
        _ => r.range(41, 130),
    }
}

fn small(r: &mut Rng) -> i64 {
    if r.percent(25) { 1 } else { r.range(2, 6) }
}

fn float_dtype(r: &mut Rng) -> &'static str {
    if r.percent(75) { "float32" } else { "float64" }
}

/// The epilogue after a matmul or convolution of output `out` (channels at axis 1 when
/// `channels`): a bias, a residual, an activation, a batch norm, in the orders the library
/// fuses and a few it does not.
fn epilogue(r: &mut Rng, p: &mut Prog, dtype: &str, out: &[Dim], channels: bool) {
    // An invalid window has no output to add to.
    if out.iter().any(|d| d.v < 0) {
        return;
    }
    if channels && r.percent(12) {
        let c = out[1];
        for n in ["gamma", "beta", "mean"] {
            p.param(n, dtype, vec![c]);
        }
        p.param("var", dtype, vec![c]);
        p.body.push("vpos = R.abs(var)".into());
        let last = p.last.clone();
        p.body.push(format!(
            "bnt = R.nn.batch_norm({last}, gamma, beta, mean, vpos, axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=False)"
        ));
        p.bind("bnt[0]".into());
        p.exact = false;
    }
    let act_first = r.percent(10);
    let act = |r: &mut Rng, p: &mut Prog| {
        if r.percent(45) {
            let a = *r.pick(&["relu", "relu", "gelu", "gelu_tanh"]);
            if a != "relu" {
                p.exact = false;
            }
            let last = p.last.clone();
            p.bind(format!("R.nn.{a}({last})"));
        }
    };
    if act_first {
        act(r, p);
    }
    if !out.is_empty() && r.percent(40) {
        let last = p.last.clone();
        if channels && r.percent(70) {
            let c = out[1];
            if r.percent(60) {
                let mut shape = vec![st(1), c];
                shape.extend(std::iter::repeat_n(st(1), out.len() - 2));
                p.param("bias", dtype, shape);
                p.bind(format!("R.add({last}, bias)"));
            } else {
                let mut shape = vec![c];
                shape.extend(std::iter::repeat_n(st(1), out.len() - 2));
                p.param("bias", dtype, shape);
                p.bind(format!("R.add(bias, {last})"));
            }
        } else {
            p.param("bias", dtype, vec![*out.last().expect("rank ≥ 1")]);
            p.bind(format!("R.add({last}, bias)"));
        }
    }
    if r.percent(30) {
        let last = p.last.clone();
        p.param("res", dtype, out.to_vec());
        if r.percent(50) {
            p.bind(format!("R.add(res, {last})"));
        } else {
            p.bind(format!("R.add({last}, res)"));
        }
    }
    if !act_first {
        act(r, p);
    }
    if r.percent(40) {
        let last = p.last.clone();
        p.bind(format!("R.add({last}, R.const(0.5, \"{dtype}\"))"));
    }
}

/// Broadcast of two batch shapes (numpy rules; an incompatible pair keeps the first).
fn broadcast(a: &[Dim], b: &[Dim]) -> Vec<Dim> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let x = (i + a.len()).checked_sub(n).map(|j| a[j]);
            let y = (i + b.len()).checked_sub(n).map(|j| b[j]);
            match (x, y) {
                (Some(x), Some(y)) => {
                    if x.v == 1 {
                        y
                    } else {
                        x
                    }
                }
                (Some(x), None) | (None, Some(x)) => x,
                (None, None) => unreachable!(),
            }
        })
        .collect()
}

fn matmul(r: &mut Rng, p: &mut Prog, invalid: bool) {
    let dt = float_dtype(r);
    let (mut m, k, n) = if r.percent(6) {
        // Large enough for the GEMM's column blocks to be split over the threads.
        (st(r.range(64, 300)), r.range(64, 300), r.range(64, 300))
    } else {
        (st(dim(r)), if r.percent(3) { 0 } else { dim(r) }, dim(r))
    };
    p.reduction = k.max(1) as u64;
    p.exact = true;
    let form = r.weighted(&[25, 18, 15, 8, 5, 17, 12]);
    if r.percent(20) && form != 6 {
        m.sym = Some("m");
    }
    let batch = |r: &mut Rng| -> Vec<Dim> {
        (0..r.range(1, 2))
            .map(|_| st(if r.percent(8) { 0 } else { small(r) }))
            .collect()
    };
    let out: Vec<Dim>;
    match form {
        // 2-D, batched (the same batch), broadcast batch.
        0..=2 => {
            let (ab, bb) = match form {
                0 => (vec![], vec![]),
                1 => {
                    let b = batch(r);
                    (b.clone(), b)
                }
                _ => {
                    let mut ab = Vec::new();
                    let mut bb = Vec::new();
                    for _ in 0..r.range(1, 3) {
                        let x = if r.percent(10) { 0 } else { small(r) };
                        match r.below(4) {
                            0 => {
                                ab.push(st(x));
                                bb.push(st(1));
                            }
                            1 => {
                                ab.push(st(1));
                                bb.push(st(x));
                            }
                            2 => {
                                ab.push(st(x));
                                bb.push(st(x));
                            }
                            _ => {
                                ab.push(st(1));
                                bb.push(st(1));
                            }
                        }
                    }
                    // One operand may have fewer batch axes.
                    if r.percent(40) {
                        let drop = r.range(1, ab.len() as i64) as usize;
                        if r.percent(50) {
                            ab.drain(..drop);
                        } else {
                            bb.drain(..drop);
                        }
                    }
                    (ab, bb)
                }
            };
            let mut a = ab.clone();
            a.extend([m, st(k)]);
            let mut b = bb.clone();
            b.extend([st(if invalid { k + 1 } else { k }), st(n)]);
            p.param("a", dt, a);
            let constant = ab.is_empty() && r.percent(15);
            let w = if bb.is_empty() {
                p.weight("b", dt, &values(&b), constant)
            } else {
                p.param("b", dt, b)
            };
            let od = match r.below(3) {
                0 => String::new(),
                1 => format!(", out_dtype=\"{dt}\""),
                _ => ", out_dtype=None".to_string(),
            };
            p.bind(format!("R.matmul(a, {w}{od})"));
            let mut o = broadcast(&ab, &bb);
            o.extend([m, st(n)]);
            out = o;
        }
        // Matrix-vector.
        3 => {
            let mut a = if r.percent(40) { batch(r) } else { vec![] };
            let mut o = a.clone();
            a.extend([m, st(k)]);
            p.param("a", dt, a);
            p.param("b", dt, vec![st(k)]);
            p.bind("R.matmul(a, b)".into());
            o.push(m);
            out = o;
        }
        // Vector-matrix.
        4 => {
            let mut b = if r.percent(40) { batch(r) } else { vec![] };
            let mut o = b.clone();
            b.extend([st(k), st(n)]);
            p.param("a", dt, vec![st(k)]);
            p.param("b", dt, b);
            p.bind("R.matmul(a, b)".into());
            o.push(st(n));
            out = o;
        }
        // `x @ w.T`.
        5 => {
            let mut a = if r.percent(40) { batch(r) } else { vec![] };
            let mut o = a.clone();
            a.extend([m, st(k)]);
            p.param("a", dt, a);
            let w = p.weight("w", dt, &[n, k], r.percent(30));
            let axes = *r.pick(&["axes=None", "axes=[1, 0]"]);
            p.bind(format!("R.permute_dims({w}, {axes})"));
            let bt = p.last.clone();
            p.bind(format!("R.matmul(a, {bt}, out_dtype=None)"));
            o.extend([m, st(n)]);
            out = o;
        }
        // Operands read in place through strides (`relaxjit.matmul_view`): permuted 3-D
        // tensors (attention heads), a reshape before the permute, a transposed left
        // operand; then a scale, a permuted and a reshaped output.
        _ => {
            let (h, s1, s2, d) = (small(r), dim(r).min(48), dim(r).min(48), k.max(1));
            p.reduction = d as u64;
            let mut o;
            match r.below(3) {
                0 => {
                    p.param("q", dt, sts(&[s1, h, d]));
                    p.bind("R.permute_dims(q, axes=[1, 0, 2])".into());
                    let qt = p.last.clone();
                    if r.percent(50) {
                        p.param("kk", dt, sts(&[s2, h, d]));
                        p.bind("R.permute_dims(kk, axes=[1, 2, 0])".into());
                    } else {
                        p.param("kk", dt, sts(&[h, d, s2]));
                        p.last = "kk".into();
                    }
                    let kt = p.last.clone();
                    p.bind(format!("R.matmul({qt}, {kt}, out_dtype=None)"));
                    o = vec![h, s1, s2];
                }
                1 => {
                    p.param("q", dt, sts(&[s1, h * d]));
                    p.bind(format!("R.reshape(q, R.shape([{s1}, {h}, {d}]))"));
                    let qr = p.last.clone();
                    p.bind(format!("R.permute_dims({qr}, axes=[1, 0, 2])"));
                    let qt = p.last.clone();
                    let hb = if r.percent(30) { 1 } else { h };
                    p.param("v", dt, sts(&[hb, d, s2]));
                    p.bind(format!("R.matmul({qt}, v)"));
                    o = vec![h, s1, s2];
                }
                _ => {
                    p.param("at", dt, sts(&[d, s1]));
                    p.bind("R.permute_dims(at, axes=None)".into());
                    let a = p.last.clone();
                    p.param("b", dt, sts(&[d, s2]));
                    p.bind(format!("R.matmul({a}, b)"));
                    o = vec![s1, s2];
                }
            }
            if r.percent(50) {
                let last = p.last.clone();
                p.bind(format!("R.multiply({last}, R.const(0.25, \"{dt}\"))"));
            }
            if o.len() == 3 && r.percent(50) {
                let last = p.last.clone();
                p.bind(format!("R.permute_dims({last}, axes=[1, 0, 2])"));
                o = vec![o[1], o[0], o[2]];
                if r.percent(50) {
                    let last = p.last.clone();
                    p.bind(format!(
                        "R.reshape({last}, R.shape([{}, {}]))",
                        o[0],
                        o[1] * o[2]
                    ));
                    o = vec![o[0], o[1] * o[2]];
                }
            }
            out = sts(&o);
        }
    }
    epilogue(r, p, dt, &out, false);
}

/// The output extent of a convolution window along one axis (< 1 if none fits).
fn conv_ext(size: i64, lo: i64, hi: i64, k: i64, s: i64, d: i64) -> i64 {
    let num =
        i128::from(size) + i128::from(lo) + i128::from(hi) - i128::from(d) * i128::from(k - 1) - 1;
    (num.div_euclid(i128::from(s)) + 1).clamp(i64::MIN.into(), i64::MAX.into()) as i64
}

/// The channels of a grouped convolution: (in, out, groups).
fn channels(r: &mut Rng) -> (i64, i64, i64) {
    match r.weighted(&[50, 25, 25]) {
        0 => (small(r), small(r), 1),
        // Depthwise, with a channel multiplier.
        1 => {
            let c = r.range(1, 8);
            (c, c * *r.pick(&[1, 1, 2, 3]), c)
        }
        _ => {
            let g = r.range(2, 4);
            (g * r.range(1, 3), g * r.range(1, 3), g)
        }
    }
}

/// Spatial axes of a convolution: image sizes, kernel, stride, dilation and padding (before,
/// after) per axis; a valid window fits unless `invalid`.
#[allow(clippy::type_complexity)]
fn window(
    r: &mut Rng,
    axes: usize,
    invalid: bool,
) -> (Vec<i64>, Vec<i64>, Vec<i64>, Vec<i64>, Vec<[i64; 2]>) {
    let (mut size, mut k, mut s, mut d, mut pad) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..axes {
        let sz = match r.weighted(&[15, 15, 50, 20]) {
            0 => 1,
            1 => 2,
            2 => r.range(3, 9),
            _ => r.range(10, 20),
        };
        let kk = *r.pick(&[1, 1, 2, 3, 3, 3, 4, 5]);
        let mut ss = *r.pick(&[1, 1, 1, 2, 2, 3, 4]);
        let mut dd = if r.percent(20) { r.range(2, 3) } else { 1 };
        // Extreme attributes: one window per axis, or an overflowing extent.
        if r.percent(2) {
            ss = *r.pick(&[1 << 31, 1 << 40, 1 << 62, i64::MAX]);
        }
        if r.percent(1) {
            dd = *r.pick(&[1 << 31, 1 << 62, i64::MAX]);
        }
        let mut pp = [r.range(0, 3), r.range(0, 3)];
        if r.percent(40) {
            pp = [0, 0];
        }
        // Keep a window inside the padded image, unless invalid (or the dilation is extreme).
        while !invalid && dd < 100 && conv_ext(sz, pp[0], pp[1], kk, ss, dd) < 1 {
            pp[r.below(2) as usize] += 1;
        }
        size.push(sz);
        k.push(kk);
        s.push(ss);
        d.push(dd);
        pad.push(pp);
    }
    (size, k, s, d, pad)
}

/// conv1d, conv2d or conv3d (`axes` spatial axes).
fn conv(r: &mut Rng, p: &mut Prog, axes: usize, invalid: bool) {
    let dt = if r.percent(85) { "float32" } else { "float64" };
    let batch = *r.pick(&[1, 1, 1, 2, 3]) * i64::from(!r.percent(2));
    let (mut c, mut o, mut g) = channels(r);
    let (mut size, mut k, mut s, d, mut pad) = window(r, axes, invalid);
    // Large enough for the channel-packed and the Winograd kernels of constant weights.
    let mut constant = r.percent(25);
    if axes == 2 && r.percent(10) {
        g = 1;
        constant = r.percent(70);
        if r.percent(60) {
            (c, o) = (r.range(16, 24), *r.pick(&[16, 24, 32, 40, 64]));
            k = vec![3, 3];
            s = vec![1, *r.pick(&[1, 1, 2])];
            size = vec![r.range(12, 17), r.range(12, 17)];
            pad = vec![[1, 1], [1, 1]];
        } else {
            (c, o) = (r.range(161, 200), 32);
            k = vec![1, 1];
            s = vec![*r.pick(&[1, 2]), *r.pick(&[1, 2])];
            size = vec![r.range(2, 8), r.range(2, 8)];
            pad = vec![[0, 0], [0, 0]];
        }
    } else if axes == 2 && r.percent(7) {
        // Planes large enough for the column tiles to be split over the threads.
        (c, o, g) = if r.percent(70) {
            (r.range(2, 32), r.range(2, 64), 1)
        } else {
            let c = r.range(4, 48);
            (c, c, c)
        };
        let kk = *r.pick(&[1, 3, 3, 5]);
        k = vec![kk, kk];
        s = vec![*r.pick(&[1, 1, 2]), *r.pick(&[1, 1, 2])];
        size = vec![r.range(20, 56), r.range(20, 56)];
        pad = vec![[kk / 2, kk / 2], [kk / 2, kk / 2 + r.range(0, 1)]];
    }
    let sym_batch = r.percent(10);
    p.reduction = (c / g * k.iter().product::<i64>()) as u64;
    // Winograd's transforms round even sums of small integers.
    let winograd = k == [3, 3] && s == [1, 1] && d == [1, 1] && g == 1 && o >= 16 && c >= 16;
    p.exact = !winograd;
    let mut x = vec![batch, c];
    x.extend(&size);
    let mut w = vec![o, if invalid && r.percent(50) { c } else { c / g }];
    w.extend(&k);
    let bdim = Dim {
        v: batch,
        sym: sym_batch.then_some("n"),
    };
    let mut xd = sts(&x);
    xd[0] = bdim;
    p.param("x", dt, xd);
    let wname = p.weight("w", dt, &w, constant);
    let (op, layouts) = match axes {
        1 => ("conv1d", ["NCW", "OIW"]),
        2 => ("conv2d", ["NCHW", "OIHW"]),
        _ => ("conv3d", ["NCDHW", "OIDHW"]),
    };
    let padding: Vec<i64> = pad
        .iter()
        .map(|p| p[0])
        .chain(pad.iter().map(|p| p[1]))
        .collect();
    let od = if r.below(2) == 0 {
        format!("\"{dt}\"")
    } else {
        "None".to_string()
    };
    p.bind(format!(
        "R.nn.{op}(x, {wname}, strides={}, padding={}, dilation={}, groups={g}, data_layout=\"{}\", kernel_layout=\"{}\", out_layout=\"{}\", out_dtype={od})",
        list(&s),
        list(&padding),
        list(&d),
        layouts[0],
        layouts[1],
        layouts[0]
    ));
    let mut out = vec![batch, o];
    out.extend((0..axes).map(|i| conv_ext(size[i], pad[i][0], pad[i][1], k[i], s[i], d[i])));
    let mut out = sts(&out);
    out[0] = bdim;
    epilogue(r, p, dt, &out, true);
}

/// conv1d_transpose or conv2d_transpose.
fn conv_transpose(r: &mut Rng, p: &mut Prog, axes: usize, invalid: bool) {
    let dt = if r.percent(85) { "float32" } else { "float64" };
    let batch = *r.pick(&[1, 1, 2]);
    let (c, o, g) = channels(r);
    let mut size = vec![];
    let (mut k, mut s, mut d, mut pad, mut opad) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..axes {
        let sz = match r.weighted(&[20, 60, 20]) {
            0 => 1,
            1 => r.range(2, 7),
            _ => r.range(8, 14),
        };
        let kk = *r.pick(&[1, 2, 3, 3, 4, 5]);
        let ss = *r.pick(&[1, 1, 2, 2, 3]);
        let dd = if r.percent(20) { 2 } else { 1 };
        let op = r.range(0, (ss.max(dd) - 1).max(0));
        let mut pp = [r.range(0, kk - 1), r.range(0, kk - 1)];
        while !invalid && (sz - 1) * ss - pp[0] - pp[1] + dd * (kk - 1) + op + 1 < 1 {
            pp = [0, 0];
        }
        size.push(sz);
        k.push(kk);
        s.push(ss);
        d.push(dd);
        pad.push(pp);
        opad.push(op);
    }
    p.reduction = (c / g * k.iter().product::<i64>()) as u64;
    p.exact = true;
    let mut x = vec![batch, c];
    x.extend(&size);
    let mut w = vec![c, o / g];
    w.extend(&k);
    p.param("x", dt, sts(&x));
    let wname = p.weight("w", dt, &w, r.percent(20));
    let (op, layouts) = match axes {
        1 => ("conv1d_transpose", ["NCW", "IOW"]),
        _ => ("conv2d_transpose", ["NCHW", "IOHW"]),
    };
    let padding: Vec<i64> = pad
        .iter()
        .map(|p| p[0])
        .chain(pad.iter().map(|p| p[1]))
        .collect();
    p.bind(format!(
        "R.nn.{op}(x, {wname}, strides={}, padding={}, output_padding={}, dilation={}, groups={g}, data_layout=\"{}\", kernel_layout=\"{}\", out_layout=\"{}\", out_dtype=None)",
        list(&s),
        list(&padding),
        list(&opad),
        list(&d),
        layouts[0],
        layouts[1],
        layouts[0]
    ));
    let mut out = vec![batch, o];
    out.extend(
        (0..axes).map(|i| {
            (size[i] - 1) * s[i] - pad[i][0] - pad[i][1] + d[i] * (k[i] - 1) + opad[i] + 1
        }),
    );
    epilogue(r, p, dt, &sts(&out), true);
}

fn pool2d(r: &mut Rng, p: &mut Prog, invalid: bool) {
    let dt = float_dtype(r);
    let max = r.percent(50);
    let plane = |r: &mut Rng| {
        if r.percent(20) {
            r.range(16, 70)
        } else {
            r.range(1, 10)
        }
    };
    let x = [
        *r.pick(&[1, 1, 2]),
        if r.percent(10) {
            r.range(16, 64)
        } else {
            r.range(1, 5)
        },
        plane(r),
        plane(r),
    ];
    let k = [r.range(1, 4), r.range(1, 4)];
    let mut s = [r.range(1, 5), r.range(1, 5)];
    if r.percent(2) {
        s[r.below(2) as usize] = *r.pick(&[1 << 31, 1 << 62, i64::MAX]);
    }
    let d = if r.percent(20) {
        [r.range(1, 2), r.range(1, 2)]
    } else {
        [1, 1]
    };
    let mut pad = [0i64; 4];
    if r.percent(60) {
        for (i, v) in pad.iter_mut().enumerate() {
            let over = i64::from(r.percent(10));
            *v = r.range(0, k[i % 2] - 1 + over);
        }
    }
    let (ceil, include) = (r.percent(40), r.percent(50));
    let ext = |i: usize, pad: &[i64; 4]| {
        let num = i128::from(x[2 + i] + pad[i] + pad[i + 2] - d[i] * (k[i] - 1) - 1)
            + if ceil { i128::from(s[i]) - 1 } else { 0 };
        num.div_euclid(i128::from(s[i])) + 1
    };
    while !invalid && (ext(0, &pad) < 1 || ext(1, &pad) < 1) {
        let i = if ext(0, &pad) < 1 { 0 } else { 1 };
        pad[i + 2 * r.below(2) as usize] += 1;
    }
    p.reduction = (k[0] * k[1]) as u64;
    p.exact = true;
    p.always_exact = max;
    let mut xd = sts(&x);
    if r.percent(10) {
        xd[0].sym = Some("n");
    }
    p.param("x", dt, xd);
    let (kind, extra) = if max {
        ("max_pool2d", String::new())
    } else {
        ("avg_pool2d", format!(", count_include_pad={}", py(include)))
    };
    let pad_text = match r.below(4) {
        0 if pad.iter().all(|&v| v == pad[0]) => format!("[{}]", pad[0]),
        1 if pad[0] == pad[2] && pad[1] == pad[3] => format!("[{}, {}]", pad[0], pad[1]),
        _ => list(&pad),
    };
    p.bind(format!(
        "R.nn.{kind}(x, pool_size={}, strides={}, dilation={}, padding={pad_text}, ceil_mode={}{extra}, layout=\"NCHW\", out_layout=\"NCHW\")",
        list(&k),
        list(&s),
        list(&d),
        py(ceil)
    ));
}

fn adaptive_pool(r: &mut Rng, p: &mut Prog) {
    let dt = float_dtype(r);
    let x = [
        *r.pick(&[1, 2]),
        r.range(1, 4),
        r.range(1, 12),
        r.range(1, 12),
    ];
    p.reduction = (x[2] * x[3]) as u64;
    p.exact = true;
    p.param("x", dt, sts(&x));
    let size = if r.percent(15) {
        "None".to_string()
    } else {
        list(&[r.range(1, 7), r.range(1, 7)])
    };
    p.bind(format!(
        "R.nn.adaptive_avg_pool2d(x, output_size={size}, layout=\"NCHW\", out_layout=\"NCHW\")"
    ));
}

/// A tensor shape of `rank` for the normalizations: the last axis sometimes long.
fn rows(r: &mut Rng, rank: usize) -> Vec<i64> {
    if rank >= 2 && r.percent(10) {
        // Enough rows to be spread over the threads.
        let mut x = vec![1; rank - 2];
        x.extend([r.range(64, 300), r.range(64, 300)]);
        return x;
    }
    (0..rank)
        .map(|i| {
            if i + 1 == rank && r.percent(30) {
                r.range(9, 300)
            } else {
                small(r)
            }
        })
        .collect()
}

fn softmax(r: &mut Rng, p: &mut Prog) {
    let dt = float_dtype(r);
    let rank = r.range(1, 4) as usize;
    let x = rows(r, rank);
    let axis = if r.percent(70) {
        -1
    } else {
        r.range(-(rank as i64), rank as i64 - 1)
    };
    let a = if axis < 0 { axis + rank as i64 } else { axis } as usize;
    p.reduction = x[a] as u64;
    p.param("x", dt, sts(&x));
    let op = if r.percent(70) {
        "softmax"
    } else {
        "log_softmax"
    };
    p.bind(format!("R.nn.{op}(x, axis={axis})"));
}

fn layer_norm(r: &mut Rng, p: &mut Prog) {
    let dt = float_dtype(r);
    let rank = r.range(1, 4) as usize;
    let x = rows(r, rank);
    let axes: Vec<i64> = match r.weighted(&[75, 10, 15]) {
        0 => vec![-1],
        1 => vec![rank as i64 - 1],
        _ if rank >= 2 => vec![-2, -1],
        _ => vec![-1],
    };
    let norm: Vec<i64> = axes
        .iter()
        .map(|&a| x[(if a < 0 { a + rank as i64 } else { a }) as usize])
        .collect();
    p.reduction = norm.iter().product::<i64>() as u64;
    p.param("x", dt, sts(&x));
    p.param("g", dt, sts(&norm));
    p.param("b", dt, sts(&norm));
    let (center, scale) = (r.percent(85), r.percent(85));
    p.bind(format!(
        "R.nn.layer_norm(x, g, b, axes={}, epsilon=1.0000000000000001e-05, center={}, scale={})",
        list(&axes),
        py(center),
        py(scale)
    ));
}

const ANY_DTYPES: [&str; 6] = ["float32", "float64", "int32", "int64", "int8", "bool"];

fn concat(r: &mut Rng, p: &mut Prog) {
    let dt = *r.pick(&ANY_DTYPES);
    let rank = r.range(1, 4) as usize;
    let big = r.percent(8);
    let shape: Vec<i64> = (0..rank)
        .map(|_| match r.below(20) {
            0 => 0,
            _ if big => r.range(8, 64),
            _ => small(r),
        })
        .collect();
    let axis = r.range(-(rank as i64), rank as i64 - 1);
    let a = if axis < 0 { axis + rank as i64 } else { axis } as usize;
    p.always_exact = true;
    let n = r.range(2, 4);
    let mut names = Vec::new();
    for i in 0..n {
        let mut s = shape.clone();
        s[a] = if r.percent(10) { 0 } else { r.range(1, 5) };
        names.push(p.param(&format!("c{i}"), dt, sts(&s)));
    }
    p.bind(format!("R.concat(({}), axis={axis})", names.join(", ")));
}

fn lrn(r: &mut Rng, p: &mut Prog) {
    let dt = float_dtype(r);
    let x = [
        *r.pick(&[1, 2]),
        r.range(1, 9),
        r.range(1, 5),
        r.range(1, 5),
    ];
    let size = r.range(1, 7);
    let (alpha, beta, bias) = (
        *r.pick(&[1e-4, 0.5, 1.0]),
        *r.pick(&[0.75, 1.0, 0.5, 2.0]),
        *r.pick(&[1.0, 2.0, 0.5]),
    );
    let (before, after) = ((size - 1) / 2, size - 1 - (size - 1) / 2);
    p.reduction = size as u64;
    p.param("x", dt, sts(&x));
    let c = |v: f64| format!("R.const({v:?}, \"{dt}\")");
    p.bind("R.multiply(x, x)".into());
    let sq = p.last.clone();
    p.bind(format!("R.expand_dims({sq}, axis=[1])"));
    let e = p.last.clone();
    p.bind(format!(
        "R.nn.avg_pool3d({e}, pool_size=[{size}, 1, 1], strides=[1, 1, 1], dilation=[1, 1, 1], padding=[{before}, 0, 0, {after}, 0, 0], ceil_mode=False, count_include_pad=True, layout=\"NCDHW\", out_layout=\"NCDHW\")"
    ));
    let pool = p.last.clone();
    p.bind(format!("R.squeeze({pool}, axis=[1])"));
    let a = p.last.clone();
    p.bind(format!("R.multiply({a}, {})", c(alpha)));
    let s = p.last.clone();
    p.bind(format!("R.add({s}, {})", c(bias)));
    let b = p.last.clone();
    p.bind(format!("R.power({b}, {})", c(beta)));
    let d = p.last.clone();
    p.bind(format!("R.divide(x, {d})"));
}

fn take(r: &mut Rng, p: &mut Prog) {
    let dt = *r.pick(&ANY_DTYPES);
    let rank = r.range(1, 3) as usize;
    let big = r.percent(8);
    let x: Vec<i64> = (0..rank)
        .map(|_| match r.below(25) {
            0 => 0,
            _ if big => r.range(8, 80),
            _ => small(r),
        })
        .collect();
    let axis = r.range(-(rank as i64), rank as i64 - 1);
    let n = x[(if axis < 0 { axis + rank as i64 } else { axis }) as usize];
    let mode = *r.pick(&["fast", "fast", "clip", "wrap"]);
    let range = if n == 0 {
        (-1, 1)
    } else if mode == "fast" && r.percent(90) {
        (0, n - 1)
    } else {
        (-2 * n - 1, 2 * n + 1)
    };
    let idt = *r.pick(&["int32", "int64"]);
    let irank = r.range(0, 2) as usize;
    let ishape: Vec<i64> = (0..irank)
        .map(|_| if r.percent(5) { 0 } else { r.range(1, 4) })
        .collect();
    p.always_exact = true;
    p.param("x", dt, sts(&x));
    p.param("i", idt, sts(&ishape));
    p.params.last_mut().expect("just pushed").range = Some(range);
    p.bind(format!("R.take(x, i, axis={axis}, mode=\"{mode}\")"));
}

fn argreduce(r: &mut Rng, p: &mut Prog) {
    let dt = *r.pick(&["float32", "float64", "int32", "int64"]);
    let rank = r.range(0, 3) as usize;
    let mut x: Vec<i64> = (0..rank)
        .map(|_| if r.percent(3) { 0 } else { dim(r).min(20) })
        .collect();
    if rank == 2 && r.percent(20) {
        x = vec![r.range(2, 64), r.range(500, 2100)];
    }
    let axis = if rank == 0 || r.percent(30) {
        "None".to_string()
    } else {
        r.range(-(rank as i64), rank as i64 - 1).to_string()
    };
    let op = *r.pick(&["argmax", "argmin"]);
    p.always_exact = true;
    p.param("x", dt, sts(&x));
    p.bind(format!(
        "R.{op}(x, axis={axis}, keepdims={})",
        py(r.percent(40))
    ));
}

fn spatial_mean(r: &mut Rng, p: &mut Prog) {
    let dt = float_dtype(r);
    let c = if r.percent(20) {
        r.range(16, 128)
    } else {
        r.range(1, 5)
    };
    let x = [*r.pick(&[1, 2]), c, r.range(1, 14), r.range(1, 14)];
    p.reduction = (x[2] * x[3]) as u64;
    p.exact = true;
    p.param("x", dt, sts(&x));
    let axis = *r.pick(&["[2, 3]", "[3, 2]", "[-1, -2]", "[-2, -1]", "[1, 2]"]);
    p.bind(format!(
        "R.mean(x, axis={axis}, keepdims={})",
        py(r.percent(80))
    ));
}

/// Makes the program invalid for its run: one argument of another shape, rank or dtype than
/// declared (`declared` too: the declaration changes with it, so the operator itself sees
/// the wrong shape).
fn corrupt(r: &mut Rng, p: &mut Prog, args: &mut [TensorSpec], declared: bool) {
    if args.is_empty() {
        return;
    }
    let i = r.below(args.len() as u64) as usize;
    let a = &mut args[i];
    match r.below(3) {
        0 if !a.shape.is_empty() => {
            let j = r.below(a.shape.len() as u64) as usize;
            a.shape[j] += 1;
        }
        1 => a.shape.push(1),
        _ => {
            a.dtype = match a.dtype.as_str() {
                "float32" => "float64",
                "float64" => "float32",
                "int64" => "int32",
                _ => "int64",
            }
            .to_string();
        }
    }
    if declared {
        let pm = &mut p.params[i];
        pm.dtype = a.dtype.clone();
        pm.dims = a
            .shape
            .iter()
            .enumerate()
            .map(|(j, &v)| match pm.dims.get(j) {
                Some(d) if d.sym.is_some() => *d,
                _ => st(v),
            })
            .collect();
    }
}

/// The program of `seed`.
pub fn generate(seed: u64) -> Case {
    let mut r = Rng::new(seed);
    let weights: Vec<u64> = FAMILIES.iter().map(|f| f.1).collect();
    let family = FAMILIES[r.weighted(&weights)].0;
    // A few statically invalid programs: a window that does not fit, a wrong weight shape.
    let invalid = r.percent(3);
    let mut p = Prog::default();
    match family {
        "matmul" => matmul(&mut r, &mut p, invalid),
        "invalid_matmul" => matmul(&mut r, &mut p, true),
        "conv2d" => conv(&mut r, &mut p, 2, invalid),
        "conv1d" => conv(&mut r, &mut p, 1, invalid),
        "conv3d" => conv(&mut r, &mut p, 3, invalid),
        "conv2d_transpose" => conv_transpose(&mut r, &mut p, 2, invalid),
        "conv1d_transpose" => conv_transpose(&mut r, &mut p, 1, invalid),
        "pool2d" => pool2d(&mut r, &mut p, invalid),
        "adaptive_avg_pool2d" => adaptive_pool(&mut r, &mut p),
        "softmax" => softmax(&mut r, &mut p),
        "layer_norm" => layer_norm(&mut r, &mut p),
        "concat" => concat(&mut r, &mut p),
        "lrn" => lrn(&mut r, &mut p),
        "take" => take(&mut r, &mut p),
        "argreduce" => argreduce(&mut r, &mut p),
        _ => spatial_mean(&mut r, &mut p),
    }
    let mut args: Vec<TensorSpec> = p
        .params
        .iter()
        .map(|pm| TensorSpec {
            dtype: pm.dtype.clone(),
            shape: values(&pm.dims),
            range: pm.range,
        })
        .collect();
    match r.below(100) {
        0..=4 => corrupt(&mut r, &mut p, &mut args, false),
        5..=6 => corrupt(&mut r, &mut p, &mut args, true),
        _ => {}
    }
    let integers = r.percent(70);
    let special = r.percent(10);
    let compare = if p.always_exact || p.exact && integers {
        Compare::Exact
    } else {
        Compare::Reduction(p.reduction.max(1))
    };
    Case {
        family: family.to_string(),
        seed,
        script: p.script(),
        args,
        consts: p.consts,
        input_seed: r.next_u64() >> 11,
        integers,
        special,
        compare,
    }
}
