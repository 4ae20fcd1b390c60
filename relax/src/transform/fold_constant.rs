//! FoldConstant: evaluates at compile time every `call_tir` whose inputs are all constant
//! tensors and whose output has a static shape, running the PrimFunc in the reference TIR
//! interpreter (`tir::interp`), and binds the result as a `Constant` (TVM's
//! `relax.transform.FoldConstant`).
//!
//! As in TVM, a variable is looked through to its constant value only if it is a dataflow
//! variable (only those are guaranteed pure and local), so folding happens in dataflow blocks;
//! the bindings of dataflow variables to constants are then propagated into their uses and
//! dropped. A call that fails in the interpreter (an out-of-bounds access, a division by zero)
//! is left alone so that the error surfaces at run time, where TVM reports it.
//!
//! Data movement on a constant (`R.reshape`, `R.broadcast_to`, `R.permute_dims` of rank 3 or
//! more) is folded natively before legalization, without copying where the bytes are only
//! relabelled (a reshape, a broadcast to the same shape): the pipeline runs this pass also ahead
//! of `DispatchLibrary` and `LegalizeOps`.
//!
//! Unlike TVM, folding is bounded: a call whose result (or any input) is larger than the limit
//! ([`DEFAULT_MAX_FOLD_BYTES`] unless the pipeline says otherwise) is kept, to run at run time.
//! The size comes from the program (`R.zeros(R.shape([100000000000]), "float32")` asks for
//! 400 GB), so materialising it at compile time would make compiling fail, or abort, on a program
//! whose run time might never reach that call; and the reference interpreter is slow, so folding
//! large tensors would cost seconds of compile time. Allocation for a folded result is fallible
//! too: when memory runs out the call is kept.
//!
//! Invariants: the struct info of every remaining variable is unchanged; only dataflow blocks
//! lose bindings.

use std::collections::HashMap;

use tir::interp::InterpArg;

use crate::Result;
use crate::ir::{
    AttrValue, Binding, BindingBlock, Call, Constant, Expr, ExprKind, Function, IRModule, SeqExpr,
    StructInfo, VarId,
};
use crate::transform::{map_functions, substitute, substitute_binding};

/// The largest constant FoldConstant materialises by default: 16 MiB. That covers every
/// weight-sized constant of a ResNet-class model (the largest ResNet-50 weight is 9.4 MB), and
/// bounds the compile-time cost of one fold: the reference interpreter needs about 2 s for a
/// 16 MiB result (`relaxjit inspect` of `R.zeros` or `R.arange` of 4194304 float32). Larger
/// results are computed at run time, by compiled kernels.
pub const DEFAULT_MAX_FOLD_BYTES: usize = 16 << 20;

/// FoldConstant with the default size limit ([`DEFAULT_MAX_FOLD_BYTES`]).
pub fn fold_constant(module: &IRModule) -> Result<IRModule> {
    fold_constant_with_limit(module, DEFAULT_MAX_FOLD_BYTES)
}

/// FoldConstant materialising no constant (result or input) larger than `max_bytes`.
pub fn fold_constant_with_limit(module: &IRModule, max_bytes: usize) -> Result<IRModule> {
    let cx = Folder { module, max_bytes };
    map_functions(module, |_, f| Ok(cx.function(f)))
}

struct Folder<'a> {
    module: &'a IRModule,
    max_bytes: usize,
}

