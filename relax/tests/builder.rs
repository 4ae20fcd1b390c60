//! The Rust builder API: models built with [`BlockBuilder`] get the struct info TVM infers,
//! print as the TVMScript TVM prints for the same model (byte for byte against the corpus),
//! parse back to an equal module and pass the well-formedness checker; misuse of the builder
//! and malformed modules give errors that say what is wrong.

use std::path::Path;

use relax::block_builder::BlockBuilder;
use relax::normalize::Normalizer;
use relax::op::make_call;
use relax::struct_info_ops::{describe, struct_info_provably_equal};
use relax::{
    AttrValue, Attrs, BaseFunc, Binding, BindingBlock, Callee, Constant, Expr, ExprKind, Function,
    IRModule, If, SeqExpr, StructInfo, Var, well_formed,
};
use relaxjit_relax as relax;
use tir::{BinaryOp, DataType, PrimExpr};

const F32: DataType = DataType::FLOAT32;

fn d(v: i64) -> PrimExpr {
    PrimExpr::i64(v)
}

fn t(dims: &[PrimExpr]) -> StructInfo {
    StructInfo::tensor(dims.to_vec(), F32)
}

fn call(op: &str, args: &[&Var], attrs: &[(&str, AttrValue)]) -> Expr {
    let mut a = Attrs::new();
    for (k, v) in attrs {
        a.set(k, v.clone());
    }
    make_call(
        op,
        args.iter().map(|v| Expr::var(v)).collect(),
        a,
        Vec::new(),
    )
    .expect("known operator")
}

fn shape(dims: &[i64]) -> Expr {
    Expr::shape(dims.iter().map(|&v| d(v)).collect())
}

fn corpus(case: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/conformance")
        .join(case)
        .join("module.py");
    std::fs::read_to_string(p).expect("corpus file")
}

fn assert_si(v: &Var, want: &StructInfo) {
    assert!(
        struct_info_provably_equal(v.struct_info(), want),
        "`{}`: inferred {}, expected {}",
        v.name(),
        describe(v.struct_info()),
        describe(want)
    );
}

/// Prints, parses back, compares; checks well-formedness.
fn round_trip(m: &IRModule) -> String {
    well_formed::check(m).expect("well-formed");
    let text = relax::print_module(m);
    let again = relax::parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(
        relax::structural_eq::structural_diff(m, &again).is_none(),
        "round trip differs:\n{text}"
    );
    text
}

#[test]
fn mlp_with_symbolic_batch_prints_like_tvm() {
    let batch = tir::Var::new("batch", DataType::INT64);
    let b: PrimExpr = batch.clone().into();
    let x = Var::new("x", t(&[b.clone(), d(8)]));
    let w1 = Var::new("w1", t(&[d(8), d(16)]));
    let b1 = Var::new("b1", t(&[d(16)]));
    let w2 = Var::new("w2", t(&[d(16), d(4)]));
    let b2 = Var::new("b2", t(&[d(4)]));
    let mut bb = BlockBuilder::new();
    bb.function(
        "main",
        vec![x.clone(), w1.clone(), b1.clone(), w2.clone(), b2.clone()],
    )
    .unwrap();
    bb.dataflow().unwrap();
    let h = bb
        .emit_named("h", call("relax.matmul", &[&x, &w1], &[]))
        .unwrap();
    let h1 = bb
        .emit_named("h1", call("relax.add", &[&h, &b1], &[]))
        .unwrap();
    let h2 = bb
        .emit_named("h2", call("relax.nn.relu", &[&h1], &[]))
        .unwrap();
    let o = bb
        .emit_named("o", call("relax.matmul", &[&h2, &w2], &[]))
        .unwrap();
    let o1 = bb
        .emit_named("o1", call("relax.add", &[&o, &b2], &[]))
        .unwrap();
    let p = bb
        .emit_output_named("p", call("relax.nn.softmax", &[&o1], &[]))
        .unwrap();
    bb.end_dataflow().unwrap();
    bb.emit_func_output(p.clone().into()).unwrap();
    for (v, n) in [(&h, 16), (&h1, 16), (&h2, 16), (&o, 4), (&o1, 4), (&p, 4)] {
        assert_si(v, &t(&[b.clone(), d(n)]));
    }
    assert!(h.is_dataflow() && !p.is_dataflow());
    let m = bb.finalize();
    let text = round_trip(&m);
    assert_eq!(text, corpus("model_mlp_symbolic_batch"));
}

