//! `ExecBuilder`: assembles an [`Executable`] instruction by instruction, with TVM's API and
//! checks (`src/relax/backend/vm/exec_builder.cc`).
//!
//! Functions are declared (packed functions implicitly, by the first call naming them), then each
//! VM function is emitted between [`ExecBuilder::emit_function`] and
//! [`ExecBuilder::end_function`]. Register numbers are free-form while building;
//! [`ExecBuilder::get`] renumbers them (Formalize), checks the program (CheckExecutable: no
//! register read before some earlier instruction wrote it, indexes in range, sane jump offsets)
//! and finally runs [`Executable::validate`].
//!
//! Misuse of the builder (defining a function twice, a non-register `dst`) is an
//! [`ErrorKind::Internal`](crate::ErrorKind::Internal) error, as TVM's `ICHECK`s are.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use crate::bytecode::{
    Arg, ArgKind, BEGIN_SPECIAL_REG, ExecWord, Index, Instruction, Opcode, RegName, VALUE_MAX,
    VALUE_MIN,
};
use crate::executable::{FuncInfo, FuncKind};
use crate::{Error, Executable, Result, Value};

/// Builds an [`Executable`]; see the module docs.
#[derive(Default)]
pub struct ExecBuilder {
    exec: Executable,
    /// Constant indexes by structural hash, for de-duplication.
    const_dedup: HashMap<u64, Vec<usize>>,
}

impl ExecBuilder {
    pub fn new() -> ExecBuilder {
        ExecBuilder::default()
    }

    /// The executable as built so far (not formalized or checked).
    pub fn exec(&self) -> &Executable {
        &self.exec
    }

    /// A register argument. Panics if `reg` does not fit in an argument word (a bug in the caller).
    pub fn r(reg: RegName) -> Arg {
        Arg::register(reg)
    }
    /// An immediate argument. Panics outside `VALUE_MIN..=VALUE_MAX`; use
    /// [`ExecBuilder::convert_constant`] for integers that may be larger.
    pub fn imm(value: i64) -> Arg {
        Arg::imm(value)
    }
    /// A constant-pool argument. Panics if `idx` does not fit in an argument word.
    pub fn c(idx: Index) -> Arg {
        Arg::const_idx(idx)
    }
    /// The `%void` register: as `dst`, discards the result; as an argument, reads as None.
    pub fn void() -> Arg {
        Arg::void()
    }
    /// The `%vm` register (TVM's `vm_state`).
    pub fn vm() -> Arg {
        Arg::vm()
    }
    /// A function-table argument naming an already declared function.
    pub fn f(&self, name: &str) -> Result<Arg> {
        self.exec
            .func_index(name)
            .map(|i| Arg::func_idx(i as i64))
            .ok_or_else(|| Error::internal(format!("Cannot find function {name}")))
    }

    /// Declares `name` as a function of `kind` unless it already is; declaring it again with
    /// another kind is an error. Returns its index in the function table.
    pub fn declare_function(&mut self, name: &str, kind: FuncKind) -> Result<usize> {
        if let Some(i) = self.exec.func_index(name) {
            let existing = self.exec.func_table[i].kind;
            if existing != kind {
                return Err(Error::internal(format!(
                    "Function {name} already declared as {existing:?}, not {kind:?}"
                )));
            }
            return Ok(i);
        }
        let i = self.exec.func_table.len();
        self.exec.func_table.push(FuncInfo::declared(kind, name));
        self.exec.func_map.insert(name.to_string(), i);
        Ok(i)
    }

    /// Starts the VM function `name` with `num_inputs` parameters, optionally named
    /// (`param_names` empty means unnamed; otherwise there must be one name per parameter).
    /// Its instructions are the ones emitted until [`ExecBuilder::end_function`].
    pub fn emit_function(
        &mut self,
        name: &str,
        num_inputs: i64,
        param_names: &[&str],
    ) -> Result<()> {
        self.emit_function_with(name, num_inputs, param_names, FuncKind::VMFunc, 0)
    }

