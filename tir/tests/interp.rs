//! The reference interpreter against the conformance corpus, and its error paths.
//!
//! Corpus cross-check: for every case, `legalized.py` and `module.py` are read; when `main` is
//! nothing but `R.call_tir` bindings of the module's prim_funcs (plus tuples, tuple indexing
//! and the dataflow block around them), each call of case.json is evaluated by running the
//! prim_funcs in `tir::interp` on the case's inputs and zeroed outputs, and compared with TVM's
//! `expected` (tolerances from case.json, rules from tests/conformance/README.md). Calls marked
//! `expect_error` pass when the argument checks or the interpreter report an error.
//! `INTERP_VERBOSE=1` prints every program that is not covered and why.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use relaxjit_tir as tir;
use serde_json::Value as Json;
use support::case::{RawTensor as Tensor, RawValue as RValue};
use tir::interp::{InterpArg, run};
use tir::syntax::ast;
use tir::{DataType, Error, InterpErrorKind, PrimFunc};

// ----- values ------------------------------------------------------------------------------

/// A corpus value (`{"tensor": …}` or `{"tuple": …}`) read by the shared case format.
fn tensor_from_json(v: &Json) -> Result<RValue, String> {
    RValue::from_json(v).map_err(|e| format!("{e}: {}", short(v)))
}

fn short(v: &Json) -> String {
    let s = v.to_string();
    s.chars().take(80).collect()
}

/// Compares with the corpus's rules.
fn compare(got: &RValue, want: &Json, rtol: f64, atol: f64) -> Result<(), String> {
    support::case::compare_raw(got, want, rtol, atol)
}

// ----- the `main` subset -------------------------------------------------------------------

/// Why a program is not covered by the cross-check.
struct Unsupported(String);

/// `main`, reduced to what the cross-check evaluates.
struct Program<'a> {
    params: Vec<(&'a str, &'a ast::Expr)>,
    body: Vec<&'a ast::Stmt>,
}

fn find_main(module: &ast::Module) -> Option<&ast::FunctionDef> {
    module.body.iter().find_map(|s| match &s.kind {
        ast::StmtKind::ClassDef(c) => c.body.iter().find_map(|m| match &m.kind {
            ast::StmtKind::FunctionDef(f) if f.name == "main" => Some(f),
            _ => None,
        }),
        _ => None,
    })
}

fn flatten_body<'a>(stmts: &'a [ast::Stmt], out: &mut Vec<&'a ast::Stmt>) {
    for s in stmts {
        match &s.kind {
            ast::StmtKind::With { items, body }
                if items.len() == 1
                    && items[0].context.call_name().as_deref() == Some("R.dataflow") =>
            {
                flatten_body(body, out)
            }
            _ => out.push(s),
        }
    }
}

fn program(main: &ast::FunctionDef) -> Result<Program<'_>, Unsupported> {
    let mut params = Vec::new();
    for p in &main.params {
        let Some(a) = &p.annotation else {
            return Err(Unsupported(format!(
                "parameter `{}` without annotation",
                p.name
            )));
        };
        if a.call_name().as_deref() != Some("R.Tensor") {
            return Err(Unsupported(format!(
                "parameter `{}` is not a tensor",
                p.name
            )));
        }
        params.push((p.name.as_str(), a));
    }
    let mut body = Vec::new();
    flatten_body(&main.body, &mut body);
    let mut calls = 0;
    for s in &body {
        let ok = match &s.kind {
            ast::StmtKind::Assign { targets, value } => {
                if targets.len() == 1 && targets[0].as_name() == Some("cls") {
                    true
                } else {
                    let is_call = value.call_name().as_deref() == Some("R.call_tir");
                    calls += usize::from(is_call);
                    is_call || is_plain(value)
                }
            }
            ast::StmtKind::AnnAssign {
                value: Some(value), ..
            } => {
                calls += usize::from(value.call_name().as_deref() == Some("R.call_tir"));
                value.call_name().as_deref() == Some("R.call_tir") || is_plain(value)
            }
            ast::StmtKind::Expr(e) => e.call_name().as_deref() == Some("R.output"),
            ast::StmtKind::Return(Some(e)) => e.as_name().is_some(),
            _ => false,
        };
        if !ok {
            return Err(Unsupported(format!(
                "main has a statement other than call_tir bindings (line {})",
                s.span.line
            )));
        }
    }
    if calls == 0 {
        return Err(Unsupported("main calls no prim_func".into()));
    }
    Ok(Program { params, body })
}

