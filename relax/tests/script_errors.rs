//! Reader errors: each case is a small module with one fault, the position the error must point
//! at and words its message must contain. The rendered error shows the line and a caret.

use relaxjit_relax as relax;

use relax::script::{ReadOptions, parse_module_with};

/// A module whose `BODY` line is replaced by each case's faulty line(s).
const TEMPLATE: &str = r#"# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func
    def double_it(A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32")):
        for i in range(n):
            B[i] = A[i] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((n,), dtype="float32"), y: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
        cls = Module
BODY
"#;

/// (what, body lines, line, column, message words). Line 16 is the first body line; bodies are
/// indented by 8 spaces, so column 9 is the start of a statement.
const CASES: &[(&str, &str, u32, u32, &str)] = &[
    (
        "well-formed",
        "        gv = R.call_tir(cls.double_it, (x,), out_ty=R.Tensor((n,), dtype=\"float32\"))\n        return gv",
        0,
        0,
        "",
    ),
    (
        "out_ty under its old name, out_sinfo",
        "        gv = R.call_tir(cls.double_it, (x,), out_sinfo=R.Tensor((n,), dtype=\"float32\"))\n        return gv",
        0,
        0,
        "",
    ),
    (
        "out_ty under both names",
        "        gv = R.call_tir(cls.double_it, (x,), out_ty=R.Tensor((n,), dtype=\"float32\"), out_sinfo=R.Tensor((n,), dtype=\"float32\"))\n        return gv",
        16,
        86,
        "unexpected keyword argument `out_sinfo` of `R.call_tir`",
    ),
    (
        "numpy call that is not a constant",
        "        c = R.const(np.random.rand(3))\n        return x",
        16,
        21,
        "`np.random.rand` is not read in `R.const`",
    ),
    (
        "numpy constant too large to write",
        "        c = R.const(np.zeros((1099511627776,), \"float32\"))\n        return x",
        16,
        30,
        "too large to write in the source",
    ),
    (
        "unknown operator",
        "        gv: R.Tensor((n,), dtype=\"float32\") = R.no_such_op(x)\n        return gv",
        16,
        47,
        "unknown operator `R.no_such_op`",
    ),
    (
        "unclosed parenthesis",
        "        gv: R.Tensor((n,), dtype=\"float32\") = R.add(x, y\n        return gv",
        16,
        52,
        "never closed",
    ),
    (
        "undefined variable",
        "        gv: R.Tensor((n,), dtype=\"float32\") = R.add(x, zz)\n        return gv",
        16,
        56,
        "undefined variable `zz`",
    ),
    (
        "metadata of another kind",
        "        c: R.Tensor((n,), dtype=\"float32\") = metadata[\"relax.expr.Constant\"][0]\n        return c",
        16,
        55,
        "only tensor constants are read from metadata",
    ),
    (
        "unknown data type",
        "        gv: R.Tensor((n,), dtype=\"float33\") = R.add(x, y)\n        return gv",
        16,
        34,
        "unknown data type \"float33\"",
    ),
    (
        "unknown struct info",
        "        gv: R.Tensr((n,), dtype=\"float32\") = R.add(x, y)\n        return gv",
        16,
        13,
        "unknown struct info `R.Tensr`",
    ),
    (
        "undefined symbolic variable",
        "        gv: R.Tensor((k,), dtype=\"float32\") = R.add(x, y)\n        return gv",
        16,
        23,
        "undefined symbolic variable `k`",
    ),
    (
        "no such module function",
        "        gv = R.call_tir(cls.triple_it, (x,), out_ty=R.Tensor((n,), dtype=\"float32\"))\n        return gv",
        16,
        25,
        "no function `triple_it`",
    ),
    (
        "unexpected keyword",
        "        gv: R.Tensor((n,), dtype=\"float32\") = R.add(x, y, alpha=2)\n        return gv",
        16,
        59,
        "unexpected keyword argument `alpha` of `R.add`",
    ),
    (
        "missing argument",
        "        gv: R.Tensor((n,), dtype=\"float32\") = R.add(x)\n        return gv",
        16,
        47,
        "missing argument",
    ),
    (
        "missing return",
        "        gv: R.Tensor((n,), dtype=\"float32\") = R.add(x, y)",
        14,
        9,
        "has no `return`",
    ),
    (
        "if without else",
        "        if x:\n            r: R.Tensor((n,), dtype=\"float32\") = x\n        return r",
        16,
        9,
        "needs an `else` branch",
    ),
    (
        "branches assign different variables",
        "        if x:\n            r: R.Tensor((n,), dtype=\"float32\") = x\n        else:\n            q: R.Tensor((n,), dtype=\"float32\") = y\n        return r",
        19,
        13,
        "same variable",
    ),
    (
        "output not defined in the block",
        "        with R.dataflow():\n            gv: R.Tensor((n,), dtype=\"float32\") = R.add(x, y)\n            R.output(gw)\n        return gv",
        18,
        22,
        "`gw` is not defined in this dataflow block",
    ),
    (
        "dataflow variable used after its block",
        "        with R.dataflow():\n            lv: R.Tensor((n,), dtype=\"float32\") = R.add(x, y)\n            gv: R.Tensor((n,), dtype=\"float32\") = R.add(lv, y)\n            R.output(gv)\n        return lv",
        20,
        16,
        "undefined variable `lv`",
    ),
    (
        "match_cast inside an expression",
        "        gv: R.Tuple(R.Tensor((n,), dtype=\"float32\")) = (R.match_cast(x, R.Tensor((n,), dtype=\"float32\")),)\n        return gv",
        16,
        57,
        "whole value of a binding",
    ),
    (
        "bad string dimension",
        "        gv: R.Tensor((\"n +\",), dtype=\"float32\") = R.add(x, y)\n        return gv",
        16,
        23,
        "in dimension \"n +\"",
    ),
    (
        "ndim disagrees with the shape",
        "        gv: R.Tensor((n,), dtype=\"float32\", ndim=2) = R.add(x, y)\n        return gv",
        16,
        13,
        "`ndim` does not match",
    ),
    (
        "statement after return",
        "        return x\n        gv: R.Tensor((n,), dtype=\"float32\") = R.add(x, y)",
        17,
        9,
        "statement after `return`",
    ),
    (
        "tuple index not a literal",
        "        t: R.Tuple(R.Tensor((n,), dtype=\"float32\")) = (x,)\n        gv: R.Tensor((n,), dtype=\"float32\") = t[x]\n        return gv",
        17,
        49,
        "tuple index",
    ),
    (
        "annotated binding whose value does not type",
        "        i = R.astype(y, \"int16\")\n        gv: R.Tensor((n,), dtype=\"float32\") = R.add(x, i)\n        return gv",
        17,
        13,
        "operands must have the same dtype",
    ),
    (
        "annotation that contradicts the value's dtype",
        "        gv: R.Tensor((n,), dtype=\"int32\") = R.add(x, y)\n        return gv",
        16,
        13,
        "contradicts the value's struct info",
    ),
    (
        "annotation that contradicts the value's rank",
        "        gv: R.Tensor((n, n), dtype=\"float32\") = R.add(x, y)\n        return gv",
        16,
        13,
        "contradicts the value's struct info",
    ),
    (
        "annotation that contradicts a constant dimension of the value",
        "        c = R.ones(R.shape([3]), \"float32\")\n        gv: R.Tensor((2147483648,), dtype=\"float32\") = R.add(c, c)\n        return x",
        17,
        13,
        "contradicts the value's struct info R.Tensor((3,)",
    ),
    (
        "derive_func that is not a name",
        "        f: R.Callable(derive_func=3) = R.ExternFunc(\"f\")\n        return x",
        16,
        35,
        "expected a string (`derive_func`",
    ),
    (
        "opaque callable with both ret and derive_func",
        "        f: R.Callable(ret=R.Tensor, derive_func=\"g\") = R.ExternFunc(\"f\")\n        return x",
        16,
        27,
        "takes `ret` or `derive_func`, not both",
    ),
    (
        "extern function value whose type is not a function type",
        "        f = R.ExternFunc(\"f\", R.Tensor((2,), \"float32\"))\n        return x",
        16,
        31,
        "an extern function's type must be an `R.Callable`",
    ),
];

/// `(line, column)` from a rendered `error: L:C: message` report.
fn position(rendered: &str) -> Option<(u32, u32)> {
    let rest = rendered.strip_prefix("error: ")?;
    let mut parts = rest.splitn(3, ':');
    let line = parts.next()?.trim().parse().ok()?;
    let column = parts.next()?.trim().parse().ok()?;
    Some((line, column))
}

#[test]
fn errors_point_at_the_fault() {
    let mut failures = Vec::new();
    for (what, body, line, column, words) in CASES {
        let src = TEMPLATE.replace("BODY\n", &format!("{body}\n"));
        let result = parse_module_with(&src, &ReadOptions::default());
        match (result, *line) {
            (Ok(_), 0) => {}
            (Ok(_), _) => failures.push(format!("{what}: parsed, expected an error")),
            (Err(e), 0) => failures.push(format!("{what}: unexpected error\n{e}")),
            (Err(e), _) => {
                let text = e.to_string();
                if position(&text) != Some((*line, *column)) {
                    failures.push(format!(
                        "{what}: expected position {line}:{column}, got\n{text}"
                    ));
                } else if !text.contains(words) {
                    failures.push(format!("{what}: expected {words:?} in\n{text}"));
                } else if !text.lines().any(|l| l.trim() == "^") {
                    failures.push(format!("{what}: no caret in\n{text}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn metadata_index_out_of_range_is_positioned() {
    let src = TEMPLATE.replace(
        "BODY\n",
        "        c: R.Tensor((2,), dtype=\"float32\") = metadata[\"ir.GenericConst\"][3]\n        return c\n",
    );
    let table = vec![vm::Tensor::zeros(&[2], vm::DataType::F32).expect("tensor")];
    let e = parse_module_with(&src, &ReadOptions::with_metadata(table)).expect_err("index 3");
    let text = e.to_string();
    assert_eq!(position(&text), Some((16, 74)), "{text}");
    assert!(text.contains("out of range"), "{text}");
}
