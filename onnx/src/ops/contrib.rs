//! onnxruntime's contrib operators (domain `com.microsoft`) that transformer exports use, as
//! TVM's frontend imports them: BiasGelu, FastGelu, SkipLayerNormalization,
//! EmbedLayerNormalization and Attention.

use relax::ir::{AttrValue, Attrs, Expr};
use tir::{DataType, PrimExpr};

use super::{attrs, dtype_of, ints, rank, shape_expr, shape_of};
use crate::error::Result;
use crate::importer::{Importer, Val, scalar};
use crate::node::Node;

/// The contrib operators the importer converts (domain `com.microsoft`).
pub const CONTRIB_OPS: &[&str] = &[
    "Attention",
    "BiasGelu",
    "EmbedLayerNormalization",
    "FastGelu",
    "SkipLayerNormalization",
];

pub(crate) fn convert(imp: &mut Importer, node: &Node) -> Result<Vec<Val>> {
    let one = |v: Val| Ok(vec![v]);
    match node.op {
        "BiasGelu" => {
            let s = imp.op0("relax.add", &[node.input(0)?, node.input(1)?])?;
            one(imp.op0("relax.nn.gelu", &[&s])?)
        }
        "FastGelu" => {
            let x = match node.opt_input(1) {
                Some(b) => imp.op0("relax.add", &[node.input(0)?, b])?,
                None => node.input(0)?.clone(),
            };
            one(imp.op0("relax.nn.gelu_tanh", &[&x])?)
        }
        "SkipLayerNormalization" => skip_layer_norm(imp, node),
        "EmbedLayerNormalization" => embed_layer_norm(imp, node),
        "Attention" => one(attention(imp, node)?),
        _ => Err(node.unsupported("contrib operator is not supported")),
    }
}

/// `layer_norm` over the last axis with `gamma` and `beta` (zeros when absent).
fn last_axis_norm(
    imp: &mut Importer,
    node: &Node,
    x: &Val,
    gamma: &Val,
    beta: Option<&Val>,
) -> Result<Val> {
    let eps = node.attr_f("epsilon", 1e-12)? as f64;
    let r = rank(node, x)?;
    let beta = match beta {
        Some(b) => b.clone(),
        None => imp.op("relax.zeros_like", vec![gamma.expr.clone()], Attrs::new())?,
    };
    imp.op(
        "relax.nn.layer_norm",
        vec![x.expr.clone(), gamma.expr.clone(), beta.expr],
        attrs(&[
            ("axes", ints(&[r as i64 - 1])),
            ("epsilon", AttrValue::Float(eps)),
        ]),
    )
}

/// `layer_norm(input + skip + bias)`; the sum is the fourth output. The mean and inverse
/// standard deviation outputs are not computed (an error if a later node reads them).
fn skip_layer_norm(imp: &mut Importer, node: &Node) -> Result<Vec<Val>> {
    let mut s = imp.op0("relax.add", &[node.input(0)?, node.input(1)?])?;
    if let Some(b) = node.opt_input(4) {
        s = imp.op0("relax.add", &[&s, b])?;
    }
    let y = last_axis_norm(imp, node, &s, node.input(2)?, node.opt_input(3))?;
    let n_out = node.proto.output.len();
    for k in 1..n_out.min(3) {
        if !node.proto.output[k].is_empty() {
            return Err(node.unsupported(format!("output {k} (mean, inverse standard deviation)")));
        }
    }
    // Outputs 1 and 2 are unnamed here (checked above), so their slots are never bound.
    Ok(if n_out > 3 {
        vec![y.clone(), y.clone(), y, s]
    } else {
        vec![y]
    })
}

