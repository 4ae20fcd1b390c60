//! The workloads of issue 10's table (MLP 784-512-10 at batch 1 and 64, matmul 1024³, a
//! transformer block, a conv 3×3 block, SqueezeNet, ResNet-50, AlexNet) and the dispatch chain
//! (100 dependent adds): each is a TVMScript module plus its inputs, so that the criterion
//! benchmarks, `cargo xtask bench` and `bench/peers.py` (which builds the same graphs for numpy
//! and onnxruntime) run the same thing. [`ROWS`] names the suite's rows; [`row`] makes one, or
//! says why it cannot run here.

use std::path::{Path, PathBuf};

use relaxjit::{Tensor, Value};
use support::case::Case;

/// A module, the function to call, its arguments and the flops of one call (0 if not counted).
pub struct Workload {
    pub name: &'static str,
    pub script: String,
    pub metadata: Vec<Tensor>,
    pub func: String,
    pub args: Vec<Value>,
    pub flops: f64,
}

/// Deterministic f32 values in [-scale, scale] (the test harness's seeded generator).
pub fn random_f32(shape: &[i64], seed: u64, scale: f32) -> Tensor {
    let n: i64 = shape.iter().product();
    let mut rng = support::values::Rng::new(seed);
    let v: Vec<f32> = (0..n)
        .map(|_| rng.next_signed_unit() as f32 * scale)
        .collect();
    Tensor::from_slice(shape, &v).expect("the shape matches the data")
}

fn t(shape: &[i64], seed: u64) -> Value {
    let fan_in = shape.first().copied().unwrap_or(1).max(1) as f32;
    Value::Tensor(random_f32(shape, seed, 1.0 / fan_in.sqrt()))
}

/// `R.matmul` of two `n × n` f32 matrices.
pub fn matmul(n: i64) -> Workload {
    let script = format!(
        r#"@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(({n}, {n}), dtype="float32"), b: R.Tensor(({n}, {n}), dtype="float32")) -> R.Tensor(({n}, {n}), dtype="float32"):
        with R.dataflow():
            c: R.Tensor(({n}, {n}), dtype="float32") = R.matmul(a, b, out_dtype=None)
            R.output(c)
        return c
"#
    );
    Workload {
        name: "matmul",
        script,
        metadata: Vec::new(),
        func: "main".into(),
        args: vec![t(&[n, n], 1), t(&[n, n], 2)],
        flops: 2.0 * (n * n * n) as f64,
    }
}

/// MLP 784-512-10: `relu(x @ w1 + b1) @ w2 + b2`, weights as parameters.
pub fn mlp(batch: i64) -> Workload {
    let script = format!(
        r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(({batch}, 784), dtype="float32"), w1: R.Tensor((784, 512), dtype="float32"), b1: R.Tensor((512,), dtype="float32"), w2: R.Tensor((512, 10), dtype="float32"), b2: R.Tensor((10,), dtype="float32")) -> R.Tensor(({batch}, 10), dtype="float32"):
        with R.dataflow():
            h: R.Tensor(({batch}, 512), dtype="float32") = R.matmul(x, w1, out_dtype=None)
            h1: R.Tensor(({batch}, 512), dtype="float32") = R.add(h, b1)
            h2: R.Tensor(({batch}, 512), dtype="float32") = R.nn.relu(h1)
            o: R.Tensor(({batch}, 10), dtype="float32") = R.matmul(h2, w2, out_dtype=None)
            o1: R.Tensor(({batch}, 10), dtype="float32") = R.add(o, b2)
            R.output(o1)
        return o1
"#
    );
    Workload {
        name: if batch == 1 { "mlp_b1" } else { "mlp_b64" },
        script,
        metadata: Vec::new(),
        func: "main".into(),
        args: vec![
            t(&[batch, 784], 1),
            t(&[784, 512], 2),
            t(&[512], 3),
            t(&[512, 10], 4),
            t(&[10], 5),
        ],
        flops: 2.0 * (batch * (784 * 512 + 512 * 10)) as f64,
    }
}

