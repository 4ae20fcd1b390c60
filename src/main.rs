//! The `relaxjit` command line: one [`Command`] per subcommand, parsed by hand from the
//! arguments (there are few enough that a parser crate would cost more than it saves), and one
//! function running each.
//!
//! Errors print as one line on stderr with exit code 1; a malformed command line prints the
//! usage with exit code 2.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

const USAGE: &str = "\
usage: relaxjit [<command> [args]]

With no command, runs the embedded demo: a transformer encoder block written in TVMScript,
compiled and run on generated inputs, with the compile and call times.

commands:
  run FILE.py [--func NAME] [--input PARAM=FILE.npy ...] [--mode bytecode|compiled]
              [--output FILE.npy] [--threads N] [--no-fusion]
      compile a TVMScript module and call one function (default `main`); parameters not
      given with --input are generated (deterministic random values) from their static
      shapes. Prints a summary of each output and the compile and call times; --output
      writes the result (the tensors of a tuple to FILE_0.npy, FILE_1.npy, ...)
  inspect FILE.py [--text | --python | --stats | --lowered]
      compile a TVMScript module with relaxjit's pipeline and print its bytecode listing
      (the default), an rx.Builder script, statistics, or the lowered module as TVMScript
  demo
      run the embedded demo (the same as no command)
  fmt FILE.py | -
      parse a TVMScript module (`@I.ir_module` with Relax and TIR functions, as TVM prints
      it) and print it back in TVM's layout; `-` reads standard input. Bad text exits with
      status 1 and the error's line, column and a caret
  inspect FILE.bin [--text | --python | --stats]
      print a serialized Relax VM executable (TVM's format): its bytecode listing (the
      default, TVM's as_text()), an rx.Builder script (as_python()) or statistics (stats())
  help
      print this message
";

/// A parsed command line.
#[derive(Debug, PartialEq)]
enum Command {
    Help,
    Demo,
    Run(RunArgs),
    InspectModule {
        path: PathBuf,
        format: InspectFormat,
    },
    /// `None` reads standard input.
    Fmt {
        path: Option<PathBuf>,
    },
    Inspect {
        path: PathBuf,
        format: InspectFormat,
    },
}

/// What `inspect` prints.
#[derive(Clone, Copy, Debug, PartialEq)]
enum InspectFormat {
    Text,
    Python,
    Stats,
    /// The module after our pipeline, as TVMScript (for `.py` inputs).
    Lowered,
}

/// The arguments of `relaxjit run`.
#[derive(Debug, PartialEq)]
struct RunArgs {
    path: PathBuf,
    func: String,
    inputs: Vec<(String, PathBuf)>,
    mode: relaxjit::ExecMode,
    output: Option<PathBuf>,
    threads: Option<usize>,
    fusion: bool,
}

/// A command line that does not parse; printed with the usage.
#[derive(Debug)]
struct UsageError(String);

fn parse_args(args: &[OsString]) -> Result<Command, UsageError> {
    let Some((command, rest)) = args.split_first() else {
        return Ok(Command::Demo);
    };
    match command.to_str() {
        Some("help" | "-h" | "--help") => Ok(Command::Help),
        Some("demo") if rest.is_empty() => Ok(Command::Demo),
        Some("demo") => Err(UsageError("demo takes no arguments".into())),
        Some("run") => parse_run(rest),
        Some("inspect") => parse_inspect(rest),
        Some("fmt") => parse_fmt(rest),
        _ => Err(UsageError(format!(
            "unknown command `{}`",
            command.to_string_lossy()
        ))),
    }
}

fn parse_inspect(args: &[OsString]) -> Result<Command, UsageError> {
    let mut path = None;
    let mut format = None;
    for arg in args {
        let flag = match arg.to_str() {
            Some("--text") => Some(InspectFormat::Text),
            Some("--python") => Some(InspectFormat::Python),
            Some("--stats") => Some(InspectFormat::Stats),
            Some("--lowered") => Some(InspectFormat::Lowered),
            Some(s) if s.starts_with('-') && s.len() > 1 => {
                return Err(UsageError(format!("inspect: unknown option `{s}`")));
            }
            _ => None,
        };
        match (flag, &path) {
            (Some(f), _) if format.is_some_and(|g| g != f) => {
                return Err(UsageError(
                    "inspect: --text, --python, --stats and --lowered exclude each other".into(),
                ));
            }
            (Some(f), _) => format = Some(f),
            (None, None) => path = Some(PathBuf::from(arg)),
            (None, Some(_)) => {
                return Err(UsageError(format!(
                    "inspect: unexpected argument `{}`",
                    arg.to_string_lossy()
                )));
            }
        }
    }
    let path = path.ok_or_else(|| UsageError("inspect: missing FILE.bin or FILE.py".into()))?;
    let format = format.unwrap_or(InspectFormat::Text);
    if path.extension().is_some_and(|e| e == "py") {
        return Ok(Command::InspectModule { path, format });
    }
    if format == InspectFormat::Lowered {
        return Err(UsageError(
            "inspect: --lowered needs a TVMScript module (FILE.py)".into(),
        ));
    }
    Ok(Command::Inspect { path, format })
}

fn parse_run(args: &[OsString]) -> Result<Command, UsageError> {
    let mut path = None;
    let mut func = None;
    let mut inputs = Vec::new();
    let mut mode = None;
    let mut output = None;
    let mut threads = None;
    let mut fusion = true;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let Some(a) = arg.to_str() else {
            if path.is_some() {
                return Err(UsageError(format!(
                    "run: unexpected argument `{}`",
                    arg.to_string_lossy()
                )));
            }
            path = Some(PathBuf::from(arg));
            continue;
        };
        let mut value = |flag: &str| {
            it.next()
                .ok_or_else(|| UsageError(format!("run: {flag} needs a value")))
        };
        match a {
            "--func" => func = Some(value("--func")?.to_string_lossy().into_owned()),
            "--input" => {
                let v = value("--input")?;
                let v = v.to_str().ok_or_else(|| {
                    UsageError(format!("run: bad --input `{}`", v.to_string_lossy()))
                })?;
                let (name, file) = v
                    .split_once('=')
                    .filter(|(n, f)| !n.is_empty() && !f.is_empty())
                    .ok_or_else(|| {
                        UsageError(format!("run: --input takes PARAM=FILE.npy, got `{v}`"))
                    })?;
                inputs.push((name.to_string(), PathBuf::from(file)));
            }
            "--mode" => {
                let v = value("--mode")?.to_string_lossy().into_owned();
                mode = Some(
                    v.parse::<relaxjit::ExecMode>()
                        .map_err(|e| UsageError(format!("run: {e}")))?,
                );
            }
            "--output" => output = Some(PathBuf::from(value("--output")?)),
            "--threads" => {
                let v = value("--threads")?.to_string_lossy().into_owned();
                threads = Some(v.parse::<usize>().ok().filter(|n| *n > 0).ok_or_else(|| {
                    UsageError(format!("run: --threads takes a positive number, got `{v}`"))
                })?);
            }
            "--no-fusion" => fusion = false,
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(UsageError(format!("run: unknown option `{s}`")));
            }
            _ if path.is_some() => {
                return Err(UsageError(format!("run: unexpected argument `{a}`")));
            }
            _ => path = Some(PathBuf::from(arg)),
        }
    }
    Ok(Command::Run(RunArgs {
        path: path.ok_or_else(|| UsageError("run: missing FILE.py".into()))?,
        func: func.unwrap_or_else(|| "main".into()),
        inputs,
        mode: mode.unwrap_or_default(),
        output,
        threads,
        fusion,
    }))
}

