//! DispatchLibrary: hands matrix multiplies, 2-D convolutions and 2-D pooling to native library
//! kernels, the way TVM's BYOC dispatch hands them to BLAS/DNNL. Runs before LegalizeOps, on the
//! operators a user writes.
//!
//! `R.matmul` (2-D, batched, broadcast batch, matrix-vector; static or symbolic shapes) and
//! `R.nn.conv2d` (NCHW/OIHW, any strides, padding, dilation and groups; `R.nn.conv1d` NCW/OIW
//! too, as a conv2d of rows of height 1 between reshapes; `R.nn.conv2d_transpose` NCHW/IOHW and
//! `R.nn.conv1d_transpose` NCW/IOW as the stride-1 conv2d of the zero-inserted image;
//! `R.nn.conv3d` NCDHW/OIDHW as a conv2d of the gathered depth slices; see the `idioms` module)
//! of `float32` or `float64` become `R.call_dps_packed("relaxjit.…", …)` of a [`LibraryKernel`],
//! together with the epilogue that follows them in the same block when the intermediate has no
//! other use: `R.permute_dims` of a 2-D right operand (read transposed, never copied), up to two
//! `R.add`s that keep the output shape (bias, residual) and one activation (`R.nn.relu`,
//! `R.nn.gelu` for `float32`, `R.nn.gelu_tanh`). The fused call takes the place of the last
//! binding of its chain and keeps that binding's variable. A matmul with an operand that is an
//! `R.permute_dims` (of an `R.reshape`) of another tensor, as attention heads are, becomes a
//! `relaxjit.matmul_view` that reads that tensor in place through strides, and takes a
//! following multiply by a scalar constant and a permute/reshape of its output the same way.
//! `R.nn.max_pool2d` and `R.nn.avg_pool2d` (NCHW) and `R.mean` over the spatial axes of an
//! NCHW tensor (keeping them, an average pool over the whole plane), `R.concat` of two tensors, and
//! `R.nn.softmax` and `R.nn.layer_norm` over the last axis become calls of their own, without
//! epilogues, and so does the eight-binding lowering of ONNX `LRN` (squares, a channel-window
//! `R.nn.avg_pool3d`, scale, bias, power, divide).
//!
//! Invariants afterwards: every dispatched call's output struct info is the chain's last
//! variable's (a tensor of known rank, shape and dtype), its arguments are the chain's inputs
//! (each defined before the call), and the removed intermediates had exactly one use. Operators
//! outside these cases (other dtypes, layouts, unknown ranks) are left to LegalizeOps, so the
//! TIR path stays the reference.

use std::collections::HashMap;

use tir::{DataType, PrimExpr};

use crate::Result;
use crate::ir::{
    AttrValue, Attrs, Binding, BindingBlock, Call, Callee, Constant, Expr, ExprKind, ExternFunc,
    Function, IRModule, If, SeqExpr, StructInfo, Var, VarId,
};
use crate::struct_info_ops::shapes_equal;
use crate::transform::{for_each_binding, kill_after_last_use_uses, map_functions};

mod idioms;
use idioms::simplify_idioms;

/// An elementwise activation applied to a library kernel's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activation {
    Relu,
    /// `0.5 x (1 + erf(x / √2))`.
    Gelu,
    /// `0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))`.
    GeluTanh,
}

impl Activation {
    pub const ALL: [Activation; 3] = [Activation::Relu, Activation::Gelu, Activation::GeluTanh];

    pub fn name(self) -> &'static str {
        match self {
            Activation::Relu => "relu",
            Activation::Gelu => "gelu",
            Activation::GeluTanh => "gelu_tanh",
        }
    }

    fn of_op(op: &str) -> Option<Activation> {
        match op {
            "relax.nn.relu" => Some(Activation::Relu),
            "relax.nn.gelu" => Some(Activation::Gelu),
            "relax.nn.gelu_tanh" => Some(Activation::GeluTanh),
            _ => None,
        }
    }
}

/// The operation of a [`LibraryKernel`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LibraryOp {
    /// `(a, b, addends…, out)`: `out = a @ b` with numpy's matmul semantics; with `trans_b`, `b`
    /// is 2-D and holds the transpose of the right operand.
    Matmul { trans_b: bool },
    /// `(x, w, addends…, stride_h, stride_w, pad_top, pad_left, pad_bottom, pad_right,
    /// dilation_h, dilation_w, groups, out)`: NCHW data, OIHW weights, the integers as
    /// `R.prim_value`s. Constant `float32` weights of the convolutions that run faster
    /// vectorized along the output channels come packed instead, as a 5-D tensor (see
    /// [`pack_conv_weights`]); those of 3×3 convolutions that run faster as Winograd
    /// F(4×4, 3×3) come transformed, as a 3-D `[45, O, C]` tensor (see
    /// [`winograd_conv_weights`]).
    Conv2d,
    /// `(x, pool_h, pool_w, stride_h, stride_w, pad_top, pad_left, pad_bottom, pad_right,
    /// dilation_h, dilation_w, ceil_mode, count_include_pad, out)`: NCHW max pooling.
    MaxPool2d,
    /// As [`LibraryOp::MaxPool2d`], averaging.
    AvgPool2d,
    /// `(a, b, axis, out)`: `R.concat((a, b), axis)`, the axis non-negative.
    Concat,
    /// `(x, size, before, alpha, beta, bias, out)`: ONNX's local response normalization across
    /// the channels (axis 1) of an `(N, C, …)` tensor, `x / (bias + alpha · avg)^beta` where
    /// `avg` is the mean of the squares over the `size` channels from `c - before`, counting
    /// the channels past either end as zeros.
    Lrn,
    /// `(x, out)`: `R.nn.softmax` over the last axis.
    Softmax,
    /// `(x, gamma, beta, epsilon, out)`: `R.nn.layer_norm` over the last axis, centered and
    /// scaled by 1-D `gamma` and `beta`.
    LayerNorm,
    /// `(a, b, batch, m, n, k, a_sb, a_rs, a_cs, b_sb, b_rs, b_cs, o_sb, o_rs, o_cs, scale,
    /// out)`: `batch` GEMMs `out[i] = scale · (a[i] @ b[i])` over strided views of the tensors
    /// (element `(i, r, c)` of `a` at `i·a_sb + r·a_rs + c·a_cs`, likewise `b` and `out`): a
    /// matmul whose operands are `R.permute_dims` (of `R.reshape`s) of tensors, as attention
    /// heads are, followed by a scalar multiply and a permute/reshape of its output, with no
    /// copy made. The output view must be a permutation of the output's dense layout.
    MatmulView,
    /// `(x, indices, out)`: plane `p` of `out` (its last two axes) is plane `indices[p]` of `x`
    /// (seen as a sequence of planes of that size), or zeros where the index is negative;
    /// `indices` is `int64`, one per plane of `out`. Copies elements of any dtype. A 3-D
    /// convolution's depth slices are laid out as a 2-D convolution's images by one
    /// (`R.nn.conv3d`, see the `idioms` module), and its output put back in NCDHW by another.
    GatherPlanes,
    /// `(x, stride_h, stride_w, out)`: `x` with `stride − 1` zeros inserted between neighbours
    /// along its last two axes (TOPI's `nn.dilate`), `out[…, i·sh, j·sw] = x[…, i, j]`; the
    /// image whose stride-1 convolution is a transposed convolution (`R.nn.conv2d_transpose`,
    /// see the `idioms` module). Copies elements of any dtype.
    Dilate,
    /// `(x, indices, axis, mode, out)`: `R.take(x, indices, axis, mode)`, `out[pre, j, post] =
    /// x[pre, indices[j], post]` over the axis, the indices `int32` or `int64` of any rank,
    /// `mode` 0 (`fast`: an index outside the axis is an error), 1 (`clip`) or 2 (`wrap`,
    /// floor modulo). Copies elements of any dtype, a contiguous run per index.
    Take,
    /// `(x, axis, out)`: `R.argmax` (`max`) or `R.argmin` of a float or integer tensor over
    /// one axis (`axis` ≥ 0) or over all its elements (`axis` −1), the `int64` index in the
    /// fold order of the TIR legalization: the first index of the best value, −1 when no
    /// element beats the dtype's extreme, a NaN replaced by the element after it.
    ArgReduce { max: bool },
}

impl LibraryOp {
    /// Every operation, in the order [`LibraryKernel::all`] lists their kernels.
    pub const ALL: [LibraryOp; 15] = [
        LibraryOp::Matmul { trans_b: false },
        LibraryOp::Matmul { trans_b: true },
        LibraryOp::Conv2d,
        LibraryOp::MaxPool2d,
        LibraryOp::AvgPool2d,
        LibraryOp::Concat,
        LibraryOp::Lrn,
        LibraryOp::Softmax,
        LibraryOp::LayerNorm,
        LibraryOp::MatmulView,
        LibraryOp::GatherPlanes,
        LibraryOp::Dilate,
        LibraryOp::Take,
        LibraryOp::ArgReduce { max: true },
        LibraryOp::ArgReduce { max: false },
    ];

    /// The kernel name's stem, after [`PREFIX`] and before the epilogue's suffixes.
    pub fn base_name(self) -> &'static str {
        match self {
            LibraryOp::Matmul { trans_b: false } => "matmul",
            LibraryOp::Matmul { trans_b: true } => "matmul_tb",
            LibraryOp::Conv2d => "conv2d",
            LibraryOp::MaxPool2d => "max_pool2d",
            LibraryOp::AvgPool2d => "avg_pool2d",
            LibraryOp::Concat => "concat",
            LibraryOp::Lrn => "lrn",
            LibraryOp::Softmax => "softmax",
            LibraryOp::LayerNorm => "layer_norm",
            LibraryOp::MatmulView => "matmul_view",
            LibraryOp::GatherPlanes => "gather_planes",
            LibraryOp::Dilate => "dilate",
            LibraryOp::Take => "take",
            LibraryOp::ArgReduce { max: true } => "argmax",
            LibraryOp::ArgReduce { max: false } => "argmin",
        }
    }

    /// The tensors the operation itself reads (before any addends).
    pub fn num_operands(self) -> usize {
        match self {
            LibraryOp::Matmul { .. } | LibraryOp::Conv2d | LibraryOp::Concat => 2,
            LibraryOp::MaxPool2d
            | LibraryOp::AvgPool2d
            | LibraryOp::Lrn
            | LibraryOp::Softmax
            | LibraryOp::Dilate
            | LibraryOp::ArgReduce { .. } => 1,
            LibraryOp::LayerNorm => 3,
            LibraryOp::MatmulView | LibraryOp::GatherPlanes | LibraryOp::Take => 2,
        }
    }

    /// Whether it takes any number of operands from [`num_operands`](Self::num_operands) up
    /// (concat: one run of every input).
    pub fn variadic(self) -> bool {
        self == LibraryOp::Concat
    }

    /// Whether it runs on tensors of other dtypes than float32 and float64: concat, the plane
    /// gather, dilate and take copy elements of any dtype, the arg reductions write indices;
    /// the others compute in float.
    pub fn any_dtype(self) -> bool {
        matches!(
            self,
            LibraryOp::Concat
                | LibraryOp::GatherPlanes
                | LibraryOp::Dilate
                | LibraryOp::Take
                | LibraryOp::ArgReduce { .. }
        )
    }

    /// Whether addends and an activation may be fused after it.
    pub fn takes_epilogue(self) -> bool {
        // Concat and pooling have nothing to fuse after them.
        matches!(self, LibraryOp::Matmul { .. } | LibraryOp::Conv2d)
    }
}