/// Names, tuples of plain values and `t[i]`.
fn is_plain(e: &ast::Expr) -> bool {
    match &e.kind {
        ast::ExprKind::Name(_) => true,
        ast::ExprKind::Tuple(items) => items.iter().all(is_plain),
        ast::ExprKind::Subscript { value, index } => {
            is_plain(value) && matches!(index.kind, ast::ExprKind::Int(_))
        }
        _ => false,
    }
}

/// `R.Tensor((d0, d1), dtype="float32")` → the dims and dtype.
fn tensor_annotation(a: &ast::Expr) -> Result<(Vec<&ast::Expr>, DataType), Unsupported> {
    let ast::ExprKind::Call { args, keywords, .. } = &a.kind else {
        return Err(Unsupported("annotation is not a call".into()));
    };
    let dims: Vec<&ast::Expr> = match args.first().map(|x| &x.kind) {
        Some(ast::ExprKind::Tuple(d)) | Some(ast::ExprKind::List(d)) => d.iter().collect(),
        _ => return Err(Unsupported("tensor annotation without a shape".into())),
    };
    let dtype = keywords
        .iter()
        .find(|k| k.name == "dtype")
        .and_then(|k| match &k.value.kind {
            ast::ExprKind::Str(s) => DataType::parse(s),
            _ => None,
        })
        .or_else(|| match args.get(1).map(|x| &x.kind) {
            Some(ast::ExprKind::Str(s)) => DataType::parse(s),
            _ => None,
        })
        .ok_or_else(|| Unsupported("tensor annotation without a dtype".into()))?;
    Ok((dims, dtype))
}

fn eval_dim(e: &ast::Expr, syms: &HashMap<String, i64>) -> Result<i64, Unsupported> {
    match &e.kind {
        ast::ExprKind::Int(v) => i64::try_from(*v).map_err(|_| Unsupported("huge dim".into())),
        ast::ExprKind::Name(n) => syms
            .get(n)
            .copied()
            .ok_or_else(|| Unsupported(format!("unbound shape variable `{n}`"))),
        ast::ExprKind::BinOp { op, left, right } => {
            let (a, b) = (eval_dim(left, syms)?, eval_dim(right, syms)?);
            match op {
                ast::BinOp::Add => Ok(a + b),
                ast::BinOp::Sub => Ok(a - b),
                ast::BinOp::Mul => Ok(a * b),
                ast::BinOp::FloorDiv if b != 0 => Ok(a.div_euclid(b)),
                _ => Err(Unsupported("unsupported shape expression".into())),
            }
        }
        ast::ExprKind::Str(s) => {
            let parsed = tir::syntax::parse_expr(s).map_err(|_| Unsupported("bad dim".into()))?;
            eval_dim(&parsed, syms)
        }
        ast::ExprKind::Call { args, .. } if args.len() == 1 => eval_dim(&args[0], syms),
        _ => Err(Unsupported("unsupported shape expression".into())),
    }
}

/// An error the evaluation reports; `expect_error` calls want one.
enum Failure {
    Unsupported(Unsupported),
    Error(String),
}

impl From<Unsupported> for Failure {
    fn from(u: Unsupported) -> Failure {
        Failure::Unsupported(u)
    }
}