    /// [`ExecBuilder::emit_function`] for any function kind, with an initial register-file size
    /// (a `VMTIRFunc` needs at least `num_inputs + 1`).
    pub fn emit_function_with(
        &mut self,
        name: &str,
        num_inputs: i64,
        param_names: &[&str],
        kind: FuncKind,
        init_register_size: i64,
    ) -> Result<()> {
        let i = self.declare_function(name, kind)?;
        let start = self.exec.instr_offset.len() as Index;
        let f = &mut self.exec.func_table[i];
        if f.num_args != FuncInfo::UNDEFINED_ARGS {
            return Err(Error::internal(format!("Function {name} already defined")));
        }
        if num_inputs < 0 {
            return Err(Error::internal(format!(
                "Function {name} defined with {num_inputs} arguments"
            )));
        }
        if !param_names.is_empty() && param_names.len() as i64 != num_inputs {
            return Err(Error::internal(format!(
                "Function {name} defined with {num_inputs} arguments, but the list of parameter \
                 names has {} names ({param_names:?})",
                param_names.len()
            )));
        }
        f.num_args = num_inputs;
        f.param_names = param_names.iter().map(|s| s.to_string()).collect();
        f.register_file_size = init_register_size;
        if kind == FuncKind::VMFunc {
            f.start_instr = start;
        }
        Ok(())
    }

    /// Ends the function `name`: its instructions are those emitted since it began.
    pub fn end_function(&mut self, name: &str) -> Result<()> {
        let end = self.exec.instr_offset.len() as Index;
        let i = self
            .exec
            .func_index(name)
            .ok_or_else(|| Error::internal(format!("EndFunction of undeclared function {name}")))?;
        let f = &mut self.exec.func_table[i];
        if f.end_instr != 0 {
            return Err(Error::internal(format!(
                "EndFunction can only be called once (function {name})"
            )));
        }
        if f.kind == FuncKind::VMFunc {
            f.end_instr = end;
        }
        Ok(())
    }

    fn push_instruction(&mut self, words: &[ExecWord]) {
        self.exec
            .instr_offset
            .push(self.exec.instr_data.len() as Index);
        self.exec.instr_data.extend_from_slice(words);
    }

    /// Emits `dst = func(args…)` where `func` is a function-table argument (see
    /// [`ExecBuilder::f`]). `dst` must be a register ([`ExecBuilder::void`] to discard).
    pub fn emit_call_func(&mut self, func: Arg, args: &[Arg], dst: Arg) -> Result<()> {
        if func.kind() != Some(ArgKind::FuncIdx) {
            return Err(Error::internal(format!(
                "emit_call: the callee {func:?} is not a function index"
            )));
        }
        if dst.kind() != Some(ArgKind::Register) {
            return Err(Error::internal(format!(
                "emit_call: the destination {dst:?} is not a register"
            )));
        }
        let mut words = vec![
            Opcode::Call as ExecWord,
            dst.value(),
            func.value(),
            args.len() as ExecWord,
        ];
        words.extend(args.iter().map(|a| a.0));
        self.push_instruction(&words);
        Ok(())
    }

    /// Emits `dst = name(args…)`, declaring `name` as a packed function if it is not declared.
    pub fn emit_call(&mut self, name: &str, args: &[Arg], dst: Arg) -> Result<()> {
        let i = match self.exec.func_index(name) {
            Some(i) => i,
            None => self.declare_function(name, FuncKind::PackedFunc)?,
        };
        self.emit_call_func(Arg::func_idx(i as i64), args, dst)
    }

    /// Emits `ret result`; `result` must be a register.
    pub fn emit_ret(&mut self, result: Arg) -> Result<()> {
        if result.kind() != Some(ArgKind::Register) {
            return Err(Error::internal(format!(
                "emit_ret: {result:?} is not a register"
            )));
        }
        self.push_instruction(&[Opcode::Ret as ExecWord, result.value()]);
        Ok(())
    }

