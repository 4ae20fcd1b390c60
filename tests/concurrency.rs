//! One compiled module shared by 8 threads × 10,000 calls gives, bit for bit, the results of
//! serial calls: kernels, the VM's linked library and the engine's pool keep no state that
//! one call could leak into another.

use std::sync::Arc;

use relaxjit::{Config, Engine, Tensor, Value};

/// A two-layer MLP with a softmax: five TIR kernels without fusion and the library path (two
/// matmuls, bias add, relu, softmax), small enough that a call takes microseconds.
const MLP: &str = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w1: R.Tensor((8, 16), dtype="float32"), b1: R.Tensor((16,), dtype="float32"), w2: R.Tensor((16, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        with R.dataflow():
            h: R.Tensor((4, 16), dtype="float32") = R.matmul(x, w1, out_dtype=None)
            hb: R.Tensor((4, 16), dtype="float32") = R.add(h, b1)
            a: R.Tensor((4, 16), dtype="float32") = R.nn.relu(hb)
            o: R.Tensor((4, 4), dtype="float32") = R.matmul(a, w2, out_dtype=None)
            p: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(o, axis=-1)
            R.output(p)
        return p
"#;

const THREADS: usize = 8;
const CALLS: usize = 10_000;
/// Distinct input sets; threads cycle through them in different orders.
const SETS: usize = 5;

fn tensor(shape: &[i64], seed: usize) -> Value {
    let n: i64 = shape.iter().product();
    let data: Vec<f32> = (0..n as usize)
        .map(|i| ((i * 7 + seed * 13) % 17) as f32 / 8.0 - 1.0)
        .collect();
    Tensor::from_slice(shape, &data).unwrap().into()
}

fn inputs(set: usize) -> Vec<Value> {
    vec![
        tensor(&[4, 8], set),
        tensor(&[8, 16], set + 1),
        tensor(&[16], set + 2),
        tensor(&[16, 4], set + 3),
    ]
}

fn bits(v: &Value) -> Vec<u32> {
    let t = v.as_tensor().unwrap();
    t.to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

/// The TIR kernels (the library path off) and the native library kernels (matmul with its
/// bias/relu epilogue, on by default).
#[test]
fn eight_threads_share_one_compiled_module_and_get_the_serial_results() {
    for library in [false, true] {
        shared_module_gives_serial_results(library);
    }
}

fn shared_module_gives_serial_results(library: bool) {
    let engine = Engine::new(Config {
        fusion: false,
        library,
        ..Config::default()
    })
    .unwrap();
    let compiled = Arc::new(engine.compile_str(MLP).unwrap());
    assert!(
        library || compiled.kernels().kernels().len() >= 4,
        "the module should have several kernels, has {:?}",
        compiled
    );
    let serial: Vec<Vec<u32>> = (0..SETS)
        .map(|s| bits(&compiled.run("main", &inputs(s)).unwrap()))
        .collect();
    // Different input sets give different results, so a call that saw another's data shows.
    assert!(serial.windows(2).all(|w| w[0] != w[1]));
    let serial = Arc::new(serial);
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let compiled = compiled.clone();
            let serial = serial.clone();
            std::thread::spawn(move || {
                let vm = compiled.vm().unwrap();
                let sets: Vec<Vec<Value>> = (0..SETS).map(inputs).collect();
                let mut wrong = 0usize;
                for call in 0..CALLS {
                    let s = (call * (t + 1) + t) % SETS;
                    let out = compiled.invoke(&vm, "main", &sets[s]).unwrap();
                    wrong += usize::from(bits(&out) != serial[s]);
                }
                wrong
            })
        })
        .collect();
    for (t, h) in threads.into_iter().enumerate() {
        assert_eq!(h.join().unwrap(), 0, "thread {t} got results that differ");
    }
}