fn evaluate(
    prog: &Program<'_>,
    funcs: &HashMap<String, PrimFunc>,
    inputs: &[RValue],
) -> Result<RValue, Failure> {
    if inputs.len() != prog.params.len() {
        return Err(Failure::Error(format!(
            "main takes {} arguments, got {}",
            prog.params.len(),
            inputs.len()
        )));
    }
    let mut syms: HashMap<String, i64> = HashMap::new();
    let mut env: HashMap<String, RValue> = HashMap::new();
    for ((name, ann), value) in prog.params.iter().zip(inputs) {
        let (dims, dtype) = tensor_annotation(ann)?;
        let RValue::Tensor(t) = value else {
            return Err(Failure::Error(format!("`{name}` expects a tensor")));
        };
        if t.dtype != dtype || t.shape.len() != dims.len() {
            return Err(Failure::Error(format!(
                "`{name}`: expected {dtype} of rank {}, got {} {:?}",
                dims.len(),
                t.dtype,
                t.shape
            )));
        }
        for (d, actual) in dims.iter().zip(&t.shape) {
            if let Some(n) = d.as_name()
                && !syms.contains_key(n)
            {
                syms.insert(n.to_string(), *actual);
            }
            if eval_dim(d, &syms)? != *actual {
                return Err(Failure::Error(format!(
                    "`{name}`: shape mismatch {:?}",
                    t.shape
                )));
            }
        }
        env.insert(name.to_string(), value.clone());
    }
    for s in &prog.body {
        match &s.kind {
            ast::StmtKind::Assign { targets, value } => {
                let Some(target) = targets.first().and_then(|t| t.as_name()) else {
                    continue;
                };
                if target == "cls" {
                    continue;
                }
                let v = rvalue(value, &env, funcs, &syms)?;
                env.insert(target.to_string(), v);
            }
            ast::StmtKind::AnnAssign {
                target,
                value: Some(value),
                ..
            } => {
                let v = rvalue(value, &env, funcs, &syms)?;
                let name = target.as_name().ok_or(Unsupported("bad target".into()))?;
                env.insert(name.to_string(), v);
            }
            ast::StmtKind::Return(Some(e)) => return plain(e, &env),
            _ => {}
        }
    }
    Err(Failure::Unsupported(Unsupported(
        "main does not return".into(),
    )))
}

fn plain(e: &ast::Expr, env: &HashMap<String, RValue>) -> Result<RValue, Failure> {
    match &e.kind {
        ast::ExprKind::Name(n) => env
            .get(n)
            .cloned()
            .ok_or_else(|| Failure::Unsupported(Unsupported(format!("unknown `{n}`")))),
        ast::ExprKind::Tuple(items) => items
            .iter()
            .map(|i| plain(i, env))
            .collect::<Result<_, _>>()
            .map(RValue::Tuple),
        ast::ExprKind::Subscript { value, index } => {
            let (RValue::Tuple(items), ast::ExprKind::Int(i)) = (plain(value, env)?, &index.kind)
            else {
                return Err(Failure::Error("bad tuple index".into()));
            };
            usize::try_from(*i)
                .ok()
                .and_then(|i| items.get(i).cloned())
                .ok_or_else(|| Failure::Error("tuple index out of range".into()))
        }
        _ => Err(Failure::Unsupported(Unsupported(
            "unsupported expression".into(),
        ))),
    }
}