/// Word, position (`0..S` without position ids) and segment embeddings summed and
/// normalized; the mask index is the number of ones per row of the mask (zeros without one),
/// and the embedding sum the third output.
fn embed_layer_norm(imp: &mut Importer, node: &Node) -> Result<Vec<Val>> {
    let ids = node.input(0)?;
    let s = shape_of(node, ids)?;
    if s.len() != 2 {
        return Err(node.invalid("input_ids must be (batch, sequence)"));
    }
    let mask_type = node.attr_i("mask_index_type", 1)?;
    if mask_type != 1 {
        return Err(node.unsupported(format!("mask_index_type {mask_type}")));
    }
    let take = |imp: &mut Importer, table: &Val, ind: &Val| {
        imp.op(
            "relax.take",
            vec![table.expr.clone(), ind.expr.clone()],
            attrs(&[("axis", AttrValue::Int(0))]),
        )
    };
    let word = take(imp, node.input(2)?, ids)?;
    let pos_ids = match node.opt_input(8) {
        Some(p) => p.clone(),
        None => {
            let r = imp.op(
                "relax.arange",
                vec![
                    Expr::prim(PrimExpr::i64(0)),
                    Expr::prim(s[1].clone()),
                    Expr::prim(PrimExpr::i64(1)),
                ],
                attrs(&[("dtype", AttrValue::DType(DataType::INT64))]),
            )?;
            imp.op(
                "relax.expand_dims",
                vec![r.expr.clone()],
                attrs(&[("axis", ints(&[0]))]),
            )?
        }
    };
    let pos = take(imp, node.input(3)?, &pos_ids)?;
    let mut sum = imp.op0("relax.add", &[&word, &pos])?;
    match (node.opt_input(1), node.opt_input(4)) {
        (Some(seg), Some(table)) => {
            let v = take(imp, table, seg)?;
            sum = imp.op0("relax.add", &[&sum, &v])?;
        }
        (None, None) => {}
        _ => {
            return Err(node.invalid("segment_ids and segment_embedding must be given together"));
        }
    }
    let ln = last_axis_norm(imp, node, &sum, node.input(5)?, Some(node.input(6)?))?;
    let mask_index = match node.opt_input(7) {
        Some(m) => {
            let m32 = imp.op(
                "relax.astype",
                vec![m.expr.clone()],
                attrs(&[("dtype", AttrValue::DType(DataType::INT32))]),
            )?;
            imp.op(
                "relax.sum",
                vec![m32.expr.clone()],
                attrs(&[("axis", ints(&[1])), ("keepdims", AttrValue::Bool(false))]),
            )?
        }
        None => imp.op(
            "relax.zeros",
            vec![shape_expr(vec![s[0].clone()])],
            attrs(&[("dtype", AttrValue::DType(DataType::INT32))]),
        )?,
    };
    Ok(vec![ln, mask_index, sum])
}

