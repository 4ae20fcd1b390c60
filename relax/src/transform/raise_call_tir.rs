//! RaiseCallTIR: a `R.call_tir` of a PrimFunc that computes exactly a matrix multiply or an
//! NCHW/OIHW 2-D convolution, in the form TVM's LegalizeOps (TOPI) writes them, becomes the
//! Relax operator call again, with the attributes read back from the loop nest, so that
//! DispatchLibrary hands it (and the bias and activation after it) to a library kernel. A
//! module that arrives already legalized (`mod.script()` after `relax.transform.LegalizeOps()`)
//! would otherwise run these as TIR loop nests, about a hundred times slower. It runs only with
//! the library (`OptConfig::library`), so the TIR of such a module stays the reference.
//!
//! Recognized, `float32` or `float64` throughout, with no casts:
//! * matmul (TVM's `matmul`, TOPI's `T_matmul_NT` and FuseTransposeMatmul's `NT_matmul`): three
//!   buffer parameters `(a, b, out)` and one reduction block
//!   `out[s…] = out[s…] + a[…, s_m, k] * b[…, k, s_n]` (or `b[…, s_n, k]`, the right operand
//!   transposed) with `init` `out[s…] = 0`, each batch index of an operand the output's (same
//!   extent) or 0 (extent 1, broadcast); one operand may be 1-D (`a[k]` or `b[k]`, numpy's
//!   matrix-vector product, the output without that axis). It becomes `R.matmul(a, b)`, or
//!   `R.matmul(a, R.permute_dims(b, axes))` with the last two axes swapped.
//! * conv2d (TOPI's `conv2d_nchw` and `group_conv2d_nchw`): parameters `(data, weight, out)`,
//!   a root allocation `pad_temp` written by one block that copies `data` with zero padding
//!   (`pad_temp[n, c, h, w] = T.if_then_else(inside, data[n, c, h - pt, w - pl], 0)`, or the
//!   plain copy when nothing is padded), then the reduction block
//!   `out[n, f, y, x] += pad_temp[n, f // (O/G) · C/G + c, y·sh + ry·dh, x·sw + rx·dw] ·
//!   weight[f, c, ry, rx]` with `init` 0. It becomes `R.nn.conv2d(data, weight, strides,
//!   padding, dilation, groups)`.
//!
//! Exactness: the whole PrimFunc must be one of these and nothing else — perfectly nested
//! serial loops from 0 whose variables are the blocks' iteration variables in order, with the
//! buffers' extents; compact buffers; the multiply-add and the zero init in the function's
//! float dtype; index expressions proved equal to the expected ones by `tir::arith` over the
//! iteration domains, and the padding test proved true exactly on the copied region. Block
//! annotations (schedule hints) and the `T.reads`/`T.writes` declarations are not read. The
//! call must pass tensors whose struct info matches the buffers (a symbolic extent the same
//! expression wherever its variable occurs), and the operator's inferred struct info must be
//! the call's `out_ty`. Anything else stays a `call_tir` and runs as TIR, correctly; a
//! PrimFunc that computes the operator and more (a fused epilogue) is not taken apart.
//!
//! Invariants afterwards ([`verify`]): every `R.matmul`, `R.nn.conv2d` and `R.permute_dims`
//! binding's variable has the struct info its call infers.

use std::collections::HashMap;

use tir::arith::{Analyzer, Polynomial};
use tir::{
    BinaryOp, Buffer, DataType, ExprKind as TirExpr, ForKind, IterVarKind, PrimExpr, PrimFunc,
    Range, SBlock, Stmt, StmtKind, Var as TirVar, VarId as TirVarId,
};

use crate::Result;
use crate::ir::{AttrValue, Attrs, Binding, Expr, ExprKind, IRModule, StructInfo, Var};
use crate::struct_info_ops::shapes_equal;
use crate::transform::{for_each_binding, map_functions, rewrite_module};

