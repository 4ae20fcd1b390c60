//! The TVMScript `T.` dialect: reading `@T.prim_func` definitions from the syntax tree into
//! [`PrimFunc`]s, and printing them back in TVM 0.27's style.
//!
//! Entry points: [`parse_module_prim_funcs`] (whole `@I.ir_module` text → its prim_funcs),
//! [`prim_func_from_ast`] (one `def` of an already parsed module, for the Relax reader),
//! [`prim_expr_from_ast`] (one expression such as a shape dimension), [`print_prim_func`] and
//! [`print_prim_expr`].

mod expr;
mod printer;
mod reader;

use std::collections::{BTreeSet, HashMap};

pub use expr::{node_constructor, would_fold};
pub use printer::cmp_node_name;
pub use printer::{print_module_prim_funcs, print_prim_expr, print_prim_func};
pub use reader::{is_prim_func, prim_func_from_ast};

use crate::error::ParseError;
use crate::ir::{PrimExpr, PrimFunc, Var};
use crate::syntax::ast;

/// What a `T.` reader needs to know about the module around a function.
#[derive(Clone, Debug, Default)]
pub struct ModuleContext {
    /// Names declared at module level as `n = TypeVar("n")`: symbolic `int64` variables. Each
    /// function that mentions such a name gets its own [`Var`] for it.
    pub type_vars: BTreeSet<String>,
}

impl ModuleContext {
    /// Collects the module-level `TypeVar` declarations of a parsed file.
    pub fn from_module(module: &ast::Module) -> ModuleContext {
        let mut type_vars = BTreeSet::new();
        for stmt in &module.body {
            if let ast::StmtKind::Assign { targets, value } = &stmt.kind {
                let is_type_var = value.call_name().as_deref() == Some("TypeVar");
                if is_type_var {
                    for t in targets {
                        if let Some(n) = t.as_name() {
                            type_vars.insert(n.to_string());
                        }
                    }
                }
            }
        }
        ModuleContext { type_vars }
    }
}

/// Parses TVMScript text and returns every `@T.prim_func` of its `@I.ir_module` class (or, if
/// the text has no module class, its top-level `@T.prim_func` definitions), in source order.
/// Relax functions and other members are skipped.
pub fn parse_module_prim_funcs(src: &str) -> Result<Vec<PrimFunc>, ParseError> {
    let module = crate::syntax::parse_module(src)?;
    let ctx = ModuleContext::from_module(&module);
    let mut out = Vec::new();
    let class = module.body.iter().find_map(|s| match &s.kind {
        ast::StmtKind::ClassDef(c)
            if c.decorators
                .iter()
                .any(|d| d.dotted_name().as_deref() == Some("I.ir_module")) =>
        {
            Some(c)
        }
        _ => None,
    });
    let members: &[ast::Stmt] = match class {
        Some(c) => &c.body,
        None => &module.body,
    };
    for stmt in members {
        if let ast::StmtKind::FunctionDef(def) = &stmt.kind
            && is_prim_func(def)
        {
            out.push(prim_func_from_ast(def, &ctx)?);
        }
    }
    Ok(out)
}

/// Names in scope for [`prim_expr_from_ast`]: variables by name.
#[derive(Clone, Debug, Default)]
pub struct ExprScope {
    /// The visible variables.
    pub vars: HashMap<String, Var>,
}

/// Converts one expression of the `T.` dialect (`n * 2`, `T.int64(4)`, `T.float32(1.0)`) to a
/// [`PrimExpr`], resolving names through `scope`. Buffer loads are not available here.
pub fn prim_expr_from_ast(e: &ast::Expr, scope: &ExprScope) -> Result<PrimExpr, ParseError> {
    let ctx = ModuleContext::default();
    let mut r = reader::Reader::new(&ctx);
    for (name, var) in &scope.vars {
        r.bind_var(name, var.clone());
    }
    r.expr(e)
}
