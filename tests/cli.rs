//! The `relaxjit` command line, run as a user runs it: help and version, flags checked with
//! messages that name them, bounded `--threads`, generated inputs bounded in size (with a flag
//! to raise the limit), `run` of a serialized executable explained, `bench`'s timings, and
//! metadata constants from a case file, and `fmt` of a file holding one function printing that
//! function alone. Modules are in `tests/cli/`.

use std::path::Path;
use std::process::Command;

/// One command line: its arguments (paths relative to the repository root), the exit status,
/// and a piece of text that stdout (`out:`) or stderr (`err:`) must contain.
struct Case {
    args: &'static [&'static str],
    status: i32,
    expect: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        args: &["--help"],
        status: 0,
        expect: &[
            "out:Usage: relaxjit [COMMAND]",
            "out:run",
            "out:inspect",
            "out:fmt",
            "out:bench",
            "out:demo",
            "out:--version",
        ],
    },
    Case {
        args: &["run", "--help"],
        status: 0,
        expect: &[
            "out:Usage: relaxjit run [OPTIONS] <FILE.py>",
            "out:--input <PARAM=FILE.npy>",
            "out:--threads <N>",
            "out:--max-generated <SIZE>",
            "out:bytecode: The bytecode interpreter",
        ],
    },
    Case {
        args: &["inspect", "--help"],
        status: 0,
        expect: &["out:--lowered", "out:--python"],
    },
    Case {
        args: &["fmt", "--help"],
        status: 0,
        expect: &["out:Usage: relaxjit fmt <FILE.py>"],
    },
    Case {
        args: &["--version"],
        status: 0,
        expect: &[concat!("out:relaxjit ", env!("CARGO_PKG_VERSION"))],
    },
    Case {
        args: &["run", "tests/cli/add.py", "--threads", "100000"],
        status: 2,
        expect: &[
            "err:invalid value '100000' for '--threads <N>'",
            "err:1..=1024",
        ],
    },
    Case {
        args: &["run", "tests/cli/add.py", "--threads", "0"],
        status: 2,
        expect: &["err:invalid value '0' for '--threads <N>'"],
    },
    Case {
        args: &["run", "tests/cli/add.py", "--threads", "2"],
        status: 0,
        expect: &["out:output: float32[16]"],
    },
    Case {
        args: &["run", "tests/cli/add.py", "--mode", "compiled"],
        status: 0,
        expect: &["out:output: float32[16]"],
    },
    Case {
        args: &["run", "tests/cli/add.py", "--frobnicate"],
        status: 2,
        expect: &["err:unexpected argument '--frobnicate'"],
    },
    Case {
        args: &[
            "run",
            "tests/cli/add.py",
            "--input",
            "x=examples/b.npy",
            "--input",
            "x=examples/x.npy",
        ],
        status: 2,
        expect: &["err:--input x=… is given more than once"],
    },
    Case {
        args: &["run", "tests/cli/add.py", "--input", "q=examples/b.npy"],
        status: 1,
        expect: &["err:`main` has no parameter `q` (it has: x, y)"],
    },
    Case {
        args: &["run", "tests/conformance/add_same_shape/tvm_exec.bin"],
        status: 1,
        expect: &[
            "err:is a serialized executable",
            "err:relaxjit run MODULE.py",
            "err:relaxjit inspect tests/conformance/add_same_shape/tvm_exec.bin",
        ],
    },
    Case {
        args: &["run", "tests/cli/huge_param.py"],
        status: 1,
        expect: &[
            "err:cannot generate a value for `x`",
            "err:at least 2^63 bytes",
            "err:limit of 1 GiB",
            "err:--max-generated",
        ],
    },
    Case {
        args: &["run", "tests/cli/huge_int32.py"],
        status: 1,
        expect: &[
            "err:cannot generate a value for `x`",
            "err:[2147483648, 2]",
            "err:needs 16 GiB, over the limit of 1 GiB",
        ],
    },
    Case {
        args: &["run", "tests/cli/add.py", "--max-generated", "63"],
        status: 1,
        expect: &[
            "err:cannot generate a value for `x`: a tensor of shape [16] and dtype float32 needs 64 bytes, over the limit of 63 bytes",
        ],
    },
    Case {
        args: &["bench", "tests/cli/add.py", "--iterations", "3"],
        status: 0,
        expect: &[
            "out:compiled tests/cli/add.py in",
            "out:first call:",
            "out:3 calls: median",
            "out:output: float32[16]",
        ],
    },
    Case {
        args: &[
            "bench",
            "tests/conformance/constants_embedded/module.py",
            "--iterations",
            "2",
            "--metadata",
            "tests/conformance/constants_embedded/case.json",
        ],
        status: 0,
        expect: &["out:2 calls: median"],
    },
    Case {
        args: &["run", "tests/conformance/constants_embedded/module.py"],
        status: 1,
        expect: &["err:uses metadata constants", "err:--metadata CASE.json"],
    },
    Case {
        args: &[
            "inspect",
            "--lowered",
            "tests/conformance/constants_embedded/module.py",
            "--metadata",
            "tests/conformance/constants_embedded/case.json",
        ],
        status: 0,
        expect: &[
            "out:@I.ir_module",
            "out:def main(x: R.Tensor((2, 4), dtype=\"float32\")",
        ],
    },
    Case {
        args: &["inspect", "tests/conformance/constants_embedded/module.py"],
        status: 1,
        expect: &["err:uses metadata constants", "err:--metadata CASE.json"],
    },
    Case {
        args: &["run", "tests/cli/add.py", "--metadata", "tests/cli/add.py"],
        status: 1,
        expect: &["err:tests/cli/add.py is not JSON"],
    },
    Case {
        args: &["run", "tests/cli/add.py", "--max-generated", "64"],
        status: 0,
        expect: &["out:input x: float32[16]", "out:(generated)"],
    },
    // ONNX models: inputs by their ONNX names (`0`) or parameter names (`input_1`); the
    // expected output is the model's own test data (-0.60196143).
    Case {
        args: &[
            "run",
            "onnx/tests/data/pytorch-operator/test_operator_basic/model.onnx",
            "--input",
            "0=tests/cli/onnx_basic_input_0.npy",
            "--input",
            "input_1=tests/cli/onnx_basic_input_1.npy",
        ],
        status: 0,
        expect: &[
            "out:input input_0: float32[1] [0.4000]",
            "out:output: float32[1] [-0.6020]",
        ],
    },
    Case {
        args: &[
            "inspect",
            "onnx/tests/data/pytorch-operator/test_operator_basic/model.onnx",
            "--lowered",
        ],
        status: 0,
        expect: &[
            "out:@I.ir_module",
            "out:def main(input_0: R.Tensor((1,), dtype=\"float32\")",
        ],
    },
    Case {
        args: &[
            "run",
            "onnx/tests/data/simple/test_sequence_model1/model.onnx",
        ],
        status: 1,
        expect: &[
            "err:unsupported: op `SequenceEmpty` (node `Seq_empty`, opset 12): operator is not supported",
        ],
    },
];

