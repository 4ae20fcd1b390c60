//! FuseOps: TVM's graph partitioning of dataflow blocks (`src/relax/transform/fuse_ops.cc`).
//! Each group of fusable bindings becomes a private Relax function with the attribute
//! `Primitive` (named `fused_<prim_func>_<prim_func>...`), called where the group's last
//! binding was; FuseTIR then merges each such function into one PrimFunc.
//!
//! The algorithm is TVM's: a forward graph of the dataflow bindings of a function (`call_tir`
//! nodes take the callee's `op_pattern`, `TupleGetItem` is injective, anything else opaque;
//! non-dataflow variables are external references), its post-dominator tree, and three
//! phases of union-find merging of each node into its post-dominator when every path between
//! them satisfies the pattern rules: out-elemwise-fusable ops (matmul, conv) take elementwise
//! epilogues through broadcast paths, elementwise/broadcast ops fuse into injective or
//! reduction consumers, injective ops (phase 1) fuse into injective consumers; no merge makes
//! a group of more than [`MAX_FUSED_OPS`] operators.
//!
//! Invariants: only dataflow blocks change; a group's function takes the values it uses from
//! outside as parameters, in first-use order (tensor constants, rank 0 included, become
//! `param_<k>` as in TVM, so that FuseTIR sees only variables; a `TupleGetItem` of an outside
//! tuple becomes the parameter `<tuple>_<index>`); groups that FuseTIR could not merge (non-tensor or unknown-shape
//! parameters, `call_tir` with `tir_vars`, non-`call_tir` calls) are left unfused;
//! structurally equal group functions are shared.

use std::collections::{HashMap, HashSet};

use crate::Result;
use crate::ir::{
    AttrValue, Attrs, BaseFunc, Binding, BindingBlock, Callee, Expr, ExprKind, Function, IRModule,
    SeqExpr, StructInfo, Var, VarId,
};
use crate::structural_eq::function_diff;
use crate::transform::annotate_tir_op_pattern::{
    BROADCAST, COMM_REDUCE, ELEM_WISE, INJECTIVE, OPAQUE, OUT_EWISE_FUSABLE, TUPLE, pattern_of,
};
use crate::transform::{Subst, struct_info_of, substitute, substitute_binding};

// ----- the forward graph and its post-dominator tree ---------------------------------------

struct Node {
    outputs: Vec<(usize, i64)>,
    pattern: i64,
    extern_ref: bool,
}

#[derive(Default)]
struct Graph {
    nodes: Vec<Node>,
    index: HashMap<VarId, usize>,
}

impl Graph {
    fn node(&mut self, v: &Var, pattern: i64) -> usize {
        let i = self.nodes.len();
        self.nodes.push(Node {
            outputs: Vec::new(),
            pattern,
            extern_ref: false,
        });
        self.index.insert(v.id(), i);
        i
    }

    /// An edge from the value `leaf` (a variable, or the fields of a tuple) to `to`.
    fn leaf(&mut self, leaf: &Expr, to: usize, pattern: i64) {
        match leaf.kind() {
            ExprKind::Tuple(fields) => {
                for f in fields {
                    self.leaf(f, to, pattern);
                }
            }
            ExprKind::Var(v) => {
                let from = match self.index.get(&v.id()) {
                    Some(&i) => i,
                    None => self.node(v, OPAQUE),
                };
                self.nodes[from].outputs.push((to, pattern));
            }
            // Constants and other leaves never fuse; their nodes would only be opaque sources.
            _ => {}
        }
    }

