//! Lowering passes that take a PrimFunc as TVM prints it (blocks, multi-dimensional buffers,
//! symbolic shapes) to the form code generation consumes: plain loops over flat buffers, plus a
//! description of how each parameter is checked and which symbolic variables it binds.
//!
//! [`lower`] runs the pipeline: [`lower_sblocks`] → [`hoist_reduction_init`] → flattening
//! ([`Flatten`]) → [`drop_unit_loops`] → [`skip_empty_nests`]. The result, a [`LoweredFunc`], guarantees:
//! * no `SBlockRealize` remains;
//! * every `BufferLoad`/`BufferStore` has exactly one `int64` index into a one-dimensional
//!   buffer whose `data` variable is a parameter's or an `Allocate`'s, and whose single shape
//!   expression is the number of addressable elements;
//! * every free variable of the body is bound by [`LoweredFunc::params`] (a scalar parameter,
//!   or a symbolic dimension bound from an argument's shape).
//!
//! Passes do no IO and never panic on user input: unsupported constructs are [`LowerError`]s.

mod decompose_reduction;
mod empty_nests;
mod flatten;
mod inline;
mod interchange;
mod lower_sblocks;
pub mod mutator;
mod simplify_indices;

use std::collections::{HashMap, HashSet};
use std::fmt;

pub use decompose_reduction::decompose_empty_reductions;
pub use empty_nests::{nest_guard, skip_empty_nests};
pub use flatten::{Flatten, add, mul, numel, to_i64};
pub use inline::inline_elementwise;
pub use interchange::{affine_coef, has_load, interchange_reductions};
pub use lower_sblocks::{flatten_seq, hoist_reduction_init, lower_sblocks};
pub use mutator::COPY_NODES;
pub use simplify_indices::{simplify_block_indices, simplify_indices};

use crate::ir::{Buffer, DataType, ExprKind, PrimExpr, PrimFunc, Stmt, StmtKind, Var, VarId};
use crate::transform::mutator::Mutator;

/// Why a function cannot be lowered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    /// The function.
    pub func: String,
    /// What is not supported.
    pub message: String,
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot lower `{}`: {}", self.func, self.message)
    }
}

impl std::error::Error for LowerError {}

/// How one dimension (or stride) of an argument is treated by the kernel prologue.
#[derive(Clone, Debug)]
pub enum DimRule {
    /// The first occurrence of a symbolic variable: the argument's value binds it.
    Bind(Var),
    /// Anything else: the argument's value must equal the expression (over constants and
    /// variables bound by `Bind` rules of any parameter).
    Check(PrimExpr),
}

/// A buffer parameter.
#[derive(Clone, Debug)]
pub struct BufferParam {
    /// The data pointer variable the lowered body addresses memory through.
    pub data: Var,
    /// Element type.
    pub dtype: DataType,
    /// The declared shape, for messages.
    pub shape: Vec<PrimExpr>,
    /// One rule per dimension.
    pub dims: Vec<DimRule>,
    /// One rule per stride if the buffer declares strides (checked against the argument's
    /// compact row-major strides), else empty.
    pub strides: Vec<DimRule>,
    /// The flat view the body accesses (its one dimension is the element count).
    pub flat: Buffer,
}

/// What a parameter is.
#[derive(Clone, Debug)]
pub enum ParamKind {
    /// A tensor.
    Buffer(BufferParam),
    /// A scalar (`n: T.int64`): the argument's value binds the variable.
    Scalar(Var),
}

/// One parameter of a lowered function.
#[derive(Clone, Debug)]
pub struct Param {
    /// The parameter's name, for messages.
    pub name: String,
    /// Its kind.
    pub kind: ParamKind,
}

/// A function ready for code generation (see the module doc for its invariants).
#[derive(Clone, Debug)]
pub struct LoweredFunc {
    /// The PrimFunc's name.
    pub name: String,
    /// The symbol the function is linked under (`global_symbol`, or the name).
    pub symbol: String,
    /// Parameters in call order.
    pub params: Vec<Param>,
    /// The body: loops over flat buffers.
    pub body: Stmt,
    /// `tirx.is_host_func` (shape functions).
    pub is_host_func: bool,
    /// `tirx.noalias`: distinct buffer parameters do not overlap.
    pub no_alias: bool,
}

impl LoweredFunc {
    /// Every variable a [`DimRule::Bind`] or scalar parameter binds, in binding order.
    pub fn bound_vars(&self) -> Vec<Var> {
        let mut out = Vec::new();
        for p in &self.params {
            match &p.kind {
                ParamKind::Scalar(v) => out.push(v.clone()),
                ParamKind::Buffer(b) => {
                    for r in b.dims.iter().chain(&b.strides) {
                        if let DimRule::Bind(v) = r {
                            out.push(v.clone());
                        }
                    }
                }
            }
        }
        out
    }
}