/// A post-norm transformer encoder block: seq 128, hidden 256, 4 heads of 64, FFN 1024 with
/// GELU (the shape of `src/demo_transformer.py`, scaled up).
pub fn transformer() -> Workload {
    let (s, h, nh, hd, f) = (128, 256, 4, 64, 1024);
    let tt = |shape: &[i64]| {
        let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
        let inner = if dims.len() == 1 {
            format!("{},", dims[0])
        } else {
            dims.join(", ")
        };
        format!(r#"R.Tensor(({inner}), dtype="float32")"#)
    };
    let script = format!(
        r#"@I.ir_module
class Module:
    @R.function
    def main(x: {xs}, wq: {hh}, wk: {hh}, wv: {hh}, wo: {hh}, g1: {hv}, b1: {hv}, w_up: {hf}, b_up: {fv}, w_down: {fh}, b_down: {hv}, g2: {hv}, b2: {hv}) -> {xs}:
        with R.dataflow():
            q: {xs} = R.matmul(x, wq, out_dtype=None)
            k: {xs} = R.matmul(x, wk, out_dtype=None)
            v: {xs} = R.matmul(x, wv, out_dtype=None)
            lv3: {shd} = R.reshape(q, R.shape([{s}, {nh}, {hd}]))
            qh: {hsd} = R.permute_dims(lv3, axes=[1, 0, 2])
            lv5: {shd} = R.reshape(k, R.shape([{s}, {nh}, {hd}]))
            kh: {hds} = R.permute_dims(lv5, axes=[1, 2, 0])
            lv7: {shd} = R.reshape(v, R.shape([{s}, {nh}, {hd}]))
            vh: {hsd} = R.permute_dims(lv7, axes=[1, 0, 2])
            sc: {hss} = R.matmul(qh, kh, out_dtype=None)
            s1: {hss} = R.multiply(sc, R.const(0.125, "float32"))
            p: {hss} = R.nn.softmax(s1, axis=-1)
            a: {hsd} = R.matmul(p, vh, out_dtype=None)
            lv13: {shd} = R.permute_dims(a, axes=[1, 0, 2])
            a1: {xs} = R.reshape(lv13, R.shape([{s}, {h}]))
            o: {xs} = R.matmul(a1, wo, out_dtype=None)
            r1: {xs} = R.add(x, o)
            n1: {xs} = R.nn.layer_norm(r1, g1, b1, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)
            lv18: {sf} = R.matmul(n1, w_up, out_dtype=None)
            u: {sf} = R.add(lv18, b_up)
            ug: {sf} = R.nn.gelu(u)
            lv21: {xs} = R.matmul(ug, w_down, out_dtype=None)
            d: {xs} = R.add(lv21, b_down)
            r2: {xs} = R.add(n1, d)
            n2: {xs} = R.nn.layer_norm(r2, g2, b2, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)
            R.output(n2)
        return n2
"#,
        xs = tt(&[s, h]),
        hh = tt(&[h, h]),
        hv = tt(&[h]),
        hf = tt(&[h, f]),
        fv = tt(&[f]),
        fh = tt(&[f, h]),
        shd = tt(&[s, nh, hd]),
        hsd = tt(&[nh, s, hd]),
        hds = tt(&[nh, hd, s]),
        hss = tt(&[nh, s, s]),
        sf = tt(&[s, f]),
    );
    let ones = |n: i64| Value::Tensor(Tensor::from_slice(&[n], &vec![1f32; n as usize]).unwrap());
    let args = vec![
        t(&[s, h], 1),
        t(&[h, h], 2),
        t(&[h, h], 3),
        t(&[h, h], 4),
        t(&[h, h], 5),
        ones(h),
        t(&[h], 6),
        t(&[h, f], 7),
        t(&[f], 8),
        t(&[f, h], 9),
        t(&[h], 10),
        ones(h),
        t(&[h], 11),
    ];
    let flops = 2.0 * (4 * s * h * h + 2 * s * s * h + 2 * s * h * f) as f64;
    Workload {
        name: "transformer",
        script,
        metadata: Vec::new(),
        func: "main".into(),
        args,
        flops,
    }
}

/// A chain of `n` dependent `R.add`s of a `(1,)` f32 tensor to itself (`x + x`, doubling each
/// step), for the dispatch-cost benchmark: compiled with `Config::fusion` off, every add stays one
/// kernel call, so a call of `main` runs `n` kernel calls plus their allocations and the time per
/// call divided by `n` is the interpreter's cost per op. The result is `x * 2^n`.
pub fn add_chain(n: usize) -> Workload {
    use std::fmt::Write;
    let ty = r#"R.Tensor((1,), dtype="float32")"#;
    let mut script = format!(
        "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: {ty}) -> {ty}:\n        with R.dataflow():\n"
    );
    let mut prev = "x".to_string();
    for i in 0..n {
        let v = format!("v{i}");
        writeln!(script, "            {v}: {ty} = R.add({prev}, {prev})").expect("a String");
        prev = v;
    }
    writeln!(
        script,
        "            R.output({prev})\n        return {prev}"
    )
    .expect("a String");
    Workload {
        name: "add_chain",
        script,
        metadata: Vec::new(),
        func: "main".into(),
        args: vec![Value::Tensor(
            Tensor::from_slice(&[1], &[1.0f32]).expect("one element"),
        )],
        flops: n as f64,
    }
}

/// conv 3×3 64→64 (padding 1) + bias + relu + max-pool 2×2 on 1×64×56×56.
pub fn conv_block() -> Workload {
    let script = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 64, 56, 56), dtype="float32"), w: R.Tensor((64, 64, 3, 3), dtype="float32"), b: R.Tensor((1, 64, 1, 1), dtype="float32")) -> R.Tensor((1, 64, 28, 28), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 64, 56, 56), dtype="float32") = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            c1: R.Tensor((1, 64, 56, 56), dtype="float32") = R.add(c, b)
            c2: R.Tensor((1, 64, 56, 56), dtype="float32") = R.nn.relu(c1)
            p: R.Tensor((1, 64, 28, 28), dtype="float32") = R.nn.max_pool2d(c2, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
            R.output(p)
        return p
"#
    .to_string();
    Workload {
        name: "conv_block",
        script,
        metadata: Vec::new(),
        func: "main".into(),
        args: vec![
            t(&[1, 64, 56, 56], 1),
            t(&[64, 64, 3, 3], 2),
            t(&[1, 64, 1, 1], 3),
        ],
        flops: 2.0 * (64 * 64 * 9 * 56 * 56) as f64,
    }
}

