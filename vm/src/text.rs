//! The three printed forms of an [`Executable`], byte for byte as TVM 0.27 prints them:
//! `as_text()` (the bytecode listing), `as_python()` (an `rx.Builder` script) and `stats()`.
//!
//! TVM pads with `std::setw`, which counts bytes and never truncates; [`pad`] does the same.
//! The printers never panic: an executable that was not validated (say, one a builder is still
//! assembling) prints malformed instructions and argument words as `<…>` placeholders where
//! TVM would abort.

use std::fmt::Write as _;

use crate::bytecode::{
    Arg, ArgKind, ExecWord, Index, Instruction, RegName, VM_REGISTER, VOID_REGISTER,
};
use crate::executable::FuncKind;
use crate::{Error, Executable, Result, Value};

/// `s` left-aligned in a field of at least `width` bytes (`std::setw(width) << std::left`).
fn pad(out: &mut String, s: &str, width: usize) {
    out.push_str(s);
    for _ in s.len()..width {
        out.push(' ');
    }
}

/// `RegNameToStr`.
fn reg_name(reg: RegName) -> String {
    match reg {
        VOID_REGISTER => "%void".to_string(),
        VM_REGISTER => "%vm".to_string(),
        r => format!("%{r}"),
    }
}

impl Executable {
    /// The instructions of function `func` that exist, as `(pc, instruction)`; `None` for an
    /// instruction that does not decode.
    fn func_instructions(
        &self,
        start: Index,
        end: Index,
    ) -> impl Iterator<Item = (i64, Option<Instruction<'_>>)> {
        let n = self.instr_offset.len() as i64;
        (start.max(0)..end.min(n)).map(|pc| (pc, self.instruction(pc as usize)))
    }

    fn func_name_or(&self, index: Index, unknown: impl FnOnce() -> String) -> String {
        match usize::try_from(index)
            .ok()
            .and_then(|i| self.func_table.get(i))
        {
            Some(f) => f.name.clone(),
            None => unknown(),
        }
    }

    /// The bytecode listing TVM's `VMExecutable::AsText` prints, e.g.
    /// `  call  vm.builtin.alloc_storage in: %vm, c[3], i0 dst: %2`.
    pub fn as_text(&self) -> String {
        let func_name =
            |index: Index| self.func_name_or(index, || format!("unknown_func_index({index})"));
        let arg_str = |w: ExecWord| {
            let a = Arg(w);
            match a.kind() {
                Some(ArgKind::Register) => reg_name(a.value()),
                Some(ArgKind::Immediate) => format!("i{}", a.value()),
                Some(ArgKind::ConstIdx) => format!("c[{}]", a.value()),
                Some(ArgKind::FuncIdx) => format!("f[{}]", func_name(a.value())),
                None => format!("<bad arg word {w:#x}>"),
            }
        };
        let mut os = String::new();
        for f in &self.func_table {
            match f.kind {
                FuncKind::PackedFunc => {
                    let _ = write!(os, "@{} packed_func;\n\n", f.name);
                    continue;
                }
                FuncKind::VMTIRFunc => {
                    let _ = write!(os, "@{} num_inputs={} vm_tir_func;\n\n", f.name, f.num_args);
                    continue;
                }
                FuncKind::VMFunc => {}
            }
            let _ = writeln!(os, "@{}:", f.name);
            for (pc, inst) in self.func_instructions(f.start_instr, f.end_instr) {
                os.push_str("  ");
                match inst {
                    Some(Instruction::Call {
                        dst,
                        func_idx,
                        args,
                    }) => {
                        pad(&mut os, "call", 6);
                        pad(&mut os, &func_name(func_idx), 16);
                        os.push_str(" in: ");
                        let joined: Vec<String> = args.iter().map(|&w| arg_str(w)).collect();
                        pad(&mut os, &joined.join(", "), 12);
                        let _ = writeln!(os, " dst: {}", reg_name(dst));
                    }
                    Some(Instruction::Ret { result }) => {
                        pad(&mut os, "ret ", 6);
                        let _ = writeln!(os, "{}", reg_name(result));
                    }
                    Some(Instruction::Goto { pc_offset }) => {
                        pad(&mut os, "goto", 6);
                        let _ = writeln!(os, "{pc_offset}");
                    }
                    Some(Instruction::If { cond, false_offset }) => {
                        pad(&mut os, "If", 6);
                        let _ = writeln!(os, "{}, {false_offset}", reg_name(cond));
                    }
                    None => {
                        let _ = writeln!(os, "<malformed instruction {pc}>");
                    }
                }
            }
            os.push('\n');
        }
        os
    }

