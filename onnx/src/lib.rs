//! relaxjit's ONNX frontend: reads a `ModelProto` (protobuf, with external-data tensors) and
//! builds a Relax [`IRModule`] with the [`BlockBuilder`](relax::block_builder::BlockBuilder),
//! as TVM's `tvm.relax.frontend.onnx.from_onnx` does, without Python.
//!
//! * Graph inputs become parameters of `main`; a `dim_param` becomes a symbolic dimension
//!   shared by every input that names it, an unnamed unknown dimension a fresh one.
//! * Initializers become constants, or with [`ImportOptions::keep_params_in_input`] trailing
//!   parameters whose values are returned beside the module (TVM's `keep_params_in_input`).
//! * Nodes become Relax operators with the semantics of the ONNX operator at the model's opset
//!   (7–21). Small integer tensors whose elements are known at import time (constants, `Shape`
//!   of a tensor, and what `Gather`, `Concat`, `Slice`, `Unsqueeze`, arithmetic… compute from
//!   them) are folded, so that `Reshape`/`Expand`/`ConstantOfShape` fed by shape subgraphs get
//!   static shapes where they can and symbolic ones where they cannot.
//! * An operator, attribute or attribute value the importer does not handle is an
//!   [`Error::Unsupported`] naming the operator, the node and the opset; the list of operators
//!   is [`SUPPORTED_OPS`], with [`CONTRIB_OPS`] of onnxruntime's `com.microsoft` domain.
//!
//! ```no_run
//! let module = relaxjit_onnx::import_file("model.onnx", &Default::default())?.module;
//! # Ok::<(), relaxjit_onnx::Error>(())
//! ```

pub mod error;
mod importer;
mod node;
mod ops;
pub mod proto;
pub mod tensor;

use std::borrow::Cow;
use std::path::Path;

use prost::Message;

pub use error::{Error, Result};
pub use ops::{CONTRIB_DOMAIN, CONTRIB_OPS, SUPPORTED_OPS};
pub use tensor::decode_tensor;

/// The Relax parameter name the importer gives graph input `name` (a valid identifier:
/// `gpu_0/data_0` → `gpu_0_data_0`, `0` → `input_0`), before making duplicates unique.
pub fn sanitize_name(name: &str) -> String {
    importer::sanitize(name)
}

/// How a model is imported.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Initializers become parameters of the function after the graph inputs (their values
    /// are in [`ImportedModel::params`]) instead of constants in the module.
    pub keep_params_in_input: bool,
    /// The name of the Relax function.
    pub func_name: String,
    /// The most bytes, over the whole model, of the constants the import makes itself:
    /// `ConstantOfShape` nodes of constant shape filled into constants (weights written as
    /// fills, such as the light zoo's; beyond the budget they are filled at run time), and the
    /// gather indices and weights `Resize` precomputes (beyond the budget, an error). A model
    /// cannot make the import hold more.
    pub constant_fill_budget: usize,
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions {
            keep_params_in_input: false,
            func_name: "main".into(),
            constant_fill_budget: 2 << 30,
        }
    }
}

/// An imported model.
#[derive(Clone, Debug)]
pub struct ImportedModel {
    /// The module, with one Relax function ([`ImportOptions::func_name`]).
    pub module: relax::IRModule,
    /// The graph inputs in order: the ONNX name and the Relax parameter name (a valid
    /// identifier: `gpu_0/data_0` becomes `gpu_0_data_0`).
    pub inputs: Vec<(String, String)>,
    /// The graph outputs' ONNX names, in the order of the function's result.
    pub outputs: Vec<String>,
    /// With [`ImportOptions::keep_params_in_input`], the initializers' parameter names and
    /// values, in parameter order after the inputs; otherwise empty.
    pub params: Vec<(String, vm::Tensor)>,
}

/// Imports a serialized `ModelProto`. External data cannot be found without the model's
/// folder: use [`import_file`] for such models.
pub fn import_bytes(bytes: &[u8], options: &ImportOptions) -> Result<ImportedModel> {
    import_in(Cow::Borrowed(bytes), None, options)
}

/// Imports a serialized `ModelProto` whose external-data files are in `folder` (none without
/// one). Owned bytes are not copied: the weights' `raw_data` are slices of the buffer.
pub fn import_in(
    bytes: Cow<'_, [u8]>,
    folder: Option<&Path>,
    options: &ImportOptions,
) -> Result<ImportedModel> {
    let bytes = match bytes {
        Cow::Borrowed(b) => prost::bytes::Bytes::copy_from_slice(b),
        Cow::Owned(v) => prost::bytes::Bytes::from(v),
    };
    let model = proto::ModelProto::decode(bytes).map_err(|error| Error::Decode {
        what: "ModelProto",
        error,
    })?;
    importer::import_model(&model, folder, options)
}

/// Imports the model in file `path`; external-data files are read relative to its folder.
pub fn import_file(path: impl AsRef<Path>, options: &ImportOptions) -> Result<ImportedModel> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|error| Error::Io {
        path: path.to_path_buf(),
        error,
    })?;
    import_in(Cow::Owned(bytes), Some(model_folder(path)), options)
}

/// The folder of the model file `path`, where its external-data files are read from.
pub fn model_folder(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// What a model's import depends on and gives, without importing it: the parameters that its
/// graph inputs become (as [`import_bytes`] names and types them), and the external-data
/// files its initializers are read from.
#[derive(Clone, Debug)]
pub struct Signature {
    /// The function's parameters for the graph inputs, in order (without the initializers
    /// that [`ImportOptions::keep_params_in_input`] appends).
    pub params: Vec<relax::Var>,
    /// The graph inputs in order: the ONNX name and the Relax parameter name, as
    /// [`ImportedModel::inputs`].
    pub inputs: Vec<(String, String)>,
    /// The `location` of every initializer stored as external data, relative to the model's
    /// folder, in the order of the initializers, each once: the only files an import reads
    /// besides the model.
    pub external_data: Vec<String>,
}

/// The [`Signature`] of a serialized `ModelProto`: decodes it and types its graph inputs,
/// without converting a node or reading a weight.
pub fn signature(bytes: &[u8]) -> Result<Signature> {
    let model = proto::ModelProto::decode(prost::bytes::Bytes::copy_from_slice(bytes)).map_err(
        |error| Error::Decode {
            what: "ModelProto",
            error,
        },
    )?;
    importer::signature(&model)
}
