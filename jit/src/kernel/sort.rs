//! The sort family behind `T.call_packed("tvm.contrib.sort.{sort,argsort,topk}", …)`: decodes the
//! [`KernelArg`]s generated code passes and runs [`tir::sort`], the order, output-shape rule and
//! driver the reference interpreter uses too.
//!
//! Every tensor is checked before it is touched: ranks, element counts (multiplied without
//! overflow), dtypes and output shapes must be consistent, or the helper returns a message
//! instead of reading or writing out of bounds.

use tir::sort::{Placement, SortAccess, SortError, SortKey, SortPlan};

use crate::kernel::abi::{ARG_TENSOR, KernelArg};
use crate::kernel::meta::packed_dtype_name;
use crate::kernel::runtime::SortOp;

/// A tensor argument, checked.
struct View {
    data: *mut u8,
    shape: Vec<i64>,
    /// The packed dtype (`code | bits << 8`, one lane).
    dtype: u32,
    /// Elements, `prod(shape)` without overflow.
    numel: usize,
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
        let numel = vm::tensor::checked_numel(&shape)
            .map_err(|e| format!("{what} has an invalid shape {shape:?}: {e}"))?;
        if (a.dtype >> 16) as u16 != 1 {
            return Err(format!(
                "{what}: vector dtype {} is not supported",
                packed_dtype_name(a.dtype)
            ));
        }
        Ok(View {
            data: a.data,
            shape,
            dtype: a.dtype,
            numel,
        })
    }

    fn code_bits(&self) -> (u8, u8) {
        (self.dtype as u8, (self.dtype >> 8) as u8)
    }

    fn dtype_name(&self) -> String {
        packed_dtype_name(self.dtype)
    }

    /// Bytes per element, if the dtype is one the helper reads or writes.
    fn elem_bytes(&self) -> Option<usize> {
        match self.code_bits() {
            (0 | 1, 8 | 16 | 32 | 64) | (2, 16 | 32 | 64) | (4, 16) | (6, 8) => {
                Some(self.code_bits().1 as usize / 8)
            }
            _ => None,
        }
    }

    /// The address of element `i`, which must be below `numel`.
    fn at(&self, i: usize, bytes: usize) -> Result<*mut u8, String> {
        if i >= self.numel {
            return Err(format!(
                "element {i} is outside a tensor of shape {:?}",
                self.shape
            ));
        }
        // SAFETY: i < numel, so the offset lies within the tensor, which by `run`'s contract
        // is a compact array of numel elements of `bytes` bytes.
        Ok(unsafe { self.data.add(i * bytes) })
    }

    /// Element `i` as a sort key.
    fn key(&self, i: usize) -> Result<SortKey, String> {
        let bytes = self.elem_bytes().unwrap_or(0);
        let p = self.at(i, bytes)?;
        // SAFETY: `at` checked that p points at one whole element of the tensor's dtype;
        // unaligned reads are used.
        unsafe {
            Ok(match self.code_bits() {
                (2, 64) => SortKey::Float((p as *const f64).read_unaligned()),
                (2, 32) => SortKey::Float((p as *const f32).read_unaligned().into()),
                (2, 16) => SortKey::Float(
                    half::f16::from_bits((p as *const u16).read_unaligned()).to_f64(),
                ),
                (4, 16) => SortKey::Float(
                    half::bf16::from_bits((p as *const u16).read_unaligned()).to_f64(),
                ),
                (0, 8) => SortKey::Int((p as *const i8).read().into()),
                (0, 16) => SortKey::Int((p as *const i16).read_unaligned().into()),
                (0, 32) => SortKey::Int((p as *const i32).read_unaligned().into()),
                (0, 64) => SortKey::Int((p as *const i64).read_unaligned()),
                (6, 8) => SortKey::Int((p.read() != 0).into()),
                (1, 8) => SortKey::UInt(p.read().into()),
                (1, 16) => SortKey::UInt((p as *const u16).read_unaligned().into()),
                (1, 32) => SortKey::UInt((p as *const u32).read_unaligned().into()),
                (1, 64) => SortKey::UInt((p as *const u64).read_unaligned()),
                _ => return Err(format!("unsupported input dtype {}", self.dtype_name())),
            })
        }
    }

    /// Writes `index` as element `i`, converted to the tensor's dtype as a TIR cast from
    /// `int64` would (integers wrap, floats round).
    fn put_index(&self, i: usize, index: i64) -> Result<(), String> {
        let bytes = self.elem_bytes().unwrap_or(0);
        let p = self.at(i, bytes)?;
        // SAFETY: `at` checked that p points at one whole element of the tensor's dtype;
        // unaligned writes are used.
        unsafe {
            match self.code_bits() {
                (2, 64) => (p as *mut f64).write_unaligned(index as f64),
                (2, 32) => (p as *mut f32).write_unaligned(index as f32),
                (2, 16) => {
                    (p as *mut u16).write_unaligned(half::f16::from_f64(index as f64).to_bits())
                }
                (4, 16) => {
                    (p as *mut u16).write_unaligned(half::bf16::from_f64(index as f64).to_bits())
                }
                (6, 8) => p.write(u8::from(index != 0)),
                (0 | 1, 8) => p.write(index as u8),
                (0 | 1, 16) => (p as *mut u16).write_unaligned(index as u16),
                (0 | 1, 32) => (p as *mut u32).write_unaligned(index as u32),
                (0 | 1, 64) => (p as *mut u64).write_unaligned(index as u64),
                _ => return Err(format!("unsupported indices dtype {}", self.dtype_name())),
            }
        }
        Ok(())
    }
}