fn rule(e: &PrimExpr, bound: &mut HashSet<VarId>) -> DimRule {
    if let ExprKind::Var(v) = e.kind()
        && bound.insert(v.id())
    {
        return DimRule::Bind(v.clone());
    }
    DimRule::Check(e.clone())
}

/// Lowers `func` (see the module doc).
pub fn lower(func: &PrimFunc) -> Result<LoweredFunc, LowerError> {
    let fail = |message: String| LowerError {
        func: func.name.clone(),
        message,
    };
    let mut bound: HashSet<VarId> = HashSet::new();
    // Element offsets of parameters are fixed at 0 by the kernel ABI (the data pointer is the
    // first element).
    let mut fixed: HashMap<VarId, PrimExpr> = HashMap::new();
    let mut params = Vec::new();
    let mut flatten_bound: HashMap<VarId, PrimExpr> = HashMap::new();
    for (_, b) in &func.buffer_map {
        if let ExprKind::Var(v) = b.elem_offset.kind() {
            flatten_bound.insert(v.id(), PrimExpr::int(v.dtype(), 0));
        }
    }
    let mut flatten = Flatten::new(&flatten_bound);
    for p in &func.params {
        let Some(b) = func.buffer_of(p) else {
            if p.dtype().is_handle() {
                return Err(fail(format!(
                    "parameter `{}` is a handle without a buffer",
                    p.name()
                )));
            }
            bound.insert(p.id());
            params.push(Param {
                name: p.name().to_string(),
                kind: ParamKind::Scalar(p.clone()),
            });
            continue;
        };
        match b.elem_offset.kind() {
            ExprKind::Var(v) => {
                fixed.insert(v.id(), PrimExpr::int(v.dtype(), 0));
            }
            _ if b.elem_offset.as_int() == Some(0) => {}
            _ => {
                return Err(fail(format!(
                    "buffer `{}` has element offset {}; only 0 or a variable is supported",
                    b.name, b.elem_offset
                )));
            }
        }
        let dims = b.shape.iter().map(|d| rule(d, &mut bound)).collect();
        let strides = b.strides.iter().map(|s| rule(s, &mut bound)).collect();
        params.push(Param {
            name: p.name().to_string(),
            kind: ParamKind::Buffer(BufferParam {
                data: b.data.clone(),
                dtype: b.dtype,
                shape: b.shape.clone(),
                dims,
                strides,
                flat: flatten.flat(b),
            }),
        });
    }
    let body = remove_assume(&func.body);
    let body = lower_sblocks(&body);
    let body = hoist_reduction_init(&body);
    let body = flatten.stmt(&body);
    let body = mutator::substitute_stmt(&body, &fixed);
    let body = drop_unit_loops(&body);
    let body = skip_empty_nests(&body);
    Ok(LoweredFunc {
        name: func.name.clone(),
        symbol: func.global_symbol().unwrap_or(&func.name).to_string(),
        params,
        body,
        is_host_func: func.is_host_func(),
        no_alias: func.no_alias(),
    })
}

/// Every `T.assume(cond)` statement becomes a no-op (TVM's `RemoveAssume`): an assumption is
/// for analyses, and its condition (which may read out of the buffer's bounds, as a padding
/// assumption does) is not evaluated.
pub fn remove_assume(s: &Stmt) -> Stmt {
    struct Remove;
    impl Mutator for Remove {
        fn stmt(&mut self, s: &Stmt) -> Stmt {
            if let StmtKind::Evaluate(e) = s.kind()
                && let ExprKind::Call { op, .. } = e.kind()
                && op == "assume"
            {
                return Stmt::no_op();
            }
            mutator::walk_stmt(self, s)
        }
    }
    Remove.stmt(s)
}