/// An AlexNet-shaped module (torchvision's layer sizes: 5 conv + 3 dense layers, 61 M f32
/// weights, 244 MB) written the way TVM's ONNX importer prints one: every weight a metadata
/// constant behind `R.broadcast_to` to its own shape, conv biases behind `R.reshape`, dense
/// weights behind `R.permute_dims` (ONNX `Gemm` with `transB`). For measuring how compile time
/// grows with the size of constants; `width_div` divides every channel and unit count (1 for
/// the real sizes; tests use a small model of the same structure).
pub fn alexnet(width_div: i64) -> Workload {
    use std::fmt::Write;
    let ty = |shape: &[i64]| {
        let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
        let inner = if dims.len() == 1 {
            format!("{},", dims[0])
        } else {
            dims.join(", ")
        };
        format!(r#"R.Tensor(({inner}), dtype="float32")"#)
    };
    let shape_list = |shape: &[i64]| {
        let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
        dims.join(", ")
    };
    let c = |n: i64| (n / width_div).max(1);
    let mut body = String::new();
    let mut metadata = Vec::new();
    let mut lv = 0;
    let mut fresh = || {
        lv += 1;
        format!("lv{lv}")
    };
    let mut konst = |shape: &[i64], scale: f32| {
        let i = metadata.len();
        metadata.push(random_f32(shape, 100 + i as u64, scale));
        format!(r#"metadata["ir.GenericConst"][{i}]"#)
    };
    let mut x = "data".to_string();
    // (out channels, kernel, stride, pad, max-pool after)
    let convs = [
        (c(64), 11, 4, 2, true),
        (c(192), 5, 1, 2, true),
        (c(384), 3, 1, 1, false),
        (c(256), 3, 1, 1, false),
        (c(256), 3, 1, 1, true),
    ];
    let (mut ch, mut hw) = (3, 224);
    for (out, k, stride, pad, pool) in convs {
        let wshape = [out, ch, k, k];
        let w = fresh();
        let wc = konst(&wshape, 1.0 / ((ch * k * k) as f32).sqrt());
        writeln!(
            body,
            "            {w}: {} = R.broadcast_to({wc}, R.shape([{}]))",
            ty(&wshape),
            shape_list(&wshape)
        )
        .expect("a String");
        hw = (hw + 2 * pad - k) / stride + 1;
        let y = fresh();
        writeln!(body, "            {y}: {} = R.nn.conv2d({x}, {w}, strides=[{stride}, {stride}], padding=[{pad}, {pad}, {pad}, {pad}], dilation=[1, 1], groups=1, data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", out_dtype=None)", ty(&[1, out, hw, hw])).expect("a String");
        let b = fresh();
        let bc = konst(&[out], 0.1);
        writeln!(
            body,
            "            {b}: {} = R.reshape({bc}, R.shape([1, {out}, 1, 1]))",
            ty(&[1, out, 1, 1])
        )
        .expect("a String");
        let s = fresh();
        writeln!(
            body,
            "            {s}: {} = R.add({y}, {b})",
            ty(&[1, out, hw, hw])
        )
        .expect("a String");
        let r = fresh();
        writeln!(
            body,
            "            {r}: {} = R.nn.relu({s})",
            ty(&[1, out, hw, hw])
        )
        .expect("a String");
        x = r;
        ch = out;
        if pool {
            hw = (hw - 3) / 2 + 1;
            let p = fresh();
            writeln!(body, "            {p}: {} = R.nn.max_pool2d({x}, pool_size=[3, 3], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout=\"NCHW\", out_layout=\"NCHW\")", ty(&[1, ch, hw, hw])).expect("a String");
            x = p;
        }
    }
    let mut features = ch * hw * hw;
    let f = fresh();
    writeln!(
        body,
        "            {f}: {} = R.reshape({x}, R.shape([1, {features}]))",
        ty(&[1, features])
    )
    .expect("a String");
    x = f;
    let denses = [(c(4096), true), (c(4096), true), (1000, false)];
    let mut flops = 0i64;
    for (out, relu) in denses {
        let w = fresh();
        let wc = konst(&[out, features], 1.0 / (features as f32).sqrt());
        writeln!(
            body,
            "            {w}: {} = R.broadcast_to({wc}, R.shape([{out}, {features}]))",
            ty(&[out, features])
        )
        .expect("a String");
        let wt = fresh();
        writeln!(
            body,
            "            {wt}: {} = R.permute_dims({w}, axes=[1, 0])",
            ty(&[features, out])
        )
        .expect("a String");
        let m = fresh();
        writeln!(
            body,
            "            {m}: {} = R.matmul({x}, {wt}, out_dtype=None)",
            ty(&[1, out])
        )
        .expect("a String");
        let bc = konst(&[out], 0.1);
        let a = fresh();
        writeln!(
            body,
            "            {a}: {} = R.add({m}, {bc})",
            ty(&[1, out])
        )
        .expect("a String");
        x = a;
        if relu {
            let r = fresh();
            writeln!(body, "            {r}: {} = R.nn.relu({x})", ty(&[1, out]))
                .expect("a String");
            x = r;
        }
        flops += 2 * out * features;
        features = out;
    }
    let script = format!(
        "@I.ir_module\nclass Module:\n    @R.function\n    def main(data: {}) -> {}:\n        R.func_attr({{\"num_input\": 1}})\n        with R.dataflow():\n{body}            R.output({x})\n        return {x}\n",
        ty(&[1, 3, 224, 224]),
        ty(&[1, 1000]),
    );
    Workload {
        name: "alexnet",
        script,
        metadata,
        func: "main".into(),
        args: vec![Value::Tensor(random_f32(&[1, 3, 224, 224], 7, 1.0))],
        flops: flops as f64,
    }
}

/// The team's shared model folder (`../shared/models` beside the workspace).
pub fn shared_models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/models")
}

/// A model of `../shared/models/NAME` (TVM's import of the ONNX light-zoo model, weights as
/// metadata constants), with its case's input; `None` when the folder is not there.
pub fn shared_model(name: &'static str) -> Option<anyhow::Result<Workload>> {
    let dir = shared_models_dir().join(name);
    dir.join("module.py").exists().then(|| model_in(&dir, name))
}

/// Every row of the table, SqueezeNet included when `../shared/models` holds it.
pub fn all() -> anyhow::Result<Vec<Workload>> {
    let mut rows = vec![matmul(1024), mlp(1), mlp(64), transformer(), conv_block()];
    if let Some(w) = shared_model("squeezenet") {
        rows.push(w?);
    }
    Ok(rows)
}

/// Times of `calls` calls of `w` on a fresh VM of `compiled` (after one warm-up call), sorted.
pub fn time_calls(
    compiled: &relaxjit::CompiledModule,
    w: &Workload,
    calls: usize,
) -> anyhow::Result<Vec<std::time::Duration>> {
    let vm = compiled.vm()?;
    compiled.invoke(&vm, &w.func, &w.args)?;
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = std::time::Instant::now();
        std::hint::black_box(compiled.invoke(&vm, &w.func, &w.args)?);
        times.push(t.elapsed());
    }
    times.sort();
    Ok(times)
}