/// A library kernel by what it computes: `out = act(op(inputs) + addend₀ + addend₁)`, each
/// addend broadcast to the output's shape. Its packed-function name spells this out
/// (`relaxjit.matmul_tb_add_relu`), so that a bytecode listing says what runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LibraryKernel {
    pub op: LibraryOp,
    /// An inference batch normalization over the output channels follows the operation
    /// (conv2d only): four more tensors (gamma, beta, moving mean, moving variance) after the
    /// operands, and the epsilon as a float parameter after the integers.
    pub norm: bool,
    /// 0, 1 or 2 tensors added to the output before the activation.
    pub addends: usize,
    pub activation: Option<Activation>,
}

/// The most addends a kernel takes.
pub const MAX_ADDENDS: usize = 2;

/// Prefix of every library kernel's name.
pub const PREFIX: &str = "relaxjit.";

impl LibraryKernel {
    /// The packed-function name.
    pub fn name(&self) -> String {
        let mut s = String::from(PREFIX);
        s.push_str(self.op.base_name());
        if self.norm {
            s.push_str("_bn");
        }
        for _ in 0..self.addends {
            s.push_str("_add");
        }
        if let Some(a) = self.activation {
            s.push('_');
            s.push_str(a.name());
        }
        s
    }

    /// The parameters the kernel takes after its tensors: integers, then (with `norm`) the
    /// epsilon as a float.
    pub fn num_params(&self) -> usize {
        self.num_fparams()
            + match self.op {
                LibraryOp::Matmul { .. } => 0,
                // stride (h, w), padding (top, left, bottom, right), dilation (h, w), groups.
                LibraryOp::Conv2d => 9,
                // pool (h, w), stride (h, w), padding ×4, dilation (h, w), ceil_mode,
                // count_include_pad.
                LibraryOp::MaxPool2d | LibraryOp::AvgPool2d => 12,
                LibraryOp::Concat | LibraryOp::ArgReduce { .. } => 1,
                // stride (h, w); axis, mode.
                LibraryOp::Dilate | LibraryOp::Take => 2,
                // size, before.
                LibraryOp::Lrn => 2,
                LibraryOp::Softmax | LibraryOp::LayerNorm | LibraryOp::GatherPlanes => 0,
                // batch, m, n, k, then (batch, row, column) strides of a, b and out.
                LibraryOp::MatmulView => 13,
            }
    }

    /// How many of [`LibraryKernel::num_params`] are floats (the last ones): a batch norm's
    /// epsilon, LRN's alpha, beta and bias.
    pub fn num_fparams(&self) -> usize {
        usize::from(self.norm)
            + match self.op {
                LibraryOp::Lrn => 3,
                LibraryOp::LayerNorm | LibraryOp::MatmulView => 1,
                _ => 0,
            }
    }

    /// The positions among its tensors of the addends that the kernel may be given as its
    /// output too, the output then holding the addend when the call starts and the kernel
    /// adding onto it (as onnxruntime's fused Conv + Add writes over its `Z` input):
    /// convolutions without a batch norm and matrix multiplies. StaticPlanBlockMemory
    /// places such an output in a dead addend's storage when the two have one shape, so that
    /// a residual is read and written in one pass instead of read beside a fresh output (one
    /// stream of the output's size less; ResNet-50's 64 → 256 1×1 convolution at 56 × 56
    /// with its residual 15–19% faster on one thread). The kernel recognises the addend by
    /// its being exactly the output (one address, one shape) and no other input may overlap
    /// the output. With a batch norm the convolution must be normalized alone before any
    /// addend, so none.
    pub fn in_place_addends(&self) -> std::ops::Range<usize> {
        let first = self.op.num_operands() + 4 * usize::from(self.norm);
        match self.op {
            LibraryOp::Conv2d if !self.norm => first..first + self.addends,
            LibraryOp::Matmul { .. } => first..first + self.addends,
            _ => first..first,
        }
    }

    /// Whether StaticPlanBlockMemory places an output of static dimensions `dims` over its
    /// addend ([`Self::in_place_addends`], which says what the kernel accepts): not when the
    /// output is NCHW with planes of fewer than [`MIN_IN_PLACE_PLANE`] positions.
    pub fn places_over_addend(&self, dims: &[PrimExpr]) -> bool {
        let [_, _, h, w] = dims else {
            return true;
        };
        let plane = h
            .as_int()
            .unwrap_or(0)
            .saturating_mul(w.as_int().unwrap_or(0));
        plane >= MIN_IN_PLACE_PLANE
    }

    /// The tensors the kernel takes before its integer parameters: the operands, then the
    /// addends (for a [variadic](LibraryOp::variadic) operation, the fewest it takes).
    pub fn num_tensors(&self) -> usize {
        self.op.num_operands() + 4 * usize::from(self.norm) + self.addends
    }

    /// How many of `args` arguments (the output not counted) are tensors, or `None` when the
    /// kernel takes no such number of arguments.
    pub fn tensors_of(&self, args: usize) -> Option<usize> {
        let tensors = args.checked_sub(self.num_params())?;
        let fixed = self.num_tensors();
        (tensors == fixed || (self.op.variadic() && tensors > fixed)).then_some(tensors)
    }

    /// The kernel whose [`name`](Self::name) is `name`, if any — without building every
    /// kernel's name as a search of [`all`](Self::all) would (linking a cached module looks up
    /// the few it calls).
    // On the artifact cache's hit path, which keeps its code in one linker section
    // (`jit::cache` docs, "Hit path").
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn from_name(name: &str) -> Option<LibraryKernel> {
        let mut rest = name.strip_prefix(PREFIX)?;
        let mut activation = None;
        for a in Activation::ALL {
            if let Some(r) = rest
                .strip_suffix(a.name())
                .and_then(|r| r.strip_suffix('_'))
            {
                rest = r;
                activation = Some(a);
                break;
            }
        }
        let mut addends = 0;
        while let Some(r) = rest.strip_suffix("_add") {
            rest = r;
            addends += 1;
        }
        let norm = match rest.strip_suffix("_bn") {
            Some(r) => {
                rest = r;
                true
            }
            None => false,
        };
        let op = LibraryOp::ALL
            .into_iter()
            .find(|op| op.base_name() == rest)?;
        let epilogue = norm || addends > 0 || activation.is_some();
        let valid = (op.takes_epilogue() || !epilogue)
            && (!norm || op == LibraryOp::Conv2d)
            && addends <= MAX_ADDENDS;
        valid.then_some(LibraryKernel {
            op,
            norm,
            addends,
            activation,
        })
    }

    /// Every kernel there is (what the `jit` crate registers).
    pub fn all() -> Vec<LibraryKernel> {
        let acts = [None]
            .into_iter()
            .chain(Activation::ALL.into_iter().map(Some));
        let mut out = Vec::new();
        for op in LibraryOp::ALL {
            if !op.takes_epilogue() {
                out.push(LibraryKernel {
                    op,
                    norm: false,
                    addends: 0,
                    activation: None,
                });
                continue;
            }
            let norms: &[bool] = if op == LibraryOp::Conv2d {
                &[false, true]
            } else {
                &[false]
            };
            for &norm in norms {
                for addends in 0..=MAX_ADDENDS {
                    for activation in acts.clone() {
                        out.push(LibraryKernel {
                            op,
                            norm,
                            addends,
                            activation,
                        });
                    }
                }
            }
        }
        out
    }
}

/// Rewrites every dispatchable chain of every Relax function (see the module docs), then
/// checks the result with [`verify`].
pub fn dispatch_library(module: &IRModule) -> Result<IRModule> {
    let out = map_functions(module, |_, f| {
        let simplified = simplify_idioms(&f.body);
        let mut uses: HashMap<VarId, usize> = HashMap::new();
        count_uses(&simplified, &mut uses);
        let body = rewrite_seq(&simplified, &uses);
        Ok(Function { body, ..f.clone() })
    })?;
    verify(&out)?;
    Ok(out)
}

/// The invariants of a dispatched module: every `R.call_dps_packed` of a `relaxjit.*`
/// function names a [`LibraryKernel`], passes it the number of arguments it takes, and
/// declares a float32/float64 output of known shape. An error here is a bug of the pass.
pub fn verify(module: &IRModule) -> Result<()> {
    let kernels: HashMap<String, LibraryKernel> = LibraryKernel::all()
        .into_iter()
        .map(|k| (k.name(), k))
        .collect();
    let mut problems = Vec::new();
    map_functions(module, |fname, f| {
        let mut check = |b: &Binding| {
            let Some(call) = b.value().as_call() else {
                return;
            };
            if call.op() != Some("relax.call_dps_packed") {
                return;
            }
            let Some(ExprKind::ExternFunc(ExternFunc {
                global_symbol: name,
                ..
            })) = call.args.first().map(Expr::kind)
            else {
                return;
            };
            if !name.starts_with(PREFIX) {
                return;
            }
            let at = format!("`{fname}`, binding `{}`", b.var().name());
            let Some(k) = kernels.get(name) else {
                problems.push(format!("{at}: unknown library kernel `{name}`"));
                return;
            };
            let want = k.num_tensors() + k.num_params();
            let n = match call.args.get(1).map(Expr::kind) {
                Some(ExprKind::Tuple(items)) => items.len(),
                _ => 1,
            };
            if k.tensors_of(n).is_none() {
                let least = if k.op.variadic() { "at least " } else { "" };
                problems.push(format!(
                    "{at}: `{name}` takes {least}{want} arguments, got {n}"
                ));
            }
            let out = call.ty_args.first();
            let float = out
                .and_then(StructInfo::tensor_dtype)
                .is_some_and(|d| d == DataType::FLOAT32 || d == DataType::FLOAT64);
            let typed = float || k.op.any_dtype();
            if !typed || out.and_then(StructInfo::tensor_shape).is_none() {
                problems.push(format!(
                    "{at}: `{name}` needs a float output of known shape"
                ));
            }
        };
        for_each_binding(&f.body, &mut check);
        Ok(f.clone())
    })?;
    if problems.is_empty() {
        Ok(())
    } else {
        Err(crate::Error::Internal(format!(
            "DispatchLibrary produced invalid calls: {}",
            problems.join("; ")
        )))
    }
}

/// Whether the layout attribute `name` of `call` is `want` (or unset).
fn layout_is(call: &Call, name: &str, want: &str) -> bool {
    match call.attrs.get(name).and_then(AttrValue::as_str) {
        None | Some("") => true,
        Some(l) => l == want,
    }
}

/// The integer list attribute `name` of `call` (a single integer as a list of one), `default`
/// if unset; `None` if it is something else.
fn attr_ints(call: &Call, name: &str, default: &[i64]) -> Option<Vec<i64>> {
    match call.attrs.get(name) {
        None | Some(AttrValue::None) => Some(default.to_vec()),
        Some(v) => v.as_int_list().or_else(|| v.as_int().map(|i| vec![i])),
    }
}