/// What a recognized PrimFunc computes. Operands are positions in the PrimFunc's parameters
/// (and so in the `call_tir` argument tuple); the output is the last parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Raised {
    /// `R.matmul(args[a], args[b])`; with `trans_b`, `args[b]` holds the right operand with its
    /// last two axes swapped.
    Matmul { a: usize, b: usize, trans_b: bool },
    /// `R.nn.conv2d(args[data], args[weight])`, NCHW/OIHW.
    Conv2d {
        data: usize,
        weight: usize,
        strides: [i64; 2],
        /// Top, left, bottom, right.
        padding: [i64; 4],
        dilation: [i64; 2],
        groups: i64,
    },
}

/// Rewrites every `call_tir` of a recognized PrimFunc (see the module docs), then checks the
/// result with [`verify`]. The PrimFuncs stay in the module (DeadCodeElimination removes the
/// ones no longer called).
pub fn raise_call_tir(module: &IRModule) -> Result<IRModule> {
    let recognized: HashMap<&str, Raised> = module
        .prim_funcs()
        .filter_map(|(name, f)| Some((name.as_str(), recognize(f)?)))
        .collect();
    if recognized.is_empty() {
        return Ok(module.clone());
    }
    let out = rewrite_module(module, |b, em| {
        if let Binding::Var { var, value } = &b
            && let Some(bindings) = raise_binding(module, &recognized, var, value, em.dataflow)
        {
            for nb in bindings {
                em.push(nb);
            }
            return Ok(());
        }
        em.push(b);
        Ok(())
    })?;
    verify(&out)?;
    Ok(out)
}

/// The invariant of a raised module: every `R.matmul`, `R.nn.conv2d` and `R.permute_dims`
/// binding whose variable is a tensor of known shape has the dtype and shape its call infers
/// from its arguments. An error here is a bug of the pass (the normalizer holds every other
/// binding of these operators to it already).
pub fn verify(module: &IRModule) -> Result<()> {
    let mut problems = Vec::new();
    map_functions(module, |fname, f| {
        for_each_binding(&f.body, &mut |b| {
            let Binding::Var { var, value } = b else {
                return;
            };
            let Some(call) = value.as_call() else { return };
            if !matches!(
                call.op(),
                Some("relax.matmul" | "relax.nn.conv2d" | "relax.permute_dims")
            ) {
                return;
            }
            let Some(want) = var.struct_info().tensor_shape() else {
                return;
            };
            // Arguments are variables and constants in normal form; anything else is not
            // this pass's.
            let args: Option<Vec<StructInfo>> =
                call.args.iter().map(|a| operand_si(a).cloned()).collect();
            let Some(args) = args else { return };
            let got = crate::op::infer_call(call, &args).ok();
            let ok = got.as_ref().is_some_and(|g| {
                g.tensor_dtype() == var.struct_info().tensor_dtype()
                    && g.tensor_shape().is_some_and(|s| shapes_equal(s, want))
            });
            if !ok {
                problems.push(format!(
                    "`{fname}`, binding `{}`: its struct info is not its call's ({got:?})",
                    var.name()
                ));
            }
        });
        Ok(f.clone())
    })?;
    if problems.is_empty() {
        Ok(())
    } else {
        Err(crate::Error::Internal(format!(
            "RaiseCallTIR produced inconsistent bindings: {}",
            problems.join("; ")
        )))
    }
}

fn operand_si(e: &Expr) -> Option<&StructInfo> {
    match e.kind() {
        ExprKind::Var(v) => Some(v.struct_info()),
        ExprKind::Constant(c) => Some(&c.struct_info),
        _ => None,
    }
}

