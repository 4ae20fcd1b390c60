//! The binary format of an [`Executable`], byte-compatible with TVM 0.27's
//! `VMExecutable::SaveToBytes` / `LoadFromBytes`.
//!
//! All numbers are little-endian. A string is a `u64` length and its bytes; a vector is a `u64`
//! count and its elements. The stream is:
//!
//! 1. magic `u64`: [`MAGIC_V2`] (written), or [`MAGIC_V1`] (read only; it has no memory-scope
//!    section);
//! 2. version string [`VM_VERSION`] (`"0.14"`), which must match exactly;
//! 3. globals: `vector<FuncInfo>`, each `i32 kind, string name, i64 start_instr, i64 end_instr,
//!    i64 num_args, i64 register_file_size, vector<string> param_names`;
//! 4. memory scopes (V2 only): `u64` count, then `i64` constant index + `string` scope each;
//! 5. constants: `u64` count, then each an `i32` FFI type index and its payload (see
//!    [`ConstTag`]); a tensor is TVM's DLTensor record (`SaveDLTensor`);
//! 6. code: `vector<i64> instr_offset`, `vector<i64> instr_data`.
//!
//! Loading treats the bytes as untrusted: every length is checked against the bytes that remain
//! before anything is allocated, every error names what was being read and its byte offset, and
//! the result goes through [`Executable::validate`], so that a loaded executable is safe to run.
//! Unlike TVM, bytes left over after the code section are an error.

use std::path::Path;

use crate::executable::{FuncInfo, FuncKind};
use crate::tensor::{Device, Tensor};
use crate::value::{ShapeTuple, Str};
use crate::{DataType, Error, Executable, Result, Value};

/// The magic number TVM writes (`kTVMVMBytecodeMagicV2`).
pub const MAGIC_V2: u64 = 0xD225_DE2F_4214_151E;
/// The older magic, accepted on load; such files have no memory-scope section.
pub const MAGIC_V1: u64 = 0xD225_DE2F_4214_151D;
/// The bytecode version string (`VM_VERSION`).
pub const VM_VERSION: &str = "0.14";
/// Magic number of a serialized DLTensor (`kTVMTensorMagic`).
pub const TENSOR_MAGIC: u64 = 0xDD5E_40F0_96B4_A13F;

/// Gives the tensor constants of [`Executable::load_from_bytes_external`]: the `k`th, of a
/// shape and dtype.
pub type ExternalTensors<'a> = &'a mut dyn FnMut(usize, &[i64], DataType) -> Result<Tensor>;

/// The FFI type indexes that tag constants in the stream (`ffi::TypeIndex`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum ConstTag {
    /// `i64`.
    Int = 1,
    /// `f64`.
    Float = 3,
    /// `u8 code, u8 bits, u16 lanes`.
    DataType = 5,
    /// `u64` length and UTF-8 bytes.
    Str = 65,
    /// `u64` ndim and `ndim × i64`.
    Shape = 69,
    /// A DLTensor record.
    Tensor = 70,
}

impl ConstTag {
    fn from_i32(v: i32) -> Option<ConstTag> {
        Some(match v {
            1 => ConstTag::Int,
            3 => ConstTag::Float,
            5 => ConstTag::DataType,
            65 => ConstTag::Str,
            69 => ConstTag::Shape,
            70 => ConstTag::Tensor,
            _ => return None,
        })
    }
}

impl Executable {
    /// Serializes the executable in TVM's format (always with the V2 magic).
    ///
    /// Errors if a constant is of a kind the format cannot hold (TVM: "Unsupported constant
    /// pool type …"); [`Executable::validate`] rules such constants out, so a built or loaded
    /// executable always saves.
    pub fn save_to_bytes(&self) -> Result<Vec<u8>> {
        self.save(None)
    }

    /// [`save_to_bytes`](Self::save_to_bytes) with the bytes of every tensor constant left out
    /// of the stream, to be kept where they can be aligned (the artifact cache's entries): a
    /// tensor's record ends with its data size, and `data` receives the tensor instead, in
    /// the order of the constant pool. Not TVM's format: only
    /// [`load_from_bytes_external`](Self::load_from_bytes_external) reads it.
    pub fn save_to_bytes_external(&self, data: &mut dyn FnMut(&Tensor)) -> Result<Vec<u8>> {
        self.save(Some(data))
    }

