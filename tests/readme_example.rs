//! README.md's examples are real: the Rust program it shows is `examples/readme.rs` (compiled
//! and run here), the `.npy` files its `relaxjit run` command reads are the ones generated here,
//! and that command prints the result the README promises.
//!
//! `BLESS=1 cargo test --test readme_example` rewrites the example `.npy` files.

use std::path::{Path, PathBuf};

use relaxjit::Tensor;

#[path = "../examples/readme.rs"]
mod readme;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_rust_example_runs() {
    readme::main().expect("the README example runs");
}

#[test]
fn the_readme_shows_the_rust_example_verbatim() {
    let program = std::fs::read_to_string(root().join("examples/readme.rs")).unwrap();
    // The README shows the program without its `//!` line.
    let body: String = program
        .lines()
        .skip_while(|l| l.starts_with("//!"))
        .map(|l| format!("{l}\n"))
        .collect();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("```rust\n{body}```\n")),
        "README.md must show examples/readme.rs (without its first line) in a ```rust block"
    );
}

/// The example inputs of `relaxjit run examples/mlp.py` (the same values as the Rust example)
/// and of `relaxjit run examples/mlp_user.py`.
fn example_inputs() -> Vec<(&'static str, Tensor)> {
    vec![
        (
            "x.npy",
            Tensor::from_slice(&[2, 4], &[1.0f32, 2.0, 3.0, 4.0, -1.0, -2.0, -3.0, -4.0]).unwrap(),
        ),
        (
            "w.npy",
            Tensor::from_slice(&[4, 3], &[0.25f32; 12]).unwrap(),
        ),
        (
            "b.npy",
            Tensor::from_slice(&[3], &[0.5f32, -0.5, 0.0]).unwrap(),
        ),
        // The batch of `relaxjit run examples/mlp_user.py`: (i - 16) / 16 for i in 0..32.
        (
            "mlp_user_x.npy",
            Tensor::from_slice(
                &[2, 16],
                &(0..32).map(|i| (i - 16) as f32 / 16.0).collect::<Vec<_>>(),
            )
            .unwrap(),
        ),
    ]
}

#[test]
fn the_example_npy_files_are_current() {
    let bless = std::env::var_os("BLESS").is_some();
    for (name, t) in example_inputs() {
        let path = root().join("examples").join(name);
        let want = relaxjit::npy::to_npy_bytes(&t).unwrap();
        if bless {
            std::fs::write(&path, &want).unwrap();
        }
        let got = std::fs::read(&path).unwrap_or_default();
        assert!(
            got == want,
            "{} is stale; rerun with BLESS=1",
            path.display()
        );
    }
}

#[test]
fn the_readme_run_command_works() {
    let out_dir = std::env::temp_dir().join(format!("relaxjit-readme-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let y = out_dir.join("y.npy");
    let arg = |s: &str| -> PathBuf { root().join(s) };
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_relaxjit"))
        .arg("run")
        .arg(arg("examples/mlp.py"))
        .arg("--input")
        .arg(format!("x={}", arg("examples/x.npy").display()))
        .arg("--input")
        .arg(format!("w={}", arg("examples/w.npy").display()))
        .arg("--input")
        .arg(format!("b={}", arg("examples/b.npy").display()))
        .arg("--output")
        .arg(&y)
        // The artifact cache of a test run stays in the build directory, not the user's.
        .env(
            "RELAXJIT_CACHE_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme_cache"),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("output: float32[2, 3] [3.0000, 2.0000, 2.5000, 0.0000, 0.0000, 0.0000]"),
        "{stdout}"
    );
    let written = relaxjit::npy::read_npy(&y).unwrap();
    assert_eq!(
        written.to_vec::<f32>().unwrap(),
        [3.0, 2.0, 2.5, 0.0, 0.0, 0.0]
    );
    std::fs::remove_dir_all(&out_dir).unwrap();
}

#[test]
fn the_demo_runs() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_relaxjit"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("transformer_block -> float32[16, 64] ["),
        "{stdout}"
    );
}
