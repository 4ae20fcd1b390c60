//! The builtins that the dispatch loop and compiled functions (`__vmtir__<name>`) perform
//! without a packed call — `null_value`, `alloc_tensor`, `alloc_storage`, the instructions the
//! memory planner puts around every kernel call — in one place for both exec modes: which
//! function-pool entries they are, how their argument words decode in place, and the reuse of
//! tensor handles between a kill and the next allocation ([`Spare`]).
//!
//! A Call is performed inline only when its callee is the builtin's registered function object
//! (a user who registers a replacement under the builtin's name gets the replacement called like
//! any packed function) and its arguments have the kinds the decoders accept; any other Call goes
//! to the builtin itself, which computes the same thing with the same functions
//! (`Storage::alloc_tensor_reusing`, `alloc_storage_with`) or reports the error.

use crate::bytecode::{Arg, ArgKind, BEGIN_SPECIAL_REG, VM_REGISTER};
use crate::packed::PackedFunc;
use crate::tensor::{SpareTensor, Storage};
use crate::vm::VmRef;
use crate::{DataType, Result, Value};

/// A builtin performed without a packed call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InlineBuiltin {
    /// `vm.builtin.null_value()` (VMCodeGen's `kill_object`).
    NullValue,
    /// `vm.builtin.alloc_tensor(storage, offset, shape, dtype)`.
    AllocTensor,
    /// `vm.builtin.alloc_storage(%vm, shape, device_index, dtype[, scope])`.
    AllocStorage,
}

impl InlineBuiltin {
    /// Every builtin performed inline, with the name it is registered under: the one table
    /// of their names.
    pub const ALL: [(InlineBuiltin, &'static str); 3] = [
        (InlineBuiltin::NullValue, "vm.builtin.null_value"),
        (InlineBuiltin::AllocTensor, "vm.builtin.alloc_tensor"),
        (InlineBuiltin::AllocStorage, "vm.builtin.alloc_storage"),
    ];

    /// The builtin registered as `name`, if it is one performed inline.
    // On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn from_name(name: &str) -> Option<InlineBuiltin> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|&(b, _)| b)
    }

    /// The name the builtin is registered under.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|&&(b, _)| b == self)
            .map_or("", |&(_, n)| n)
    }

    /// Whether a Call of the builtin with `nargs` arguments is one performed inline (the
    /// builtin's own arity; any other count goes to the builtin, which reports it).
    pub fn takes(self, nargs: usize) -> bool {
        match self {
            InlineBuiltin::NullValue => nargs == 0,
            InlineBuiltin::AllocTensor => nargs == 4,
            InlineBuiltin::AllocStorage => matches!(nargs, 4 | 5),
        }
    }

    /// Which builtin the function-pool entry `f` is, by identity with the registered objects.
    pub(crate) fn of(f: &Value) -> Option<InlineBuiltin> {
        let (Value::Func(f), Some(known)) = (f, crate::builtin::known()) else {
            return None;
        };
        let is = |k: &Option<PackedFunc>| k.as_ref().is_some_and(|k| k.ptr_eq(f));
        if is(&known.null_value) {
            Some(InlineBuiltin::NullValue)
        } else if is(&known.alloc_tensor) {
            Some(InlineBuiltin::AllocTensor)
        } else if is(&known.alloc_storage) {
            Some(InlineBuiltin::AllocStorage)
        } else {
            None
        }
    }
}

/// `alloc_tensor`'s arguments, read in place.
pub struct AllocTensorArgs<'a> {
    pub storage: &'a Storage,
    pub offset: i64,
    pub shape: &'a [i64],
    pub dtype: DataType,
}

/// `alloc_storage`'s arguments after `%vm`, read in place.
pub struct AllocStorageArgs<'a> {
    pub shape: &'a [i64],
    pub device_index: i64,
    pub dtype: DataType,
    pub scope: Option<&'a str>,
}

impl AllocStorageArgs<'_> {
    /// What the builtin returns for these arguments.
    #[inline]
    pub fn alloc(&self, vm: &VmRef) -> Result<Storage> {
        crate::builtin::alloc_storage_with(
            vm,
            self.shape,
            self.device_index,
            self.dtype,
            self.scope,
        )
    }
}

impl VmRef {
    /// The builtin that function-pool entry `func_idx` is, if Calls of it may be performed
    /// inline (`None` also for an index out of range).
    #[inline]
    pub fn inline_builtin(&self, func_idx: usize) -> Option<InlineBuiltin> {
        self.0.inline.get(func_idx).copied().flatten()
    }