impl Folder<'_> {
    fn function(&self, f: &Function) -> Function {
        Function {
            body: self.seq(&f.body),
            ..f.clone()
        }
    }

    fn seq(&self, s: &SeqExpr) -> SeqExpr {
        let mut consts: HashMap<VarId, Expr> = HashMap::new();
        let mut blocks = Vec::new();
        for block in &s.blocks {
            let mut out = Vec::new();
            for b in &block.bindings {
                let b = substitute_binding(b, &consts);
                let b = match b {
                    Binding::Var { var, value } => {
                        let value = match value.kind() {
                            ExprKind::Call(c) => self
                                .data_movement(c, var.struct_info())
                                .or_else(|| self.call(c))
                                .unwrap_or(value),
                            ExprKind::If(i) => Expr::new(ExprKind::If(crate::ir::If {
                                cond: i.cond.clone(),
                                then_branch: self.seq(&i.then_branch),
                                else_branch: self.seq(&i.else_branch),
                            })),
                            _ => value,
                        };
                        Binding::Var { var, value }
                    }
                    other => other,
                };
                if let Binding::Var { var, value } = &b
                    && var.is_dataflow()
                    && matches!(value.kind(), ExprKind::Constant(_))
                {
                    consts.insert(var.id(), value.clone());
                    continue;
                }
                out.push(b);
            }
            blocks.push(BindingBlock {
                bindings: out,
                dataflow: block.dataflow,
            });
        }
        SeqExpr {
            blocks,
            body: substitute(&s.body, &consts),
        }
    }

    /// The constant result of a data-movement operator on a constant, computed natively:
    /// `R.reshape` (a view of the same bytes) and `R.broadcast_to` to the operand's own shape
    /// (the operand itself) copy nothing, so no size limit applies: this is how weights
    /// imported by TVM's ONNX frontend (`R.broadcast_to(metadata[...], shape)` of every conv
    /// and dense weight) reach their kernels without a compile-time or run-time copy. A real
    /// `R.broadcast_to` and an `R.permute_dims` of rank 3 or more (ConvertLayout's of an OHWI
    /// or HWIO weight) are copied once, within the size limit.
    fn data_movement(&self, c: &Call, result: &StructInfo) -> Option<Expr> {
        let op = c.op()?;
        if !matches!(
            op,
            "relax.reshape" | "relax.broadcast_to" | "relax.permute_dims"
        ) {
            return None;
        }
        let ExprKind::Constant(k) = c.args.first()?.kind() else {
            return None;
        };
        let StructInfo::Tensor {
            shape: Some(shape),
            dtype: Some(_),
            ..
        } = result
        else {
            return None;
        };
        let shape: Vec<i64> = shape.iter().map(PrimExpr::as_int).collect::<Option<_>>()?;
        let data = if op == "relax.broadcast_to" {
            if k.data.shape() == shape.as_slice() {
                k.data.clone()
            } else {
                self.broadcast(&k.data, &shape)?
            }
        } else if op == "relax.permute_dims" {
            // A transposed matrix is left to DispatchLibrary, whose matmul reads it in place
            // (`trans_b`), and otherwise to the FoldConstant after legalization.
            if shape.len() < 3 {
                return None;
            }
            self.permute(&k.data, c.attrs.get("axes"), &shape)?
        } else {
            if vm::tensor::checked_numel(&shape).ok()? != k.data.numel() {
                return None;
            }
            k.data.view(&shape, k.data.dtype()).ok()?
        };
        Some(Expr::new(ExprKind::Constant(Constant {
            data,
            struct_info: result.clone(),
            metadata_index: None,
        })))
    }

    /// `t` broadcast to `shape` (numpy rules, dimensions aligned on the right), copied once
    /// natively: the result of `R.broadcast_to` of a constant. `None` if the shapes do not
    /// broadcast or the result is over the size limit.
    fn broadcast(&self, t: &vm::Tensor, shape: &[i64]) -> Option<vm::Tensor> {
        let src = t.shape();
        if src.len() > shape.len() {
            return None;
        }
        let lead = shape.len() - src.len();
        // Element strides of the source for each output dimension; 0 where it is broadcast.
        let mut strides = vec![0usize; shape.len()];
        let mut stride = 1usize;
        for i in (0..src.len()).rev() {
            let (s, o) = (src[i], shape[lead + i]);
            if s == o {
                strides[lead + i] = stride;
            } else if s != 1 {
                return None;
            }
            stride = stride.checked_mul(usize::try_from(s).ok()?)?;
        }
        let dtype = t.dtype();
        if vm::tensor::checked_nbytes(shape, dtype).ok()? > self.max_bytes {
            return None;
        }
        let from = t.to_bytes();
        let mut out = vm::Tensor::zeros(shape, dtype).ok()?;
        broadcast_into(out.bytes_mut().ok()?, &from, shape, &strides, dtype.bytes());
        Some(out)
    }

    /// `t` with its dimensions permuted as `R.permute_dims(t, axes)` does (no axes: reversed),
    /// copied once natively; `shape` is the result's. `None` if the axes are not a permutation
    /// of `t`'s dimensions giving `shape`, or the result is over the size limit.
    fn permute(
        &self,
        t: &vm::Tensor,
        axes: Option<&AttrValue>,
        shape: &[i64],
    ) -> Option<vm::Tensor> {
        let src = t.shape();
        let n = src.len();
        let axes = crate::op::common::permute_dims_axes(axes, n)?;
        if shape.len() != n {
            return None;
        }
        if axes.iter().zip(shape).any(|(&a, &d)| src[a] != d) {
            return None;
        }
        if axes.iter().enumerate().all(|(i, &a)| i == a) {
            return Some(t.clone());
        }
        // Element strides of the source, read in the result's order.
        let mut src_strides = vec![0usize; n];
        let mut stride = 1usize;
        for i in (0..n).rev() {
            src_strides[i] = stride;
            stride = stride.checked_mul(usize::try_from(src[i]).ok()?)?;
        }
        let strides: Vec<usize> = axes.iter().map(|&a| src_strides[a]).collect();
        let dtype = t.dtype();
        if vm::tensor::checked_nbytes(shape, dtype).ok()? > self.max_bytes {
            return None;
        }
        let from = t.to_bytes();
        let mut out = vm::Tensor::zeros(shape, dtype).ok()?;
        let bytes = out.bytes_mut().ok()?;
        if bytes.len() != from.len() || from.len() != stride * dtype.bytes() {
            return None;
        }
        broadcast_into(bytes, &from, shape, &strides, dtype.bytes());
        Some(out)
    }

    /// The constant result of `call_tir(f, (constants...), out_ty)`, if it can be computed
    /// within the size limit.
    fn call(&self, c: &Call) -> Option<Expr> {
        let module = self.module;
        if c.op() != Some("relax.call_tir") || c.args.len() != 2 {
            return None;
        }
        let ExprKind::GlobalVar(g) = c.args[0].kind() else {
            return None;
        };
        let pf = module.prim_func(g)?;
        let ExprKind::Tuple(args) = c.args[1].kind() else {
            return None;
        };
        let mut inputs = Vec::new();
        for a in args {
            match a.kind() {
                ExprKind::Constant(k) => inputs.push(k.data.clone()),
                _ => return None,
            }
        }
        let out_si = c.ty_args.first()?;
        let StructInfo::Tensor {
            shape: Some(shape),
            dtype: Some(dtype),
            ..
        } = out_si
        else {
            return None;
        };
        let shape: Vec<i64> = shape.iter().map(PrimExpr::as_int).collect::<Option<_>>()?;
        let vdt: vm::DataType = dtype.to_string().parse().ok()?;
        let out_bytes = vm::tensor::checked_nbytes(&shape, vdt).ok()?;
        if out_bytes > self.max_bytes || inputs.iter().any(|t| t.nbytes() > self.max_bytes) {
            return None;
        }
        // The interpreter takes its buffers as `&mut [u8]`; inputs are copied (constants are
        // shared), the output is written in place into a fresh tensor.
        let mut in_bytes: Vec<Vec<u8>> = inputs.iter().map(|t| t.to_bytes()).collect();
        let mut data = vm::Tensor::zeros(&shape, vdt).ok()?;
        {
            let mut iargs: Vec<InterpArg<'_>> = Vec::new();
            for (t, bytes) in inputs.iter().zip(in_bytes.iter_mut()) {
                iargs.push(InterpArg::Buffer {
                    data: bytes,
                    shape: t.shape().to_vec(),
                    dtype: tir::DataType::parse(&t.dtype().to_string())?,
                });
            }
            iargs.push(InterpArg::Buffer {
                data: data.bytes_mut().ok()?,
                shape: shape.clone(),
                dtype: *dtype,
            });
            tir::interp::run(pf, &mut iargs).ok()?;
        }
        Some(Expr::new(ExprKind::Constant(Constant {
            data,
            struct_info: out_si.clone(),
            metadata_index: None,
        })))
    }
}

