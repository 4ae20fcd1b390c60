//! Error positions and messages of the lexer, the parser and the `T.` dialect reader: a table of
//! (source, line, column, message fragment), plus the exact caret rendering of one case.

use relaxjit_tir as tir;

const HEADER: &str = "@I.ir_module\nclass Module:\n    @T.prim_func\n";

/// A module whose only prim_func has `body` (indented by 8 spaces per line) as its body.
fn func(params: &str, body: &str) -> String {
    let mut s = format!("{HEADER}    def f({params}):\n");
    for line in body.lines() {
        s.push_str("        ");
        s.push_str(line);
        s.push('\n');
    }
    s
}

#[test]
fn error_positions() {
    let buf = "A: T.Buffer((4,), \"float32\")";
    let cases: Vec<(String, u32, u32, &str)> = vec![
        // Lexer.
        ("x = \"abc\n".into(), 1, 5, "unterminated string"),
        ("x = (1,\n".into(), 1, 5, "was never closed"),
        ("x = 1)\n".into(), 1, 6, "unmatched `)`"),
        ("x = [1)\n".into(), 1, 7, "does not match"),
        ("x = 1 $ 2\n".into(), 1, 7, "unexpected character"),
        ("x = 12ab\n".into(), 1, 5, "invalid number"),
        ("if x:\n        y = 1\n    z = 2\n".into(), 3, 5, "unindent"),
        // Parser.
        (
            "def f(1):\n    pass\n".into(),
            1,
            7,
            "expected a parameter name",
        ),
        ("def f()\n    pass\n".into(), 1, 8, "expected `:`"),
        (
            "def f():\npass\n".into(),
            2,
            1,
            "expected an indented block",
        ),
        ("x = \n".into(), 1, 5, "expected an expression"),
        (
            "f(a=1, 2)\n".into(),
            1,
            8,
            "positional argument after keyword",
        ),
        ("1 = x\n".into(), 1, 1, "cannot assign to an integer"),
        ("x = lambda a=1: a\n".into(), 1, 13, "has a default value"),
        ("x = lambda *a: a\n".into(), 1, 12, "`*args`"),
        ("x = lambda **a: a\n".into(), 1, 12, "`**kwargs`"),
        (
            "x = lambda a, a: a\n".into(),
            1,
            15,
            "duplicate lambda parameter `a`",
        ),
        (
            "x = lambda 1: 1\n".into(),
            1,
            12,
            "expected a lambda parameter name",
        ),
        (
            "x = lambda (a): a\n".into(),
            1,
            12,
            "expected a lambda parameter name",
        ),
        ("x = lambda a b: a\n".into(), 1, 14, "expected `:`"),
        ("  x = 1\n".into(), 1, 3, "unexpected indent"),
        ("@T.prim_func\nx = 1\n".into(), 2, 1, "`def` or `class`"),
        ("x = a if b\n".into(), 1, 11, "expected `else`"),
        (
            format!("x = {}1{}\n", "(".repeat(300), ")".repeat(300)),
            1,
            104,
            "nesting too deep",
        ),
        // Dialect reader.
        (func(buf, "A[0] = B[0]"), 5, 16, "undefined buffer `B`"),
        (
            func(buf, "A[0, 1] = T.float32(0)"),
            5,
            11,
            "has 1 dimensions, 2 indices",
        ),
        (
            func(buf, "A[0] = T.foo(1)"),
            5,
            16,
            "unsupported TIR intrinsic `T.foo`",
        ),
        (
            func(buf, "for i in T.what(4):\n    A[i] = T.float32(0)"),
            5,
            18,
            "unsupported loop iterator",
        ),
        (
            func(buf, "T.reads(A[0])"),
            5,
            9,
            "only allowed inside `T.sblock`",
        ),
        (
            func(buf, "A[0] = T.Cast(\"int64\", A[1])"),
            5,
            16,
            "cannot store a int64 value",
        ),
        (
            func(
                buf,
                "x: T.let[T.int32] = T.float32(1.0)\nA[0] = T.float32(0)",
            ),
            5,
            29,
            "declared int32",
        ),
        (func(buf, "A[0] = y"), 5, 16, "undefined name `y`"),
        // Scalar locals and bindings.
        (
            func(buf, "x: T.let[T.int32]\nA[0] = T.float32(0)"),
            5,
            9,
            "`x` needs a value",
        ),
        (
            func(
                buf,
                "x: T.float32 = T.float32(0)\nx = T.Cast(\"int64\", A[0])",
            ),
            6,
            13,
            "cannot store a int64 value into buffer `x`",
        ),
        (
            func(buf, "x = T.bind()\nA[0] = x"),
            5,
            13,
            "`T.bind(value)` needs a value",
        ),
        (
            func(buf, "x = T.Bind(T.float32(1), T.int32)\nA[0] = x"),
            5,
            34,
            "bound as int32 but its value is float32",
        ),
        (func(buf, "A[0] = A"), 5, 16, "used as a value"),
        (func("A", "pass"), 4, 11, "needs a type annotation"),
        (
            func(
                buf,
                "with T.sblock(\"b\"):\n    vi = T.axis.remap(\"S\", [0])",
            ),
            6,
            37,
            "binds loop variables only",
        ),
        (
            func(
                buf,
                "with T.sblock(\"b\"):\n    vi, vj = T.axis.remap(\"SX\", [0, 1])",
            ),
            6,
            35,
            "unknown iteration kind",
        ),
        (
            func(buf, "A[0] = T.float32(\"one\")"),
            5,
            26,
            "invalid float literal",
        ),
        (
            func(buf, "A[0] = T.int8(300)"),
            5,
            23,
            "does not fit in int8",
        ),
        (func(buf, "return 1"), 5, 9, "`return` is not supported"),
        (
            func(buf, "A[0] = lambda i: i"),
            5,
            16,
            "a lambda is not a TIR expression",
        ),
        (
            func(buf, "with open(\"x\"):\n    pass"),
            5,
            14,
            "unsupported `with` context",
        ),
    ];
    let mut failures = Vec::new();
    for (src, line, column, fragment) in &cases {
        match tir::parse_module_prim_funcs(src) {
            Ok(_) => failures.push(format!("no error for:\n{src}")),
            Err(e) => {
                if e.line != *line || e.column != *column || !e.message.contains(fragment) {
                    failures.push(format!(
                        "want {line}:{column} {fragment:?}, got {}:{} {:?}\n{}",
                        e.line,
                        e.column,
                        e.message,
                        e.render(src)
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn caret_rendering() {
    let src = "x = 1\ny = foo(1, \n  2 3)\n";
    let e = tir::syntax::parse_module(src).expect_err("must fail");
    assert_eq!(
        e.render(src),
        "error: 3:5: expected `)`, found integer `3`\n3 |   2 3)\n        ^\n"
    );
}

#[test]
fn deep_nesting_is_bounded() {
    // Every shape of nesting either parses (shallow) or is an error (deep); none may overflow
    // the stack of a test thread.
    for d in [40usize, 98, 500] {
        let sources = [
            format!("x = {}1{}\n", "(".repeat(d), ")".repeat(d)),
            format!("x = {}1{}\n", "f(".repeat(d), ")".repeat(d)),
            format!("x = {}1{}\n", "[".repeat(d), "]".repeat(d)),
            format!("x = {}1{}\n", "{1: ".repeat(d), "}".repeat(d)),
            format!("x = {}1\n", "-".repeat(d)),
            format!("x = {}1\n", "not ".repeat(d)),
            format!("x = 1{}\n", " + 1".repeat(d)),
            format!("x = 1{}\n", " and 1".repeat(d)),
            format!("x = 1{}\n", " < 1".repeat(d)),
            format!("x = 2{}\n", " ** 2".repeat(d)),
            format!("x = a{}\n", "[0]".repeat(d)),
            format!("x = {}1\n", "lambda: ".repeat(d)),
            format!("x = a{}\n", ".b".repeat(d)),
            format!("x = {}1{}\n", "a[".repeat(d), "]".repeat(d)),
            (0..d)
                .map(|i| format!("{}if x:\n", "    ".repeat(i)))
                .collect::<String>()
                + &"    ".repeat(d)
                + "pass\n",
        ];
        for src in &sources {
            let parsed = tir::syntax::parse_module(src);
            assert!(
                d < 100 || parsed.is_err(),
                "depth {d} accepted: {}",
                &src[..20]
            );
        }
        let body = format!(
            "A[0] = {}T.float32(1.0){}",
            "T.max(".repeat(d),
            ", T.float32(0))".repeat(d)
        );
        let src = func("A: T.Buffer((4,), \"float32\")", &body);
        if let Ok(f) = tir::parse_module_prim_funcs(&src) {
            assert!(!tir::print_prim_func(&f[0]).is_empty());
        }
    }
}

#[test]
fn lambdas_parse_with_plain_parameters() {
    use tir::syntax::ast::ExprKind;
    let e = tir::syntax::parse_expr("lambda a, b_1: (a, b_1 // 3)").expect("parses");
    let ExprKind::Lambda { params, body } = &e.kind else {
        panic!("not a lambda: {e:?}");
    };
    let names: Vec<&str> = params.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b_1"]);
    assert!(matches!(&body.kind, ExprKind::Tuple(items) if items.len() == 2));
    // No parameters, a trailing comma, and a lambda as a call argument.
    let e = tir::syntax::parse_expr("lambda: ()").expect("parses");
    assert!(matches!(&e.kind, ExprKind::Lambda { params, .. } if params.is_empty()));
    let e = tir::syntax::parse_expr("lambda i,: i").expect("parses");
    assert!(matches!(&e.kind, ExprKind::Lambda { params, .. } if params.len() == 1));
    let e =
        tir::syntax::parse_expr("T.index_map(lambda i: (i // 4, i % 4), index_dtype=\"int64\")")
            .expect("parses");
    let ExprKind::Call { args, keywords, .. } = &e.kind else {
        panic!("not a call: {e:?}");
    };
    assert!(matches!(&args[0].kind, ExprKind::Lambda { .. }));
    assert_eq!(keywords[0].name, "index_dtype");
    // The body is one expression: a bare tuple after it is the enclosing tuple's.
    let e = tir::syntax::parse_expr("(lambda i: i, 2)").expect("parses");
    assert!(matches!(&e.kind, ExprKind::Tuple(items) if items.len() == 2));
}
