//! Per-call overhead and compile-time costs that are counted, never timed: weights imported
//! the way TVM's ONNX frontend prints them reach the executable's constant pool without a copy;
//! in steady state a call takes no new storage from the system for its intermediates; calls on
//! an engine-owned thread pool give the results of the global pool.

use relaxjit::vm::{Tensor, Value};
use relaxjit::{Config, Engine};

/// Deterministic f32 values in [-0.5, 0.5] (the test harness's seeded generator).
fn tensor(shape: &[i64], seed: u64) -> Tensor {
    let n: i64 = shape.iter().product();
    let mut rng = support::values::Rng::new(seed);
    let v: Vec<f32> = (0..n)
        .map(|_| rng.next_signed_unit() as f32 * 0.5)
        .collect();
    Tensor::from_slice(shape, &v).unwrap()
}

/// A conv + dense model as TVM's ONNX importer prints one: the conv weight behind
/// `R.broadcast_to` to its own shape, the conv bias behind `R.reshape`, the dense weight
/// behind `R.broadcast_to` and `R.permute_dims`. With `weights_as_params`, the same model takes
/// the four weights as parameters instead (the reference).
fn model(weights_as_params: bool) -> String {
    let (w, b, fw, fb) = if weights_as_params {
        ("w", "b", "fw", "fb")
    } else {
        (
            r#"metadata["ir.GenericConst"][0]"#,
            r#"metadata["ir.GenericConst"][1]"#,
            r#"metadata["ir.GenericConst"][2]"#,
            r#"metadata["ir.GenericConst"][3]"#,
        )
    };
    let params = if weights_as_params {
        r#", w: R.Tensor((8, 3, 3, 3), dtype="float32"), b: R.Tensor((8,), dtype="float32"), fw: R.Tensor((10, 288), dtype="float32"), fb: R.Tensor((10,), dtype="float32")"#
    } else {
        ""
    };
    format!(
        r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), dtype="float32"){params}) -> R.Tensor((1, 10), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((8, 3, 3, 3), dtype="float32") = R.broadcast_to({w}, R.shape([8, 3, 3, 3]))
            lv1: R.Tensor((1, 8, 6, 6), dtype="float32") = R.nn.conv2d(x, lv, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv2: R.Tensor((1, 8, 1, 1), dtype="float32") = R.reshape({b}, R.shape([1, 8, 1, 1]))
            lv3: R.Tensor((1, 8, 6, 6), dtype="float32") = R.add(lv1, lv2)
            lv4: R.Tensor((1, 8, 6, 6), dtype="float32") = R.nn.relu(lv3)
            lv5: R.Tensor((1, 288), dtype="float32") = R.reshape(lv4, R.shape([1, 288]))
            lv6: R.Tensor((10, 288), dtype="float32") = R.broadcast_to({fw}, R.shape([10, 288]))
            lv7: R.Tensor((288, 10), dtype="float32") = R.permute_dims(lv6, axes=[1, 0])
            lv8: R.Tensor((1, 10), dtype="float32") = R.matmul(lv5, lv7, out_dtype=None)
            lv9: R.Tensor((1, 10), dtype="float32") = R.add(lv8, {fb})
            R.output(lv9)
        return lv9
"#
    )
}

fn weights() -> Vec<Tensor> {
    vec![
        tensor(&[8, 3, 3, 3], 1),
        tensor(&[8], 2),
        tensor(&[10, 288], 3),
        tensor(&[10], 4),
    ]
}

#[test]
fn imported_weights_reach_the_constant_pool_without_a_copy() {
    let x = [Value::Tensor(tensor(&[1, 3, 8, 8], 9))];
    let w = weights();
    let reference = {
        let compiled = Engine::default().compile_str(&model(true)).unwrap();
        let mut args = x.to_vec();
        args.extend(w.iter().cloned().map(Value::Tensor));
        compiled.run("main", &args).unwrap()
    };
    for config in [
        Config::default(),
        Config {
            fusion: false,
            ..Config::default()
        },
        Config {
            library: false,
            ..Config::default()
        },
    ] {
        let what = format!("fusion {}, library {}", config.fusion, config.library);
        let compiled = Engine::new(config)
            .unwrap()
            .compile_str_with_metadata(&model(false), w.clone())
            .unwrap();
        let pool: Vec<&Tensor> = compiled
            .executable()
            .constants
            .iter()
            .filter_map(|c| c.as_tensor().ok())
            .collect();
        // The conv weight and both biases are used as they are, or through a view: their
        // storage is in the pool. (The dense weight may be transposed by a kernel that reads it
        // in place, or folded into a transposed copy when the library path is off.)
        for (i, t) in w.iter().enumerate().filter(|&(i, _)| i != 2) {
            assert!(
                pool.iter().any(|c| c.storage().ptr_eq(t.storage())),
                "{what}: weight {i} {:?} was copied on its way to the constant pool",
                t.shape()
            );
        }
        // Nothing in the pool is a copy of a weight: every pool tensor of a weight's shape and
        // bytes shares the weight's storage.
        for c in &pool {
            for t in &w {
                if c.content_eq(t) {
                    assert!(
                        c.storage().ptr_eq(t.storage()),
                        "{what}: the pool holds a copy of a weight of shape {:?}",
                        t.shape()
                    );
                }
            }
        }
        let out = compiled.run("main", &x).unwrap();
        let (got, want) = (
            out.as_tensor().unwrap().to_vec::<f32>().unwrap(),
            reference.as_tensor().unwrap().to_vec::<f32>().unwrap(),
        );
        for (g, r) in got.iter().zip(&want) {
            assert!(
                (g - r).abs() <= 1e-4 * r.abs().max(1.0),
                "{what}: {got:?} vs {want:?}"
            );
        }
    }
}