fn parse_fmt(args: &[OsString]) -> Result<Command, UsageError> {
    match args {
        [] => Err(UsageError(
            "fmt: missing FILE (or `-` for standard input)".into(),
        )),
        [arg] if arg == "-" => Ok(Command::Fmt { path: None }),
        [arg] if arg.to_str().is_some_and(|s| s.starts_with('-')) => Err(UsageError(format!(
            "fmt: unknown option `{}`",
            arg.to_string_lossy()
        ))),
        [arg] => Ok(Command::Fmt {
            path: Some(PathBuf::from(arg)),
        }),
        [_, extra, ..] => Err(UsageError(format!(
            "fmt: unexpected argument `{}`",
            extra.to_string_lossy()
        ))),
    }
}

/// `relaxjit fmt`: parses a TVMScript module and prints it. A parse error reads
/// `FILE:line:column: message` followed by the source line and a caret.
fn fmt(path: Option<&PathBuf>) -> Result<String> {
    let (name, text) = match path {
        Some(p) => (
            p.display().to_string(),
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        ),
        None => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .context("cannot read standard input")?;
            ("<stdin>".to_string(), text)
        }
    };
    match relax::script::parse_module(&text) {
        Ok(module) => Ok(relax::script::print_module(&module)),
        Err(relax::Error::Parse(rendered)) => {
            let rendered = rendered.strip_prefix("error: ").unwrap_or(&rendered);
            anyhow::bail!("{name}:{}", rendered.trim_end())
        }
        Err(e) => Err(anyhow::Error::new(e).context(format!("cannot read {name}"))),
    }
}

