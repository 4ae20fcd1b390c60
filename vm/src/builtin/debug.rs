//! `relax.run.print` and `relax.run.assert_op`, which `R.print` and `R.assert_op` call at run
//! time. TVM registers both from its Python package (`python/tvm/relax/op/base.py`); these
//! are their native equivalents, with the same arguments and messages:
//!
//! - `print(format: str, values...)`: with an empty format, the values rendered and joined by
//!   spaces (Python's `print(*values)`); otherwise `format.format(*rendered)`. One line on
//!   standard output.
//! - `assert_op(condition, format: str, values...)`: nothing if the condition holds; else an
//!   `AssertionError` whose message is `format.format(*rendered)`, the rendered values joined
//!   by `", "` when the format is empty, or `Assertion Failed` when there is neither.
//!
//! Values render as TVM's `render_object` renders them: a tensor as numpy's `str` of it, a
//! tuple as `(a, b)`, a shape as `ShapeTuple` prints (`[1, 2]`), a number or bool as
//! Python's. Tensors follow numpy's default print options (8 digits of precision, unique
//! shortest digits, aligned columns, lines of 75 characters, `...` past 1000 elements);
//! scientific notation follows numpy's switch but not its exact padding. Format strings
//! support Python's `{}`, `{0}`, `{{`, `}}` and the `!s` conversion; a format spec or
//! another conversion is an error naming it, since the rendered values are strings and
//! Python's only specs for them are alignment and width.

use super::Args;
use crate::{Error, ErrorKind, Result, Tensor, Value};

/// `relax.run.print(format: str, values...)`.
pub(super) fn print(args: &[Value]) -> Result<Value> {
    let a = Args::new("relax.run.print", args);
    a.expect_len(1, usize::MAX, "(format: str, values...)")?;
    let format = a.str(0, "format")?;
    let line = print_line(format, &args[1..]).map_err(|e| e.context(a.name))?;
    println!("{line}");
    Ok(Value::Null)
}

/// The line [`print`] writes for `format` and `values`.
pub fn print_line(format: &str, values: &[Value]) -> Result<String> {
    let rendered: Vec<String> = values.iter().map(render).collect();
    if format.is_empty() {
        Ok(rendered.join(" "))
    } else {
        python_format(format, &rendered)
    }
}

/// `relax.run.assert_op(condition, format: str, values...)`.
pub(super) fn assert_op(args: &[Value]) -> Result<Value> {
    let a = Args::new("relax.run.assert_op", args);
    a.expect_len(2, usize::MAX, "(condition, format: str, values...)")?;
    let format = match a.get(1) {
        Value::Str(s) => s.as_str(),
        other => {
            return Err(Error::value_error(format!(
                "The format string argument to assert must be a string, given {}",
                other.type_name()
            )));
        }
    };
    let holds = match a.get(0) {
        Value::Bool(b) => *b,
        Value::Int(v) => *v != 0,
        Value::Tensor(t) => {
            if !t.dtype().is_bool() {
                return Err(Error::value_error(format!(
                    "The condition must be a bool scalar, but given a {} tensor",
                    t.dtype()
                )));
            }
            if t.ndim() != 0 {
                return Err(Error::value_error(format!(
                    "The condition must be a scalar, but it has a shape of {:?}",
                    t.shape()
                )));
            }
            t.get_i64(0).is_some_and(|v| v != 0)
        }
        other => {
            return Err(Error::value_error(format!(
                "The condition for relax assert must be a bool, int, or NDArray, but received a {}.",
                other.type_name()
            )));
        }
    };
    if holds {
        return Ok(Value::Null);
    }
    let values = &args[2..];
    let message = if values.is_empty() && format.is_empty() {
        "Assertion Failed".to_string()
    } else {
        let rendered: Vec<String> = values.iter().map(render).collect();
        if format.is_empty() {
            rendered.join(", ")
        } else {
            python_format(format, &rendered).map_err(|e| e.context(a.name))?
        }
    };
    Err(Error::new(ErrorKind::Assertion, message))
}

