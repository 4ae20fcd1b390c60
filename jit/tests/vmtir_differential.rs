//! Differential property test of compiled exec mode: random bytecode programs (built with the
//! `ExecBuilder`, the way VMCodeGen emits Relax) run by the interpreter and, compiled by
//! `jit::vmtir`, as native functions must give the same result or the same error message.
//!
//! The programs call test packed functions and builtins, branch (If with a merge register and
//! Goto, conditions read directly or through `vm.builtin.read_if_cond`), call other VM
//! functions (with the right and the wrong arity), recurse, build and invoke closures, build
//! and index tuples, and fail: a checked function rejecting negative numbers, arithmetic on a
//! tuple, an index out of range, an If on a tuple. Some functions are left as bytecode at random,
//! so compiled and interpreted functions call each other.

use std::sync::Arc;

use proptest::prelude::*;
use relaxjit_jit::kernel::KernelLibrary;
use relaxjit_jit::vmtir;
use vm::bytecode::Arg;
use vm::{Error, ExecBuilder, Executable, FuncKind, Library, Result, Value, VirtualMachine};

type B = ExecBuilder;

/// Helper functions `f0..f{N-1}`; `fk` may call `fj` only for `j > k`, so calls terminate.
const N_HELPERS: usize = 3;

#[derive(Clone, Debug)]
enum Expr {
    Arg(u8),
    Imm(i8),
    Bin(u8, Box<Expr>, Box<Expr>),
    /// `t.check_nonneg(x)`: x, or an error for a negative x.
    Check(Box<Expr>),
    /// `if c { t } else { e }`; `bool` says whether the condition goes through
    /// `vm.builtin.read_if_cond`.
    If(bool, Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call of a helper (clamped to what the current function may call).
    Call(u8, Box<Expr>, Box<Expr>),
    /// A call of a helper with one argument: an arity error.
    CallBadArity(u8, Box<Expr>),
    /// `rec(clamp(n), x)`: `x` after `clamp(n)` rounds of `rec`'s body.
    Rec(Box<Expr>, Box<Expr>),
    Tuple(Box<Expr>, Box<Expr>),
    /// `tuple_getitem(t, i)`, `i` in 0..=2 (2 is out of range for a pair).
    Get(Box<Expr>, u8),
    /// `invoke_closure(make_closure(f, bound), arg)` = `f(arg, bound)`.
    Closure(u8, Box<Expr>, Box<Expr>),
    /// Evaluates the first (its result discarded into `%void`), then the second.
    Seq(Box<Expr>, Box<Expr>),
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        (0u8..2).prop_map(Expr::Arg),
        any::<i8>().prop_map(Expr::Imm),
    ];
    leaf.prop_recursive(4, 40, 3, |inner| {
        let b = || inner.clone().prop_map(Box::new);
        prop_oneof![
            (0u8..3, b(), b()).prop_map(|(o, x, y)| Expr::Bin(o, x, y)),
            b().prop_map(Expr::Check),
            (any::<bool>(), b(), b(), b()).prop_map(|(r, c, t, e)| Expr::If(r, c, t, e)),
            (any::<u8>(), b(), b()).prop_map(|(f, x, y)| Expr::Call(f, x, y)),
            (any::<u8>(), b()).prop_map(|(f, x)| Expr::CallBadArity(f, x)),
            (b(), b()).prop_map(|(n, x)| Expr::Rec(n, x)),
            (b(), b()).prop_map(|(x, y)| Expr::Tuple(x, y)),
            (b(), 0u8..3).prop_map(|(t, i)| Expr::Get(t, i)),
            (any::<u8>(), b(), b()).prop_map(|(f, x, y)| Expr::Closure(f, x, y)),
            (b(), b()).prop_map(|(x, y)| Expr::Seq(x, y)),
        ]
    })
}

#[derive(Clone, Debug)]
struct Program {
    helpers: Vec<Expr>,
    /// `rec`'s step, over its argument `x` (register 1); no calls.
    step: Expr,
    main: Expr,
    /// Which functions (helpers, rec, main) stay bytecode.
    keep_bytecode: Vec<bool>,
}

