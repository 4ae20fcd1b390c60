//! Times the library kernels alone (no VM), on the layer shapes of the conv block, SqueezeNet
//! and ResNet-50: the minimum and median of N calls and GFLOP/s, on the global rayon pool (set
//! `RAYON_NUM_THREADS=1` for one thread). The minimum is the figure to compare on a shared
//! machine.
//!
//! `cargo run --release -p relaxjit-bench --example library -- [--calls N] [--no-pack] [FILTER]`
//! (`--no-pack`: OIHW weights everywhere, the kernel vectorized along the output positions;
//! `--pack-all`: packed weights everywhere, the kernel vectorized along the output channels;
//! `--residual`: a full-shape addend after the bias, as a ResNet block's last conv has;
//! `--no-winograd`: no Winograd-transformed weights where `uses_winograd` would choose them;
//! `--winograd-all`: Winograd on every 3×3 stride-1 conv, whatever `uses_winograd` says;
//! `--check`: after the timing, the largest error of the output against the same conv run in
//! float64 (the direct path), relative to the output's largest magnitude, and the same for the
//! direct float32 path (packed weights), to weigh Winograd's rounding against it;
//! `--chain N`: instead of timing, `N` layers of a square conv (as many output as input
//! channels) with bias and ReLU run one after the other, each with its own random weights
//! (He-uniform), as Winograd, direct float32 and float64, and the largest error of the last
//! output of each float32 run against float64, relative to its largest magnitude;
//! `--cold`: 64 MiB written between calls, so that every call starts with its weights and
//! input out of cache, as inside a model whose weights do not fit the caches);
//! `--evict-mib N`: N MiB written between calls instead (8: each core's L2 emptied, L3 mostly
//! kept — a layer inside a model whose weights fit L3, as SqueezeNet's do).

use relaxjit::relax::transform::dispatch_library;
use relaxjit::{Tensor, Value};
use relaxjit_bench::workloads::random_f32;

/// A conv layer of the conv block, SqueezeNet 1.0 or ResNet-50 (every distinct one of the
/// ONNX models in `../shared/models/`): input NCHW, output channels, kernel, stride, padding, groups.
struct Conv {
    name: &'static str,
    x: [i64; 4],
    o: i64,
    k: i64,
    stride: i64,
    pad: i64,
}

