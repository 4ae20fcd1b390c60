//! The `relaxjit` command line: subcommands parsed by clap (derive), one function running each.
//!
//! A malformed command line prints clap's message naming the flag, with exit code 2; an error
//! while running prints one line on stderr (`relaxjit: …`) with exit code 1.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

// Generated inputs, result summaries and the demo are shared with the test harness
// (`relaxjit-support`), which depends on this package's library, so this binary cannot depend
// on it; it compiles the same files as its own modules instead. Not every item is used here.
#[allow(dead_code)]
#[path = "../support/src/demo.rs"]
mod demo;
#[allow(dead_code)]
#[path = "../support/src/json_tensor.rs"]
mod json_tensor;
#[allow(dead_code)]
#[path = "../support/src/timing.rs"]
mod timing;
#[allow(dead_code)]
#[path = "../support/src/values.rs"]
mod values;

/// The most threads `--threads` accepts: far beyond any machine's cores, far below what takes
/// noticeable time to start.
const MAX_THREADS: u16 = 1024;

#[derive(Debug, Parser)]
#[command(
    name = "relaxjit",
    version,
    about = "A JIT-centric tensor compiler and Relax virtual machine driven by Cranelift",
    long_about = "A JIT-centric tensor compiler and Relax virtual machine driven by Cranelift.\n\n\
        With no command, runs the embedded demo: a transformer encoder block written in \
        TVMScript, compiled and run on generated inputs, with the compile and call times.",
    after_help = "Try: relaxjit run examples/mlp.py --input x=examples/x.npy"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, PartialEq, Subcommand)]
enum Command {
    /// Compile a TVMScript module or an ONNX model and call one of its functions
    ///
    /// Parameters not given with --input are generated (deterministic random values) from
    /// their static shapes. Prints a summary of each output and the compile and call times.
    Run(RunArgs),
    /// Print the bytecode of a TVMScript module or of a serialized executable
    ///
    /// FILE.py (or an ONNX model, FILE.onnx) is compiled with relaxjit's pipeline; FILE.bin is a serialized Relax VM
    /// executable (TVM's format). Prints the bytecode listing (TVM's as_text()) unless a
    /// format is chosen.
    Inspect(InspectArgs),
    /// Parse a TVMScript module and print it back in TVM's layout
    ///
    /// Bad text exits with status 1 and the error's line, column and a caret.
    Fmt {
        /// The module (`@I.ir_module` with Relax and TIR functions); `-` reads standard input
        #[arg(value_name = "FILE.py")]
        file: PathBuf,
    },
    /// Compile a TVMScript module and time calls of one of its functions
    ///
    /// Prints the compile time, the first call's time, and the median and spread of the
    /// following calls (--iterations), with a progress line on stderr while they run. Inputs
    /// as for `run`.
    Bench(BenchArgs),
    /// Run the embedded demo (the same as no command)
    Demo,
    /// Inspect or empty the artifact cache (compiled modules kept on disk by `run`)
    ///
    /// The directory is $RELAXJIT_CACHE_DIR, or the user's cache directory
    /// (~/.cache/relaxjit on Linux).
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
}

/// What `relaxjit cache` does.
#[derive(Clone, Copy, Debug, PartialEq, Subcommand)]
enum CacheAction {
    /// Print the directory, the number of entries and their size
    Stats,
    /// Delete every entry
    Clear,
}

/// How compiled Relax functions execute.
#[derive(Clone, Copy, Debug, PartialEq, ValueEnum)]
enum Mode {
    /// The bytecode interpreter, with native kernels
    Bytecode,
    /// Each Relax function as native code (`__vmtir__<name>`)
    Compiled,
}

impl From<Mode> for relaxjit::ExecMode {
    fn from(m: Mode) -> relaxjit::ExecMode {
        match m {
            Mode::Bytecode => relaxjit::ExecMode::Bytecode,
            Mode::Compiled => relaxjit::ExecMode::Compiled,
        }
    }
}