    fn save(&self, mut external: Option<&mut dyn FnMut(&Tensor)>) -> Result<Vec<u8>> {
        let mut w = Writer::default();
        w.u64(MAGIC_V2);
        w.str(VM_VERSION);
        w.u64(self.func_table.len() as u64);
        for f in &self.func_table {
            w.i32(f.kind as i32);
            w.str(&f.name);
            w.i64(f.start_instr);
            w.i64(f.end_instr);
            w.i64(f.num_args);
            w.i64(f.register_file_size);
            w.u64(f.param_names.len() as u64);
            for p in &f.param_names {
                w.str(p);
            }
        }
        w.u64(self.memory_scopes.len() as u64);
        for (idx, scope) in &self.memory_scopes {
            w.i64(*idx);
            w.str(scope);
        }
        w.u64(self.constants.len() as u64);
        for (i, c) in self.constants.iter().enumerate() {
            match c {
                Value::Int(v) => {
                    w.i32(ConstTag::Int as i32);
                    w.i64(*v);
                }
                Value::Float(v) => {
                    w.i32(ConstTag::Float as i32);
                    w.u64(v.to_bits());
                }
                Value::DType(d) => {
                    w.i32(ConstTag::DataType as i32);
                    w.dtype(*d);
                }
                Value::Str(s) => {
                    w.i32(ConstTag::Str as i32);
                    w.str(s);
                }
                Value::Shape(s) => {
                    w.i32(ConstTag::Shape as i32);
                    w.u64(s.len() as u64);
                    for &d in s.dims() {
                        w.i64(d);
                    }
                }
                Value::Tensor(t) => {
                    // The record counts (bits + 7) / 8 bytes per element, lanes ignored, so a
                    // vector-dtype tensor cannot be written faithfully; the loader rejects them too.
                    if t.dtype().bits == 0 || t.dtype().lanes != 1 {
                        return Err(Error::internal(format!(
                            "constant {i}: a tensor of dtype {} cannot be serialized",
                            t.dtype()
                        )));
                    }
                    w.i32(ConstTag::Tensor as i32);
                    w.tensor_header(t);
                    match external.as_mut() {
                        Some(data) => data(t),
                        None => t.append_bytes_to(&mut w.buf),
                    }
                }
                other => {
                    return Err(Error::internal(format!(
                        "Unsupported constant pool type {} (constant {i})",
                        other.type_name()
                    )));
                }
            }
        }
        w.u64(self.instr_offset.len() as u64);
        for &o in &self.instr_offset {
            w.i64(o);
        }
        w.u64(self.instr_data.len() as u64);
        for &d in &self.instr_data {
            w.i64(d);
        }
        Ok(w.buf)
    }

