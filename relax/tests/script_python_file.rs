//! A TVMScript file as a TVM user has it is a Python file: its imports of tvm, numpy and
//! typing are accepted anywhere at the top level; any other top-level Python is an error that
//! names the line.

use relaxjit_relax::script::parse_module;

const MODULE: &str = "@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), \"float32\")):
        return R.exp(x)
";

fn error_of(src: &str) -> String {
    match parse_module(src) {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn imports_of_tvm_numpy_and_typing_are_accepted() {
    let src = format!(
        "# a model\nimport numpy as np\nimport tvm\nfrom tvm.script import (\n    ir as I,\n    relax as R,\n)\nfrom typing import TypeVar\n\n{MODULE}from tvm.script import tirx as T  # after the class too\n"
    );
    let m = parse_module(&src).expect("parses");
    assert!(m.relax_function("main").is_some());
}

#[test]
fn other_top_level_python_is_an_error_naming_the_line() {
    let e = error_of(&format!("import torch\n{MODULE}"));
    assert!(
        e.contains("1:1") && e.contains("may import only tvm, numpy and typing"),
        "{e}"
    );
    let e = error_of(&format!(
        "from tvm.script import relax as R\nx = 5\n{MODULE}"
    ));
    assert!(e.contains("2:1") && e.contains("not TVMScript"), "{e}");
    let e = error_of(&format!("{MODULE}print(Module)\n"));
    assert!(e.contains("6:1") && e.contains("not TVMScript"), "{e}");
}

/// TVM's own tests and older tutorials write `@tvm.script.ir_module`, and newer ones pass the
/// parser's options `check_well_formed` and `s_tir`; all read as `@I.ir_module` does.
#[test]
fn module_decorators_as_tvm_accepts_them() {
    let body = MODULE.strip_prefix("@I.ir_module\n").unwrap();
    let plain = parse_module(MODULE).expect("parses");
    for decorator in [
        "@tvm.script.ir_module",
        "@I.ir_module(s_tir=True)",
        "@I.ir_module(check_well_formed=False, s_tir=True)",
        "@tvm.script.ir_module(check_well_formed=False)",
    ] {
        let m = parse_module(&format!("import tvm\n{decorator}\n{body}"))
            .unwrap_or_else(|e| panic!("{decorator}: {e}"));
        assert!(
            relaxjit_relax::structural_eq::structural_equal(&m, &plain),
            "{decorator}"
        );
    }
    for (decorator, words) in [
        (
            "@I.ir_module(target=\"llvm\")",
            "unexpected keyword argument `target` of `I.ir_module`",
        ),
        ("@I.ir_module(s_tir=1)", "expected `True` or `False`"),
        ("@I.ir_module(True)", "keyword arguments only"),
        (
            "@R.function",
            "expected `@I.ir_module` before the module class",
        ),
        ("@I.ir_module\n@I.ir_module", "expected one decorator"),
    ] {
        let e = error_of(&format!("{decorator}\n{body}"));
        assert!(e.contains(words), "{decorator}: {e}");
    }
}