    /// Emits `goto pc_offset` (relative to this instruction).
    pub fn emit_goto(&mut self, pc_offset: Index) {
        self.push_instruction(&[Opcode::Goto as ExecWord, pc_offset]);
    }

    /// Emits `If cond, false_offset`: falls through when `cond` is true, else jumps
    /// `false_offset` instructions ahead. `cond` must be a register.
    pub fn emit_if(&mut self, cond: Arg, false_offset: Index) -> Result<()> {
        if cond.kind() != Some(ArgKind::Register) {
            return Err(Error::internal(format!(
                "emit_if: the condition {cond:?} is not a register"
            )));
        }
        self.push_instruction(&[Opcode::If as ExecWord, cond.value(), false_offset]);
        Ok(())
    }

    /// The number of instructions emitted so far (the index the next one will get).
    pub fn num_instructions(&self) -> usize {
        self.exec.instr_offset.len()
    }

    /// Overwrites word `word` of instruction `instr` (word 0 is the opcode): how codegen
    /// back-patches the offsets of an `If` and a `Goto` once the branches are emitted, as TVM's
    /// `SetInstructionData` does.
    pub fn set_instruction_data(
        &mut self,
        instr: usize,
        word: usize,
        value: ExecWord,
    ) -> Result<()> {
        let slot = self
            .exec
            .instr_offset
            .get(instr)
            .and_then(|&off| usize::try_from(off).ok())
            .and_then(|off| off.checked_add(word))
            .filter(|&i| i < self.exec.instr_data.len())
            .ok_or_else(|| {
                Error::internal(format!(
                    "set_instruction_data: no word {word} in instruction {instr}"
                ))
            })?;
        self.exec.instr_data[slot] = value;
        Ok(())
    }

    /// An argument for a constant value: an immediate for an integer within
    /// `VALUE_MIN..=VALUE_MAX`, otherwise an index into the constant pool, where structurally
    /// equal values (same string, shape, dtype, float bits, or tensor dtype + shape + bytes)
    /// share one entry. Only what the binary format holds is accepted: ints, floats, dtypes,
    /// strings, shapes and tensors (TVM would take a bool here and then fail to save it).
    pub fn convert_constant(&mut self, value: impl Into<Value>) -> Result<Arg> {
        let value = value.into();
        if let Value::Int(v) = value
            && (VALUE_MIN..=VALUE_MAX).contains(&v)
        {
            return Ok(Arg::imm(v));
        }
        let hash = structural_hash(&value).ok_or_else(|| {
            Error::internal(format!(
                "a {} cannot be a constant: the constant pool holds only int, float, DataType, \
                 string, shape and tensor",
                value.type_name()
            ))
        })?;
        let candidates = self.const_dedup.entry(hash).or_default();
        if let Some(&i) = candidates
            .iter()
            .find(|&&i| structural_eq(&self.exec.constants[i], &value))
        {
            return Ok(Arg::const_idx(i as i64));
        }
        let i = self.exec.constants.len();
        candidates.push(i);
        self.exec.constants.push(value);
        Ok(Arg::const_idx(i as i64))
    }

    /// Records the memory scope of a tensor constant (`constant` is a constant-pool argument).
    pub fn save_memory_scope(&mut self, constant: Arg, scope: &str) -> Result<()> {
        if constant.kind() != Some(ArgKind::ConstIdx) {
            return Err(Error::internal(format!(
                "save_memory_scope: {constant:?} is not a constant index"
            )));
        }
        let idx = constant.value();
        match self.exec.memory_scopes.iter_mut().find(|(i, _)| *i == idx) {
            Some(entry) => entry.1 = scope.to_string(),
            None => self.exec.memory_scopes.push((idx, scope.to_string())),
        }
        Ok(())
    }

