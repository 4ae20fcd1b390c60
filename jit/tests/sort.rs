//! The sort family (`tvm.contrib.sort.sort`, `argsort`, `topk`) run by the JIT's runtime helper
//! and by the reference interpreter on the same inputs — NaN of both signs, ±0.0, ±inf,
//! denormals, ties, extreme integers — must give the same bytes or the same error; a few cases
//! also pin the expected order (NaN after `+inf`, stable ties in both directions).
//!
//! Each case names a PrimFunc of [`MODULE`] and gives the bytes of its input buffer; the other
//! buffers are outputs and start zeroed.

use std::collections::HashMap;

use relaxjit_jit::kernel::KernelLibrary;
use tir::PrimFunc;
use tir::interp::InterpArg;
use vm::{Tensor, Value};

fn make_array(buf: &str, dims: &str, ndim: usize, witness: &str) -> String {
    format!(
        "T.tvm_stack_make_array({buf}.data, T.tvm_stack_make_shape({dims}), 0, {ndim}, {witness}, 0)"
    )
}

/// `def name(data: (in_shape, in_dtype), outs...): T.call_packed(op, arrays..., tail)`.
fn func(name: &str, op: &str, bufs: &[(&str, &str, &str)], tail: &str) -> String {
    let params: Vec<String> = bufs
        .iter()
        .map(|(n, shape, dt)| format!("{n}: T.Buffer(({shape}), \"{dt}\")"))
        .collect();
    let arrays: Vec<String> = bufs
        .iter()
        .map(|(n, shape, dt)| {
            let ndim = shape.split(',').filter(|s| !s.trim().is_empty()).count();
            let witness = if dt.starts_with("float") {
                format!("T.{dt}(0.0)")
            } else {
                format!("T.{dt}(0)")
            };
            make_array(n, shape.trim_end_matches(','), ndim, &witness)
        })
        .collect();
    format!(
        "    @T.prim_func\n    def {name}({}):\n        T.call_packed(\"tvm.contrib.sort.{op}\", {}, {tail})\n",
        params.join(", "),
        arrays.join(", ")
    )
}

fn module() -> String {
    let f = [
        func(
            "sort_f32_asc",
            "sort",
            &[("data", "2, 6", "float32"), ("out", "2, 6", "float32")],
            "-1, T.bool(True)",
        ),
        func(
            "sort_f32_desc",
            "sort",
            &[("data", "2, 6", "float32"), ("out", "2, 6", "float32")],
            "1, T.bool(False)",
        ),
        func(
            "argsort_f32_axis0_desc",
            "argsort",
            &[("data", "6, 2", "float32"), ("out", "6, 2", "int32")],
            "0, T.bool(False)",
        ),
        func(
            "argsort_f64_asc",
            "argsort",
            &[("data", "12,", "float64"), ("out", "12,", "int64")],
            "0, T.bool(True)",
        ),
        func(
            "sort_f16_asc",
            "sort",
            &[("data", "6,", "float16"), ("out", "6,", "float16")],
            "0, T.bool(True)",
        ),
        func(
            "topk_both_largest",
            "topk",
            &[
                ("data", "2, 6", "float32"),
                ("vals", "2, 3", "float32"),
                ("idx", "2, 3", "int64"),
            ],
            "3, 1, \"both\", T.bool(False)",
        ),
        func(
            "topk_indices_smallest",
            "topk",
            &[("data", "2, 6", "float32"), ("idx", "2, 2", "int32")],
            "2, -1, \"indices\", T.bool(True)",
        ),
        func(
            "topk_values_all",
            "topk",
            &[("data", "12,", "float32"), ("vals", "12,", "float32")],
            "0, 0, \"values\", T.bool(False)",
        ),
        func(
            "argsort_u32_asc",
            "argsort",
            &[("data", "6,", "uint32"), ("out", "6,", "int32")],
            "0, T.bool(True)",
        ),
        func(
            "sort_i64_desc",
            "sort",
            &[("data", "6,", "int64"), ("out", "6,", "int64")],
            "0, T.bool(False)",
        ),
        func(
            "topk_short_output",
            "topk",
            &[("data", "2, 6", "float32"), ("vals", "2, 4", "float32")],
            "3, 1, \"values\", T.bool(False)",
        ),
        func(
            "sort_wrong_values_dtype",
            "sort",
            &[("data", "12,", "float32"), ("out", "12,", "float64")],
            "0, T.bool(True)",
        ),
        func(
            "argsort_bad_axis",
            "argsort",
            &[("data", "12,", "float32"), ("out", "12,", "int32")],
            "1, T.bool(True)",
        ),
    ];
    format!("@I.ir_module\nclass Module:\n{}", f.join("\n"))
}