/// The bindings that replace `var = R.call_tir(f, args, out_ty)` when `f` is recognized and the
/// call matches its buffers (see the module docs); `None` leaves the binding as it is.
fn raise_binding(
    module: &IRModule,
    recognized: &HashMap<&str, Raised>,
    var: &Var,
    value: &Expr,
    dataflow: bool,
) -> Option<Vec<Binding>> {
    let call = value.as_call()?;
    if call.op() != Some("relax.call_tir") || call.args.len() != 2 {
        return None;
    }
    let ExprKind::GlobalVar(g) = call.args[0].kind() else {
        return None;
    };
    let raised = recognized.get(g.as_str())?;
    let f = module.prim_func(g)?;
    let ExprKind::Tuple(args) = call.args[1].kind() else {
        return None;
    };
    let [out_si] = &call.ty_args[..] else {
        return None;
    };
    // The arguments and the output match the buffers, extent by extent.
    let mut sizes: HashMap<TirVarId, PrimExpr> = HashMap::new();
    let sis: Vec<&StructInfo> = args.iter().map(operand_si).collect::<Option<_>>()?;
    if sis.len() + 1 != f.params.len() {
        return None;
    }
    for (param, si) in f.params.iter().zip(sis.iter().copied().chain([out_si])) {
        let buf = f.buffer_of(param)?;
        if si.tensor_dtype() != Some(buf.dtype)
            || !bind_extents(buf, si.tensor_shape()?, &mut sizes)
        {
            return None;
        }
    }
    let dt = out_si.tensor_dtype()?;
    let new_var = |suffix: &str, si: StructInfo| {
        let name = format!("{}_{suffix}", var.name());
        if dataflow {
            Var::dataflow(name, si)
        } else {
            Var::new(name, si)
        }
    };
    let mut bindings = Vec::new();
    let (op, operands, attrs) = match *raised {
        Raised::Matmul { a, b, trans_b } => {
            let mut rhs = args[b].clone();
            if trans_b {
                let rank = sis[b].ndim()?;
                let mut axes: Vec<i64> = (0..rank as i64).collect();
                axes.swap(rank - 2, rank - 1);
                let permute = crate::op::make_call(
                    "relax.permute_dims",
                    vec![rhs],
                    Attrs::new().with(
                        "axes",
                        AttrValue::List(axes.into_iter().map(AttrValue::Int).collect()),
                    ),
                    Vec::new(),
                )
                .ok()?;
                let si = crate::op::infer_call(permute.as_call()?, &[sis[b].clone()]).ok()?;
                let v = new_var("rhs", si);
                bindings.push(Binding::Var {
                    var: v.clone(),
                    value: permute,
                });
                rhs = Expr::var(&v);
            }
            ("relax.matmul", vec![args[a].clone(), rhs], Attrs::new())
        }
        Raised::Conv2d {
            data,
            weight,
            strides,
            padding,
            dilation,
            groups,
        } => {
            let list = |v: &[i64]| AttrValue::List(v.iter().map(|&i| AttrValue::Int(i)).collect());
            (
                "relax.nn.conv2d",
                vec![args[data].clone(), args[weight].clone()],
                Attrs::new()
                    .with("strides", list(&strides))
                    .with("padding", list(&padding))
                    .with("dilation", list(&dilation))
                    .with("groups", AttrValue::Int(groups))
                    .with("data_layout", AttrValue::Str("NCHW".into()))
                    .with("kernel_layout", AttrValue::Str("OIHW".into()))
                    .with("out_layout", AttrValue::Str("NCHW".into())),
            )
        }
    };
    let arg_sis: Vec<StructInfo> = operands
        .iter()
        .map(|e| operand_si(e).cloned())
        .collect::<Option<_>>()?;
    let raised_call = crate::op::make_call(op, operands, attrs, Vec::new()).ok()?;
    let inferred = crate::op::infer_call(raised_call.as_call()?, &arg_sis).ok()?;
    let same = inferred.tensor_dtype() == Some(dt)
        && matches!(
            (inferred.tensor_shape(), out_si.tensor_shape()),
            (Some(x), Some(y)) if shapes_equal(x, y)
        );
    if !same {
        return None;
    }
    bindings.push(Binding::Var {
        var: var.clone(),
        value: raised_call,
    });
    Some(bindings)
}

/// Binds the extents of `buf` to those of a tensor passed for it: a constant extent must be the
/// same constant, a variable extent the same expression wherever the variable occurs; any other
/// extent expression is not matched.
fn bind_extents(buf: &Buffer, shape: &[PrimExpr], sizes: &mut HashMap<TirVarId, PrimExpr>) -> bool {
    if buf.shape.len() != shape.len() {
        return false;
    }
    buf.shape.iter().zip(shape).all(|(b, s)| match b.kind() {
        TirExpr::IntImm { value, .. } => s.as_int() == Some(*value),
        TirExpr::Var(v) => match sizes.get(&v.id()) {
            Some(prev) => Analyzer::new().prove_equal(prev, s),
            None => {
                sizes.insert(v.id(), s.clone());
                true
            }
        },
        _ => false,
    })
}

