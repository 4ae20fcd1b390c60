//! The sort family behind `T.call_packed("tvm.contrib.sort.{sort,argsort,topk}", …)`, with the
//! semantics of TVM's `src/runtime/contrib/sort/sort.cc`: a stable sort along one axis (ties
//! keep index order; descending compares with `>`), and top-k as the first `k` of that order
//! (`k < 1` means all).
//!
//! Every tensor is checked before it is touched: ranks, dtypes and element counts must be
//! consistent, or the helper returns a message instead of reading or writing out of bounds.

use std::cmp::Ordering;

use crate::kernel::abi::{ARG_TENSOR, KernelArg};
use crate::kernel::runtime::SortOp;

/// A tensor argument, checked.
struct View {
    data: *mut u8,
    shape: Vec<i64>,
    code: u8,
    bits: u8,
}

impl View {
    /// # Safety
    /// `a.shape` must point at `a.ndim` dimensions if `a` is a tensor.
    unsafe fn new(a: &KernelArg, what: &str) -> Result<View, String> {
        if a.kind != ARG_TENSOR || a.data.is_null() || a.ndim < 0 {
            return Err(format!("{what} must be a tensor"));
        }
        let shape = if a.ndim == 0 {
            Vec::new()
        } else {
            // SAFETY: by the contract, shape points at ndim dimensions.
            unsafe { std::slice::from_raw_parts(a.shape, a.ndim as usize) }.to_vec()
        };
        if shape.iter().any(|&d| d < 0) {
            return Err(format!("{what} has a negative dimension: {shape:?}"));
        }
        let lanes = (a.dtype >> 16) as u16;
        if lanes != 1 {
            return Err(format!("{what}: vector dtypes are not supported"));
        }
        Ok(View {
            data: a.data,
            shape,
            code: a.dtype as u8,
            bits: (a.dtype >> 8) as u8,
        })
    }

    fn numel(&self) -> i64 {
        self.shape.iter().product()
    }

    fn dtype_name(&self) -> String {
        let base = match self.code {
            0 => "int",
            1 => "uint",
            2 => "float",
            4 => "bfloat",
            6 => "bool",
            _ => "custom",
        };
        format!("{base}{}", self.bits)
    }

    fn bytes(&self) -> usize {
        (self.bits as usize).div_ceil(8)
    }

    /// Element `i` as a sort key.
    ///
    /// # Safety
    /// `i < numel`.
    unsafe fn key(&self, i: usize) -> Result<Key, String> {
        // SAFETY: i < numel, so the element lies within the tensor.
        let p = unsafe { self.data.add(i * self.bytes()) };
        // SAFETY: p points at one element of the tensor's dtype; unaligned reads are used.
        unsafe {
            Ok(match (self.code, self.bits) {
                (2, 32) => Key::F((p as *const f32).read_unaligned() as f64),
                (2, 64) => Key::F((p as *const f64).read_unaligned()),
                (2, 16) => {
                    Key::F(half::f16::from_bits((p as *const u16).read_unaligned()).to_f64())
                }
                (0, 8) => Key::I((p as *const i8).read() as i64),
                (0, 16) => Key::I((p as *const i16).read_unaligned() as i64),
                (0, 32) => Key::I((p as *const i32).read_unaligned() as i64),
                (0, 64) => Key::I((p as *const i64).read_unaligned()),
                (1, 8) | (6, 8) => Key::I(p.read() as i64),
                (1, 16) => Key::I((p as *const u16).read_unaligned() as i64),
                (1, 32) => Key::I((p as *const u32).read_unaligned() as i64),
                _ => return Err(format!("unsupported input dtype {}", self.dtype_name())),
            })
        }
    }

