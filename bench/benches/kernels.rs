//! Single-kernel benchmarks: TVMScript PrimFuncs compiled by the Cranelift kernel JIT and called
//! through `Kernel::call`, as TVM's bytecode would call them.
//!
//! * `add`: elementwise add of 4096×4096 f32 (16M elements); bytes = 3 × 4 × 16M.
//! * `fused`: `y = exp(x * 1.5 + 0.25) * sigmoid(x)` over 4096×4096 f32, one fused PrimFunc;
//!   bytes = 2 × 4 × 16M.
//! * `softmax`: TVM's legalized row softmax (maxelem, exp, expsum, norm stages) of 4096×1024
//!   f32; bytes = 2 × 4 × 4M (input read, output written — the intermediates are extra).
//! * `matmul`: TVM's legalized naive matmul 512×512×512 f32; elements = 2 × 512³ flops, so
//!   criterion's `Gelem/s` reads as GFLOP/s.
//!
//! Each kernel is measured as compiled by default (vector code, parallel loops, loop
//! transforms, FMA contraction), without FMA contraction (`jit_exact`: bit-for-bit the scalar
//! results), without the loop transforms either (`jit_before`: reduction interchange and
//! unroll-and-jam, accumulators in registers, row jamming all off), and with the reference
//! options (scalar, serial), so the gain of each shows in one run.
//! `RELAXJIT_BENCH_FAST_ONLY=1` measures the default only.
//! `bench/numpy_baseline.py` times the same four with numpy; `bench/README.md` has both.
//!
//! `cargo bench -p relaxjit-bench --bench kernels`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jit::kernel::{CompileOptions, Kernel, KernelLibrary};
use vm::{DataType, Tensor, Value};