fn program() -> impl Strategy<Value = Program> {
    (
        prop::collection::vec(expr(), N_HELPERS),
        expr(),
        expr(),
        prop::collection::vec(prop::bool::weighted(0.25), N_HELPERS + 2),
    )
        .prop_map(|(helpers, step, main, keep_bytecode)| Program {
            helpers,
            step,
            main,
            keep_bytecode,
        })
}

/// Emits expressions of one function.
struct Emitter<'a> {
    ib: &'a mut ExecBuilder,
    next_reg: i64,
    /// Helpers this function may call: `first_callee..N_HELPERS` (none if `first_callee` is
    /// `N_HELPERS`), and whether it may call `rec`.
    first_callee: usize,
    may_recurse: bool,
}

impl Emitter<'_> {
    fn reg(&mut self) -> Arg {
        self.next_reg += 1;
        B::r(self.next_reg - 1)
    }

    fn call(&mut self, name: &str, args: &[Arg]) -> Arg {
        let dst = self.reg();
        self.ib.emit_call(name, args, dst).unwrap();
        dst
    }

    /// A callee for selector `f`, or `None` if this function may call no helper.
    fn helper(&self, f: u8) -> Option<String> {
        let n = N_HELPERS - self.first_callee;
        (n > 0).then(|| format!("f{}", self.first_callee + f as usize % n))
    }

    /// Emits `e`; the result is an argument (register or immediate).
    fn emit(&mut self, e: &Expr) -> Arg {
        match e {
            Expr::Arg(i) => B::r(*i as i64),
            Expr::Imm(v) => B::imm(*v as i64),
            Expr::Bin(op, x, y) => {
                let (x, y) = (self.emit(x), self.emit(y));
                let name = ["t.add", "t.sub", "t.mul"][*op as usize % 3];
                self.call(name, &[x, y])
            }
            Expr::Check(x) => {
                let x = self.emit(x);
                self.call("t.check_nonneg", &[x])
            }
            Expr::If(read, c, t, e) => {
                let c = self.emit(c);
                let c = if *read {
                    self.call("vm.builtin.read_if_cond", &[c])
                } else {
                    self.call("vm.builtin.copy", &[c])
                };
                let if_pc = self.ib.num_instructions();
                self.ib.emit_if(c, 3).unwrap();
                let t = self.emit(t);
                let merge = self.reg();
                self.ib.emit_call("vm.builtin.copy", &[t], merge).unwrap();
                let goto_pc = self.ib.num_instructions();
                self.ib.emit_goto(1);
                let else_pc = self.ib.num_instructions();
                let e = self.emit(e);
                self.ib.emit_call("vm.builtin.copy", &[e], merge).unwrap();
                let end = self.ib.num_instructions();
                self.ib
                    .set_instruction_data(if_pc, 2, (else_pc - if_pc) as i64)
                    .unwrap();
                self.ib
                    .set_instruction_data(goto_pc, 1, (end - goto_pc) as i64)
                    .unwrap();
                merge
            }
            Expr::Call(f, x, y) => {
                let (x, y) = (self.emit(x), self.emit(y));
                match self.helper(*f) {
                    Some(name) => self.call(&name, &[x, y]),
                    None => self.call("t.add", &[x, y]),
                }
            }
            Expr::CallBadArity(f, x) => {
                let x = self.emit(x);
                match self.helper(*f) {
                    Some(name) => self.call(&name, &[x]),
                    None => self.call("t.check_nonneg", &[x]),
                }
            }
            Expr::Rec(n, x) => {
                let (n, x) = (self.emit(n), self.emit(x));
                if self.may_recurse {
                    let n = self.call("t.clamp", &[n]);
                    self.call("rec", &[n, x])
                } else {
                    self.call("t.sub", &[n, x])
                }
            }
            Expr::Tuple(x, y) => {
                let (x, y) = (self.emit(x), self.emit(y));
                self.call("vm.builtin.make_tuple", &[x, y])
            }
            Expr::Get(t, i) => {
                let t = self.emit(t);
                self.call("vm.builtin.tuple_getitem", &[t, B::imm(*i as i64)])
            }
            Expr::Closure(f, bound, arg) => {
                let (bound, arg) = (self.emit(bound), self.emit(arg));
                let name = self.helper(*f).unwrap_or_else(|| "t.add".to_string());
                let func = match self.ib.f(&name) {
                    Ok(a) => a,
                    Err(_) => {
                        self.ib
                            .declare_function(&name, FuncKind::PackedFunc)
                            .unwrap();
                        self.ib.f(&name).unwrap()
                    }
                };
                let clo = self.call("vm.builtin.make_closure", &[func, bound]);
                self.call("vm.builtin.invoke_closure", &[B::vm(), clo, arg])
            }
            Expr::Seq(x, y) => {
                let x = self.emit(x);
                self.ib
                    .emit_call("vm.builtin.copy", &[x], B::void())
                    .unwrap();
                self.emit(y)
            }
        }
    }

    fn finish(&mut self, result: Arg) {
        let result = if result.kind() == Some(vm::bytecode::ArgKind::Register) {
            result
        } else {
            self.call("vm.builtin.copy", &[result])
        };
        self.ib.emit_ret(result).unwrap();
    }
}