#[test]
fn mnist_mlp_n_by_784_to_n_by_10() {
    let n = tir::Var::new("n", DataType::INT64);
    let nn: PrimExpr = n.clone().into();
    let x = Var::new("x", t(&[nn.clone(), d(784)]));
    let w1 = Var::new("w1", t(&[d(784), d(128)]));
    let b1 = Var::new("b1", t(&[d(128)]));
    let w2 = Var::new("w2", t(&[d(128), d(10)]));
    let b2 = Var::new("b2", t(&[d(10)]));
    let mut bb = BlockBuilder::new();
    bb.function(
        "main",
        vec![x.clone(), w1.clone(), b1.clone(), w2.clone(), b2.clone()],
    )
    .unwrap();
    bb.dataflow().unwrap();
    // Nested calls are bound to fresh variables first (A-normal form).
    let hidden = make_call(
        "relax.nn.relu",
        vec![
            make_call(
                "relax.add",
                vec![call("relax.matmul", &[&x, &w1], &[]), b1.clone().into()],
                Attrs::new(),
                vec![],
            )
            .unwrap(),
        ],
        Attrs::new(),
        vec![],
    )
    .unwrap();
    let h = bb.emit(hidden).unwrap();
    assert_si(&h, &t(&[nn.clone(), d(128)]));
    let logits = bb.emit(call("relax.matmul", &[&h, &w2], &[])).unwrap();
    let out = bb
        .emit_output(call("relax.add", &[&logits, &b2], &[]))
        .unwrap();
    bb.end_dataflow().unwrap();
    bb.emit_func_output(out.clone().into()).unwrap();
    assert_si(&out, &t(&[nn.clone(), d(10)]));
    let m = bb.finalize();
    let f = m.relax_function("main").unwrap();
    assert_eq!(f.body.blocks.len(), 1);
    assert_eq!(
        f.body.blocks[0].bindings.len(),
        5,
        "matmul, add, relu, matmul, add"
    );
    assert!(struct_info_provably_equal(
        &f.ret_struct_info,
        &t(&[nn, d(10)])
    ));
    let text = round_trip(&m);
    assert!(
        text.contains("n = T.int64()") || text.contains("n = TypeVar(\"n\")"),
        "{text}"
    );
    assert!(
        text.contains("R.Tensor((n, 10), dtype=\"float32\")"),
        "{text}"
    );
}