const CONVS: &[Conv] = &[
    Conv {
        name: "block3x3",
        x: [1, 64, 56, 56],
        o: 64,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Conv {
        name: "sq_conv1",
        x: [1, 3, 224, 224],
        o: 64,
        k: 3,
        stride: 2,
        pad: 0,
    },
    Conv {
        name: "sq_squeeze",
        x: [1, 128, 55, 55],
        o: 16,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "sq_sq64_55",
        x: [1, 64, 55, 55],
        o: 16,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "sq_expand1",
        x: [1, 16, 55, 55],
        o: 64,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "sq_expand3",
        x: [1, 16, 55, 55],
        o: 64,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Conv {
        name: "sq_sq128_27",
        x: [1, 128, 27, 27],
        o: 32,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "sq_sq256_27",
        x: [1, 256, 27, 27],
        o: 32,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "sq_ex1_27",
        x: [1, 32, 27, 27],
        o: 128,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "sq_ex3_27",
        x: [1, 32, 27, 27],
        o: 128,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Conv {
        name: "sq_sq256_13",
        x: [1, 256, 13, 13],
        o: 48,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "sq_sq384_13",
        x: [1, 384, 13, 13],
        o: 48,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "sq_sq384_13b",
        x: [1, 384, 13, 13],
        o: 64,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "sq_sq512_13",
        x: [1, 512, 13, 13],
        o: 64,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "sq_ex1_13",
        x: [1, 48, 13, 13],
        o: 192,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "sq_ex3_13",
        x: [1, 48, 13, 13],
        o: 192,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Conv {
        name: "sq_ex1_13b",
        x: [1, 64, 13, 13],
        o: 256,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "sq_expand3b",
        x: [1, 64, 13, 13],
        o: 256,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Conv {
        name: "sq_conv10",
        x: [1, 512, 13, 13],
        o: 1000,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_conv1",
        x: [1, 3, 224, 224],
        o: 64,
        k: 7,
        stride: 2,
        pad: 3,
    },
    Conv {
        name: "rn_1x1_64_64",
        x: [1, 64, 56, 56],
        o: 64,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_3x3_64",
        x: [1, 64, 56, 56],
        o: 64,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Conv {
        name: "rn_1x1_64",
        x: [1, 64, 56, 56],
        o: 256,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_1x1_256",
        x: [1, 256, 56, 56],
        o: 64,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_1x1_256_128",
        x: [1, 256, 56, 56],
        o: 128,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_3x3_128_s2",
        x: [1, 128, 56, 56],
        o: 128,
        k: 3,
        stride: 2,
        pad: 1,
    },
    Conv {
        name: "rn_1x1_128_512",
        x: [1, 128, 28, 28],
        o: 512,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_1x1_s2_512",
        x: [1, 256, 56, 56],
        o: 512,
        k: 1,
        stride: 2,
        pad: 0,
    },
    Conv {
        name: "rn_1x1_512_128",
        x: [1, 512, 28, 28],
        o: 128,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_3x3_128",
        x: [1, 128, 28, 28],
        o: 128,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Conv {
        name: "rn_1x1_512_256",
        x: [1, 512, 28, 28],
        o: 256,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_3x3_256_s2",
        x: [1, 256, 28, 28],
        o: 256,
        k: 3,
        stride: 2,
        pad: 1,
    },
    Conv {
        name: "rn_1x1_256_1024",
        x: [1, 256, 14, 14],
        o: 1024,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_1x1_s2_1024",
        x: [1, 512, 28, 28],
        o: 1024,
        k: 1,
        stride: 2,
        pad: 0,
    },
    Conv {
        name: "rn_1x1_1024_256",
        x: [1, 1024, 14, 14],
        o: 256,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_3x3_256",
        x: [1, 256, 14, 14],
        o: 256,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Conv {
        name: "rn_1x1_1024_512",
        x: [1, 1024, 14, 14],
        o: 512,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_3x3_512_s2",
        x: [1, 512, 14, 14],
        o: 512,
        k: 3,
        stride: 2,
        pad: 1,
    },
    Conv {
        name: "rn_1x1_512_2048",
        x: [1, 512, 7, 7],
        o: 2048,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_1x1_s2",
        x: [1, 1024, 14, 14],
        o: 2048,
        k: 1,
        stride: 2,
        pad: 0,
    },
    Conv {
        name: "rn_1x1_2048_512",
        x: [1, 2048, 7, 7],
        o: 512,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "rn_3x3_512",
        x: [1, 512, 7, 7],
        o: 512,
        k: 3,
        stride: 1,
        pad: 1,
    },
];

/// The largest error of `a`'s output (its last argument, as `f` wrote it) against `f` run on
/// the same values in float64 with OIHW weights (`dims`), and of the direct float32 path
/// (packed weights) against the same, each relative to the largest output magnitude.
fn errors(f: &vm::PackedFunc, a: &[Value], dims: &[usize; 4]) -> anyhow::Result<(f64, f64)> {
    let widen = |t: &Tensor| -> anyhow::Result<Tensor> {
        let v: Vec<f64> = t.to_vec::<f32>()?.into_iter().map(f64::from).collect();
        Ok(Tensor::from_slice(t.shape(), &v)?)
    };
    let Some(Value::Tensor(out)) = a.last() else {
        anyhow::bail!("no output");
    };
    let got: Vec<f64> = out.to_vec::<f32>()?.into_iter().map(f64::from).collect();
    // The OIHW weights: the example makes them with seed 2 and scale 0.1.
    let oihw = random_f32(&dims.map(|d| d as i64), 2, 0.1);
    let run = |weights: Tensor, wide: bool| -> anyhow::Result<Vec<f64>> {
        let mut args: Vec<Value> = Vec::new();
        for (i, v) in a.iter().enumerate() {
            args.push(match v {
                Value::Tensor(_) if i == 1 => Value::Tensor(weights.clone()),
                Value::Tensor(t) if i + 1 == a.len() => Value::Tensor(Tensor::zeros(
                    t.shape(),
                    if wide {
                        vm::DataType::F64
                    } else {
                        vm::DataType::F32
                    },
                )?),
                Value::Tensor(t) if wide => Value::Tensor(widen(t)?),
                other => other.clone(),
            });
        }
        f.call(&args)?;
        let Some(Value::Tensor(y)) = args.last() else {
            anyhow::bail!("no output");
        };
        Ok(if wide {
            y.to_vec::<f64>()?
        } else {
            y.to_vec::<f32>()?.into_iter().map(f64::from).collect()
        })
    };
    let want = run(widen(&oihw)?, true)?;
    let (data, shape) = dispatch_library::pack_conv_weights(&oihw.to_vec()?, *dims);
    let direct = run(Tensor::from_slice(&shape.map(|d| d as i64), &data)?, false)?;
    let scale = want
        .iter()
        .fold(0f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    let err = |v: &[f64]| {
        v.iter()
            .zip(&want)
            .map(|(g, w)| (g - w).abs())
            .fold(0f64, f64::max)
            / scale
    };
    Ok((err(&got), err(&direct)))
}

/// `layers` convs of `c` (square, 3×3, stride 1, padding `c.pad`) with bias and ReLU, one
/// after the other, as Winograd, direct float32 (packed weights) and float64: the largest error
/// of the last output of the first two against the third, relative to its largest magnitude.
fn chain_errors(f: &vm::PackedFunc, c: &Conv, layers: usize) -> anyhow::Result<(f64, f64)> {
    let widen = |t: &Tensor| -> anyhow::Result<Tensor> {
        let v: Vec<f64> = t.to_vec::<f32>()?.into_iter().map(f64::from).collect();
        Ok(Tensor::from_slice(t.shape(), &v)?)
    };
    let dims = [c.o, c.x[1], 3, 3].map(|d| d as usize);
    let x = random_f32(&c.x, 1, 1.0);
    let (mut xw, mut xd, mut x64) = (x.clone(), x.clone(), widen(&x)?);
    let p = c.pad;
    let call = |x: &Tensor, w: Tensor, b: Tensor| -> anyhow::Result<Tensor> {
        let out = Tensor::zeros(x.shape(), x.dtype())?;
        let mut a = vec![Value::Tensor(x.clone()), Value::Tensor(w), Value::Tensor(b)];
        a.extend([1, 1, p, p, p, p, 1, 1, 1].map(Value::Int));
        a.push(Value::Tensor(out.clone()));
        f.call(&a)?;
        Ok(out)
    };
    for l in 0..layers as u64 {
        let bound = (6.0 / (9 * c.x[1]) as f32).sqrt();
        let w = random_f32(&[c.o, c.x[1], 3, 3], 100 + l, bound);
        let b = random_f32(&[1, c.o, 1, 1], 200 + l, 0.1);
        let wv = w.to_vec::<f32>()?;
        let u = dispatch_library::winograd_conv_weights(&wv, [dims[0], dims[1]]);
        let u = Tensor::from_slice(&[dispatch_library::WINOGRAD_ROWS as i64, c.o, c.x[1]], &u)?;
        let (packed, shape) = dispatch_library::pack_conv_weights(&wv, dims);
        let packed = Tensor::from_slice(&shape.map(|d| d as i64), &packed)?;
        xw = call(&xw, u, b.clone())?;
        xd = call(&xd, packed, b.clone())?;
        x64 = call(&x64, widen(&w)?, widen(&b)?)?;
    }
    let want = x64.to_vec::<f64>()?;
    let scale = want
        .iter()
        .fold(0f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    let err = |t: &Tensor| -> anyhow::Result<f64> {
        Ok(t.to_vec::<f32>()?
            .into_iter()
            .zip(&want)
            .map(|(g, w)| (f64::from(g) - w).abs())
            .fold(0f64, f64::max)
            / scale)
    };
    Ok((err(&xw)?, err(&xd)?))
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let calls: usize = args
        .iter()
        .position(|a| a == "--calls")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(50);
    let pack = !args.iter().any(|a| a == "--no-pack");
    // Every f32 conv of one group packed, whatever `packs_conv_weights` says: to measure the
    // channel-vectorized kernel on the shapes it does not take.
    let pack_all = args.iter().any(|a| a == "--pack-all");
    let winograd = !args.iter().any(|a| a == "--no-winograd");
    let winograd_all = args.iter().any(|a| a == "--winograd-all");
    let evict_mib = if args.iter().any(|a| a == "--cold") {
        Some(64)
    } else {
        args.iter()
            .position(|a| a == "--evict-mib")
            .and_then(|i| args.get(i + 1))
            .map(|s| s.parse::<usize>())
            .transpose()?
    };
    let mut evict = evict_mib.map(|mib| vec![0u8; mib << 20]);
    // Written by every thread of the pool, a part each, so that each core's own caches are
    // overwritten too and not only the shared L3.
    let mut flush = move || {
        use rayon::prelude::*;
        if let Some(buf) = evict.as_mut() {
            let part = buf.len().div_ceil(rayon::current_num_threads());
            buf.par_chunks_mut(part).for_each(|chunk| {
                for (i, b) in chunk.iter_mut().enumerate().step_by(64) {
                    *b = b.wrapping_add(i as u8);
                }
            });
            std::hint::black_box(&buf);
        }
    };
    let filter = args
        .iter()
        .find(|a| !a.starts_with("--") && a.parse::<usize>().is_err());
    let mut lib = vm::Library::new();
    jit::library::add_to(&mut lib);
    let residual = args.iter().any(|a| a == "--residual");
    let check = args.iter().any(|a| a == "--check");
    let chain: Option<usize> = args
        .iter()
        .position(|a| a == "--chain")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.parse())
        .transpose()?;
    let f = lib
        .get_packed(if residual {
            "relaxjit.conv2d_add_add_relu"
        } else {
            "relaxjit.conv2d_add_relu"
        })
        .ok_or_else(|| anyhow::anyhow!("no conv kernel"))?;
    println!(
        "{:16} {:>10} {:>10} {:>8}  ({} threads)",
        "conv",
        "min",
        "median",
        "GFLOP/s",
        rayon::current_num_threads()
    );
    for c in CONVS {
        if filter.is_some_and(|f| !c.name.contains(f.as_str())) {
            continue;
        }
        if let Some(layers) = chain {
            if c.k == 3 && c.stride == 1 && c.x[1] == c.o {
                let (wino, direct) = chain_errors(f, c, layers)?;
                println!(
                    "{:16} {layers} layers: max error / max |out|: Winograd {wino:.2e}, direct f32 {direct:.2e}",
                    c.name
                );
            }
            continue;
        }
        let oh = (c.x[2] + 2 * c.pad - c.k) / c.stride + 1;
        let ow = (c.x[3] + 2 * c.pad - c.k) / c.stride + 1;
        let out = Tensor::zeros(&[c.x[0], c.o, oh, ow], vm::DataType::F32)?;
        // The weights as the engine hands them to the kernel: packed where DispatchLibrary
        // packs a constant.
        let dims = [c.o, c.x[1], c.k, c.k].map(|d| d as usize);
        let mut weights = random_f32(&[c.o, c.x[1], c.k, c.k], 2, 0.1);
        let wino = c.k == 3
            && c.stride == 1
            && (winograd_all
                || winograd
                    && dispatch_library::uses_winograd(dims[0], dims[1], oh as usize, ow as usize));
        let packed = !wino && pack_all
            || !wino
                && pack
                && dispatch_library::packs_conv_weights(
                    dims[0],
                    dims[1],
                    [dims[2], dims[3]],
                    [c.stride as usize; 2],
                    (oh * ow) as usize,
                );
        if wino {
            let data =
                dispatch_library::winograd_conv_weights(&weights.to_vec()?, [dims[0], dims[1]]);
            let shape = [dispatch_library::WINOGRAD_ROWS, dims[0], dims[1]];
            weights = Tensor::from_slice(&shape.map(|d| d as i64), &data)?;
        } else if packed {
            let (data, shape) = dispatch_library::pack_conv_weights(&weights.to_vec()?, dims);
            weights = Tensor::from_slice(&shape.map(|d| d as i64), &data)?;
        }
        let mut a = vec![
            Value::Tensor(random_f32(&c.x, 1, 1.0)),
            Value::Tensor(weights),
            Value::Tensor(random_f32(&[1, c.o, 1, 1], 3, 0.1)),
        ];
        if residual {
            a.push(Value::Tensor(random_f32(&[c.x[0], c.o, oh, ow], 4, 1.0)));
        }
        let s = c.stride;
        let p = c.pad;
        a.extend([s, s, p, p, p, p, 1, 1, 1].map(Value::Int));
        a.push(Value::Tensor(out));
        f.call(&a)?;
        let errors = if check {
            Some(errors(f, &a, &dims)?)
        } else {
            None
        };
        let mut times: Vec<f64> = (0..calls)
            .map(|_| {
                flush();
                let t = std::time::Instant::now();
                f.call(&a).map(|_| t.elapsed().as_secs_f64())
            })
            .collect::<Result<_, _>>()?;
        times.sort_by(f64::total_cmp);
        let flops = 2.0 * (c.x[0] * c.o * oh * ow * c.x[1] * c.k * c.k) as f64;
        println!(
            "{:16} {:8.1}us {:8.1}us {:8.1}{}",
            c.name,
            times[0] * 1e6,
            times[calls / 2] * 1e6,
            flops / times[0] / 1e9,
            if wino {
                "  winograd"
            } else if packed {
                "  packed"
            } else {
                ""
            }
        );
        if let Some((got, direct)) = errors {
            println!(
                "{:16} max error / max |out|: {got:.2e} (direct f32: {direct:.2e})",
                ""
            );
        }
    }
    let max_pool = lib
        .get_packed("relaxjit.max_pool2d")
        .ok_or_else(|| anyhow::anyhow!("no pool kernel"))?;
    let avg_pool = lib
        .get_packed("relaxjit.avg_pool2d")
        .ok_or_else(|| anyhow::anyhow!("no pool kernel"))?;
    // SqueezeNet's three max-pools (3×3, stride 2), the conv block's (2×2, stride 2),
    // ResNet-50's (3×3, stride 2, padding 1) and Inception v2's 3×3 pools of stride 1 and
    // padding 1 (average at 28 × 28 and 7 × 7, max at 7 × 7).
    for (name, x, k, stride, pad, is_max) in [
        ("pool_sq1", [1i64, 64, 111, 111], 3i64, 2i64, 0i64, true),
        ("pool_sq2", [1, 128, 55, 55], 3, 2, 0, true),
        ("pool_sq3", [1, 256, 27, 27], 3, 2, 0, true),
        ("pool_block", [1, 64, 56, 56], 2, 2, 0, true),
        ("pool_rn", [1, 64, 112, 112], 3, 2, 1, true),
        ("pool_inc_avg28", [1, 256, 28, 28], 3, 1, 1, false),
        ("pool_inc_avg7", [1, 1024, 7, 7], 3, 1, 1, false),
        ("pool_inc_max7", [1, 1024, 7, 7], 3, 1, 1, true),
    ] {
        if filter.is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let pool = if is_max { &max_pool } else { &avg_pool };
        let o = (x[2] + 2 * pad - k) / stride + 1;
        let mut a = vec![Value::Tensor(random_f32(&x, 1, 1.0))];
        a.extend([k, k, stride, stride, pad, pad, pad, pad, 1, 1, 0, 0].map(Value::Int));
        a.push(Value::Tensor(Tensor::zeros(
            &[1, x[1], o, o],
            vm::DataType::F32,
        )?));
        pool.call(&a)?;
        let mut times: Vec<f64> = (0..calls)
            .map(|_| {
                let t = std::time::Instant::now();
                pool.call(&a).map(|_| t.elapsed().as_secs_f64())
            })
            .collect::<Result<_, _>>()?;
        times.sort_by(f64::total_cmp);
        // Against the bandwidth bound: bytes read and written once each.
        let bytes = 4.0 * (x.iter().product::<i64>() + x[1] * o * o) as f64;
        println!(
            "{:12} {:8.1}us {:8.1}us {:6.1} GB/s",
            name,
            times[0] * 1e6,
            times[calls / 2] * 1e6,
            bytes / times[0] / 1e9
        );
    }
    Ok(())
}