    /// An argument of a Call read in place: a register or a constant (`None` for the special
    /// registers, the other kinds and indices out of range).
    #[inline]
    pub(crate) fn arg_ref<'a>(&'a self, regs: &'a [Value], w: i64) -> Option<&'a Value> {
        let a = Arg(w);
        let v = a.value();
        match a.kind()? {
            ArgKind::Register if v < BEGIN_SPECIAL_REG => regs.get(v as usize),
            ArgKind::ConstIdx => self.0.constants.get(v as usize),
            _ => None,
        }
    }

    /// An integer argument: an immediate, or a register or constant holding an int.
    #[inline]
    fn int_arg(&self, regs: &[Value], w: i64) -> Option<i64> {
        match Arg(w).kind()? {
            ArgKind::Immediate => Some(Arg(w).value()),
            _ => match self.arg_ref(regs, w)? {
                Value::Int(v) => Some(*v),
                _ => None,
            },
        }
    }

    /// The arguments of an `alloc_tensor` Call, if they have the usual kinds: a storage, an
    /// integer offset, a shape and a dtype (four arguments; a fifth, the scope, is left to the
    /// builtin).
    #[inline]
    pub fn alloc_tensor_args<'a>(
        &'a self,
        args: &[i64],
        regs: &'a [Value],
    ) -> Option<AllocTensorArgs<'a>> {
        let [storage, offset, shape, dtype] = *args else {
            return None;
        };
        let (Value::Storage(storage), Some(offset), Value::Shape(shape), Value::DType(dtype)) = (
            self.arg_ref(regs, storage)?,
            self.int_arg(regs, offset),
            self.arg_ref(regs, shape)?,
            self.arg_ref(regs, dtype)?,
        ) else {
            return None;
        };
        Some(AllocTensorArgs {
            storage,
            offset,
            shape,
            dtype: *dtype,
        })
    }

    /// The arguments of an `alloc_storage` Call, if they have the usual kinds: `%vm`, a shape,
    /// an integer device index, a dtype and optionally a scope string.
    #[inline]
    pub fn alloc_storage_args<'a>(
        &'a self,
        args: &[i64],
        regs: &'a [Value],
    ) -> Option<AllocStorageArgs<'a>> {
        let (vm, shape, device, dtype, scope) = match *args {
            [vm, shape, device, dtype] => (vm, shape, device, dtype, None),
            [vm, shape, device, dtype, scope] => (vm, shape, device, dtype, Some(scope)),
            _ => return None,
        };
        let scope = match scope {
            None => None,
            Some(w) => match self.arg_ref(regs, w)? {
                Value::Str(s) => Some(s.as_str()),
                _ => return None,
            },
        };
        let (true, Value::Shape(shape), Some(device_index), Value::DType(dtype)) = (
            vm == Arg::new(ArgKind::Register, VM_REGISTER).0,
            self.arg_ref(regs, shape)?,
            self.int_arg(regs, device),
            self.arg_ref(regs, dtype)?,
        ) else {
            return None;
        };
        Some(AllocStorageArgs {
            shape,
            device_index,
            dtype: *dtype,
            scope,
        })
    }
}

/// An `alloc_tensor` Call's arguments decoded ahead of time, for compiled code that keeps them
/// beside the Call: `storage register, offset, dtype, dims…` (the dtype packed as
/// `code | bits << 8 | lanes << 16`). Only the storage is read at run time; the rest are the
/// values the Call's constants and immediates hold, so
/// [`predecoded_alloc_tensor_args`] gives what [`VmRef::alloc_tensor_args`] gives.
///
/// `None` when the arguments are not the usual ones (a storage register, an immediate offset,
/// shape and dtype constants of those kinds): such a Call is decoded at run time as ever.
pub fn predecode_alloc_tensor(constants: &[Value], args: &[i64]) -> Option<Vec<i64>> {
    let [storage, offset, shape, dtype] = *args else {
        return None;
    };
    let constant = |w: i64| match (Arg(w).kind()?, Arg(w).value()) {
        (ArgKind::ConstIdx, v) => constants.get(usize::try_from(v).ok()?),
        _ => None,
    };
    let (Some(ArgKind::Register), Some(ArgKind::Immediate)) =
        (Arg(storage).kind(), Arg(offset).kind())
    else {
        return None;
    };
    let storage = Arg(storage).value();
    let (true, Value::Shape(shape), Value::DType(dtype)) = (
        storage < BEGIN_SPECIAL_REG,
        constant(shape)?,
        constant(dtype)?,
    ) else {
        return None;
    };
    let mut pre = vec![storage, Arg(offset).value(), i64::from(dtype.packed())];
    pre.extend_from_slice(shape);
    Some(pre)
}