    /// Deserializes and validates an executable. Never panics, whatever the bytes.
    // On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn load_from_bytes(bytes: &[u8]) -> Result<Executable> {
        Executable::load(bytes, None)
    }

    /// Loads what [`save_to_bytes_external`](Self::save_to_bytes_external) wrote: the `k`th
    /// tensor constant (counting tensors only, from 0), of `shape` and `dtype`, is
    /// `data(k, shape, dtype)`, which must have that shape and dtype. Never panics, whatever
    /// the bytes; an error of `data` fails the load.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn load_from_bytes_external(bytes: &[u8], data: ExternalTensors<'_>) -> Result<Executable> {
        Executable::load(bytes, Some(data))
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn load(bytes: &[u8], mut external: Option<ExternalTensors<'_>>) -> Result<Executable> {
        let mut r = Reader {
            data: bytes,
            pos: 0,
        };
        let magic = r.u64(&"magic number")?;
        let has_memory_scopes = match magic {
            MAGIC_V2 => true,
            MAGIC_V1 => false,
            _ => {
                return Err(Error::load(format!(
                    "bad magic number {magic:#018x} at byte 0: not a serialized Relax VM executable \
                     (expected {MAGIC_V2:#018x})"
                )));
            }
        };
        let at = r.pos;
        let version = r.string(&"version string")?;
        if version != VM_VERSION {
            return Err(Error::load(format!(
                "bytecode version {version:?} at byte {at} is not supported (expected {VM_VERSION:?})"
            )));
        }

        let mut exec = Executable::default();
        // The smallest function entry: kind, an empty name, four i64s and an empty name vector.
        let nfuncs = r.count(&"function table", 4 + 8 + 4 * 8 + 8)?;
        // `with_capacity` rather than `reserve`, whose growth path is generic code outside the
        // artifact cache's hit-path section.
        exec.func_table = crate::hit::vec_with_capacity(nfuncs);
        for fi in 0..nfuncs {
            exec.func_table.push(r.func_info(fi)?);
        }
        exec.rebuild_func_map();

        if has_memory_scopes {
            let n = r.count(&"memory scope table", 8 + 8)?;
            exec.memory_scopes = crate::hit::vec_with_capacity(n);
            for i in 0..n {
                let idx = r.i64(&format_args!("constant index of memory scope {i}"))?;
                let scope = r.string(&format_args!("memory scope {i}"))?;
                exec.memory_scopes.push((idx, scope));
            }
        }

        // The smallest constant is a type index and a DataType (4 bytes).
        let nconsts = r.count(&"constant pool", 4 + 4)?;
        exec.constants = crate::hit::vec_with_capacity(nconsts);
        let mut tensors = 0;
        for i in 0..nconsts {
            exec.constants
                .push(r.constant(i, &mut tensors, &mut external)?);
        }

        let n = r.count(&"instruction offsets", 8)?;
        exec.instr_offset = r.i64_array(n, &"instruction offsets")?;
        let n = r.count(&"instruction data", 8)?;
        exec.instr_data = r.i64_array(n, &"instruction data")?;
        if r.remaining() != 0 {
            return Err(Error::load(format!(
                "{} unexpected bytes after the code section at byte {}",
                r.remaining(),
                r.pos
            )));
        }
        exec.validate()?;
        Ok(exec)
    }

    /// [`Executable::save_to_bytes`] into a file.
    pub fn save_to_file(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let bytes = self.save_to_bytes()?;
        std::fs::write(path, bytes)
            .map_err(|e| Error::runtime(format!("cannot write {}: {e}", path.display())))
    }

    /// [`Executable::load_from_bytes`] from a file.
    pub fn load_from_file(path: impl AsRef<Path>) -> Result<Executable> {
        let path = path.as_ref();
        let bytes = std::fs::read(path)
            .map_err(|e| Error::load(format!("cannot read {}: {e}", path.display())))?;
        Executable::load_from_bytes(&bytes).map_err(|e| e.context(path.display()))
    }
}

/// "constant {i}", for the messages of a constant that fails to load.
struct ConstantLabel(usize);

impl std::fmt::Display for ConstantLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "constant {}", self.0)
    }
}

#[derive(Default)]
struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.buf.extend_from_slice(s.as_bytes());
    }
    fn dtype(&mut self, d: DataType) {
        self.buf.push(d.code);
        self.buf.push(d.bits);
        self.u16(d.lanes);
    }
    /// TVM's `SaveDLTensor` up to the data: the device is always written as `cpu(0)`, and the
    /// byte size counts `(bits + 7) / 8` bytes per element (lanes ignored).
    fn tensor_header(&mut self, t: &Tensor) {
        self.u64(TENSOR_MAGIC);
        self.u64(0);
        self.i32(Device::CPU_TYPE);
        self.i32(0);
        self.i32(t.ndim() as i32);
        self.dtype(t.dtype());
        for &d in t.shape() {
            self.i64(d);
        }
        self.i64(t.nbytes() as i64);
    }
}

/// A cursor over untrusted bytes; every read is bounds-checked and names what it was reading.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Tensor {
    /// A tensor in TVM's `Tensor::Save` format (as `b64ndarrays` entries of TVM's JSON
    /// graphs hold them, base64-decoded): the whole of `bytes`, CPU, one lane.
    pub fn load_tvm_bytes(bytes: &[u8]) -> Result<Tensor> {
        let mut r = Reader {
            data: bytes,
            pos: 0,
        };
        let t = r.tensor(&"tensor")?;
        if r.remaining() != 0 {
            return Err(Error::load(format!(
                "{} unexpected bytes after the tensor at byte {}",
                r.remaining(),
                r.pos
            )));
        }
        Ok(t)
    }
}

impl<'a> Reader<'a> {
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn take(&mut self, n: usize, what: &dyn std::fmt::Display) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(Error::load(format!(
                "truncated input: {what} at byte {} needs {n} bytes, but only {} remain",
                self.pos,
                self.remaining()
            )));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn array<const N: usize>(&mut self, what: &dyn std::fmt::Display) -> Result<[u8; N]> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn u8(&mut self, what: &dyn std::fmt::Display) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn u16(&mut self, what: &dyn std::fmt::Display) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn i32(&mut self, what: &dyn std::fmt::Display) -> Result<i32> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn u64(&mut self, what: &dyn std::fmt::Display) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn i64(&mut self, what: &dyn std::fmt::Display) -> Result<i64> {
        Ok(i64::from_le_bytes(self.array(what)?))
    }