    /// Formalizes register numbers, checks the program and returns the validated executable.
    pub fn get(mut self) -> Result<Executable> {
        self.formalize();
        self.check()?;
        self.exec.validate()?;
        Ok(self.exec)
    }

    /// TVM's `Formalize`: in each VM function, renumbers the registers that calls write, in
    /// order of first appearance as a destination, starting at `num_args`; rewrites reads of
    /// already renumbered registers; sets `register_file_size`. Parameters and the special
    /// registers keep their numbers.
    fn formalize(&mut self) {
        let exec = &mut self.exec;
        for f in exec.func_table.iter_mut() {
            if f.kind != FuncKind::VMFunc {
                continue;
            }
            let num_inputs = f.num_args;
            let renumbered = |r: RegName| (num_inputs..BEGIN_SPECIAL_REG).contains(&r);
            let mut next = num_inputs;
            let mut map: HashMap<RegName, RegName> = HashMap::new();
            let n = exec.instr_offset.len() as Index;
            for pc in f.start_instr.max(0)..f.end_instr.min(n) {
                let Ok(off) = usize::try_from(exec.instr_offset[pc as usize]) else {
                    continue;
                };
                let len = exec.instr_data.len();
                let words = &mut exec.instr_data[off.min(len)..];
                let nargs = match Instruction::decode(words) {
                    Some(Instruction::Call { args, .. }) => args.len(),
                    Some(Instruction::Ret { .. } | Instruction::If { .. }) => {
                        if let Some(&r) = map.get(&words[1]) {
                            words[1] = r;
                        }
                        continue;
                    }
                    Some(Instruction::Goto { .. }) | None => continue,
                };
                for w in &mut words[4..4 + nargs] {
                    let a = Arg(*w);
                    if a.kind() == Some(ArgKind::Register)
                        && renumbered(a.value())
                        && let Some(&r) = map.get(&a.value())
                    {
                        *w = Arg::register(r).0;
                    }
                }
                let dst = words[1];
                if renumbered(dst) {
                    words[1] = *map.entry(dst).or_insert_with(|| {
                        next += 1;
                        next - 1
                    });
                }
            }
            f.register_file_size = next;
        }
    }

