//! A case as files for checking the JIT against another compiler (Apache TVM, through
//! `program_fuzz/scripts/tvm_diff.py --kernels`): `kernel.py` (the PrimFunc in TVMScript),
//! `args.txt` (one line per argument: dtype and shape; then `sym NAME DTYPE` per symbolic
//! dimension, which the printed signature uses undeclared) and, per
//! argument, `in_I.bin` (the input bytes) and `out_I.bin` (the bytes after the JIT's run).
//! Only cases the reference interpreter runs to the end are written: a kernel that reads out
//! of bounds or divides by zero has no defined result to compare.

use std::path::{Path, PathBuf};

use crate::diff::{CONFIGS, Ending, input_data, run_interp, run_jit};
use crate::program::Case;

/// The folder name of `seed`'s case.
pub fn folder_name(seed: u64) -> String {
    format!("kernel_{seed:06}")
}

/// Writes `case` (of `seed`) under `dir` if the interpreter and the JIT both run it to the
/// end; returns the folder, or `None` for a case left out.
pub fn write_case(case: &Case, seed: u64, dir: &Path) -> Result<Option<PathBuf>, String> {
    let inputs = input_data(case);
    if run_interp(case, &inputs).0 != Ending::Ok {
        return Ok(None);
    }
    let Ok((Ending::Ok, outputs)) = run_jit(case, CONFIGS[0].1, &inputs) else {
        return Ok(None);
    };
    let folder = dir.join(folder_name(seed));
    let io = |e: std::io::Error| format!("{}: {e}", folder.display());
    std::fs::create_dir_all(&folder).map_err(io)?;
    std::fs::write(folder.join("kernel.py"), tir::print_prim_func(&case.func)).map_err(io)?;
    let mut args = String::new();
    for (i, (((_, b), shape), (input, output))) in case
        .func
        .buffer_map
        .iter()
        .zip(&case.shapes)
        .zip(inputs.iter().zip(&outputs))
        .enumerate()
    {
        let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
        args += &format!("{} {}\n", b.dtype, dims.join(","));
        std::fs::write(folder.join(format!("in_{i}.bin")), input).map_err(io)?;
        std::fs::write(folder.join(format!("out_{i}.bin")), output).map_err(io)?;
    }
    let mut syms: Vec<(String, String)> = Vec::new();
    for (_, b) in &case.func.buffer_map {
        for v in b.shape.iter().filter_map(|d| d.as_var()) {
            let entry = (v.name().to_string(), v.dtype().to_string());
            if !syms.contains(&entry) {
                syms.push(entry);
            }
        }
    }
    for (name, dtype) in syms {
        args += &format!("sym {name} {dtype}\n");
    }
    std::fs::write(folder.join("args.txt"), args).map_err(io)?;
    Ok(Some(folder))
}