/// `relaxjit inspect`: loads a serialized executable and prints it.
fn inspect(path: &PathBuf, format: InspectFormat) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let exec = vm::Executable::load_from_bytes(&bytes)
        .with_context(|| format!("cannot load {}", path.display()))?;
    Ok(match format {
        InspectFormat::Text => exec.as_text(),
        InspectFormat::Python => exec.as_python(),
        InspectFormat::Stats => exec.stats()?,
        InspectFormat::Lowered => anyhow::bail!("--lowered needs a TVMScript module (FILE.py)"),
    })
}

fn read_module(path: &PathBuf) -> Result<relax::IRModule> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    relaxjit::Engine::parse(&text).with_context(|| format!("cannot read {}", path.display()))
}

/// `relaxjit inspect FILE.py`: compiles a module with our pipeline and prints the result.
fn inspect_module(path: &PathBuf, format: InspectFormat) -> Result<String> {
    let module = read_module(path)?;
    let engine = relaxjit::Engine::default();
    let ctx = || format!("cannot compile {}", path.display());
    if format == InspectFormat::Lowered {
        let lowered = engine.lower(&module).with_context(ctx)?;
        return Ok(relax::script::print_module(&lowered));
    }
    let compiled = engine.compile(&module).with_context(ctx)?;
    let exec = compiled.executable();
    Ok(match format {
        InspectFormat::Python => exec.as_python(),
        InspectFormat::Stats => exec.stats()?,
        _ => exec.as_text(),
    })
}

fn millis(d: std::time::Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// `relaxjit run`: compiles a module, calls one function, summarizes (and writes) the result.
fn run_module(args: &RunArgs) -> Result<String> {
    use relaxjit::values::{Rng, random_value, summarize};
    use std::fmt::Write as _;
    use std::time::Instant;

    let start = Instant::now();
    let module = read_module(&args.path)?;
    let engine = relaxjit::Engine::new(relaxjit::Config {
        exec_mode: args.mode,
        fusion: args.fusion,
        threads: args.threads,
        ..relaxjit::Config::default()
    })?;
    let compiled = engine
        .compile(&module)
        .with_context(|| format!("cannot compile {}", args.path.display()))?;
    let compile_time = start.elapsed();
    let func = module.relax_function(&args.func).with_context(|| {
        let names: Vec<&str> = module.relax_functions().map(|(n, _)| n.as_str()).collect();
        format!(
            "{} has no Relax function `{}` (it has: {})",
            args.path.display(),
            args.func,
            names.join(", ")
        )
    })?;
    for (name, _) in &args.inputs {
        if !func.params.iter().any(|p| p.name() == name) {
            let names: Vec<&str> = func.params.iter().map(|p| p.name()).collect();
            anyhow::bail!(
                "--input {name}: `{}` has no parameter `{name}` (it has: {})",
                args.func,
                names.join(", ")
            );
        }
    }
    let mut out = String::new();
    writeln!(
        out,
        "compiled {} in {} ({} kernels)",
        args.path.display(),
        millis(compile_time),
        compiled.kernels().kernels().len()
    )?;
    let mut rng = Rng::new(0x5EED);
    let mut call_args = Vec::new();
    for p in &func.params {
        let given = args.inputs.iter().rev().find(|(n, _)| n == p.name());
        let (value, origin) = match given {
            Some((_, file)) => (
                vm::Value::Tensor(relaxjit::npy::read_npy(file)?),
                file.display().to_string(),
            ),
            None => (
                random_value(p.struct_info(), &mut rng, p.name())?,
                "generated".to_string(),
            ),
        };
        writeln!(out, "input {}: {} ({origin})", p.name(), summarize(&value))?;
        call_args.push(value);
    }
    let vm = compiled.vm()?;
    let start = Instant::now();
    let result = compiled
        .invoke(&vm, &args.func, &call_args)
        .with_context(|| format!("calling {}", args.func))?;
    let call_time = start.elapsed();
    writeln!(out, "called {} in {}", args.func, millis(call_time))?;
    // Tensors of the result, with their position in nested tuples (`[0, 1]`).
    fn leaves(v: &vm::Value, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, vm::Value)>) {
        match v {
            vm::Value::Tuple(t) => {
                for (i, f) in t.fields().iter().enumerate() {
                    path.push(i);
                    leaves(f, path, out);
                    path.pop();
                }
            }
            v => out.push((path.clone(), v.clone())),
        }
    }
    let mut outputs = Vec::new();
    leaves(&result, &mut Vec::new(), &mut outputs);
    let index = |path: &[usize]| path.iter().map(|i| format!("[{i}]")).collect::<String>();
    for (path, v) in &outputs {
        writeln!(out, "output{}: {}", index(path), summarize(v))?;
    }
    if let Some(file) = &args.output {
        for (path, v) in &outputs {
            let vm::Value::Tensor(t) = v else {
                anyhow::bail!(
                    "--output: output{} is not a tensor ({})",
                    index(path),
                    v.type_name()
                );
            };
            let file = if path.is_empty() {
                file.clone()
            } else {
                let stem = file.file_stem().unwrap_or_default().to_string_lossy();
                let suffix: String = path.iter().map(|i| format!("_{i}")).collect();
                file.with_file_name(format!("{stem}{suffix}.npy"))
            };
            relaxjit::npy::write_npy(&file, t)?;
            writeln!(out, "wrote {}", file.display())?;
        }
    }
    Ok(out)
}