const MODULE: &str = r#"
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(a: T.Buffer((T.int64(4096), T.int64(4096)), "float32"), b: T.Buffer((T.int64(4096), T.int64(4096)), "float32"), T_add: T.Buffer((T.int64(4096), T.int64(4096)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        for ax0, ax1 in T.grid(T.int64(4096), T.int64(4096)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a[v_ax0, v_ax1], b[v_ax0, v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = a[v_ax0, v_ax1] + b[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def fused_multiply_add_exp_sigmoid_multiply(x: T.Buffer((T.int64(4096), T.int64(4096)), "float32"), T_multiply: T.Buffer((T.int64(4096), T.int64(4096)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        for ax0, ax1 in T.grid(T.int64(4096), T.int64(4096)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = T.exp(x[v_ax0, v_ax1] * T.float32(1.5) + T.float32(0.25)) * T.sigmoid(x[v_ax0, v_ax1])

    @T.prim_func(private=True, s_tir=True)
    def softmax(x: T.Buffer((T.int64(4096), T.int64(1024)), "float32"), T_softmax_norm: T.Buffer((T.int64(4096), T.int64(1024)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        T_softmax_maxelem = T.sblock_alloc_buffer((T.int64(4096),))
        T_softmax_exp = T.sblock_alloc_buffer((T.int64(4096), T.int64(1024)))
        T_softmax_expsum = T.sblock_alloc_buffer((T.int64(4096),))
        for i0, k in T.grid(T.int64(4096), T.int64(1024)):
            with T.sblock("T_softmax_maxelem"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(x[v_i0, v_k])
                T.writes(T_softmax_maxelem[v_i0])
                with T.init():
                    T_softmax_maxelem[v_i0] = T.float32(-340282346638528859811704183484516925440.0)
                T_softmax_maxelem[v_i0] = T.max(T_softmax_maxelem[v_i0], x[v_i0, v_k])
        for i0, i1 in T.grid(T.int64(4096), T.int64(1024)):
            with T.sblock("T_softmax_exp"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(x[v_i0, v_i1], T_softmax_maxelem[v_i0])
                T.writes(T_softmax_exp[v_i0, v_i1])
                T_softmax_exp[v_i0, v_i1] = T.exp(x[v_i0, v_i1] - T_softmax_maxelem[v_i0])
        for i0, k in T.grid(T.int64(4096), T.int64(1024)):
            with T.sblock("T_softmax_expsum"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(T_softmax_exp[v_i0, v_k])
                T.writes(T_softmax_expsum[v_i0])
                with T.init():
                    T_softmax_expsum[v_i0] = T.float32(0.0)
                T_softmax_expsum[v_i0] = T_softmax_expsum[v_i0] + T_softmax_exp[v_i0, v_k]
        for i0, i1 in T.grid(T.int64(4096), T.int64(1024)):
            with T.sblock("T_softmax_norm"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_softmax_exp[v_i0, v_i1], T_softmax_expsum[v_i0])
                T.writes(T_softmax_norm[v_i0, v_i1])
                T.sblock_attr({"axis": 1})
                T_softmax_norm[v_i0, v_i1] = T_softmax_exp[v_i0, v_i1] / T_softmax_expsum[v_i0]

    @T.prim_func(private=True, s_tir=True)
    def matmul(a: T.Buffer((T.int64(512), T.int64(512)), "float32"), b: T.Buffer((T.int64(512), T.int64(512)), "float32"), matmul: T.Buffer((T.int64(512), T.int64(512)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        for i0, i1, k in T.grid(T.int64(512), T.int64(512), T.int64(512)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a[v_i0, v_k], b[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a[v_i0, v_k] * b[v_k, v_i1]
"#;

/// Deterministic data in [-2, 2).
fn data(len: usize) -> Vec<f32> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        })
        .collect()
}

fn input(shape: &[i64]) -> Value {
    let n = shape.iter().product::<i64>() as usize;
    Value::Tensor(Tensor::from_slice(shape, &data(n)).expect("tensor"))
}

fn output(shape: &[i64]) -> Value {
    Value::Tensor(Tensor::zeros(shape, DataType::F32).expect("tensor"))
}

/// One benchmark: the kernel, its arguments and what one call moves or computes.
struct Case {
    name: &'static str,
    symbol: &'static str,
    args: Vec<Value>,
    throughput: Throughput,
}

fn cases() -> Vec<Case> {
    const ELEMS: u64 = 4096 * 4096;
    vec![
        Case {
            name: "add_16M_f32",
            symbol: "add",
            args: vec![
                input(&[4096, 4096]),
                input(&[4096, 4096]),
                output(&[4096, 4096]),
            ],
            throughput: Throughput::Bytes(3 * 4 * ELEMS),
        },
        Case {
            name: "fused_exp_sigmoid_16M_f32",
            symbol: "fused_multiply_add_exp_sigmoid_multiply",
            args: vec![input(&[4096, 4096]), output(&[4096, 4096])],
            throughput: Throughput::Bytes(2 * 4 * ELEMS),
        },
        Case {
            name: "softmax_4096x1024_f32",
            symbol: "softmax",
            args: vec![input(&[4096, 1024]), output(&[4096, 1024])],
            throughput: Throughput::Bytes(2 * 4 * 4096 * 1024),
        },
        Case {
            name: "matmul_512_f32",
            symbol: "matmul",
            args: vec![input(&[512, 512]), input(&[512, 512]), output(&[512, 512])],
            throughput: Throughput::Elements(2 * 512 * 512 * 512),
        },
    ]
}

fn library(options: CompileOptions) -> KernelLibrary {
    let funcs = match tir::parse_module_prim_funcs(MODULE) {
        Ok(f) => f,
        Err(e) => panic!("{}", e.render(MODULE)),
    };
    KernelLibrary::compile_with(&funcs, options).expect("the benchmark kernels compile")
}

fn kernel<'a>(lib: &'a KernelLibrary, symbol: &str) -> &'a Kernel {
    lib.get(symbol).expect("kernel exists")
}

fn kernels(c: &mut Criterion) {
    let configs = [
        ("jit", CompileOptions::default()),
        (
            "jit_exact",
            CompileOptions {
                contract_fma: false,
                ..CompileOptions::default()
            },
        ),
        (
            "jit_before",
            CompileOptions {
                loop_transforms: false,
                contract_fma: false,
                ..CompileOptions::default()
            },
        ),
        ("jit_scalar_serial", CompileOptions::reference()),
    ];
    let libs: Vec<_> = configs.iter().map(|(n, o)| (*n, library(*o))).collect();
    let only_fast = std::env::var_os("RELAXJIT_BENCH_FAST_ONLY").is_some();
    for case in cases() {
        let mut group = c.benchmark_group(format!("kernels/{}", case.name));
        group.throughput(case.throughput.clone());
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(4));
        for (config, lib) in &libs {
            if only_fast && *config != "jit" {
                continue;
            }
            let k = kernel(lib, case.symbol);
            k.call(&case.args).expect("the kernel runs");
            group.bench_function(*config, |b| {
                b.iter(|| k.call(black_box(&case.args)).expect("the kernel runs"))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
