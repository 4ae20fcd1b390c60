//! `Executable`: the function table, constant pool and bytecode of a compiled Relax module
//! (TVM's `VMExecutable`), and the validation that makes running it safe.
//!
//! An `Executable` is immutable once built or loaded, and `Send + Sync`: many VMs share one
//! through an `Arc`. [`Executable::validate`] runs once (the builder and the loader call it) and
//! establishes the invariants the interpreter relies on instead of re-checking per instruction:
//!
//! - every function's instruction range is inside the code and every instruction in it decodes;
//! - every register an instruction names is below its function's register-file size or is
//!   `%void`/`%vm`; every constant and function index is in range;
//! - bytecode functions occupy disjoint instruction ranges;
//! - every jump lands inside its function, and each function ends with `Ret` or `Goto`, so the
//!   program counter never leaves the function it is in.

use crate::bytecode::{
    Arg, ArgKind, BEGIN_SPECIAL_REG, ExecWord, Index, Instruction, RegName, VM_REGISTER,
    VOID_REGISTER,
};
use crate::{Error, NameMap, Result, Value};

/// The largest register file a function may declare; a corrupt size beyond it is a load error
/// rather than a huge allocation.
pub const MAX_REGISTER_FILE_SIZE: i64 = 1 << 24;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum FuncKind {
    PackedFunc = 0,
    VMFunc = 1,
    VMTIRFunc = 2,
}

impl FuncKind {
    // On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn from_i32(v: i32) -> Option<FuncKind> {
        Some(match v {
            0 => FuncKind::PackedFunc,
            1 => FuncKind::VMFunc,
            2 => FuncKind::VMTIRFunc,
            _ => return None,
        })
    }
}

/// One entry of the function table (`VMFuncInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncInfo {
    pub kind: FuncKind,
    pub name: String,
    /// Half-open instruction range (meaningful for `VMFunc`).
    pub start_instr: Index,
    pub end_instr: Index,
    /// Number of parameters; −2 means "declared, not defined" (every packed function).
    pub num_args: Index,
    pub register_file_size: Index,
    pub param_names: Vec<String>,
}

impl FuncInfo {
    pub const UNDEFINED_ARGS: Index = -2;

    /// A declared-but-undefined function of `kind`.
    pub fn declared(kind: FuncKind, name: &str) -> FuncInfo {
        FuncInfo {
            kind,
            name: name.to_string(),
            start_instr: 0,
            end_instr: 0,
            num_args: FuncInfo::UNDEFINED_ARGS,
            register_file_size: 0,
            param_names: Vec::new(),
        }
    }
}

/// The hasher of hash maps keyed by what a module the user compiled names: SipHash with fixed
/// keys. There is no flooding to defend against, and a fixed hasher spares the first map of a
/// process (on an artifact-cache hit, one of these) the random keys — a `getrandom` system
/// call.
pub type FixedState = std::hash::BuildHasherDefault<std::hash::DefaultHasher>;

/// A compiled Relax module's bytecode, in TVM's layout.
#[derive(Clone, Debug, Default)]
pub struct Executable {
    pub func_table: Vec<FuncInfo>,
    pub func_map: NameMap<usize>,
    /// Int, Float, DType, Str, Shape and Tensor values.
    pub constants: Vec<Value>,
    /// Memory scope of some tensor constants, by constant index, in file order.
    pub memory_scopes: Vec<(i64, String)>,
    pub instr_offset: Vec<Index>,
    pub instr_data: Vec<ExecWord>,
}

