//! Bounds-check elimination is sound: kernels whose indices wrap around their integer type, or
//! whose bounds would overflow the symbolic prover's arithmetic, keep their checks and fail
//! with an out-of-bounds error (as the reference interpreter does) instead of touching memory
//! outside their buffers; kernels whose wrapped indices stay inside compute what the
//! interpreter computes. Each case runs under every compile configuration.

use relaxjit_jit::kernel::{CompileOptions, KernelLibrary};
use tir::interp::InterpArg;
use vm::{DataType, Tensor, Value};

/// What a case must do.
enum Expect {
    /// Fail with an out-of-bounds error naming this buffer (JIT and interpreter).
    OutOfBounds(&'static str),
    /// Run, with the last buffer equal to the interpreter's.
    SameAsInterpreter,
}

/// A kernel: its TVMScript body, the shapes of its `float32` buffers (inputs then output)
/// and what it must do.
struct Case {
    name: &'static str,
    /// The `T.prim_func` text; the buffers are `A` then `B`.
    func: &'static str,
    shapes: [&'static [i64]; 2],
    expect: Expect,
}

const CASES: &[Case] = &[
    // The issue's "int32 index wraparound": over int64 the index is 0..12, but in int32
    // `i * 1073741825` wraps and the index is -8 / -4 for i = 2, 3.
    Case {
        name: "int32_wrap_store",
        func: r#"
    @T.prim_func(s_tir=True)
    def int32_wrap_store(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            B[(i * 1073741825) // 268435456] = A[0]
"#,
        shapes: [&[16], &[16]],
        expect: Expect::OutOfBounds("B"),
    },
    Case {
        name: "int32_wrap_load",
        func: r#"
    @T.prim_func(s_tir=True)
    def int32_wrap_load(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            B[i] = A[(i * 1073741825) // 268435456]
"#,
        shapes: [&[16], &[16]],
        expect: Expect::OutOfBounds("A"),
    },
    // The same wrapped values brought back into range by `%`: no error, the wrapped values.
    Case {
        name: "int32_wrap_mod",
        func: r#"
    @T.prim_func(s_tir=True)
    def int32_wrap_mod(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            B[i] = A[(i * 1073741825) // 268435456 % 16]
"#,
        shapes: [&[16], &[16]],
        expect: Expect::SameAsInterpreter,
    },
    // int64 wraps too: 2 * 2^62 is -2^63.
    Case {
        name: "int64_wrap",
        func: r#"
    @T.prim_func(s_tir=True)
    def int64_wrap(A: T.Buffer((T.int64(16),), "float32"), B: T.Buffer((T.int64(16),), "float32")):
        for i in range(T.int64(4)):
            B[i] = A[i * T.int64(4611686018427387904) // T.int64(4611686018427387904)]
"#,
        shapes: [&[16], &[16]],
        expect: Expect::OutOfBounds("A"),
    },
    // A narrowing cast of a value that does not fit wraps: 2^32 + i is i in int32 only when
    // computed modulo 2^32; the bound must be int32's range, not `[2^32, 2^32 + 3]`.
    Case {
        name: "narrowing_cast",
        func: r#"
    @T.prim_func(s_tir=True)
    def narrowing_cast(A: T.Buffer((T.int64(16),), "float32"), B: T.Buffer((T.int64(16),), "float32")):
        for i in range(T.int64(4)):
            B[i] = A[T.Cast("int32", i * T.int64(2147483647) + T.int64(2))]
"#,
        shapes: [&[16], &[16]],
        expect: Expect::OutOfBounds("A"),
    },
    // The issue's "symbolic prover overflow": (2^62 - 1) * 4 + 3 wraps in 64 bits.
    Case {
        name: "prover_overflow",
        func: r#"
    @T.prim_func(s_tir=True)
    def prover_overflow(A: T.Buffer((T.int64(2), T.int64(4)), "float32"), B: T.Buffer((T.int64(2), T.int64(4)), "float32")):
        for i, j in T.grid(T.int64(4611686018427387904), T.int64(4)):
            with T.sblock("copy"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]
"#,
        shapes: [&[2, 4], &[2, 4]],
        expect: Expect::OutOfBounds("A"),
    },
];

const CONFIGS: [CompileOptions; 3] = [
    CompileOptions {
        vectorize: true,
        parallel: true,
        loop_transforms: true,
        contract_fma: true,
    },
    CompileOptions {
        vectorize: false,
        parallel: false,
        loop_transforms: false,
        contract_fma: false,
    },
    CompileOptions {
        vectorize: false,
        parallel: true,
        loop_transforms: false,
        contract_fma: false,
    },
];

fn module(case: &Case) -> String {
    format!(
        "# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n@I.ir_module\nclass Module:{}",
        case.func
    )
}

fn input(shape: &[i64]) -> Vec<f32> {
    (0..shape.iter().product::<i64>())
        .map(|x| x as f32 + 1.0)
        .collect()
}

/// Runs the interpreter: the output buffer or the error text.
fn interpret(func: &tir::PrimFunc, shapes: &[&[i64]; 2]) -> Result<Vec<f32>, String> {
    let mut a: Vec<u8> = input(shapes[0])
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let mut b = vec![0u8; shapes[1].iter().product::<i64>() as usize * 4];
    let mut args = [
        InterpArg::Buffer {
            data: &mut a,
            shape: shapes[0].to_vec(),
            dtype: tir::DataType::FLOAT32,
        },
        InterpArg::Buffer {
            data: &mut b,
            shape: shapes[1].to_vec(),
            dtype: tir::DataType::FLOAT32,
        },
    ];
    tir::interp::run(func, &mut args).map_err(|e| e.to_string())?;
    Ok(b.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

#[test]
fn wrapping_and_overflowing_indices_keep_their_checks() {
    for case in CASES {
        let text = module(case);
        let funcs = match tir::parse_module_prim_funcs(&text) {
            Ok(f) => f,
            Err(e) => panic!("{}: {}", case.name, e.render(&text)),
        };
        let reference = interpret(&funcs[0], &case.shapes);
        for options in CONFIGS {
            let lib = KernelLibrary::compile_with(&funcs, options).expect("compiles");
            let kernel = lib.get(case.name).expect("kernel exists");
            let a =
                Value::Tensor(Tensor::from_slice(case.shapes[0], &input(case.shapes[0])).unwrap());
            let b = Value::Tensor(Tensor::zeros(case.shapes[1], DataType::F32).unwrap());
            let got = kernel.call(&[a, b.clone()]);
            match &case.expect {
                Expect::OutOfBounds(buffer) => {
                    let msg = match got {
                        Ok(()) => panic!("{} ({options:?}): ran without an error", case.name),
                        Err(e) => e.to_string(),
                    };
                    assert!(
                        msg.contains("out of bounds") && msg.contains(&format!("`{buffer}`")),
                        "{} ({options:?}): {msg}",
                        case.name
                    );
                    let interp = reference.as_ref().expect_err("the interpreter fails too");
                    assert!(interp.contains("out of bounds"), "{}: {interp}", case.name);
                }
                Expect::SameAsInterpreter => {
                    got.unwrap_or_else(|e| panic!("{} ({options:?}): {e}", case.name));
                    let want = reference.as_ref().expect("the interpreter runs");
                    let out = b.as_tensor().unwrap().to_vec::<f32>().unwrap();
                    assert_eq!(&out, want, "{} ({options:?})", case.name);
                }
            }
        }
    }
}
