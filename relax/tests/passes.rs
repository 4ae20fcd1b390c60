//! Golden tests of single passes: each `tests/passes/NAME.py` starts with a
//! `# passes: A, B, ...` line naming the passes to run (TVM's names) on the module below it;
//! the printed result must equal `tests/passes/NAME.expected`. `BLESS=1` rewrites the
//! expectations. The result must also be well-formed and print-parse round-trip (tensor constants through
//! the metadata table, whose values the expectation lists as comments at its end), except
//! after a pass that lowers to VM builtins (a file whose second line is `# lowered`): the
//! printer leaves out default arguments and the struct info of void calls, which the parser
//! fills in differently, so such a result is compared as text only.

use std::path::{Path, PathBuf};

use relaxjit_relax as relax;

use relax::IRModule;

/// A pass ready to run on a module.
type BoxedPass = Box<dyn Fn(&IRModule) -> relax::Result<IRModule>>;

/// A pass of either table by TVM's name; [`relax::pipeline::OPT_PASSES`] run with the default
/// options.
fn pass_by_name(name: &str) -> Option<BoxedPass> {
    if let Some((_, p)) = relax::pipeline::PASSES.iter().find(|(n, _)| *n == name) {
        return Some(Box::new(*p));
    }
    let (_, p, _) = relax::pipeline::OPT_PASSES
        .iter()
        .find(|(n, _, _)| *n == name)?;
    let config = relax::pipeline::OptConfig::default();
    Some(Box::new(move |m| p(m, &config)))
}

fn run(path: &Path) -> Result<String, String> {
    let src = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let first = src.lines().next().unwrap_or_default();
    let list = first
        .strip_prefix("# passes:")
        .ok_or("the first line must be `# passes: ...`")?;
    let lowered = src.lines().nth(1) == Some("# lowered");
    let rest: String = src.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let mut m: IRModule = relax::parse_module(&rest).map_err(|e| format!("parse: {e}"))?;
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let pass = pass_by_name(name).ok_or_else(|| format!("unknown pass `{name}`"))?;
        m = pass(&m).map_err(|e| format!("{name}: {e}"))?;
    }
    relax::well_formed::check(&m).map_err(|e| format!("malformed result: {e}"))?;
    let (text, table) = relax::script::print_module_with_metadata(&m);
    let golden = format!("{text}{}", metadata_comments(&table));
    if lowered {
        return Ok(golden);
    }
    let options = relax::script::ReadOptions::with_metadata(table);
    let back = relax::script::parse_module_with(&text, &options)
        .map_err(|e| format!("result does not parse: {e}"))?;
    if let Some(d) = relax::structural_eq::structural_diff(&m, &back) {
        return Err(format!("result does not round-trip: {d}"));
    }
    Ok(golden)
}

/// The values of the tensor constants the text prints as `metadata["ir.GenericConst"][i]`,
/// one comment line each (none when there are none), so that a golden shows what a pass
/// computed.
fn metadata_comments(table: &[vm::Tensor]) -> String {
    let mut out = String::new();
    for (i, t) in table.iter().enumerate() {
        let values = match t.dtype() {
            vm::DataType::F32 => t.to_vec::<f32>().map(|v| format!("{v:?}")),
            vm::DataType::F64 => t.to_vec::<f64>().map(|v| format!("{v:?}")),
            _ => Ok(format!("{} bytes", t.nbytes())),
        };
        let values = values.unwrap_or_else(|e| e.to_string());
        out.push_str(&format!(
            "# metadata[{i}]: {} {:?} {values}\n",
            t.dtype(),
            t.shape()
        ));
    }
    out
}

#[test]
fn pass_goldens() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/passes");
    let bless = std::env::var_os("BLESS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "py"));
    files.sort();
    assert!(!files.is_empty(), "no cases in {}", dir.display());
    let mut failures = Vec::new();
    for f in &files {
        let name = f.file_stem().map(|s| s.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let expected_path = f.with_extension("expected");
        match run(f) {
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(got) if bless => {
                if let Err(e) = std::fs::write(&expected_path, &got) {
                    failures.push(format!("{name}: cannot bless: {e}"));
                }
            }
            Ok(got) => {
                let want = std::fs::read_to_string(&expected_path).unwrap_or_default();
                if got != want {
                    failures.push(format!(
                        "{name}: differs from {} (BLESS=1 to update):\n{got}",
                        expected_path.display()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