    fn binding(&mut self, b: &Binding, module: &IRModule) {
        let var = b.var();
        let Binding::Var { value, .. } = b else {
            self.node(var, OPAQUE);
            return;
        };
        // The node is created after its inputs, as TVM adds leaves to the post-DFS order first.
        let mut edges: Vec<(Expr, i64)> = Vec::new();
        let pattern = match value.kind() {
            ExprKind::Call(c) if c.op() == Some("relax.call_tir") => {
                let pattern = match c.args.first().map(|a| a.kind()) {
                    Some(ExprKind::GlobalVar(g)) => pattern_of(module, g),
                    _ => OPAQUE,
                };
                if let Some(args) = c.args.get(1) {
                    edges.push((args.clone(), pattern));
                }
                pattern
            }
            ExprKind::Call(c) => {
                for a in &c.args {
                    edges.push((a.clone(), OPAQUE));
                }
                OPAQUE
            }
            ExprKind::TupleGetItem(t, _) => {
                edges.push((t.clone(), INJECTIVE));
                INJECTIVE
            }
            _ => {
                let mut vars = Vec::new();
                collect_vars(value, &mut vars);
                for v in vars {
                    edges.push((Expr::var(&v), OPAQUE));
                }
                OPAQUE
            }
        };
        // Leaves first (they may create nodes), then this node, then the edges.
        for (e, _) in &edges {
            self.touch(e);
        }
        let me = self.node(var, pattern);
        self.nodes[me].extern_ref = !var.is_dataflow();
        for (e, p) in edges {
            self.leaf(&e, me, p);
        }
    }

    fn touch(&mut self, e: &Expr) {
        match e.kind() {
            ExprKind::Tuple(fields) => fields.iter().for_each(|f| self.touch(f)),
            ExprKind::Var(v) if !self.index.contains_key(&v.id()) => {
                self.node(v, OPAQUE);
            }
            _ => {}
        }
    }
}

/// Every variable used in `e` (not inside nested functions), in order.
fn collect_vars(e: &Expr, out: &mut Vec<Var>) {
    crate::ir::visit::operand_var_uses(e, &mut |v| out.push(v.clone()));
}

struct DomNode {
    parent: Option<usize>,
    depth: usize,
    pattern: i64,
}

fn post_dominators(g: &Graph) -> Vec<DomNode> {
    let n = g.nodes.len();
    let mut tree: Vec<DomNode> = (0..n)
        .map(|_| DomNode {
            parent: None,
            depth: 1,
            pattern: OPAQUE,
        })
        .collect();
    for i in (0..n).rev() {
        let node = &g.nodes[i];
        if node.extern_ref {
            continue;
        }
        let mut pattern = ELEM_WISE;
        let mut parent: Option<usize> = None;
        for (k, &(o, p)) in node.outputs.iter().enumerate() {
            parent = if k == 0 {
                Some(o)
            } else {
                lca(&tree, parent, Some(o), &mut pattern)
            };
            pattern = pattern.max(p);
        }
        tree[i].depth = parent.map(|p| tree[p].depth + 1).unwrap_or(1);
        tree[i].parent = parent;
        tree[i].pattern = pattern;
    }
    tree
}

fn lca(
    tree: &[DomNode],
    mut a: Option<usize>,
    mut b: Option<usize>,
    pattern: &mut i64,
) -> Option<usize> {
    while a != b {
        let (x, y) = (a?, b?);
        if tree[x].depth < tree[y].depth {
            *pattern = (*pattern).max(tree[y].pattern);
            b = tree[y].parent;
        } else if tree[y].depth < tree[x].depth {
            *pattern = (*pattern).max(tree[x].pattern);
            a = tree[x].parent;
        } else {
            *pattern = (*pattern).max(tree[x].pattern).max(tree[y].pattern);
            a = tree[x].parent;
            b = tree[y].parent;
        }
    }
    a
}

// ----- the partitioner ---------------------------------------------------------------------

/// The most operators one fused group holds: TVM's default for `relax.FuseOps.max_depth`
/// (`kMaxFusedOps`). Beyond it a chain is cut into several groups, which keeps the fused
/// PrimFunc's nesting, and its compile time, bounded however long the chain is.
pub const MAX_FUSED_OPS: usize = 256;

struct Group {
    parent: Option<usize>,
    pattern: i64,
    anchor: bool,
    num_nodes: usize,
}

struct Partitioner<'g> {
    graph: &'g Graph,
    groups: Vec<Group>,
    visited: HashSet<usize>,
}

