//! DecomposeReduction for reductions that may take no steps: TVM's `decompose_reduction`
//! schedule primitive, applied to every reduction nest whose reduction extent is not a
//! positive constant.
//!
//! TVM runs a block's `T.init()` when its reduction iteration variables are at their minimum
//! (`LowerInitBlock`; here [`lower_sblocks`](super::lower_sblocks)), so a reduction over an
//! empty axis (`R.sum(x, axis=[1])` with `x` of shape `(3, 0)`, or of shape `(3, m)` at
//! `m = 0`) never runs its init and leaves the output holding whatever the memory held. As an
//! operator's result that is wrong: a reduction over nothing is its init (0 for sum, 1 for
//! prod, the lowest value for max, ...). The decomposed form
//!
//! ```text
//! for ax0 in range(n):
//!     with T.sblock("x_red_init"): x_red[v_ax0_init] = 0
//!     for k1 in range(m):
//!         with T.sblock("x_red_update"): x_red[v_ax0] = x_red[v_ax0] + x[v_ax0, v_k1]
//! ```
//!
//! runs the init once per output element before the reduction steps, even when there are none
//! — in TVM's semantics too, so the rewrite is a plain schedule a TVM user would recognise.
//! Where every reduction extent is a positive constant both forms compute the same, and the
//! nest is left as TVM's legalization prints it.
//!
//! LegalizeOps applies it to the PrimFuncs it generates (operators have defined results);
//! PrimFuncs a user writes keep TVM's semantics (the caller decides). A nest qualifies when
//! (checked by [`decompose`]): loops nested perfectly around one `SBlockRealize` without a
//! predicate, whose iteration values are the loop variables in loop order, spatial ones first
//! and the reduction ones innermost, with a `T.init()` that does not read the reduction
//! variables. Other nests are left unchanged.

use std::collections::HashMap;

use crate::ir::{
    BufferRegion, For, IterVar, IterVarKind, PrimExpr, Range, SBlock, SBlockRealize, Stmt,
    StmtKind, Var,
};
use crate::transform::mutator::{Mutator, substitute, substitute_stmt, walk_stmt};

/// Decomposes every qualifying reduction nest of `body` whose reduction may be empty (see the
/// module doc).
pub fn decompose_empty_reductions(body: &Stmt) -> Stmt {
    Decompose.stmt(body)
}

struct Decompose;

impl Mutator for Decompose {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        if let StmtKind::For(_) = s.kind()
            && let Some(out) = decompose(s)
        {
            return out;
        }
        walk_stmt(self, s)
    }
}

/// The decomposed form of the loop nest `s`, if it qualifies and its reduction may be empty.
fn decompose(s: &Stmt) -> Option<Stmt> {
    let mut loops: Vec<&For> = Vec::new();
    let mut cur = s;
    let realize = loop {
        match cur.kind() {
            StmtKind::For(f) => {
                loops.push(f);
                cur = &f.body;
            }
            StmtKind::SBlockRealize(r) => break r,
            _ => return None,
        }
    };
    let block = &realize.block;
    let init = block.init.as_ref()?;
    if realize.predicate.as_int() != Some(1)
        || block.iter_vars.len() != loops.len()
        || realize.iter_values.len() != loops.len()
    {
        return None;
    }
    for (value, f) in realize.iter_values.iter().zip(&loops) {
        if value.as_var() != Some(&f.loop_var) {
            return None;
        }
    }
    let n_spatial = block
        .iter_vars
        .iter()
        .take_while(|iv| iv.kind == IterVarKind::Spatial)
        .count();
    let reduce = &block.iter_vars[n_spatial..];
    if reduce.is_empty() || reduce.iter().any(|iv| iv.kind != IterVarKind::Reduce) {
        return None;
    }
    if loops[n_spatial..]
        .iter()
        .all(|f| f.extent.as_int().is_some_and(|e| e > 0))
    {
        return None;
    }
    if reduce.iter().any(|iv| stmt_uses(init, &iv.var)) {
        return None;
    }
    // The init block binds variables of its own (a block variable belongs to one block).
    let mut rename = HashMap::new();
    let init_iters: Vec<IterVar> = block.iter_vars[..n_spatial]
        .iter()
        .map(|iv| {
            let var = Var::new(format!("{}_init", iv.var.name()), iv.var.dtype());
            rename.insert(iv.var.id(), PrimExpr::from(&var));
            IterVar {
                var,
                dom: iv.dom.clone(),
                kind: IterVarKind::Spatial,
            }
        })
        .collect();
    let init_writes = block
        .writes
        .iter()
        .map(|w| BufferRegion {
            buffer: w.buffer.clone(),
            region: w
                .region
                .iter()
                .map(|r| Range::new(substitute(&r.min, &rename), substitute(&r.extent, &rename)))
                .collect(),
        })
        .collect();
    let init = Stmt::new(StmtKind::SBlockRealize(SBlockRealize {
        iter_values: realize.iter_values[..n_spatial].to_vec(),
        predicate: realize.predicate.clone(),
        block: SBlock {
            name: format!("{}_init", block.name),
            iter_vars: init_iters,
            reads: Vec::new(),
            writes: init_writes,
            init: None,
            alloc_buffers: Vec::new(),
            annotations: Default::default(),
            body: substitute_stmt(init, &rename),
        },
    }));
    let update = Stmt::new(StmtKind::SBlockRealize(SBlockRealize {
        iter_values: realize.iter_values.clone(),
        predicate: realize.predicate.clone(),
        block: SBlock {
            name: format!("{}_update", block.name),
            init: None,
            ..block.clone()
        },
    }));
    let wrap = |body: Stmt, loops: &[&For]| {
        loops.iter().rev().fold(body, |body, f| {
            Stmt::new(StmtKind::For(For {
                body,
                ..(*f).clone()
            }))
        })
    };
    let reduction = wrap(update, &loops[n_spatial..]);
    Some(wrap(Stmt::seq(vec![init, reduction]), &loops[..n_spatial]))
}

