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
usage: relaxjit <command> [args]

commands:
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
}

/// A command line that does not parse; printed with the usage.
#[derive(Debug)]
struct UsageError(String);

fn parse_args(args: &[OsString]) -> Result<Command, UsageError> {
    let Some((command, rest)) = args.split_first() else {
        return Ok(Command::Help);
    };
    match command.to_str() {
        Some("help" | "-h" | "--help") => Ok(Command::Help),
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
            Some(s) if s.starts_with('-') && s.len() > 1 => {
                return Err(UsageError(format!("inspect: unknown option `{s}`")));
            }
            _ => None,
        };
        match (flag, &path) {
            (Some(f), _) if format.is_some_and(|g| g != f) => {
                return Err(UsageError(
                    "inspect: --text, --python and --stats exclude each other".into(),
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
    let path = path.ok_or_else(|| UsageError("inspect: missing FILE.bin".into()))?;
    Ok(Command::Inspect {
        path,
        format: format.unwrap_or(InspectFormat::Text),
    })
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
    })
}

fn run(command: Command) -> Result<()> {
    let output = match command {
        Command::Help => USAGE.to_string(),
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
            (&[], Ok(Command::Help)),
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
            (&["inspect"], Err("inspect: missing FILE.bin")),
            (
                &["inspect", "a.bin", "--python", "--stats"],
                Err("inspect: --text, --python and --stats exclude each other"),
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
