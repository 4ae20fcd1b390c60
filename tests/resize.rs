//! `R.image.resize2d` as TVM prints it, against a naive evaluation written here from TVM's
//! `topi.image.resize2d` (coordinates in `float32`, indices clamped into the image), over a
//! table of methods × coordinate transformation modes × rounding methods × layouts, in both
//! exec modes; a few cases are also pinned to values worked out by hand, so that the naive
//! evaluation is checked too.

use relaxjit::{Config, Engine, ExecMode, Tensor, Value};

#[derive(Clone, Debug)]
struct Case {
    layout: &'static str,
    method: &'static str,
    mode: &'static str,
    rounding: &'static str,
    /// `(N, C, H, W)` whatever the layout.
    nchw: [i64; 4],
    size: [i64; 2],
    roi: [f32; 4],
    alpha: f32,
    exclude: bool,
    extrapolation: f32,
}

fn case(method: &'static str, mode: &'static str, rounding: &'static str) -> Case {
    Case {
        layout: "NCHW",
        method,
        mode,
        rounding,
        nchw: [2, 3, 4, 5],
        size: [7, 10],
        roi: [0.0; 4],
        alpha: -0.5,
        exclude: false,
        extrapolation: 0.0,
    }
}

fn shape_of(layout: &str, [n, c, h, w]: [i64; 4]) -> [i64; 4] {
    if layout == "NHWC" {
        [n, h, w, c]
    } else {
        [n, c, h, w]
    }
}

fn module(c: &Case, dtype: &str) -> String {
    let s = shape_of(c.layout, c.nchw);
    let o = shape_of(c.layout, [c.nchw[0], c.nchw[1], c.size[0], c.size[1]]);
    let t = |s: [i64; 4]| {
        format!(
            "R.Tensor(({}, {}, {}, {}), dtype=\"{dtype}\")",
            s[0], s[1], s[2], s[3]
        )
    };
    let roi: Vec<String> = c.roi.iter().map(|r| format!("T.float32({r:?})")).collect();
    format!(
        "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: {x}) -> {y}:\n        \
         y: {y} = R.image.resize2d(x, R.shape([{oh}, {ow}]), roi=[{roi}], layout=\"{layout}\", \
         method=\"{method}\", coordinate_transformation_mode=\"{mode}\", rounding_method=\"{rounding}\", \
         cubic_alpha={alpha:?}, cubic_exclude={exclude}, extrapolation_value={ev:?}, out_dtype=\"void\")\n        \
         return y\n",
        x = t(s),
        y = t(o),
        oh = c.size[0],
        ow = c.size[1],
        roi = roi.join(", "),
        layout = c.layout,
        method = c.method,
        mode = c.mode,
        rounding = c.rounding,
        alpha = c.alpha,
        exclude = c.exclude as i64,
        ev = c.extrapolation,
    )
}

/// The input coordinate of output index `o` along an axis of `image` → `target` pixels.
fn source(c: &Case, o: i64, image: i64, target: i64, start: f32, end: f32) -> f32 {
    let of = o as f32;
    let scale = image as f32 / target as f32;
    match c.mode {
        "half_pixel" => (of + 0.5) * scale - 0.5,
        "align_corners" => (image - 1) as f32 / (target - 1) as f32 * of,
        "asymmetric" => scale * of,
        "pytorch_half_pixel" if target > 1 => (of + 0.5) * scale - 0.5,
        "pytorch_half_pixel" => 0.0,
        "tf_half_pixel_for_nn" => (of + 0.5) * scale,
        "tf_crop_and_resize" if target > 1 => {
            let last = (image - 1) as f32;
            start * last + of * (end - start) * last / (target - 1) as f32
        }
        "tf_crop_and_resize" => 0.5 * (start + end) * (image - 1) as f32,
        m => panic!("mode {m}"),
    }
}

fn nearest(c: &Case, o: i64, image: i64, target: i64, start: f32, end: f32) -> i64 {
    // An integer upscale with `asymmetric` divides in integers (TVM's intdiv path).
    let factor = target as f32 / image as f32;
    if c.mode == "asymmetric" && factor % 1.0 == 0.0 && factor <= 1.0 / (1e-5 * image as f32 + 1e-5)
    {
        return o / factor as i64;
    }
    let x = source(c, o, image, target, start, end);
    let rounding = match c.rounding {
        "" if c.mode == "align_corners" => "round",
        "" => "floor",
        r => r,
    };
    (match rounding {
        "round" => x.round_ties_even(),
        "round_prefer_floor" => (x - 0.5).ceil(),
        "round_prefer_ceil" => (x + 0.5).floor(),
        "floor" => (x + 1e-5).floor(),
        "ceil" => (x - 1e-5).ceil(),
        r => panic!("rounding {r}"),
    }) as i64
}

fn cubic_weights(t: f32, a: f32) -> [f32; 4] {
    let (t2, t3) = (t * t, t * t * t);
    [
        a * (t3 - 2.0 * t2 + t),
        (a + 2.0) * t3 - (3.0 + a) * t2 + 1.0,
        -(a + 2.0) * t3 + (3.0 + 2.0 * a) * t2 - a * t,
        -a * t3 + a * t2,
    ]
}