fn rvalue(
    e: &ast::Expr,
    env: &HashMap<String, RValue>,
    funcs: &HashMap<String, PrimFunc>,
    syms: &HashMap<String, i64>,
) -> Result<RValue, Failure> {
    let ast::ExprKind::Call { args, keywords, .. } = &e.kind else {
        return plain(e, env);
    };
    if keywords.iter().any(|k| k.name != "out_ty") {
        return Err(Unsupported("call_tir with tir_vars".into()).into());
    }
    let fname = args
        .first()
        .and_then(|f| f.dotted_name())
        .and_then(|n| n.strip_prefix("cls.").map(str::to_string))
        .ok_or(Unsupported("call_tir of something other than cls.f".into()))?;
    let func = funcs
        .get(&fname)
        .ok_or_else(|| Unsupported(format!("no prim_func `{fname}`")))?;
    let in_values: Vec<RValue> = match args.get(1).map(|a| &a.kind) {
        Some(ast::ExprKind::Tuple(items)) => items
            .iter()
            .map(|i| plain(i, env))
            .collect::<Result<_, _>>()?,
        Some(_) => vec![plain(&args[1], env)?],
        None => Vec::new(),
    };
    let out_ty = keywords
        .iter()
        .find(|k| k.name == "out_ty")
        .map(|k| &k.value)
        .ok_or(Unsupported("call_tir without out_ty".into()))?;
    let (out_anns, is_tuple): (Vec<&ast::Expr>, bool) = match &out_ty.kind {
        ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => (items.iter().collect(), true),
        _ => (vec![out_ty], false),
    };
    let mut tensors: Vec<Tensor> = Vec::new();
    for v in in_values {
        match v {
            RValue::Tensor(t) => tensors.push(t),
            RValue::Tuple(_) => return Err(Unsupported("tuple argument to call_tir".into()).into()),
        }
    }
    let n_in = tensors.len();
    for a in out_anns {
        let (dims, dtype) = tensor_annotation(a)?;
        let shape = dims
            .iter()
            .map(|d| eval_dim(d, syms))
            .collect::<Result<Vec<_>, _>>()?;
        let n: i64 = shape.iter().product();
        tensors.push(Tensor {
            dtype,
            shape,
            data: vec![0u8; n.max(0) as usize * dtype.bytes()],
        });
    }
    let mut args: Vec<InterpArg<'_>> = tensors
        .iter_mut()
        .map(|t| InterpArg::Buffer {
            data: &mut t.data,
            shape: t.shape.clone(),
            dtype: t.dtype,
        })
        .collect();
    run(func, &mut args).map_err(|e| Failure::Error(e.to_string()))?;
    drop(args);
    let mut outs: Vec<RValue> = tensors.into_iter().skip(n_in).map(RValue::Tensor).collect();
    if is_tuple {
        Ok(RValue::Tuple(outs))
    } else {
        outs.pop()
            .ok_or_else(|| Failure::Error("call_tir without output".into()))
    }
}

// ----- the corpus runner -------------------------------------------------------------------

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance")
}

#[derive(Default)]
struct Tally {
    programs: usize,
    covered: usize,
    calls_passed: usize,
    errors_passed: usize,
    cases: std::collections::BTreeSet<String>,
    failures: Vec<String>,
    uncovered: Vec<String>,
}