/// The arguments of an `alloc_tensor` Call from its [`predecode_alloc_tensor`] words, if the
/// storage register holds a storage (`None` also for malformed words).
#[inline]
pub fn predecoded_alloc_tensor_args<'a>(
    pre: &'a [i64],
    regs: &'a [Value],
) -> Option<AllocTensorArgs<'a>> {
    let [storage, offset, dtype, ref shape @ ..] = *pre else {
        return None;
    };
    let Value::Storage(storage) = regs.get(usize::try_from(storage).ok()?)? else {
        return None;
    };
    Some(AllocTensorArgs {
        storage,
        offset,
        shape,
        dtype: DataType::from_packed(dtype as u32),
    })
}

/// `null_value` into register `kill` followed by `alloc_tensor(storage register, offset,
/// shape, dtype)` into register `dst` — the pair the memory planner puts before every kernel
/// call — when the killed register holds the only handle to a tensor object: the new tensor is
/// made in that object in place ([`Tensor::remake_in`](crate::Tensor::remake_in)) and moved to
/// `dst`, with no allocation and no reference count touched unless the storage changes.
///
/// The two Calls are the registered builtins (the caller checks) with the three registers
/// distinct; then the result is what performing them one after the other gives. `false`, with
/// the registers untouched, when this path does not apply (any register out of range, or not
/// as described, or a tensor that does not fit): the caller performs the Calls as usual, which
/// reports any error.
#[inline]
pub fn kill_and_alloc_tensor(
    regs: &mut [Value],
    kill: usize,
    dst: usize,
    storage: usize,
    offset: usize,
    shape: &[i64],
    dtype: DataType,
) -> bool {
    if dst == kill || dst == storage || dst >= regs.len() {
        return false;
    }
    let Ok([Value::Tensor(t), Value::Storage(s)]) = regs.get_disjoint_mut([kill, storage]) else {
        return false;
    };
    if !t.remake_in(s, offset, shape, dtype) {
        return false;
    }
    if matches!(regs[dst], Value::Null) {
        // The usual case, a register written once: nothing to release.
        regs.swap(dst, kill);
    } else {
        regs[dst] = std::mem::take(&mut regs[kill]);
    }
    true
}

/// A tensor handle released by a `null_value` Call, kept so that the next `alloc_tensor` makes
/// its tensor in it instead of allocating a handle: the memory planner's code kills the previous
/// intermediate right before allocating the next one, so a chain of kernel calls allocates no
/// handle after its first few.
///
/// A handle is kept only when nothing else holds it and its storage is held elsewhere too
/// ([`Tensor::into_spare`](crate::Tensor::into_spare)). Whoever holds a `Spare` calls [`clear`](Self::clear) before every
/// Call that is not an inline `null_value` or `alloc_tensor`, so a kept handle never outlives the
/// run of such Calls it was released in: no packed function, kernel, allocator or caller can
/// observe that it was kept (a storage it holds is released before anything else runs).
#[derive(Default)]
pub struct Spare(Option<SpareTensor>);

impl Spare {
    /// `null_value` into `slot`: the register's value is released, or kept if it is a tensor
    /// handle worth reusing.
    #[inline]
    pub fn kill(&mut self, slot: &mut Value) {
        if let Value::Tensor(t) = std::mem::take(slot)
            && let Some(t) = t.into_spare()
        {
            self.0 = Some(t);
        }
    }

    /// `alloc_tensor` on `a`, in the kept handle if there is one.
    #[inline]
    pub fn alloc_tensor(&mut self, a: &AllocTensorArgs) -> Result<crate::Tensor> {
        a.storage
            .alloc_tensor_reusing(self.0.take(), a.offset, a.shape, a.dtype)
    }

