//! Regression tests, through the public `Engine`, for inputs that used to corrupt memory or
//! abort the process: integer literals beyond int32, huge constants, writes through shared
//! tensors, absurd thread counts, and elementwise chains too long for one fused kernel. Each gives
//! TVM's value or a clean error.

use relaxjit::{Config, Engine, Error, MAX_THREADS, Tensor, Value};

/// A module whose `main` runs one `T.prim_func` named `k` from `A` (4 elements of `in_dtype`)
/// into `B` (4 of `out_dtype`) with `body` as its loop body over `i`.
fn one_kernel(body: &str, out_dtype: &str) -> String {
    format!(
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "{out_dtype}")):
        for i in range(4):
            {body}

    @R.function
    def main(a: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="{out_dtype}"):
        cls = Module
        b = R.call_tir(cls.k, (a,), out_ty=R.Tensor((4,), dtype="{out_dtype}"))
        return b
"#
    )
}

fn run_one_kernel(body: &str, out_dtype: &str) -> Tensor {
    let a = Tensor::from_slice(&[4], &[0.0f32; 4]).unwrap();
    let out = Engine::default()
        .compile_str(&one_kernel(body, out_dtype))
        .unwrap_or_else(|e| panic!("{body}: {e}"))
        .run("main", &[a.into()])
        .unwrap_or_else(|e| panic!("{body}: {e}"));
    out.as_tensor().unwrap().clone()
}