/// The naive evaluation, on an NCHW view of `x` (and gives NCHW).
fn evaluate(c: &Case, x: &[f32]) -> Vec<f32> {
    let [n, ch, h, w] = c.nchw;
    let [oh, ow] = c.size;
    let at = |b: i64, k: i64, y: i64, xx: i64| -> f32 {
        let (y, xx) = (y.clamp(0, h - 1), xx.clamp(0, w - 1));
        let i = if c.layout == "NHWC" {
            ((b * h + y) * w + xx) * ch + k
        } else {
            ((b * ch + k) * h + y) * w + xx
        };
        x[i as usize]
    };
    let mut out = Vec::new();
    for b in 0..n {
        for k in 0..ch {
            for oy in 0..oh {
                for ox in 0..ow {
                    let fy = source(c, oy, h, oh, c.roi[0], c.roi[2]);
                    let fx = source(c, ox, w, ow, c.roi[1], c.roi[3]);
                    let mut v = match c.method {
                        "nearest_neighbor" => at(
                            b,
                            k,
                            nearest(c, oy, h, oh, c.roi[0], c.roi[2]),
                            nearest(c, ox, w, ow, c.roi[1], c.roi[3]),
                        ),
                        "linear" => {
                            let (y0, x0) = (fy.floor() as i64, fx.floor() as i64);
                            let (ty, tx) = (fy - y0 as f32, fx - x0 as f32);
                            let lerp = |a: f32, b: f32, t: f32| a * (1.0 - t) + b * t;
                            lerp(
                                lerp(at(b, k, y0, x0), at(b, k, y0, x0 + 1), tx),
                                lerp(at(b, k, y0 + 1, x0), at(b, k, y0 + 1, x0 + 1), tx),
                                ty,
                            )
                        }
                        _ => {
                            let (y0, x0) = (fy.floor() as i64, fx.floor() as i64);
                            let weights = |t: f32, base: i64, extent: i64| {
                                let mut wts = cubic_weights(t, c.alpha);
                                if c.exclude {
                                    for (i, wt) in wts.iter_mut().enumerate() {
                                        let i = i as i64;
                                        if base - 1 + i < 0 || base + i > extent {
                                            *wt = 0.0;
                                        }
                                    }
                                    let total = wts[0] + wts[1] + wts[2] + wts[3];
                                    wts.iter_mut().for_each(|wt| *wt /= total);
                                }
                                wts
                            };
                            let wy = weights(fy - fy.floor(), y0, h);
                            let wx = weights(fx - fx.floor(), x0, w);
                            (0..4)
                                .map(|j| {
                                    (0..4)
                                        .map(|i| at(b, k, y0 + j - 1, x0 + i - 1) * wx[i as usize])
                                        .sum::<f32>()
                                        * wy[j as usize]
                                })
                                .sum()
                        }
                    };
                    if c.mode == "tf_crop_and_resize"
                        && (fy < 0.0 || fy > (h - 1) as f32 || fx < 0.0 || fx > (w - 1) as f32)
                    {
                        v = c.extrapolation;
                    }
                    out.push(v);
                }
            }
        }
    }
    out
}

fn input(c: &Case) -> Vec<f32> {
    let n: i64 = c.nchw.iter().product();
    (0..n)
        .map(|i| ((i * 37 % 23) as f32 - 11.0) / 4.0)
        .collect()
}

/// Runs `c` in `mode` and returns the result as NCHW.
fn run(c: &Case, mode: ExecMode, dtype: &str) -> Result<Vec<f32>, String> {
    let engine = Engine::new(Config {
        exec_mode: mode,
        ..Config::default()
    })
    .map_err(|e| e.to_string())?;
    let src = module(c, dtype);
    let m = engine
        .compile_str(&src)
        .map_err(|e| format!("{e}\n{src}"))?;
    let x = input(c);
    let shape = shape_of(c.layout, c.nchw);
    let xt = match dtype {
        "float64" => Tensor::from_slice(&shape, &x.iter().map(|&v| v as f64).collect::<Vec<_>>()),
        _ => Tensor::from_slice(&shape, &x),
    }
    .map_err(|e| e.to_string())?;
    let y = m
        .run("main", &[Value::Tensor(xt)])
        .map_err(|e| format!("{e}\n{src}"))?;
    let t = y.as_tensor().map_err(|e| e.to_string())?;
    let got: Vec<f32> = (0..t.numel())
        .map(|i| t.get_f64(i).unwrap_or(f64::NAN) as f32)
        .collect();
    if c.layout != "NHWC" {
        return Ok(got);
    }
    let [n, ch, oh, ow] = [c.nchw[0], c.nchw[1], c.size[0], c.size[1]];
    let mut nchw = Vec::with_capacity(got.len());
    for b in 0..n {
        for k in 0..ch {
            for y in 0..oh {
                for xx in 0..ow {
                    nchw.push(got[(((b * oh + y) * ow + xx) * ch + k) as usize]);
                }
            }
        }
    }
    Ok(nchw)
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let modes = [
        "half_pixel",
        "align_corners",
        "asymmetric",
        "pytorch_half_pixel",
        "tf_half_pixel_for_nn",
    ];
    for mode in modes {
        out.push(case("linear", mode, "round"));
        out.push(case("cubic", mode, "round"));
        for rounding in [
            "round",
            "round_prefer_floor",
            "round_prefer_ceil",
            "floor",
            "ceil",
            "",
        ] {
            out.push(case("nearest_neighbor", mode, rounding));
        }
    }
    // Downscaling, NHWC, an integer upscale (the intdiv path), a 1-pixel target.
    out.push(Case {
        size: [3, 2],
        ..case("linear", "half_pixel", "round")
    });
    out.push(Case {
        layout: "NHWC",
        ..case("cubic", "half_pixel", "round")
    });
    out.push(Case {
        layout: "NHWC",
        size: [8, 15],
        ..case("nearest_neighbor", "asymmetric", "round")
    });
    out.push(Case {
        size: [1, 1],
        ..case("linear", "pytorch_half_pixel", "round")
    });
    // Cubic with excluded outside taps and another alpha.
    out.push(Case {
        alpha: -0.75,
        exclude: true,
        ..case("cubic", "half_pixel", "round")
    });
    // A crop window reaching outside the image: the extrapolation value there.
    for method in ["linear", "nearest_neighbor", "cubic"] {
        out.push(Case {
            roi: [-0.25, 0.1, 0.75, 1.3],
            extrapolation: -7.5,
            ..case(method, "tf_crop_and_resize", "round")
        });
    }
    out
}