#[test]
fn command_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    for case in CASES {
        let output = Command::new(env!("CARGO_BIN_EXE_relaxjit"))
            .args(case.args)
            .current_dir(root)
            // The artifact cache of a test run stays in the build directory, not the user's.
            .env(
                "RELAXJIT_CACHE_DIR",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_cache"),
            )
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let mut problems = Vec::new();
        if output.status.code() != Some(case.status) {
            problems.push(format!(
                "exit status {:?}, expected {}",
                output.status.code(),
                case.status
            ));
        }
        for want in case.expect {
            let (stream, text) = match want.split_at(4) {
                ("out:", text) => (&stdout, text),
                ("err:", text) => (&stderr, text),
                _ => panic!("`{want}` must start with out: or err:"),
            };
            if !stream.contains(text) {
                problems.push(format!("missing `{want}`"));
            }
        }
        if !problems.is_empty() {
            failures.push(format!(
                "relaxjit {}: {}\n--- stdout\n{stdout}--- stderr\n{stderr}",
                case.args.join(" "),
                problems.join("; ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `relaxjit fmt` of a file holding one `@R.function` or one `@T.prim_func` (no module class)
/// prints that function alone, as TVM's `func.script()` does: each `tests/cli/fmt_*.py` is
/// TVM 0.27's own printing of the function and must come back unchanged.
#[test]
fn fmt_prints_a_lone_function_as_tvm_does() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("tests/cli"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("fmt_") && n.ends_with(".py"))
        })
        .collect();
    files.sort();
    assert!(files.len() >= 2, "{files:?}");
    let mut failures = Vec::new();
    for path in &files {
        let want = std::fs::read_to_string(path).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_relaxjit"))
            .arg("fmt")
            .arg(path)
            .output()
            .unwrap();
        let got = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() || got != want {
            failures.push(format!(
                "{}: status {:?}\n--- printed\n{got}--- stderr\n{}",
                path.display(),
                output.status.code(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