/// What `f` computes, if it is one of the recognized forms (see the module docs).
pub fn recognize(f: &PrimFunc) -> Option<Raised> {
    let [_, _, _] = &f.params[..] else {
        return None;
    };
    let bufs: Vec<&Buffer> = f
        .params
        .iter()
        .map(|p| f.buffer_of(p))
        .collect::<Option<_>>()?;
    let dt = bufs[2].dtype;
    if dt != DataType::FLOAT32 && dt != DataType::FLOAT64 {
        return None;
    }
    if !bufs.iter().all(|b| b.dtype == dt && compact(b)) {
        return None;
    }
    let StmtKind::SBlockRealize(root) = f.body.kind() else {
        return None;
    };
    let rb = &root.block;
    if !root.iter_values.is_empty()
        || !root.predicate.is_one()
        || !rb.iter_vars.is_empty()
        || rb.init.is_some()
    {
        return None;
    }
    match &rb.alloc_buffers[..] {
        [] => matmul(&rb.body, &bufs),
        [pad_temp] => conv2d(&rb.body, &bufs, pad_temp),
        _ => None,
    }
}

/// A global, compact (row-major, offset 0) buffer.
fn compact(b: &Buffer) -> bool {
    b.strides.is_empty() && b.elem_offset.is_zero() && b.scope == "global"
}

/// The block under `s`: a perfect nest of serial loops from 0, one per iteration variable of
/// the block, each loop's variable the value of the iteration variable in its position, whose
/// kinds are `kinds` (`S` spatial, `R` reduction) and domains `[0, extent)` of their loops; no
/// predicate, no allocation.
fn nest<'s>(s: &'s Stmt, kinds: &str) -> Option<&'s SBlock> {
    let mut loops = Vec::new();
    let mut at = s;
    let realize = loop {
        match at.kind() {
            StmtKind::For(f) => {
                if f.kind != ForKind::Serial
                    || !f.min.is_zero()
                    || f.thread_binding.is_some()
                    || !f.annotations.is_empty()
                {
                    return None;
                }
                loops.push(f);
                at = &f.body;
            }
            StmtKind::SBlockRealize(r) => break r,
            _ => return None,
        }
    };
    let block = &realize.block;
    if !realize.predicate.is_one()
        || !block.alloc_buffers.is_empty()
        || block.iter_vars.len() != kinds.len()
        || loops.len() != kinds.len()
        || realize.iter_values.len() != kinds.len()
    {
        return None;
    }
    let an = Analyzer::new();
    for (((iv, value), l), kind) in block
        .iter_vars
        .iter()
        .zip(&realize.iter_values)
        .zip(&loops)
        .zip(kinds.chars())
    {
        let want = match kind {
            'S' => IterVarKind::Spatial,
            _ => IterVarKind::Reduce,
        };
        if iv.kind != want
            || value.as_var().map(TirVar::id) != Some(l.loop_var.id())
            || !iv.dom.min.is_zero()
            || !an.prove_equal(&iv.dom.extent, &l.extent)
        {
            return None;
        }
    }
    Some(block)
}

/// An analyzer that knows the iteration domains of `block`.
fn analyzer(block: &SBlock) -> Analyzer {
    let mut an = Analyzer::new();
    for iv in &block.iter_vars {
        an.bind(&iv.var, iv.dom.clone());
    }
    an
}

fn is_var(e: &PrimExpr, v: &TirVar) -> bool {
    e.as_var().is_some_and(|x| x.id() == v.id())
}

fn are_vars(es: &[PrimExpr], vs: &[TirVar]) -> bool {
    es.len() == vs.len() && es.iter().zip(vs).all(|(e, v)| is_var(e, v))
}

/// A buffer load: the buffer and its indices.
type Load<'e> = (&'e Buffer, &'e [PrimExpr]);

fn as_load(e: &PrimExpr) -> Option<Load<'_>> {
    match e.kind() {
        TirExpr::BufferLoad { buffer, indices } => Some((buffer, indices)),
        _ => None,
    }
}