impl Partitioner<'_> {
    fn root(&self, mut g: usize) -> usize {
        while let Some(p) = self.groups[g].parent {
            g = p;
        }
        g
    }

    fn check_path_(&mut self, src: usize, sink: usize, fcond: &dyn Fn(i64, bool) -> bool) -> bool {
        if !self.visited.insert(src) {
            return true;
        }
        let r = self.root(src);
        if !fcond(self.groups[r].pattern, src == sink) {
            return false;
        }
        if src == sink {
            return true;
        }
        let outs: Vec<usize> = self.graph.nodes[src].outputs.iter().map(|e| e.0).collect();
        outs.into_iter().all(|o| self.check_path_(o, sink, fcond))
    }

    fn check_path(&mut self, src: usize, sink: usize, fcond: &dyn Fn(i64, bool) -> bool) -> bool {
        self.visited.clear();
        let outs: Vec<usize> = self.graph.nodes[src].outputs.iter().map(|e| e.0).collect();
        outs.into_iter().all(|o| self.check_path_(o, sink, fcond))
    }

    fn merge(&mut self, child: usize, parent: usize) {
        let (c, p) = (self.root(child), self.root(parent));
        if c == p {
            return;
        }
        self.groups[p].num_nodes += self.groups[c].num_nodes;
        self.groups[c].parent = Some(p);
        if self.groups[c].anchor {
            self.groups[p].anchor = true;
            self.groups[p].pattern = self.groups[p].pattern.max(self.groups[c].pattern);
        }
    }

    fn commit_(&mut self, src: usize, sink: usize, target: usize) {
        if src == sink || !self.visited.insert(src) {
            return;
        }
        self.merge(src, target);
        let outs: Vec<usize> = self.graph.nodes[src].outputs.iter().map(|e| e.0).collect();
        for o in outs {
            self.commit_(o, sink, target);
        }
    }

    fn commit(&mut self, src: usize, sink: usize) {
        self.visited.clear();
        self.commit_(src, sink, sink);
    }

    /// The nodes of the groups on the paths from `src` up to (not including) `sink`, each
    /// node's own group counted where the path enters it (TVM's `CountNodesUptoSink_`).
    fn count_nodes_upto_sink_(&mut self, src: usize, sink: usize) -> usize {
        if src == sink || !self.visited.insert(src) {
            return 0;
        }
        let outs: Vec<usize> = self.graph.nodes[src].outputs.iter().map(|e| e.0).collect();
        let mut sum = self.groups[src].num_nodes;
        for o in outs {
            sum += self.count_nodes_upto_sink_(o, sink);
        }
        sum
    }

    /// How many operators the group of `parent` would hold with `child`'s paths fused in
    /// (TVM's `CountFusedNodesWithNewChild`).
    fn count_fused_nodes_with_new_child(&mut self, child: usize, parent: usize) -> usize {
        self.visited.clear();
        let target = self.groups[self.root(parent)].num_nodes;
        target + self.count_nodes_upto_sink_(child, parent)
    }

    fn run(&mut self, dom: &[DomNode], phase: u8) {
        for (nid, dnode) in dom.iter().enumerate().take(self.groups.len()) {
            let pattern = self.groups[nid].pattern;
            if pattern == OPAQUE {
                continue;
            }
            let Some(parent) = dnode.parent else {
                continue;
            };
            if self.count_fused_nodes_with_new_child(nid, parent) > MAX_FUSED_OPS {
                continue;
            }
            if phase == 2 {
                // Injective ops fuse into intermediate tuples, which Relax graphs do not have.
                continue;
            }
            if self.root(nid) == self.root(parent) {
                continue;
            }
            if self.groups[parent].pattern == TUPLE {
                continue;
            }
            if pattern == OUT_EWISE_FUSABLE {
                if phase != 0 {
                    continue;
                }
                if dnode.pattern == ELEM_WISE
                    && self.check_path(nid, parent, &|k, _| k <= BROADCAST)
                {
                    self.commit(nid, parent);
                }
            } else if pattern <= BROADCAST {
                let dp = dnode.pattern;
                if (dp <= INJECTIVE || dp == COMM_REDUCE)
                    && self.check_path(nid, parent, &|k, sink| {
                        if sink {
                            k <= BROADCAST
                                || k == COMM_REDUCE
                                || k == INJECTIVE
                                || k == OUT_EWISE_FUSABLE
                        } else {
                            k <= INJECTIVE
                        }
                    })
                {
                    self.commit(nid, parent);
                }
            } else if pattern == INJECTIVE || pattern == TUPLE {
                if phase != 1 {
                    continue;
                }
                if self.check_path(nid, parent, &|k, _| k <= INJECTIVE) {
                    self.commit(nid, parent);
                }
            }
        }
    }
}