/// A per-axis pair given as one value for both axes or one per axis.
fn pair(v: Vec<i64>) -> Option<[i64; 2]> {
    match v[..] {
        [a] => Some([a, a]),
        [a, b] => Some([a, b]),
        _ => None,
    }
}

fn count_uses(seq: &SeqExpr, uses: &mut HashMap<VarId, usize>) {
    let mut vars = Vec::new();
    for block in &seq.blocks {
        for b in &block.bindings {
            kill_after_last_use_uses(b.value(), &mut vars);
        }
    }
    kill_after_last_use_uses(&seq.body, &mut vars);
    for v in vars {
        *uses.entry(v.id()).or_default() += 1;
    }
}

fn rewrite_seq(seq: &SeqExpr, uses: &HashMap<VarId, usize>) -> SeqExpr {
    SeqExpr {
        blocks: seq
            .blocks
            .iter()
            .map(|block| rewrite_block(block, uses))
            .collect(),
        body: seq.body.clone(),
    }
}

/// A chain being grown from an anchor binding.
struct Chain {
    kernel: LibraryKernel,
    /// The anchor's inputs (and, for conv2d, its integer parameters) then the addends.
    inputs: Vec<Expr>,
    params: Vec<i64>,
    /// Float parameters after the integers (a batch norm's epsilon).
    fparams: Vec<f64>,
    /// Bindings (by index in the block) that the fused call replaces, the last one last.
    members: Vec<usize>,
    /// The chain's current end: its variable and struct info.
    end: Var,
}

fn rewrite_block(block: &BindingBlock, uses: &HashMap<VarId, usize>) -> BindingBlock {
    let bindings = &block.bindings;
    let single_use = |v: &Var| uses.get(&v.id()).copied() == Some(1);
    // Bindings of this block by variable, for looking through a transposed right operand.
    let mut index: HashMap<VarId, usize> = HashMap::new();
    // The `t[i]` bindings of each tuple variable: (binding index, i, variable).
    let mut items: HashMap<VarId, Vec<(usize, usize, Var)>> = HashMap::new();
    for (i, b) in bindings.iter().enumerate() {
        if let Binding::Var { var, value } = b
            && let ExprKind::TupleGetItem(t, k) = value.kind()
            && let Some(tv) = t.as_var()
        {
            items.entry(tv.id()).or_default().push((i, *k, var.clone()));
        }
    }
    // Open chains by the id of their end variable.
    let mut open: HashMap<VarId, Chain> = HashMap::new();
    // Binding index → what replaces it: `None` removes it, `Some(chain)` emits the call.
    let mut replaced: HashMap<usize, Option<Chain>> = HashMap::new();
    for (i, b) in bindings.iter().enumerate() {
        let Binding::Var { var, value } = b else {
            continue;
        };
        index.insert(var.id(), i);
        let Some(call) = value.as_call() else {
            continue;
        };
        let Some(op) = call.op() else { continue };
        if op == "relax.nn.batch_norm"
            && let Some(chain) = extend_norm(call, var, i, &mut open, &items, uses)
        {
            open.insert(chain.end.id(), chain);
            continue;
        }
        if let Some(chain) = extend_view(op, call, var, i, &mut open, &single_use) {
            open.insert(var.id(), chain);
            continue;
        }
        if let Some(chain) = extend(op, call, var, i, &mut open, &single_use) {
            open.insert(var.id(), chain);
            continue;
        }
        let anchor = match op {
            // A transposed 2-D weight is `matmul_tb`'s (its batch-1 split and its epilogues);
            // other permuted or reshaped operands are read in place by `matmul_view`.
            "relax.matmul" => {
                let plain = matmul_anchor(call, var, bindings, &index, &open, &single_use);
                match plain {
                    Some(c) if c.kernel.op == (LibraryOp::Matmul { trans_b: true }) => Some(c),
                    _ => matmul_view_anchor(call, var, bindings, &index, &open, &single_use)
                        .or(plain),
                }
            }
            "relax.nn.conv2d" => conv2d_anchor(call, var, i)
                .map(|chain| pack_constant_weights(chain, bindings, &index)),
            "relax.nn.max_pool2d" => pool2d_anchor(call, var, i, LibraryOp::MaxPool2d),
            "relax.nn.avg_pool2d" => pool2d_anchor(call, var, i, LibraryOp::AvgPool2d),
            "relax.mean" => spatial_mean_anchor(call, var, i),
            "relax.concat" => concat_anchor(call, var, i),
            "relax.take" => take_anchor(call, var, i),
            "relax.argmax" | "relax.argmin" => arg_reduce_anchor(op, call, var, i),
            "relax.divide" => lrn_anchor(call, var, bindings, &index, &single_use),
            "relax.nn.softmax" | "relax.nn.layer_norm" => last_axis_anchor(op, call, var, i),
            _ => None,
        };
        if let Some(chain) = anchor {
            open.insert(var.id(), chain);
        }
    }
    for chain in open.into_values() {
        let (last, rest) = chain.members.split_last().expect("a chain has its anchor");
        for &m in rest {
            replaced.insert(m, None);
        }
        replaced.insert(*last, Some(chain));
    }
    let mut out = Vec::with_capacity(bindings.len());
    for (i, b) in bindings.iter().enumerate() {
        match replaced.remove(&i) {
            None => out.push(b.clone()),
            Some(None) => {}
            Some(Some(chain)) => out.push(emit(chain)),
        }
    }
    // `If` branches are blocks of their own.
    let out = out
        .into_iter()
        .map(|b| match b {
            Binding::Var { var, value } => match value.kind() {
                ExprKind::If(i) => Binding::Var {
                    var,
                    value: Expr::new(ExprKind::If(If {
                        cond: i.cond.clone(),
                        then_branch: rewrite_seq(&i.then_branch, uses),
                        else_branch: rewrite_seq(&i.else_branch, uses),
                    })),
                },
                _ => Binding::Var { var, value },
            },
            other => other,
        })
        .collect();
    BindingBlock {
        bindings: out,
        dataflow: block.dataflow,
    }
}

/// Grows an open chain by `var = op(...)` if it consumes the chain's end (its only use) and
/// keeps its shape and dtype.
fn extend(
    op: &str,
    call: &Call,
    var: &Var,
    at: usize,
    open: &mut HashMap<VarId, Chain>,
    single_use: &dyn Fn(&Var) -> bool,
) -> Option<Chain> {
    let arg_var = |i: usize| call.args.get(i).and_then(Expr::as_var);
    let same_output = |chain: &Chain| {
        let (a, b) = (chain.end.struct_info(), var.struct_info());
        a.tensor_dtype() == b.tensor_dtype()
            && matches!((a.tensor_shape(), b.tensor_shape()), (Some(x), Some(y)) if shapes_equal(x, y))
    };
    if op == "relax.add" {
        for (mine, other) in [(0, 1), (1, 0)] {
            let Some(end) = arg_var(mine) else { continue };
            // The other operand may end a chain that takes the add instead (a layer norm's
            // output added to a matmul's).
            let Some(chain) = open.get(&end.id()).filter(|c| c.kernel.op.takes_epilogue()) else {
                continue;
            };
            let other = call.args.get(other)?;
            let other_ok = match other.kind() {
                ExprKind::Var(v) => {
                    v.struct_info().tensor_dtype() == var.struct_info().tensor_dtype()
                        && v.struct_info().ndim().is_some()
                }
                ExprKind::Constant(c) => {
                    c.struct_info.tensor_dtype() == var.struct_info().tensor_dtype()
                }
                _ => false,
            };
            if !single_use(end)
                || !chain.kernel.op.takes_epilogue()
                || chain.kernel.addends >= MAX_ADDENDS
                || chain.kernel.activation.is_some()
                || !same_output(chain)
                || !other_ok
            {
                return None;
            }
            let mut chain = open.remove(&end.id())?;
            chain.kernel.addends += 1;
            chain.inputs.push(other.clone());
            chain.members.push(at);
            chain.end = var.clone();
            return Some(chain);
        }
        return None;
    }
    let act = Activation::of_op(op)?;
    let end = arg_var(0)?;
    let chain = open.get(&end.id())?;
    let f32_only =
        act == Activation::Gelu && var.struct_info().tensor_dtype() != Some(DataType::FLOAT32);
    if !single_use(end)
        || !chain.kernel.op.takes_epilogue()
        || chain.kernel.activation.is_some()
        || !same_output(chain)
        || f32_only
    {
        return None;
    }
    let mut chain = open.remove(&end.id())?;
    chain.kernel.activation = Some(act);
    chain.members.push(at);
    chain.end = var.clone();
    Some(chain)
}

/// Grows an open conv2d chain (no epilogue yet) by `bn = R.nn.batch_norm(end, gamma, beta,
/// mean, var, axis=1)` in inference mode, when the block reads only `bn[0]` (the normalized
/// tensor; the moving statistics it passes through are unused): the chain then ends at the
/// `bn[0]` variable, and the unused `bn[1]`, `bn[2]` bindings go with it.
fn extend_norm(
    call: &Call,
    var: &Var,
    at: usize,
    open: &mut HashMap<VarId, Chain>,
    items: &HashMap<VarId, Vec<(usize, usize, Var)>>,
    uses: &HashMap<VarId, usize>,
) -> Option<Chain> {
    let end = call.args.first()?.as_var()?;
    let chain = open.get(&end.id())?;
    let count = |v: &Var| uses.get(&v.id()).copied().unwrap_or(0);
    if chain.kernel.op != LibraryOp::Conv2d
        || chain.kernel.norm
        || chain.kernel.addends > 0
        || chain.kernel.activation.is_some()
        || count(end) != 1
    {
        return None;
    }
    let flag = |n: &str, default: bool| match call.attrs.get(n) {
        None | Some(AttrValue::None) => Some(default),
        Some(v) => v.as_bool(),
    };
    let axis = call
        .attrs
        .get("axis")
        .and_then(AttrValue::as_int)
        .unwrap_or(1);
    if flag("training", false)? || !flag("center", true)? || !flag("scale", true)? {
        return None;
    }
    if axis != 1 && axis != -3 {
        return None;
    }
    let eps = match call.attrs.get("epsilon") {
        None | Some(AttrValue::None) => 1e-5,
        Some(v) => v.as_float()?,
    };
    let out_si = chain.end.struct_info();
    let dt = out_si.tensor_dtype()?;
    let channels = out_si.tensor_shape()?.get(1)?.clone();
    let stats: Vec<Expr> = call.args.get(1..5)?.to_vec();
    for e in &stats {
        let si = operand_si(e)?;
        let shape = si.tensor_shape()?;
        if si.tensor_dtype() != Some(dt)
            || shape.len() != 1
            || !shapes_equal(shape, std::slice::from_ref(&channels))
        {
            return None;
        }
    }
    // Every use of the tuple is a `bn[i]` binding of this block; only `bn[0]` is used.
    let gets = items.get(&var.id())?;
    if gets.len() != count(var) {
        return None;
    }
    let mut first = None;
    for (idx, k, v) in gets {
        match k {
            0 if first.is_none() => first = Some((*idx, v.clone())),
            1 | 2 if count(v) == 0 => {}
            _ => return None,
        }
    }
    let (first_at, first_var) = first?;
    if !first_var
        .struct_info()
        .tensor_shape()
        .zip(out_si.tensor_shape())
        .is_some_and(|(a, b)| shapes_equal(a, b))
    {
        return None;
    }
    let mut chain = open.remove(&end.id())?;
    chain.kernel.norm = true;
    chain.inputs.extend(stats);
    chain.fparams.push(eps);
    chain.members.push(at);
    chain
        .members
        .extend(gets.iter().filter(|g| g.1 != 0).map(|g| g.0));
    chain.members.push(first_at);
    chain.end = first_var;
    Some(chain)
}