fn build(p: &Program) -> Executable {
    let mut ib = B::new();
    // Declare every VM function first, so calls resolve to them.
    for k in 0..N_HELPERS {
        ib.declare_function(&format!("f{k}"), FuncKind::VMFunc)
            .unwrap();
    }
    ib.declare_function("rec", FuncKind::VMFunc).unwrap();
    let define = |ib: &mut ExecBuilder, name: &str, body: &dyn Fn(&mut Emitter)| {
        ib.emit_function(name, 2, &["a", "b"]).unwrap();
        let mut e = Emitter {
            ib,
            next_reg: 2,
            first_callee: N_HELPERS,
            may_recurse: false,
        };
        body(&mut e);
        ib.end_function(name).unwrap();
    };
    for (k, body) in p.helpers.iter().enumerate() {
        define(&mut ib, &format!("f{k}"), &|e: &mut Emitter| {
            e.first_callee = k + 1;
            e.may_recurse = true;
            let r = e.emit(body);
            e.finish(r);
        });
    }
    // rec(n, x) = if n == 0 { x } else { rec(n - 1, step(x)) }
    define(&mut ib, "rec", &|e: &mut Emitter| {
        let c = e.call("t.is_zero", &[B::r(0)]);
        let if_pc = e.ib.num_instructions();
        e.ib.emit_if(c, 3).unwrap();
        let merge = e.reg();
        e.ib.emit_call("vm.builtin.copy", &[B::r(1)], merge)
            .unwrap();
        let goto_pc = e.ib.num_instructions();
        e.ib.emit_goto(1);
        let else_pc = e.ib.num_instructions();
        let n1 = e.call("t.sub", &[B::r(0), B::imm(1)]);
        let x1 = e.emit(&p.step);
        let r = e.call("rec", &[n1, x1]);
        e.ib.emit_call("vm.builtin.copy", &[r], merge).unwrap();
        let end = e.ib.num_instructions();
        e.ib.set_instruction_data(if_pc, 2, (else_pc - if_pc) as i64)
            .unwrap();
        e.ib.set_instruction_data(goto_pc, 1, (end - goto_pc) as i64)
            .unwrap();
        e.finish(merge);
    });
    define(&mut ib, "main", &|e: &mut Emitter| {
        e.first_callee = 0;
        e.may_recurse = true;
        let r = e.emit(&p.main);
        e.finish(r);
    });
    ib.get().unwrap()
}

fn int_op(name: &'static str, f: fn(i64, i64) -> i64) -> impl Fn(&[Value]) -> Result<Value> {
    move |args| {
        if args.len() != 2 {
            return Err(Error::value_error(format!(
                "{name} expects 2 arguments, got {}",
                args.len()
            )));
        }
        Ok(Value::Int(f(args[0].as_int()?, args[1].as_int()?)))
    }
}