#[test]
fn steady_state_calls_take_no_new_storage() {
    let x = [Value::Tensor(tensor(&[1, 3, 8, 8], 9))];
    for fusion in [true, false] {
        let compiled = Engine::new(Config {
            fusion,
            ..Config::default()
        })
        .unwrap()
        .compile_str_with_metadata(&model(false), weights())
        .unwrap();
        let vm = compiled.vm().unwrap();
        let (allocator, _) = vm.core().host_allocator();
        let first = compiled.invoke(&vm, "main", &x).unwrap();
        let want = first.as_tensor().unwrap().to_vec::<f32>().unwrap();
        drop(first);
        let warm = allocator.system_allocations();
        assert!(
            warm > 0,
            "fusion {fusion}: the first call allocates its storage"
        );
        for call in 2..6 {
            let out = compiled.invoke(&vm, "main", &x).unwrap();
            assert_eq!(out.as_tensor().unwrap().to_vec::<f32>().unwrap(), want);
            assert_eq!(
                allocator.system_allocations(),
                warm,
                "fusion {fusion}: call {call} took new storage from the system"
            );
        }
    }
}

/// An engine-owned pool runs the kernels' parallel loops (the VM stays on the caller's
/// thread): results equal those on the global pool, for TIR kernels with parallel loops and
/// for library kernels, whatever the pool's size, and calls from several threads at once.
#[test]
fn an_engine_pool_computes_what_the_global_pool_does() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((192, 160), dtype="float32"), b: R.Tensor((160, 128), dtype="float32")) -> R.Tensor((192, 128), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((192, 128), dtype="float32") = R.matmul(a, b, out_dtype=None)
            d: R.Tensor((192, 128), dtype="float32") = R.nn.relu(c)
            e: R.Tensor((192, 128), dtype="float32") = R.exp(d)
            R.output(e)
        return e
"#;
    let args = [
        Value::Tensor(tensor(&[192, 160], 5)),
        Value::Tensor(tensor(&[160, 128], 6)),
    ];
    for library in [true, false] {
        let run = |threads: Option<usize>| {
            let compiled = Engine::new(Config {
                threads,
                library,
                ..Config::default()
            })
            .unwrap()
            .compile_str(src)
            .unwrap();
            let vm = compiled.vm().unwrap();
            let first = compiled.invoke(&vm, "main", &args).unwrap();
            let again = compiled.invoke(&vm, "main", &args).unwrap();
            let v = first.as_tensor().unwrap().to_vec::<f32>().unwrap();
            assert_eq!(v, again.as_tensor().unwrap().to_vec::<f32>().unwrap());
            let concurrent: Vec<Vec<f32>> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..3)
                    .map(|_| {
                        s.spawn(|| {
                            let out = compiled.run("main", &args).unwrap();
                            out.as_tensor().unwrap().to_vec::<f32>().unwrap()
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            for c in concurrent {
                assert_eq!(
                    c, v,
                    "library {library}, threads {threads:?}: concurrent calls"
                );
            }
            v
        };
        let global = run(None);
        for threads in [1, 2, 3] {
            let got = run(Some(threads));
            for (g, r) in got.iter().zip(&global) {
                assert!(
                    (g - r).abs() <= 1e-5 * r.abs().max(1.0),
                    "library {library}, threads {threads}: {g} vs {r}"
                );
            }
        }
    }
}

/// A real broadcast of a constant (the ONNX light zoo's one-element weights, and a general
/// right-aligned broadcast) is folded natively; the result equals numpy's broadcast.
#[test]
fn broadcasts_of_constants_fold_to_numpy_broadcasts() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 2, 5, 3), dtype="float32")) -> R.Tensor((4, 2, 5, 3), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((4, 2, 5, 3), dtype="float32") = R.broadcast_to(metadata["ir.GenericConst"][0], R.shape([4, 2, 5, 3]))
            b: R.Tensor((4, 2, 5, 3), dtype="float32") = R.broadcast_to(metadata["ir.GenericConst"][1], R.shape([4, 2, 5, 3]))
            c: R.Tensor((4, 2, 5, 3), dtype="float32") = R.add(a, b)
            d: R.Tensor((4, 2, 5, 3), dtype="float32") = R.add(x, c)
            R.output(d)
        return d
"#;
    let one = Tensor::from_slice(&[1], &[0.25f32]).unwrap();
    let general = tensor(&[2, 1, 3], 11);
    let g = general.to_vec::<f32>().unwrap();
    let x = tensor(&[4, 2, 5, 3], 12);
    let xv = x.to_vec::<f32>().unwrap();
    let mut want = Vec::new();
    for i in 0..4 {
        for j in 0..2 {
            for k in 0..5 {
                for l in 0..3 {
                    let xi = ((i * 2 + j) * 5 + k) * 3 + l;
                    want.push(xv[xi] + (0.25 + g[j * 3 + l]));
                }
            }
        }
    }
    for fusion in [true, false] {
        let compiled = Engine::new(Config {
            fusion,
            ..Config::default()
        })
        .unwrap()
        .compile_str_with_metadata(src, vec![one.clone(), general.clone()])
        .unwrap();
        let out = compiled.run("main", &[Value::Tensor(x.clone())]).unwrap();
        assert_eq!(out.as_tensor().unwrap().to_vec::<f32>().unwrap(), want);
    }
}
