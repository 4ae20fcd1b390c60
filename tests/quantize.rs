//! `R.quantize` and `R.dequantize` as TVM prints them: per-tensor constants, per-axis tensors
//! and one-element tensors as scale and zero point, rounding half to even, saturation at the
//! output type's range, in both exec modes; and the errors of malformed calls.

use relaxjit::{Config, Engine, ExecMode, Tensor, Value};

fn engines() -> Vec<Engine> {
    [ExecMode::Bytecode, ExecMode::Compiled]
        .into_iter()
        .map(|exec_mode| {
            Engine::new(Config {
                exec_mode,
                ..Config::default()
            })
            .expect("an engine")
        })
        .collect()
}

fn run(src: &str, args: &[Value]) -> Vec<Vec<f64>> {
    engines()
        .iter()
        .map(|engine| {
            let m = engine
                .compile_str(src)
                .unwrap_or_else(|e| panic!("{e}\n{src}"));
            let y = m.run("main", args).unwrap_or_else(|e| panic!("{e}\n{src}"));
            let t = y.as_tensor().expect("a tensor");
            (0..t.numel())
                .map(|i| t.get_f64(i).expect("an element"))
                .collect()
        })
        .collect()
}

const X: [f32; 8] = [0.5, 1.5, 2.5, -2.5, 300.0, -300.0, 3.74, -0.26];

fn module(sig: &str, out: &str, call: &str) -> String {
    format!(
        "@I.ir_module\nclass Module:\n    @R.function\n    def main({sig}) -> {out}:\n        \
         y: {out} = {call}\n        return y\n"
    )
}

#[test]
fn quantize_per_tensor_rounds_half_to_even_and_saturates() {
    let src = module(
        "x: R.Tensor((2, 4), dtype=\"float32\")",
        "R.Tensor((2, 4), dtype=\"int8\")",
        "R.quantize(x, R.const(0.5, \"float32\"), R.const(1, \"int8\"), out_dtype=\"int8\", axis=-1)",
    );
    let x = Tensor::from_slice(&[2, 4], &X).unwrap();
    // x / 0.5 = 1, 3, 5, -5, 600, -600, 7.48, -0.52 → round half to even, + 1, clip.
    let want = vec![2.0, 4.0, 6.0, -4.0, 127.0, -128.0, 8.0, 0.0];
    for got in run(&src, &[Value::Tensor(x)]) {
        assert_eq!(got, want);
    }
}

#[test]
fn quantize_per_axis_and_one_element_parameters() {
    let src = module(
        "x: R.Tensor((2, 4), dtype=\"float32\"), s: R.Tensor((2,), dtype=\"float32\"), z: R.Tensor((1,), dtype=\"int8\")",
        "R.Tensor((2, 4), dtype=\"uint8\")",
        "R.quantize(x, s, z, out_dtype=\"uint8\", axis=0)",
    );
    let args = [
        Value::Tensor(Tensor::from_slice(&[2, 4], &X).unwrap()),
        Value::Tensor(Tensor::from_slice(&[2], &[1.0f32, 4.0]).unwrap()),
        Value::Tensor(Tensor::from_slice(&[1], &[3i8]).unwrap()),
    ];
    // Row 0 / 1, row 1 / 4; + 3; clip to [0, 255].
    let want = vec![3.0, 5.0, 5.0, 1.0, 78.0, 0.0, 4.0, 3.0];
    for got in run(&src, &args) {
        assert_eq!(got, want);
    }
}

#[test]
fn dequantize_to_float32_and_clipped_float16() {
    let q: [i8; 8] = [-128, -1, 0, 1, 2, 100, 127, 5];
    for (out, scale, want) in [
        (
            "float32",
            "0.25",
            vec![-32.25, -0.5, -0.25, 0.0, 0.25, 24.75, 31.5, 1.0],
        ),
        // 65504 is float16's largest: 1000 × (127 − 1) is clipped to it.
        (
            "float16",
            "1000.0",
            vec![
                -65504.0, -2000.0, -1000.0, 0.0, 1000.0, 65504.0, 65504.0, 4000.0,
            ],
        ),
    ] {
        let src = module(
            "q: R.Tensor((8,), dtype=\"int8\")",
            &format!("R.Tensor((8,), dtype=\"{out}\")"),
            &format!(
                "R.dequantize(q, R.const({scale}, \"float32\"), R.const(1, \"int8\"), out_dtype=\"{out}\", axis=0)"
            ),
        );
        let args = [Value::Tensor(Tensor::from_slice(&[8], &q).unwrap())];
        for got in run(&src, &args) {
            assert_eq!(got, want, "{out}");
        }
    }
}

#[test]
fn malformed_quantize_is_an_error() {
    let engine = Engine::new(Config::default()).expect("an engine");
    let sig = "x: R.Tensor((2, 4), dtype=\"float32\"), s: R.Tensor((3,), dtype=\"float32\")";
    for (sig, call, out, want) in [
        (
            sig,
            "R.quantize(x, s, R.const(0, \"int8\"), out_dtype=\"int8\", axis=0)",
            "int8",
            "scale has 3 values, but data's axis 0 has 2",
        ),
        (
            sig,
            "R.quantize(x, R.const(1.0, \"float32\"), R.const(0, \"int8\"), out_dtype=\"int8\", axis=2)",
            "int8",
            "axis",
        ),
        (
            sig,
            "R.quantize(x, R.const(1, \"int32\"), R.const(0, \"int8\"), out_dtype=\"int8\", axis=0)",
            "int8",
            "scale must be float32 or float16, got int32",
        ),
        (
            sig,
            "R.quantize(x, R.const(1.0, \"float32\"), R.const(0, \"int8\"), out_dtype=\"float32\", axis=0)",
            "float32",
            "out_dtype must be int8, uint8, int16 or uint16",
        ),
        (
            sig,
            "R.dequantize(x, R.const(1.0, \"float32\"), R.const(0, \"int8\"), out_dtype=\"float32\", axis=0)",
            "float32",
            "data must be int8, uint8, int16, uint16 or int32, got float32",
        ),
    ] {
        let src = module(sig, &format!("R.Tensor((2, 4), dtype=\"{out}\")"), call);
        let err = match engine.compile_str(&src) {
            Ok(_) => panic!("compiled: {src}"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(want), "{err}");
    }
}