use tir::PrimExpr;

/// Writes into `out` (row-major over `shape`, elements of `es` bytes) the broadcast of `src`,
/// whose element stride along each dimension is `strides` (0 where broadcast). A broadcast
/// dimension fills its first slice and then copies it over the others, doubling the copied run
/// each time, and a tail the source holds contiguously is one copy; so the work is one pass of
/// `memcpy` over the output (a one-element weight broadcast to a whole conv kernel, as TVM's
/// ONNX import of the light zoo writes every weight, costs no per-element loop).
fn broadcast_into(out: &mut [u8], src: &[u8], shape: &[i64], strides: &[usize], es: usize) {
    fn fill(out: &mut [u8], src: &[u8], at: usize, shape: &[i64], strides: &[usize], es: usize) {
        if out.is_empty() {
            return;
        }
        // The tail is one contiguous run of the source: strides 1, then each the product of
        // the sizes inside it.
        let mut run = 1usize;
        let contiguous = shape.iter().zip(strides).rev().all(|(&n, &st)| {
            let ok = st == run;
            run *= n as usize;
            ok
        });
        if contiguous {
            out.copy_from_slice(&src[at * es..at * es + out.len()]);
            return;
        }
        let (n, inner) = (shape[0] as usize, &shape[1..]);
        let slice = out.len() / n;
        if strides[0] == 0 {
            fill(&mut out[..slice], src, at, inner, &strides[1..], es);
            let mut filled = slice;
            while filled < out.len() {
                let c = filled.min(out.len() - filled);
                out.copy_within(..c, filled);
                filled += c;
            }
        } else {
            for (i, part) in out.chunks_exact_mut(slice).enumerate() {
                fill(part, src, at + i * strides[0], inner, &strides[1..], es);
            }
        }
    }
    fill(out, src, 0, shape, strides, es);
}