/// Wall time per callee (kernel, library kernel or builtin) over `calls` calls of `w`, from the
/// VM's instrument hook: `(name, total, count)`, the largest first.
pub fn profile(
    compiled: &relaxjit::CompiledModule,
    w: &Workload,
    calls: usize,
) -> anyhow::Result<Vec<(String, std::time::Duration, u64)>> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    type Table = HashMap<String, (Duration, u64)>;
    let state: Arc<Mutex<(Option<Instant>, Table)>> = Arc::default();
    let vm = compiled.vm()?;
    let s = state.clone();
    vm.set_instrument(Some(vm::PackedFunc::new("bench.profile", move |args| {
        let name = args.get(1).and_then(|v| v.as_str().ok()).unwrap_or("?");
        let before = args.get(2).and_then(|v| v.as_bool().ok()).unwrap_or(false);
        let mut st = s.lock().unwrap_or_else(|e| e.into_inner());
        if before {
            st.0 = Some(Instant::now());
        } else if let Some(t) = st.0.take() {
            let e = st.1.entry(name.to_string()).or_default();
            e.0 += t.elapsed();
            e.1 += 1;
        }
        Ok(Value::Int(0))
    })));
    for _ in 0..calls {
        compiled.invoke(&vm, &w.func, &w.args)?;
    }
    let st = state.lock().unwrap_or_else(|e| e.into_inner());
    let mut rows: Vec<(String, Duration, u64)> =
        st.1.iter().map(|(k, v)| (k.clone(), v.0, v.1)).collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.1));
    Ok(rows)
}