/// The dtype of a library kernel's operands: `float32` or `float64`, the same everywhere.
fn float_dtype(exprs: &[&StructInfo], out: &StructInfo) -> Option<DataType> {
    let dt = out.tensor_dtype()?;
    if dt != DataType::FLOAT32 && dt != DataType::FLOAT64 {
        return None;
    }
    out.tensor_shape()?;
    exprs
        .iter()
        .all(|si| si.tensor_dtype() == Some(dt) && si.ndim().is_some())
        .then_some(dt)
}

fn out_dtype_ok(call: &Call, dt: DataType) -> bool {
    match crate::op::common::attr_opt_dtype(call, "out_dtype") {
        Ok(None) => true,
        Ok(Some(d)) => d == dt,
        Err(_) => false,
    }
}

fn operand_si(e: &Expr) -> Option<&StructInfo> {
    match e.kind() {
        ExprKind::Var(v) => Some(v.struct_info()),
        ExprKind::Constant(c) => Some(&c.struct_info),
        _ => None,
    }
}

/// The operands of `R.matmul(a, b)` bound to `var`, if both are variables or constants of one
/// float dtype that the result keeps (what every library matmul requires).
fn float_matmul_operands<'c>(call: &'c Call, var: &Var) -> Option<(&'c Expr, &'c Expr)> {
    let (a, b) = (call.args.first()?, call.args.get(1)?);
    let (a_si, b_si) = (operand_si(a)?, operand_si(b)?);
    let dt = float_dtype(&[a_si, b_si], var.struct_info())?;
    out_dtype_ok(call, dt).then_some((a, b))
}

fn matmul_anchor(
    call: &Call,
    var: &Var,
    bindings: &[Binding],
    index: &HashMap<VarId, usize>,
    open: &HashMap<VarId, Chain>,
    single_use: &dyn Fn(&Var) -> bool,
) -> Option<Chain> {
    let (a, b) = float_matmul_operands(call, var)?;
    let mut chain = Chain {
        kernel: LibraryKernel {
            op: LibraryOp::Matmul { trans_b: false },
            norm: false,
            addends: 0,
            activation: None,
        },
        inputs: vec![a.clone(), b.clone()],
        params: Vec::new(),
        fparams: Vec::new(),
        members: Vec::new(),
        end: var.clone(),
    };
    // `b = R.permute_dims(w)` of a 2-D `w`, used only here: read `w` transposed instead.
    if let Some(bv) = b.as_var()
        && single_use(bv)
        && let Some(&bi) = index.get(&bv.id())
        && !claimed(open, bi)
        && let Some(pc) = bindings[bi].value().as_call()
        && pc.op() == Some("relax.permute_dims")
        && let Some(w) = pc.args.first()
        && operand_si(w).and_then(StructInfo::ndim) == Some(2)
        && permutation(pc, 2).as_deref() == Some(&[1, 0])
    {
        chain.kernel.op = LibraryOp::Matmul { trans_b: true };
        chain.inputs[1] = w.clone();
        chain.members.push(bi);
    }
    chain.members.push(index[&var.id()]);
    Some(chain)
}

/// Whether binding `at` already belongs to an open chain (it is replaced by that chain's call,
/// so no other chain may take it).
fn claimed(open: &HashMap<VarId, Chain>, at: usize) -> bool {
    open.values().any(|c| c.members.contains(&at))
}

fn static_shape(si: &StructInfo) -> Option<Vec<i64>> {
    si.tensor_shape()?.iter().map(PrimExpr::as_int).collect()
}

/// Row-major strides of a dense tensor of `shape`.
fn dense_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![0; shape.len()];
    let mut acc = 1;
    for d in (0..shape.len()).rev() {
        strides[d] = acc;
        acc *= shape[d];
    }
    strides
}

/// `R.permute_dims`' axes for a tensor of rank `rank` (none: reversed), checked to be a
/// permutation.
fn permutation(call: &Call, rank: usize) -> Option<Vec<usize>> {
    crate::op::common::permute_dims_axes(call.attrs.get("axes"), rank)
}

/// A matmul operand read in place: `base`'s elements through `strides`, seen as `shape`.
struct OperandView {
    base: Expr,
    shape: Vec<i64>,
    strides: Vec<i64>,
    /// The bindings (permute, reshape) the view replaces.
    members: Vec<usize>,
}

impl OperandView {
    /// The operand as it is, dense.
    fn dense(e: &Expr) -> Option<OperandView> {
        let shape = static_shape(operand_si(e)?)?;
        Some(OperandView {
            base: e.clone(),
            strides: dense_strides(&shape),
            shape,
            members: Vec::new(),
        })
    }

    /// `e = R.permute_dims(x)` or `e = R.permute_dims(R.reshape(y, …))`, each used only there
    /// and in no other chain, with static shapes: `x` (or `y`, whose bytes the reshape keeps)
    /// read through permuted strides.
    fn folded(
        e: &Expr,
        bindings: &[Binding],
        index: &HashMap<VarId, usize>,
        open: &HashMap<VarId, Chain>,
        single_use: &dyn Fn(&Var) -> bool,
    ) -> Option<OperandView> {
        let ev = e.as_var()?;
        let &pi = index.get(&ev.id())?;
        let pc = bindings[pi].value().as_call()?;
        if !single_use(ev) || claimed(open, pi) || pc.op() != Some("relax.permute_dims") {
            return None;
        }
        let x = pc.args.first()?;
        let x_si = operand_si(x)?;
        let x_shape = static_shape(x_si)?;
        let axes = permutation(pc, x_shape.len())?;
        let mut view = OperandView {
            base: x.clone(),
            shape: axes.iter().map(|&a| x_shape[a]).collect(),
            strides: {
                let dense = dense_strides(&x_shape);
                axes.iter().map(|&a| dense[a]).collect()
            },
            members: vec![pi],
        };
        if let Some(xv) = x.as_var()
            && single_use(xv)
            && let Some(&ri) = index.get(&xv.id())
            && !claimed(open, ri)
            && let Some(rc) = bindings[ri].value().as_call()
            && rc.op() == Some("relax.reshape")
            && let Some(y) = rc.args.first()
            && let Some(y_si) = operand_si(y)
            && static_shape(y_si).is_some()
            && y_si.tensor_dtype() == x_si.tensor_dtype()
        {
            view.base = y.clone();
            view.members.insert(0, ri);
        }
        Some(view)
    }

    /// (batch, rows, columns) extents and strides; a 2-D operand is one matrix for every batch
    /// entry (stride 0), and so is a batch of 1.
    fn split(&self) -> Option<([i64; 3], [i64; 3])> {
        let (e, s) = (&self.shape, &self.strides);
        let (ext, st) = match e.len() {
            2 => ([1, e[0], e[1]], [0, s[0], s[1]]),
            3 => ([e[0], e[1], e[2]], [s[0], s[1], s[2]]),
            _ => return None,
        };
        Some((ext, [if ext[0] == 1 { 0 } else { st[0] }, st[1], st[2]]))
    }
}

/// `R.matmul(a, b)` with at least one operand a permuted view of another tensor (see
/// [`OperandView::folded`]): a [`LibraryOp::MatmulView`] that reads it in place. Both operands
/// are 2-D or 3-D with static shapes.
fn matmul_view_anchor(
    call: &Call,
    var: &Var,
    bindings: &[Binding],
    index: &HashMap<VarId, usize>,
    open: &HashMap<VarId, Chain>,
    single_use: &dyn Fn(&Var) -> bool,
) -> Option<Chain> {
    let (a, b) = float_matmul_operands(call, var)?;
    let fa = OperandView::folded(a, bindings, index, open, single_use);
    let fb = OperandView::folded(b, bindings, index, open, single_use);
    if fa.is_none() && fb.is_none() {
        return None;
    }
    let av = fa.or_else(|| OperandView::dense(a))?;
    let bv = fb.or_else(|| OperandView::dense(b))?;
    let ((ae, as_), (be, bs)) = (av.split()?, bv.split()?);
    let (m, k, n) = (ae[1], ae[2], be[2]);
    if be[1] != k || (ae[0] != be[0] && ae[0] != 1 && be[0] != 1) {
        return None;
    }
    let batch = ae[0].max(be[0]);
    let out = static_shape(var.struct_info())?;
    let logical = match out.len() {
        2 if batch == 1 => vec![m, n],
        3 => vec![batch, m, n],
        _ => return None,
    };
    if out != logical {
        return None;
    }
    let mut members = av.members;
    members.extend(bv.members);
    members.push(index[&var.id()]);
    Some(Chain {
        kernel: LibraryKernel {
            op: LibraryOp::MatmulView,
            norm: false,
            addends: 0,
            activation: None,
        },
        inputs: vec![av.base, bv.base],
        params: vec![
            batch,
            m,
            n,
            k,
            as_[0],
            as_[1],
            as_[2],
            bs[0],
            bs[1],
            bs[2],
            m * n,
            n,
            1,
        ],
        fparams: vec![1.0],
        members,
        end: var.clone(),
    })
}

/// What a [`LibraryOp::MatmulView`] chain absorbs from the binding after it.
enum ViewStep {
    Scale(f64),
    Permute(Vec<usize>),
    Reshape,
}

/// Makes a view chain write its output permuted by `axes` (the chain's end `end` still being
/// the kernel's own dense output: the first permute only); false when it is not.
fn permute_view_output(chain: &mut Chain, end: &Var, axes: &[usize]) -> bool {
    let (batch, m, n) = (chain.params[0], chain.params[1], chain.params[2]);
    let Some(end_shape) = static_shape(end.struct_info()) else {
        return false;
    };
    let logical = if end_shape.len() == 3 {
        vec![batch, m, n]
    } else {
        vec![m, n]
    };
    if end_shape != logical || chain.params[10..13] != [m * n, n, 1] {
        return false;
    }
    let permuted: Vec<i64> = axes.iter().map(|&a| logical[a]).collect();
    let dense = dense_strides(&permuted);
    let mut strides = [0; 3];
    let first = 3 - logical.len();
    for (d, &a) in axes.iter().enumerate() {
        strides[first + a] = dense[d];
    }
    chain.params[10..13].copy_from_slice(&strides);
    true
}