fn check_program(case: &str, file: &str, src: &str, spec: &Json, tally: &mut Tally) {
    tally.programs += 1;
    let module = match tir::syntax::parse_module(src) {
        Ok(m) => m,
        Err(e) => {
            tally.failures.push(format!("{case}/{file}: syntax: {e}"));
            return;
        }
    };
    let Some(main) = find_main(&module) else {
        tally.uncovered.push(format!("{case}/{file}: no main"));
        return;
    };
    let prog = match program(main) {
        Ok(p) => p,
        Err(Unsupported(why)) => {
            tally.uncovered.push(format!("{case}/{file}: {why}"));
            return;
        }
    };
    let funcs: HashMap<String, PrimFunc> = match tir::parse_module_prim_funcs(src) {
        Ok(f) => f.into_iter().map(|f| (f.name.clone(), f)).collect(),
        Err(e) => {
            tally
                .failures
                .push(format!("{case}/{file}: {}", e.render(src)));
            return;
        }
    };
    let rtol = spec["rtol"].as_f64().unwrap_or(0.0);
    let atol = spec["atol"].as_f64().unwrap_or(0.0);
    let calls = spec["calls"].as_array().cloned().unwrap_or_default();
    let mut outcomes = Vec::new();
    for (ci, call) in calls.iter().enumerate() {
        if call["function"].as_str() != Some("main") {
            tally
                .uncovered
                .push(format!("{case}/{file}: call {ci} of another function"));
            return;
        }
        let inputs: Result<Vec<RValue>, String> = call["inputs"]
            .as_array()
            .map(|a| a.iter().map(tensor_from_json).collect())
            .unwrap_or_else(|| Ok(Vec::new()));
        let inputs = match inputs {
            Ok(i) => i,
            Err(why) => {
                tally.uncovered.push(format!("{case}/{file}: {why}"));
                return;
            }
        };
        let expect_error = call["expect_error"].as_bool().unwrap_or(false);
        match (evaluate(&prog, &funcs, &inputs), expect_error) {
            (Err(Failure::Unsupported(Unsupported(why))), _) => {
                tally.uncovered.push(format!("{case}/{file}: {why}"));
                return;
            }
            (Ok(got), false) => outcomes.push(
                compare(&got, &call["expected"], rtol, atol)
                    .map(|_| false)
                    .map_err(|m| format!("{case}/{file} call {ci}: {m}")),
            ),
            (Err(Failure::Error(_)), true) => outcomes.push(Ok(true)),
            (Ok(_), true) => outcomes.push(Err(format!(
                "{case}/{file} call {ci}: TVM raised an error, the interpreter did not"
            ))),
            (Err(Failure::Error(m)), false) => {
                outcomes.push(Err(format!("{case}/{file} call {ci}: {m}")))
            }
        }
    }
    tally.covered += 1;
    tally.cases.insert(case.to_string());
    for o in outcomes {
        match o {
            Ok(false) => tally.calls_passed += 1,
            Ok(true) => tally.errors_passed += 1,
            Err(m) => tally.failures.push(m),
        }
    }
}

#[test]
fn corpus_cross_check() {
    let dir = corpus_dir();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    cases.retain(|p| p.join("case.json").is_file());
    cases.sort();
    assert!(!cases.is_empty(), "no corpus at {}", dir.display());
    let mut tally = Tally::default();
    for path in &cases {
        let case = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let spec: Json = match std::fs::read_to_string(path.join("case.json"))
            .ok()
            .and_then(|s| serde_json::from_str(&s).ok())
        {
            Some(j) => j,
            None => {
                tally.failures.push(format!("{case}: unreadable case.json"));
                continue;
            }
        };
        for file in ["legalized.py", "module.py"] {
            if let Ok(src) = std::fs::read_to_string(path.join(file)) {
                check_program(&case, file, &src, &spec, &mut tally);
            }
        }
    }
    println!(
        "interp corpus cross-check: {} cases; {} of {} programs covered ({} cases); \
         {} calls matched TVM, {} expected errors reported, {} failures",
        cases.len(),
        tally.covered,
        tally.programs,
        tally.cases.len(),
        tally.calls_passed,
        tally.errors_passed,
        tally.failures.len()
    );
    if std::env::var_os("INTERP_VERBOSE").is_some() {
        for u in &tally.uncovered {
            println!("  not covered: {u}");
        }
    }
    assert!(
        tally.failures.is_empty(),
        "{} failures:\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
    // The corpus has dozens of single-kernel cases; a drop means the runner stopped seeing them.
    assert!(
        tally.cases.len() >= 40,
        "only {} cases covered",
        tally.cases.len()
    );
}

// ----- error paths -------------------------------------------------------------------------

const FUNCS: &str = r#"
n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func
    def copy(A: T.Buffer((n, 4), "float32"), B: T.Buffer((n, 4), "float32")):
        for i, j in T.grid(n, 4):
            B[i, j] = A[i, j]

    @T.prim_func
    def oob_store(A: T.Buffer((4,), "float32")):
        for i in range(5):
            A[i] = T.float32(1.0)

    @T.prim_func
    def oob_load(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
        for i in range(4):
            B[i] = A[i + 1]

    @T.prim_func
    def div(A: T.Buffer((2,), "int32"), B: T.Buffer((2,), "int32")):
        for i in range(2):
            B[i] = A[i] // A[1 - i]

    @T.prim_func
    def scale(A: T.Buffer((3,), "float32"), k: T.float32):
        for i in range(3):
            A[i] = A[i] * k

    @T.prim_func
    def argsort_desc(data: T.Buffer((2, 4), "float32"), out: T.Buffer((2, 4), "int32")):
        T.call_packed("tvm.contrib.sort.argsort", T.tvm_stack_make_array(data.data, T.tvm_stack_make_shape(2, 4), 0, 2, T.float32(0.0), 0), T.tvm_stack_make_array(out.data, T.tvm_stack_make_shape(2, 4), 0, 2, 0, 0), -1, T.bool(False))

    @T.prim_func
    def topk_asc(data: T.Buffer((5,), "int64"), vals: T.Buffer((3,), "int64"), idx: T.Buffer((3,), "int64")):
        T.call_packed("tvm.contrib.sort.topk", T.tvm_stack_make_array(data.data, T.tvm_stack_make_shape(5), 0, 1, T.int64(0), 0), T.tvm_stack_make_array(vals.data, T.tvm_stack_make_shape(3), 0, 1, T.int64(0), 0), T.tvm_stack_make_array(idx.data, T.tvm_stack_make_shape(3), 0, 1, T.int64(0), 0), 3, 0, "both", T.bool(True))

    @T.prim_func
    def dim_index(A: T.Buffer((4, 4), "float32")):
        A[0, 5] = T.float32(1.0)

    @T.prim_func
    def forever(A: T.Buffer((1,), "float32")):
        for i in range(T.int64(9223372036854775807)):
            A[0] = A[0] + T.float32(1.0)

    @T.prim_func
    def add_2d(a: T.handle, b: T.handle):
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, m), "float32")
        B = T.match_buffer(b, (n, m), "float32")
        for i, j in T.grid(n, m):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1.0)

    @T.prim_func
    def guarded(A: T.Buffer((4,), "float32"), B: T.Buffer((6,), "float32")):
        for i in range(6):
            B[i] = T.if_then_else(i < 4, A[T.min(i, 3)], T.float32(-1.0))