/// A floating-point `+0.0` of type `dt`.
fn is_float_zero(e: &PrimExpr, dt: DataType) -> bool {
    matches!(e.kind(), TirExpr::FloatImm { dtype, value } if *dtype == dt && *value == 0.0 && value.is_sign_positive())
}

/// The two loads `x`, `y` of a reduction block `out[s…] = out[s…] + x * y` whose `init` is
/// `out[s…] = 0`, `s…` being `spatial` in order (either order of the sum and of the product:
/// both are exact in IEEE arithmetic).
fn multiply_accumulate<'b>(
    block: &'b SBlock,
    out: &Buffer,
    spatial: &[TirVar],
) -> Option<[Load<'b>; 2]> {
    let StmtKind::BufferStore {
        buffer,
        value,
        indices,
    } = block.init.as_ref()?.kind()
    else {
        return None;
    };
    if buffer != out || !are_vars(indices, spatial) || !is_float_zero(value, out.dtype) {
        return None;
    }
    let StmtKind::BufferStore {
        buffer,
        value,
        indices,
    } = block.body.kind()
    else {
        return None;
    };
    if buffer != out || !are_vars(indices, spatial) {
        return None;
    }
    let TirExpr::Binary {
        op: BinaryOp::Add,
        a,
        b,
    } = value.kind()
    else {
        return None;
    };
    let is_acc =
        |e: &PrimExpr| as_load(e).is_some_and(|(buf, idx)| buf == out && are_vars(idx, spatial));
    let product = match (is_acc(a), is_acc(b)) {
        (true, false) => b,
        (false, true) => a,
        _ => return None,
    };
    let TirExpr::Binary {
        op: BinaryOp::Mul,
        a: x,
        b: y,
    } = product.kind()
    else {
        return None;
    };
    if x.dtype() != out.dtype || y.dtype() != out.dtype {
        return None;
    }
    Some([as_load(x)?, as_load(y)?])
}

/// The position of `buf` among the input parameters (`bufs` without the output).
fn input_index(bufs: &[&Buffer], buf: &Buffer) -> Option<usize> {
    bufs[..bufs.len() - 1].iter().position(|b| *b == buf)
}

fn matmul(body: &Stmt, bufs: &[&Buffer]) -> Option<Raised> {
    let out = bufs[2];
    let rank = out.ndim();
    if rank < 1 {
        return None;
    }
    let kinds = format!("{}R", "S".repeat(rank));
    let block = nest(body, &kinds)?;
    let vars: Vec<TirVar> = block.iter_vars.iter().map(|iv| iv.var.clone()).collect();
    let (spatial, k) = (&vars[..rank], &vars[rank]);
    let an = analyzer(block);
    let extents_ok = block.iter_vars[..rank]
        .iter()
        .zip(&out.shape)
        .all(|(iv, e)| an.prove_equal(&iv.dom.extent, e));
    if !extents_ok {
        return None;
    }
    let k_extent = &block.iter_vars[rank].dom.extent;
    let loads = multiply_accumulate(block, out, spatial)?;
    for (x, y) in [(loads[0], loads[1]), (loads[1], loads[0])] {
        let (Some(a), Some(b)) = (input_index(bufs, x.0), input_index(bufs, y.0)) else {
            continue;
        };
        if a == b {
            continue;
        }
        for trans_b in [false, true] {
            let m = Matmul {
                an: &an,
                out,
                spatial,
                k,
                k_extent,
            };
            if m.operands_match(x, y, trans_b) {
                return Some(Raised::Matmul { a, b, trans_b });
            }
        }
    }
    None
}

/// The output side of a matmul block, against which the operands are matched.
struct Matmul<'m> {
    an: &'m Analyzer,
    out: &'m Buffer,
    spatial: &'m [TirVar],
    k: &'m TirVar,
    k_extent: &'m PrimExpr,
}