/// `B[i] = T.Cast("float32", i + 4294967296)`: the literal is int64 and widens `i`, as in TVM,
/// instead of being truncated to 32 bits (which gave `[0, 1, 2, 3]`).
#[test]
fn integer_literals_beyond_int32_keep_their_value() {
    let exact = run_one_kernel("B[i] = i + 4294967296", "int64");
    assert_eq!(
        exact.to_vec::<i64>().unwrap(),
        [4294967296, 4294967297, 4294967298, 4294967299]
    );
    let cast = run_one_kernel(r#"B[i] = T.Cast("float32", i + 4294967296)"#, "float32");
    let want: Vec<f32> = (0..4).map(|i| (4294967296i64 + i) as f32).collect();
    assert_eq!(cast.to_vec::<f32>().unwrap(), want);
    // Products and negative literals beyond int32, and one that fits (stays int32).
    let mixed = run_one_kernel(
        "B[i] = i * 3000000000 - 2147483649 + (i + -2147483648)",
        "int64",
    );
    let want: Vec<i64> = (0..4)
        .map(|i: i64| i * 3000000000 - 2147483649 + (i - 2147483648))
        .collect();
    assert_eq!(mixed.to_vec::<i64>().unwrap(), want);
}

/// `main() -> z` where `z = <creation>` of `n` float32 elements.
fn creation(op: &str, n: u64) -> String {
    let call = match op {
        "zeros" | "ones" => format!(r#"R.{op}(R.shape([{n}]), "float32")"#),
        "full" => format!(r#"R.full(R.shape([{n}]), R.const(1.5, "float32"), "float32")"#),
        "arange" => {
            format!(r#"R.arange(T.int64(0), T.int64({n}), T.int64(1), dtype="float32")"#)
        }
        _ => unreachable!("no creation op {op}"),
    };
    format!(
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor(({n},), dtype="float32"):
        with R.dataflow():
            z = {call}
            R.output(z)
        return z
"#
    )
}

const CREATION_OPS: [&str; 4] = ["zeros", "ones", "full", "arange"];

/// `R.zeros(R.shape([100000000000]), "float32")` (and ones, full, arange) asks for 400 GB:
/// FoldConstant used to allocate it at compile time and abort. Now it compiles (the call is
/// kept, as `relaxjit inspect` shows), and a size no machine can provide fails at run time with
/// an allocation error naming the bytes.
#[test]
fn huge_constants_compile_and_fail_cleanly_at_run_time() {
    let engine = Engine::default();
    for op in CREATION_OPS {
        let compiled = engine
            .compile_str(&creation(op, 100_000_000_000))
            .unwrap_or_else(|e| panic!("{op}: {e}"));
        assert!(compiled.kernels().get(op).is_some(), "{op} was not kept");
        let text = compiled.executable().as_text();
        assert!(text.contains("vm.builtin.alloc_storage"), "{op}: {text}");

        // 4 * 10^14 bytes: beyond the 128 TiB user address space of 64-bit Linux, so refused
        // whatever the machine's memory and overcommit policy.
        let n = 100_000_000_000_000u64;
        let err = engine
            .compile_str(&creation(op, n))
            .unwrap_or_else(|e| panic!("{op}: {e}"))
            .run("main", &[])
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("out of memory") && msg.contains(&(4 * n).to_string()),
            "{op}: {msg}"
        );
    }
}

/// Below the limit a creation op folds into a constant; `Config::max_fold_bytes` lowers the
/// limit, and the call then runs at run time with the same result.
#[test]
fn the_fold_limit_is_a_config_field() {
    for op in CREATION_OPS {
        let src = creation(op, 4);
        let folded = Engine::default().compile_str(&src).unwrap();
        assert!(folded.kernels().get(op).is_none(), "{op} was not folded");
        let kept = Engine::new(Config {
            max_fold_bytes: 15,
            ..Config::default()
        })
        .unwrap()
        .compile_str(&src)
        .unwrap();
        assert!(kept.kernels().get(op).is_some(), "{op} was folded");
        let a = folded.run("main", &[]).unwrap();
        let b = kept.run("main", &[]).unwrap();
        assert_eq!(
            a.as_tensor().unwrap().to_vec::<f32>().unwrap(),
            b.as_tensor().unwrap().to_vec::<f32>().unwrap(),
            "{op}"
        );
    }
}

/// A tensor shared with another thread (a clone) or with the VM refuses a safe write; once it
/// is the only handle, the write goes through.
#[test]
fn shared_tensors_refuse_safe_writes() {
    let mut out = run_one_kernel("B[i] = A[i] + T.float32(1)", "float32");
    let reader = out.clone();
    let (tried, wait) = std::sync::mpsc::channel::<()>();
    let handle = std::thread::spawn(move || {
        let before = reader.to_vec::<f32>().unwrap();
        // Keep the clone alive until the main thread has tried its writes.
        wait.recv().unwrap();
        before == [1.0; 4] && reader.to_vec::<f32>().unwrap() == [1.0; 4]
    });
    let refused = out.copy_from_slice(&[2.0f32; 4]).unwrap_err();
    assert!(refused.message().contains("shared handle"), "{refused}");
    assert!(out.bytes_mut().is_err());
    tried.send(()).unwrap();
    assert!(handle.join().unwrap(), "the reader saw a write");
    // The reader is gone: `out` is the only handle.
    out.copy_from_slice(&[2.0f32; 4]).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [2.0; 4]);

    // An argument the caller keeps is shared with the argument list.
    let args = [Value::Tensor(out.clone())];
    assert!(out.copy_from_slice(&[3.0f32; 4]).is_err());
    drop(args);
    out.copy_from_slice(&[3.0f32; 4]).unwrap();

    // A folded constant returned by `main` is the executable's own: writing it would change
    // what every later call returns.
    let compiled = Engine::default().compile_str(&creation("ones", 4)).unwrap();
    let Value::Tensor(mut constant) = compiled.run("main", &[]).unwrap() else {
        panic!("main returns a tensor");
    };
    assert!(constant.copy_from_slice(&[0.0f32; 4]).is_err());
    let again = compiled.run("main", &[]).unwrap();
    assert_eq!(
        again.as_tensor().unwrap().to_vec::<f32>().unwrap(),
        [1.0; 4]
    );
}

/// `Config::threads` beyond `MAX_THREADS` is an invalid argument, reported at once instead of
/// starting (or hanging on) 100000 threads.
#[test]
fn threads_beyond_the_bound_are_rejected() {
    for threads in [MAX_THREADS + 1, 100_000, usize::MAX] {
        let err = Engine::new(Config {
            threads: Some(threads),
            ..Config::default()
        })
        .unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
        assert!(
            err.to_string().contains(&format!("at most {MAX_THREADS}")),
            "{err}"
        );
    }
    assert!(
        Engine::new(Config {
            threads: Some(2),
            ..Config::default()
        })
        .is_ok()
    );
}

/// A dataflow chain of `n` elementwise operators: `y0 = relu(x)`, `y{i} = y{i-1} + 1`, and,
/// with `skip`, a last `y0 +` that makes `y0`'s post-dominator `n` operators away.
fn elementwise_chain(n: usize, skip: bool) -> String {
    let mut s = String::from(
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            y0 = R.nn.relu(x)
"#,
    );
    for i in 1..n {
        s += &format!(
            "            y{i} = R.add(y{}, R.const(1.0, \"float32\"))\n",
            i - 1
        );
    }
    let last = if skip {
        s += &format!("            z = R.add(y{}, y0)\n", n - 1);
        "z".to_string()
    } else {
        format!("y{}", n - 1)
    };
    s += &format!("            R.output({last})\n        return {last}\n");
    s
}

/// Fusion once merged a whole elementwise chain into one PrimFunc, whose statements nest as
/// deep as the chain is long: 3000 operators overflowed the stack (aborting the process) and
/// 1000 took half a minute in Cranelift. Groups now stop at TVM's 256 operators; the chains
/// compile on a test thread's stack, in both exec modes, to the values they compute.
#[test]
fn long_elementwise_chains_are_fused_in_bounded_groups() {
    let x = Tensor::from_slice(&[2, 3], &[0.5f32, 1.0, -2.0, 3.0, 0.0, 4.25]).unwrap();
    for (n, skip) in [(3000, false), (3000, true)] {
        let src = elementwise_chain(n, skip);
        for exec_mode in [relaxjit::ExecMode::Bytecode, relaxjit::ExecMode::Compiled] {
            let compiled = Engine::new(Config {
                exec_mode,
                ..Config::default()
            })
            .unwrap()
            .compile_str(&src)
            .unwrap_or_else(|e| panic!("chain of {n} (skip {skip}, {exec_mode:?}): {e}"));
            let got = compiled.run("main", &[x.clone().into()]).unwrap();
            let got: Vec<f32> = got.as_tensor().unwrap().to_vec().unwrap();
            let want: Vec<f32> = [0.5f32, 1.0, -2.0, 3.0, 0.0, 4.25]
                .iter()
                .map(|&v| {
                    let r = v.max(0.0);
                    r + (n - 1) as f32 + if skip { r } else { 0.0 }
                })
                .collect();
            assert_eq!(got, want, "chain of {n} (skip {skip}, {exec_mode:?})");
        }
    }
}

/// A concat of 2,000 tensors is one library copy, in both exec modes and for float and integer
/// elements alike: as a TIR kernel (2,000 buffer arguments, a chain of 2,000 selects per
/// element) it took 160 s and 4.2 GB to compile. The result is checked against the
/// concatenation done here.
#[test]
fn a_concat_of_thousands_of_inputs_is_one_library_copy() {
    let n = 2000;
    for dtype in ["float32", "int64"] {
        let params: Vec<String> = (0..n)
            .map(|i| format!("x{i}: R.Tensor((1, 3), dtype=\"{dtype}\")"))
            .collect();
        let args: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
        let src = format!(
            "@I.ir_module\nclass Module:\n    @R.function\n    def main({}) -> R.Tensor(({n}, 3), dtype=\"{dtype}\"):\n        with R.dataflow():\n            gv: R.Tensor(({n}, 3), dtype=\"{dtype}\") = R.concat(({},), axis=0)\n            R.output(gv)\n        return gv\n",
            params.join(", "),
            args.join(", ")
        );
        let row = |i: usize| [i as i64, -(i as i64), 7 * i as i64];
        let inputs: Vec<Value> = (0..n)
            .map(|i| {
                let t = if dtype == "int64" {
                    Tensor::from_slice(&[1, 3], &row(i))
                } else {
                    Tensor::from_slice(&[1, 3], &row(i).map(|v| v as f32))
                };
                t.unwrap().into()
            })
            .collect();
        let want: Vec<f64> = (0..n).flat_map(|i| row(i).map(|v| v as f64)).collect();
        for exec_mode in [relaxjit::ExecMode::Bytecode, relaxjit::ExecMode::Compiled] {
            let compiled = Engine::new(Config {
                exec_mode,
                ..Config::default()
            })
            .unwrap()
            .compile_str(&src)
            .unwrap();
            let listing = compiled.executable().as_text();
            assert!(listing.contains("relaxjit.concat"), "{dtype} {exec_mode:?}");
            let got = compiled.run("main", &inputs).unwrap();
            let got = got.as_tensor().unwrap();
            let got: Vec<f64> = (0..got.numel()).map(|i| got.get_f64(i).unwrap()).collect();
            assert_eq!(got, want, "{dtype} {exec_mode:?}");
        }
    }
}

/// `R.nn.pad` of an integer tensor with a float `pad_value` pads with the value converted to
/// the tensor's dtype (`tir.const(2.5, "int16")` is 2, as in TVM); it once built a float
/// constant of type int16, which Cranelift could not lower (a panic inside the compile).
#[test]
fn integer_pads_convert_a_float_pad_value() {
    let src = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="int16")) -> R.Tensor((3, 5), dtype="int16"):
        with R.dataflow():
            gv: R.Tensor((3, 5), dtype="int16") = R.nn.pad(x, pad_width=[1, 0, 0, 2], pad_value=2.5, pad_mode="constant")
            R.output(gv)
        return gv
"#;
    let x = Tensor::from_slice(&[2, 3], &[1i16, -2, 3, 4, 5, -6]).unwrap();
    for exec_mode in [relaxjit::ExecMode::Bytecode, relaxjit::ExecMode::Compiled] {
        let out = Engine::new(Config {
            exec_mode,
            ..Config::default()
        })
        .unwrap()
        .compile_str(src)
        .unwrap_or_else(|e| panic!("{exec_mode:?}: {e}"))
        .run("main", &[x.clone().into()])
        .unwrap();
        assert_eq!(
            out.as_tensor().unwrap().to_vec::<i16>().unwrap(),
            [2, 2, 2, 2, 2, 1, -2, 3, 2, 2, 4, 5, -6, 2, 2],
            "{exec_mode:?}"
        );
    }
}

/// A kernel reading scratch that no loop wrote (TVM's argmin with its reduction loop's extent
/// made -2^63, from mutating the corpus) reads zeros, as the interpreter's zeroed allocations
/// do: the kernel's stack scratch once held whatever an earlier kernel left on the stack, and
/// pointers came out in the result.
#[test]
fn unwritten_stack_scratch_reads_zero() {
    let src = include_str!("input_safety/unwritten_scratch.py");
    let x = Tensor::from_slice(&[3, 5], &[0.5f32; 15]).unwrap();
    for exec_mode in [relaxjit::ExecMode::Bytecode, relaxjit::ExecMode::Compiled] {
        let out = Engine::new(Config {
            exec_mode,
            ..Config::default()
        })
        .unwrap()
        .compile_str(src)
        .unwrap_or_else(|e| panic!("{exec_mode:?}: {e}"))
        .run("main", &[x.clone().into()])
        .unwrap();
        let Value::Tuple(fields) = out else {
            panic!("{exec_mode:?}: not a tuple: {out:?}");
        };
        let argmin = fields[1].as_tensor().unwrap().to_vec::<i64>().unwrap();
        assert_eq!(argmin, [0; 5], "{exec_mode:?}");
    }
}