impl Executable {
    /// Rebuilds `func_map` from `func_table` (later entries win, as in TVM's loader).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn rebuild_func_map(&mut self) {
        // A loop rather than `collect`, whose generic code would lie outside the hit path's
        // section.
        let mut map = NameMap::with_capacity(self.func_table.len());
        for (i, f) in self.func_table.iter().enumerate() {
            map.insert(crate::hit::copy_str(&f.name), i);
        }
        self.func_map = map;
    }

    pub fn func_index(&self, name: &str) -> Option<usize> {
        self.func_map.get(name).copied()
    }

    pub fn has_function(&self, name: &str) -> bool {
        self.func_map.contains_key(name)
    }

    /// The instruction at `pc`. Only valid on a validated executable for a pc inside a function.
    #[inline]
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn instruction(&self, pc: usize) -> Option<Instruction<'_>> {
        let start = usize::try_from(*self.instr_offset.get(pc)?).ok()?;
        Instruction::decode(self.instr_data.get(start..)?)
    }

    pub fn num_instructions(&self) -> usize {
        self.instr_offset.len()
    }

    /// Checks the invariants listed in the module docs; see there.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn validate(&self) -> Result<()> {
        let nfuncs = self.func_table.len() as i64;
        let nconsts = self.constants.len() as i64;
        let ninstrs = self.instr_offset.len() as i64;
        for (i, &off) in self.instr_offset.iter().enumerate() {
            if off < 0 || off as usize >= self.instr_data.len() {
                return Err(Error::load(format!(
                    "instruction {i} starts at word {off}, outside the {} code words",
                    self.instr_data.len()
                )));
            }
        }
        // Instruction ranges of bytecode functions must not overlap: TVM never emits that, and
        // it keeps validation linear in the size of the code.
        let mut ranges: Vec<(i64, i64, usize)> = Vec::with_capacity(self.func_table.len());
        for (i, f) in self.func_table.iter().enumerate() {
            if f.kind == FuncKind::VMFunc {
                ranges.push((f.start_instr, f.end_instr, i));
            }
        }
        ranges.sort_unstable();
        for w in ranges.windows(2) {
            if w[1].0 < w[0].1 {
                return Err(Error::load(format!(
                    "functions {} and {} have overlapping instruction ranges [{}, {}) and [{}, {})",
                    w[0].2, w[1].2, w[0].0, w[0].1, w[1].0, w[1].1
                )));
            }
        }
        for (fi, f) in self.func_table.iter().enumerate() {
            let bad = |msg: String| Error::load(format!("function {fi} `{}`: {msg}", f.name));
            match f.kind {
                FuncKind::PackedFunc => continue,
                FuncKind::VMTIRFunc => {
                    if f.num_args < 0 || f.register_file_size < f.num_args + 1 {
                        return Err(bad(format!(
                            "a compiled function needs register_file_size >= num_args + 1, got {} and {}",
                            f.register_file_size, f.num_args
                        )));
                    }
                    continue;
                }
                FuncKind::VMFunc => {}
            }
            if f.num_args < 0 {
                return Err(bad(format!(
                    "num_args is {} (the function is not defined)",
                    f.num_args
                )));
            }
            if !(f.num_args..=MAX_REGISTER_FILE_SIZE).contains(&f.register_file_size) {
                return Err(bad(format!(
                    "register_file_size {} is not in [num_args = {}, {MAX_REGISTER_FILE_SIZE}]",
                    f.register_file_size, f.num_args
                )));
            }
            if !f.param_names.is_empty() && f.param_names.len() as i64 != f.num_args {
                return Err(bad(format!(
                    "{} parameter names for {} parameters",
                    f.param_names.len(),
                    f.num_args
                )));
            }
            if !(0 <= f.start_instr && f.start_instr < f.end_instr && f.end_instr <= ninstrs) {
                return Err(bad(format!(
                    "instruction range [{}, {}) is not a non-empty range inside the {ninstrs} instructions",
                    f.start_instr, f.end_instr
                )));
            }
            let regs = f.register_file_size;
            // The test inline, the message out of line: the closure runs for every register of
            // every instruction, and inlined small it stays in the hit path's section.
            let check_reg = |pc: i64, r: RegName, what: &str| -> Result<()> {
                if (0..regs).contains(&r) || r == VOID_REGISTER || r == VM_REGISTER {
                    Ok(())
                } else {
                    Err(register_error(fi, f, pc, r, what))
                }
            };
            for pc in f.start_instr..f.end_instr {
                let inst = self.instruction(pc as usize).ok_or_else(|| {
                    bad(format!(
                        "instruction {pc} is malformed or runs past the end of the code"
                    ))
                })?;
                let in_func = |target: i64| (f.start_instr..f.end_instr).contains(&target);
                match inst {
                    Instruction::Call {
                        dst,
                        func_idx,
                        args,
                    } => {
                        check_reg(pc, dst, "destination")?;
                        if !(0..nfuncs).contains(&func_idx) {
                            return Err(bad(format!(
                                "instruction {pc} calls function index {func_idx}, but there are {nfuncs} functions"
                            )));
                        }
                        for &w in args {
                            let a = Arg(w);
                            let v = a.value();
                            match a.kind() {
                                Some(ArgKind::Register) => check_reg(pc, v, "argument")?,
                                Some(ArgKind::Immediate) => {}
                                Some(ArgKind::ConstIdx) if (0..nconsts).contains(&v) => {}
                                Some(ArgKind::FuncIdx) if (0..nfuncs).contains(&v) => {}
                                Some(ArgKind::ConstIdx) => {
                                    return Err(bad(format!(
                                        "instruction {pc} reads constant c[{v}], but there are {nconsts} constants"
                                    )));
                                }
                                Some(ArgKind::FuncIdx) => {
                                    return Err(bad(format!(
                                        "instruction {pc} names function f[{v}], but there are {nfuncs} functions"
                                    )));
                                }
                                None => {
                                    return Err(bad(format!(
                                        "instruction {pc} has an argument of unknown kind (word {w:#x})"
                                    )));
                                }
                            }
                        }
                    }
                    Instruction::Ret { result } => check_reg(pc, result, "result")?,
                    Instruction::Goto { pc_offset } => {
                        if pc_offset == 0 || !in_func(pc.saturating_add(pc_offset)) {
                            return Err(bad(format!(
                                "instruction {pc}: goto offset {pc_offset} leaves the function"
                            )));
                        }
                    }
                    Instruction::If { cond, false_offset } => {
                        check_reg(pc, cond, "condition")?;
                        if cond >= BEGIN_SPECIAL_REG && cond != VOID_REGISTER {
                            return Err(bad(format!(
                                "instruction {pc}: If reads the %vm register"
                            )));
                        }
                        if false_offset <= 1 || !in_func(pc.saturating_add(false_offset)) {
                            return Err(bad(format!(
                                "instruction {pc}: If false offset {false_offset} must be > 1 and stay inside the function"
                            )));
                        }
                    }
                }
            }
            let last = self
                .instruction(f.end_instr as usize - 1)
                .expect("decoded above");
            if !matches!(last, Instruction::Ret { .. } | Instruction::Goto { .. }) {
                return Err(bad(
                    "the last instruction is neither Ret nor Goto, so execution could run off the end"
                        .to_string(),
                ));
            }
        }
        for (idx, _) in &self.memory_scopes {
            if !(0..nconsts).contains(idx) {
                return Err(Error::load(format!(
                    "memory scope for constant {idx}, but there are {nconsts} constants"
                )));
            }
        }
        for (i, c) in self.constants.iter().enumerate() {
            if !matches!(
                c,
                Value::Int(_)
                    | Value::Float(_)
                    | Value::DType(_)
                    | Value::Str(_)
                    | Value::Shape(_)
                    | Value::Tensor(_)
            ) {
                return Err(Error::load(format!(
                    "constant {i} is a {}; the constant pool holds only int, float, DataType, string, shape and tensor",
                    c.type_name()
                )));
            }
        }
        Ok(())
    }
}

/// The error of a register outside function `fi`'s register file (`Executable::validate`).
#[cold]
#[inline(never)]
fn register_error(fi: usize, f: &FuncInfo, pc: i64, r: RegName, what: &str) -> Error {
    Error::load(format!(
        "function {fi} `{}`: instruction {pc}: {what} register {r} is outside the register file of size {}",
        f.name, f.register_file_size
    ))
}