    /// A `u64` element count, checked against the remaining bytes given the smallest encoded
    /// size of one element, so that a corrupt count cannot make us allocate.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn count(&mut self, what: &dyn std::fmt::Display, min_elem_size: usize) -> Result<usize> {
        let at = self.pos;
        let n = self.u64(&format_args!("{what} length"))?;
        let fits = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(min_elem_size))
            .is_some_and(|bytes| bytes <= self.remaining());
        if !fits {
            return Err(Error::load(format!(
                "{what} length {n} at byte {at} is larger than the {} bytes that remain",
                self.remaining()
            )));
        }
        Ok(n as usize)
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn string(&mut self, what: &dyn std::fmt::Display) -> Result<String> {
        let n = self.count(what, 1)?;
        let at = self.pos;
        let bytes = self.take(n, what)?;
        crate::hit::utf8_string(bytes).map_err(|e| {
            Error::load(format!(
                "{what} at byte {at} is not valid UTF-8 (bad byte at {})",
                at + e.valid_up_to()
            ))
        })
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn i64_array(&mut self, n: usize, what: &dyn std::fmt::Display) -> Result<Vec<i64>> {
        let bytes = self.take(n * 8, what)?;
        // A loop rather than `collect`, whose generic code would lie outside the artifact
        // cache's hit-path section.
        let mut v = crate::hit::vec_with_capacity(n);
        for c in bytes.chunks_exact(8) {
            v.push(i64::from_le_bytes(c.try_into().expect("chunks of 8")));
        }
        Ok(v)
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn dtype(&mut self, what: &dyn std::fmt::Display) -> Result<DataType> {
        let code = self.u8(what)?;
        let bits = self.u8(what)?;
        let lanes = self.u16(what)?;
        Ok(DataType { code, bits, lanes })
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn func_info(&mut self, fi: usize) -> Result<FuncInfo> {
        let at = self.pos;
        let kind_word = self.i32(&format_args!("kind of function {fi}"))?;
        let kind = FuncKind::from_i32(kind_word).ok_or_else(|| {
            Error::load(format!(
                "function {fi} at byte {at} has unknown kind {kind_word} (expected 0 packed, 1 VM, 2 VM TIR)"
            ))
        })?;
        let name = self.string(&format_args!("name of function {fi}"))?;
        let start_instr = self.i64(&format_args!("start_instr of function {fi} `{name}`"))?;
        let end_instr = self.i64(&format_args!("end_instr of function {fi} `{name}`"))?;
        let num_args = self.i64(&format_args!("num_args of function {fi} `{name}`"))?;
        let register_file_size = self.i64(&format_args!(
            "register_file_size of function {fi} `{name}`"
        ))?;
        let n = self.count(
            &format_args!("parameter name list of function {fi} `{name}`"),
            8,
        )?;
        let mut param_names = crate::hit::vec_with_capacity(n);
        for p in 0..n {
            param_names.push(self.string(&format_args!(
                "parameter {p} name of function {fi} `{name}`"
            ))?);
        }
        Ok(FuncInfo {
            kind,
            name,
            start_instr,
            end_instr,
            num_args,
            register_file_size,
            param_names,
        })
    }

    /// The `i`th constant; a tensor's bytes follow its record, or with `external` they are
    /// the `tensors`th tensor it gives (the count is advanced).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn constant(
        &mut self,
        i: usize,
        tensors: &mut usize,
        external: &mut Option<ExternalTensors<'_>>,
    ) -> Result<Value> {
        let at = self.pos;
        // Formatted only into an error message: loading builds no label per constant.
        let what = ConstantLabel(i);
        let tag = self.i32(&format_args!("type index of {what}"))?;
        let tag = ConstTag::from_i32(tag).ok_or_else(|| {
            Error::load(format!(
                "{what} at byte {at} has type index {tag}; the constant pool can only contain \
                 int (1), float (3), DataType (5), string (65), shape (69) and tensor (70)"
            ))
        })?;
        Ok(match tag {
            ConstTag::Int => Value::Int(self.i64(&what)?),
            ConstTag::Float => Value::Float(f64::from_bits(self.u64(&what)?)),
            ConstTag::DataType => Value::DType(self.dtype(&what)?),
            ConstTag::Str => Value::Str(Str::new(self.string(&what)?)),
            ConstTag::Shape => {
                let n = self.count(&format_args!("{what} (shape) rank"), 8)?;
                Value::Shape(ShapeTuple::new(self.i64_array(n, &what)?))
            }
            ConstTag::Tensor => Value::Tensor(match external {
                None => self.tensor(&what)?,
                Some(data) => {
                    let (shape, dtype, _) = self.tensor_header(&what)?;
                    let t = data(*tensors, &shape, dtype).map_err(|e| e.context(&what))?;
                    if t.shape() != shape.as_slice() || t.dtype() != dtype {
                        return Err(Error::load(format!(
                            "{what}: the tensor given for shape {shape:?} of {dtype} has shape {:?} of {}",
                            t.shape(),
                            t.dtype()
                        )));
                    }
                    *tensors += 1;
                    t
                }
            }),
        })
    }

    /// TVM's `Tensor::Load`.
    fn tensor(&mut self, what: &dyn std::fmt::Display) -> Result<Tensor> {
        let (shape, dtype, nbytes) = self.tensor_header(what)?;
        let data = self.take(nbytes, &format_args!("{what} data"))?;
        Tensor::from_bytes(&shape, dtype, data).map_err(|e| e.context(what))
    }

    /// TVM's `Tensor::Load` up to the data: the shape, the dtype and the data size, checked.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn tensor_header(
        &mut self,
        what: &dyn std::fmt::Display,
    ) -> Result<(Vec<i64>, DataType, usize)> {
        let at = self.pos;
        let magic = self.u64(&format_args!("{what} tensor magic"))?;
        if magic != TENSOR_MAGIC {
            return Err(Error::load(format!(
                "{what}: bad tensor magic {magic:#018x} at byte {at} (expected {TENSOR_MAGIC:#018x})"
            )));
        }
        self.u64(&format_args!("{what} reserved word"))?;
        let at = self.pos;
        let device_type = self.i32(&format_args!("{what} device type"))?;
        let _device_id = self.i32(&format_args!("{what} device id"))?;
        if device_type != Device::CPU_TYPE {
            return Err(Error::load(format!(
                "{what}: tensor device type {device_type} at byte {at} is not CPU (1)"
            )));
        }
        let at = self.pos;
        let ndim = self.i32(&format_args!("{what} ndim"))?;
        let ndim = usize::try_from(ndim)
            .ok()
            .filter(|&n| n.checked_mul(8).is_some_and(|b| b <= self.remaining()))
            .ok_or_else(|| {
                Error::load(format!(
                    "{what}: tensor rank {ndim} at byte {at} is negative or larger than the input"
                ))
            })?;
        let at = self.pos;
        let dtype = self.dtype(&format_args!("{what} dtype"))?;
        if dtype.bits == 0 || dtype.lanes != 1 {
            return Err(Error::load(format!(
                "{what}: tensor dtype {dtype} (code {}, bits {}, lanes {}) at byte {at} is not supported",
                dtype.code, dtype.bits, dtype.lanes
            )));
        }
        let at = self.pos;
        let shape = self.i64_array(ndim, &format_args!("{what} shape"))?;
        let nbytes = crate::tensor::checked_nbytes(&shape, dtype).map_err(|e| {
            Error::load(format!(
                "{what}: bad tensor shape at byte {at}: {}",
                e.message()
            ))
        })?;
        let at = self.pos;
        let size = self.i64(&format_args!("{what} data size"))?;
        if u64::try_from(size).ok() != Some(nbytes as u64) {
            return Err(Error::load(format!(
                "{what}: tensor data size {size} at byte {at} does not match shape {shape:?} of \
                 {dtype} ({nbytes} bytes)"
            )));
        }
        Ok((shape, dtype, nbytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_counts_are_errors_not_allocations() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&MAGIC_V2.to_le_bytes());
        bytes.extend_from_slice(&4u64.to_le_bytes());
        bytes.extend_from_slice(b"0.14");
        bytes.extend_from_slice(&(1u64 << 60).to_le_bytes());
        let err = Executable::load_from_bytes(&bytes).unwrap_err();
        assert!(err.message().contains("function table length"), "{err}");
        assert!(err.message().contains("byte 20"), "{err}");
    }

    #[test]
    fn bad_magic_and_version() {
        let err = Executable::load_from_bytes(&[0; 16]).unwrap_err();
        assert!(err.message().contains("bad magic"), "{err}");
        let mut bytes = MAGIC_V2.to_le_bytes().to_vec();
        bytes.extend_from_slice(&4u64.to_le_bytes());
        bytes.extend_from_slice(b"0.13");
        let err = Executable::load_from_bytes(&bytes).unwrap_err();
        assert!(err.message().contains("version \"0.13\""), "{err}");
        let err = Executable::load_from_bytes(&[1, 2, 3]).unwrap_err();
        assert!(err.message().contains("truncated"), "{err}");
    }

    #[test]
    fn constants_round_trip() {
        let exec = Executable {
            constants: vec![
                Value::Int(1 << 60),
                Value::Float(-0.5),
                Value::DType(DataType::BOOL),
                Value::str("héllo"),
                Value::shape(vec![2, -1, 3]),
                Value::Tensor(Tensor::from_slice(&[2, 2], &[1.0f32, 2.0, 3.0, 4.0]).unwrap()),
                Value::Tensor(Tensor::scalar(true)),
            ],
            memory_scopes: vec![(5, "global".into())],
            ..Executable::default()
        };
        let bytes = exec.save_to_bytes().unwrap();
        let back = Executable::load_from_bytes(&bytes).unwrap();
        assert_eq!(back.save_to_bytes().unwrap(), bytes);
        assert_eq!(
            format!("{:?}", back.constants),
            format!("{:?}", exec.constants)
        );
    }

    /// Saved with the tensors' bytes left out, an executable loads back with the tensors the
    /// caller gives, in pool order, each checked against its record; TVM's format of the
    /// result is the original's.
    #[test]
    fn external_constants_round_trip() {
        let tensors = [
            Tensor::from_slice(&[2, 2], &[1.0f32, 2.0, 3.0, 4.0]).unwrap(),
            Tensor::scalar(true),
        ];
        let exec = Executable {
            constants: vec![
                Value::Tensor(tensors[0].clone()),
                Value::Int(3),
                Value::Tensor(tensors[1].clone()),
            ],
            ..Executable::default()
        };
        let mut given = Vec::new();
        let bytes = exec
            .save_to_bytes_external(&mut |t| given.push(t.clone()))
            .unwrap();
        assert_eq!(given.len(), 2);
        assert!(given[0].ptr_eq(&tensors[0]) && given[1].ptr_eq(&tensors[1]));
        let tvm = exec.save_to_bytes().unwrap();
        assert_eq!(
            bytes.len() + 16 + 1,
            tvm.len(),
            "the tensors' bytes are left out"
        );
        let back = Executable::load_from_bytes_external(&bytes, &mut |k, shape, dtype| {
            assert_eq!((shape, dtype), (tensors[k].shape(), tensors[k].dtype()));
            Ok(given[k].clone())
        })
        .unwrap();
        assert_eq!(back.save_to_bytes().unwrap(), tvm);
        // A tensor of another shape is an error naming the constant; so is TVM's reader on
        // bytes without the data.
        let e =
            Executable::load_from_bytes_external(&bytes, &mut |_, _, _| Ok(Tensor::scalar(1i8)))
                .unwrap_err()
                .to_string();
        assert!(
            e.contains("constant 0") && e.contains("has shape []"),
            "{e}"
        );
        assert!(Executable::load_from_bytes(&bytes).is_err());
    }

    #[test]
    fn v1_has_no_memory_scopes() {
        let exec = Executable {
            constants: vec![Value::Int(7)],
            ..Executable::default()
        };
        let mut bytes = exec.save_to_bytes().unwrap();
        bytes[..8].copy_from_slice(&MAGIC_V1.to_le_bytes());
        // Drop the (empty) memory-scope count that follows the empty function table.
        bytes.drain(28..36);
        let back = Executable::load_from_bytes(&bytes).unwrap();
        assert_eq!(back.save_to_bytes().unwrap(), exec.save_to_bytes().unwrap());
    }

    #[test]
    fn unsupported_constants_do_not_save() {
        let exec = Executable {
            constants: vec![Value::Bool(true)],
            ..Executable::default()
        };
        let err = exec.save_to_bytes().unwrap_err();
        assert!(
            err.message()
                .contains("Unsupported constant pool type bool")
        );
    }
}