/// The group (root node index) of every variable of the function's dataflow blocks, and the
/// number of nodes of each group.
fn partition(f: &Function, module: &IRModule) -> (HashMap<VarId, usize>, HashMap<usize, usize>) {
    let mut g = Graph::default();
    for p in &f.params {
        g.node(p, OPAQUE);
    }
    for block in f.body.blocks.iter().filter(|b| b.dataflow) {
        for b in &block.bindings {
            g.binding(b, module);
        }
    }
    let dom = post_dominators(&g);
    let mut p = Partitioner {
        graph: &g,
        groups: g
            .nodes
            .iter()
            .map(|n| Group {
                parent: None,
                pattern: n.pattern,
                anchor: n.pattern == OUT_EWISE_FUSABLE,
                num_nodes: 1,
            })
            .collect(),
        visited: HashSet::new(),
    };
    for phase in 0..3 {
        p.run(&dom, phase);
    }
    let mut of_var = HashMap::new();
    let mut sizes = HashMap::new();
    for (v, &i) in &g.index {
        let r = p.root(i);
        of_var.insert(*v, r);
        sizes.insert(r, p.groups[r].num_nodes);
    }
    (of_var, sizes)
}

// ----- building the group functions --------------------------------------------------------

/// One group's function under construction (TVM's `FunctionCreator`).
#[derive(Default)]
struct Creator {
    bindings: Vec<Binding>,
    name: String,
    /// Values passed from outside, and the parameter each becomes.
    arguments: Vec<Expr>,
    params: Vec<Var>,
    /// `(tuple, index)` arguments already made parameters.
    tuple_items: HashMap<(VarId, usize), usize>,
    defined: HashSet<VarId>,
    outputs: Vec<Var>,
    n_const: usize,
    /// Why FuseTIR could not merge this group, if it could not.
    unsupported: bool,
}

fn fusable_param(si: &StructInfo) -> bool {
    matches!(
        si,
        StructInfo::Tensor {
            shape: Some(_),
            dtype: Some(_),
            ..
        }
    )
}

impl Creator {
    fn param(&mut self, e: &Expr) {
        if self.arguments.iter().any(|a| same_expr(a, e)) {
            return;
        }
        match e.kind() {
            ExprKind::Var(v) if self.defined.contains(&v.id()) => {}
            ExprKind::Var(v) => {
                self.unsupported |= !fusable_param(v.struct_info());
                self.arguments.push(e.clone());
                self.params
                    .push(Var::new(v.name(), v.struct_info().clone()));
            }
            ExprKind::Constant(c) => {
                self.unsupported |= !fusable_param(&c.struct_info);
                self.arguments.push(e.clone());
                self.params.push(Var::new(
                    format!("param_{}", self.n_const),
                    c.struct_info.clone(),
                ));
                self.n_const += 1;
            }
            _ => self.unsupported = true,
        }
    }

    fn append(&mut self, b: &Binding, module: &IRModule) {
        if self.bindings.is_empty() {
            self.name = "fused".to_string();
        }
        match b {
            Binding::Var { value, .. } => match value.kind() {
                ExprKind::Call(c) if c.op() == Some("relax.call_tir") => {
                    if let Some(ExprKind::GlobalVar(g)) = c.args.first().map(|a| a.kind()) {
                        self.name = format!("{}_{g}", self.name);
                        self.unsupported |= module
                            .prim_func(g)
                            .is_none_or(|f| !matches!(f.body.kind(), tir::StmtKind::SBlockRealize(r) if r.block.name == "root"));
                    }
                    self.unsupported |= c.args.len() != 2;
                    if let Some(ExprKind::Tuple(args)) = c.args.get(1).map(|a| a.kind()) {
                        for a in args {
                            self.param(a);
                        }
                    } else {
                        self.unsupported = true;
                    }
                }
                ExprKind::TupleGetItem(t, i) => match t.as_var() {
                    Some(tv) if !self.defined.contains(&tv.id()) => {
                        let key = (tv.id(), *i);
                        if !self.tuple_items.contains_key(&key) {
                            let si = struct_info_of(value, module);
                            self.unsupported |= !fusable_param(&si);
                            self.tuple_items.insert(key, self.params.len());
                            self.arguments.push(value.clone());
                            self.params.push(Var::new(format!("{}_{i}", tv.name()), si));
                        }
                    }
                    Some(_) => {}
                    None => self.unsupported = true,
                },
                ExprKind::Tuple(_) | ExprKind::Var(_) => {
                    let mut vars = Vec::new();
                    collect_vars(value, &mut vars);
                    for v in vars {
                        self.param(&Expr::var(&v));
                    }
                }
                _ => self.unsupported = true,
            },
            Binding::MatchCast { .. } => self.unsupported = true,
        }
        self.bindings.push(b.clone());
        self.defined.insert(b.var().id());
    }

