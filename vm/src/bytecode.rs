//! The Relax VM bytecode: TVM's four opcodes and its 64-bit argument words.
//!
//! An instruction is a run of `i64` words in `Executable::instr_data`:
//!
//! | opcode | words |
//! |---|---|
//! | Call (1) | `1, dst, func_idx, num_args, arg…` |
//! | Ret (2)  | `2, result` |
//! | Goto (3) | `3, pc_offset` |
//! | If (4)   | `4, cond, false_offset` |
//!
//! An argument word has its kind in bits 63..56 and a sign-extended 56-bit value below.

use std::fmt;

pub type ExecWord = i64;
pub type RegName = i64;
pub type Index = i64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i64)]
pub enum Opcode {
    Call = 1,
    Ret = 2,
    Goto = 3,
    If = 4,
}

impl Opcode {
    pub fn from_word(w: ExecWord) -> Option<Opcode> {
        Some(match w {
            1 => Opcode::Call,
            2 => Opcode::Ret,
            3 => Opcode::Goto,
            4 => Opcode::If,
            _ => return None,
        })
    }
}

/// First special register: registers at or above it are not in the register file.
pub const BEGIN_SPECIAL_REG: RegName = 1 << 54;
/// Reads as None; a Call writing to it discards its result.
pub const VOID_REGISTER: RegName = BEGIN_SPECIAL_REG;
/// Reads as the running VM (`%vm`).
pub const VM_REGISTER: RegName = BEGIN_SPECIAL_REG + 1;

pub const KIND_BITS: u32 = 8;
pub const VALUE_BITS: u32 = 56;
pub const VALUE_MASK: i64 = (1 << VALUE_BITS) - 1;
/// Largest value an argument word holds.
pub const VALUE_MAX: i64 = (1 << (VALUE_BITS - 1)) - 1;
/// Smallest value an argument word holds (symmetric: −2^55 is excluded, as in TVM).
pub const VALUE_MIN: i64 = -VALUE_MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ArgKind {
    Register = 0,
    Immediate = 1,
    ConstIdx = 2,
    FuncIdx = 3,
}

/// One encoded argument word.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Arg(pub ExecWord);

impl Arg {
    /// Encodes `value` of `kind`. Panics if `value` is outside `VALUE_MIN..=VALUE_MAX`: callers
    /// (the `ExecBuilder`) check the range first and spill large integers to constants.
    pub fn new(kind: ArgKind, value: i64) -> Arg {
        assert!(
            (VALUE_MIN..=VALUE_MAX).contains(&value),
            "argument value {value} out of range"
        );
        Arg(((kind as i64) << VALUE_BITS) | (value & VALUE_MASK))
    }
    pub fn register(reg: RegName) -> Arg {
        Arg::new(ArgKind::Register, reg)
    }
    pub fn imm(value: i64) -> Arg {
        Arg::new(ArgKind::Immediate, value)
    }
    pub fn const_idx(idx: Index) -> Arg {
        Arg::new(ArgKind::ConstIdx, idx)
    }
    pub fn func_idx(idx: Index) -> Arg {
        Arg::new(ArgKind::FuncIdx, idx)
    }
    pub fn void() -> Arg {
        Arg::register(VOID_REGISTER)
    }
    pub fn vm() -> Arg {
        Arg::register(VM_REGISTER)
    }
    /// The kind byte, or `None` if it is not one of the four kinds.
    #[inline]
    pub fn kind(self) -> Option<ArgKind> {
        Some(match (self.0 as u64 >> VALUE_BITS) as u8 {
            0 => ArgKind::Register,
            1 => ArgKind::Immediate,
            2 => ArgKind::ConstIdx,
            3 => ArgKind::FuncIdx,
            _ => return None,
        })
    }
    /// The sign-extended value.
    #[inline]
    pub fn value(self) -> i64 {
        ((self.0 & VALUE_MASK) << KIND_BITS) >> KIND_BITS
    }
}