impl Matmul<'_> {
    /// Whether `a[…, s_m, k] * b[…, k, s_n]` (`b[…, s_n, k]` with `trans_b`) is the product of
    /// a matmul into `out`; a 1-D operand is indexed by `k` alone, and the output has no axis
    /// for it (numpy's matrix-vector product).
    fn operands_match(&self, (a, ai): Load<'_>, (b, bi): Load<'_>, trans_b: bool) -> bool {
        let r = self.spatial.len();
        let (ra, rb) = (a.ndim(), b.ndim());
        let (has_m, has_n) = (ra >= 2, rb >= 2);
        let matrix_axes = usize::from(has_m) + usize::from(has_n);
        if matrix_axes == 0
            || ai.len() != ra
            || bi.len() != rb
            || (trans_b && !has_n)
            || r < matrix_axes
        {
            return false;
        }
        let batch = r - matrix_axes;
        if ra.saturating_sub(2) > batch || rb.saturating_sub(2) > batch {
            return false;
        }
        let eq = |x: &PrimExpr, y: &PrimExpr| self.an.prove_equal(x, y);
        let a_ok = if has_m {
            is_var(&ai[ra - 2], &self.spatial[batch])
                && eq(&a.shape[ra - 2], &self.out.shape[batch])
        } else {
            ra == 1
        };
        let b_ok = if has_n {
            let (b_k, b_n) = if trans_b {
                (rb - 1, rb - 2)
            } else {
                (rb - 2, rb - 1)
            };
            is_var(&bi[b_k], self.k)
                && eq(&b.shape[b_k], self.k_extent)
                && is_var(&bi[b_n], &self.spatial[r - 1])
                && eq(&b.shape[b_n], &self.out.shape[r - 1])
        } else {
            rb == 1 && is_var(&bi[0], self.k) && eq(&b.shape[0], self.k_extent)
        };
        a_ok && b_ok
            && is_var(&ai[ra - 1], self.k)
            && eq(&a.shape[ra - 1], self.k_extent)
            && self.batch_match(a, ai, batch)
            && self.batch_match(b, bi, batch)
    }

    /// Whether the batch indices of an operand are the output's first `batch` ones,
    /// right-aligned, or 0 where the operand's extent is 1 (broadcast).
    fn batch_match(&self, buf: &Buffer, idx: &[PrimExpr], batch: usize) -> bool {
        let own = buf.ndim().saturating_sub(2);
        (0..own).all(|j| {
            let i = batch - own + j;
            if buf.shape[j].as_int() == Some(1) {
                self.an
                    .prove_equal(&idx[j], &PrimExpr::int(idx[j].dtype(), 0))
            } else {
                is_var(&idx[j], &self.spatial[i])
                    && self.an.prove_equal(&buf.shape[j], &self.out.shape[i])
            }
        })
    }
}

/// The integer extents of a buffer, if all are constants.
fn static_extents<const N: usize>(b: &Buffer) -> Option<[i64; N]> {
    let v: Vec<i64> = b
        .shape
        .iter()
        .map(PrimExpr::as_int)
        .collect::<Option<_>>()?;
    v.try_into().ok()
}