/// Grows an open [`LibraryOp::MatmulView`] chain by what it can absorb without a copy: a
/// multiply by a scalar constant (its scale), one `R.permute_dims` of its own output shape
/// (its output strides) and then `R.reshape`s (the bytes stay where they are).
fn extend_view(
    op: &str,
    call: &Call,
    var: &Var,
    at: usize,
    open: &mut HashMap<VarId, Chain>,
    single_use: &dyn Fn(&Var) -> bool,
) -> Option<Chain> {
    let is_view = |v: &Var| {
        open.get(&v.id())
            .is_some_and(|c| c.kernel.op == LibraryOp::MatmulView)
            && single_use(v)
    };
    let (end, step) = match op {
        "relax.multiply" => {
            let (end, c) = match (call.args.first()?.kind(), call.args.get(1)?.kind()) {
                (ExprKind::Var(v), ExprKind::Constant(c))
                | (ExprKind::Constant(c), ExprKind::Var(v))
                    if is_view(v) =>
                {
                    (v, c)
                }
                _ => return None,
            };
            if c.struct_info.ndim() != Some(0)
                || c.struct_info.tensor_dtype() != var.struct_info().tensor_dtype()
            {
                return None;
            }
            (end, ViewStep::Scale(c.data.get_f64(0)?))
        }
        "relax.permute_dims" => {
            let end = call.args.first()?.as_var().filter(|v| is_view(v))?;
            let rank = end.struct_info().ndim()?;
            (end, ViewStep::Permute(permutation(call, rank)?))
        }
        "relax.reshape" => (
            call.args.first()?.as_var().filter(|v| is_view(v))?,
            ViewStep::Reshape,
        ),
        _ => return None,
    };
    let mut chain = open.remove(&end.id())?;
    let absorbed = match step {
        ViewStep::Scale(factor) => {
            chain.fparams[0] *= factor;
            true
        }
        ViewStep::Permute(axes) => permute_view_output(&mut chain, end, &axes),
        ViewStep::Reshape => true,
    };
    if !absorbed {
        open.insert(end.id(), chain);
        return None;
    }
    chain.members.push(at);
    chain.end = var.clone();
    Some(chain)
}

fn conv2d_anchor(call: &Call, var: &Var, at: usize) -> Option<Chain> {
    let (x, w) = (call.args.first()?, call.args.get(1)?);
    let (x_si, w_si) = (operand_si(x)?, operand_si(w)?);
    let dt = float_dtype(&[x_si, w_si], var.struct_info())?;
    if !out_dtype_ok(call, dt) || x_si.ndim() != Some(4) || w_si.ndim() != Some(4) {
        return None;
    }
    if !layout_is(call, "data_layout", "NCHW")
        || !layout_is(call, "kernel_layout", "OIHW")
        || !layout_is(call, "out_layout", "NCHW")
    {
        return None;
    }
    let strides = pair(attr_ints(call, "strides", &[1, 1])?)?;
    let dilation = pair(attr_ints(call, "dilation", &[1, 1])?)?;
    let padding: [i64; 4] = match attr_ints(call, "padding", &[0, 0, 0, 0])?[..] {
        [p] => [p; 4],
        [h, w] => [h, w, h, w],
        [t, l, b, r] => [t, l, b, r],
        _ => return None,
    };
    let groups = match call.attrs.get("groups") {
        None => 1,
        Some(v) => v.as_int()?,
    };
    if strides.iter().chain(&dilation).any(|&v| v < 1)
        || padding.iter().any(|&p| p < 0)
        || groups < 1
    {
        return None;
    }
    let mut params = Vec::with_capacity(9);
    params.extend(strides);
    params.extend(padding);
    params.extend(dilation);
    params.push(groups);
    Some(Chain {
        kernel: LibraryKernel {
            op: LibraryOp::Conv2d,
            norm: false,
            addends: 0,
            activation: None,
        },
        inputs: vec![x.clone(), w.clone()],
        params,
        fparams: Vec::new(),
        members: vec![at],
        end: var.clone(),
    })
}

/// The output channels of one panel of packed conv2d weights: two AVX-512 vectors of f32.
pub const CONV_PANEL: usize = 32;

/// The fewest positions (height × width) an NCHW output's planes hold for the output to be
/// written over its residual. Smaller planes are cut by output channels over the threads
/// (`jit`'s conv split), so every core reads all of the layers before, the residual among
/// them; written over, each of its lines is then taken back from the other core first, which
/// on a VM whose cores sit on different CCDs (no shared cache) made ResNet-50's 1×1 256 → 1024
/// convolutions at 14 × 14 take 345 µs instead of 270 µs. Measured across CCDs (`rows --calls
/// 40 resnet50`, three alternating runs): in place everywhere 19.43–19.72 ms, only at 28 × 28
/// and up 19.00–19.10 ms (at 56 × 56 and 28 × 28, where the splits go by positions, in place
/// stays 15–40 µs faster per layer). With both cores on one CCD it costs a little: 17.43–17.48
/// against 17.53–17.60 ms.
pub const MIN_IN_PLACE_PLANE: i64 = 512;

/// Whether a `float32` convolution of one group with `o` output channels and `c` input
/// channels, a `kernel` of `kh × kw` taps at `stride`, and `plane` output positions per image
/// runs faster vectorized along the output channels, its weights packed once here (and the
/// image read in place, not unfolded), than along the output positions.
///
/// Measured on one thread, best of 3–4 alternating runs of 10 calls on a loaded 2-core Zen 4
/// (`RAYON_NUM_THREADS=1 cargo run --release -p relaxjit-bench --example library -- --calls 10
/// [--no-pack | --pack-all] NAME`), GFLOP/s positions-vectorized → channels-vectorized:
///
/// | shape | inner dim | plane | positions | channels |
/// |---|---|---|---|---|
/// | 3×3 64→64 (`rn_3x3_64`) | 576 | 56×56 | 92.9 | 105.3 |
/// | 3×3 128→128 (`rn_3x3_128`) | 1152 | 28×28 | 96.1 | 109.8 |
/// | 3×3/2 128→128 (`rn_3x3_128_s2`) | 1152 | 28×28 | 91.0 | 106.2 |
/// | 3×3 256→256 (`rn_3x3_256`) | 2304 | 14×14 | 94.1 | 109.2 |
/// | 3×3 512→512 (`rn_3x3_512`) | 4608 | 7×7 | 71.5 | 88.0 |
/// | 3×3 16→64 (`sq_expand3`) | 144 | 55×55 | 93.7 | 93.8 |
/// | 3×3 32→128 (`sq_ex3_27`) | 288 | 27×27 | 98.2 | 103.8 |
/// | 7×7/2 3→64 (`rn_conv1`) | 147 | 112×112 | 78.7 | 81.0 |
/// | 3×3/2 3→64 (`sq_conv1`) | 27 | 111×111 | 75.6 | 51.9 |
/// | 1×1 1024→256 (`rn_1x1_1024_256`) | 1024 | 14×14 | 105.4 | 112.5 |
/// | 1×1 512→64 (`sq_sq512_13`) | 512 | 13×13 | 98.9 | 107.0 |
/// | 1×1 128→512 (`rn_1x1_128_512`) | 128 | 28×28 | 105.7 | 91.8 |
/// | 1×1 256→64 (`rn_1x1_256`) | 256 | 56×56 | 91.6 | 90.9 |
/// | 1×1/2 1024→2048 (`rn_1x1_s2`) | 1024 | 7×7 | 80.9 | 95.4 |
/// | 1×1/2 512→1024 (`rn_1x1_s2_1024`) | 512 | 14×14 | 93.8 | 79.7 (101–126 †) |
/// | 1×1 256→48 (`sq_sq256_13`) | 256 | 13×13 | 92.7 | 77.8 |
/// | 1×1 512→1000 (`sq_conv10`) | 512 | 13×13 | 106.1 | 95.5 |
///
/// (`sq_conv10` measured again on a quiet machine, three alternating runs each: one thread
/// 1597–1602 → 1567–1568 µs, two threads 844–861 → 807–809 µs, its median call 920–934 →
/// 858–899 µs: the channel kernel wins, the 24 lanes of zeros in its last panel included.)
///
/// † Since a strided 1×1 kernel reads a copy of the positions it samples (at stride 1, its
/// tiles running across rows of the output), measured on a shared 2-core Xeon with AVX-512,
/// three alternating runs of the minimum of 30 calls: 2854–2947 µs positions-vectorized,
/// 2128–2697 µs channels-vectorized.
///
/// On a 2-core Zen 5 (AVX-512 on full-width units), two threads, three alternating runs of the
/// median of 150 calls (`library --calls 150 [--pack-all] rn_1x1`), the 1×1 kernels on the
/// larger planes, µs positions-vectorized → channels-vectorized:
///
/// | shape | inner dim × output channels | plane | positions | channels |
/// |---|---|---|---|---|
/// | 1×1 512→128 (`rn_1x1_512_128`) | 65536 | 28×28 | 291–294 | 236–239 |
/// | 1×1 512→256 (`rn_1x1_512_256`) | 131072 | 28×28 | 549–550 | 453–454 |
/// | 1×1/2 256→512 (`rn_1x1_s2_512`) | 131072 | 56×56 → 28×28 | 717–719 | 590–597 |
/// | 1×1 256→128 (`rn_1x1_256_128`) | 32768 | 56×56 | 452–460 | 456–460 |
/// | 1×1 256→64 (`rn_1x1_256`) | 16384 | 56×56 | 240–249 | 233–234 |
/// | 1×1 128→512 (`rn_1x1_128_512`) | 65536 | 28×28 | 237–241 | 262–266 |
/// | 1×1 64→256 (`rn_1x1_64`) | 16384 | 56×56 | 226–229 | 284–285 |
///
/// (SqueezeNet's 1×1 kernels on its 55×55 and 27×27 planes, 16 to 128 output channels, all
/// ran 0–70% slower channels-vectorized.) ResNet-50 as a whole, `rows --calls 40 resnet50`,
/// three alternating runs each: 20.47–20.54 → 19.93–20.01 ms.
///
/// So: every kernel of more than one tap with an inner dimension above 128 (the direct read
/// saves the unfolding, 5–12 % of the time) and a stride along the rows of at most 2 (the
/// kernel's positions lie 1 or 2 apart); 1×1 kernels with an inner dimension above 160 on
/// small planes (16×16 and below, strided or not), and on any plane when the weights are large
/// (inner dimension × output channels at least 2^16: the channel kernel reads each weight
/// once per tile of 12 positions, where the GEMM packs them again for each tile of columns);
/// output channels that fill their panels of 32 but for at most a sixteenth (1000 in 1024
/// lanes, not 48 in 64).
pub fn packs_conv_weights(
    o: usize,
    c: usize,
    [kh, kw]: [usize; 2],
    stride: [usize; 2],
    plane: usize,
) -> bool {
    let kdim = c * kh * kw;
    if c < 2 || o.next_multiple_of(CONV_PANEL) - o > o / 16 {
        return false;
    }
    if kh * kw > 1 {
        return kdim > 128 && stride[1] <= 2;
    }
    // A strided 1×1 kernel reads a copy of the positions it samples, at stride 1.
    kdim > 160 && (plane <= 256 || kdim * o >= 1 << 16)
}

