//! Regression tests for the kernels' runtime helpers through the public `Engine`: parallel loops
//! of any extent end with the serial run's error instead of running nothing or hanging, and the
//! sort family orders NaN, ±0 and ±inf by one total order without aborting the process.

use relaxjit::{Config, Engine, Error, ExecMode, Tensor, Value};
use vm::ErrorKind;

/// A module whose `main` runs `copy` (`B[i] = A[i]` over `extent` iterations on buffers of 4)
/// through `R.call_tir`.
fn copy_module(extent: &str) -> String {
    format!(
        r#"# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def copy(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range({extent}):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y
"#
    )
}

fn x4() -> Vec<Value> {
    vec![
        Tensor::from_slice(&[4], &[1.0f32, 2.0, 3.0, 4.0])
            .unwrap()
            .into(),
    ]
}

/// Issue 8, "parallel-for chunking overflow": the chunk count went negative (nothing ran, zeros
/// came back) or, for `2^63 - 1`, ~2^63 tasks were queued and the run hung.
#[test]
fn parallel_loops_of_huge_extent_fail_with_the_first_out_of_bounds_index() {
    for extent in [
        "T.int64(9223372036854775800)",
        "T.int64(9223372036854775807)",
    ] {
        let compiled = Engine::default().compile_str(&copy_module(extent)).unwrap();
        let parallel: usize = compiled
            .kernels()
            .kernels()
            .iter()
            .map(|k| k.meta().parallel_loops)
            .sum();
        assert_eq!(
            parallel, 1,
            "{extent}: the loop runs through the parallel-for helper"
        );
        match compiled.run("main", &x4()) {
            Err(Error::Runtime(e)) => {
                assert_eq!(e.kind(), ErrorKind::Index, "{extent}: {e}");
                assert!(
                    e.message().contains("index 4 is out of bounds"),
                    "{extent}: {e}"
                );
            }
            other => panic!("{extent}: expected an IndexError, got {other:?}"),
        }
    }
    let compiled = Engine::default()
        .compile_str(&copy_module("T.int64(4)"))
        .unwrap();
    let out = compiled.run("main", &x4()).unwrap();
    assert_eq!(
        out.as_tensor().unwrap().to_vec::<f32>().unwrap(),
        [1.0, 2.0, 3.0, 4.0]
    );
}

const SORTS: &str = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((9,), dtype="float32")):
        a = R.argsort(x, axis=0, descending=False, dtype="int32")
        b = R.argsort(x, axis=0, descending=True, dtype="int32")
        c = R.sort(x, axis=0, descending=False)
        d = R.sort(x, axis=0, descending=True)
        e = R.topk(x, k=3, axis=0, ret_type="both", largest=True, dtype="int32")
        f = R.topk(x, k=3, axis=0, ret_type="both", largest=False, dtype="int32")
        return (a, b, c, d, e, f)
"#;

/// Issue 8, "NaN in sort": the comparator was no total order, `sort_by` panicked inside
/// `extern "C" rt_sort` and the process aborted. NaN now sorts after `+inf` (numpy's place for
/// ascending sorts), ties (`-0.0`/`0.0`, `1.0`/`1.0`, the two NaNs) keep index order.
#[test]
fn sorting_nan_follows_one_total_order() {
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let x = [1.0f32, nan, -0.0, 0.0, inf, -inf, nan, 1.0, -1.0];
    let compiled = Engine::default().compile_str(SORTS).unwrap();
    let arg: Vec<Value> = vec![Tensor::from_slice(&[9], &x).unwrap().into()];
    let out = compiled.run("main", &arg).unwrap();
    let Value::Tuple(items) = &out else {
        panic!("expected a tuple, got {out:?}");
    };
    let ints = |v: &Value| v.as_tensor().unwrap().to_vec::<i32>().unwrap();
    // Compared as bits, so that NaN == NaN and -0.0 != 0.0.
    let bits = |v: &Value| -> Vec<u32> {
        let t = v.as_tensor().unwrap().to_vec::<f32>().unwrap();
        t.iter().map(|f| f.to_bits()).collect()
    };
    let of = |idx: &[i32]| -> Vec<u32> { idx.iter().map(|&i| x[i as usize].to_bits()).collect() };
    let pair = |v: &Value| match v {
        Value::Tuple(p) => (bits(&p[0]), ints(&p[1])),
        other => panic!("expected a (values, indices) pair, got {other:?}"),
    };
    let ascending = [5, 8, 2, 3, 0, 7, 4, 1, 6];
    let descending = [1, 6, 4, 0, 7, 2, 3, 8, 5];
    assert_eq!(ints(&items[0]), ascending);
    assert_eq!(ints(&items[1]), descending);
    assert_eq!(bits(&items[2]), of(&ascending));
    assert_eq!(bits(&items[3]), of(&descending));
    assert_eq!(pair(&items[4]), (of(&[1, 6, 4]), vec![1, 6, 4]));
    assert_eq!(pair(&items[5]), (of(&[5, 8, 2]), vec![5, 8, 2]));
}

/// The sort family over symbolic dimensions, for inputs of any shape.
const SORTS_3D: &str = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("a", "b", "c"), dtype="int8")):
        s = R.sort(x, axis=0, descending=False)
        i = R.argsort(x, axis=0, descending=True, dtype="int32")
        t = R.topk(x, k=2, axis=0, ret_type="both", largest=True, dtype="int32")
        return (s, i, t)
"#;

/// An empty tensor sorts to an empty tensor however long its sort axis (`[2^31, 2^29, 0]`
/// along axis 0): the helper allocated a row of the axis' length first and failed with
/// "cannot allocate a row of 2147483648 elements".
#[test]
fn an_empty_tensor_sorts_without_allocating_a_row() {
    let big = 1i64 << 31;
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = Engine::new(Config {
            exec_mode,
            ..Config::default()
        })
        .unwrap();
        let compiled = engine.compile_str(SORTS_3D).unwrap();
        // (`[2^31, 2^31, 0]` itself is too large for argsort's int32 output by numpy's rule:
        // 2^62 elements of 4 bytes; `tir::sort`'s tests plan that shape.)
        for shape in [[big, big / 4, 0], [big, 0, 3]] {
            let x = Tensor::zeros(&shape, vm::DataType::I8).unwrap();
            let out = compiled
                .run("main", &[x.into()])
                .unwrap_or_else(|e| panic!("{exec_mode:?} {shape:?}: {e}"));
            let Value::Tuple(items) = &out else {
                panic!("expected a tuple, got {out:?}");
            };
            let shape_of = |v: &Value| v.as_tensor().unwrap().shape().to_vec();
            assert_eq!(shape_of(&items[0]), shape, "{exec_mode:?}: sort");
            assert_eq!(shape_of(&items[1]), shape, "{exec_mode:?}: argsort");
            let Value::Tuple(pair) = &items[2] else {
                panic!("expected topk's pair, got {:?}", items[2]);
            };
            let topk = [2, shape[1], shape[2]];
            assert_eq!(shape_of(&pair[0]), topk, "{exec_mode:?}: topk values");
            assert_eq!(shape_of(&pair[1]), topk, "{exec_mode:?}: topk indices");
        }
    }
}