fn conv2d(body: &Stmt, bufs: &[&Buffer], pad_temp: &Buffer) -> Option<Raised> {
    let StmtKind::Seq(stmts) = body.kind() else {
        return None;
    };
    let [pad_nest, conv_nest] = &stmts[..] else {
        return None;
    };
    let out = bufs[2];
    if pad_temp.dtype != out.dtype || !compact(pad_temp) || pad_temp.ndim() != 4 || out.ndim() != 4
    {
        return None;
    }
    // The reduction block and its operands.
    let conv = nest(conv_nest, "SSSSRRR")?;
    let v: Vec<TirVar> = conv.iter_vars.iter().map(|iv| iv.var.clone()).collect();
    let [nn, ff, yy, xx, rc, ry, rx] = &v[..] else {
        return None;
    };
    let loads = multiply_accumulate(conv, out, &v[..4])?;
    let (padded, (wbuf, widx)) = match loads {
        [p, w] | [w, p] if p.0 == pad_temp && w.0 != pad_temp => (p.1, w),
        _ => return None,
    };
    let weight = input_index(bufs, wbuf)?;
    let data = 1 - weight;
    let x = bufs[data];
    if !are_vars(widx, &[ff.clone(), rc.clone(), ry.clone(), rx.clone()]) {
        return None;
    }
    let [o, cg, kh, kw] = static_extents::<4>(wbuf)?;
    let [_, o2, oh, ow] = &out.shape[..] else {
        return None;
    };
    let [_, c, h, w] = &x.shape[..] else {
        return None;
    };
    let (c, h, w) = (c.as_int()?, h.as_int()?, w.as_int()?);
    let (oh, ow) = (oh.as_int()?, ow.as_int()?);
    let [_, pc, ph, pw] = &pad_temp.shape[..] else {
        return None;
    };
    let (pc, ph, pw) = (pc.as_int()?, ph.as_int()?, pw.as_int()?);
    let an = analyzer(conv);
    let batch = &x.shape[0];
    let extents = [
        batch.clone(),
        o2.clone(),
        PrimExpr::i64(oh),
        PrimExpr::i64(ow),
    ]
    .into_iter()
    .chain([cg, kh, kw].map(PrimExpr::i64));
    let extents_ok = conv
        .iter_vars
        .iter()
        .zip(extents)
        .all(|(iv, e)| an.prove_equal(&iv.dom.extent, &e))
        && o2.as_int() == Some(o)
        && an.prove_equal(&out.shape[0], batch)
        && an.prove_equal(&pad_temp.shape[0], batch)
        && pc == c;
    if !extents_ok || cg < 1 || c % cg != 0 {
        return None;
    }
    let groups = c / cg;
    if o % groups != 0 {
        return None;
    }
    // pad_temp[nn, ff // (O/G) * (C/G) + rc, yy*sh + ry*dh, xx*sw + rx*dw]
    let [pn, pchan, prow, pcol] = padded else {
        return None;
    };
    let dt = pchan.dtype();
    let want_chan = PrimExpr::binary(
        BinaryOp::Add,
        PrimExpr::binary(
            BinaryOp::Mul,
            PrimExpr::binary(
                BinaryOp::FloorDiv,
                PrimExpr::from(ff),
                PrimExpr::int(dt, o / groups),
            ),
            PrimExpr::int(dt, cg),
        ),
        PrimExpr::from(rc),
    );
    if !is_var(pn, nn) || !an.prove_equal(pchan, &want_chan) {
        return None;
    }
    let (sh, dh) = window(prow, yy, ry, oh, kh)?;
    let (sw, dw) = window(pcol, xx, rx, ow, kw)?;
    // The copy with padding.
    let [pt, pl] = pad_copy(pad_nest, pad_temp, x)?;
    let (pb, pr) = (ph - h - pt, pw - w - pl);
    if pb < 0 || pr < 0 {
        return None;
    }
    if conv_extent(ph, kh, sh, dh)? != oh || conv_extent(pw, kw, sw, dw)? != ow {
        return None;
    }
    Some(Raised::Conv2d {
        data,
        weight,
        strides: [sh, sw],
        padding: [pt, pl, pb, pr],
        dilation: [dh, dw],
        groups,
    })
}

/// The extent of a convolution's output along an axis of `padded` elements, if the window
/// fits at least once.
fn conv_extent(padded: i64, k: i64, stride: i64, dilation: i64) -> Option<i64> {
    let reach = padded.checked_sub(dilation.checked_mul(k - 1)?)? - 1;
    (reach >= 0).then(|| reach / stride + 1)
}

/// `(stride, dilation)` of a window index `out·stride + red·dilation` (both at least 1; a
/// variable whose extent is 1 may be missing, its factor then 1).
fn window(
    idx: &PrimExpr,
    out: &TirVar,
    red: &TirVar,
    out_extent: i64,
    k: i64,
) -> Option<(i64, i64)> {
    let p = Polynomial::of(idx)?;
    let (mut stride, mut dilation) = (None, None);
    for (m, coeff) in p.terms() {
        match m {
            [v] if *v == out.id() => stride = Some(coeff),
            [v] if *v == red.id() => dilation = Some(coeff),
            _ => return None,
        }
    }
    let stride = stride.or((out_extent == 1).then_some(1))?;
    let dilation = dilation.or((k == 1).then_some(1))?;
    (stride >= 1 && dilation >= 1).then_some((stride, dilation))
}