/// The embedded demo.
fn demo() -> Result<String> {
    use relaxjit::demo::{DEMO_FUNCTION, run_demo};
    use relaxjit::values::summarize;
    use std::fmt::Write as _;

    let report = run_demo(&relaxjit::Engine::default(), 20).context("the demo failed")?;
    let mut out = String::new();
    writeln!(
        out,
        "relaxjit demo: a transformer encoder block (4-head self-attention over 16 tokens of \
         width 64, GELU feed-forward of width 128, two layer norms), written in TVMScript"
    )?;
    writeln!(
        out,
        "inputs (generated): {}",
        report
            .inputs
            .iter()
            .map(|(n, v)| match v {
                vm::Value::Tensor(t) => format!("{n}{:?}", t.shape()),
                _ => n.clone(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    )?;
    writeln!(out, "parse:      {}", millis(report.parse))?;
    writeln!(
        out,
        "compile:    {} ({} kernels, {} bytecode instructions)",
        millis(report.compile),
        report.kernels,
        report.instructions
    )?;
    writeln!(out, "first call: {}", millis(report.first_call))?;
    writeln!(
        out,
        "next calls: {} (mean of {})",
        millis(report.steady_call),
        report.calls - 1
    )?;
    writeln!(out, "{DEMO_FUNCTION} -> {}", summarize(&report.output))?;
    writeln!(
        out,
        "\ntry: relaxjit run examples/mlp.py --input x=examples/x.npy (relaxjit help for more)"
    )?;
    Ok(out)
}

fn run(command: Command) -> Result<()> {
    let output = match command {
        Command::Help => USAGE.to_string(),
        Command::Demo => demo()?,
        Command::Run(args) => run_module(&args)?,
        Command::InspectModule { path, format } => inspect_module(&path, format)?,
        Command::Fmt { path } => fmt(path.as_ref())?,
        Command::Inspect { path, format } => inspect(&path, format)?,
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(output.as_bytes())
        .and_then(|()| stdout.flush())
    {
        // `relaxjit inspect x.bin | head` is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to stdout"),
    }
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let command = match parse_args(&args) {
        Ok(c) => c,
        Err(UsageError(msg)) => {
            eprint!("relaxjit: {msg}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // `{:#}` joins the context chain into one line.
            eprintln!("relaxjit: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Command, String> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        parse_args(&args).map_err(|UsageError(m)| m)
    }

    #[test]
    fn command_lines() {
        let inspect = |p: &str, format| Command::Inspect {
            path: PathBuf::from(p),
            format,
        };
        let cases: &[(&[&str], Result<Command, &str>)] = &[
            (&[], Ok(Command::Demo)),
            (&["demo"], Ok(Command::Demo)),
            (&["demo", "x"], Err("demo takes no arguments")),
            (
                &["inspect", "m.py", "--lowered"],
                Ok(Command::InspectModule {
                    path: PathBuf::from("m.py"),
                    format: InspectFormat::Lowered,
                }),
            ),
            (
                &["inspect", "m.bin", "--lowered"],
                Err("inspect: --lowered needs a TVMScript module (FILE.py)"),
            ),
            (
                &["run", "m.py"],
                Ok(Command::Run(RunArgs {
                    path: PathBuf::from("m.py"),
                    func: "main".into(),
                    inputs: vec![],
                    mode: relaxjit::ExecMode::Bytecode,
                    output: None,
                    threads: None,
                    fusion: true,
                })),
            ),
            (
                &[
                    "run",
                    "m.py",
                    "--func",
                    "f",
                    "--input",
                    "x=a.npy",
                    "--input",
                    "y=b.npy",
                    "--mode",
                    "compiled",
                    "--output",
                    "o.npy",
                    "--threads",
                    "2",
                    "--no-fusion",
                ],
                Ok(Command::Run(RunArgs {
                    path: PathBuf::from("m.py"),
                    func: "f".into(),
                    inputs: vec![
                        ("x".into(), PathBuf::from("a.npy")),
                        ("y".into(), PathBuf::from("b.npy")),
                    ],
                    mode: relaxjit::ExecMode::Compiled,
                    output: Some(PathBuf::from("o.npy")),
                    threads: Some(2),
                    fusion: false,
                })),
            ),
            (&["run"], Err("run: missing FILE.py")),
            (
                &["run", "m.py", "--input", "x"],
                Err("run: --input takes PARAM=FILE.npy, got `x`"),
            ),
            (&["run", "m.py", "--func"], Err("run: --func needs a value")),
            (
                &["run", "m.py", "--mode", "jit"],
                Err("run: unknown exec mode `jit` (expected `bytecode` or `compiled`)"),
            ),
            (
                &["run", "m.py", "--threads", "0"],
                Err("run: --threads takes a positive number, got `0`"),
            ),
            (
                &["run", "m.py", "n.py"],
                Err("run: unexpected argument `n.py`"),
            ),
            (&["run", "m.py", "-x"], Err("run: unknown option `-x`")),
            (&["--help"], Ok(Command::Help)),
            (
                &["inspect", "a.bin"],
                Ok(inspect("a.bin", InspectFormat::Text)),
            ),
            (
                &["inspect", "--python", "a.bin"],
                Ok(inspect("a.bin", InspectFormat::Python)),
            ),
            (
                &["inspect", "a.bin", "--stats", "--stats"],
                Ok(inspect("a.bin", InspectFormat::Stats)),
            ),
            (&["inspect"], Err("inspect: missing FILE.bin or FILE.py")),
            (
                &["inspect", "a.bin", "--python", "--stats"],
                Err("inspect: --text, --python, --stats and --lowered exclude each other"),
            ),
            (
                &["inspect", "a.bin", "b.bin"],
                Err("inspect: unexpected argument `b.bin`"),
            ),
            (&["inspect", "-x"], Err("inspect: unknown option `-x`")),
            (&["frobnicate"], Err("unknown command `frobnicate`")),
            (
                &["fmt", "m.py"],
                Ok(Command::Fmt {
                    path: Some(PathBuf::from("m.py")),
                }),
            ),
            (&["fmt", "-"], Ok(Command::Fmt { path: None })),
            (
                &["fmt"],
                Err("fmt: missing FILE (or `-` for standard input)"),
            ),
            (
                &["fmt", "a.py", "b.py"],
                Err("fmt: unexpected argument `b.py`"),
            ),
            (&["fmt", "--check"], Err("fmt: unknown option `--check`")),
        ];
        for (args, expected) in cases {
            match (parse(args), expected) {
                (Ok(a), Ok(e)) => assert_eq!(&a, e, "{args:?}"),
                (Err(a), Err(e)) => assert_eq!(a, *e, "{args:?}"),
                (a, e) => panic!("{args:?}: parsed as {a:?}, expected {e:?}"),
            }
        }
    }
}