/// A callee called at one position of a model call: its name, its tensor arguments' shapes,
/// and its times over the calls (sorted).
pub type CalleeCall = (String, Vec<Vec<i64>>, Vec<std::time::Duration>);

/// The times of each callee call by its position in one call of `w`, over `calls` calls of
/// `w` (sorted: the fastest, which another process's noise mostly leaves alone, first; the
/// median compares with onnxruntime's per-node medians, `bench/ort_profile.py`), with the
/// shapes of its tensor arguments: to compare a layer inside the model with the same layer
/// alone, or with the same node in onnxruntime.
/// Every callee call of one model call in order, with the times of each (sorted), and the
/// sorted wall times of the model calls themselves and of the sum of each call's callees (what
/// the difference leaves is spent outside the callees: the VM, allocation, thread wake-ups).
pub struct Sequence {
    pub callees: Vec<CalleeCall>,
    pub calls: Vec<std::time::Duration>,
    pub callee_sums: Vec<std::time::Duration>,
}

pub fn profile_sequence(
    compiled: &relaxjit::CompiledModule,
    w: &Workload,
    calls: usize,
) -> anyhow::Result<Sequence> {
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    /// The start of the running callee, its position in this call, the rows so far.
    type State = (Option<Instant>, usize, Vec<CalleeCall>);
    let state: Arc<Mutex<State>> = Arc::default();
    let vm = compiled.vm()?;
    let s = state.clone();
    vm.set_instrument(Some(vm::PackedFunc::new("bench.sequence", move |args| {
        let before = args.get(2).and_then(|v| v.as_bool().ok()).unwrap_or(false);
        let mut st = s.lock().unwrap_or_else(|e| e.into_inner());
        if before {
            st.0 = Some(Instant::now());
            return Ok(Value::Int(0));
        }
        let Some(t) = st.0.take() else {
            return Ok(Value::Int(0));
        };
        let e = t.elapsed();
        let i = st.1;
        st.1 += 1;
        if i < st.2.len() {
            st.2[i].2.push(e);
        } else {
            let name = args.get(1).and_then(|v| v.as_str().ok()).unwrap_or("?");
            let shapes = args[4.min(args.len())..]
                .iter()
                .filter_map(|v| v.as_tensor().ok())
                .map(|t| t.shape().to_vec())
                .collect();
            st.2.push((name.to_string(), shapes, vec![e]));
        }
        Ok(Value::Int(0))
    })));
    let mut totals = Vec::with_capacity(calls);
    for _ in 0..calls {
        state.lock().unwrap_or_else(|e| e.into_inner()).1 = 0;
        let t = Instant::now();
        compiled.invoke(&vm, &w.func, &w.args)?;
        totals.push(t.elapsed());
    }
    let mut rows = state.lock().unwrap_or_else(|e| e.into_inner()).2.clone();
    let mut callee_sums: Vec<_> = (0..totals.len())
        .map(|c| rows.iter().filter_map(|r| r.2.get(c)).sum())
        .collect();
    for row in &mut rows {
        row.2.sort();
    }
    totals.sort();
    callee_sums.sort();
    Ok(Sequence {
        callees: rows,
        calls: totals,
        callee_sums,
    })
}