/// OIHW `float32` weights `w` (`o × c × kh × kw`) packed for the channel-vectorized kernel:
/// `[⌈o/32⌉, c, kh, kw, 32]`, panel `p` holding output channels `32p..32p + 32` innermost
/// (zeros past `o`), so that one row of the kernel's inner dimension is one contiguous load
/// of 32 channels.
pub fn pack_conv_weights(w: &[f32], shape: [usize; 4]) -> (Vec<f32>, [usize; 5]) {
    let packed_shape = packed_conv_shape(shape);
    let mut packed = vec![0f32; packed_shape.iter().product()];
    pack_conv_weights_into(w, shape, &mut packed);
    (packed, packed_shape)
}

/// The shape [`pack_conv_weights`] gives OIHW weights of shape `shape`.
pub fn packed_conv_shape([o, c, kh, kw]: [usize; 4]) -> [usize; 5] {
    [o.div_ceil(CONV_PANEL), c, kh, kw, CONV_PANEL]
}

/// [`pack_conv_weights`] into `packed` (of [`packed_conv_shape`]'s size, zeroed). The
/// transposition goes by 8 × 8 blocks, reading 8 rows of 8 contiguous weights and writing 8
/// rows of the panel, so that both sides stay in cache (1.2 → 0.7 ns per weight against
/// whole rows at a time): a model's weights are packed on every compile.
fn pack_conv_weights_into(w: &[f32], [o, c, kh, kw]: [usize; 4], packed: &mut [f32]) {
    const B: usize = 8;
    let kdim = c * kh * kw;
    if kdim == 0 {
        return;
    }
    let body = kdim / B * B;
    for (p, panel) in packed.chunks_exact_mut(kdim * CONV_PANEL).enumerate() {
        let lanes = o.min((p + 1) * CONV_PANEL) - p * CONV_PANEL;
        let rows = &w[p * CONV_PANEL * kdim..][..lanes * kdim];
        for l0 in (0..lanes).step_by(B) {
            let l1 = (l0 + B).min(lanes);
            for k0 in (0..body).step_by(B) {
                for l in l0..l1 {
                    for (i, &v) in rows[l * kdim + k0..][..B].iter().enumerate() {
                        panel[(k0 + i) * CONV_PANEL + l] = v;
                    }
                }
            }
            for l in l0..l1 {
                for k in body..kdim {
                    panel[k * CONV_PANEL + l] = rows[l * kdim + k];
                }
            }
        }
    }
}

/// The points of a Winograd F(4×4, 3×3) tile: each 6 × 6 input tile becomes 36 products.
pub const WINOGRAD_POINTS: usize = 36;

/// The rows of Winograd-transformed conv2d weights ([`winograd_conv_weights`]): the
/// [`WINOGRAD_POINTS`] of the transform, then the nine taps of the weights themselves.
pub const WINOGRAD_ROWS: usize = WINOGRAD_POINTS + 9;

/// Whether a `float32` 3×3 convolution of one group, stride 1 and dilation 1, with `c` input
/// and `o` output channels and an `oh × ow` output, runs faster as Winograd F(4×4, 3×3)
/// (`jit`'s `conv2d::winograd`) than directly. Winograd does a quarter of the multiply-adds
/// on whole 4 × 4 output tiles, which its batched GEMM vectorizes along 16 tiles at a time:
/// small planes waste lanes (a 7×7 output is 4 tiles, a quarter of a vector), and few
/// channels leave the transforms, which cost per channel and tile, too large a share.
///
/// Measured on one thread on a shared 2-core Zen 4 (`RAYON_NUM_THREADS=1 cargo run --release
/// -p relaxjit-bench --example library -- --calls 20 [--no-winograd | --winograd-all] NAME`,
/// best of three alternating runs of the minimum of 20 calls), µs, direct (the packed channel
/// kernel, 103–114 GFLOP/s) → Winograd:
///
/// | shape | plane (tiles) | direct | Winograd |
/// |---|---|---|---|
/// | 3×3 64→64 (`block3x3`, `rn_3x3_64`) | 56×56 (196) | 2068 | 868 |
/// | 3×3 128→128 (`rn_3x3_128`) | 28×28 (49) | 2040 | 928 |
/// | 3×3 256→256 (`rn_3x3_256`) | 14×14 (16) | 2026 | 797 |
/// | 3×3 512→512 (`rn_3x3_512`) | 7×7 (4) | 2041 | 4712 |
/// | 3×3 16→64 (`sq_expand3`) | 55×55 (196) | 542 | 316 |
/// | 3×3 32→128 (`sq_ex3_27`) | 27×27 (49) | 500 | 271 |
/// | 3×3 48→192 (`sq_ex3_13`) | 13×13 (16) | 260 | 129 |
/// | 3×3 64→256 (`sq_expand3b`) | 13×13 (16) | 452 | 208 |
///
/// Inside SqueezeNet on two threads, where the transformed weights (four times the size)
/// come from memory, each of its eight 3×3 layers still ran 1.3–1.9× faster (`cargo run
/// --release -p relaxjit-bench --example rows -- --sequence squeezenet`).
///
/// So: at least 16 tiles (a 13×13 output and up) and at least 16 input and output channels
/// (with 16 input channels the transforms already take a quarter of the time).
pub fn uses_winograd(o: usize, c: usize, oh: usize, ow: usize) -> bool {
    o >= 16 && c >= 16 && oh.div_ceil(4) * ow.div_ceil(4) >= 16
}

/// OIHW 3×3 `float32` weights `w` (`o × c × 3 × 3`) transformed for Winograd F(4×4, 3×3):
/// `U = G g Gᵀ` per (output, input) channel pair, in `f64` and rounded once, laid out
/// `[36, o, c]` (point-major, so that each of the 36 GEMMs reads an `o × c` row-major
/// matrix), followed by the weights themselves tap-major (`[9, o, c]`): `[45, o, c]` in all
/// ([`WINOGRAD_ROWS`]). The kernel runs the direct convolution on those taps for an input
/// holding an infinity or a NaN, which the transform would spread over its neighbours.
pub fn winograd_conv_weights(w: &[f32], [o, c]: [usize; 2]) -> Vec<f32> {
    let mut u = vec![0f32; WINOGRAD_ROWS * o * c];
    winograd_conv_weights_into(w, [o, c], &mut u);
    winograd_taps_into(w, [o, c], &mut u[WINOGRAD_POINTS * o * c..]);
    u
}

/// The taps of OIHW 3×3 weights `w` (`o × c × 3 × 3`) tap-major into `taps` (`9·o·c`
/// elements): `taps[k·o·c + p] = w[9p + k]`.
fn winograd_taps_into(w: &[f32], [o, c]: [usize; 2], taps: &mut [f32]) {
    let pairs = o * c;
    for (p, g) in w[..9 * pairs].chunks_exact(9).enumerate() {
        for (k, &v) in g.iter().enumerate() {
            taps[k * pairs + p] = v;
        }
    }
}

/// [`winograd_conv_weights`] into `u` (`36·o·c` elements). The weights are first regrouped
/// tap-major (nine runs of `o·c`), so that the transform, Lavin & Gray's `G` for F(4, 3)
/// written out, runs over contiguous runs and vectorizes: a model's weights are transformed
/// on every compile, and weights passed as parameters on every call.
pub fn winograd_conv_weights_into(w: &[f32], [o, c]: [usize; 2], u: &mut [f32]) {
    const CHUNK: usize = 256;
    let pairs = o * c;
    let (w, u) = (&w[..pairs * 9], &mut u[..WINOGRAD_POINTS * pairs]);
    let mut taps = [[0f32; CHUNK]; 9];
    for p0 in (0..pairs).step_by(CHUNK) {
        let len = CHUNK.min(pairs - p0);
        for (i, g) in w[9 * p0..9 * (p0 + len)].chunks_exact(9).enumerate() {
            for (k, &v) in g.iter().enumerate() {
                taps[k][i] = v;
            }
        }
        // `G g` for each of the three columns of `g`, then `(G g) Gᵀ` for each of its six rows,
        // in f64 and rounded once; multiplied by the reciprocals (in f64, no different once
        // rounded to f32), as divisions would not vectorize as well.
        const SIXTH: f64 = 1.0 / 6.0;
        const TWELFTH: f64 = 1.0 / 12.0;
        const TWENTY_FOURTH: f64 = 1.0 / 24.0;
        let mut gg = [[[0f64; CHUNK]; 3]; 6];
        for j in 0..3 {
            let (g0, g1, g2) = (&taps[j], &taps[3 + j], &taps[6 + j]);
            for i in 0..len {
                let (a, b, c) = (f64::from(g0[i]), f64::from(g1[i]), f64::from(g2[i]));
                gg[0][j][i] = a * 0.25;
                gg[1][j][i] = -(a + b + c) * SIXTH;
                gg[2][j][i] = -(a - b + c) * SIXTH;
                gg[3][j][i] = a * TWENTY_FOURTH + b * TWELFTH + c * SIXTH;
                gg[4][j][i] = a * TWENTY_FOURTH - b * TWELFTH + c * SIXTH;
                gg[5][j][i] = c;
            }
        }
        for (r, row) in gg.iter().enumerate() {
            let mut out: [&mut [f32]; 6] = [&mut [], &mut [], &mut [], &mut [], &mut [], &mut []];
            let mut rest = &mut u[6 * r * pairs..];
            for slot in &mut out {
                let (head, tail) = std::mem::take(&mut rest).split_at_mut(pairs);
                *slot = &mut head[p0..p0 + len];
                rest = tail;
            }
            let [u0, u1, u2, u3, u4, u5] = out;
            for i in 0..len {
                let (a, b, c) = (row[0][i], row[1][i], row[2][i]);
                u0[i] = (a * 0.25) as f32;
                u1[i] = (-(a + b + c) * SIXTH) as f32;
                u2[i] = (-(a - b + c) * SIXTH) as f32;
                u3[i] = (a * TWENTY_FOURTH + b * TWELFTH + c * SIXTH) as f32;
                u4[i] = (a * TWENTY_FOURTH - b * TWELFTH + c * SIXTH) as f32;
                u5[i] = c as f32;
            }
        }
    }
}