/// `for v in range(m, m + 1): body` becomes `body` with `v` replaced by `m`. A batch axis of
/// extent 1 (`T.grid(1, 1000, 13, 13)`) would otherwise be the outermost loop, the only one
/// code generation considers for running in parallel (TVM leaves such loops to LLVM, which
/// removes them). Iteration order and values are unchanged.
///
/// Outer loops are replaced first, so that an inner loop's `m` is measured with the outer
/// replacements in it: an `m` of more than [`COPY_NODES`] tree nodes that the body reads more
/// than once is bound once by a `LetStmt` (nested unit loops whose starts read the enclosing
/// loop's variable three times grew the tree threefold per loop).
pub fn drop_unit_loops(s: &Stmt) -> Stmt {
    struct Drop;
    impl Mutator for Drop {
        fn stmt(&mut self, s: &Stmt) -> Stmt {
            if let StmtKind::For(f) = s.kind()
                && f.extent.as_int() == Some(1)
                && f.thread_binding.is_none()
            {
                let (replacement, binding) = mutator::bind_once(&f.loop_var, f.min.clone(), || {
                    mutator::read_more_than_once(&f.body, &f.loop_var)
                });
                let at = HashMap::from([(f.loop_var.id(), replacement)]);
                let body = self.stmt(&mutator::substitute_stmt(&f.body, &at));
                return match binding {
                    Some((var, value)) => Stmt::new(StmtKind::LetStmt { var, value, body }),
                    None => body,
                };
            }
            mutator::walk_stmt(self, s)
        }
    }
    Drop.stmt(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_batch_loop_leaves_the_channel_loop_outermost() {
        let src = r#"
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def add_one(a: T.Buffer((T.int64(1), T.int64(8), T.int64(3)), "float32"), b: T.Buffer((T.int64(1), T.int64(8), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for n, c, w in T.grid(T.int64(1), T.int64(8), T.int64(3)):
            with T.sblock("b"):
                v_n, v_c, v_w = T.axis.remap("SSS", [n, c, w])
                b[v_n, v_c, v_w] = a[v_n, v_c, v_w] + T.float32(1.0)
"#;
        let funcs = crate::script::parse_module_prim_funcs(src).unwrap();
        let lowered = lower(&funcs[0]).unwrap();
        let mut extents = Vec::new();
        lowered.body.visit(&mut |s| {
            if let StmtKind::For(f) = s.kind() {
                extents.push(f.extent.as_int());
            }
        });
        assert_eq!(extents, [Some(8), Some(3)], "{:?}", lowered.body);
    }

    /// Tree nodes of every expression of `s` (a subexpression shared `k` times counts `k`
    /// times, as a tree walk sees it).
    fn tree_nodes(s: &Stmt) -> usize {
        let mut n = 0;
        s.visit(&mut |st| {
            for e in st.exprs() {
                e.visit(&mut |_| n += 1);
            }
        });
        n
    }

    /// Gathers nested `depth` deep: `A[0, A[0, … A[0, 0] …]]` of a 2-D `A`.
    fn nested_gather(depth: usize) -> PrimFunc {
        let mut e = "A[0, 0]".to_string();
        for _ in 0..depth {
            e = format!("A[0, {e} % 4]");
        }
        let src = format!(
            r#"
@T.prim_func
def gather(A: T.Buffer((4, 4), "int32"), B: T.Buffer((1,), "int32")):
    T.func_attr({{"tirx.noalias": True}})
    B[0] = {e}
"#
        );
        crate::script::parse_module_prim_funcs(&src)
            .unwrap()
            .remove(0)
    }

    /// Flattening checks a gathered index against its dimension by reading it once through a
    /// `T.Let` (the bound in `Flatten::access`'s docs): the lowered tree grows linearly with
    /// the nesting depth, where reading the index five times made it grow sixfold per level.
    #[test]
    fn flattening_nested_gathers_grows_the_tree_linearly() {
        for depth in [1, 2, 4, 8] {
            let func = nested_gather(depth);
            let before = tree_nodes(&func.body);
            let lowered = lower(&func).unwrap();
            let after = tree_nodes(&lowered.body);
            assert!(
                after <= 8 * before + 16,
                "depth {depth}: {before} nodes became {after}"
            );
            let mut lets = 0;
            lowered.body.visit(&mut |st| {
                for e in st.exprs() {
                    e.visit(&mut |x| lets += matches!(x.kind(), ExprKind::Let { .. }) as usize);
                }
            });
            assert_eq!(lets, depth, "one dimension check per gather");
        }
    }

    /// `f(A, B)` of 16 floats whose body is `body` (indented for the function).
    fn func_of(body: &str, sblocks: bool) -> PrimFunc {
        let attr = if sblocks { "(s_tir=True)" } else { "" };
        let src = format!(
            r#"
@T.prim_func{attr}
def f(A: T.Buffer((T.int64(16),), "float32"), B: T.Buffer((T.int64(16),), "float32")):
    T.func_attr({{"tirx.noalias": True}})
{body}"#
        );
        crate::script::parse_module_prim_funcs(&src)
            .unwrap()
            .remove(0)
    }

    /// The binding of level `k` reads the previous level's variable `p` three times.
    fn thrice(p: &str) -> String {
        format!("({p} * T.int64(3) + {p} // T.int64(2) + {p}) % T.int64(16)")
    }

    /// Blocks nested `depth` deep, each binding its iteration variable to [`thrice`] the
    /// enclosing block's.
    fn nested_blocks(depth: usize) -> PrimFunc {
        let mut s = String::from("    for i in range(T.int64(16)):\n");
        let mut ind = "        ".to_string();
        let mut prev = "i".to_string();
        for k in 0..=depth {
            let value = if k == 0 { prev.clone() } else { thrice(&prev) };
            s += &format!("{ind}with T.sblock(\"b{k}\"):\n");
            ind += "    ";
            s += &format!("{ind}v{k} = T.axis.spatial(T.int64(16), {value})\n");
            prev = format!("v{k}");
        }
        s += &format!("{ind}B[{prev}] = A[{prev}] + A[{prev}]\n");
        func_of(&s, true)
    }

    /// Unit loops nested `depth` deep, each starting at [`thrice`] the enclosing loop's
    /// variable.
    fn nested_unit_loops(depth: usize) -> PrimFunc {
        let mut s = String::from("    for i0 in range(T.int64(16)):\n");
        let mut ind = "        ".to_string();
        for k in 1..=depth {
            let m = thrice(&format!("i{}", k - 1));
            s += &format!("{ind}for i{k} in range({m}, {m} + T.int64(1)):\n");
            ind += "    ";
        }
        s += &format!("{ind}B[i{depth}] = A[i{depth}] + A[i{depth}]\n");
        func_of(&s, false)
    }

    /// Elementwise diamonds `depth` deep, each step `t_k = t_{k-1} * 2 + t_{k-1} * 3` through
    /// two intermediates (a fused chain as FuseTIR writes it).
    fn diamonds(depth: usize) -> PrimFunc {
        let mut s = String::from("    t0 = T.sblock_alloc_buffer((T.int64(16),))\n");
        for k in 1..=depth {
            for n in ["a", "b", "t"] {
                s += &format!("    {n}{k} = T.sblock_alloc_buffer((T.int64(16),))\n");
            }
        }
        let stmt = |out: &str, value: &str| {
            format!(
                "    for i in range(T.int64(16)):\n        with T.sblock(\"{out}\"):\n            v = T.axis.spatial(T.int64(16), i)\n            {out}[v] = {value}\n"
            )
        };
        s += &stmt("t0", "A[v] + T.float32(1.0)");
        for k in 1..=depth {
            let p = k - 1;
            s += &stmt(&format!("a{k}"), &format!("t{p}[v] * T.float32(2.0)"));
            s += &stmt(&format!("b{k}"), &format!("t{p}[v] * T.float32(3.0)"));
            s += &stmt(&format!("t{k}"), &format!("a{k}[v] + b{k}[v]"));
        }
        s += &stmt("B", &format!("t{depth}[v]"));
        func_of(&s, true)
    }

    /// Lowering (and, for `inline`, inlining first) keeps the tree within a constant factor of
    /// the input's for every depth: substituting a binding read three times into the next
    /// binding, level after level, grew it threefold per level (depth 12: hundreds of
    /// thousands of nodes, and a compile of half a minute).
    fn assert_linear(what: &str, make: fn(usize) -> PrimFunc, inline: bool) {
        for depth in [1, 2, 4, 8, 12, 16] {
            let func = make(depth);
            let before = tree_nodes(&func.body);
            let func = if inline {
                crate::transform::inline_elementwise(&func)
            } else {
                func
            };
            let after = tree_nodes(&lower(&func).unwrap().body);
            assert!(
                after <= 8 * before + 64,
                "{what}, depth {depth}: {before} nodes became {after}"
            );
        }
    }

    #[test]
    fn lowering_nested_block_bindings_grows_the_tree_linearly() {
        assert_linear("nested blocks", nested_blocks, false);
    }

    #[test]
    fn dropping_nested_unit_loops_grows_the_tree_linearly() {
        assert_linear("nested unit loops", nested_unit_loops, false);
    }

    #[test]
    fn inlining_elementwise_diamonds_grows_the_tree_linearly() {
        assert_linear("diamonds", diamonds, true);
    }

    /// Small bindings (`T.axis.remap`, split loops) are still substituted: no `LetStmt` for
    /// them, so the index analyses of code generation see the loop variables.
    #[test]
    fn small_bindings_are_substituted() {
        let func = nested_blocks(1);
        let lowered = lower(&func).unwrap();
        let mut lets = 0;
        lowered
            .body
            .visit(&mut |s| lets += matches!(s.kind(), StmtKind::LetStmt { .. }) as usize);
        assert_eq!(lets, 0, "{:?}", lowered.body);
        let deep = lower(&nested_blocks(4)).unwrap();
        let mut lets = 0;
        deep.body
            .visit(&mut |s| lets += matches!(s.kind(), StmtKind::LetStmt { .. }) as usize);
        assert!(lets >= 1, "{:?}", deep.body);
    }
}