fn funcs() -> (HashMap<String, PrimFunc>, KernelLibrary) {
    let src = module();
    let fs = match tir::parse_module_prim_funcs(&src) {
        Ok(f) => f,
        Err(e) => panic!("{}", e.render(&src)),
    };
    let lib = KernelLibrary::compile(&fs).expect("the sort kernels compile");
    (fs.into_iter().map(|f| (f.name.clone(), f)).collect(), lib)
}

/// Twelve float32s with every special value: ties, both zeros, both infinities, NaN of both
/// signs, denormals.
fn special_f32() -> Vec<f32> {
    let nan = f32::NAN;
    vec![
        1.0,
        nan,
        -0.0,
        0.0,
        f32::NEG_INFINITY,
        1.0,
        f32::INFINITY,
        1e-45,
        -nan,
        -1.0,
        -1e-45,
        nan,
    ]
}

fn le_bytes<T: Copy, const N: usize>(v: &[T], f: fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

/// The outputs of `name` on `input` (the bytes of the first buffer) from the JIT and from the
/// interpreter.
type Outcome = Result<Vec<Vec<u8>>, String>;

fn run_both(
    fs: &HashMap<String, PrimFunc>,
    lib: &KernelLibrary,
    name: &str,
    input: &[u8],
) -> (Outcome, Outcome) {
    let f = &fs[name];
    let bufs: Vec<(Vec<i64>, tir::DataType)> = f
        .buffer_map
        .iter()
        .map(|(_, b)| {
            let shape = b.shape.iter().map(|d| d.as_int().unwrap()).collect();
            (shape, b.dtype)
        })
        .collect();
    let initial: Vec<Vec<u8>> = bufs
        .iter()
        .enumerate()
        .map(|(i, (shape, dt))| {
            if i == 0 {
                input.to_vec()
            } else {
                vec![0; shape.iter().product::<i64>() as usize * dt.bytes()]
            }
        })
        .collect();
    let tensors: Vec<Tensor> = bufs
        .iter()
        .zip(&initial)
        .map(|((shape, dt), bytes)| {
            let dt: vm::DataType = dt.to_string().parse().unwrap();
            Tensor::from_bytes(shape, dt, bytes).unwrap()
        })
        .collect();
    let values: Vec<Value> = tensors.iter().cloned().map(Value::from).collect();
    let jit = match lib.get(name).expect("kernel").call(&values) {
        Ok(()) => Ok(tensors[1..].iter().map(Tensor::to_bytes).collect()),
        Err(e) => Err(e.to_string()),
    };
    let mut mem = initial.clone();
    let mut args: Vec<InterpArg<'_>> = mem
        .iter_mut()
        .zip(&bufs)
        .map(|(data, (shape, dtype))| InterpArg::Buffer {
            data,
            shape: shape.clone(),
            dtype: *dtype,
        })
        .collect();
    let interp = match tir::interp::run(f, &mut args) {
        Ok(()) => {
            drop(args);
            Ok(mem[1..].to_vec())
        }
        Err(e) => Err(e.to_string()),
    };
    (jit, interp)
}

fn f32_bits(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn jit_and_interpreter_sort_alike() {
    let (fs, lib) = funcs();
    let x = special_f32();
    let f32s = le_bytes(&x, f32::to_le_bytes);
    let f64s = le_bytes(
        &x.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(),
        f64::to_le_bytes,
    );
    let f16s = le_bytes(
        &[
            half::f16::NAN,
            half::f16::from_f32(-0.0),
            half::f16::ZERO,
            half::f16::MIN_POSITIVE_SUBNORMAL,
            half::f16::NEG_INFINITY,
            half::f16::ONE,
        ],
        half::f16::to_le_bytes,
    );
    let u32s = le_bytes(&[u32::MAX, 0, 7, 1 << 31, 7, 1], u32::to_le_bytes);
    let i64s = le_bytes(&[i64::MIN, 5, i64::MAX, -1, 5, 0], i64::to_le_bytes);
    // (function, input, the error both must report, if any)
    let cases: &[(&str, &[u8], Option<&str>)] = &[
        ("sort_f32_asc", &f32s, None),
        ("sort_f32_desc", &f32s, None),
        ("argsort_f32_axis0_desc", &f32s, None),
        ("argsort_f64_asc", &f64s, None),
        ("sort_f16_asc", &f16s, None),
        ("topk_both_largest", &f32s, None),
        ("topk_indices_smallest", &f32s, None),
        ("topk_values_all", &f32s, None),
        ("argsort_u32_asc", &u32s, None),
        ("sort_i64_desc", &i64s, None),
        (
            "topk_short_output",
            &f32s,
            Some("values output has shape [2, 4], expected [2, 3]"),
        ),
        (
            "sort_wrong_values_dtype",
            &f32s,
            Some("values output has dtype float64, the input float32"),
        ),
        (
            "argsort_bad_axis",
            &f32s,
            Some("axis 1 is out of range for rank 1"),
        ),
    ];
    let mut outputs = HashMap::new();
    for &(name, input, want_err) in cases {
        let (jit, interp) = run_both(&fs, &lib, name, input);
        match (want_err, &jit, &interp) {
            (None, Ok(j), Ok(i)) => {
                assert_eq!(j, i, "{name}: the JIT and the interpreter differ");
                outputs.insert(name, j.clone());
            }
            (Some(msg), Err(j), Err(i)) => {
                assert!(j.contains(msg), "{name}: JIT error `{j}` lacks `{msg}`");
                assert!(
                    i.contains(msg),
                    "{name}: interpreter error `{i}` lacks `{msg}`"
                );
            }
            _ => panic!("{name}: JIT {jit:?}, interpreter {interp:?}, expected error {want_err:?}"),
        }
    }
    // The order itself, independent of both implementations.
    let bits_of = |idx: &[usize]| -> Vec<u32> { idx.iter().map(|&i| x[i].to_bits()).collect() };
    // Row 0 is x[0..6] = [1, nan, -0, 0, -inf, 1], row 1 is x[6..12] = [inf, 1e-45, -nan, -1,
    // -1e-45, nan].
    let mut want = bits_of(&[4, 2, 3, 0, 5, 1]);
    want.extend(bits_of(&[9, 10, 7, 6, 8, 11]));
    assert_eq!(f32_bits(&outputs["sort_f32_asc"][0]), want);
    let mut want = bits_of(&[1, 0, 5, 2, 3, 4]);
    want.extend(bits_of(&[8, 11, 6, 7, 10, 9]));
    assert_eq!(f32_bits(&outputs["sort_f32_desc"][0]), want);
    let mut want = bits_of(&[1, 0, 5]);
    want.extend(bits_of(&[8, 11, 6]));
    let topk = &outputs["topk_both_largest"];
    assert_eq!(f32_bits(&topk[0]), want);
    assert_eq!(
        topk[1],
        le_bytes(&[1i64, 0, 5, 2, 5, 0], i64::to_le_bytes),
        "topk indices"
    );
    assert_eq!(
        outputs["argsort_u32_asc"][0],
        le_bytes(&[1i32, 5, 2, 4, 3, 0], i32::to_le_bytes)
    );
    assert_eq!(
        outputs["sort_i64_desc"][0],
        le_bytes(&[i64::MAX, 5, 5, 0, -1, i64::MIN], i64::to_le_bytes)
    );
}

/// An array described with a wider element type than its buffer's would let the helper reach
/// past the buffer even with the element count checked: the kernel does not compile.
#[test]
fn arrays_described_wider_than_their_buffer_are_refused() {
    let src = format!(
        "@I.ir_module\nclass Module:\n    @T.prim_func\n    def wide(data: T.Buffer((4,), \"float32\"), out: T.Buffer((4,), \"float32\")):\n        T.call_packed(\"tvm.contrib.sort.sort\", {}, {}, 0, T.bool(True))\n",
        make_array("data", "4", 1, "T.float64(0.0)"),
        make_array("out", "4", 1, "T.float64(0.0)")
    );
    let funcs = tir::parse_module_prim_funcs(&src).expect("the module parses");
    let Err(err) = KernelLibrary::compile(&funcs) else {
        panic!("a float64 description of a float32 buffer is refused");
    };
    assert!(err.to_string().contains("described as float64"), "{err}");
}