    /// Writes `v` as element `i`, converted to the tensor's dtype.
    ///
    /// # Safety
    /// `i < numel`.
    unsafe fn put(&self, i: usize, v: Key) -> Result<(), String> {
        // SAFETY: i < numel, so the element lies within the tensor.
        let p = unsafe { self.data.add(i * self.bytes()) };
        let (f, n) = match v {
            Key::F(f) => (f, f as i64),
            Key::I(n) => (n as f64, n),
        };
        // SAFETY: p points at one element of the tensor's dtype; unaligned writes are used.
        unsafe {
            match (self.code, self.bits) {
                (2, 32) => (p as *mut f32).write_unaligned(f as f32),
                (2, 64) => (p as *mut f64).write_unaligned(f),
                (2, 16) => (p as *mut u16).write_unaligned(half::f16::from_f64(f).to_bits()),
                (0, 8) | (1, 8) => p.write(n as u8),
                (0, 16) | (1, 16) => (p as *mut u16).write_unaligned(n as u16),
                (0, 32) | (1, 32) => (p as *mut u32).write_unaligned(n as u32),
                (0, 64) => (p as *mut i64).write_unaligned(n),
                _ => return Err(format!("unsupported output dtype {}", self.dtype_name())),
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
enum Key {
    F(f64),
    I(i64),
}

fn int_arg(a: Option<&KernelArg>, what: &str) -> Result<i64, String> {
    match a {
        Some(a) if a.kind != ARG_TENSOR => Ok(a.scalar),
        _ => Err(format!("missing integer argument `{what}`")),
    }
}

/// Runs a sort-family helper.
///
/// # Safety
/// Every tensor argument must point at a compact array of its shape and dtype.
pub(crate) unsafe fn run(op: i64, args: &[KernelArg]) -> Result<(), String> {
    let op = SortOp::from_code(op).ok_or_else(|| format!("unknown sort helper {op}"))?;
    let name = op.name();
    let ctx = |m: String| format!("{name}: {m}");
    let first = args.first().ok_or_else(|| ctx("no input".into()))?;
    // SAFETY: forwarded contract.
    let input = unsafe { View::new(first, "input") }.map_err(ctx)?;
    let (outputs, k, axis, ret, ascend) = match op {
        SortOp::Sort | SortOp::Argsort => {
            if args.len() != 4 {
                return Err(ctx(format!("expected 4 arguments, got {}", args.len())));
            }
            // SAFETY: forwarded contract.
            let out = unsafe { View::new(&args[1], "output") }.map_err(ctx)?;
            let axis = int_arg(args.get(2), "axis").map_err(ctx)?;
            let asc = int_arg(args.get(3), "is_ascend").map_err(ctx)? != 0;
            let ret = if op == SortOp::Sort { 1 } else { 2 };
            (vec![out], 0, axis, ret, asc)
        }
        SortOp::Topk => {
            let n = args.len();
            if !(6..=7).contains(&n) {
                return Err(ctx(format!("expected 6 or 7 arguments, got {n}")));
            }
            let mut outs = Vec::new();
            for a in &args[1..n - 4] {
                // SAFETY: forwarded contract.
                outs.push(unsafe { View::new(a, "output") }.map_err(ctx)?);
            }
            let k = int_arg(args.get(n - 4), "k").map_err(ctx)?;
            let axis = int_arg(args.get(n - 3), "axis").map_err(ctx)?;
            let ret = int_arg(args.get(n - 2), "ret_type").map_err(ctx)?;
            let asc = int_arg(args.get(n - 1), "is_ascend").map_err(ctx)? != 0;
            let expected_outs = if ret == 0 { 2 } else { 1 };
            if outs.len() != expected_outs {
                return Err(ctx(format!(
                    "ret_type needs {expected_outs} outputs, got {}",
                    outs.len()
                )));
            }
            (outs, k, axis, ret, asc)
        }
    };
    let ndim = input.shape.len() as i64;
    let axis = if axis < 0 { axis + ndim } else { axis };
    if axis < 0 || axis >= ndim {
        return Err(ctx(format!("axis {axis} is out of range for rank {ndim}")));
    }
    let axis = axis as usize;
    let n = input.shape[axis];
    let before: i64 = input.shape[..axis].iter().product();
    let after: i64 = input.shape[axis + 1..].iter().product();
    let k = if op == SortOp::Topk && k >= 1 {
        k.min(n)
    } else {
        n
    };
    let k_stride = if op == SortOp::Topk && k >= 1 { k } else { n };
    for o in &outputs {
        if o.numel() < before * k_stride * after {
            return Err(ctx(format!(
                "output of shape {:?} is too small for {} x {k_stride} x {after} elements",
                o.shape, before
            )));
        }
    }
    // Which output receives values, which indices.
    let (values, indices) = match (op, ret) {
        (SortOp::Sort, _) => (outputs.first(), None),
        (SortOp::Argsort, _) => (None, outputs.first()),
        (_, 0) => (outputs.first(), outputs.get(1)),
        (_, 1) => (outputs.first(), None),
        (_, 2) => (None, outputs.first()),
        _ => return Err(ctx(format!("unknown ret_type {ret}"))),
    };
    if let Some(v) = values
        && (v.code, v.bits) != (input.code, input.bits)
    {
        return Err(ctx(format!(
            "values output has dtype {}, the input {}",
            v.dtype_name(),
            input.dtype_name()
        )));
    }
    let mut row: Vec<(i64, Key)> = Vec::with_capacity(n as usize);
    for i in 0..before {
        for j in 0..after {
            row.clear();
            let base = i * n * after + j;
            for q in 0..n {
                let idx = (base + q * after) as usize;
                // SAFETY: idx < before * n * after = numel of the input.
                row.push((q, unsafe { input.key(idx) }.map_err(ctx)?));
            }
            row.sort_by(|a, b| {
                let o = if ascend {
                    a.1.partial_cmp(&b.1)
                } else {
                    b.1.partial_cmp(&a.1)
                };
                o.unwrap_or(Ordering::Equal)
            });
            let dst = i * k_stride * after + j;
            for (q, &(index, key)) in row.iter().take(k as usize).enumerate() {
                let at = (dst + q as i64 * after) as usize;
                // SAFETY: at < before * k_stride * after <= numel of each output (checked).
                unsafe {
                    if let Some(v) = values {
                        v.put(at, key).map_err(ctx)?;
                    }
                    if let Some(x) = indices {
                        x.put(at, Key::I(index)).map_err(ctx)?;
                    }
                }
            }
        }
    }
    Ok(())
}