#[test]
fn transformer_block_prints_like_tvm() {
    let p = |name: &str, dims: &[i64]| {
        Var::new(name, t(&dims.iter().map(|&v| d(v)).collect::<Vec<_>>()))
    };
    let x = p("x", &[8, 32]);
    let (wq, wk, wv, wo) = (
        p("wq", &[32, 32]),
        p("wk", &[32, 32]),
        p("wv", &[32, 32]),
        p("wo", &[32, 32]),
    );
    let (g1, b1) = (p("g1", &[32]), p("b1", &[32]));
    let (w_up, b_up) = (p("w_up", &[32, 64]), p("b_up", &[64]));
    let (w_down, b_down) = (p("w_down", &[64, 32]), p("b_down", &[32]));
    let (g2, b2) = (p("g2", &[32]), p("b2", &[32]));
    let params = vec![
        x.clone(),
        wq.clone(),
        wk.clone(),
        wv.clone(),
        wo.clone(),
        g1.clone(),
        b1.clone(),
        w_up.clone(),
        b_up.clone(),
        w_down.clone(),
        b_down.clone(),
        g2.clone(),
        b2.clone(),
    ];
    let axes = |v: &[i64]| AttrValue::List(v.iter().map(|&i| AttrValue::Int(i)).collect());
    let mut bb = BlockBuilder::new();
    bb.function("main", params).unwrap();
    bb.dataflow().unwrap();
    let q = bb
        .emit_named("q", call("relax.matmul", &[&x, &wq], &[]))
        .unwrap();
    let k = bb
        .emit_named("k", call("relax.matmul", &[&x, &wk], &[]))
        .unwrap();
    let v = bb
        .emit_named("v", call("relax.matmul", &[&x, &wv], &[]))
        .unwrap();
    let reshape = |bb: &mut BlockBuilder, name: &str, x: &Var, dims: &[i64]| {
        let e = make_call(
            "relax.reshape",
            vec![x.clone().into(), shape(dims)],
            Attrs::new(),
            vec![],
        )
        .unwrap();
        bb.emit_named(name, e).unwrap()
    };
    let lv3 = reshape(&mut bb, "lv3", &q, &[8, 2, 16]);
    let qh = bb
        .emit_named(
            "qh",
            call("relax.permute_dims", &[&lv3], &[("axes", axes(&[1, 0, 2]))]),
        )
        .unwrap();
    let lv5 = reshape(&mut bb, "lv5", &k, &[8, 2, 16]);
    let kh = bb
        .emit_named(
            "kh",
            call("relax.permute_dims", &[&lv5], &[("axes", axes(&[1, 2, 0]))]),
        )
        .unwrap();
    let lv7 = reshape(&mut bb, "lv7", &v, &[8, 2, 16]);
    let vh = bb
        .emit_named(
            "vh",
            call("relax.permute_dims", &[&lv7], &[("axes", axes(&[1, 0, 2]))]),
        )
        .unwrap();
    let s = bb
        .emit_named("s", call("relax.matmul", &[&qh, &kh], &[]))
        .unwrap();
    let quarter = Expr::new(ExprKind::Constant(Constant {
        data: vm::Tensor::from_slice(&[], &[0.25f32]).unwrap(),
        struct_info: t(&[]),
        metadata_index: None,
    }));
    let s1 = bb
        .emit_named(
            "s1",
            make_call(
                "relax.multiply",
                vec![s.clone().into(), quarter],
                Attrs::new(),
                vec![],
            )
            .unwrap(),
        )
        .unwrap();
    let pr = bb
        .emit_named("p", call("relax.nn.softmax", &[&s1], &[]))
        .unwrap();
    let a = bb
        .emit_named("a", call("relax.matmul", &[&pr, &vh], &[]))
        .unwrap();
    let lv13 = bb
        .emit_named(
            "lv13",
            call("relax.permute_dims", &[&a], &[("axes", axes(&[1, 0, 2]))]),
        )
        .unwrap();
    let a1 = reshape(&mut bb, "a1", &lv13, &[8, 32]);
    let o = bb
        .emit_named("o", call("relax.matmul", &[&a1, &wo], &[]))
        .unwrap();
    let r1 = bb
        .emit_named("r1", call("relax.add", &[&x, &o], &[]))
        .unwrap();
    let n1 = bb
        .emit_named(
            "n1",
            call(
                "relax.nn.layer_norm",
                &[&r1, &g1, &b1],
                &[("axes", AttrValue::Int(-1))],
            ),
        )
        .unwrap();
    let lv18 = bb
        .emit_named("lv18", call("relax.matmul", &[&n1, &w_up], &[]))
        .unwrap();
    let u = bb
        .emit_named("u", call("relax.add", &[&lv18, &b_up], &[]))
        .unwrap();
    let ug = bb
        .emit_named("ug", call("relax.nn.gelu", &[&u], &[]))
        .unwrap();
    let lv21 = bb
        .emit_named("lv21", call("relax.matmul", &[&ug, &w_down], &[]))
        .unwrap();
    let dd = bb
        .emit_named("d", call("relax.add", &[&lv21, &b_down], &[]))
        .unwrap();
    let r2 = bb
        .emit_named("r2", call("relax.add", &[&n1, &dd], &[]))
        .unwrap();
    let n2 = bb
        .emit_output_named(
            "n2",
            call(
                "relax.nn.layer_norm",
                &[&r2, &g2, &b2],
                &[("axes", axes(&[-1]))],
            ),
        )
        .unwrap();
    bb.end_dataflow().unwrap();
    bb.emit_func_output(n2.clone().into()).unwrap();
    for (var, dims) in [
        (&qh, vec![2, 8, 16]),
        (&kh, vec![2, 16, 8]),
        (&s, vec![2, 8, 8]),
        (&a, vec![2, 8, 16]),
        (&a1, vec![8, 32]),
        (&ug, vec![8, 64]),
        (&n2, vec![8, 32]),
    ] {
        assert_si(var, &t(&dims.iter().map(|&v| d(v)).collect::<Vec<_>>()));
    }
    let m = bb.finalize();
    let text = round_trip(&m);
    assert_eq!(text, corpus("model_transformer_encoder"));
}