    /// The `rx.Builder` script TVM's `VMExecutable::AsPython` prints.
    ///
    /// TVM's printer has two quirks reproduced here: a `%void` *argument* prints as its raw
    /// register number, `ib.r(18014398509481984)` (only `%vm` gets a name, `ib.r(vm)`), and
    /// `ret`/`If`/`dst` registers always print as raw numbers. The script therefore does not
    /// run as-is where `%void` is passed.
    pub fn as_python(&self) -> String {
        let func_name = |index: Index| match usize::try_from(index)
            .ok()
            .and_then(|i| self.func_table.get(i))
        {
            Some(f) => format!("\"{}\"", f.name),
            None => format!("ib.unknown_func_index({index})"),
        };
        let arg_str = |w: ExecWord| {
            let a = Arg(w);
            match a.kind() {
                Some(ArgKind::Register) if a.value() == VM_REGISTER => "ib.r(vm)".to_string(),
                Some(ArgKind::Register) => format!("ib.r({})", a.value()),
                Some(ArgKind::Immediate) => format!("ib.imm({})", a.value()),
                Some(ArgKind::ConstIdx) => format!("ib.c({})", a.value()),
                Some(ArgKind::FuncIdx) => format!("ib.f({})", func_name(a.value())),
                None => format!("<bad arg word {w:#x}>"),
            }
        };
        let mut os = String::from("ib = rx.Builder()\n");
        for f in &self.func_table {
            if f.kind != FuncKind::VMFunc {
                continue;
            }
            let _ = writeln!(
                os,
                "with ib.function(\"{}\", num_inputs={}):",
                f.name, f.num_args
            );
            for (pc, inst) in self.func_instructions(f.start_instr, f.end_instr) {
                match inst {
                    Some(Instruction::Call {
                        dst,
                        func_idx,
                        args,
                    }) => {
                        let joined: Vec<String> = args.iter().map(|&w| arg_str(w)).collect();
                        let _ = write!(
                            os,
                            "    ib.emit_call({}, args=[{}]",
                            func_name(func_idx),
                            joined.join(", ")
                        );
                        if dst != VOID_REGISTER {
                            let _ = write!(os, ", dst=ib.r({dst})");
                        }
                        os.push_str(")\n");
                    }
                    Some(Instruction::Ret { result }) => {
                        let _ = writeln!(os, "    ib.emit_ret(ib.r({result}))");
                    }
                    Some(Instruction::Goto { pc_offset }) => {
                        let _ = writeln!(os, "    ib.emit_goto({pc_offset})");
                    }
                    Some(Instruction::If { cond, false_offset }) => {
                        let _ = writeln!(os, "    ib.emit_if(ib.r({cond}), {false_offset})");
                    }
                    None => {
                        let _ = writeln!(os, "    <malformed instruction {pc}>");
                    }
                }
            }
        }
        os
    }