/// Multi-head self-attention over a packed Q/K/V projection: `softmax(Q K^T * scale +
/// mask + attention_bias) V` per head. The mask is a raw `(B, S)` or `(B, S, S)` mask whose
/// non-positive entries add `mask_filter_value`, as onnxruntime reads it; past state,
/// rotary embeddings and unidirectional (causal) attention are rejected, as by TVM.
fn attention(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let w = node.input(1)?;
    let heads = node
        .opt_i("num_heads")?
        .ok_or_else(|| node.invalid("attribute `num_heads` is missing"))?;
    for (name, what) in [
        ("unidirectional", "unidirectional (causal) attention"),
        ("do_rotary", "rotary embeddings"),
        ("past_present_share_buffer", "a shared past/present buffer"),
    ] {
        if node.attr_i(name, 0)? != 0 {
            return Err(node.unsupported(what));
        }
    }
    if node.opt_input(4).is_some() || node.opt_input(6).is_some() {
        return Err(node.unsupported("past key and value state"));
    }
    for k in 1..node.proto.output.len() {
        if !node.proto.output[k].is_empty() {
            return Err(node.unsupported("the present state output"));
        }
    }
    let filter = node.attr_f("mask_filter_value", -10000.0)? as f64;
    let xs = shape_of(node, x)?;
    let ws = w.static_shape().filter(|s| s.len() == 2);
    let (Some(ws), 3) = (ws, xs.len()) else {
        return Err(node.unsupported(
            "an input that is not (batch, sequence, hidden) or weights of unknown shape",
        ));
    };
    let (hq, hk, hv) = match node.attr_ints("qkv_hidden_sizes")? {
        Some(v) if v.len() == 3 => (v[0], v[1], v[2]),
        Some(v) => return Err(node.invalid(format!("qkv_hidden_sizes {v:?} (three sizes)"))),
        None => (ws[1] / 3, ws[1] / 3, ws[1] / 3),
    };
    if hq != hk || hq + hk + hv != ws[1] || heads <= 0 || hq % heads != 0 || hv % heads != 0 {
        return Err(node.invalid(format!(
            "hidden sizes {hq}, {hk}, {hv} do not fit weights {ws:?} and {heads} heads"
        )));
    }
    let (hd, hdv) = (hq / heads, hv / heads);
    let dt = dtype_of(node, x)?;
    let scale = match node.opt_f("scale")? {
        Some(s) if s != 0.0 => s as f64,
        _ => 1.0 / (hd as f64).sqrt(),
    };
    let (b, s) = (xs[0].clone(), xs[1].clone());
    let mut qkv = imp.op0("relax.matmul", &[x, w])?;
    if let Some(bias) = node.opt_input(2) {
        qkv = imp.op0("relax.add", &[&qkv, bias])?;
    }
    let parts = imp.op(
        "relax.split",
        vec![qkv.expr.clone()],
        attrs(&[
            ("indices_or_sections", ints(&[hq, hq + hk])),
            ("axis", AttrValue::Int(2)),
        ]),
    )?;
    // (B, S, heads * d) -> (B, heads, S, d), or (B, heads, d, S) for K.
    let head = |imp: &mut Importer, i: usize, d: i64, perm: &[i64]| -> Result<Val> {
        let p = imp.emit(Expr::new(relax::ir::ExprKind::TupleGetItem(
            parts.expr.clone(),
            i,
        )))?;
        let r = imp.op(
            "relax.reshape",
            vec![
                p.expr.clone(),
                shape_expr(vec![
                    b.clone(),
                    s.clone(),
                    PrimExpr::i64(heads),
                    PrimExpr::i64(d),
                ]),
            ],
            Attrs::new(),
        )?;
        imp.op(
            "relax.permute_dims",
            vec![r.expr.clone()],
            attrs(&[("axes", ints(perm))]),
        )
    };
    let q = head(imp, 0, hd, &[0, 2, 1, 3])?;
    let k = head(imp, 1, hd, &[0, 2, 3, 1])?;
    let v = head(imp, 2, hdv, &[0, 2, 1, 3])?;
    let qk = imp.op0("relax.matmul", &[&q, &k])?;
    let mut scores = imp.op0("relax.multiply", &[&qk, &scalar(scale, dt)?])?;
    if let Some(m) = node.opt_input(3) {
        let mr = rank(node, m)?;
        if mr != 2 && mr != 3 {
            return Err(node.unsupported(format!(
                "a rank-{mr} mask_index (raw (B, S) and (B, S, S) masks only)"
            )));
        }
        let mdt = dtype_of(node, m)?;
        let keep = imp.op0("relax.greater", &[m, &scalar(0.0, mdt)?])?;
        let add = imp.op0(
            "relax.where",
            &[&keep, &scalar(0.0, dt)?, &scalar(filter, dt)?],
        )?;
        let mut dims = vec![b.clone(), PrimExpr::i64(1)];
        if mr == 2 {
            dims.push(PrimExpr::i64(1));
        }
        dims.extend(shape_of(node, m)?[1..].iter().cloned());
        let add = imp.op(
            "relax.reshape",
            vec![add.expr.clone(), shape_expr(dims)],
            Attrs::new(),
        )?;
        scores = imp.op0("relax.add", &[&scores, &add])?;
    }
    if let Some(ab) = node.opt_input(5) {
        scores = imp.op0("relax.add", &[&scores, ab])?;
    }
    let p = imp.op(
        "relax.nn.softmax",
        vec![scores.expr.clone()],
        attrs(&[("axis", AttrValue::Int(-1))]),
    )?;
    let o = imp.op0("relax.matmul", &[&p, &v])?;
    let o = imp.op(
        "relax.permute_dims",
        vec![o.expr.clone()],
        attrs(&[("axes", ints(&[0, 2, 1, 3]))]),
    )?;
    imp.op(
        "relax.reshape",
        vec![o.expr.clone(), shape_expr(vec![b, s, PrimExpr::i64(hv)])],
        Attrs::new(),
    )
}