"#;

fn funcs() -> HashMap<String, PrimFunc> {
    match tir::parse_module_prim_funcs(FUNCS) {
        Ok(f) => f.into_iter().map(|f| (f.name.clone(), f)).collect(),
        Err(e) => panic!("{}", e.render(FUNCS)),
    }
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn buf<'a>(data: &'a mut [u8], shape: &[i64], dtype: DataType) -> InterpArg<'a> {
    InterpArg::Buffer {
        data,
        shape: shape.to_vec(),
        dtype,
    }
}

/// Runs `name` and returns the error message, which must mention every word of `expect`.
fn expect_err(name: &str, args: &mut [InterpArg<'_>], expect: &[&str]) {
    let f = funcs();
    let Some(func) = f.get(name) else {
        panic!("no function {name}");
    };
    match run(func, args) {
        Ok(()) => panic!("{name}: expected an error mentioning {expect:?}"),
        Err(e) => {
            let Error::Interp { func, message, .. } = &e else {
                panic!("{name}: wrong error kind {e:?}");
            };
            assert_eq!(func, name);
            for w in expect {
                assert!(message.contains(w), "{name}: `{message}` lacks `{w}`");
            }
        }
    }
}

#[test]
fn symbolic_shapes_bind_and_copy() {
    let f = funcs();
    let mut a = f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    let mut b = vec![0u8; 32];
    let r = run(
        &f["copy"],
        &mut [
            buf(&mut a, &[2, 4], DataType::FLOAT32),
            buf(&mut b, &[2, 4], DataType::FLOAT32),
        ],
    );
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(a, b);
}

#[test]
fn argument_errors() {
    let f32t = DataType::FLOAT32;
    let (mut a, mut b) = (vec![0u8; 32], vec![0u8; 32]);
    expect_err(
        "copy",
        &mut [buf(&mut a, &[2, 4], f32t)],
        &["expected 2 arguments, got 1"],
    );
    expect_err(
        "copy",
        &mut [buf(&mut a, &[8], f32t), buf(&mut b, &[2, 4], f32t)],
        &["rank 2", "`A`"],
    );
    expect_err(
        "copy",
        &mut [
            buf(&mut a, &[2, 4], DataType::INT32),
            buf(&mut b, &[2, 4], f32t),
        ],
        &["dtype float32", "int32", "`A`"],
    );
    expect_err(
        "copy",
        &mut [buf(&mut a, &[4, 2], f32t), buf(&mut b, &[4, 2], f32t)],
        &["`A` dimension 1", "got 2"],
    );
    let mut c = vec![0u8; 48];
    expect_err(
        "copy",
        &mut [buf(&mut a, &[2, 4], f32t), buf(&mut c, &[3, 4], f32t)],
        &["`B` dimension 0", "`n` = 2", "got 3"],
    );
    expect_err(
        "copy",
        &mut [buf(&mut a, &[3, 4], f32t), buf(&mut b, &[2, 4], f32t)],
        &["needs 48 bytes, got 32"],
    );
    expect_err(
        "scale",
        &mut [InterpArg::Int(2), InterpArg::Float(1.0)],
        &["argument 0", "tensor"],
    );
    let mut d = vec![0u8; 12];
    expect_err(
        "scale",
        &mut [buf(&mut d, &[3], f32t), buf(&mut a[..12], &[3], f32t)],
        &["argument 1", "scalar parameter"],
    );
}

#[test]
fn scalar_parameters() {
    let f = funcs();
    let mut a = f32s(&[1.0, 2.0, 3.0]);
    let r = run(
        &f["scale"],
        &mut [buf(&mut a, &[3], DataType::FLOAT32), InterpArg::Float(0.5)],
    );
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(a, f32s(&[0.5, 1.0, 1.5]));
}

/// The class of the error `name` fails with, run with `steps` of budget.
fn error_kind(name: &str, args: &mut [InterpArg<'_>], steps: u64) -> InterpErrorKind {
    match tir::interp::run_with_budget(&funcs()[name], args, steps) {
        Err(Error::Interp { kind, .. }) => kind,
        other => panic!("{name}: expected an interpreter error, got {other:?}"),
    }
}

#[test]
fn error_kinds_and_the_step_budget() {
    let mut a = vec![0u8; 16];
    assert_eq!(
        error_kind(
            "oob_store",
            &mut [buf(&mut a, &[4], DataType::FLOAT32)],
            1000
        ),
        InterpErrorKind::OutOfBounds
    );
    let mut m = vec![0u8; 64];
    // Element 5 of the 16 lies inside the memory: only the dimension check catches it.
    assert_eq!(
        error_kind(
            "dim_index",
            &mut [buf(&mut m, &[4, 4], DataType::FLOAT32)],
            1000
        ),
        InterpErrorKind::DimensionIndex
    );
    let (mut p, mut q) = (i32s(&[7, 0]), vec![0u8; 8]);
    assert_eq!(
        error_kind(
            "div",
            &mut [
                buf(&mut p, &[2], DataType::INT32),
                buf(&mut q, &[2], DataType::INT32),
            ],
            1000
        ),
        InterpErrorKind::DivisionByZero
    );
    // 2^63 - 1 iterations end at the budget, having run exactly as many as it allows: the
    // loop statement, then per iteration one step for the iteration and one for the store.
    let mut one = vec![0u8; 4];
    assert_eq!(
        error_kind(
            "forever",
            &mut [buf(&mut one, &[1], DataType::FLOAT32)],
            2001
        ),
        InterpErrorKind::StepBudget
    );
    assert_eq!(f32s(&[1000.0]), one);
}

/// A loop of 2^62 iterations around an empty one finishes at once, within a budget of a few
/// steps: the outer loop is not iterated (`tir::transform::nest_guard`).
#[test]
fn a_long_loop_around_an_empty_one_is_not_iterated() {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let r = tir::interp::run_with_budget(
        &funcs()["add_2d"],
        &mut [
            buf(&mut a, &[1 << 62, 0], DataType::FLOAT32),
            buf(&mut b, &[1 << 62, 0], DataType::FLOAT32),
        ],
        100,
    );
    assert!(r.is_ok(), "{r:?}");
    let (mut a, mut b) = (f32s(&[1.0, 2.0]), vec![0u8; 8]);
    let r = run(
        &funcs()["add_2d"],
        &mut [
            buf(&mut a, &[2, 1], DataType::FLOAT32),
            buf(&mut b, &[2, 1], DataType::FLOAT32),
        ],
    );
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(b, f32s(&[2.0, 3.0]));
}

#[test]
fn out_of_bounds_and_division_errors() {
    let mut a = vec![0u8; 16];
    expect_err(
        "oob_store",
        &mut [buf(&mut a, &[4], DataType::FLOAT32)],
        &["`A`", "[4]", "out of bounds", "shape [4]"],
    );
    let (mut x, mut y) = (i32s(&[1, 2, 3, 4]), vec![0u8; 16]);
    expect_err(
        "oob_load",
        &mut [
            buf(&mut x, &[4], DataType::INT32),
            buf(&mut y, &[4], DataType::INT32),
        ],
        &["`A`", "[4]", "out of bounds"],
    );
    let (mut p, mut q) = (i32s(&[7, 0]), vec![0u8; 8]);
    expect_err(
        "div",
        &mut [
            buf(&mut p, &[2], DataType::INT32),
            buf(&mut q, &[2], DataType::INT32),
        ],
        &["division by zero"],
    );
}

#[test]
fn if_then_else_is_lazy_and_floor_division_rounds_down() {
    let f = funcs();
    let mut a = f32s(&[1.0, 2.0, 3.0, 4.0]);
    let mut b = vec![0u8; 24];
    let r = run(
        &f["guarded"],
        &mut [
            buf(&mut a, &[4], DataType::FLOAT32),
            buf(&mut b, &[6], DataType::FLOAT32),
        ],
    );
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(b, f32s(&[1.0, 2.0, 3.0, 4.0, -1.0, -1.0]));
    let (mut p, mut q) = (i32s(&[-7, 2]), vec![0u8; 8]);
    let r = run(
        &f["div"],
        &mut [
            buf(&mut p, &[2], DataType::INT32),
            buf(&mut q, &[2], DataType::INT32),
        ],
    );
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(q, i32s(&[-4, -1]));
}

#[test]
fn sorts_are_stable() {
    let f = funcs();
    let mut data = f32s(&[1.0, 3.0, 1.0, 3.0, f32::NAN, 0.0, -0.0, 2.0]);
    let mut out = vec![0u8; 32];
    let r = run(
        &f["argsort_desc"],
        &mut [
            buf(&mut data, &[2, 4], DataType::FLOAT32),
            buf(&mut out, &[2, 4], DataType::INT32),
        ],
    );
    assert!(r.is_ok(), "{r:?}");
    // Descending, ties in index order; NaN is greater than every number; -0.0 == 0.0.
    assert_eq!(out, i32s(&[1, 3, 0, 2, 0, 3, 1, 2]));
    let i64s = |v: &[i64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let mut data = i64s(&[5, -2, 7, -2, 0]);
    let (mut vals, mut idx) = (vec![0u8; 24], vec![0u8; 24]);
    let r = run(
        &f["topk_asc"],
        &mut [
            buf(&mut data, &[5], DataType::INT64),
            buf(&mut vals, &[3], DataType::INT64),
            buf(&mut idx, &[3], DataType::INT64),
        ],
    );
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(vals, i64s(&[-2, -2, 0]));
    assert_eq!(idx, i64s(&[1, 3, 4]));
}