    /// `b` with its tensor-constant `call_tir` arguments replaced by their parameters.
    fn lift_constants(&self, b: &Binding) -> Binding {
        let Binding::Var { var, value } = b else {
            return b.clone();
        };
        let Some(c) = value.as_call() else {
            return b.clone();
        };
        let Some(ExprKind::Tuple(fields)) = c.args.get(1).map(|a| a.kind()) else {
            return b.clone();
        };
        let fields: Vec<Expr> = fields
            .iter()
            .map(|f| {
                match self
                    .arguments
                    .iter()
                    .position(|a| matches!(a.kind(), ExprKind::Constant(_)) && a.ptr_eq(f))
                {
                    Some(k) => Expr::var(&self.params[k]),
                    None => f.clone(),
                }
            })
            .collect();
        let mut args = c.args.clone();
        args[1] = Expr::tuple(fields);
        Binding::Var {
            var: var.clone(),
            value: Expr::call(c.callee.clone(), args, c.attrs.clone(), c.ty_args.clone()),
        }
    }

    fn output(&mut self, v: &Var) -> usize {
        if let Some(i) = self.outputs.iter().position(|o| o == v) {
            return i;
        }
        self.outputs.push(v.clone());
        self.outputs.len() - 1
    }

    /// The group's function, or `None` when it computes nothing used outside.
    fn function(&self, module: &IRModule) -> Option<Function> {
        if self.outputs.is_empty() || self.unsupported {
            return None;
        }
        let mut subst = Subst::new();
        for (a, p) in self.arguments.iter().zip(&self.params) {
            if let ExprKind::Var(v) = a.kind() {
                subst.insert(v.id(), Expr::var(p));
            }
        }
        let mut bindings = Vec::new();
        let mut out_vars = Vec::new();
        for b in &self.bindings {
            if let Binding::Var { var, value } = b
                && let ExprKind::TupleGetItem(t, i) = value.kind()
                && let Some(tv) = t.as_var()
                && let Some(&k) = self.tuple_items.get(&(tv.id(), *i))
            {
                subst.insert(var.id(), Expr::var(&self.params[k]));
                continue;
            }
            let b = self.lift_constants(&substitute_binding(b, &subst));
            let old = b.var();
            let is_out = self.outputs.contains(old);
            let new = if is_out {
                Var::new(old.name(), old.struct_info().clone())
            } else {
                Var::dataflow(old.name(), old.struct_info().clone())
            };
            subst.insert(old.id(), Expr::var(&new));
            if is_out {
                out_vars.push((old.clone(), new.clone()));
            }
            bindings.push(Binding::Var {
                var: new,
                value: b.value().clone(),
            });
        }
        let outs: Vec<Expr> = self
            .outputs
            .iter()
            .map(|o| substitute(&Expr::var(o), &subst))
            .collect();
        let body = if outs.len() == 1 {
            outs[0].clone()
        } else {
            Expr::tuple(outs)
        };
        let ret = struct_info_of(&body, module);
        Some(Function {
            name: self.name.clone(),
            params: self.params.clone(),
            body: SeqExpr {
                blocks: vec![BindingBlock {
                    bindings,
                    dataflow: true,
                }],
                body,
            },
            ret_struct_info: ret,
            is_pure: true,
            private: true,
            attrs: Attrs::new().with("Primitive", AttrValue::Bool(true)),
        })
    }
}