    /// Releases the kept handle, if any.
    #[inline]
    pub fn clear(&mut self) {
        if self.0.is_some() {
            self.0 = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Device, ShapeTuple};

    fn words(args: &[(ArgKind, i64)]) -> Vec<i64> {
        args.iter().map(|&(k, v)| Arg::new(k, v).0).collect()
    }

    /// The pre-decoded words give the arguments the run-time decoder reads from the constants.
    #[test]
    fn predecoded_alloc_tensor_args_are_the_constants() {
        let constants = [
            Value::Shape(ShapeTuple::new(vec![2, 3])),
            Value::DType(DataType::F32),
        ];
        let args = words(&[
            (ArgKind::Register, 1),
            (ArgKind::Immediate, 8),
            (ArgKind::ConstIdx, 0),
            (ArgKind::ConstIdx, 1),
        ]);
        let pre = predecode_alloc_tensor(&constants, &args).expect("the usual arguments");
        let storage = Storage::new(64, Device::cpu(0)).expect("64 bytes");
        let mut regs = vec![Value::Int(0), Value::Storage(storage)];
        let a = predecoded_alloc_tensor_args(&pre, &regs).expect("a storage in %1");
        assert_eq!(
            (a.offset, a.shape, a.dtype),
            (8, &[2i64, 3][..], DataType::F32)
        );
        // The storage is read at run time.
        regs[1] = Value::Int(3);
        assert!(predecoded_alloc_tensor_args(&pre, &regs).is_none());
        assert!(predecoded_alloc_tensor_args(&pre[..2], &regs).is_none());
    }

    /// The fused kill and allocation moves an unshared handle, made anew in place, and leaves
    /// every other case to the two Calls, with the registers untouched.
    #[test]
    fn kill_and_alloc_reuses_only_an_unshared_handle() {
        let storage = Storage::new(64, Device::cpu(0)).expect("64 bytes");
        let t = storage.alloc_tensor(0, &[4], DataType::F32).expect("fits");
        let object = t.object_address();
        let mut regs = vec![Value::Tensor(t), Value::Storage(storage), Value::Null];
        assert!(kill_and_alloc_tensor(
            &mut regs,
            0,
            2,
            1,
            16,
            &[2, 2],
            DataType::I32
        ));
        assert!(matches!(regs[0], Value::Null));
        let Value::Tensor(u) = &regs[2] else {
            panic!("a tensor in %2");
        };
        assert_eq!(u.object_address(), object);
        assert_eq!(
            (u.byte_offset(), u.shape(), u.dtype()),
            (16, &[2i64, 2][..], DataType::I32)
        );
        // Shared, too large, not a tensor, registers not distinct or out of range.
        regs.swap(0, 2);
        let held = regs[0].clone();
        assert!(!kill_and_alloc_tensor(
            &mut regs,
            0,
            2,
            1,
            0,
            &[1],
            DataType::F32
        ));
        drop(held);
        assert!(!kill_and_alloc_tensor(
            &mut regs,
            0,
            2,
            1,
            0,
            &[17],
            DataType::F32
        ));
        assert!(!kill_and_alloc_tensor(
            &mut regs,
            1,
            2,
            1,
            0,
            &[1],
            DataType::F32
        ));
        assert!(!kill_and_alloc_tensor(
            &mut regs,
            0,
            0,
            1,
            0,
            &[1],
            DataType::F32
        ));
        assert!(!kill_and_alloc_tensor(
            &mut regs,
            0,
            3,
            1,
            0,
            &[1],
            DataType::F32
        ));
        assert!(matches!(regs[0], Value::Tensor(_)) && matches!(regs[2], Value::Null));
        // Into a register that holds a value: the value is released.
        regs[2] = Value::Int(7);
        assert!(kill_and_alloc_tensor(
            &mut regs,
            0,
            2,
            1,
            0,
            &[1],
            DataType::F32
        ));
        assert!(matches!(regs[0], Value::Null) && matches!(regs[2], Value::Tensor(_)));
    }

    /// Arguments of other kinds are left to the run-time decoder.
    #[test]
    fn unusual_alloc_tensor_args_are_not_predecoded() {
        let constants = [
            Value::Shape(ShapeTuple::new(vec![4])),
            Value::DType(DataType::F32),
        ];
        let cases = [
            // The shape in a register.
            words(&[
                (ArgKind::Register, 1),
                (ArgKind::Immediate, 0),
                (ArgKind::Register, 2),
                (ArgKind::ConstIdx, 1),
            ]),
            // Shape and dtype swapped.
            words(&[
                (ArgKind::Register, 1),
                (ArgKind::Immediate, 0),
                (ArgKind::ConstIdx, 1),
                (ArgKind::ConstIdx, 0),
            ]),
            // A constant out of range.
            words(&[
                (ArgKind::Register, 1),
                (ArgKind::Immediate, 0),
                (ArgKind::ConstIdx, 0),
                (ArgKind::ConstIdx, 7),
            ]),
            // The storage in a special register.
            words(&[
                (ArgKind::Register, VM_REGISTER),
                (ArgKind::Immediate, 0),
                (ArgKind::ConstIdx, 0),
                (ArgKind::ConstIdx, 1),
            ]),
            // Three arguments.
            words(&[
                (ArgKind::Register, 1),
                (ArgKind::Immediate, 0),
                (ArgKind::ConstIdx, 0),
            ]),
        ];
        for args in cases {
            assert!(
                predecode_alloc_tensor(&constants, &args).is_none(),
                "{args:?}"
            );
        }
    }
}