/// A conv2d chain whose weights are a constant (inline, or bound earlier in the block) that
/// [`uses_winograd`] or [`packs_conv_weights`] chooses, with those weights transformed or
/// packed; any other chain unchanged.
fn pack_constant_weights(
    mut chain: Chain,
    bindings: &[Binding],
    index: &HashMap<VarId, usize>,
) -> Chain {
    let constant = match chain.inputs[1].kind() {
        ExprKind::Constant(c) => Some(c),
        ExprKind::Var(v) => index.get(&v.id()).and_then(|&i| match &bindings[i] {
            Binding::Var { value, .. } => match value.kind() {
                ExprKind::Constant(c) => Some(c),
                _ => None,
            },
            _ => None,
        }),
        _ => None,
    };
    let Some(constant) = constant else {
        return chain;
    };
    let w = &constant.data;
    let out = chain.end.struct_info().tensor_shape().and_then(|s| {
        s.iter()
            .map(|d| d.as_int().and_then(|v| usize::try_from(v).ok()))
            .collect::<Option<Vec<usize>>>()
    });
    let dims: Option<Vec<usize>> = w.shape().iter().map(|&d| usize::try_from(d).ok()).collect();
    let (Some(out), Some(dims)) = (out, dims) else {
        return chain;
    };
    let (&[_, o, oh, ow], &[wo, c, kh, kw]) = (&out[..], &dims[..]) else {
        return chain;
    };
    let groups = chain.params.get(8).copied();
    let stride = [0, 1].map(|i| {
        chain
            .params
            .get(i)
            .and_then(|&v| usize::try_from(v).ok())
            .unwrap_or(0)
    });
    if w.dtype() != vm::DataType::F32 || constant.is_placeholder() || groups != Some(1) || wo != o {
        return chain;
    }
    // SAFETY: the constant is a float32 tensor of `o·c·kh·kw` elements (its dtype and shape,
    // checked above), at an address aligned for f32 (every allocation is 64-byte aligned);
    // constants are never written, so nothing writes these bytes while they are read here.
    let src = unsafe { std::slice::from_raw_parts(w.as_ptr().cast::<f32>(), w.numel()) };
    if !src.iter().all(|v| v.is_finite()) {
        // An infinite or NaN weight makes its channel's products at the padding NaN (as the
        // TIR legalization computes them); the library's OIHW path reproduces that, the
        // Winograd transform would mix the weight into its neighbours' points.
        return chain;
    }
    let dilation = [6, 7].map(|i| chain.params.get(i).copied());
    if [kh, kw] == [3, 3]
        && stride == [1, 1]
        && dilation == [Some(1); 2]
        && uses_winograd(o, c, oh, ow)
    {
        if let Some(weights) = winograd_constant_weights(constant, [o, c]) {
            chain.inputs[1] = weights;
        }
        return chain;
    }
    if !packs_conv_weights(o, c, [kh, kw], stride, oh * ow) {
        return chain;
    }
    let shape_i64 = packed_conv_shape([o, c, kh, kw]).map(|d| d as i64);
    let Ok(mut tensor) = vm::Tensor::zeros(&shape_i64, vm::DataType::F32) else {
        return chain;
    };
    let Ok(bytes) = tensor.bytes_mut() else {
        return chain;
    };
    // SAFETY: `bytes` is the new tensor's whole zeroed buffer, uniquely borrowed, 64-byte
    // aligned, holding `nbytes / 4` f32 elements (all bit patterns are valid f32).
    let dst = unsafe {
        std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<f32>(), bytes.len() / 4)
    };
    pack_conv_weights_into(src, [o, c, kh, kw], dst);
    chain.inputs[1] = Expr::new(ExprKind::Constant(Constant {
        data: tensor,
        struct_info: StructInfo::tensor(
            shape_i64.iter().map(|&d| PrimExpr::i64(d)).collect(),
            DataType::FLOAT32,
        ),
        metadata_index: None,
    }));
    chain
}

/// The Winograd transform of constant 3×3 `float32` conv2d weights (`o × c × 3 × 3`), a 3-D
/// `[45, o, c]` tensor (see [`winograd_conv_weights`]).
fn winograd_constant_weights(constant: &Constant, [o, c]: [usize; 2]) -> Option<Expr> {
    let w = &constant.data;
    let shape_i64 = [WINOGRAD_ROWS, o, c].map(|d| d as i64);
    let mut tensor = vm::Tensor::zeros(&shape_i64, vm::DataType::F32).ok()?;
    let bytes = tensor.bytes_mut().ok()?;
    // SAFETY: the constant is a float32 tensor of `o·c·3·3` elements (its shape, checked by
    // the caller), at an address aligned for f32 (every allocation is 64-byte aligned);
    // constants are never written, so nothing writes these bytes while they are read here.
    let src = unsafe { std::slice::from_raw_parts(w.as_ptr().cast::<f32>(), w.numel()) };
    // SAFETY: `bytes` is the new tensor's whole zeroed buffer, uniquely borrowed, 64-byte
    // aligned, holding `nbytes / 4` f32 elements (all bit patterns are valid f32).
    let dst = unsafe {
        std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<f32>(), bytes.len() / 4)
    };
    winograd_conv_weights_into(src, [o, c], dst);
    winograd_taps_into(src, [o, c], &mut dst[WINOGRAD_POINTS * o * c..]);
    Some(Expr::new(ExprKind::Constant(Constant {
        data: tensor,
        struct_info: StructInfo::tensor(
            shape_i64.iter().map(|&d| PrimExpr::i64(d)).collect(),
            DataType::FLOAT32,
        ),
        metadata_index: None,
    })))
}

/// `R.nn.max_pool2d` / `R.nn.avg_pool2d` of a 4-D NCHW float tensor, with the padding forms
/// LegalizeOps reads (one value, one per axis, or before/after per axis). Average pooling in
/// ceil mode counting the padding is left to LegalizeOps (which refuses it too).
fn pool2d_anchor(call: &Call, var: &Var, at: usize, op: LibraryOp) -> Option<Chain> {
    let x = call.args.first()?;
    let x_si = operand_si(x)?;
    float_dtype(&[x_si], var.struct_info())?;
    if x_si.ndim() != Some(4) || var.struct_info().ndim() != Some(4) {
        return None;
    }
    if !layout_is(call, "layout", "NCHW") || !layout_is(call, "out_layout", "NCHW") {
        return None;
    }
    let ints = |n: &str| attr_ints(call, n, &[]);
    // Unset (or empty) windows, strides and dilations are 1.
    let pair = |n: &str| -> Option<[i64; 2]> {
        let v = ints(n)?;
        if v.is_empty() { Some([1, 1]) } else { pair(v) }
    };
    let flag = |n: &str| match call.attrs.get(n) {
        None | Some(AttrValue::None) => Some(false),
        Some(v) => v.as_bool(),
    };
    let (pool, strides, dilation) = (pair("pool_size")?, pair("strides")?, pair("dilation")?);
    let padding: [i64; 4] = match ints("padding")?[..] {
        [] => [0; 4],
        [p] => [p; 4],
        [h, w] => [h, w, h, w],
        [t, l, b, r] => [t, l, b, r],
        _ => return None,
    };
    let (ceil, include_pad) = (flag("ceil_mode")?, flag("count_include_pad")?);
    if op == LibraryOp::AvgPool2d && ceil && include_pad {
        return None;
    }
    if pool.iter().chain(&strides).chain(&dilation).any(|&v| v < 1)
        || padding.iter().any(|&p| p < 0)
    {
        return None;
    }
    let window = PoolWindow {
        pool,
        strides,
        padding,
        dilation,
        ceil,
        include_pad,
    };
    Some(pool_chain(op, x, window, var, at))
}

/// A pooling window, as the pooling kernels take it.
struct PoolWindow {
    pool: [i64; 2],
    strides: [i64; 2],
    /// Top, left, bottom, right.
    padding: [i64; 4],
    dilation: [i64; 2],
    ceil: bool,
    include_pad: bool,
}

/// The chain of one pooling kernel of `x` into `var` (binding `at`): its 12 integer parameters
/// are the window's fields in order.
fn pool_chain(op: LibraryOp, x: &Expr, w: PoolWindow, var: &Var, at: usize) -> Chain {
    let mut params = Vec::with_capacity(12);
    params.extend(w.pool);
    params.extend(w.strides);
    params.extend(w.padding);
    params.extend(w.dilation);
    params.push(i64::from(w.ceil));
    params.push(i64::from(w.include_pad));
    Chain {
        kernel: LibraryKernel {
            op,
            norm: false,
            addends: 0,
            activation: None,
        },
        inputs: vec![x.clone()],
        params,
        fparams: Vec::new(),
        members: vec![at],
        end: var.clone(),
    }
}

/// `R.mean(x, axis=[2, 3], keepdims=True)` of a 4-D float tensor of static spatial size
/// `H × W`, a global average pool: `avg_pool2d` with an `H × W` window and no padding, whose
/// sum runs over the plane in the same order as the reduction's and divides by the same count.
fn spatial_mean_anchor(call: &Call, var: &Var, at: usize) -> Option<Chain> {
    let x = call.args.first()?;
    let x_si = operand_si(x)?;
    float_dtype(&[x_si], var.struct_info())?;
    if x_si.ndim() != Some(4) || var.struct_info().ndim() != Some(4) {
        return None;
    }
    let keepdims = match call.attrs.get("keepdims") {
        None | Some(AttrValue::None) => false,
        Some(v) => v.as_bool()?,
    };
    let mut axes: Vec<i64> = call
        .attrs
        .get("axis")?
        .as_int_list()?
        .iter()
        .map(|&a| if a < 0 { a + 4 } else { a })
        .collect();
    axes.sort_unstable();
    if !keepdims || axes != [2, 3] {
        return None;
    }
    let shape = x_si.tensor_shape()?;
    let (h, w) = (shape.get(2)?.as_int()?, shape.get(3)?.as_int()?);
    if h < 1 || w < 1 {
        return None;
    }
    // One window over the whole plane: the mean of its h·w elements.
    let window = PoolWindow {
        pool: [h, w],
        strides: [1, 1],
        padding: [0; 4],
        dilation: [1, 1],
        ceil: false,
        include_pad: false,
    };
    Some(pool_chain(LibraryOp::AvgPool2d, x, window, var, at))
}

/// `R.concat((a, b), axis)` of two float tensors of known rank (more inputs stay on TIR).
fn concat_anchor(call: &Call, var: &Var, at: usize) -> Option<Chain> {
    let ExprKind::Tuple(fields) = call.args.first()?.kind() else {
        return None;
    };
    if fields.len() < 2 {
        return None;
    }
    let sis: Vec<&StructInfo> = fields.iter().map(operand_si).collect::<Option<_>>()?;
    // A copy of whole elements: any dtype of whole bytes (and bool, a byte per element), the
    // same for every input and the output.
    let out = var.struct_info();
    let dt = out.tensor_dtype()?;
    out.tensor_shape()?;
    let whole_bytes = copies_as_bytes(dt);
    if !whole_bytes || !sis.iter().all(|si| si.tensor_dtype() == Some(dt)) {
        return None;
    }
    let nd = out.ndim()?;
    let axis = match call.attrs.get("axis") {
        None | Some(AttrValue::None) => 0,
        Some(v) => v.as_int()?,
    };
    let axis = if axis < 0 { axis + nd as i64 } else { axis };
    if !(0..nd as i64).contains(&axis) || sis.iter().any(|si| si.ndim() != Some(nd)) {
        return None;
    }
    Some(Chain {
        kernel: LibraryKernel {
            op: LibraryOp::Concat,
            norm: false,
            addends: 0,
            activation: None,
        },
        inputs: fields.clone(),
        params: vec![axis],
        fparams: Vec::new(),
        members: vec![at],
        end: var.clone(),
    })
}

/// Whether the byte-copying kernels (concat, take) can copy elements of `dt`: one lane of
/// whole bytes (a `bool` is a byte per element), not a handle.
fn copies_as_bytes(dt: DataType) -> bool {
    dt.lanes == 1 && (dt.bits.is_multiple_of(8) || dt.is_bool()) && !dt.is_handle()
}