/// The benchmark models copied into the repository (`tests/models`, see its README).
pub fn models_dir() -> PathBuf {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
    bench.parent().unwrap_or(bench).join("tests").join("models")
}

/// A model of `tests/models/NAME` (TVM's import of the ONNX light-zoo model, weights as
/// metadata constants), with its case's input.
pub fn model(name: &'static str) -> anyhow::Result<Workload> {
    model_in(&models_dir().join(name), name)
}

/// The model folder `dir`: `module.py`, and `case.json` with its constants and one call.
fn model_in(dir: &Path, name: &'static str) -> anyhow::Result<Workload> {
    let script = std::fs::read_to_string(dir.join("module.py"))
        .map_err(|e| anyhow::anyhow!("{}: {e}", dir.join("module.py").display()))?;
    let case = Case::load(dir).map_err(|e| anyhow::anyhow!("{}", e.0))?;
    let metadata = case
        .metadata
        .get("module.py")
        .or_else(|| case.metadata.values().next())
        .cloned()
        .unwrap_or_default();
    let call = case
        .calls
        .first()
        .ok_or_else(|| anyhow::anyhow!("{name}: the case has no call"))?;
    Ok(Workload {
        name,
        script,
        metadata,
        func: call.function.clone(),
        args: call.inputs.clone(),
        flops: 0.0,
    })
}