#[derive(Debug, PartialEq, Args)]
struct RunArgs {
    /// The TVMScript module, or an ONNX model (FILE.onnx, whose function is `main`)
    #[arg(value_name = "FILE.py")]
    path: PathBuf,
    /// The Relax function to call
    #[arg(long, value_name = "NAME", default_value = "main")]
    func: String,
    /// A parameter's value from a .npy file (repeat for each parameter)
    #[arg(long = "input", value_name = "PARAM=FILE.npy", value_parser = parse_input)]
    inputs: Vec<(String, PathBuf)>,
    /// How the Relax functions execute
    #[arg(long, value_enum, default_value_t = Mode::Bytecode)]
    mode: Mode,
    /// Write the result as .npy (the tensors of a tuple to FILE_0.npy, FILE_1.npy, ...)
    #[arg(long, value_name = "FILE.npy")]
    output: Option<PathBuf>,
    /// Threads for the kernels' parallel loops [default: one per core]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS as i64))]
    threads: Option<u16>,
    /// Compile without FuseOps/FuseTIR
    #[arg(long)]
    no_fusion: bool,
    /// Compile without DispatchLibrary: every operator runs as its TIR kernel (the reference
    /// path), none through the native library kernels (matmul, conv2d, pooling, ...)
    #[arg(long)]
    no_library: bool,
    /// Neither load the module from the artifact cache nor store it there
    #[arg(long)]
    no_cache: bool,
    /// The largest tensor generated for a parameter not given with --input (e.g. 4GiB)
    #[arg(long, value_name = "SIZE", default_value = "1GiB", value_parser = values::parse_bytes)]
    max_generated: u64,
    /// The module's constants (`metadata["ir.GenericConst"][i]`) from a case file of the
    /// conformance corpus format (its "metadata" entry for the module's file name)
    #[arg(long, value_name = "CASE.json")]
    metadata: Option<PathBuf>,
}

#[derive(Debug, PartialEq, Args)]
struct BenchArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Calls timed after the first one
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    iterations: u32,
}

#[derive(Debug, PartialEq, Args)]
struct InspectArgs {
    /// A TVMScript module (FILE.py), an ONNX model (FILE.onnx) or a serialized executable (FILE.bin)
    #[arg(value_name = "FILE")]
    path: PathBuf,
    /// The bytecode listing (TVM's as_text()), the default
    #[arg(long, group = "format")]
    text: bool,
    /// An rx.Builder script that rebuilds the executable (TVM's as_python())
    #[arg(long, group = "format")]
    python: bool,
    /// Statistics of the executable (TVM's stats())
    #[arg(long, group = "format")]
    stats: bool,
    /// The module after relaxjit's pipeline, as TVMScript (FILE.py and FILE.onnx only)
    #[arg(long, group = "format")]
    lowered: bool,
    /// Compile without FuseOps/FuseTIR
    #[arg(long)]
    no_fusion: bool,
    /// The module's constants (`metadata["ir.GenericConst"][i]`) from a case file of the
    /// conformance corpus format, as for `run`
    #[arg(long, value_name = "CASE.json")]
    metadata: Option<PathBuf>,
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

impl InspectArgs {
    fn format(&self) -> InspectFormat {
        match (self.python, self.stats, self.lowered) {
            (true, _, _) => InspectFormat::Python,
            (_, true, _) => InspectFormat::Stats,
            (_, _, true) => InspectFormat::Lowered,
            _ => InspectFormat::Text,
        }
    }
}

fn parse_input(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((name, file)) if !name.is_empty() && !file.is_empty() => {
            Ok((name.to_string(), PathBuf::from(file)))
        }
        _ => Err(format!("expected PARAM=FILE.npy, got `{s}`")),
    }
}