#[test]
fn builder_misuse_and_type_errors_are_reported() {
    let x = Var::new("x", t(&[d(2), d(3)]));
    let mut bb = BlockBuilder::new();
    let e = bb.emit(call("relax.exp", &[&x], &[])).unwrap_err();
    assert!(e.to_string().contains("no function is being built"), "{e}");
    bb.function("f", vec![x.clone()]).unwrap();
    assert!(bb.function("g", vec![]).is_err());
    assert!(bb.end_dataflow().is_err());
    let e = bb.emit_output(call("relax.exp", &[&x], &[])).unwrap_err();
    assert!(
        e.to_string()
            .contains("only allowed inside a dataflow block"),
        "{e}"
    );
    bb.dataflow().unwrap();
    assert!(bb.dataflow().is_err(), "dataflow blocks do not nest");
    let sh = Var::new("sh", StructInfo::shape(vec![d(3), d(2)]));
    let e = bb.emit(call("relax.matmul", &[&x, &sh], &[])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "R.matmul: argument 1 (x2) must be a tensor, got R.Shape([3, 2])"
    );
    let y = Var::new("y", t(&[d(4)]));
    let e = bb.emit(call("relax.add", &[&x, &y], &[])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "R.add: cannot broadcast (2, 3) with (4,) at dimension 1"
    );
    let lv = bb.emit(call("relax.exp", &[&x], &[])).unwrap();
    let e = bb.emit_func_output(lv.clone().into()).unwrap_err();
    assert!(e.to_string().contains("end the dataflow block"), "{e}");
    bb.end_dataflow().unwrap();
    let e = bb.emit_func_output(lv.into()).unwrap_err();
    assert!(
        e.to_string()
            .contains("dataflow variable `lv0` outside its block"),
        "{e}"
    );
    let e = bb
        .emit_annotated("z", call("relax.exp", &[&x], &[]), t(&[d(3), d(2)]))
        .unwrap_err();
    assert!(
        e.to_string().contains("is annotated R.Tensor((3, 2)"),
        "{e}"
    );
    let z = bb.emit(call("relax.exp", &[&x], &[])).unwrap();
    bb.emit_func_output(z.into()).unwrap();
    assert!(bb.module().relax_function("f").is_some());
}

#[test]
fn match_cast_defines_symbolic_dims() {
    let x = Var::new("x", StructInfo::tensor_ndim(2, Some(F32)));
    let n = tir::Var::new("n", DataType::INT64);
    let m = tir::Var::new("m", DataType::INT64);
    let mut bb = BlockBuilder::new();
    bb.function("main", vec![x.clone()]).unwrap();
    let y = bb
        .match_cast(x.clone().into(), t(&[n.clone().into(), m.clone().into()]))
        .unwrap();
    let z = bb.emit(call("relax.permute_dims", &[&y], &[])).unwrap();
    assert_si(&z, &t(&[m.into(), n.into()]));
    let e = bb.match_cast(x.into(), t(&[d(2)])).unwrap_err();
    assert!(e.to_string().contains("can never match"), "{e}");
    bb.emit_func_output(z.into()).unwrap();
    well_formed::check(bb.module()).unwrap();
}

fn function(
    name: &str,
    params: Vec<Var>,
    blocks: Vec<BindingBlock>,
    body: Expr,
    ret: StructInfo,
) -> Function {
    Function {
        name: name.into(),
        params,
        body: SeqExpr { blocks, body },
        ret_struct_info: ret,
        is_pure: true,
        private: false,
        attrs: Attrs::new(),
    }
}