/// A model that relaxjit reads through its ONNX frontend, `tests/models/NAME/model.onnx`, with
/// generated inputs of the graph's input shapes. The suite's compile time of it includes the
/// import.
pub fn onnx_model(name: &'static str) -> anyhow::Result<Row> {
    let path = models_dir().join(name).join("model.onnx");
    if !path.exists() {
        // Relative to the workspace: the message ends up in committed baselines.
        return Ok(Row::Skipped(format!(
            "tests/models/{name}/model.onnx not found"
        )));
    }
    let options = relaxjit::onnx::ImportOptions::default();
    let imported = relaxjit::Engine::import_onnx(&path, &options)?;
    let func = imported
        .module
        .relax_function(&options.func_name)
        .ok_or_else(|| anyhow::anyhow!("{name}: the import has no `{}`", options.func_name))?;
    let args = support::values::random_inputs(func, 1)?;
    Ok(Row::Ready(Box::new(Entry {
        workload: Workload {
            name,
            script: String::new(),
            metadata: Vec::new(),
            func: options.func_name.clone(),
            args,
            flops: 0.0,
        },
        fusion: true,
        ops: 0,
        onnx: Some(path),
    })))
}

/// The light ONNX model zoo of the ONNX frontend's tests (`onnx/tests/data/light`): real CNNs
/// beyond the suite's rows, weights written as `ConstantOfShape` fills (fine for timing, not for
/// accuracy). Row `zoo_STEM` runs `light_STEM.onnx`; `cargo xtask bench --zoo` runs them all.
pub const ZOO: &[&str] = &[
    "zoo_alexnet",
    "zoo_densenet121",
    "zoo_inception_v1",
    "zoo_inception_v2",
    "zoo_resnet50",
    "zoo_shufflenet",
    "zoo_squeezenet",
    "zoo_vgg19",
    "zoo_zfnet512",
];

/// The light model of a [`ZOO`] row (`zoo_STEM`): `onnx/tests/data/light/light_STEM.onnx`
/// (AlexNet's file is `light_bvlc_alexnet.onnx`).
pub fn zoo_path(row: &str) -> Option<PathBuf> {
    let stem = row.strip_prefix("zoo_")?;
    let file = match stem {
        "alexnet" => "bvlc_alexnet".to_string(),
        s => s.to_string(),
    };
    let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
    Some(
        bench
            .parent()
            .unwrap_or(bench)
            .join("onnx/tests/data/light")
            .join(format!("light_{file}.onnx")),
    )
}

/// The input the zoo rows are called with, the one onnx's backend tests wrote the light models'
/// expected outputs for: element `i` of `n` is `i / n` (in f64, rounded to f32), so that
/// `bench/peers.py` feeds onnxruntime the same values (`np.arange(n) / n`) and the two outputs
/// compare.
pub fn ramp_f32(shape: &[i64]) -> anyhow::Result<Tensor> {
    let n: i64 = shape.iter().product();
    let v: Vec<f32> = (0..n).map(|i| (i as f64 / n as f64) as f32).collect();
    Ok(Tensor::from_slice(shape, &v)?)
}

/// A [`ZOO`] row: the light model through relaxjit's ONNX frontend (compile time includes the
/// import), called on [`ramp_f32`] inputs of the graph's input shapes.
fn zoo_model(name: &'static str) -> anyhow::Result<Row> {
    let path = zoo_path(name).ok_or_else(|| anyhow::anyhow!("`{name}` is not a zoo row"))?;
    if !path.exists() {
        return Ok(Row::Skipped(format!(
            "onnx/tests/data/light/{} not found",
            path.file_name().unwrap_or_default().to_string_lossy()
        )));
    }
    let options = relaxjit::onnx::ImportOptions::default();
    let imported = relaxjit::Engine::import_onnx(&path, &options)?;
    let func = imported
        .module
        .relax_function(&options.func_name)
        .ok_or_else(|| anyhow::anyhow!("{name}: the import has no `{}`", options.func_name))?;
    let mut args = Vec::new();
    for p in &func.params {
        let shape = p
            .struct_info()
            .tensor_shape()
            .and_then(|dims| {
                dims.iter()
                    .map(|d| d.as_int())
                    .collect::<Option<Vec<i64>>>()
            })
            .ok_or_else(|| anyhow::anyhow!("{name}: input `{}` has no constant shape", p.name()))?;
        args.push(Value::Tensor(ramp_f32(&shape)?));
    }
    Ok(Row::Ready(Box::new(Entry {
        workload: Workload {
            name,
            script: String::new(),
            metadata: Vec::new(),
            func: options.func_name.clone(),
            args,
            flops: 0.0,
        },
        fusion: true,
        ops: 0,
        onnx: Some(path),
    })))
}

