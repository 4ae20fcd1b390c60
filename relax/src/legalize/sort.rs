//! Sorting and scans, as TVM's `DispatchSortScan` lowers them for CPU: `sort`, `argsort` and
//! `topk` call the runtime's `tvm.contrib.sort.*` packed functions from an opaque block
//! (`T.call_packed` on `T.tvm_stack_make_array` descriptors); `cumsum`/`cumprod` are a
//! `T.parallel` loop over the rows with a serial scan inside.

use tir::{Buffer, BufferNode, CmpOp, DataType, ForKind, PrimExpr, Stmt, StmtKind, Var};

use super::te::{self, Te};
use super::{Lowered, OpCall, Result, Rule, TArg, unsupported};

pub(super) fn rule(name: &str) -> Option<Rule> {
    let r: Rule = match name {
        "sort" => sort,
        "argsort" => argsort,
        "topk" => topk,
        "cumsum" => |c| scan(c, false),
        "cumprod" => |c| scan(c, true),
        _ => return None,
    };
    Some(r)
}

/// A compact buffer with TVM's extern-op alignment (8).
fn extern_buffer(name: &str, shape: &[PrimExpr], dtype: DataType) -> Buffer {
    let b = te::placeholder(name, shape, dtype);
    Buffer::new(BufferNode {
        data_alignment: 8,
        ..(*b).clone()
    })
}

/// `T.tvm_stack_make_array(buf.data, T.tvm_stack_make_shape(dims), 0, ndim, witness, 0)`.
fn make_array(b: &Buffer, int64_dims: bool) -> PrimExpr {
    let dims: Vec<PrimExpr> = b
        .shape
        .iter()
        .map(|d| match (int64_dims, d.as_int()) {
            (false, Some(v)) => PrimExpr::i32(v as i32),
            _ => d.clone(),
        })
        .collect();
    let shape = PrimExpr::call(DataType::HANDLE, "tvm_stack_make_shape", dims);
    // The witness carries the element dtype the runtime reads the array as (an int64
    // indices buffer must not be described as int32).
    let witness = te::zero(b.dtype);
    let offset = if int64_dims {
        te::i64c(0)
    } else {
        PrimExpr::i32(0)
    };
    PrimExpr::call(
        DataType::HANDLE,
        "tvm_stack_make_array",
        vec![
            PrimExpr::from(&b.data),
            shape,
            PrimExpr::i32(0),
            PrimExpr::i32(b.shape.len() as i32),
            witness,
            offset,
        ],
    )
}

fn packed(name: &str, args: Vec<PrimExpr>) -> Stmt {
    let mut all = vec![PrimExpr::string(name)];
    all.extend(args);
    Stmt::new(StmtKind::Evaluate(PrimExpr::call(
        DataType::INT32,
        "call_packed",
        all,
    )))
}

fn input(c: &OpCall) -> Result<TArg> {
    let x = c.tensor(0)?;
    Ok(TArg {
        buf: extern_buffer("data_buf", x.shape(), x.dtype()),
        expr: x.expr,
    })
}

fn axis_of(c: &OpCall, ndim: usize) -> i64 {
    let a = c.attr_int("axis").unwrap_or(-1);
    if a < 0 { a + ndim as i64 } else { a }
}

fn sort(c: &OpCall) -> Result<Lowered> {
    let x = input(c)?;
    let axis = axis_of(c, x.ndim());
    let asc = !c.attr_bool("descending").unwrap_or(false);
    let out = extern_buffer("out_buf", x.shape(), x.dtype());
    let mut te = Te::new();
    te.opaque(
        "sort_cpu",
        vec![out.clone()],
        packed(
            "tvm.contrib.sort.sort",
            vec![
                make_array(&x.buf, true),
                make_array(&out, true),
                PrimExpr::i32(axis as i32),
                PrimExpr::bool(asc),
            ],
        ),
    );
    c.finish("sort", te, &[&x], &[out])
}

fn argsort(c: &OpCall) -> Result<Lowered> {
    let x = input(c)?;
    let axis = axis_of(c, x.ndim());
    let asc = !c.attr_bool("descending").unwrap_or(false);
    let (_, dt) = c.out_tensor()?;
    let out = extern_buffer("out_buf", x.shape(), dt);
    let mut te = Te::new();
    te.opaque(
        "argsort_cpu",
        vec![out.clone()],
        packed(
            "tvm.contrib.sort.argsort",
            vec![
                make_array(&x.buf, true),
                make_array(&out, true),
                PrimExpr::i32(axis as i32),
                PrimExpr::bool(asc),
            ],
        ),
    );
    c.finish("argsort", te, &[&x], &[out])
}