fn int_arg(a: Option<&KernelArg>, what: &str) -> Result<i64, String> {
    match a {
        Some(a) if a.kind != ARG_TENSOR => Ok(a.scalar),
        _ => Err(format!("missing integer argument `{what}`")),
    }
}

/// The tensors of one call as [`SortPlan::run`] reads and writes them.
struct Access<'a> {
    input: &'a View,
    values: Option<&'a View>,
    indices: Option<&'a View>,
    bytes: usize,
}

impl SortAccess for Access<'_> {
    type Error = String;

    fn key(&mut self, elem: usize) -> Result<SortKey, String> {
        self.input.key(elem)
    }

    fn place(&mut self, p: Placement) -> Result<(), String> {
        if let Some(v) = self.values {
            let from = self.input.at(p.src, self.bytes)?;
            let to = v.at(p.dst, self.bytes)?;
            // SAFETY: `at` checked both elements lie within their tensors; both tensors have
            // the same dtype (checked before the run), so one element is `bytes` long in each.
            // An input element and a values element never overlap unless the call aliases
            // them, in which case `copy` (memmove) still copies exactly one element.
            unsafe { std::ptr::copy(from, to, self.bytes) };
        }
        if let Some(x) = self.indices {
            x.put_index(p.dst, p.index)?;
        }
        Ok(())
    }

    fn fail(&self, e: SortError) -> String {
        e.0
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
            (vec![out], None, axis, ret, asc)
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
            (outs, Some(k), axis, ret, asc)
        }
        // SAFETY: forwarded contract.
        SortOp::ArgsortNms => return unsafe { argsort_counted(&input, args) }.map_err(ctx),
    };
    // Which output receives values, which indices.
    let (values, indices) = match (op, ret) {
        (SortOp::Sort, _) => (outputs.first(), None),
        (SortOp::Argsort, _) => (None, outputs.first()),
        (_, 0) => (outputs.first(), outputs.get(1)),
        (_, 1) => (outputs.first(), None),
        (_, 2) => (None, outputs.first()),
        _ => return Err(ctx(format!("unknown ret_type {ret}"))),
    };
    let plan = SortPlan::new(&input.shape, axis, k).map_err(|e| ctx(e.0))?;
    if let Some(v) = values {
        plan.check_output("values output", &v.shape)
            .and_then(|()| SortPlan::check_values_dtype(&v.dtype_name(), &input.dtype_name()))
            .map_err(|e| ctx(e.0))?;
    }
    if let Some(x) = indices {
        plan.check_output("indices output", &x.shape)
            .map_err(|e| ctx(e.0))?;
        if x.elem_bytes().is_none() {
            return Err(ctx(format!("unsupported indices dtype {}", x.dtype_name())));
        }
    }
    let bytes = input
        .elem_bytes()
        .ok_or_else(|| ctx(format!("unsupported input dtype {}", input.dtype_name())))?;
    let mut access = Access {
        input: &input,
        values,
        indices,
        bytes,
    };
    plan.run(ascend, &mut access).map_err(ctx)
}

/// `tvm.contrib.sort.argsort_nms(input, counts, output, axis, is_ascend)`: the indices that
/// sort, in each slice along `axis`, its first `counts[slice]` elements (the rest in place),
/// through [`SortPlan::run_counted`].
///
/// # Safety
/// As [`run`]'s.
unsafe fn argsort_counted(input: &View, args: &[KernelArg]) -> Result<(), String> {
    if args.len() != 5 {
        return Err(format!("expected 5 arguments, got {}", args.len()));
    }
    // SAFETY: forwarded contract.
    let (counts, indices) = unsafe {
        (
            View::new(&args[1], "counts")?,
            View::new(&args[2], "output")?,
        )
    };
    let axis = int_arg(args.get(3), "axis")?;
    let ascend = int_arg(args.get(4), "is_ascend")? != 0;
    let plan = SortPlan::new(&input.shape, axis, None).map_err(|e| e.0)?;
    plan.check_output("indices output", &indices.shape)
        .map_err(|e| e.0)?;
    if indices.elem_bytes().is_none() {
        return Err(format!(
            "unsupported indices dtype {}",
            indices.dtype_name()
        ));
    }
    let is_int = matches!(counts.code_bits(), (0 | 1, 8 | 16 | 32 | 64));
    plan.check_counts(&counts.shape, is_int, &counts.dtype_name())
        .map_err(|e| e.0)?;
    let bytes = input
        .elem_bytes()
        .ok_or_else(|| format!("unsupported input dtype {}", input.dtype_name()))?;
    let mut access = Access {
        input,
        values: None,
        indices: Some(&indices),
        bytes,
    };
    plan.run_counted(ascend, &mut access, |s| match counts.key(s)? {
        SortKey::Int(c) => Ok(c),
        SortKey::UInt(c) => Ok(i64::try_from(c).unwrap_or(i64::MAX)),
        SortKey::Float(_) => Err("the counts must be integers".to_string()),
    })
}