/// The padding before the rows and the columns (`[top, left]`) of the block that copies `x`
/// into `pad_temp` with zeros around it: `pad_temp[i0, i1, i2, i3] = x[i0, i1, i2 - top, i3 -
/// left]` where the element is inside `x` and 0 elsewhere, as `T.if_then_else(inside, …, 0)`
/// whose test is proved true on the copied rectangle and false everywhere else.
fn pad_copy(s: &Stmt, pad_temp: &Buffer, x: &Buffer) -> Option<[i64; 2]> {
    let block = nest(s, "SSSS")?;
    let vars: Vec<TirVar> = block.iter_vars.iter().map(|iv| iv.var.clone()).collect();
    if block.init.is_some() {
        return None;
    }
    let StmtKind::BufferStore {
        buffer,
        value,
        indices,
    } = block.body.kind()
    else {
        return None;
    };
    if buffer != pad_temp || !are_vars(indices, &vars) {
        return None;
    }
    let (load, test) = match value.kind() {
        TirExpr::Call { op, args, dtype } if op == "if_then_else" && *dtype == x.dtype => {
            let [test, then, zero] = &args[..] else {
                return None;
            };
            if !is_float_zero(zero, x.dtype) {
                return None;
            }
            (as_load(then)?, Some(test))
        }
        _ => (as_load(value)?, None),
    };
    let (buf, idx) = load;
    if buf != x || idx.len() != 4 || !is_var(&idx[0], &vars[0]) || !is_var(&idx[1], &vars[1]) {
        return None;
    }
    let an = analyzer(block);
    if !block
        .iter_vars
        .iter()
        .zip(&pad_temp.shape)
        .all(|(iv, e)| an.prove_equal(&iv.dom.extent, e))
        || !an.prove_equal(&pad_temp.shape[1], &x.shape[1])
    {
        return None;
    }
    // i - before, per spatial axis.
    let mut before = [0; 2];
    for (d, b) in before.iter_mut().enumerate() {
        let shifted =
            Polynomial::of(&idx[2 + d])?.checked_add(&Polynomial::var(vars[2 + d].id()), -1)?;
        *b = shifted.as_const()?.checked_neg()?;
        if *b < 0 {
            return None;
        }
    }
    let inner = [x.shape[2].as_int()?, x.shape[3].as_int()?];
    let outer = [pad_temp.shape[2].as_int()?, pad_temp.shape[3].as_int()?];
    let Some(test) = test else {
        return (before == [0, 0] && inner == outer).then_some(before);
    };
    // True on the rectangle `x` covers ...
    let region = |ranges: [(i64, i64); 2]| {
        let mut an = analyzer(block);
        for (d, (lo, hi)) in ranges.into_iter().enumerate() {
            let v = &vars[2 + d];
            an.bind(
                v,
                Range::new(
                    PrimExpr::int(v.dtype(), lo),
                    PrimExpr::int(v.dtype(), hi - lo),
                ),
            );
        }
        an
    };
    let inside = [
        (before[0], before[0] + inner[0]),
        (before[1], before[1] + inner[1]),
    ];
    if !region(inside).can_prove(test) {
        return None;
    }
    // ... and false on the bands around it.
    let not_test = PrimExpr::new(TirExpr::Not(test.clone()));
    for d in 0..2 {
        for band in [(0, before[d]), (before[d] + inner[d], outer[d])] {
            if band.0 >= band.1 {
                continue;
            }
            let mut ranges = [(0, outer[0]), (0, outer[1])];
            ranges[d] = band;
            if !region(ranges).can_prove(&not_test) {
                return None;
            }
        }
    }
    Some(before)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prim_func(src: &str) -> PrimFunc {
        let m = crate::parse_module(src).expect("parses");
        let (_, f) = m.prim_funcs().next().expect("a PrimFunc");
        f.clone()
    }

    #[test]
    fn recognizes_topi_matmul() {
        let f = prim_func(
            r#"
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def matmul(a: T.Buffer((T.int64(3), T.int64(4)), "float32"), b: T.Buffer((T.int64(4), T.int64(5)), "float32"), matmul: T.Buffer((T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        for i0, i1, k in T.grid(T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a[v_i0, v_k], b[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a[v_i0, v_k] * b[v_k, v_i1]
"#,
        );
        assert_eq!(
            recognize(&f),
            Some(Raised::Matmul {
                a: 0,
                b: 1,
                trans_b: false
            })
        );
    }
}