    /// TVM's `CheckExecutable`; errors carry an `as_text` dump, as TVM's do.
    fn check(&self) -> Result<()> {
        let exec = &self.exec;
        let fail = |msg: String| Error::internal(format!("{msg}. Dump:\n{}", exec.as_text()));
        let nconsts = exec.constants.len() as i64;
        let nfuncs = exec.func_table.len() as i64;
        for f in &exec.func_table {
            match f.kind {
                FuncKind::PackedFunc => continue,
                FuncKind::VMTIRFunc => {
                    if f.register_file_size < f.num_args.saturating_add(1) {
                        return Err(fail(format!(
                            "Function {} do not meet register file constraint",
                            f.name
                        )));
                    }
                    continue;
                }
                FuncKind::VMFunc => {}
            }
            if f.start_instr >= f.end_instr {
                return Err(fail(format!(
                    "Function {} EndFunction has not be been called",
                    f.name
                )));
            }
            let num_inputs = f.num_args;
            let mut defined: HashSet<RegName> = HashSet::new();
            let check_arg = |a: Arg, defined: &HashSet<RegName>| -> Result<()> {
                let v = a.value();
                match a.kind() {
                    Some(ArgKind::Register)
                        if v < BEGIN_SPECIAL_REG && v >= num_inputs && !defined.contains(&v) =>
                    {
                        return Err(fail(format!(
                            "register r({v}) in VM function \"{}\" is used as input while it \
                             is never defined as a destination",
                            f.name
                        )));
                    }
                    Some(ArgKind::ConstIdx) if v >= nconsts => {
                        return Err(fail(format!(
                            "Constant index {v} exceed size of constant pool"
                        )));
                    }
                    Some(ArgKind::FuncIdx) if v >= nfuncs => {
                        return Err(fail(format!("Func index {v} exceed size of fun_table")));
                    }
                    _ => {}
                }
                Ok(())
            };
            for pc in f.start_instr..f.end_instr {
                let inst = usize::try_from(pc)
                    .ok()
                    .and_then(|pc| exec.instruction(pc))
                    .ok_or_else(|| fail(format!("instruction {pc} of {} is malformed", f.name)))?;
                match inst {
                    Instruction::Call {
                        dst,
                        func_idx,
                        args,
                    } => {
                        if !(0..nfuncs).contains(&func_idx) {
                            return Err(fail(format!(
                                "Func index {func_idx} exceed size of fun_table"
                            )));
                        }
                        for &w in args {
                            check_arg(Arg(w), &defined)?;
                        }
                        if dst != crate::bytecode::VOID_REGISTER {
                            defined.insert(dst);
                        }
                    }
                    Instruction::Ret { result } => check_arg(Arg(result), &defined)?,
                    Instruction::Goto { pc_offset } => {
                        if pc_offset == 0 {
                            return Err(fail(format!(
                                "instruction {pc} of {}: goto offset must not be 0",
                                f.name
                            )));
                        }
                    }
                    Instruction::If { cond, false_offset } => {
                        if false_offset <= 1 {
                            return Err(fail(format!(
                                "instruction {pc} of {}: If false offset {false_offset} must be > 1",
                                f.name
                            )));
                        }
                        check_arg(Arg(cond), &defined)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A hash of the constant-pool value that agrees with [`structural_eq`], or `None` for a value
/// the pool cannot hold.
fn structural_hash(v: &Value) -> Option<u64> {
    let mut h = DefaultHasher::new();
    match v {
        Value::Int(x) => (0u8, x).hash(&mut h),
        Value::Float(x) => (1u8, x.to_bits()).hash(&mut h),
        Value::DType(d) => (2u8, d).hash(&mut h),
        Value::Str(s) => (3u8, s.as_str()).hash(&mut h),
        Value::Shape(s) => (4u8, s.dims()).hash(&mut h),
        // A fixed-size sample of the bytes: hashing is then independent of the size of the
        // weights, and equal tensors still hash equal; `structural_eq` settles collisions.
        Value::Tensor(t) => (5u8, t.dtype(), t.shape(), t.sample_bytes(256)).hash(&mut h),
        _ => return None,
    }
    Some(h.finish())
}

/// TVM's structural equality on constant-pool values; floats compare by bits.
fn structural_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::DType(x), Value::DType(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Shape(x), Value::Shape(y)) => x == y,
        (Value::Tensor(x), Value::Tensor(y)) => x.content_eq(y),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DataType, Tensor};

    type B = ExecBuilder;

    /// `test_vm_formalize`: the same program with registers 100/50 and 2/3.
    fn add_twice(r1: i64, r2: i64) -> Executable {
        let mut ib = ExecBuilder::new();
        ib.emit_function("main", 2, &["a", "b"]).unwrap();
        ib.emit_call("test.vm.add", &[B::r(0), B::r(1)], B::r(r1))
            .unwrap();
        ib.emit_call("test.vm.add", &[B::r(r1), B::r(r1)], B::r(r2))
            .unwrap();
        ib.emit_ret(B::r(r2)).unwrap();
        ib.end_function("main").unwrap();
        ib.get().unwrap()
    }

    #[test]
    fn formalize_renumbers_registers() {
        let a = add_twice(100, 50);
        let b = add_twice(2, 3);
        assert_eq!(a.as_text(), b.as_text());
        assert_eq!(a.instr_data, b.instr_data);
        assert_eq!(a.func_table[0].register_file_size, 4);
        assert_eq!(
            a.as_text(),
            "@main:\n  call  test.vm.add      in: %0, %1       dst: %2\n  call  test.vm.add      \
             in: %2, %2       dst: %3\n  ret   %3\n\n@test.vm.add packed_func;\n\n"
        );
        // The verified encoding in the reference, §1.3.
        assert_eq!(&a.instr_data[..12], &[1, 2, 1, 2, 0, 1, 1, 3, 1, 2, 2, 2]);
    }

    /// The reference's ExecBuilder example (§2.4, example 1), byte for byte.
    #[test]
    fn builds_tvm_example_program() {
        let mut ib = ExecBuilder::new();
        ib.emit_function("main", 3, &[]).unwrap();
        ib.emit_if(B::r(0), 3).unwrap();
        ib.emit_call("test.vm.add", &[B::r(1), B::r(2)], B::r(3))
            .unwrap();
        ib.emit_goto(2);
        ib.emit_call("test.vm.mul", &[B::r(1), B::r(2)], B::r(3))
            .unwrap();
        ib.emit_ret(B::r(3)).unwrap();
        ib.end_function("main").unwrap();

        ib.emit_function("f2", 1, &["x"]).unwrap();
        let global = ib.convert_constant("global").unwrap();
        let size = ib.convert_constant(Value::shape(vec![24])).unwrap();
        let zero = ib.convert_constant(0i64).unwrap();
        let f32 = ib.convert_constant(DataType::F32).unwrap();
        ib.emit_call(
            "vm.builtin.alloc_storage",
            &[B::vm(), size, zero, f32, global],
            B::r(10),
        )
        .unwrap();
        let shape = ib.convert_constant(Value::shape(vec![4, 6])).unwrap();
        ib.emit_call(
            "vm.builtin.alloc_tensor",
            &[B::r(10), B::imm(-5), shape, f32],
            B::r(11),
        )
        .unwrap();
        let main = ib.f("main").unwrap();
        ib.emit_call("vm.builtin.make_closure", &[main, B::r(0)], B::r(12))
            .unwrap();
        ib.emit_call("test.vm.add", &[B::r(0), global], B::void())
            .unwrap();
        ib.emit_ret(B::r(11)).unwrap();
        ib.end_function("f2").unwrap();
        let exec = ib.get().unwrap();
        assert_eq!(
            exec.as_text(),
            "@main:
  If    %0, 3
  call  test.vm.add      in: %1, %2       dst: %3
  goto  2
  call  test.vm.mul      in: %1, %2       dst: %3
  ret   %3

@test.vm.add packed_func;

@test.vm.mul packed_func;

@f2:
  call  vm.builtin.alloc_storage in: %vm, c[1], i0, c[2], c[0] dst: %1
  call  vm.builtin.alloc_tensor in: %1, i-5, c[3], c[2] dst: %2
  call  vm.builtin.make_closure in: f[main], %0  dst: %3
  call  test.vm.add      in: %0, c[0]     dst: %void
  ret   %2

@vm.builtin.alloc_storage packed_func;

@vm.builtin.alloc_tensor packed_func;

@vm.builtin.make_closure packed_func;

"
        );
        let bytes = exec.save_to_bytes().unwrap();
        let back = Executable::load_from_bytes(&bytes).unwrap();
        assert_eq!(back.as_text(), exec.as_text());
        assert_eq!(back.save_to_bytes().unwrap(), bytes);
    }

    /// `test_emit_cache`: equal strings, shapes, tensors, dtypes and floats share one entry.
    #[test]
    fn constants_are_deduplicated() {
        let mut ib = ExecBuilder::new();
        let t = |v: f32| Tensor::from_slice(&[2], &[v, 2.0f32]).unwrap();
        let pairs: Vec<(Value, Value)> = vec![
            (Value::str("a"), Value::str("a")),
            (Value::shape(vec![1, 2]), Value::shape(vec![1, 2])),
            (Value::Tensor(t(1.0)), Value::Tensor(t(1.0))),
            (Value::DType(DataType::I8), Value::DType(DataType::I8)),
            (Value::Float(0.5), Value::Float(0.5)),
            (Value::Int(1 << 60), Value::Int(1 << 60)),
        ];
        for (a, b) in pairs {
            let (x, y) = (
                ib.convert_constant(a).unwrap(),
                ib.convert_constant(b).unwrap(),
            );
            assert_eq!(x, y);
            assert_eq!(x.kind(), Some(ArgKind::ConstIdx));
        }
        assert_eq!(ib.exec().constants.len(), 6);
        let other = ib.convert_constant(Value::shape(vec![2, 1])).unwrap();
        assert_eq!(other, B::c(6));
        let other = ib.convert_constant(Value::Tensor(t(3.0))).unwrap();
        assert_eq!(other, B::c(7));
        let other = ib
            .convert_constant(Value::Tensor(
                Tensor::from_slice(&[1, 2], &[1.0f32, 2.0]).unwrap(),
            ))
            .unwrap();
        assert_eq!(other, B::c(8));
        assert_eq!(ib.convert_constant(-5i64).unwrap(), B::imm(-5));
        assert_eq!(
            ib.convert_constant(VALUE_MAX + 1).unwrap().kind(),
            Some(ArgKind::ConstIdx)
        );
        assert!(ib.convert_constant(true).is_err());
        assert!(ib.convert_constant(Value::Null).is_err());
    }

    /// `test_vm_checker`: reading r(2) before anything writes it fails `get()`.
    #[test]
    fn checker_rejects_undefined_registers() {
        let mut ib = ExecBuilder::new();
        ib.emit_function("func0", 2, &[]).unwrap();
        ib.emit_call("test.vm.add", &[B::r(0), B::r(2)], B::r(2))
            .unwrap();
        ib.emit_ret(B::r(2)).unwrap();
        ib.end_function("func0").unwrap();
        let err = ib.get().unwrap_err();
        assert!(
            err.message().starts_with(
                "register r(2) in VM function \"func0\" is used as input while it is never \
                 defined as a destination. Dump:\n@func0:\n"
            ),
            "{err}"
        );
    }

    #[test]
    fn builder_misuse_is_an_error() {
        let mut ib = ExecBuilder::new();
        ib.emit_function("f", 1, &[]).unwrap();
        assert!(ib.emit_function("f", 1, &[]).is_err());
        assert!(ib.emit_function("g", 2, &["a"]).is_err());
        assert!(ib.emit_ret(B::imm(1)).is_err());
        assert!(ib.emit_if(B::c(0), 3).is_err());
        assert!(ib.emit_call("h", &[], B::imm(0)).is_err());
        assert!(ib.emit_call_func(B::r(0), &[], B::void()).is_err());
        assert!(ib.f("nope").is_err());
        assert!(ib.declare_function("h", FuncKind::VMFunc).is_err());
        // A function whose end_function was never called.
        let err = ib.get().unwrap_err();
        assert!(err.message().contains("EndFunction"), "{err}");

        let mut ib = ExecBuilder::new();
        ib.emit_function("f", 0, &[]).unwrap();
        ib.emit_goto(0);
        ib.end_function("f").unwrap();
        assert!(ib.end_function("f").is_err());
        assert!(ib.get().unwrap_err().message().contains("goto"));
    }

    #[test]
    fn memory_scopes_are_saved() {
        let mut ib = ExecBuilder::new();
        let c = ib
            .convert_constant(Value::Tensor(Tensor::scalar(1.0f32)))
            .unwrap();
        ib.save_memory_scope(c, "global.texture").unwrap();
        ib.save_memory_scope(c, "global").unwrap();
        assert!(ib.save_memory_scope(B::r(0), "global").is_err());
        let exec = ib.get().unwrap();
        assert_eq!(exec.memory_scopes, vec![(0, "global".to_string())]);
        let back = Executable::load_from_bytes(&exec.save_to_bytes().unwrap()).unwrap();
        assert_eq!(back.memory_scopes, exec.memory_scopes);
    }
}