    /// The summary TVM's `VMExecutable::Stats` prints: the constant pool and the function names.
    ///
    /// Like TVM, it fails on a float constant ("Unsupported constant pool type float"). TVM trims
    /// each trailing `", "` with `seekp(-2)`, which moves the write position back without
    /// truncating; [`SeekBuf`] does the same, so the oddities follow too (an empty shape constant
    /// prints as `shapetupl], `).
    pub fn stats(&self) -> Result<String> {
        let mut oss = SeekBuf::default();
        oss.write("Relax VM executable statistics:\n");
        oss.write(&format!("  Constant pool (# {}): [", self.constants.len()));
        for c in &self.constants {
            match c {
                Value::Tensor(t) => {
                    if t.shape().is_empty() {
                        oss.write("scalar, ");
                        continue;
                    }
                    oss.write("[");
                    for d in t.shape() {
                        oss.write(&format!("{d}, "));
                    }
                    oss.seek_back(2);
                    oss.write("], ");
                }
                Value::Shape(s) => {
                    oss.write("shapetuple[");
                    for d in s.dims() {
                        oss.write(&format!("{d}, "));
                    }
                    oss.seek_back(2);
                    oss.write("], ");
                }
                Value::Str(s) => oss.write(&format!("\"{}\", ", s.as_str())),
                Value::Int(v) => oss.write(&format!("{v}, ")),
                Value::DType(d) => oss.write(&format!("{d}, ")),
                other => {
                    return Err(Error::internal(format!(
                        "Unsupported constant pool type {}",
                        other.type_name()
                    )));
                }
            }
        }
        if !self.constants.is_empty() {
            oss.seek_back(2);
        }
        oss.write("]\n");
        oss.write(&format!("  Globals (#{}): [", self.func_table.len()));
        for f in &self.func_table {
            oss.write(&format!("{}, ", f.name));
        }
        if !self.func_map.is_empty() {
            oss.seek_back(2);
        }
        oss.write("]\n");
        Ok(oss.finish())
    }
}

/// A byte buffer with a write position that can move back, like `std::ostringstream` with
/// `seekp`: writes overwrite from the position and extend the buffer past its end.
#[derive(Default)]
struct SeekBuf {
    buf: Vec<u8>,
    pos: usize,
}

impl SeekBuf {
    fn write(&mut self, s: &str) {
        for &b in s.as_bytes() {
            if self.pos < self.buf.len() {
                self.buf[self.pos] = b;
            } else {
                self.buf.push(b);
            }
            self.pos += 1;
        }
    }
    fn seek_back(&mut self, n: usize) {
        self.pos = self.pos.saturating_sub(n);
    }
    fn finish(self) -> String {
        // Overwriting can split a multi-byte character only where TVM would print broken UTF-8.
        String::from_utf8_lossy(&self.buf).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DataType, Tensor};

    #[test]
    fn stats_matches_tvm_including_seekp_quirks() {
        let mut exec = Executable {
            constants: vec![
                Value::DType(DataType::F32),
                Value::str("s"),
                Value::DType(DataType::I8),
                Value::shape(vec![1, 2]),
                Value::shape(Vec::<i64>::new()),
                Value::Int(7),
                Value::Tensor(Tensor::zeros(&[2, 3], DataType::F32).unwrap()),
                Value::Tensor(Tensor::scalar(1.0f32)),
            ],
            func_table: vec![
                crate::FuncInfo::declared(FuncKind::VMFunc, "main"),
                crate::FuncInfo::declared(FuncKind::PackedFunc, "vm.builtin.copy"),
            ],
            ..Executable::default()
        };
        exec.rebuild_func_map();
        assert_eq!(
            exec.stats().unwrap(),
            "Relax VM executable statistics:\n  Constant pool (# 8): [float32, \"s\", int8, \
             shapetuple[1, 2], shapetupl], 7, [2, 3], scalar]\n  Globals (#2): [main, vm.builtin.copy]\n"
        );
        assert_eq!(
            Executable::default().stats().unwrap(),
            "Relax VM executable statistics:\n  Constant pool (# 0): []\n  Globals (#0): []\n"
        );
        exec.constants.push(Value::Float(1.5));
        let err = exec.stats().unwrap_err();
        assert_eq!(err.message(), "Unsupported constant pool type float");
    }

    #[test]
    fn padding_counts_bytes_and_never_truncates() {
        let mut s = String::new();
        pad(&mut s, "é", 4);
        assert_eq!(s, "é  ");
        let mut s = String::new();
        pad(&mut s, "vm.builtin.alloc_storage", 16);
        assert_eq!(s, "vm.builtin.alloc_storage");
    }
}