fn module(funcs: Vec<Function>) -> IRModule {
    let mut m = IRModule::new();
    for f in funcs {
        m.add(f.name.clone(), BaseFunc::Relax(f));
    }
    m
}

fn bind(var: &Var, value: Expr) -> Binding {
    Binding::Var {
        var: var.clone(),
        value,
    }
}

#[test]
fn calls_of_globals_substitute_symbolic_dims() {
    // def double(a: R.Tensor((n, 4))) -> R.Tensor((n * 2, 4)); main calls it on (3, 4).
    let n = tir::Var::new("n", DataType::INT64);
    let a = Var::new("a", t(&[n.clone().into(), d(4)]));
    let n2 = PrimExpr::binary(BinaryOp::Mul, n.into(), d(2));
    let cat = Var::new("c", t(&[n2.clone(), d(4)]));
    let tup = Expr::tuple(vec![a.clone().into(), a.clone().into()]);
    let concat = make_call("relax.concat", vec![tup], Attrs::new(), vec![]).unwrap();
    let double = function(
        "double",
        vec![a],
        vec![BindingBlock {
            bindings: vec![bind(&cat, concat)],
            dataflow: false,
        }],
        cat.clone().into(),
        t(&[n2, d(4)]),
    );
    let x = Var::new("x", t(&[d(3), d(4)]));
    let y = Var::new("y", t(&[d(6), d(4)]));
    let call_double = Expr::call(
        Callee::Global("double".into()),
        vec![x.clone().into()],
        Attrs::new(),
        vec![],
    );
    let main = function(
        "main",
        vec![x],
        vec![BindingBlock {
            bindings: vec![bind(&y, call_double.clone())],
            dataflow: false,
        }],
        y.into(),
        t(&[d(6), d(4)]),
    );
    let m = module(vec![double, main]);
    let si = Normalizer::new(&m).infer(&call_double).unwrap();
    assert!(
        struct_info_provably_equal(&si, &t(&[d(6), d(4)])),
        "{}",
        describe(&si)
    );
    well_formed::check(&m).unwrap();
    round_trip(&m);
}

#[test]
fn if_unifies_branches() {
    let c = Var::new("c", StructInfo::tensor(vec![], DataType::BOOL));
    let x = Var::new("x", t(&[d(2), d(3)]));
    let y = Var::new("y", t(&[d(4), d(3)]));
    let ife = Expr::new(ExprKind::If(If {
        cond: c.into(),
        then_branch: SeqExpr::just(x.into()),
        else_branch: SeqExpr::just(y.into()),
    }));
    let si = Normalizer::empty().infer(&ife).unwrap();
    assert!(
        struct_info_provably_equal(&si, &StructInfo::tensor_ndim(2, Some(F32))),
        "{}",
        describe(&si)
    );
    let bad = Expr::new(ExprKind::If(If {
        cond: Expr::var(&Var::new("f", t(&[d(2)]))),
        then_branch: SeqExpr::just(Expr::tuple(vec![])),
        else_branch: SeqExpr::just(Expr::tuple(vec![])),
    }));
    let e = Normalizer::empty().infer(&bad).unwrap_err();
    assert!(
        e.to_string()
            .contains("condition of `if` must be a bool scalar"),
        "{e}"
    );
}

