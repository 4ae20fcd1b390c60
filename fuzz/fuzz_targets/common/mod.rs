//! What the compiling fuzz targets share: engines made once, and small generated arguments for
//! a Relax function (symbolic dimensions bound to small values), so that a run is fast and
//! the fuzzer's memory limit catches real over-allocation, not a legitimately large input.

use std::collections::HashMap;
use std::sync::OnceLock;

use relaxjit::relax::{Function, IRModule, StructInfo};
use relaxjit::tir::{PrimExpr, Var};
use relaxjit::{Config, Engine, ExecMode, Value};
use support::values::InputGenerator;

/// The most elements over all tensors of one call's arguments.
const MAX_ELEMENTS: usize = 4096;

/// The value each symbolic dimension of a signature takes.
const SYMBOLIC_DIM: i64 = 3;

/// A bytecode and a compiled-mode engine, single-threaded (the fuzzer shares the machine), with
/// a small constant-folding limit.
pub fn engines() -> &'static [Engine; 2] {
    static ENGINES: OnceLock<[Engine; 2]> = OnceLock::new();
    ENGINES.get_or_init(|| {
        let make = |exec_mode| {
            Engine::new(Config {
                exec_mode,
                threads: Some(1),
                max_fold_bytes: 1 << 16,
                ..Config::default()
            })
            .expect("a valid configuration")
        };
        [make(ExecMode::Bytecode), make(ExecMode::Compiled)]
    })
}

/// Compiles `module` in both exec modes and calls each public Relax function on generated
/// arguments; every error is fine, only panics, aborts, hangs and over-allocation are findings.
pub fn compile_and_call(module: &IRModule) {
    for engine in engines() {
        let Ok(compiled) = engine.compile(module) else {
            // The other mode fails the same way (compiled mode only adds native functions).
            return;
        };
        for (name, func) in module.relax_functions() {
            if func.private {
                continue;
            }
            let Some(args) = arguments(func) else {
                continue;
            };
            let _ = compiled.run(name, &args);
        }
    }
}

/// Arguments for `func`: every tensor small, every symbolic dimension [`SYMBOLIC_DIM`]; `None`
/// if a parameter cannot be generated or the tensors would be too large.
pub fn arguments(func: &Function) -> Option<Vec<Value>> {
    let mut dims = Dims::default();
    for p in &func.params {
        dims.bind_vars(p.struct_info());
    }
    let mut generator = InputGenerator::new(7).with_max_bytes((MAX_ELEMENTS * 8) as u64);
    let mut elements = 0usize;
    let mut args = Vec::new();
    for p in &func.params {
        let si = dims.concrete(p.struct_info())?;
        elements = elements.checked_add(count_elements(&si)?)?;
        if elements > MAX_ELEMENTS {
            return None;
        }
        args.push(generator.value(p.name(), &si).ok()?);
    }
    Some(args)
}

/// The values of a signature's symbolic dimensions.
#[derive(Default)]
struct Dims {
    vars: HashMap<String, Var>,
}

impl Dims {
    /// Binds each dimension that is a bare variable.
    fn bind_vars(&mut self, si: &StructInfo) {
        let mut bind = |dims: &[PrimExpr]| {
            for d in dims {
                if let Some(v) = d.as_var() {
                    self.vars
                        .entry(v.name().to_string())
                        .or_insert_with(|| v.clone());
                }
            }
        };
        match si {
            StructInfo::Tensor { shape: Some(s), .. } => bind(s),
            StructInfo::Shape {
                values: Some(s), ..
            } => bind(s),
            StructInfo::Prim { value: Some(v), .. } => bind(std::slice::from_ref(v)),
            StructInfo::Tuple(fields) => fields.iter().for_each(|f| self.bind_vars(f)),
            _ => {}
        }
    }

    fn eval(&self, e: &PrimExpr) -> Option<PrimExpr> {
        if e.as_int().is_some() {
            return Some(e.clone());
        }
        let bindings: Vec<(Var, relaxjit::tir::arith::scalar::Scalar)> = self
            .vars
            .values()
            .map(|v| {
                (
                    v.clone(),
                    relaxjit::tir::arith::scalar::Scalar::Int(SYMBOLIC_DIM),
                )
            })
            .collect();
        match relaxjit::tir::interp::eval_expr(e, &bindings).ok()? {
            relaxjit::tir::arith::scalar::Scalar::Int(i) => Some(PrimExpr::int(e.dtype(), i)),
            relaxjit::tir::arith::scalar::Scalar::Float(_) => None,
        }
    }

    /// `si` with every dimension a constant, or `None`.
    fn concrete(&self, si: &StructInfo) -> Option<StructInfo> {
        let dims = |d: &[PrimExpr]| d.iter().map(|e| self.eval(e)).collect::<Option<Vec<_>>>();
        Some(match si {
            StructInfo::Tensor {
                shape: Some(s),
                dtype,
                ndim,
                vdevice,
            } => StructInfo::Tensor {
                shape: Some(dims(s)?),
                dtype: *dtype,
                ndim: *ndim,
                vdevice: vdevice.clone(),
            },
            StructInfo::Shape {
                values: Some(s),
                ndim,
            } => StructInfo::Shape {
                values: Some(dims(s)?),
                ndim: *ndim,
            },
            StructInfo::Prim {
                dtype,
                value: Some(v),
            } => StructInfo::Prim {
                dtype: *dtype,
                value: Some(self.eval(v)?),
            },
            StructInfo::Tuple(fields) => StructInfo::Tuple(
                fields
                    .iter()
                    .map(|f| self.concrete(f))
                    .collect::<Option<Vec<_>>>()?,
            ),
            other => other.clone(),
        })
    }
}

/// The elements of the tensors in `si` (whose shapes are constants); `None` on overflow.
fn count_elements(si: &StructInfo) -> Option<usize> {
    match si {
        StructInfo::Tensor { shape: Some(s), .. } => s.iter().try_fold(1usize, |n, d| {
            n.checked_mul(usize::try_from(d.as_int()?).ok()?)
        }),
        StructInfo::Tuple(fields) => fields
            .iter()
            .try_fold(0usize, |n, f| n.checked_add(count_elements(f)?)),
        _ => Some(0),
    }
}
