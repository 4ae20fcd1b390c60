//! TVMScript as TVM's own tests and users write it, beside the form TVM prints: Python's
//! operators on Relax values (`a + b`, as `relax.Expr` overloads them), `x.astype(...)`,
//! Python tuples for shape arguments (`R.reshape(x, (2, 3))`, as the operators' Python
//! wrappers convert them), `R.Tensor("float32", ndim=2)`, the Python API's `relax.op.*`
//! spellings, `-> None` on a prim_func and `int32` index maps. Each written form must read as the same module as
//! its spelled-out form, and what TVM rejects is an error naming the fault.

use relaxjit_relax::script::parse_module;
use relaxjit_relax::structural_eq::structural_equal;

fn module(params: &str, body: &str) -> String {
    format!(
        "import numpy as np\nfrom tvm.script import ir as I\nfrom tvm.script import relax as R\nfrom tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n    @R.function\n    def main({params}):\n{}\n",
        body.lines()
            .map(|l| format!("        {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

const ABC: &str = "a: R.Tensor((2, 3), \"float32\"), b: R.Tensor((2, 3), \"float32\"), c: R.Tensor((3,), \"float32\")";

#[test]
fn written_forms_read_as_their_spelled_out_forms() {
    let pairs: &[(&str, &str, &str)] = &[
        (ABC, "return a + b", "return R.add(a, b)"),
        (ABC, "return a - b", "return R.subtract(a, b)"),
        (
            ABC,
            "return a * R.const(2.0)",
            "return R.multiply(a, R.const(2.0))",
        ),
        (ABC, "return a / b", "return R.divide(a, b)"),
        (ABC, "return a // b", "return R.floor_divide(a, b)"),
        (ABC, "return a % b", "return R.mod(a, b)"),
        (ABC, "return a ** b", "return R.power(a, b)"),
        (ABC, "return -a", "return R.negative(a)"),
        (ABC, "return a < b", "return R.less(a, b)"),
        (ABC, "return a <= b", "return R.less_equal(a, b)"),
        (ABC, "return a > b", "return R.greater(a, b)"),
        (ABC, "return a >= b", "return R.greater_equal(a, b)"),
        (
            ABC,
            "y = (a + b) * c - R.nn.relu(a + c)\nreturn y",
            "y = R.subtract(R.multiply(R.add(a, b), c), R.nn.relu(R.add(a, c)))\nreturn y",
        ),
        (
            ABC,
            "t = (a, b)\nreturn t[0] + t[1]",
            "t = (a, b)\nreturn R.add(t[0], t[1])",
        ),
        (
            ABC,
            "return a.astype(\"float16\")",
            "return R.astype(a, \"float16\")",
        ),
        (
            ABC,
            "return (a + b).astype(dtype=\"int32\")",
            "return R.astype(R.add(a, b), dtype=\"int32\")",
        ),
        (
            ABC,
            "return R.reshape(a, (3, 2))",
            "return R.reshape(a, R.shape([3, 2]))",
        ),
        (
            ABC,
            "return R.broadcast_to(c, [2, 3])",
            "return R.broadcast_to(c, R.shape([2, 3]))",
        ),
        (
            ABC,
            "return R.zeros((2, 3), \"float32\")",
            "return R.zeros(R.shape([2, 3]), \"float32\")",
        ),
        (
            ABC,
            "return R.full((4,), R.const(1.5), \"float32\")",
            "return R.full(R.shape([4]), R.const(1.5), \"float32\")",
        ),
        (
            "x: R.Tensor((1, 3, 4, 4), \"float32\")",
            "return R.image.resize2d(x, 8)",
            "return R.image.resize2d(x, R.shape([8, 8]))",
        ),
        (
            "x: R.Tensor((1, 3, 4, 4), \"float32\")",
            "return R.image.resize2d(x, (8,))",
            "return R.image.resize2d(x, R.shape([8, 8]))",
        ),
        (
            "x: R.Tensor((\"n\", 4), \"float32\")",
            "n = T.int64()\nreturn R.reshape(x, (n * 2, 2))",
            "n = T.int64()\nreturn R.reshape(x, R.shape([n * 2, 2]))",
        ),
        (
            "x: R.Tensor((1, 8, 2, 2), \"float32\")",
            "return R.layout_transform(x, index_map=T.index_map(lambda i0, i1, i2, i3: (i0, i1 // 4, i2, i3, i1 % 4), index_dtype=\"int32\"))",
            "return R.layout_transform(x, index_map=T.index_map(lambda i0, i1, i2, i3: (i0, i1 // 4, i2, i3, i1 % 4)))",
        ),
        (
            ABC,
            "return R.call_pure_packed(\"f\", a, ty_args=a.ty)",
            "return R.call_pure_packed(\"f\", a, ty_args=R.Tensor((2, 3), \"float32\"))",
        ),
        (
            ABC,
            "return R.call_pure_packed(\"f\", c, ty_args=c.struct_info)",
            "return R.call_pure_packed(\"f\", c, ty_args=R.Tensor((3,), \"float32\"))",
        ),
        (
            "x: R.Tensor((16,), \"float32\")",
            "return R.layout_transform(x, index_map=lambda i: (i // 4, i % 4))",
            "return R.layout_transform(x, index_map=T.index_map(lambda i: (i // 4, i % 4)))",
        ),
        (ABC, "\"\"\"The docstring.\"\"\"\nreturn a", "return a"),
        (
            ABC,
            "return R.add(a, R.const(np.eye(2, 3, k=1, dtype=np.float32)))",
            "return R.add(a, R.const(np.array([[0, 1, 0], [0, 0, 1]], \"float32\")))",
        ),
        (ABC, "return relax.op.add(a, b)", "return R.add(a, b)"),
        (
            ABC,
            "return relax.op.nn.softmax(a, axis=0)",
            "return R.nn.softmax(a, axis=0)",
        ),
        ("x: R.Tensor(\"float32\", ndim=2)", "return x", "return x"),
    ];
    let mut failures = Vec::new();
    for (params, written, spelled) in pairs {
        let (w, s) = (module(params, written), module(params, spelled));
        match (parse_module(&w), parse_module(&s)) {
            (Ok(a), Ok(b)) if structural_equal(&a, &b) => {}
            (Ok(_), Ok(_)) => {
                failures.push(format!("`{written}` reads differently from `{spelled}`"))
            }
            (Err(e), _) => failures.push(format!("`{written}`: {e}")),
            (_, Err(e)) => failures.push(format!("`{spelled}`: {e}")),
        }
    }
    // `R.Tensor("float32", ndim=2)` is `R.Tensor(dtype="float32", ndim=2)`.
    let a = parse_module(&module("x: R.Tensor(\"float32\", ndim=2)", "return x")).unwrap();
    let b = parse_module(&module(
        "x: R.Tensor(dtype=\"float32\", ndim=2)",
        "return x",
    ))
    .unwrap();
    if !structural_equal(&a, &b) {
        failures.push("R.Tensor(\"float32\", ndim=2) is not its dtype".into());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn symbolic_arithmetic_stays_tir() {
    // Arithmetic over symbolic variables is a prim value, not an operator call.
    let w = module(
        "x: R.Tensor((\"n\",), \"float32\")",
        "n = T.int64()\nreturn R.prim_value(n * 2 + 1)",
    );
    let m = parse_module(&w).unwrap_or_else(|e| panic!("{e}"));
    let printed = relaxjit_relax::script::print_module(&m);
    assert!(
        printed.contains("return n * 2 + 1") && !printed.contains("R.multiply"),
        "{printed}"
    );
}

#[test]
fn what_tvm_rejects_is_an_error_naming_the_fault() {
    let cases: &[(&str, &str, &str)] = &[
        (
            ABC,
            "return a + 1",
            "must be Relax values: write an integer as `R.const(...)`",
        ),
        (ABC, "return 2.0 * a", "must be Relax values"),
        (ABC, "return a == b", "write `R.equal(a, b)`"),
        (ABC, "return a != b", "write `R.not_equal(a, b)`"),
        (ABC, "return a @ b", "write `R.matmul(a, b)`"),
        (
            ABC,
            "return a & b",
            "bitwise operators are not Relax operators",
        ),
        (ABC, "return a < b < c", "compare two values at a time"),
        (ABC, "return ~a", "only unary `-`"),
        (ABC, "return R.reshape(a, (3, \"x\" + 1))", ""),
    ];
    for (params, body, words) in cases {
        match parse_module(&module(params, body)) {
            Ok(_) => panic!("`{body}` read without an error"),
            Err(e) => assert!(e.to_string().contains(words), "`{body}`: {e}"),
        }
    }
}

#[test]
fn a_prim_func_may_say_it_returns_none() {
    let src = "from tvm.script import ir as I\nfrom tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n    @T.prim_func\n    def f(A: T.Buffer((4,), \"float32\")) -> None:\n        for i in range(4):\n            A[i] = T.float32(0)\n";
    let with = parse_module(src).unwrap_or_else(|e| panic!("{e}"));
    let without = parse_module(&src.replace(" -> None", "")).unwrap();
    assert!(structural_equal(&with, &without));
    let Err(e) = parse_module(&src.replace("-> None", "-> T.int32")) else {
        panic!("`-> T.int32` read without an error");
    };
    assert!(e.to_string().contains("other than `-> None`"), "{e}");
}

/// TIR as TVM's tests write it: `dtype=` on an operator (TVM's script wrappers drop it) and
/// `T.min_value` / `T.max_value` (the type's extreme as a literal).
#[test]
fn tir_operator_forms() {
    let prim = |body: &str| {
        format!(
            "from tvm.script import ir as I\nfrom tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n    @T.prim_func\n    def f(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"int8\")):\n        for i in range(4):\n            {body}\n"
        )
    };
    let pairs = [
        (
            "A[i] = T.exp(A[i], dtype=\"float32\")",
            "A[i] = T.exp(A[i])",
        ),
        (
            "A[i] = T.if_then_else(i < 2, A[i], T.float32(0), dtype=\"float32\")",
            "A[i] = T.if_then_else(i < 2, A[i], T.float32(0))",
        ),
        (
            "A[i] = T.max(A[i], T.min_value(\"float32\"))",
            "A[i] = T.max(A[i], T.float32(-3.4028234663852886e+38))",
        ),
        ("B[i] = T.max_value(\"int8\")", "B[i] = T.int8(127)"),
        ("B[i] = T.min_value(T.int8)", "B[i] = T.int8(-128)"),
    ];
    for (written, spelled) in pairs {
        let a = parse_module(&prim(written)).unwrap_or_else(|e| panic!("{written}: {e}"));
        let b = parse_module(&prim(spelled)).unwrap_or_else(|e| panic!("{spelled}: {e}"));
        assert!(structural_equal(&a, &b), "{written} vs {spelled}");
    }
    for (body, words) in [
        ("A[i] = T.exp(A[i], dtype=\"floot32\")", "unknown data type"),
        (
            "A[i] = T.exp(A[i], lanes=2)",
            "unexpected keyword argument `lanes`",
        ),
        ("A[i] = T.min_value()", "takes a data type"),
    ] {
        let Err(e) = parse_module(&prim(body)) else {
            panic!("{body} read without an error");
        };
        assert!(e.to_string().contains(words), "{body}: {e}");
    }
}

/// `T.grid` as TVM's `Grid` takes it: `*A.shape` unpacked into extents, `(min, extent)` pairs,
/// and one name for all the loop variables (`for iters in T.grid(...)`, then
/// `T.axis.remap(kinds, iters)`).
#[test]
fn tir_grid_forms() {
    let prim = |body: &str| {
        format!(
            "from tvm.script import ir as I\nfrom tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n    @T.prim_func\n    def f(A: T.Buffer((2, 3), \"float32\"), B: T.Buffer((2, 3), \"float32\")):\n{}\n",
            body.lines()
                .map(|l| format!("        {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    };
    let block = |head: &str, remap: &str| {
        format!(
            "{head}\n    with T.sblock(\"b\"):\n        i, j = T.axis.remap(\"SS\", {remap})\n        B[i, j] = A[i, j]"
        )
    };
    let pairs = [
        (
            block("for x, y in T.grid(*A.shape):", "[x, y]"),
            block("for x, y in T.grid(2, 3):", "[x, y]"),
        ),
        (
            block("for iters in T.grid(*A.shape):", "iters"),
            block("for x, y in T.grid(2, 3):", "[x, y]"),
        ),
        (
            block("for iters in T.grid(2, 3):", "iters"),
            block("for x, y in T.grid(2, 3):", "[x, y]"),
        ),
        (
            "for x, y in T.grid((1, 1), 3):\n    B[x, y] = A[x, y]".to_string(),
            "for x in range(1, 2):\n    for y in range(3):\n        B[x, y] = A[x, y]".to_string(),
        ),
    ];
    for (written, spelled) in pairs {
        let a = parse_module(&prim(&written)).unwrap_or_else(|e| panic!("{written}: {e}"));
        let b = parse_module(&prim(&spelled)).unwrap_or_else(|e| panic!("{spelled}: {e}"));
        assert!(structural_equal(&a, &b), "{written}\nvs\n{spelled}");
    }
    for (body, words) in [
        (
            "for x, y in T.grid(*A):\n    B[x, y] = A[x, y]".to_string(),
            "must be a buffer's shape",
        ),
        (
            "for x, y, z in T.grid(*A.shape):\n    B[x, y] = A[x, z]".to_string(),
            "`T.grid` has 2 extents for 3 loop variables",
        ),
        (
            "for iters in T.grid(*A.shape):\n    B[iters, 0] = A[0, 0]".to_string(),
            "bind them with `T.axis.remap(kinds, iters)`",
        ),
        (
            "for x in T.grid(**A.shape):\n    B[x, 0] = A[x, 0]".to_string(),
            "`**kwargs` arguments are not supported",
        ),
    ] {
        let Err(e) = parse_module(&prim(&body)) else {
            panic!("{body} read without an error");
        };
        assert!(e.to_string().contains(words), "{body}: {e}");
    }
}

/// A class docstring, a prim_func docstring and `@R.function(check_well_formed=False)` (TVM's
/// parser option) read as the module without them.
#[test]
fn docstrings_and_parser_options() {
    let plain = "from tvm.script import ir as I\nfrom tvm.script import relax as R\nfrom tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n    @T.prim_func\n    def f(A: T.Buffer((4,), \"float32\")):\n        for i in range(4):\n            A[i] = T.float32(0)\n\n    @R.function\n    def main(x: R.Tensor((4,), \"float32\")):\n        return x\n";
    let written = plain
        .replace(
            "class Module:\n",
            "class Module:\n    \"\"\"A module.\"\"\"\n\n",
        )
        .replace(
            "def f(A: T.Buffer((4,), \"float32\")):\n",
            "def f(A: T.Buffer((4,), \"float32\")):\n        \"\"\"Zeroes A.\"\"\"\n",
        )
        .replace("@R.function\n", "@R.function(check_well_formed=False)\n");
    let a = parse_module(plain).unwrap();
    let b = parse_module(&written).unwrap_or_else(|e| panic!("{e}\n{written}"));
    assert!(structural_equal(&a, &b), "{written}");
}