#[test]
fn resize2d_matches_topi() {
    let mut failures = Vec::new();
    for c in cases() {
        let want = evaluate(&c, &input(&c));
        for mode in [ExecMode::Bytecode, ExecMode::Compiled] {
            match run(&c, mode, "float32") {
                Ok(got) if got.len() != want.len() => failures.push(format!(
                    "{c:?} {mode:?}: {} values, not {}",
                    got.len(),
                    want.len()
                )),
                Ok(got) => {
                    let worst = got
                        .iter()
                        .zip(&want)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0f32, f32::max);
                    if worst > 1e-4 {
                        failures.push(format!("{c:?} {mode:?}: differs by {worst}"));
                    }
                }
                Err(e) => failures.push(format!("{c:?} {mode:?}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The naive evaluation itself, on values worked out by hand.
#[test]
fn the_reference_agrees_with_hand_computed_values() {
    let x = input(&case("linear", "half_pixel", "round"));
    // 2×2 of [[a, b], [c, d]] upsampled ×2 with half_pixel: the first row is a, a+¼(b−a), …
    let c = Case {
        nchw: [1, 1, 2, 2],
        size: [4, 4],
        ..case("linear", "half_pixel", "round")
    };
    let v = evaluate(&c, &x);
    let (a, b) = (x[0], x[1]);
    assert_eq!(v[0], a);
    assert!((v[1] - (0.75 * a + 0.25 * b)).abs() < 1e-6);
    assert_eq!(v[3], b);
    // `round` rounds half to even: asymmetric 5 → 2 samples 0 and 2.5 → 2.
    let c = Case {
        nchw: [1, 1, 1, 5],
        size: [1, 2],
        ..case("nearest_neighbor", "asymmetric", "round")
    };
    assert_eq!(evaluate(&c, &x), vec![x[0], x[2]]);
    // … and `round_prefer_ceil` takes 3.
    let c = Case {
        rounding: "round_prefer_ceil",
        ..c
    };
    assert_eq!(evaluate(&c, &x), vec![x[0], x[3]]);
}

/// Other dtypes compute in float32 and cast the result back, as TVM does.
#[test]
fn resize2d_of_float64_computes_in_float32() {
    let c = case("cubic", "half_pixel", "round");
    let want = evaluate(&c, &input(&c));
    for mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let got = run(&c, mode, "float64").expect("runs");
        let worst = got
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst <= 1e-6, "{mode:?}: differs by {worst}");
    }
}

#[test]
fn malformed_resize2d_is_an_error() {
    let engine = Engine::new(Config::default()).expect("an engine");
    let good = module(&case("linear", "half_pixel", "round"), "float32");
    for (from, to, want) in [
        ("layout=\"NCHW\"", "layout=\"NCW\"", "has no H and W axes"),
        ("layout=\"NCHW\"", "layout=\"NHWC16c\"", "rank 5"),
        (
            "method=\"linear\"",
            "method=\"bilinear\"",
            "method \"bilinear\"",
        ),
        (
            "coordinate_transformation_mode=\"half_pixel\"",
            "coordinate_transformation_mode=\"middle\"",
            "coordinate_transformation_mode \"middle\"",
        ),
        (
            "R.shape([7, 10])",
            "R.shape([7, 10, 2])",
            "size must have 2 values",
        ),
    ] {
        let src = good.replace(from, to);
        assert_ne!(src, good);
        let err = match engine.compile_str(&src) {
            Ok(_) => panic!("compiled: {src}"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(want), "{err}");
    }
}