/// `R.take(x, indices, axis, mode)` of a tensor of indices (`int32` or `int64`) along a given
/// axis, elements of whole bytes, into an output of known shape. (An index that is a prim
/// value, and a take without an axis, stay with the TIR legalization.)
fn take_anchor(call: &Call, var: &Var, at: usize) -> Option<Chain> {
    let [x, indices] = &call.args[..] else {
        return None;
    };
    let (x_si, i_si) = (operand_si(x)?, operand_si(indices)?);
    let out = var.struct_info();
    let dt = out.tensor_dtype()?;
    out.tensor_shape()?;
    let whole_bytes = copies_as_bytes(dt);
    let index_dt = i_si.tensor_dtype()?;
    if !whole_bytes
        || x_si.tensor_dtype() != Some(dt)
        || !(index_dt == DataType::INT64 || index_dt == DataType::INT32)
    {
        return None;
    }
    let nd = x_si.ndim()? as i64;
    let axis = call.attrs.get("axis")?.as_int()?;
    let axis = if axis < 0 { axis + nd } else { axis };
    if !(0..nd).contains(&axis) {
        return None;
    }
    let mode = match call.attrs.get("mode").and_then(AttrValue::as_str) {
        None | Some("fast") => 0,
        Some("clip") => 1,
        Some("wrap") => 2,
        Some(_) => return None,
    };
    Some(Chain {
        kernel: LibraryKernel {
            op: LibraryOp::Take,
            norm: false,
            addends: 0,
            activation: None,
        },
        inputs: vec![x.clone(), indices.clone()],
        params: vec![axis, mode],
        fparams: Vec::new(),
        members: vec![at],
        end: var.clone(),
    })
}

/// `R.argmax` / `R.argmin` of a `float32`, `float64`, `int32` or `int64` tensor over one axis
/// or all of them, into an `int64` output of known shape.
fn arg_reduce_anchor(op: &str, call: &Call, var: &Var, at: usize) -> Option<Chain> {
    let x = call.args.first()?;
    let x_si = operand_si(x)?;
    let dt = x_si.tensor_dtype()?;
    let nd = x_si.ndim()? as i64;
    let out = var.struct_info();
    out.tensor_shape()?;
    let supported = [
        DataType::FLOAT32,
        DataType::FLOAT64,
        DataType::INT32,
        DataType::INT64,
    ];
    if !supported.contains(&dt) || out.tensor_dtype()? != DataType::INT64 {
        return None;
    }
    let axis = match call.attrs.get("axis") {
        None | Some(AttrValue::None) => -1,
        Some(v) => {
            let a = v.as_int()?;
            let a = if a < 0 { a + nd } else { a };
            if !(0..nd).contains(&a) {
                return None;
            }
            a
        }
    };
    Some(Chain {
        kernel: LibraryKernel {
            op: LibraryOp::ArgReduce {
                max: op == "relax.argmax",
            },
            norm: false,
            addends: 0,
            activation: None,
        },
        inputs: vec![x.clone()],
        params: vec![axis],
        fparams: Vec::new(),
        members: vec![at],
        end: var.clone(),
    })
}

/// `R.nn.softmax(x, axis)` and `R.nn.layer_norm(x, gamma, beta, axes, epsilon)` (centered
/// and scaled, `gamma` and `beta` 1-D) over the last axis of a float tensor of known rank.
fn last_axis_anchor(op: &str, call: &Call, var: &Var, at: usize) -> Option<Chain> {
    let x = call.args.first()?;
    let x_si = operand_si(x)?;
    let dt = float_dtype(&[x_si], var.struct_info())?;
    let nd = x_si.ndim()? as i64;
    let last = |a: i64| nd >= 1 && (a == -1 || a == nd - 1);
    let (kernel_op, inputs, fparams) = if op == "relax.nn.softmax" {
        let axis = match call.attrs.get("axis") {
            None | Some(AttrValue::None) => -1,
            Some(v) => v.as_int()?,
        };
        if !last(axis) {
            return None;
        }
        (LibraryOp::Softmax, vec![x.clone()], Vec::new())
    } else {
        let axes = match call.attrs.get("axes") {
            None | Some(AttrValue::None) => vec![-1],
            Some(v) => v.as_int_list()?,
        };
        let flag = |n: &str| match call.attrs.get(n) {
            None | Some(AttrValue::None) => Some(true),
            Some(v) => v.as_bool(),
        };
        let eps = match call.attrs.get("epsilon") {
            None | Some(AttrValue::None) => 1e-5,
            Some(v) => v.as_float()?,
        };
        let len = x_si.tensor_shape()?.last()?.clone();
        let (g, b) = (call.args.get(1)?, call.args.get(2)?);
        for e in [g, b] {
            let si = operand_si(e)?;
            let shape = si.tensor_shape()?;
            if si.tensor_dtype() != Some(dt) || !shapes_equal(shape, std::slice::from_ref(&len)) {
                return None;
            }
        }
        if !matches!(axes[..], [a] if last(a)) || !flag("center")? || !flag("scale")? {
            return None;
        }
        (
            LibraryOp::LayerNorm,
            vec![x.clone(), g.clone(), b.clone()],
            vec![eps],
        )
    };
    Some(Chain {
        kernel: LibraryKernel {
            op: kernel_op,
            norm: false,
            addends: 0,
            activation: None,
        },
        inputs,
        params: Vec::new(),
        fparams,
        members: vec![at],
        end: var.clone(),
    })
}

/// The value of a one-element constant.
fn scalar_const(e: &Expr) -> Option<f64> {
    match e.kind() {
        ExprKind::Constant(c) if c.data.numel() == 1 => c.data.get_f64(0),
        _ => None,
    }
}

/// ONNX `LRN` of a 4-D tensor as TVM's ONNX frontend (and ours) lowers it, ending at this
/// `R.divide`: `sq = x * x`, `e = expand_dims(sq, [1])`, `p = avg_pool3d(e, pool (size, 1, 1),
/// stride 1, padding (before, 0, 0, after, 0, 0), count_include_pad)`, `a = squeeze(p, [1])`,
/// `s = a * alpha`, `b = s + bias`, `d = b ** beta`, `y = x / d`, every intermediate used
/// once, in this block, the three scalars constants.
fn lrn_anchor(
    call: &Call,
    var: &Var,
    bindings: &[Binding],
    index: &HashMap<VarId, usize>,
    single_use: &dyn Fn(&Var) -> bool,
) -> Option<Chain> {
    // The call that defines `e` (a single-use variable of this block) if it is `op`.
    let def = |e: &Expr, op: &str| -> Option<(usize, Call)> {
        let v = e.as_var()?;
        if !single_use(v) {
            return None;
        }
        let &i = index.get(&v.id())?;
        let c = bindings[i].value().as_call()?;
        (c.op() == Some(op)).then(|| (i, c.clone()))
    };
    // `op(v, constant)` or `op(constant, v)`: (v, the constant's value).
    let with_scalar = |c: &Call| -> Option<(Expr, f64)> {
        let (a, b) = (c.args.first()?, c.args.get(1)?);
        match (scalar_const(a), scalar_const(b)) {
            (None, Some(k)) => Some((a.clone(), k)),
            (Some(k), None) => Some((b.clone(), k)),
            _ => None,
        }
    };
    let axis_is_1 = |c: &Call| {
        c.attrs
            .get("axis")
            .and_then(|a| a.as_int_list().or_else(|| a.as_int().map(|i| vec![i])))
            == Some(vec![1])
    };
    let (x, den) = (call.args.first()?, call.args.get(1)?);
    let xv = x.as_var()?;
    let dt = float_dtype(&[xv.struct_info()], var.struct_info())?;
    if xv.struct_info().ndim() != Some(4)
        || !matches!((xv.struct_info().tensor_shape(), var.struct_info().tensor_shape()),
            (Some(a), Some(b)) if shapes_equal(a, b))
    {
        return None;
    }
    let (i_den, pow) = def(den, "relax.power")?;
    let (base, beta) = match (pow.args.first(), pow.args.get(1).and_then(scalar_const)) {
        (Some(b), Some(k)) => (b.clone(), k),
        _ => return None,
    };
    let (i_base, add) = def(&base, "relax.add")?;
    let (scaled, bias) = with_scalar(&add)?;
    let (i_scaled, mul) = def(&scaled, "relax.multiply")?;
    let (avg, alpha) = with_scalar(&mul)?;
    let (i_avg, squeeze) = def(&avg, "relax.squeeze")?;
    let (i_pool, pool) = def(squeeze.args.first()?, "relax.nn.avg_pool3d")?;
    let (i_e, expand) = def(pool.args.first()?, "relax.expand_dims")?;
    let (i_sq, sq) = def(expand.args.first()?, "relax.multiply")?;
    let same_x = |e: Option<&Expr>| e.and_then(Expr::as_var).is_some_and(|v| v.id() == xv.id());
    if !axis_is_1(&squeeze)
        || !axis_is_1(&expand)
        || !same_x(sq.args.first())
        || !same_x(sq.args.get(1))
    {
        return None;
    }
    for e in [&base, &scaled, &avg] {
        if operand_si(e)?.tensor_dtype() != Some(dt) {
            return None;
        }
    }
    let ints = |n: &str| pool.attrs.get(n).and_then(AttrValue::as_int_list);
    let flag = |n: &str| pool.attrs.get(n).and_then(AttrValue::as_bool);
    let size = match ints("pool_size")?[..] {
        [s, 1, 1] if s >= 1 => s,
        _ => return None,
    };
    let (before, after) = match ints("padding")?[..] {
        [b, 0, 0, a, 0, 0] => (b, a),
        _ => return None,
    };
    let layout_ok = ["layout", "out_layout"].iter().all(|n| {
        matches!(
            pool.attrs.get(n).and_then(AttrValue::as_str),
            None | Some("") | Some("NCDHW")
        )
    });
    if ints("strides")? != [1, 1, 1]
        || ints("dilation").unwrap_or_else(|| vec![1, 1, 1]) != [1, 1, 1]
        || flag("ceil_mode") != Some(false)
        || flag("count_include_pad") != Some(true)
        || before < 0
        || after < 0
        || before + after != size - 1
        || !layout_ok
    {
        return None;
    }
    Some(Chain {
        kernel: LibraryKernel {
            op: LibraryOp::Lrn,
            norm: false,
            addends: 0,
            activation: None,
        },
        inputs: vec![x.clone()],
        params: vec![size, before],
        fparams: vec![alpha, beta, bias],
        members: vec![
            i_sq,
            i_e,
            i_pool,
            i_avg,
            i_scaled,
            i_base,
            i_den,
            index[&var.id()],
        ],
        end: var.clone(),
    })
}

/// The fused call, bound to the chain's last variable.
fn emit(chain: Chain) -> Binding {
    let mut args = chain.inputs;
    args.extend(chain.params.iter().map(|&p| Expr::prim(PrimExpr::i64(p))));
    args.extend(
        chain
            .fparams
            .iter()
            .map(|&p| Expr::prim(PrimExpr::float(DataType::FLOAT64, p))),
    );
    let call = Expr::call(
        Callee::Op("relax.call_dps_packed".into()),
        vec![Expr::extern_func(chain.kernel.name()), Expr::tuple(args)],
        Attrs::new(),
        vec![chain.end.struct_info().clone()],
    );
    Binding::Var {
        var: chain.end,
        value: call,
    }
}