#[test]
fn well_formedness_violations_are_named() {
    let x = Var::new("x", t(&[d(2)]));
    let ghost = Var::new("ghost", t(&[d(2)]));
    let lv = Var::dataflow("lv", t(&[d(2)]));
    let gv = Var::new("gv", t(&[d(2)]));
    let exp = |v: &Var| call("relax.exp", &[v], &[]);
    let cases: Vec<(Function, &str)> = vec![
        (
            function(
                "f",
                vec![x.clone()],
                vec![],
                ghost.clone().into(),
                t(&[d(2)]),
            ),
            "variable `ghost` is used but not defined",
        ),
        (
            function(
                "f",
                vec![x.clone()],
                vec![BindingBlock {
                    bindings: vec![bind(&lv, exp(&x))],
                    dataflow: true,
                }],
                lv.clone().into(),
                t(&[d(2)]),
            ),
            "dataflow variable `lv` is used outside the dataflow block",
        ),
        (
            function(
                "f",
                vec![x.clone()],
                vec![BindingBlock {
                    bindings: vec![bind(&lv, exp(&x))],
                    dataflow: false,
                }],
                x.clone().into(),
                t(&[d(2)]),
            ),
            "dataflow variable `lv` is defined outside a dataflow block",
        ),
        (
            function(
                "f",
                vec![x.clone()],
                vec![BindingBlock {
                    bindings: vec![bind(&Var::new("w", t(&[d(3)])), exp(&x))],
                    dataflow: false,
                }],
                x.clone().into(),
                t(&[d(2)]),
            ),
            "`w` is annotated R.Tensor((3,), dtype=\"float32\") but its value has R.Tensor((2,), dtype=\"float32\")",
        ),
        (
            function(
                "f",
                vec![x.clone()],
                vec![BindingBlock {
                    bindings: vec![bind(
                        &gv,
                        Expr::call(
                            Callee::Global("nowhere".into()),
                            vec![x.clone().into()],
                            Attrs::new(),
                            vec![],
                        ),
                    )],
                    dataflow: false,
                }],
                x.clone().into(),
                t(&[d(2)]),
            ),
            "undefined global function `nowhere`",
        ),
        (
            function(
                "f",
                vec![x.clone()],
                vec![BindingBlock {
                    bindings: vec![bind(&gv, exp(&x)), bind(&gv, exp(&x))],
                    dataflow: false,
                }],
                x.clone().into(),
                t(&[d(2)]),
            ),
            "variable `gv` is defined more than once",
        ),
        (
            function(
                "f",
                vec![x.clone()],
                vec![BindingBlock {
                    bindings: vec![bind(
                        &Var::new("s", t(&[tir::Var::new("k", DataType::INT64).into()])),
                        exp(&x),
                    )],
                    dataflow: false,
                }],
                x.clone().into(),
                t(&[d(2)]),
            ),
            "symbolic variable `k`",
        ),
        (
            function("f", vec![x.clone()], vec![], x.clone().into(), t(&[d(5)])),
            "the result has R.Tensor((2,), dtype=\"float32\") but the function is declared to return R.Tensor((5,)",
        ),
    ];
    for (f, want) in cases {
        let m = module(vec![f]);
        let e = well_formed::check(&m).unwrap_err().to_string();
        assert!(e.contains(want), "expected `{want}` in `{e}`");
        assert!(e.contains("in `f`"), "{e}");
    }
}

#[test]
fn make_call_fills_expression_defaults_like_the_reader() {
    let x = Var::new("x", t(&[d(3), d(3)]));
    let tril = make_call("relax.tril", vec![x.clone().into()], Attrs::new(), vec![]).unwrap();
    assert_eq!(tril.as_call().unwrap().args.len(), 2, "k = 0 filled in");
    let n = Var::new("n", StructInfo::prim(DataType::INT64));
    let ar = make_call("relax.arange", vec![Expr::prim(d(5))], Attrs::new(), vec![]).unwrap();
    let c = ar.as_call().unwrap();
    assert_eq!(c.args.len(), 3, "arange(5) is arange(0, 5, 1)");
    assert!(matches!(c.attrs.get("dtype"), Some(AttrValue::DType(dt)) if *dt == DataType::INT64));
    let si = Normalizer::empty().infer(&ar).unwrap();
    assert!(struct_info_provably_equal(
        &si,
        &StructInfo::tensor(vec![d(5)], DataType::INT64)
    ));
    let _ = n;
    // Symbolic arithmetic is simplified: reshape(-1) of (k, 4) into (-1, 2) gives (k * 2, 2).
    let k = tir::Var::new("k", DataType::INT64);
    let y = Var::new("y", t(&[k.clone().into(), d(4)]));
    let r = make_call(
        "relax.reshape",
        vec![y.into(), Expr::shape(vec![d(-1), d(2)])],
        Attrs::new(),
        vec![],
    )
    .unwrap();
    let si = Normalizer::empty().infer(&r).unwrap();
    assert_eq!(describe(&si), "R.Tensor((k * 2, 2), dtype=\"float32\")");
}