/// Parses a command line (without the program name) and checks what clap cannot express.
fn parse_args<I, T>(args: I) -> Result<Option<Command>, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let args = args.into_iter().map(Into::<OsString>::into);
    let cli = Cli::try_parse_from(std::iter::once(OsString::from("relaxjit")).chain(args))?;
    let invalid = |kind, msg: String| Err(Cli::command().error(kind, msg));
    match &cli.command {
        Some(Command::Run(run) | Command::Bench(BenchArgs { run, .. })) => {
            for (i, (name, _)) in run.inputs.iter().enumerate() {
                if run.inputs[..i].iter().any(|(n, _)| n == name) {
                    return invalid(
                        clap::error::ErrorKind::ArgumentConflict,
                        format!("--input {name}=… is given more than once"),
                    );
                }
            }
        }
        Some(Command::Inspect(inspect))
            if inspect.lowered
                && inspect.path.extension().is_none_or(|e| e != "py")
                && !is_onnx(&inspect.path) =>
        {
            return invalid(
                clap::error::ErrorKind::ArgumentConflict,
                "--lowered needs a TVMScript module (FILE.py) or an ONNX model (FILE.onnx)".into(),
            );
        }
        _ => {}
    }
    Ok(cli.command)
}

/// `relaxjit cache stats|clear`.
fn cache(action: CacheAction) -> Result<String> {
    let cache = relaxjit::ArtifactCache::at_default_dir().ok_or_else(|| {
        anyhow::anyhow!(
            "no cache directory: set RELAXJIT_CACHE_DIR (or HOME, for the user's cache directory)"
        )
    })?;
    let dir = cache.dir().display().to_string();
    Ok(match action {
        CacheAction::Stats => {
            let s = cache
                .stats()
                .with_context(|| format!("cannot read the cache directory {dir}"))?;
            format!(
                "directory: {dir}\nentries:   {}\nsize:      {} bytes (bound {} bytes)\n",
                s.entries, s.bytes, s.max_bytes
            )
        }
        CacheAction::Clear => {
            let n = cache
                .clear()
                .with_context(|| format!("cannot clear the cache directory {dir}"))?;
            format!(
                "removed {n} entr{} from {dir}\n",
                if n == 1 { "y" } else { "ies" }
            )
        }
    })
}

/// `relaxjit fmt`: parses a TVMScript module and prints it. A parse error reads
/// `FILE:line:column: message` followed by the source line and a caret.
fn fmt(path: &Path) -> Result<String> {
    let (name, text) = if path == Path::new("-") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .context("cannot read standard input")?;
        ("<stdin>".to_string(), text)
    } else {
        (
            path.display().to_string(),
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?,
        )
    };
    match relax::script::parse_module(&text) {
        // A file holding one function prints as that function alone, as TVM prints it.
        Ok(module) if relax::script::is_standalone_function(&text) => {
            Ok(relax::script::print_standalone_function(&module)
                .unwrap_or_else(|| relax::script::print_module(&module)))
        }
        Ok(module) => Ok(relax::script::print_module(&module)),
        Err(relax::Error::Parse(rendered)) => {
            let rendered = rendered.strip_prefix("error: ").unwrap_or(&rendered);
            anyhow::bail!("{name}:{}", rendered.trim_end())
        }
        Err(e) => Err(anyhow::Error::new(e).context(format!("cannot read {name}"))),
    }
}

/// `relaxjit inspect FILE.bin`: loads a serialized executable and prints it.
fn inspect_executable(path: &Path, format: InspectFormat) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let exec = vm::Executable::load_from_bytes(&bytes)
        .with_context(|| format!("cannot load {}", path.display()))?;
    Ok(match format {
        InspectFormat::Python => exec.as_python(),
        InspectFormat::Stats => exec.stats()?,
        InspectFormat::Text | InspectFormat::Lowered => exec.as_text(),
    })
}

/// Whether `bytes` start like a serialized Relax VM executable.
fn is_executable(bytes: &[u8]) -> bool {
    bytes.get(..8).is_some_and(|magic| {
        let magic = u64::from_le_bytes(magic.try_into().unwrap_or_default());
        magic == vm::serialize::MAGIC_V2 || magic == vm::serialize::MAGIC_V1
    })
}

/// Whether `path` names an ONNX model (by its extension).
fn is_onnx(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "onnx")
}