/// Python's `format.format(*args)` for string arguments without format specs.
fn python_format(format: &str, args: &[String]) -> Result<String> {
    let bad = |what: String| {
        Err(Error::value_error(format!(
            "format string {format:?}: {what}"
        )))
    };
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    let mut auto = 0usize;
    // Whether fields are numbered automatically (`{}`) or by hand (`{0}`); Python forbids
    // mixing the two.
    let mut numbering: Option<bool> = None;
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '}' => return bad("Single '}' encountered in format string".into()),
            '{' => {
                let mut field = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some('{') => return bad("unexpected '{' in field name".into()),
                        Some(c) => field.push(c),
                        None => return bad("Single '{' encountered in format string".into()),
                    }
                }
                let (name, conversion, spec) = split_field(&field);
                if let Some(conv) = conversion
                    && conv != "s"
                {
                    return bad(format!(
                        "the conversion `!{conv}` is not supported (only `!s`)"
                    ));
                }
                if !spec.is_empty() {
                    return bad(format!(
                        "the format spec `:{spec}` is not supported: the values are rendered \
                         as strings first"
                    ));
                }
                let index = if name.is_empty() {
                    if numbering == Some(false) {
                        return bad(
                            "cannot switch from manual field specification to automatic field numbering"
                                .into(),
                        );
                    }
                    numbering = Some(true);
                    auto += 1;
                    auto - 1
                } else {
                    let Ok(i) = name.parse::<usize>() else {
                        return bad(format!("the field `{name}` is not a position"));
                    };
                    if numbering == Some(true) {
                        return bad(
                            "cannot switch from automatic field numbering to manual field specification"
                                .into(),
                        );
                    }
                    numbering = Some(false);
                    i
                };
                let Some(arg) = args.get(index) else {
                    return Err(Error::index(format!(
                        "format string {format:?}: Replacement index {index} out of range for positional args tuple"
                    )));
                };
                out.push_str(arg);
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

/// A replacement field's name, conversion and format spec: `name!conv:spec`.
fn split_field(field: &str) -> (&str, Option<&str>, &str) {
    let (head, spec) = field.split_once(':').unwrap_or((field, ""));
    match head.split_once('!') {
        Some((name, conv)) => (name, Some(conv), spec),
        None => (head, None, spec),
    }
}

/// A value as TVM's `render_object` renders it.
pub fn render(v: &Value) -> String {
    match v {
        Value::Tensor(t) => render_tensor(t),
        Value::Tuple(t) => {
            let fields: Vec<String> = t.fields().iter().map(render).collect();
            format!("({})", fields.join(", "))
        }
        Value::Shape(s) => {
            let dims: Vec<String> = s.dims().iter().map(i64::to_string).collect();
            format!("[{}]", dims.join(", "))
        }
        Value::Int(i) => i.to_string(),
        Value::Float(f) => python_float(*f),
        Value::Bool(b) => (if *b { "True" } else { "False" }).to_string(),
        Value::Str(s) => s.as_str().to_string(),
        other => format!("{other:?}"),
    }
}

/// Python's `repr` of a float: the shortest digits that read back, with `.0` on an integral
/// value, exponent form from 1e16 and below 1e-4.
fn python_float(f: f64) -> String {
    if !f.is_finite() {
        return numpy_non_finite(f);
    }
    let a = f.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        let s = format!("{f:e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        return format!("{m}{}", exponent_text(e));
    }
    let s = format!("{f}");
    if s.contains('.') { s } else { format!("{s}.0") }
}

