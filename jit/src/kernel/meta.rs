//! What a compiled kernel knows about itself besides its machine code: parameter names, declared
//! shapes and dtypes, and the sites that can fail. The kernel reports failures as numbers
//! ([`KernelError`]); [`KernelMeta::describe`] turns them into the message a user reads.

use tir::DataType;

use crate::kernel::abi::{
    ARG_FLOAT, ARG_INT, ARG_TENSOR, ERR_ALLOC, ERR_ARITY, ERR_ASSERT, ERR_BOUNDS, ERR_DIM,
    ERR_DIV_ZERO, ERR_DTYPE, ERR_HELPER, ERR_KIND, ERR_RANK, ERR_STRIDE, KernelError,
};
use crate::kernel::runtime::take_helper_message;

/// How a dimension of a tensor parameter is checked.
#[derive(Clone, Debug, PartialEq)]
pub enum DimMeta {
    /// The dimension binds the symbolic variable of this name.
    Bind(String),
    /// The dimension must equal this expression (printed). If the expression is a variable
    /// bound elsewhere, `origin` says where: (variable, parameter index, dimension).
    Check {
        /// The expression as TVMScript.
        expr: String,
        /// Where a plain variable was bound.
        origin: Option<(String, usize, usize)>,
    },
}

/// A tensor parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMeta {
    /// Element type.
    pub dtype: DataType,
    /// The declared shape, printed (`[n, 4]`).
    pub shape: Vec<String>,
    /// One entry per dimension.
    pub dims: Vec<DimMeta>,
}

/// A parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamMeta {
    /// Its name.
    pub name: String,
    /// `Some` for tensors.
    pub tensor: Option<TensorMeta>,
    /// The dtype of a scalar parameter.
    pub scalar: Option<DataType>,
}

/// Everything needed to describe a kernel's failures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelMeta {
    /// The PrimFunc's name.
    pub name: String,
    /// The symbol it is linked under.
    pub symbol: String,
    /// Its parameters in call order.
    pub params: Vec<ParamMeta>,
    /// Bounds-checked access sites: the accessed buffer's name.
    pub sites: Vec<String>,
    /// Assert sites: the message.
    pub asserts: Vec<String>,
    /// Heap allocation sites: the buffer's name.
    pub allocs: Vec<String>,
    /// How many loops were compiled as vector code.
    pub vector_loops: usize,
    /// How many loops run through the parallel-for helper.
    pub parallel_loops: usize,
    /// How many reduction loops keep their accumulator in a register.
    pub promoted_loops: usize,
}

/// The dtype names TVM prints, for a packed `code | bits << 8 | lanes << 16`.
pub fn packed_dtype_name(d: u32) -> String {
    let (code, bits, lanes) = (d as u8, (d >> 8) as u8, (d >> 16) as u16);
    let base = match (code, bits) {
        (6, 8) | (1, 1) => "bool".to_string(),
        (0, b) => format!("int{b}"),
        (1, b) => format!("uint{b}"),
        (2, b) => format!("float{b}"),
        (3, _) => "handle".to_string(),
        (4, b) => format!("bfloat{b}"),
        (c, b) => format!("custom[{c}]{b}"),
    };
    if lanes > 1 {
        format!("{base}x{lanes}")
    } else {
        base
    }
}

/// The packed DLPack dtype a tensor argument for a buffer of `dt` must have.
pub fn expected_packed_dtype(dt: DataType) -> u32 {
    use crate::kernel::abi::pack_dtype;
    use tir::TypeCode;
    if dt.is_bool() {
        return pack_dtype(6, 8, dt.lanes);
    }
    let code = match dt.code {
        TypeCode::Int => 0,
        TypeCode::UInt => 1,
        TypeCode::Float => 2,
        TypeCode::Handle => 3,
        TypeCode::BFloat => 4,
    };
    pack_dtype(code, dt.bits, dt.lanes)
}

fn kind_name(k: i64) -> &'static str {
    match k as u32 {
        ARG_TENSOR => "a tensor",
        ARG_INT => "an int",
        ARG_FLOAT => "a float",
        _ => "an unknown value",
    }
}

impl KernelMeta {
    fn param_name(&self, i: i32) -> String {
        self.params
            .get(i as usize)
            .map(|p| p.name.clone())
            .unwrap_or_else(|| format!("#{i}"))
    }

    /// The message for a failure the kernel reported in `e`. Takes the helper message of this
    /// thread for `ERR_HELPER`.
    pub fn describe(&self, e: &KernelError) -> String {
        let f = &self.name;
        let arg = || self.param_name(e.arg);
        let tensor = || {
            self.params
                .get(e.arg as usize)
                .and_then(|p| p.tensor.as_ref())
        };
        match e.kind {
            ERR_ARITY => format!("{f}: expected {} arguments, got {}", e.expected, e.actual),
            ERR_KIND => format!(
                "{f}: argument `{}` must be {}, got {}",
                arg(),
                kind_name(e.expected),
                kind_name(e.actual)
            ),
            ERR_RANK => format!(
                "{f}: argument `{}` has rank {}, expected rank {} (shape [{}])",
                arg(),
                e.actual,
                e.expected,
                tensor().map(|t| t.shape.join(", ")).unwrap_or_default()
            ),
            ERR_DTYPE => format!(
                "{f}: argument `{}` has dtype {}, expected {}",
                arg(),
                packed_dtype_name(e.actual as u32),
                packed_dtype_name(e.expected as u32)
            ),
            ERR_DIM => {
                let what = match tensor().and_then(|t| t.dims.get(e.dim as usize)) {
                    Some(DimMeta::Check {
                        expr,
                        origin: Some((_, p, d)),
                    }) => format!(
                        "{expr} = {} (bound by dimension {d} of `{}`)",
                        e.expected,
                        self.param_name(*p as i32)
                    ),
                    Some(DimMeta::Check { expr, origin: None })
                        if expr != &e.expected.to_string() =>
                    {
                        format!("{expr} = {}", e.expected)
                    }
                    _ => e.expected.to_string(),
                };
                format!(
                    "{f}: argument `{}` has {} at dimension {}, expected {what} (shape [{}])",
                    arg(),
                    e.actual,
                    e.dim,
                    tensor().map(|t| t.shape.join(", ")).unwrap_or_default()
                )
            }
            ERR_STRIDE => format!(
                "{f}: argument `{}` has stride {} at dimension {}, the buffer declares {}",
                arg(),
                e.actual,
                e.dim,
                e.expected
            ),
            ERR_BOUNDS => format!(
                "{f}: index {} is out of bounds for buffer `{}` of {} elements",
                e.actual,
                self.sites
                    .get(e.arg as usize)
                    .map(String::as_str)
                    .unwrap_or("?"),
                e.expected
            ),
            ERR_DIV_ZERO => format!("{f}: integer division by zero"),
            ERR_ASSERT => format!(
                "{f}: assertion failed: {}",
                self.asserts
                    .get(e.arg as usize)
                    .map(String::as_str)
                    .unwrap_or("?")
            ),
            ERR_HELPER => format!(
                "{f}: {}",
                take_helper_message().unwrap_or_else(|| "a runtime helper failed".into())
            ),
            ERR_ALLOC => format!(
                "{f}: cannot allocate {} bytes for buffer `{}`",
                e.actual,
                self.allocs
                    .get(e.arg as usize)
                    .map(String::as_str)
                    .unwrap_or("?")
            ),
            k => format!("{f}: failed with unknown status {k}"),
        }
    }
}