/// A workload as the suite measures it.
pub struct Entry {
    pub workload: Workload,
    /// Compile with FuseOps/FuseTIR (off for the dispatch chain, whose point is one kernel call
    /// per operation).
    pub fusion: bool,
    /// Operations per call, for a time per operation (the dispatch chain); 0 otherwise.
    pub ops: usize,
    /// An ONNX model compiled in place of the workload's script.
    pub onnx: Option<PathBuf>,
}

impl Entry {
    fn new(workload: Workload) -> Entry {
        Entry {
            workload,
            fusion: true,
            ops: 0,
            onnx: None,
        }
    }

    /// `config` with this entry's fusion setting.
    pub fn config(&self, config: &relaxjit::Config) -> relaxjit::Config {
        relaxjit::Config {
            fusion: self.fusion,
            ..config.clone()
        }
    }

    /// Compiles the workload with [`Entry::config`] of `config`. An exec mode the engine does
    /// not implement is `Err(relaxjit::Error::Unsupported(_))`.
    pub fn compile(&self, config: &relaxjit::Config) -> relaxjit::Result<relaxjit::CompiledModule> {
        let w = &self.workload;
        let engine = relaxjit::Engine::new(self.config(config))?;
        match &self.onnx {
            Some(path) => engine.compile_onnx(path, &relaxjit::onnx::ImportOptions::default()),
            None => engine.compile_str_with_metadata(&w.script, w.metadata.clone()),
        }
    }
}

/// A row of the suite: a workload, or why it cannot run here (a missing file, a frontend this
/// build lacks).
pub enum Row {
    Ready(Box<Entry>),
    Skipped(String),
}

/// The suite's rows, in the order of issue 10's table, the dispatch chain last.
pub const ROWS: &[&str] = &[
    "mlp_b1",
    "mlp_b64",
    "matmul",
    "transformer",
    "conv_block",
    "squeezenet",
    "resnet50",
    "alexnet",
    "add_chain",
];

/// The operations of the dispatch chain row.
pub const CHAIN_OPS: usize = 100;

/// The row called `name` (one of [`ROWS`] or [`ZOO`]); an error for an unknown name or a model that is
/// there but does not load.
pub fn row(name: &str) -> anyhow::Result<Row> {
    if let Some(zoo) = ZOO.iter().find(|z| **z == name) {
        return zoo_model(zoo);
    }
    let ready = |w: Workload| Row::Ready(Box::new(Entry::new(w)));
    Ok(match name {
        "mlp_b1" => ready(mlp(1)),
        "mlp_b64" => ready(mlp(64)),
        "matmul" => ready(matmul(1024)),
        "transformer" => ready(transformer()),
        "conv_block" => ready(conv_block()),
        "squeezenet" => ready(model("squeezenet")?),
        "resnet50" => ready(model("resnet50")?),
        "alexnet" => onnx_model("alexnet")?,
        "add_chain" => Row::Ready(Box::new(Entry {
            workload: add_chain(CHAIN_OPS),
            fusion: false,
            ops: CHAIN_OPS,
            onnx: None,
        })),
        _ => anyhow::bail!(
            "unknown row `{name}` (rows: {}; zoo rows: {})",
            ROWS.join(", "),
            ZOO.join(", ")
        ),
    })
}

/// The exec modes of the engine, by the names `relaxjit run --mode` uses.
pub const EXEC_MODES: [(&str, relaxjit::ExecMode); 2] = [
    ("bytecode", relaxjit::ExecMode::Bytecode),
    ("compiled", relaxjit::ExecMode::Compiled),
];
