//! Fixtures shared by relaxjit's benchmarks: programs written directly as bytecode, so that an
//! interpreter benchmark measures dispatch and nothing of a compiler, plus the trivial packed
//! functions they call; and ([`workloads`]) the model-level modules of the performance table.

pub mod probe;
pub mod workloads;

use std::sync::Arc;

use vm::bytecode::{Arg, Instruction};
use vm::{Executable, FuncInfo, FuncKind, Library, Result, Value};

/// The value after `flag` in an example's arguments (`--calls 100`), parsed; `default` when
/// the flag is absent, an error when its value does not parse.
pub fn flag_value<T: std::str::FromStr>(
    args: &[String],
    flag: &str,
    default: T,
) -> anyhow::Result<T>
where
    T::Err: std::error::Error + Send + Sync + 'static,
{
    match args.iter().position(|a| a == flag) {
        None => Ok(default),
        Some(i) => {
            let v = args
                .get(i + 1)
                .ok_or_else(|| anyhow::anyhow!("{flag} takes a value"))?;
            v.parse().map_err(|e| anyhow::anyhow!("{flag} {v}: {e}"))
        }
    }
}

/// What each instruction of a [`call_chain`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chain {
    /// `call bench.identity in: %r dst: %1`: one register argument, result is that argument.
    Identity,
    /// `call bench.add_int in: %r, i1 dst: %1`: a register and an immediate, an Int add.
    AddImm,
    /// `call vm.builtin.copy in: %r dst: %1`: the builtin codegen emits for register moves,
    /// resolved through the global registry.
    BuiltinCopy,
}

impl Chain {
    pub const ALL: [Chain; 3] = [Chain::Identity, Chain::AddImm, Chain::BuiltinCopy];

    pub fn name(self) -> &'static str {
        match self {
            Chain::Identity => "identity",
            Chain::AddImm => "add_imm",
            Chain::BuiltinCopy => "builtin_copy",
        }
    }

    fn callee(self) -> &'static str {
        match self {
            Chain::Identity => "bench.identity",
            Chain::AddImm => "bench.add_int",
            Chain::BuiltinCopy => "vm.builtin.copy",
        }
    }
}

/// `main(x)`: `n` Call instructions threading a value through register 1, then `ret %1`.
/// With [`Chain::AddImm`] and an Int `x`, the result is `x + n`; otherwise it is `x`.
pub fn call_chain(n: usize, chain: Chain) -> Arc<Executable> {
    assert!(n >= 1, "a chain has at least one call");
    let mut exec = Executable::default();
    exec.func_table.push(FuncInfo {
        kind: FuncKind::VMFunc,
        name: "main".into(),
        start_instr: 0,
        end_instr: n as i64 + 1,
        num_args: 1,
        register_file_size: 2,
        param_names: vec!["x".into()],
    });
    exec.func_table
        .push(FuncInfo::declared(FuncKind::PackedFunc, chain.callee()));
    for i in 0..n {
        let src = Arg::register(if i == 0 { 0 } else { 1 }).0;
        let args: Vec<i64> = match chain {
            Chain::Identity | Chain::BuiltinCopy => vec![src],
            Chain::AddImm => vec![src, Arg::imm(1).0],
        };
        exec.instr_offset.push(exec.instr_data.len() as i64);
        Instruction::Call {
            dst: 1,
            func_idx: 1,
            args: &args,
        }
        .encode(&mut exec.instr_data);
    }
    exec.instr_offset.push(exec.instr_data.len() as i64);
    Instruction::Ret { result: 1 }.encode(&mut exec.instr_data);
    exec.rebuild_func_map();
    exec.validate().expect("the chain is a valid executable");
    Arc::new(exec)
}

/// `main(x)`: `n` Calls of the bytecode function `leaf(x) { ret %0 }`, threading the value
/// through register 1, then `ret %1`. Each call runs two instructions (the Call and `leaf`'s
/// Ret) and pushes and pops a frame.
pub fn vm_call_chain(n: usize) -> Arc<Executable> {
    assert!(n >= 1, "a chain has at least one call");
    let mut exec = Executable::default();
    exec.func_table.push(FuncInfo {
        kind: FuncKind::VMFunc,
        name: "main".into(),
        start_instr: 0,
        end_instr: n as i64 + 1,
        num_args: 1,
        register_file_size: 2,
        param_names: vec!["x".into()],
    });
    exec.func_table.push(FuncInfo {
        kind: FuncKind::VMFunc,
        name: "leaf".into(),
        start_instr: n as i64 + 1,
        end_instr: n as i64 + 2,
        num_args: 1,
        register_file_size: 1,
        param_names: vec!["x".into()],
    });
    for i in 0..n {
        let args = [Arg::register(if i == 0 { 0 } else { 1 }).0];
        exec.instr_offset.push(exec.instr_data.len() as i64);
        Instruction::Call {
            dst: 1,
            func_idx: 1,
            args: &args,
        }
        .encode(&mut exec.instr_data);
    }
    for result in [1, 0] {
        exec.instr_offset.push(exec.instr_data.len() as i64);
        Instruction::Ret { result }.encode(&mut exec.instr_data);
    }
    exec.rebuild_func_map();
    exec.validate().expect("the chain is a valid executable");
    Arc::new(exec)
}

/// The packed functions the chains call (`vm.builtin.copy` comes from the global registry).
pub fn library() -> Library {
    let mut lib = Library::new();
    lib.add_fn("bench.identity", |args: &[Value]| -> Result<Value> {
        Ok(args.first().cloned().unwrap_or_default())
    });
    lib.add_fn("bench.add_int", |args: &[Value]| -> Result<Value> {
        match args {
            [a, b] => Ok(Value::Int(a.as_int()?.wrapping_add(b.as_int()?))),
            _ => Err(vm::Error::value_error("bench.add_int takes two ints")),
        }
    });
    lib
}