fn test_library() -> Library {
    let mut lib = Library::new();
    lib.add_fn("t.add", int_op("t.add", i64::wrapping_add));
    lib.add_fn("t.sub", int_op("t.sub", i64::wrapping_sub));
    lib.add_fn("t.mul", int_op("t.mul", i64::wrapping_mul));
    lib.add_fn("t.check_nonneg", |args| {
        let v = args
            .first()
            .ok_or_else(|| Error::value_error("t.check_nonneg expects 1 argument"))?
            .as_int()?;
        if v < 0 {
            return Err(Error::value_error(format!("{v} is negative")));
        }
        Ok(Value::Int(v))
    });
    lib.add_fn("t.clamp", |args| {
        Ok(Value::Int(args[0].as_int()?.rem_euclid(5)))
    });
    lib.add_fn("t.is_zero", |args| Ok(Value::Bool(args[0].as_int()? == 0)));
    lib
}

/// The outcome of a call as text: the value's debug form or the error's message.
fn outcome(r: Result<Value>) -> String {
    match r {
        Ok(v) => format!("ok {v:?}"),
        Err(e) => format!("error {e}"),
    }
}

fn run_both(p: &Program, args: &[Value]) -> (String, String) {
    let exec = build(p);
    let lib = test_library();
    let bytecode = VirtualMachine::with_library(Arc::new(exec.clone()), &lib).unwrap();
    let compiled = vmtir::compile(&exec, &KernelLibrary::default()).unwrap();
    assert!(compiled.fallbacks.is_empty(), "{:?}", compiled.fallbacks);
    // Turn some functions back into bytecode, so both kinds call each other.
    let mut mixed = (*compiled.executable).clone();
    let mut lib_c = lib.clone();
    for (i, name) in (0..N_HELPERS)
        .map(|k| format!("f{k}"))
        .chain(["rec".to_string(), "main".to_string()])
        .enumerate()
    {
        if p.keep_bytecode[i] {
            let fi = exec.func_index(&name).unwrap();
            mixed.func_table[fi] = exec.func_table[fi].clone();
        }
    }
    assert_eq!(
        mixed
            .func_table
            .iter()
            .filter(|f| f.kind == FuncKind::VMTIRFunc)
            .count(),
        p.keep_bytecode.iter().filter(|k| !**k).count()
    );
    compiled.add_to(&mut lib_c);
    let native = VirtualMachine::with_library(Arc::new(mixed), &lib_c).unwrap();
    (
        outcome(bytecode.invoke("main", args)),
        outcome(native.invoke("main", args)),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn compiled_functions_agree_with_the_interpreter(
        p in program(),
        a in -3i64..6,
        b in -3i64..6,
    ) {
        let (want, got) = run_both(&p, &[Value::Int(a), Value::Int(b)]);
        prop_assert_eq!(want, got);
    }
}

/// A fixed program of every construct, so that a run shows what the generator covers: both
/// modes agree on a value and on an error.
#[test]
fn every_construct_once() {
    use Expr::*;
    let bx = Box::new;
    let p = Program {
        helpers: vec![
            Closure(0, bx(Arg(0)), bx(Arg(1))),
            Tuple(bx(Check(bx(Arg(0)))), bx(Rec(bx(Imm(3)), bx(Arg(1))))),
            Bin(2, bx(Arg(0)), bx(Arg(1))),
        ],
        step: Bin(0, bx(Arg(1)), bx(Imm(2))),
        main: If(
            true,
            bx(Arg(0)),
            bx(Get(bx(Call(1, bx(Arg(0)), bx(Arg(1)))), 1)),
            bx(Seq(bx(CallBadArity(0, bx(Arg(0)))), bx(Imm(1)))),
        ),
        keep_bytecode: vec![false, true, false, false, false],
    };
    let (want, got) = run_both(&p, &[Value::Int(2), Value::Int(5)]);
    assert_eq!(want, got);
    assert_eq!(want, "ok 11");
    let (want, got) = run_both(&p, &[Value::Int(0), Value::Int(5)]);
    assert_eq!(want, got);
    assert!(
        want.starts_with("error ValueError: f0 expects 2 arguments"),
        "{want}"
    );
}