fn numpy_non_finite(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

/// numpy's default `threshold`: arrays with more elements are summarized.
const THRESHOLD: usize = 1000;
/// numpy's default `edgeitems`: elements kept at each end of a summarized axis.
const EDGE: usize = 3;
/// numpy's default `linewidth`.
const LINE_WIDTH: usize = 75;

/// numpy's `str` of a tensor with the default print options.
fn render_tensor(t: &Tensor) -> String {
    let shape: Vec<usize> = t.shape().iter().map(|&d| d.max(0) as usize).collect();
    let d = t.dtype();
    if d.lanes != 1 || !(d.is_float() || d.is_int() || d.is_uint() || d.is_bool()) {
        return format!("<tensor of shape {:?} and dtype {d}>", t.shape());
    }
    let numel = t.numel();
    let summarize = numel > THRESHOLD;
    // The flat indices shown, in order (the summarized middle of long axes left out).
    let mut shown = Vec::new();
    collect_shown(&shape, 0, 0, summarize, &mut shown);
    let words = Formatter::new(t, &shown);
    let mut out = String::new();
    if shape.is_empty() {
        return words.word(0, false);
    }
    let mut at = 0;
    write_axis(&shape, 0, summarize, &words, &mut at, &mut out, "");
    out
}

/// The flat indices a (perhaps summarized) print shows, in order.
fn collect_shown(shape: &[usize], axis: usize, base: usize, summarize: bool, out: &mut Vec<usize>) {
    if axis == shape.len() {
        out.push(base);
        return;
    }
    let stride: usize = shape[axis + 1..].iter().product();
    for i in axis_items(shape[axis], summarize).into_iter().flatten() {
        collect_shown(shape, axis + 1, base + i * stride, summarize, out);
    }
}

/// The items of an axis of length `n`, `None` standing for the `...` of a summarized one.
fn axis_items(n: usize, summarize: bool) -> Vec<Option<usize>> {
    if summarize && n > 2 * EDGE {
        (0..EDGE)
            .map(Some)
            .chain(std::iter::once(None))
            .chain((n - EDGE..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    }
}

/// Writes axis `axis` of the tensor (its shown elements, in order, from `words` at `*at`),
/// numpy's `_formatArray`: elements of the last axis separated by spaces and wrapped at the
/// line width, sub-arrays separated by one newline per remaining axis, continuation lines
/// indented to the depth.
#[allow(clippy::too_many_arguments)]
fn write_axis(
    shape: &[usize],
    axis: usize,
    summarize: bool,
    words: &Formatter,
    at: &mut usize,
    out: &mut String,
    indent: &str,
) {
    out.push('[');
    let next_indent = format!("{indent} ");
    let items = axis_items(shape[axis], summarize);
    if axis + 1 == shape.len() {
        let mut line_len = indent.len() + 1;
        for (k, item) in items.iter().enumerate() {
            let word = match item {
                Some(_) => {
                    let w = words.word(*at, true);
                    *at += 1;
                    w
                }
                None => "...".to_string(),
            };
            let last = k + 1 == items.len();
            // numpy keeps room for the closing bracket after the last word.
            let need = word.len() + usize::from(last);
            if k > 0 {
                if line_len + 1 + need > LINE_WIDTH {
                    out.push('\n');
                    out.push_str(&next_indent);
                    line_len = next_indent.len();
                } else {
                    out.push(' ');
                    line_len += 1;
                }
            }
            out.push_str(&word);
            line_len += word.len();
        }
    } else {
        let gap = "\n".repeat(shape.len() - axis - 1);
        for (k, item) in items.iter().enumerate() {
            if k > 0 {
                out.push_str(&gap);
                out.push_str(&next_indent);
            }
            match item {
                Some(_) => write_axis(shape, axis + 1, summarize, words, at, out, &next_indent),
                None => out.push_str("..."),
            }
        }
    }
    out.push(']');
}

/// The text of each shown element, numpy's element formatting: the same width for all.
struct Formatter {
    texts: Vec<String>,
    width: usize,
    /// For floats in positional notation: the digits after the point, to pad to.
    frac: Option<usize>,
}

impl Formatter {
    fn new(t: &Tensor, shown: &[usize]) -> Formatter {
        let d = t.dtype();
        let texts: Vec<String>;
        let mut frac = None;
        if d.is_bool() {
            texts = shown
                .iter()
                .map(|&i| {
                    let v = t.get_i64(i).unwrap_or(0) != 0;
                    (if v { "True" } else { "False" }).to_string()
                })
                .collect();
        } else if d.is_float() || d.code == crate::TypeCode::BFloat as u8 {
            let vals: Vec<f64> = shown
                .iter()
                .map(|&i| t.get_f64(i).unwrap_or(f64::NAN))
                .collect();
            let f32ish = d.bits <= 32;
            let finite: Vec<f64> = vals
                .iter()
                .copied()
                .filter(|v| v.is_finite() && *v != 0.0)
                .map(f64::abs)
                .collect();
            let (lo, hi) = finite
                .iter()
                .fold((f64::INFINITY, 0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
            let scientific = !finite.is_empty() && (hi >= 1e8 || lo < 1e-4 || hi / lo > 1e3);
            if scientific {
                // Mantissas padded with zeros to the most digits any needs.
                let parts: Vec<(String, String, String)> =
                    vals.iter().map(|&v| numpy_scientific(v, f32ish)).collect();
                let digits = parts.iter().map(|(_, f, _)| f.len()).max().unwrap_or(0);
                texts = vals
                    .iter()
                    .zip(parts)
                    .map(|(&v, (int, _, exp))| {
                        if exp.is_empty() {
                            return int;
                        }
                        // Every mantissa with the same digits, each rounded from the value
                        // itself (not padded with zeros), as numpy does.
                        let (int, f, exp) = numpy_scientific_digits(v, f32ish, digits);
                        format!("{int}{f}{exp}")
                    })
                    .collect();
            } else {
                let parts: Vec<(String, String)> =
                    vals.iter().map(|&v| numpy_positional(v, f32ish)).collect();
                let digits = parts.iter().map(|(_, f)| f.len()).max().unwrap_or(0);
                frac = Some(digits);
                texts = parts
                    .into_iter()
                    .map(|(int, f)| {
                        if int.ends_with('.') {
                            format!("{int}{f}{}", " ".repeat(digits - f.len()))
                        } else {
                            // `nan`, `inf`: right-aligned to the width like the rest.
                            int
                        }
                    })
                    .collect();
            }
        } else {
            texts = shown
                .iter()
                .map(|&i| {
                    if d.is_uint() && d.bits == 64 {
                        // Read the bits as unsigned.
                        (t.get_i64(i).unwrap_or(0) as u64).to_string()
                    } else {
                        t.get_i64(i).unwrap_or(0).to_string()
                    }
                })
                .collect();
        }
        let width = texts.iter().map(String::len).max().unwrap_or(0);
        Formatter { texts, width, frac }
    }

    /// The `k`-th shown element; padded to the common width when `pad`.
    fn word(&self, k: usize, pad: bool) -> String {
        let text = self.texts.get(k).cloned().unwrap_or_default();
        if !pad {
            // A 0-d array prints its element alone, trailing padding dropped.
            return match self.frac {
                Some(_) => text.trim_end().to_string(),
                None => text,
            };
        }
        format!("{text:>width$}", width = self.width)
    }
}

/// numpy's positional text of `v` in two parts: up to and including the point (`"12."`),
/// and the digits after it, the fewest that read back as the same value of the tensor's
/// type, at most 8 (rounded). Non-finite values are one part.
fn numpy_positional(v: f64, f32ish: bool) -> (String, String) {
    if !v.is_finite() {
        return (numpy_non_finite(v), String::new());
    }
    let shortest = if f32ish {
        format!("{}", v as f32)
    } else {
        format!("{v}")
    };
    let (int, frac) = shortest.split_once('.').unwrap_or((&shortest, ""));
    if frac.len() <= 8 {
        return (format!("{int}."), frac.to_string());
    }
    let rounded = format!("{v:.8}");
    let (int, frac) = rounded.split_once('.').unwrap_or((&rounded, ""));
    (format!("{int}."), frac.trim_end_matches('0').to_string())
}

/// [`numpy_scientific`]'s parts with exactly `digits` digits after the point, rounded.
fn numpy_scientific_digits(v: f64, f32ish: bool, digits: usize) -> (String, String, String) {
    let s = if f32ish {
        format!("{:.digits$e}", v as f32)
    } else {
        format!("{v:.digits$e}")
    };
    split_scientific(&s)
}

/// `1.25e-5` as (`1.`, `25`, `e-05`).
fn split_scientific(s: &str) -> (String, String, String) {
    let (m, e) = s.split_once('e').unwrap_or((s, "0"));
    let (i, f) = m.split_once('.').unwrap_or((m, ""));
    (format!("{i}."), f.to_string(), exponent_text(e))
}

/// Rust's exponent (`8`, `-5`) as Python and numpy write it: `e+08`, `e-05`.
fn exponent_text(e: &str) -> String {
    let e: i32 = e.parse().unwrap_or(0);
    format!("e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// numpy's scientific text of `v` in three parts: the mantissa up to and including the
/// point, its digits after the point (the fewest that read back, at most 8), and `e+XX`;
/// a non-finite value is the first part alone.
fn numpy_scientific(v: f64, f32ish: bool) -> (String, String, String) {
    if !v.is_finite() {
        return (numpy_non_finite(v), String::new(), String::new());
    }
    let s = if f32ish {
        format!("{:e}", v as f32)
    } else {
        format!("{v:e}")
    };
    let (i, f, e) = split_scientific(&s);
    if f.len() > 8 {
        return numpy_scientific_digits(v, f32ish, 8);
    }
    (i, f, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(shape: &[i64], v: &[f32]) -> Value {
        Value::Tensor(Tensor::from_slice(shape, v).unwrap())
    }

    #[test]
    fn tensors_render_as_numpy_prints_them() {
        // Each expectation is numpy 2's `str(np.array(...))`.
        let cases: Vec<(Value, &str)> = vec![
            (f32s(&[], &[1.5]), "1.5"),
            (f32s(&[3], &[1.0, 2.5, 3.0]), "[1.  2.5 3. ]"),
            (
                f32s(&[2, 2], &[1.0, -2.0, 3.25, 4.0]),
                "[[ 1.   -2.  ]\n [ 3.25  4.  ]]",
            ),
            (f32s(&[2], &[0.1, 0.2]), "[0.1 0.2]"),
            (f32s(&[2], &[f32::NAN, 1.0]), "[nan  1.]"),
            (
                Value::Tensor(Tensor::from_slice(&[2, 1, 2], &[1i32, 10, -3, 4]).unwrap()),
                "[[[ 1 10]]\n\n [[-3  4]]]",
            ),
            (
                Value::Tensor(Tensor::from_slice(&[], &[7i64]).unwrap()),
                "7",
            ),
        ];
        for (v, want) in cases {
            assert_eq!(render(&v), want);
        }
        // Long rows wrap at 75 columns, continuation lines indented.
        let v: Vec<f32> = (0..30).map(|i| i as f32).collect();
        let text = render(&f32s(&[30], &v));
        assert!(text.lines().all(|l| l.len() <= 75), "{text}");
        assert!(text.starts_with("[ 0.  1.  2."), "{text}");
        assert!(
            text.lines().nth(1).is_some_and(|l| l.starts_with(' ')),
            "{text}"
        );
        // More than 1000 elements: three at each end of each axis.
        let v: Vec<f32> = (0..2000).map(|i| i as f32).collect();
        assert_eq!(
            render(&f32s(&[2000], &v)),
            "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]"
        );
        assert_eq!(render(&f32s(&[2], &[1e8, 1.5])), "[1.0e+08 1.5e+00]");
    }

    #[test]
    fn formats_follow_python() {
        let args = vec!["a".to_string(), "b".to_string()];
        assert_eq!(python_format("{} and {}", &args).unwrap(), "a and b");
        assert_eq!(python_format("{1}{0}{{}}", &args).unwrap(), "ba{}");
        assert_eq!(python_format("{!s}", &args).unwrap(), "a");
        for bad in ["{0}{}", "{2}", "{:>4}", "{!r}", "{", "}", "{x}"] {
            assert!(python_format(bad, &args).is_err(), "{bad}");
        }
    }

    #[test]
    fn assert_op_raises_with_the_formatted_message() {
        let s = |t: &str| Value::str(t);
        let ok = assert_op(&[Value::Bool(true), s("never")]);
        assert!(matches!(ok, Ok(Value::Null)));
        let e = assert_op(&[Value::Bool(false), s("")]).unwrap_err();
        assert_eq!(
            (e.kind(), e.message()),
            (ErrorKind::Assertion, "Assertion Failed")
        );
        let e = assert_op(&[Value::Int(0), s(""), Value::Int(3), Value::Int(4)]).unwrap_err();
        assert_eq!(e.message(), "3, 4");
        let x = f32s(&[2], &[1.0, 2.0]);
        let e = assert_op(&[Value::Bool(false), s("x = {}"), x]).unwrap_err();
        assert_eq!(e.message(), "x = [1. 2.]");
        // A bool tensor of rank 0 is a condition; another rank or dtype is an error.
        let t = Value::Tensor(Tensor::from_slice(&[], &[1u8]).unwrap());
        assert!(assert_op(&[t, s("")]).is_err());
    }
}