fn stmt_uses(s: &Stmt, v: &Var) -> bool {
    let mut found = false;
    s.visit(&mut |st| {
        for e in st.exprs() {
            found |= e.uses_var(&|x| x == v);
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp;

    const ROW_SUM: &str = r#"
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def row_sum(var_x: T.handle, var_y: T.handle):
        T.func_attr({"tirx.noalias": True})
        n = T.int64()
        m = T.int64()
        x = T.match_buffer(var_x, (n, m))
        y = T.match_buffer(var_y, (n,))
        for ax0, k1 in T.grid(n, m):
            with T.sblock("y"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(x[v_ax0, v_k1])
                T.writes(y[v_ax0])
                with T.init():
                    y[v_ax0] = T.float32(0.0)
                y[v_ax0] = y[v_ax0] + x[v_ax0, v_k1]
"#;

    const DECOMPOSED: &str = r#"
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def row_sum(var_x: T.handle, var_y: T.handle):
        T.func_attr({"tirx.noalias": True})
        n = T.int64()
        m = T.int64()
        x = T.match_buffer(var_x, (n, m))
        y = T.match_buffer(var_y, (n,))
        for ax0 in range(n):
            with T.sblock("y_init"):
                v_ax0_init = T.axis.spatial(n, ax0)
                T.reads()
                T.writes(y[v_ax0_init])
                y[v_ax0_init] = T.float32(0.0)
            for k1 in range(m):
                with T.sblock("y_update"):
                    v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                    T.reads(x[v_ax0, v_k1])
                    T.writes(y[v_ax0])
                    y[v_ax0] = y[v_ax0] + x[v_ax0, v_k1]
"#;

    fn parse(src: &str) -> crate::PrimFunc {
        crate::script::parse_module_prim_funcs(src)
            .unwrap()
            .remove(0)
    }

    #[test]
    fn a_symbolic_reduction_becomes_init_and_update_blocks() {
        let mut f = parse(ROW_SUM);
        f.body = decompose_empty_reductions(&f.body);
        let want = parse(DECOMPOSED);
        let printed = crate::print_prim_func(&f);
        assert!(crate::structural_diff(&f, &want).is_none(), "{printed}");
        // The decomposed form prints and parses back (TVMScript round trip).
        let module = crate::script::print_module_prim_funcs(std::slice::from_ref(&f));
        assert!(
            crate::structural_diff(&parse(&module), &f).is_none(),
            "{module}"
        );
    }

    #[test]
    fn a_reduction_over_positive_constant_extents_is_left_as_it_is() {
        let src = ROW_SUM
            .replace("(n, m)", "(n, T.int64(4))")
            .replace("T.grid(n, m)", "T.grid(n, T.int64(4))");
        let f = parse(&src);
        let g = crate::PrimFunc {
            body: decompose_empty_reductions(&f.body),
            ..f.clone()
        };
        assert!(crate::structural_diff(&g, &f).is_none());
        assert!(!crate::print_prim_func(&g).contains("_init"));
    }

    /// Over an empty axis the decomposed kernel writes the init; TVM's block form leaves the
    /// output as it was (the interpreter, like TVM, runs the init only at the first step).
    #[test]
    fn over_an_empty_axis_the_output_is_the_init() {
        let f = parse(ROW_SUM);
        let decomposed = crate::PrimFunc {
            body: decompose_empty_reductions(&f.body),
            ..f.clone()
        };
        let run = |f: &crate::PrimFunc| {
            let mut y: Vec<u8> = [7.0f32; 3].iter().flat_map(|v| v.to_le_bytes()).collect();
            let mut args = [
                interp::InterpArg::Buffer {
                    data: &mut [],
                    shape: vec![3, 0],
                    dtype: crate::DataType::FLOAT32,
                },
                interp::InterpArg::Buffer {
                    data: &mut y,
                    shape: vec![3],
                    dtype: crate::DataType::FLOAT32,
                },
            ];
            interp::run(f, &mut args).unwrap();
            y.chunks(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect::<Vec<f32>>()
        };
        assert_eq!(run(&f), [7.0; 3]);
        assert_eq!(run(&decomposed), [0.0; 3]);
    }
}