/// The constants of `module` (a file name) in the case file `case`: its metadata entry for that
/// file name, or its only entry.
fn read_metadata(case: &Path, module: &Path) -> Result<Vec<vm::Tensor>> {
    let text =
        std::fs::read_to_string(case).with_context(|| format!("cannot read {}", case.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", case.display()))?;
    let entries = json["metadata"].as_object().with_context(|| {
        format!(
            "{} has no \"metadata\" object (the corpus case.json format)",
            case.display()
        )
    })?;
    let file = module
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let key = if entries.contains_key(&file) {
        file
    } else if entries.len() == 1 {
        entries.keys().next().cloned().unwrap_or_default()
    } else {
        let keys: Vec<&str> = entries.keys().map(String::as_str).collect();
        anyhow::bail!(
            "{} has no metadata for `{file}` (it has: {})",
            case.display(),
            keys.join(", ")
        );
    };
    json_tensor::metadata_from_json(&json, &key)
        .map_err(|e| anyhow::anyhow!("{}: {e}", case.display()))
}

/// Reads a module: an ONNX model (`.onnx`, imported with its external data) or a TVMScript
/// module with its constants from `metadata` (a case file) if given; a serialized executable in
/// its place gets an error saying what to do instead.
fn read_module(path: &Path, metadata: Option<&Path>) -> Result<relax::IRModule> {
    if is_onnx(path) {
        return Ok(relaxjit::Engine::import_onnx(path, &Default::default())
            .with_context(|| format!("cannot import {}", path.display()))?
            .module);
    }
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if is_executable(&bytes) {
        anyhow::bail!(
            "{} is a serialized executable: its bytecode calls kernels that are not in the \
             file, so it cannot run on its own. Run the TVMScript module it was built from \
             (`relaxjit run MODULE.py`), or print it with `relaxjit inspect {}`",
            path.display(),
            path.display()
        );
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!(
            "{} is not a TVMScript module (not UTF-8 text)",
            path.display()
        )
    })?;
    let constants = match metadata {
        Some(case) => read_metadata(case, path)?,
        None if text.contains("metadata[\"ir.GenericConst\"]") => anyhow::bail!(
            "{} uses metadata constants (`metadata[\"ir.GenericConst\"][i]`); give them with \
             --metadata CASE.json",
            path.display()
        ),
        None => Vec::new(),
    };
    relaxjit::Engine::parse_with_metadata(&text, constants)
        .with_context(|| format!("cannot read {}", path.display()))
}

/// `relaxjit inspect FILE.py`: compiles a module with our pipeline and prints the result.
fn inspect_module(
    path: &Path,
    metadata: Option<&Path>,
    format: InspectFormat,
    fusion: bool,
) -> Result<String> {
    let module = read_module(path, metadata)?;
    let engine = relaxjit::Engine::new(relaxjit::Config {
        fusion,
        ..relaxjit::Config::default()
    })?;
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

fn inspect(args: &InspectArgs) -> Result<String> {
    if args.path.extension().is_some_and(|e| e == "py") || is_onnx(&args.path) {
        inspect_module(
            &args.path,
            args.metadata.as_deref(),
            args.format(),
            !args.no_fusion,
        )
    } else {
        anyhow::ensure!(
            args.metadata.is_none(),
            "--metadata gives the constants of a TVMScript module; {} is an executable, which holds its own",
            args.path.display()
        );
        inspect_executable(&args.path, args.format())
    }
}

fn millis(d: std::time::Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// Tensors of a result, with their position in nested tuples (`[0, 1]`).
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

/// What `run` and `bench` compile.
enum Source {
    Module(relax::IRModule),
    /// An ONNX model's bytes: only its signature is read before the compile
    /// ([`relaxjit::onnx::signature`]), which imports it unless the artifact cache holds it.
    Onnx(Vec<u8>),
}

/// A module read and its call's arguments ready, for `run` and `bench`.
struct Prepared {
    source: Source,
    call_args: Vec<vm::Value>,
    /// One line per parameter: its value's summary and where it came from.
    input_lines: Vec<String>,
    parse_time: std::time::Duration,
}

/// Reads the module of `args` and makes the arguments of the call (read or generated).
fn prepare(args: &RunArgs) -> Result<Prepared> {
    use std::time::Instant;
    use values::{InputGenerator, summarize};

    let start = Instant::now();
    let no_function = |names: &[&str]| {
        anyhow::anyhow!(
            "{} has no Relax function `{}` (it has: {})",
            args.path.display(),
            args.func,
            names.join(", ")
        )
    };
    let (source, params) = if is_onnx(&args.path) {
        let bytes = std::fs::read(&args.path)
            .with_context(|| format!("cannot read {}", args.path.display()))?;
        let signature = relaxjit::onnx::signature(&bytes)
            .with_context(|| format!("cannot import {}", args.path.display()))?;
        let func = relaxjit::onnx::ImportOptions::default().func_name;
        if args.func != func {
            return Err(no_function(&[&func]));
        }
        (Source::Onnx(bytes), signature.params)
    } else {
        let module = read_module(&args.path, args.metadata.as_deref())?;
        let func = module.relax_function(&args.func).ok_or_else(|| {
            let names: Vec<&str> = module.relax_functions().map(|(n, _)| n.as_str()).collect();
            no_function(&names)
        })?;
        let params = func.params.clone();
        (Source::Module(module), params)
    };
    let parse_time = start.elapsed();
    // An ONNX model's inputs may be named as in the model (`gpu_0/data_0`) or as their
    // parameters (`gpu_0_data_0`).
    let param_name = |name: &str| -> String {
        if is_onnx(&args.path) && !params.iter().any(|p| p.name() == name) {
            relaxjit::onnx::sanitize_name(name)
        } else {
            name.to_string()
        }
    };
    let inputs: Vec<(String, PathBuf)> = args
        .inputs
        .iter()
        .map(|(n, f)| (param_name(n), f.clone()))
        .collect();
    for (name, _) in &inputs {
        if !params.iter().any(|p| p.name() == name) {
            let names: Vec<&str> = params.iter().map(|p| p.name()).collect();
            anyhow::bail!(
                "--input {name}: `{}` has no parameter `{name}` (it has: {})",
                args.func,
                names.join(", ")
            );
        }
    }
    // Inputs come before compilation: a missing file or an input too large to generate is
    // reported without waiting for the compiler.
    let mut generator = InputGenerator::new(0x5EED).with_max_bytes(args.max_generated);
    let mut call_args = Vec::new();
    let mut input_lines = Vec::new();
    for p in &params {
        let given = inputs.iter().find(|(n, _)| n == p.name());
        let (value, origin) = match given {
            Some((_, file)) => (
                vm::Value::Tensor(relaxjit::npy::read_npy(file)?),
                file.display().to_string(),
            ),
            None => (
                generator
                    .value(p.name(), p.struct_info())
                    .map_err(|e| match e {
                        values::Error::TooLarge { .. } => {
                            anyhow::anyhow!("{e} (--max-generated SIZE)")
                        }
                        e => e.into(),
                    })?,
                "generated".to_string(),
            ),
        };
        input_lines.push(format!(
            "input {}: {} ({origin})",
            p.name(),
            summarize(&value)
        ));
        call_args.push(value);
    }
    Ok(Prepared {
        source,
        call_args,
        input_lines,
        parse_time,
    })
}

/// Compiles the prepared module as `args` asks; the time includes parsing.
fn compile_prepared(
    args: &RunArgs,
    prepared: &Prepared,
) -> Result<(relaxjit::CompiledModule, std::time::Duration)> {
    let start = std::time::Instant::now();
    let engine = relaxjit::Engine::new(relaxjit::Config {
        exec_mode: args.mode.into(),
        fusion: !args.no_fusion,
        library: !args.no_library,
        threads: args.threads.map(usize::from),
        cache: if args.no_cache {
            None
        } else {
            relaxjit::ArtifactCache::at_default_dir()
        },
        ..relaxjit::Config::default()
    })?;
    let compiled = match &prepared.source {
        Source::Module(module) => engine.compile(module),
        Source::Onnx(bytes) => engine.compile_onnx(
            relaxjit::OnnxModel::InFolder {
                bytes,
                folder: relaxjit::onnx::model_folder(&args.path),
            },
            &Default::default(),
        ),
    }
    .with_context(|| format!("cannot compile {}", args.path.display()))?;
    Ok((compiled, prepared.parse_time + start.elapsed()))
}

/// The `compiled FILE in …` line and the inputs' lines.
fn describe_compiled(
    out: &mut String,
    args: &RunArgs,
    compiled: &relaxjit::CompiledModule,
    compile_time: std::time::Duration,
    input_lines: &[String],
) -> Result<()> {
    use std::fmt::Write as _;
    writeln!(
        out,
        "compiled {} in {} ({} TIR kernel{}{})",
        args.path.display(),
        millis(compile_time),
        compiled.kernels().kernels().len(),
        if compiled.kernels().kernels().len() == 1 {
            ""
        } else {
            "s"
        },
        if compiled.from_cache() {
            ", from the artifact cache"
        } else {
            ""
        }
    )?;
    for f in compiled.fallbacks() {
        writeln!(
            out,
            "compiled mode: {} stays bytecode: {}",
            f.function, f.reason
        )?;
    }
    for line in input_lines {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// `relaxjit run`: compiles a module, calls one function, summarizes (and writes) the result.
fn run_module(args: &RunArgs) -> Result<String> {
    use std::fmt::Write as _;
    use std::time::Instant;

    let prepared = prepare(args)?;
    let (compiled, compile_time) = compile_prepared(args, &prepared)?;
    let mut out = String::new();
    describe_compiled(
        &mut out,
        args,
        &compiled,
        compile_time,
        &prepared.input_lines,
    )?;
    let vm = compiled.vm()?;
    let start = Instant::now();
    let result = compiled
        .invoke(&vm, &args.func, &prepared.call_args)
        .with_context(|| format!("calling {}", args.func))?;
    let call_time = start.elapsed();
    writeln!(out, "called {} in {}", args.func, millis(call_time))?;
    describe_result(&mut out, args, &result)?;
    Ok(out)
}

/// `relaxjit bench`: compiles a module, times its first call and `--iterations` more, and
/// summarizes (and writes) the last result.
fn bench_module(args: &BenchArgs) -> Result<String> {
    use std::fmt::Write as _;
    use std::io::IsTerminal;
    use std::time::{Duration, Instant};

    let run = &args.run;
    let prepared = prepare(run)?;
    let (compiled, compile_time) = compile_prepared(run, &prepared)?;
    let mut out = String::new();
    describe_compiled(
        &mut out,
        run,
        &compiled,
        compile_time,
        &prepared.input_lines,
    )?;
    let vm = compiled.vm()?;
    let call = || {
        compiled
            .invoke(&vm, &run.func, &prepared.call_args)
            .with_context(|| format!("calling {}", run.func))
    };
    let start = Instant::now();
    let mut result = call()?;
    writeln!(out, "first call: {}", millis(start.elapsed()))?;
    // A progress line once the calls have taken a second, refreshed at most twice a second.
    let progress = std::io::stderr().is_terminal();
    let began = Instant::now();
    let mut shown = Duration::ZERO;
    let n = args.iterations as usize;
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let t = Instant::now();
        result = call()?;
        times.push(t.elapsed().as_secs_f64());
        let elapsed = began.elapsed();
        if progress
            && elapsed >= Duration::from_secs(1)
            && elapsed - shown >= Duration::from_millis(500)
        {
            shown = elapsed;
            eprint!("\rcall {}/{n} ({:.0} s)", i + 1, elapsed.as_secs_f64());
        }
    }
    if progress && shown > Duration::ZERO {
        eprint!("\r{:40}\r", "");
    }
    let s = timing::Summary::of(&times).context("no call was timed")?;
    writeln!(
        out,
        "{n} calls: median {} ±{:.1}% (half the interquartile range), min {}, max {}",
        timing::format_seconds(s.median),
        100.0 * s.spread(),
        timing::format_seconds(s.min),
        timing::format_seconds(s.max),
    )?;
    describe_result(&mut out, run, &result)?;
    Ok(out)
}

/// The result's tensors, summarized, and written if `--output` asks.
fn describe_result(out: &mut String, args: &RunArgs, result: &vm::Value) -> Result<()> {
    use std::fmt::Write as _;
    use values::summarize;

    let mut outputs = Vec::new();
    leaves(result, &mut Vec::new(), &mut outputs);
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
    Ok(())
}

/// The embedded demo.
fn run_demo() -> Result<String> {
    use std::fmt::Write as _;

    let report = demo::run_demo(&relaxjit::Engine::default(), 20).context("the demo failed")?;
    let compiled_engine = relaxjit::Engine::new(relaxjit::Config {
        exec_mode: relaxjit::ExecMode::Compiled,
        ..relaxjit::Config::default()
    })?;
    let compiled =
        demo::run_demo(&compiled_engine, 20).context("the demo failed in compiled mode")?;
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
    writeln!(
        out,
        "compiled mode (each Relax function as native code): compile {}, first call {}, next calls {}",
        millis(compiled.compile),
        millis(compiled.first_call),
        millis(compiled.steady_call),
    )?;
    let agree = match (&report.output, &compiled.output) {
        (vm::Value::Tensor(a), vm::Value::Tensor(b)) => a.to_bytes() == b.to_bytes(),
        _ => false,
    };
    writeln!(
        out,
        "{} -> {}{}",
        demo::DEMO_FUNCTION,
        values::summarize(&report.output),
        if agree {
            " (both modes, bit for bit)"
        } else {
            " (the modes DISAGREE)"
        }
    )?;
    writeln!(
        out,
        "\ntry: relaxjit run examples/mlp.py --input x=examples/x.npy (relaxjit --help for more)"
    )?;
    Ok(out)
}

fn run(command: Option<Command>) -> Result<()> {
    let output = match command {
        None | Some(Command::Demo) => run_demo()?,
        Some(Command::Run(args)) => run_module(&args)?,
        Some(Command::Bench(args)) => bench_module(&args)?,
        Some(Command::Inspect(args)) => inspect(&args)?,
        Some(Command::Fmt { file }) => fmt(&file)?,
        Some(Command::Cache { action }) => cache(action)?,
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
    let command = match parse_args(std::env::args_os().skip(1)) {
        Ok(c) => c,
        // Help and version requests print to stdout and exit 0; usage errors exit 2.
        Err(e) => e.exit(),
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

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    fn parse(args: &[&str]) -> Result<Option<Command>, String> {
        parse_args(args.iter().copied()).map_err(|e| e.to_string())
    }

    fn run(args: RunArgs) -> Result<Option<Command>, String> {
        Ok(Some(Command::Run(args)))
    }

    fn run_args(path: &str) -> RunArgs {
        RunArgs {
            path: PathBuf::from(path),
            func: "main".into(),
            inputs: vec![],
            mode: Mode::Bytecode,
            output: None,
            threads: None,
            no_fusion: false,
            no_library: false,
            no_cache: false,
            max_generated: values::DEFAULT_MAX_BYTES,
            metadata: None,
        }
    }

    /// Parsed command lines, and for the bad ones a piece of clap's message that names what
    /// is wrong.
    #[test]
    fn command_lines() {
        let ok = |args: &[&str], want: Result<Option<Command>, String>| {
            assert_eq!(parse(args), want, "{args:?}");
        };
        ok(&[], Ok(None));
        ok(&["demo"], Ok(Some(Command::Demo)));
        ok(&["run", "m.py"], run(run_args("m.py")));
        ok(
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
                "--no-library",
                "--max-generated",
                "4GiB",
            ],
            run(RunArgs {
                func: "f".into(),
                inputs: vec![
                    ("x".into(), PathBuf::from("a.npy")),
                    ("y".into(), PathBuf::from("b.npy")),
                ],
                mode: Mode::Compiled,
                output: Some(PathBuf::from("o.npy")),
                threads: Some(2),
                no_fusion: true,
                no_library: true,
                max_generated: 4 << 30,
                ..run_args("m.py")
            }),
        );
        ok(
            &[
                "bench",
                "m.py",
                "--iterations",
                "5",
                "--metadata",
                "case.json",
                "--input",
                "x=a.npy",
            ],
            Ok(Some(Command::Bench(BenchArgs {
                run: RunArgs {
                    inputs: vec![("x".into(), PathBuf::from("a.npy"))],
                    metadata: Some(PathBuf::from("case.json")),
                    ..run_args("m.py")
                },
                iterations: 5,
            }))),
        );
        ok(
            &["bench", "m.py"],
            Ok(Some(Command::Bench(BenchArgs {
                run: run_args("m.py"),
                iterations: 20,
            }))),
        );
        ok(
            &["fmt", "-"],
            Ok(Some(Command::Fmt {
                file: PathBuf::from("-"),
            })),
        );
        let inspect = |path: &str, python: bool, lowered: bool| {
            Ok(Some(Command::Inspect(InspectArgs {
                path: PathBuf::from(path),
                text: false,
                python,
                stats: false,
                lowered,
                no_fusion: false,
                metadata: None,
            })))
        };
        ok(&["inspect", "a.bin"], inspect("a.bin", false, false));
        ok(
            &["inspect", "--python", "a.bin"],
            inspect("a.bin", true, false),
        );
        ok(
            &["inspect", "m.py", "--lowered"],
            inspect("m.py", false, true),
        );
        ok(
            &["inspect", "m.onnx", "--lowered"],
            inspect("m.onnx", false, true),
        );

        let bad: &[(&[&str], &str)] = &[
            (&["demo", "x"], "unexpected argument 'x'"),
            (&["run"], "<FILE.py>"),
            (
                &["run", "m.py", "--input", "x"],
                "expected PARAM=FILE.npy, got `x`",
            ),
            (
                &["run", "m.py", "--input", "x=a.npy", "--input", "x=b.npy"],
                "--input x=… is given more than once",
            ),
            (
                &["run", "m.py", "--func"],
                "a value is required for '--func <NAME>'",
            ),
            (
                &["run", "m.py", "--mode", "jit"],
                "invalid value 'jit' for '--mode <MODE>'",
            ),
            (
                &["run", "m.py", "--threads", "0"],
                "invalid value '0' for '--threads <N>'",
            ),
            (&["run", "m.py", "--threads", "100000"], "1..=1024"),
            (
                &["run", "m.py", "--threads", "many"],
                "invalid value 'many' for '--threads <N>'",
            ),
            (
                &["run", "m.py", "--max-generated", "lots"],
                "`lots` is not a size",
            ),
            (&["run", "m.py", "n.py"], "unexpected argument 'n.py'"),
            (&["run", "m.py", "-x"], "unexpected argument '-x'"),
            (
                &["bench", "m.py", "--iterations", "0"],
                "invalid value '0' for '--iterations <N>'",
            ),
            (
                &["bench", "m.py", "--input", "x=a.npy", "--input", "x=b.npy"],
                "--input x=… is given more than once",
            ),
            (&["bench"], "<FILE.py>"),
            (&["inspect"], "<FILE>"),
            (
                &["inspect", "a.bin", "--lowered"],
                "--lowered needs a TVMScript module",
            ),
            (
                &["inspect", "a.bin", "--python", "--stats"],
                "cannot be used with",
            ),
            (
                &["inspect", "a.bin", "b.bin"],
                "unexpected argument 'b.bin'",
            ),
            (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
            (&["fmt"], "<FILE.py>"),
            (&["fmt", "a.py", "b.py"], "unexpected argument 'b.py'"),
            (&["fmt", "--check"], "unexpected argument '--check'"),
        ];
        for (args, want) in bad {
            match parse(args) {
                Err(e) => assert!(e.contains(want), "{args:?}: {e:?} should say {want:?}"),
                Ok(c) => panic!("{args:?} parsed as {c:?}"),
            }
        }
    }
}