fn same_expr(a: &Expr, b: &Expr) -> bool {
    match (a.kind(), b.kind()) {
        (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
        _ => a.ptr_eq(b),
    }
}

// ----- the pass ----------------------------------------------------------------------------

/// TVM's block builder names: `lv`, `lv1`, ... and `gv`, `gv1`, ..., one counter per prefix for
/// the whole pass.
#[derive(Default)]
struct Names(HashMap<&'static str, usize>);

impl Names {
    fn fresh(&mut self, prefix: &'static str) -> String {
        let k = self.0.entry(prefix).or_insert(0);
        let name = if *k == 0 {
            prefix.to_string()
        } else {
            format!("{prefix}{k}")
        };
        *k += 1;
        name
    }
}

pub fn fuse_ops(module: &IRModule) -> Result<IRModule> {
    let mut out = module.clone();
    let mut names = Names::default();
    let funcs: Vec<(String, Function)> = module
        .relax_functions()
        .filter(|(_, f)| f.attrs.get("Primitive").is_none() && f.attrs.get("Codegen").is_none())
        .map(|(n, f)| (n.clone(), f.clone()))
        .collect();
    for (fname, f) in funcs {
        let nf = fuse_function(&f, &mut out, &mut names)?;
        out.functions.insert(fname, BaseFunc::Relax(nf));
    }
    Ok(out)
}

fn fuse_function(f: &Function, module: &mut IRModule, names: &mut Names) -> Result<Function> {
    if !f.body.blocks.iter().any(|b| b.dataflow) {
        return Ok(f.clone());
    }
    let (group_of, sizes) = partition(f, module);
    let mut subst = Subst::new();
    let mut blocks = Vec::new();
    for block in &f.body.blocks {
        if !block.dataflow {
            blocks.push(BindingBlock {
                bindings: block
                    .bindings
                    .iter()
                    .map(|b| substitute_binding(b, &subst))
                    .collect(),
                dataflow: false,
            });
            continue;
        }
        let group = |v: &Var| group_of.get(&v.id()).copied();
        let multi = |g: Option<usize>| g.and_then(|g| sizes.get(&g)).is_some_and(|&n| n > 1);
        // Step 1: the bindings of each multi-node group.
        let mut creators: HashMap<usize, Creator> = HashMap::new();
        for b in &block.bindings {
            let g = group(b.var());
            if multi(g)
                && let Some(g) = g
            {
                creators.entry(g).or_default().append(b, module);
            }
        }
        // Step 2: the boundary — values used outside their group, and block outputs.
        let mut deps: HashMap<usize, Vec<usize>> = HashMap::new();
        for b in &block.bindings {
            let cur = group(b.var());
            let mut used = Vec::new();
            collect_vars(b.value(), &mut used);
            for u in used {
                let prod = group(&u);
                if let (Some(p), Some(c)) = (prod, cur)
                    && p != c
                {
                    let d = deps.entry(c).or_default();
                    if !d.contains(&p) {
                        d.push(p);
                    }
                    if let Some(cr) = creators.get_mut(&p) {
                        cr.output(&u);
                    }
                }
            }
            if !b.var().is_dataflow()
                && let Some(c) = cur
                && let Some(cr) = creators.get_mut(&c)
            {
                cr.output(b.var());
            }
        }
        // Step 3: the functions.
        let mut functions: HashMap<usize, (String, Function)> = HashMap::new();
        let mut order: Vec<usize> = creators.keys().copied().collect();
        order.sort_by_key(|g| {
            block
                .bindings
                .iter()
                .position(|b| group(b.var()) == Some(*g))
        });
        for g in order {
            let cr = &creators[&g];
            if let Some(func) = cr.function(module) {
                let name = add_function(module, func.clone(), &cr.name);
                functions.insert(g, (name, func));
            }
        }
        // Step 4: the new block, in the topological order of group dependencies.
        let mut em: Vec<Binding> = Vec::new();
        for b in topo_sort(&block.bindings, &group_of, &deps) {
            let g = group(b.var());
            let fused = g.and_then(|g| functions.get(&g).map(|f| (g, f)));
            let Some((g, (name, func))) = fused else {
                em.push(substitute_binding(b, &subst));
                continue;
            };
            let cr = &creators[&g];
            if cr.bindings.last().map(|l| l.var()) != Some(b.var()) {
                continue;
            }
            let mut args = Vec::new();
            for a in &cr.arguments {
                let a = substitute(a, &subst);
                if let ExprKind::TupleGetItem(..) = a.kind() {
                    let si = struct_info_of(&a, module);
                    let v = Var::dataflow(names.fresh("lv"), si);
                    em.push(Binding::Var {
                        var: v.clone(),
                        value: a,
                    });
                    args.push(Expr::var(&v));
                } else {
                    args.push(a);
                }
            }
            let call = Expr::call(Callee::Global(name.clone()), args, Attrs::new(), Vec::new());
            let ret = func.ret_struct_info.clone();
            let single = cr.outputs.len() == 1;
            let last_is_dataflow = b.var().is_dataflow();
            let new_var = match (single, last_is_dataflow) {
                (true, _) if !cr.outputs[0].is_dataflow() => {
                    Var::new(names.fresh("gv"), cr.outputs[0].struct_info().clone())
                }
                (true, _) => Var::dataflow(names.fresh("lv"), cr.outputs[0].struct_info().clone()),
                (false, true) => Var::dataflow(names.fresh("lv"), ret),
                (false, false) => Var::new(names.fresh("gv"), ret),
            };
            em.push(Binding::Var {
                var: new_var.clone(),
                value: call,
            });
            if single {
                subst.insert(cr.outputs[0].id(), Expr::var(&new_var));
            } else {
                for (i, o) in cr.outputs.iter().enumerate() {
                    let v = if o.is_dataflow() {
                        Var::dataflow(names.fresh("lv"), o.struct_info().clone())
                    } else {
                        Var::new(names.fresh("gv"), o.struct_info().clone())
                    };
                    em.push(Binding::Var {
                        var: v.clone(),
                        value: Expr::new(ExprKind::TupleGetItem(Expr::var(&new_var), i)),
                    });
                    subst.insert(o.id(), Expr::var(&v));
                }
            }
        }
        blocks.push(BindingBlock {
            bindings: em,
            dataflow: true,
        });
    }
    let body = substitute(&f.body.body, &subst);
    Ok(Function {
        body: SeqExpr { blocks, body },
        ..f.clone()
    })
}

/// The bindings grouped by group, each group placed after the groups it depends on, otherwise
/// in the order of first appearance (TVM's `TopoSortByGroupDep`).
fn topo_sort<'b>(
    bindings: &'b [Binding],
    group_of: &HashMap<VarId, usize>,
    deps: &HashMap<usize, Vec<usize>>,
) -> Vec<&'b Binding> {
    let key = |b: &Binding| group_of.get(&b.var().id()).copied().unwrap_or(usize::MAX);
    let mut per_group: HashMap<usize, Vec<&'b Binding>> = HashMap::new();
    let mut order = Vec::new();
    for b in bindings {
        let g = key(b);
        order.push(g);
        per_group.entry(g).or_default().push(b);
    }
    let mut visited = HashSet::new();
    let mut sorted = Vec::new();
    fn visit<'b>(
        g: usize,
        deps: &HashMap<usize, Vec<usize>>,
        visited: &mut HashSet<usize>,
        per_group: &HashMap<usize, Vec<&'b Binding>>,
        sorted: &mut Vec<&'b Binding>,
    ) {
        if !visited.insert(g) {
            return;
        }
        for &d in deps.get(&g).map(Vec::as_slice).unwrap_or(&[]) {
            visit(d, deps, visited, per_group, sorted);
        }
        sorted.extend(per_group.get(&g).into_iter().flatten().copied());
    }
    for g in order {
        visit(g, deps, &mut visited, &per_group, &mut sorted);
    }
    sorted
}

/// Adds a group function under a unique name derived from `hint`, or returns the name of a
/// structurally equal one already added (TVM's `BlockBuilder::AddFunction`).
fn add_function(module: &mut IRModule, mut func: Function, hint: &str) -> String {
    for (name, existing) in module.relax_functions() {
        if existing.attrs.get("Primitive").is_some() && function_diff(existing, &func).is_none() {
            return name.clone();
        }
    }
    let mut name = hint.to_string();
    let mut k = 1;
    while module.functions.contains_key(&name) {
        name = format!("{hint}{k}");
        k += 1;
    }
    func.name = name.clone();
    module.add(name.clone(), BaseFunc::Relax(func));
    name
}