impl fmt::Debug for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            Some(ArgKind::Register) => match self.value() {
                VOID_REGISTER => f.write_str("%void"),
                VM_REGISTER => f.write_str("%vm"),
                r => write!(f, "%{r}"),
            },
            Some(ArgKind::Immediate) => write!(f, "i{}", self.value()),
            Some(ArgKind::ConstIdx) => write!(f, "c[{}]", self.value()),
            Some(ArgKind::FuncIdx) => write!(f, "f[{}]", self.value()),
            None => write!(f, "<bad arg word {:#x}>", self.0),
        }
    }
}

/// A decoded instruction, borrowing its argument words from the executable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instruction<'a> {
    Call {
        dst: RegName,
        func_idx: Index,
        args: &'a [ExecWord],
    },
    Ret {
        result: RegName,
    },
    Goto {
        pc_offset: Index,
    },
    If {
        cond: RegName,
        false_offset: Index,
    },
}

impl Instruction<'_> {
    /// Appends the instruction's words to `out`.
    pub fn encode(&self, out: &mut Vec<ExecWord>) {
        match *self {
            Instruction::Call {
                dst,
                func_idx,
                args,
            } => {
                out.extend_from_slice(&[Opcode::Call as i64, dst, func_idx, args.len() as i64]);
                out.extend_from_slice(args);
            }
            Instruction::Ret { result } => out.extend_from_slice(&[Opcode::Ret as i64, result]),
            Instruction::Goto { pc_offset } => {
                out.extend_from_slice(&[Opcode::Goto as i64, pc_offset])
            }
            Instruction::If { cond, false_offset } => {
                out.extend_from_slice(&[Opcode::If as i64, cond, false_offset])
            }
        }
    }

    /// Decodes the instruction starting at `words[0]`, or `None` if the words are malformed or
    /// run past the end.
    // On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn decode(words: &[ExecWord]) -> Option<Instruction<'_>> {
        match Opcode::from_word(*words.first()?)? {
            Opcode::Call => {
                let (dst, func_idx, n) = (*words.get(1)?, *words.get(2)?, *words.get(3)?);
                let n = usize::try_from(n).ok()?;
                let args = words.get(4..4usize.checked_add(n)?)?;
                Some(Instruction::Call {
                    dst,
                    func_idx,
                    args,
                })
            }
            Opcode::Ret => Some(Instruction::Ret {
                result: *words.get(1)?,
            }),
            Opcode::Goto => Some(Instruction::Goto {
                pc_offset: *words.get(1)?,
            }),
            Opcode::If => Some(Instruction::If {
                cond: *words.get(1)?,
                false_offset: *words.get(2)?,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arg_encoding_matches_tvm() {
        assert_eq!(Arg::imm(-5).0 as u64, 0x01FF_FFFF_FFFF_FFFB);
        assert_eq!(Arg::const_idx(3).0, 0x0200_0000_0000_0003);
        assert_eq!(Arg::void().0, 18014398509481984);
        for v in [0, 1, -1, VALUE_MAX, VALUE_MIN, 12345, -98765] {
            for k in [
                ArgKind::Register,
                ArgKind::Immediate,
                ArgKind::ConstIdx,
                ArgKind::FuncIdx,
            ] {
                let a = Arg::new(k, v);
                assert_eq!((a.kind(), a.value()), (Some(k), v));
            }
        }
    }

    #[test]
    fn instruction_round_trip() {
        let args = [Arg::register(0).0, Arg::imm(-3).0, Arg::const_idx(2).0];
        for inst in [
            Instruction::Call {
                dst: 3,
                func_idx: 1,
                args: &args,
            },
            Instruction::Call {
                dst: VOID_REGISTER,
                func_idx: 0,
                args: &[],
            },
            Instruction::Ret { result: 7 },
            Instruction::Goto { pc_offset: -4 },
            Instruction::If {
                cond: 1,
                false_offset: 3,
            },
        ] {
            let mut words = Vec::new();
            inst.encode(&mut words);
            assert_eq!(Instruction::decode(&words), Some(inst));
            assert_eq!(Instruction::decode(&words[..words.len() - 1]), None);
        }
    }
}