#[cfg(test)]
mod tests {
    use super::{Folder, broadcast_into};
    use crate::ir::{AttrValue, IRModule};

    /// Every permutation of a rank-3 tensor (axes given, negative, or none for the reverse)
    /// moves each element where `R.permute_dims` puts it; axes that are not a permutation,
    /// or do not give the result's shape, fold nothing.
    #[test]
    fn permute_moves_every_element() {
        let module = IRModule::new();
        let folder = Folder {
            module: &module,
            max_bytes: 1 << 20,
        };
        let shape = [2i64, 3, 4];
        let data: Vec<i32> = (0..24).collect();
        let t = vm::Tensor::from_slice(&shape, &data).unwrap();
        let list = |v: &[i64]| AttrValue::List(v.iter().map(|&a| AttrValue::Int(a)).collect());
        let perms = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        for axes in perms {
            let out_shape: Vec<i64> = axes.iter().map(|&a| shape[a]).collect();
            let negative: Vec<i64> = axes.iter().map(|&a| a as i64 - 3).collect();
            let reversed = (axes == [2, 1, 0]).then_some(AttrValue::None);
            let given = [Some(list(&axes.map(|a| a as i64))), Some(list(&negative))];
            for attr in given.into_iter().chain([reversed]).flatten() {
                let got = folder.permute(&t, Some(&attr), &out_shape).unwrap();
                assert_eq!(got.shape().to_vec(), out_shape);
                let mut flat = 0;
                for i in 0..out_shape[0] {
                    for j in 0..out_shape[1] {
                        for k in 0..out_shape[2] {
                            let mut src = [0i64; 3];
                            for (d, v) in [i, j, k].into_iter().enumerate() {
                                src[axes[d]] = v;
                            }
                            let want = (src[0] * 12 + src[1] * 4 + src[2]) as f64;
                            assert_eq!(got.get_f64(flat), Some(want), "axes {attr:?}");
                            flat += 1;
                        }
                    }
                }
            }
        }
        for bad in [list(&[0, 0, 1]), list(&[0, 1]), list(&[0, 1, 3])] {
            assert!(folder.permute(&t, Some(&bad), &shape).is_none(), "{bad:?}");
        }
        assert!(
            folder
                .permute(&t, Some(&list(&[1, 0, 2])), &shape)
                .is_none()
        );
    }

    /// The reference: one element at a time, advancing a row-major index.
    fn broadcast_naive(src: &[u8], shape: &[i64], strides: &[usize], es: usize) -> Vec<u8> {
        let numel: i64 = shape.iter().product();
        let mut out = vec![0u8; numel as usize * es];
        let mut index = vec![0i64; shape.len()];
        let mut at = 0usize;
        for chunk in out.chunks_exact_mut(es) {
            chunk.copy_from_slice(&src[at * es..(at + 1) * es]);
            for d in (0..shape.len()).rev() {
                index[d] += 1;
                at += strides[d];
                if index[d] < shape[d] {
                    break;
                }
                at -= strides[d] * shape[d] as usize;
                index[d] = 0;
            }
        }
        out
    }

    /// Every pattern of broadcast and kept dimensions up to rank 4, with sizes 1 to 3 and a
    /// zero-sized one, for 1-, 2- and 4-byte elements, equals the element-by-element loop.
    #[test]
    fn the_block_broadcast_equals_the_element_loop() {
        let sizes = [[3, 1, 2, 3], [2, 3, 1, 2], [1, 2, 3, 1], [2, 2, 0, 3]];
        for es in [1usize, 2, 4] {
            for shape in sizes {
                for rank in 0..=4 {
                    let shape = &shape[4 - rank..];
                    for mask in 0..1u32 << rank {
                        // Source dims: the output's where the bit is set, else 1 (broadcast).
                        let mut strides = vec![0usize; rank];
                        let mut stride = 1usize;
                        for d in (0..rank).rev() {
                            if mask >> d & 1 == 1 && shape[d] != 1 {
                                strides[d] = stride;
                                stride *= shape[d] as usize;
                            }
                        }
                        let src: Vec<u8> = (0..stride * es).map(|i| (i * 7 + 3) as u8).collect();
                        let want = broadcast_naive(&src, shape, &strides, es);
                        let mut got = vec![0u8; want.len()];
                        broadcast_into(&mut got, &src, shape, &strides, es);
                        assert_eq!(got, want, "shape {shape:?} strides {strides:?} es {es}");
                    }
                }
            }
        }
    }
}