fn topk(c: &OpCall) -> Result<Lowered> {
    let x = input(c)?;
    let axis = c.attr_int("axis").unwrap_or(-1);
    let k = c.attr_int("k").unwrap_or(1);
    let largest = c.attr_bool("largest").unwrap_or(true);
    let ret = c.attr_str("ret_type").unwrap_or("both").to_string();
    let sinfos: Vec<crate::ir::StructInfo> = match &c.out {
        crate::ir::StructInfo::Tuple(items) => items.clone(),
        other => vec![other.clone()],
    };
    let names: &[&str] = match ret.as_str() {
        "both" => &["value_buf", "indices_buf"],
        "values" => &["value_buf"],
        "indices" => &["indices_buf"],
        _ => return unsupported(format!("topk ret_type {ret:?}")),
    };
    if sinfos.len() != names.len() {
        return unsupported("topk result arity");
    }
    let mut bufs = Vec::new();
    for (si, n) in sinfos.iter().zip(names) {
        let (Some(shape), Some(dt)) = (si.tensor_shape(), si.tensor_dtype()) else {
            return unsupported("topk result of unknown shape");
        };
        bufs.push(extern_buffer(n, shape, dt));
    }
    let mut args = vec![make_array(&x.buf, true)];
    args.extend(bufs.iter().map(|b| make_array(b, false)));
    args.push(PrimExpr::i32(k as i32));
    args.push(PrimExpr::i32(axis as i32));
    args.push(PrimExpr::string(ret));
    args.push(PrimExpr::bool(!largest));
    let mut te = Te::new();
    te.opaque(
        "topk_cpu",
        bufs.clone(),
        packed("tvm.contrib.sort.topk", args),
    );
    c.finish("topk", te, &[&x], &bufs)
}

/// Row-major indices of flat position `f` in `shape`.
fn unravel(f: &PrimExpr, shape: &[PrimExpr]) -> Vec<PrimExpr> {
    let n = shape.len();
    (0..n)
        .map(|d| {
            let inner = te::product(&shape[d + 1..]);
            let q = te::floordiv(f.clone(), inner);
            if d == 0 {
                q
            } else {
                te::floormod(q, shape[d].clone())
            }
        })
        .collect()
}

fn scan(c: &OpCall, prod: bool) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let (out_shape, dt) = c.out_tensor()?;
    let exclusive = c.attr_bool("exclusive").unwrap_or(false);
    let axis = match c.attr("axis") {
        Some(crate::ir::AttrValue::None) | None => None,
        Some(v) => v.as_int(),
    };
    // Scan over a flattened view: `rows` independent scans of length `n` with stride `post`
    // (topi's `axis_mul_before * axis_mul_after` scans; not `numel / n`, which divides by
    // zero over an empty axis).
    let (n, post, rows) = match axis {
        None => (te::product(x.shape()), te::i64c(1), te::i64c(1)),
        Some(a) => {
            let a = if a < 0 { a + x.ndim() as i64 } else { a } as usize;
            let post = te::product(&x.shape()[a + 1..]);
            (
                x.shape()[a].clone(),
                post.clone(),
                te::mul(te::product(&x.shape()[..a]), post),
            )
        }
    };
    let out = te::placeholder("out_buf", &out_shape, dt);
    let v = Var::new("v", DataType::INT64);
    let j = Var::new("v", DataType::INT64);
    let (vv, jv) = (PrimExpr::from(&v), PrimExpr::from(&j));
    // Flat position of element `k` of row `v`.
    let pos = |k: PrimExpr| {
        te::add(
            te::add(
                te::mul(
                    te::floordiv(vv.clone(), post.clone()),
                    te::mul(n.clone(), post.clone()),
                ),
                te::floormod(vv.clone(), post.clone()),
            ),
            te::mul(k, post.clone()),
        )
    };
    let xin = |p: &PrimExpr| te::cast(dt, te::load(&x.buf, unravel(p, x.shape())));
    let oat = |p: &PrimExpr| unravel(p, &out_shape);
    let identity = if prod { te::one(dt) } else { te::zero(dt) };
    let comb = |a: PrimExpr, b: PrimExpr| if prod { te::mul(a, b) } else { te::add(a, b) };
    let p0 = pos(te::i64c(0));
    let first = te::store(&out, oat(&p0), if exclusive { identity } else { xin(&p0) });
    let k = te::add(jv.clone(), te::i64c(1));
    let pk = pos(k.clone());
    let prev = pos(te::sub(k, te::i64c(1)));
    let src = if exclusive { xin(&prev) } else { xin(&pk) };
    let step = te::store(&out, oat(&pk), comb(te::load(&out, oat(&prev)), src));
    let inner = te::for_loop(&j, te::sub(n.clone(), te::i64c(1)), ForKind::Serial, step);
    let mut row = Stmt::seq(vec![first, inner]);
    // A scan over an empty axis has no first element to store (topi stores it regardless,
    // out of bounds); the guard is left out where `n` is a positive constant, as in TVM.
    if n.as_int().is_none_or(|n| n <= 0) {
        row = Stmt::new(StmtKind::IfThenElse {
            cond: te::cmp(CmpOp::Gt, n.clone(), te::i64c(0)),
            then_case: row,
            else_case: None,
        });
    }
    let body = te::for_loop(&v, rows, ForKind::Parallel, row);
    let mut te = Te::new();
    te.opaque(
        if prod {
            "cumprod_generic"
        } else {
            "cumsum_generic"
        },
        vec![out.clone()],
        body,
    );
    c.finish(if prod { "cumprod" } else { "cumsum" }, te, &[&x], &[out])
}
