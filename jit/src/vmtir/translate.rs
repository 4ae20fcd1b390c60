//! The translator: the bytecode of one VM function, instruction by instruction, to a Cranelift
//! function with the [`NativeFn`](super::code::NativeFn) ABI.
//!
//! Each instruction becomes a block, so control flow is native: Goto is a jump, If a branch on
//! the value its helper returns, Ret a return. A Call passes a pointer to its argument words (in
//! the module's word pool, reached through the call context) to the `call` helper, which
//! performs it exactly as the interpreter would. A Call of a JIT'd kernel whose result is
//! discarded instead has its arguments read in place by generated code when every one is a
//! register holding a tensor (the `call` helper performs the rare rest), else converted by the
//! `kernel_args` helper (no boxing, no name lookup), and then calls the kernel's native entry
//! directly; the kernel checks its arguments as always, and a failure is described by the
//! `kernel_fail` helper (one block per function) with the kernel's own message. Runs of
//! inline builtins go to the `builtin` helper, with `alloc_tensor`'s constant arguments
//! decoded here.
//!
//! The memory planner's kill + allocation before a kernel call, and that call, are one group:
//! every condition of performing all three in place is computed and tested by one branch, the
//! fast side remakes the killed tensor object as the new one and calls the kernel, and the slow
//! side hands the three Calls to the `builtin` helper. Per op that is three blocks and one call
//! on each side, which keeps Cranelift's compile time (register allocation and lowering scale
//! with instructions and blocks) and the code run per op small.

use cranelift_codegen::ir::{
    AbiParam, Block, InstBuilder, MemFlagsData, SigRef, Signature, StackSlot, StackSlotData,
    StackSlotKind, Value, condcodes::IntCC, types,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;
use vm::bytecode::{Arg, ArgKind, BEGIN_SPECIAL_REG, Instruction};
use vm::{Executable, FuncKind, InlineBuiltin};

use super::runtime::{
    CTX_IN_PLACE_BLOCKED_OFFSET, CTX_INSTRUMENTED_OFFSET, CTX_KERNELS_OFFSET, CTX_WORDS_OFFSET,
    RT_BUILTIN, RT_CALL, RT_COND, RT_DECOY, RT_KERNEL_ARGS, RT_KERNEL_FAIL, RT_KERNEL_RT,
    RT_KILL_ALLOC, RT_RET, STATUS_DONE, is_inline_builtin,
};
use crate::error::{Error, Result};
use crate::kernel::abi::{
    ARG_DATA_OFFSET, ARG_DTYPE_OFFSET, ARG_NDIM_OFFSET, ARG_SCALAR_OFFSET, ARG_SHAPE_OFFSET,
    ARG_SIZE, ARG_TENSOR, KernelError,
};

/// How the translator reaches the kernels: the slot (in the call context's kernel table) of the
/// JIT'd kernel a function-table entry names, if it is one.
pub type KernelSlots<'a> = &'a dyn Fn(usize) -> Option<usize>;

/// Translates bytecode function `fi` of `exec` into `func` (whose signature is set).
/// The result goes to register `ret_slot`.
pub fn translate(
    b: &mut FunctionBuilder,
    call_conv: CallConv,
    exec: &Executable,
    fi: usize,
    ret_slot: i64,
    kernel_slot: KernelSlots,
    word_pool: &mut Vec<i64>,
) -> Result<()> {
    let info = &exec.func_table[fi];
    let (start, end) = (info.start_instr as usize, info.end_instr as usize);
    let mut insts = Vec::with_capacity(end - start);
    for pc in start..end {
        insts.push(exec.instruction(pc).ok_or_else(|| {
            Error::Unsupported(format!("instruction {pc} of {} does not decode", info.name))
        })?);
    }
    let mut max_kernel_args = 0;
    for inst in &insts {
        if let Instruction::Call {
            func_idx,
            args,
            dst,
        } = inst
            && *dst >= BEGIN_SPECIAL_REG
            && kernel_slot(*func_idx as usize).is_some()
        {
            max_kernel_args = max_kernel_args.max(args.len());
        }
    }

    let sig_of = |params: usize, ret: types::Type| {
        let mut s = Signature::new(call_conv);
        s.params
            .extend(std::iter::repeat_n(AbiParam::new(types::I64), params));
        s.returns.push(AbiParam::new(ret));
        s
    };
    let sigs = Sigs {
        call: b.import_signature(sig_of(6, types::I32)),
        builtin: b.import_signature(sig_of(4, types::I32)),
        cond: b.import_signature(sig_of(3, types::I64)),
        ret: b.import_signature(sig_of(4, types::I32)),
        kernel_args: b.import_signature(sig_of(7, types::I32)),
        kernel_fail: b.import_signature({
            let mut s = sig_of(2, types::I32);
            s.params.push(AbiParam::new(types::I32));
            s.params.push(AbiParam::new(types::I64));
            s
        }),
        kernel: b.import_signature(sig_of(4, types::I32)),
    };

    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    let blocks: Vec<Block> = (0..insts.len()).map(|_| b.create_block()).collect();
    let exit = b.create_block();
    b.append_block_param(exit, types::I32);
    b.set_cold_block(exit);

    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    let (ctx, regs, rt) = (params[0], params[1], params[2]);
    let (kargs, kerr) = if max_kernel_args > 0 {
        (
            Some(b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                (ARG_SIZE as usize * max_kernel_args) as u32,
                3,
            ))),
            Some(b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                size_of::<KernelError>() as u32,
                3,
            ))),
        )
    } else {
        (None, None)
    };
    if let Some(kerr) = kerr {
        // A kernel fills its error report only when it fails, and a failure leaves the
        // function: zeroed once here, the report is fresh for every call.
        let zero = b.ins().iconst(types::I64, 0);
        let at = b.ins().stack_addr(types::I64, kerr, 0);
        for off in (0..size_of::<KernelError>() as i32).step_by(8) {
            b.ins().store(MemFlagsData::trusted(), zero, at, off);
        }
    }
    // Every failed kernel call of the function reports through one block: (slot, status).
    let kernel_failed = kerr.map(|kerr| {
        let block = b.create_block();
        b.set_cold_block(block);
        b.append_block_param(block, types::I64);
        b.append_block_param(block, types::I32);
        (block, kerr)
    });
    b.ins().jump(blocks[0], &[]);

    let mut e = Emit {
        b,
        sigs,
        ctx,
        regs,
        rt,
        exit,
    };
    let target = |pc: usize, off: i64| -> Result<Block> {
        let t = pc as i64 + off;
        if (0..insts.len() as i64).contains(&t) {
            Ok(blocks[t as usize])
        } else {
            Err(Error::Unsupported(format!(
                "a jump from instruction {} leaves {}",
                start + pc,
                info.name
            )))
        }
    };
    let targets = jump_targets(&insts);
    let inline = |inst: &Instruction| match *inst {
        Instruction::Call {
            dst,
            func_idx,
            args,
        } => inline_builtin_of(exec, func_idx, dst, args.len()),
        _ => false,
    };
    // A kernel call's record: `func_idx, dst, nargs, args…`.
    let record = |pool: &mut Vec<i64>, inst: &Instruction| {
        if let Instruction::Call {
            dst,
            func_idx,
            args,
        } = *inst
        {
            pool.extend_from_slice(&[func_idx, dst, args.len() as i64]);
            pool.extend_from_slice(args);
        }
    };
    // A builtin record: a kernel call's, then `npre, pre…`, the arguments decoded now (see
    // `runtime::builtin`).
    let builtin_record = |pool: &mut Vec<i64>, inst: &Instruction| {
        record(pool, inst);
        let pre = match *inst {
            Instruction::Call { func_idx, args, .. }
                if exec
                    .func_table
                    .get(func_idx as usize)
                    .is_some_and(|f| f.name == InlineBuiltin::AllocTensor.name()) =>
            {
                vm::inline::predecode_alloc_tensor(&exec.constants, args).unwrap_or_default()
            }
            _ => Vec::new(),
        };
        pool.push(pre.len() as i64);
        pool.extend_from_slice(&pre);
    };
    let mut absorbed = vec![false; insts.len()];
    for (pc, inst) in insts.iter().enumerate() {
        if absorbed[pc] {
            // A later Call of a run of inline builtins, or the kernel call of a group: no
            // jump lands here.
            continue;
        }
        e.b.switch_to_block(blocks[pc]);
        if inline(inst) {
            // The run of inline builtins starting here (no jump lands inside it) is one call
            // of the helper, which performs each Call as the interpreter would.
            let mut end = pc + 1;
            while end < insts.len() && !targets[end] && inline(&insts[end]) {
                absorbed[end] = true;
                end += 1;
            }
            // A run ending in a kill and an allocation (the memory planner's pair before a
            // kernel call) ends with the pair fused.
            let fused = (end - pc >= 2)
                .then(|| kill_alloc_record(exec, &insts[end - 2], &insts[end - 1]))
                .flatten();
            // The kernel call right after the pair joins it when it reads neither the killed
            // register nor the storage (see `Emit::kill_alloc_kernel`).
            let group = match (&fused, insts.get(end)) {
                (Some(f), Some(call)) if !targets[end] => kernel_call_of(call, kernel_slot)
                    .and_then(|(slot, r)| Some((slot, r?)))
                    .filter(|(_, r)| !r.contains(&f[1]) && !r.contains(&f[4])),
                _ => None,
            };
            let next = target(pc, (end - pc + usize::from(group.is_some())) as i64)?;
            let split = if fused.is_some() { end - 2 } else { end };
            if split > pc {
                let start = word_pool.len();
                for inst in &insts[pc..split] {
                    builtin_record(word_pool, inst);
                }
                let addr = e.word_addr(start);
                let n =
                    e.b.ins()
                        .iconst(types::I64, (word_pool.len() - start) as i64);
                let st = e.call_rt(RT_BUILTIN, e.sigs.builtin, &[e.ctx, e.regs, addr, n]);
                let cont = if fused.is_some() {
                    e.b.create_block()
                } else {
                    next
                };
                e.b.ins().brif(st, e.exit, &[st.into()], cont, &[]);
                if fused.is_none() {
                    continue;
                }
                e.b.switch_to_block(cont);
            }
            let Some(fused) = fused else { continue };
            let slow = e.b.create_block();
            e.b.set_cold_block(slow);
            // The slow path performs the Calls as the interpreter does: the pair through the
            // `kill_alloc` helper (which still tries the fused form), a group through the
            // `builtin` helper, which performs the kernel call generically.
            let start = word_pool.len();
            let helper = match (group, kargs, kernel_failed) {
                (Some((slot, args)), Some(kargs), Some((failed, kerr))) => {
                    absorbed[end] = true;
                    for inst in &insts[end - 2..=end] {
                        builtin_record(word_pool, inst);
                    }
                    let ks = KernelSite {
                        slot,
                        kargs,
                        kerr,
                        failed,
                    };
                    if !e.kill_alloc_kernel(&fused, &args, &ks, slow, next)? {
                        e.b.ins().jump(slow, &[]);
                    }
                    RT_BUILTIN
                }
                _ => {
                    word_pool.extend_from_slice(&fused);
                    for inst in &insts[end - 2..end] {
                        builtin_record(word_pool, inst);
                    }
                    if !e.kill_alloc_in_place(&fused, slow, next)? {
                        e.b.ins().jump(slow, &[]);
                    }
                    RT_KILL_ALLOC
                }
            };
            // Values are made in the block that uses them: few live across blocks, which
            // keeps register allocation (most of the compile time) fast.
            e.b.switch_to_block(slow);
            let addr = e.word_addr(start);
            let n =
                e.b.ins()
                    .iconst(types::I64, (word_pool.len() - start) as i64);
            let st = e.call_rt(helper, e.sigs.builtin, &[e.ctx, e.regs, addr, n]);
            e.b.ins().brif(st, e.exit, &[st.into()], next, &[]);
            continue;
        }
        match *inst {
            Instruction::Call {
                dst,
                func_idx,
                args,
            } => {
                let next = target(pc, 1)?;
                match (kernel_call_of(inst, kernel_slot), kargs, kernel_failed) {
                    (Some((slot, registers)), Some(kargs), Some((failed, kerr))) => {
                        let ks = KernelSite {
                            slot,
                            kargs,
                            kerr,
                            failed,
                        };
                        if let Some(registers) = registers {
                            // Values are made in the block that uses them (see the fused
                            // pair).
                            let slow = e.b.create_block();
                            e.b.set_cold_block(slow);
                            // Tensors read in place; the kernel is called in the same block.
                            let mut ok = e.uninstrumented();
                            let decoy = e.decoy();
                            let read = e.tensor_reads(&registers, None, decoy, &mut ok)?;
                            let fast = e.b.create_block();
                            e.b.ins().brif(ok, fast, &[], slow, &[]);
                            e.b.switch_to_block(fast);
                            let fields = e.tensor_fields(&read);
                            e.call_kernel(&ks, &registers, &fields, next)?;
                            // Arguments not all tensors, or an instrument installed (rare):
                            // the Call as the interpreter performs it.
                            e.b.switch_to_block(slow);
                            e.generic_call(word_pool, func_idx, dst, args, next);
                            continue;
                        }
                        // Arguments of other kinds: converted by the helper, which also
                        // performs the Call itself when an instrument is installed.
                        let start = word_pool.len();
                        record(word_pool, inst);
                        let addr = e.word_addr(start);
                        let n = e.b.ins().iconst(types::I64, args.len() as i64);
                        let kaddr = e.b.ins().stack_addr(types::I64, kargs, 0);
                        let eaddr = e.b.ins().stack_addr(types::I64, kerr, 0);
                        let slot_v = e.b.ins().iconst(types::I64, slot as i64);
                        let st = e.call_rt(
                            RT_KERNEL_ARGS,
                            e.sigs.kernel_args,
                            &[e.ctx, e.regs, addr, n, kaddr, eaddr, slot_v],
                        );
                        let direct = e.b.create_block();
                        let not_ok = e.b.create_block();
                        e.b.set_cold_block(not_ok);
                        e.b.ins().brif(st, not_ok, &[], direct, &[]);
                        e.b.switch_to_block(not_ok);
                        let done = e.b.ins().icmp_imm_s(IntCC::Equal, st, STATUS_DONE as i64);
                        e.b.ins().brif(done, next, &[], e.exit, &[st.into()]);
                        e.b.switch_to_block(direct);
                        e.kernel_entry_call(&ks, args.len(), next)?;
                    }
                    _ => e.generic_call(word_pool, func_idx, dst, args, next),
                }
            }
            Instruction::Ret { result } => {
                let r = e.b.ins().iconst(types::I64, result);
                let s = e.b.ins().iconst(types::I64, ret_slot);
                let st = e.call_rt(RT_RET, e.sigs.ret, &[e.ctx, e.regs, r, s]);
                e.b.ins().return_(&[st]);
            }
            Instruction::Goto { pc_offset } => {
                let t = target(pc, pc_offset)?;
                e.b.ins().jump(t, &[]);
            }
            Instruction::If { cond, false_offset } => {
                let (then_b, else_b) = (target(pc, 1)?, target(pc, false_offset)?);
                let r = e.b.ins().iconst(types::I64, cond);
                let c = e.call_rt(RT_COND, e.sigs.cond, &[e.ctx, e.regs, r]);
                let decided = e.b.create_block();
                let failed = e.b.create_block();
                e.b.set_cold_block(failed);
                let bad = e.b.ins().icmp_imm_s(IntCC::SignedLessThan, c, 0);
                e.b.ins().brif(bad, failed, &[], decided, &[]);
                e.b.switch_to_block(failed);
                let neg = e.b.ins().ineg(c);
                let st = e.b.ins().ireduce(types::I32, neg);
                e.b.ins().jump(e.exit, &[st.into()]);
                e.b.switch_to_block(decided);
                e.b.ins().brif(c, then_b, &[], else_b, &[]);
            }
        }
    }
    if let Some((block, kerr)) = kernel_failed {
        e.b.switch_to_block(block);
        let (slot_v, ks) = (e.b.block_params(block)[0], e.b.block_params(block)[1]);
        let eaddr = e.b.ins().stack_addr(types::I64, kerr, 0);
        let st = e.call_rt(
            RT_KERNEL_FAIL,
            e.sigs.kernel_fail,
            &[e.ctx, slot_v, ks, eaddr],
        );
        e.b.ins().jump(e.exit, &[st.into()]);
    }
    e.b.switch_to_block(e.exit);
    let st = e.b.block_params(e.exit)[0];
    e.b.ins().return_(&[st]);
    e.b.seal_all_blocks();
    Ok(())
}

/// For each instruction (and the end), whether a Goto or If jumps to it.
fn jump_targets(insts: &[Instruction]) -> Vec<bool> {
    let mut targets = vec![false; insts.len() + 1];
    for (pc, inst) in insts.iter().enumerate() {
        let mut mark = |off: i64| {
            if let Some(t) = targets.get_mut((pc as i64 + off) as usize) {
                *t = true;
            }
        };
        match *inst {
            Instruction::Goto { pc_offset } => mark(pc_offset),
            Instruction::If { false_offset, .. } => {
                mark(1);
                mark(false_offset);
            }
            _ => {}
        }
    }
    targets
}

/// Whether a Call goes through the `builtin` helper: a packed function named as an inline
/// builtin, writing to a register.
fn inline_builtin_of(exec: &Executable, func_idx: i64, dst: i64, nargs: usize) -> bool {
    exec.func_table.get(func_idx as usize).is_some_and(|f| {
        f.kind == FuncKind::PackedFunc
            && dst < BEGIN_SPECIAL_REG
            && is_inline_builtin(&f.name, nargs)
    })
}

/// The fused record of a `null_value` Call and the `alloc_tensor` Call after it (see
/// `runtime::KillAllocFn`), if the pair qualifies: the registered builtins' names, an
/// allocation whose arguments decode at compile time, and three distinct registers.
fn kill_alloc_record(
    exec: &Executable,
    kill: &Instruction,
    alloc: &Instruction,
) -> Option<Vec<i64>> {
    let (
        &Instruction::Call {
            func_idx: f_null,
            dst: killed,
            args: kill_args,
        },
        &Instruction::Call {
            func_idx: f_alloc,
            dst,
            args,
        },
    ) = (kill, alloc)
    else {
        return None;
    };
    let named = |f: i64, b: InlineBuiltin| {
        exec.func_table
            .get(f as usize)
            .is_some_and(|i| i.kind == FuncKind::PackedFunc && i.name == b.name())
    };
    if !(named(f_null, InlineBuiltin::NullValue)
        && kill_args.is_empty()
        && named(f_alloc, InlineBuiltin::AllocTensor))
    {
        return None;
    }
    let pre = vm::inline::predecode_alloc_tensor(&exec.constants, args)?;
    let [storage, offset, dtype, ref dims @ ..] = pre[..] else {
        return None;
    };
    let distinct = killed != dst && killed != storage && dst != storage;
    let registers = [killed, dst, storage]
        .iter()
        .all(|&r| (0..BEGIN_SPECIAL_REG).contains(&r));
    if !(distinct && registers) {
        return None;
    }
    let mut out = vec![
        f_null,
        killed,
        f_alloc,
        dst,
        storage,
        offset,
        dtype,
        dims.len() as i64,
    ];
    out.extend_from_slice(dims);
    Some(out)
}

/// A direct kernel call's kernel slot, its argument and error slots, and the function's
/// kernel-failure block (parameters: slot, status).
struct KernelSite {
    slot: usize,
    kargs: StackSlot,
    kerr: StackSlot,
    failed: Block,
}

/// The kernel slot of a Call of a JIT'd kernel whose result is discarded, with its argument
/// registers when every argument is a register below the special ones.
fn kernel_call_of(
    inst: &Instruction,
    kernel_slot: KernelSlots,
) -> Option<(usize, Option<Vec<i64>>)> {
    let Instruction::Call {
        dst,
        func_idx,
        args,
    } = *inst
    else {
        return None;
    };
    if dst < BEGIN_SPECIAL_REG {
        return None;
    }
    let slot = kernel_slot(usize::try_from(func_idx).ok()?)?;
    let registers = args
        .iter()
        .map(|&w| match (Arg(w).kind(), Arg(w).value()) {
            (Some(ArgKind::Register), r) if r < BEGIN_SPECIAL_REG => Some(r),
            _ => None,
        })
        .collect();
    Some((slot, registers))
}

struct Sigs {
    call: SigRef,
    builtin: SigRef,
    cond: SigRef,
    ret: SigRef,
    kernel_args: SigRef,
    kernel_fail: SigRef,
    kernel: SigRef,
}

struct Emit<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    sigs: Sigs,
    ctx: Value,
    regs: Value,
    rt: Value,
    exit: Block,
}

/// The byte offset of register `r` in the register file.
fn register_offset(r: i64) -> Result<i32> {
    r.checked_mul(i64::from(vm::value::layout::SIZE))
        .and_then(|at| i32::try_from(at).ok())
        .ok_or_else(|| Error::Unsupported(format!("register %{r} is out of reach")))
}

impl Emit<'_, '_> {
    /// The address of word `index` of the module's word pool.
    fn word_addr(&mut self, index: usize) -> Value {
        let words = self.b.ins().load(
            types::I64,
            MemFlagsData::trusted().with_readonly(),
            self.ctx,
            CTX_WORDS_OFFSET,
        );
        self.b.ins().iadd_imm_s(words, 8 * index as i64)
    }

    /// Whether no instrument is installed.
    fn uninstrumented(&mut self) -> Value {
        self.flag_clear(CTX_INSTRUMENTED_OFFSET)
    }

    /// Whether a `null_value` and an `alloc_tensor` Call may be performed in place: the
    /// builtins are the registered ones and no instrument is installed
    /// (`CallCtx::in_place_blocked`).
    fn in_place_allowed(&mut self) -> Value {
        self.flag_clear(CTX_IN_PLACE_BLOCKED_OFFSET)
    }

    /// Whether the flag the context points at (at byte `offset`) reads false.
    fn flag_clear(&mut self, offset: i32) -> Value {
        let trusted = MemFlagsData::trusted();
        let flag = self
            .b
            .ins()
            .load(types::I64, trusted.with_readonly(), self.ctx, offset);
        // An instrument may be installed by another thread at any time: read it atomically.
        let on = self.b.ins().atomic_load(types::I8, trusted, flag);
        self.b.ins().icmp_imm_s(IntCC::Equal, on, 0)
    }

    /// The address of the decoy payload (`runtime::DECOY_PAYLOAD`), for
    /// [`Self::payload_or_decoy`]; loaded once per check.
    fn decoy(&mut self) -> Value {
        self.b.ins().load(
            types::I64,
            MemFlagsData::trusted().with_readonly(),
            self.rt,
            RT_DECOY,
        )
    }

    /// The payload of register `r` if `is` (its kind check) holds, else the decoy's (`decoy`,
    /// from [`Self::decoy`]): the register's payload is read only when its kind matched.
    fn payload_or_decoy(&mut self, r: i64, is: Value, decoy: Value) -> Result<Value> {
        let at = register_offset(r)? + vm::value::layout::PAYLOAD;
        let own = self.b.ins().iadd_imm_s(self.regs, i64::from(at));
        let addr = self.b.ins().select(is, own, decoy);
        Ok(self
            .b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), addr, 0))
    }

    /// The kind byte of register `r`, compared with `tag`.
    fn register_is(&mut self, r: i64, tag: u8) -> Result<Value> {
        let at = register_offset(r)?;
        let t = self.b.ins().uload8(
            types::I32,
            MemFlagsData::trusted(),
            self.regs,
            at + vm::value::layout::TAG,
        );
        Ok(self.b.ins().icmp_imm_s(IntCC::Equal, t, i64::from(tag)))
    }

    /// The conditions of a fused kill and allocation (`fused`, a `kill_alloc` record) in
    /// place, and-ed into `ok`: the killed register holds the only reference to a tensor
    /// object with inline dimensions in the allocation's storage, the new tensor fits in it,
    /// and the destination register is empty (the caller checks, with
    /// [`Self::in_place_allowed`], that the builtins are the registered ones and no instrument
    /// is installed). Returns the killed tensor object, or `None`
    /// (nothing emitted) when the record's constants do not allow the fused form.
    fn kill_alloc_checks(
        &mut self,
        fused: &[i64],
        decoy: Value,
        ok: &mut Value,
    ) -> Result<Option<Value>> {
        use vm::tensor::layout as tl;
        use vm::value::layout as vl;
        let [_, kill, _, dst, storage, offset, dtype, _, ref dims @ ..] = *fused else {
            return Ok(None);
        };
        let end = vm::tensor::checked_nbytes(dims, vm::DataType::from_packed(dtype as u32))
            .ok()
            .zip(usize::try_from(offset).ok())
            .and_then(|(n, o)| n.checked_add(o))
            .and_then(|end| i64::try_from(end).ok());
        let (Some(end), true) = (end, dims.len() <= vm::tensor::INLINE_DIMS) else {
            return Ok(None);
        };
        // Every condition is computed, then tested by one branch: a run of branches costs
        // the register allocator far more than these few loads.
        let trusted = MemFlagsData::trusted();
        let is_tensor = self.register_is(kill, vl::TAG_TENSOR)?;
        *ok = self.b.ins().band(*ok, is_tensor);
        let p = self.payload_or_decoy(kill, is_tensor, decoy)?;
        // Acquire, as `Tensor`'s own uniqueness check: other threads' accesses through
        // references they have dropped happen before the writes that follow.
        let count_at = match tl::COUNT {
            0 => p,
            at => self.b.ins().iadd_imm_s(p, i64::from(at)),
        };
        let count = self.b.ins().atomic_load(types::I64, trusted, count_at);
        let c = self.b.ins().icmp_imm_s(IntCC::Equal, count, 1);
        *ok = self.b.ins().band(*ok, c);
        let old_ndim = self.b.ins().uload32(trusted, p, tl::NDIM);
        let c = self.b.ins().icmp_imm_s(
            IntCC::UnsignedLessThanOrEqual,
            old_ndim,
            vm::tensor::INLINE_DIMS as i64,
        );
        *ok = self.b.ins().band(*ok, c);
        let is_storage = self.register_is(storage, vl::TAG_STORAGE)?;
        *ok = self.b.ins().band(*ok, is_storage);
        // The storage's payload is compared, never followed, so it is read without the
        // decoy: a register of another kind fails the kind check whatever its payload bytes.
        let s = self.b.ins().load(
            types::I64,
            trusted,
            self.regs,
            register_offset(storage)? + vl::PAYLOAD,
        );
        let held = self.b.ins().load(types::I64, trusted, p, tl::STORAGE);
        let c = self.b.ins().icmp(IntCC::Equal, s, held);
        *ok = self.b.ins().band(*ok, c);
        let size = self.b.ins().load(types::I64, trusted, p, tl::STORAGE_SIZE);
        let c = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, size, end);
        *ok = self.b.ins().band(*ok, c);
        let c = self.register_is(dst, vl::TAG_NULL)?;
        *ok = self.b.ins().band(*ok, c);
        Ok(Some(p))
    }

    /// The fused kill and allocation once [`Self::kill_alloc_checks`] held: the object `p` is
    /// this code's alone, so it is remade as `vm::inline::kill_and_alloc_tensor` does (the same
    /// fields, see `vm::tensor::layout`) and moved to the destination register. Returns the
    /// new tensor's data pointer.
    fn kill_alloc_remake(&mut self, fused: &[i64], p: Value) -> Result<Value> {
        use vm::tensor::layout as tl;
        use vm::value::layout as vl;
        let [_, kill, _, dst, _, offset, dtype, ndim, ref dims @ ..] = *fused else {
            return Err(Error::Unsupported("a malformed kill_alloc record".into()));
        };
        let (kill_at, dst_at) = (register_offset(kill)?, register_offset(dst)?);
        let trusted = MemFlagsData::trusted();
        let data = self.b.ins().load(types::I64, trusted, p, tl::DATA);
        let old_offset = self.b.ins().load(types::I64, trusted, p, tl::BYTE_OFFSET);
        let base = self.b.ins().isub(data, old_offset);
        let data = match offset {
            0 => base,
            _ => self.b.ins().iadd_imm_s(base, offset),
        };
        self.b.ins().store(trusted, data, p, tl::DATA);
        let v = self.b.ins().iconst(types::I64, offset);
        self.b.ins().store(trusted, v, p, tl::BYTE_OFFSET);
        let v = self.b.ins().iconst(types::I32, ndim);
        self.b.ins().store(trusted, v, p, tl::NDIM);
        let v = self.b.ins().iconst(types::I32, dtype as u32 as i64);
        self.b.ins().store(trusted, v, p, tl::DTYPE);
        for (i, &d) in dims.iter().enumerate() {
            let v = self.b.ins().iconst(types::I64, d);
            self.b.ins().store(trusted, v, p, tl::DIMS + 8 * i as i32);
        }
        // Move the register: the destination (Null, checked) takes the tensor, the killed
        // register is Null.
        let tensor = self.b.ins().iconst(types::I8, i64::from(vl::TAG_TENSOR));
        self.b
            .ins()
            .store(trusted, tensor, self.regs, dst_at + vl::TAG);
        self.b
            .ins()
            .store(trusted, p, self.regs, dst_at + vl::PAYLOAD);
        let null = self.b.ins().iconst(types::I8, i64::from(vl::TAG_NULL));
        self.b
            .ins()
            .store(trusted, null, self.regs, kill_at + vl::TAG);
        Ok(data)
    }

    /// A fused kill and allocation (`fused`, a `kill_alloc` record) performed in place when
    /// [`Self::in_place_allowed`] and [`Self::kill_alloc_checks`] allow it, then `done`;
    /// otherwise `slow`, before anything is written. `false` (nothing emitted) when the
    /// record's constants do not allow it.
    fn kill_alloc_in_place(&mut self, fused: &[i64], slow: Block, done: Block) -> Result<bool> {
        let mut ok = self.in_place_allowed();
        let decoy = self.decoy();
        let Some(p) = self.kill_alloc_checks(fused, decoy, &mut ok)? else {
            return Ok(false);
        };
        let fast = self.b.create_block();
        self.b.ins().brif(ok, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        self.kill_alloc_remake(fused, p)?;
        self.b.ins().jump(done, &[]);
        Ok(true)
    }

    /// A group: the fused kill and allocation (`fused`) and the kernel call after it, whose
    /// arguments are registers `args` (none of them the killed register or the storage), as
    /// one check and one straight run of code, then `done`; otherwise `slow`, before anything
    /// is written, which performs the three Calls as the interpreter does. `false` (nothing
    /// emitted) when the record's constants do not allow the fused form.
    ///
    /// The arguments naming the destination register are not checked: on this path the
    /// destination holds the object just remade, a tensor whose rank (`ndim ≤ INLINE_DIMS`,
    /// checked by `kill_alloc_checks` at compile time), dtype and dimensions are the record's
    /// constants and whose data pointer was just computed, and nothing runs between the
    /// remake and the kernel call. The other registers are read before anything is written,
    /// and the remake touches neither them (they are distinct from the killed register and
    /// the storage) nor the objects they hold (the killed object has no other reference).
    /// The kernel checks every argument's shape and dtype against its buffers, as always.
    fn kill_alloc_kernel(
        &mut self,
        fused: &[i64],
        args: &[i64],
        ks: &KernelSite,
        slow: Block,
        done: Block,
    ) -> Result<bool> {
        use vm::tensor::layout as tl;
        let [_, _, _, dst, _, _, dtype, ndim, ..] = *fused else {
            return Ok(false);
        };
        let mut ok = self.in_place_allowed();
        let decoy = self.decoy();
        let Some(p) = self.kill_alloc_checks(fused, decoy, &mut ok)? else {
            return Ok(false);
        };
        let read = self.tensor_reads(args, Some(dst), decoy, &mut ok)?;
        let fast = self.b.create_block();
        self.b.ins().brif(ok, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        let mut fields = self.tensor_fields(&read);
        let data = self.kill_alloc_remake(fused, p)?;
        let shape = self.b.ins().iadd_imm_s(p, i64::from(tl::DIMS));
        let ndim = self.b.ins().iconst(types::I64, ndim);
        let dtype = self.b.ins().iconst(types::I64, i64::from(dtype as u32));
        fields.push((dst, [data, shape, ndim, dtype]));
        self.call_kernel(ks, args, &fields, done)?;
        Ok(true)
    }

    /// The conditions for reading registers `regs` (indices below the special ones) in place
    /// as kernel arguments, and-ed into `ok`: each holds a tensor whose dimensions are inline.
    /// Each register is read once however many arguments name it, `known` (whose value the
    /// caller supplies) not at all, and each register's kind is checked before its payload is
    /// read. Returns `(register, object, rank)` per register read.
    fn tensor_reads(
        &mut self,
        regs: &[i64],
        known: Option<i64>,
        decoy: Value,
        ok: &mut Value,
    ) -> Result<Vec<(i64, Value, Value)>> {
        use vm::tensor::layout as tl;
        use vm::value::layout as vl;
        let trusted = MemFlagsData::trusted();
        let mut read: Vec<(i64, Value, Value)> = Vec::with_capacity(regs.len());
        for &r in regs {
            if Some(r) == known || read.iter().any(|&(q, _, _)| q == r) {
                continue;
            }
            let is_tensor = self.register_is(r, vl::TAG_TENSOR)?;
            *ok = self.b.ins().band(*ok, is_tensor);
            let p = self.payload_or_decoy(r, is_tensor, decoy)?;
            let ndim = self.b.ins().uload32(trusted, p, tl::NDIM);
            // The decoy's rank, 0, passes; its kind check does not.
            let c = self.b.ins().icmp_imm_s(
                IntCC::UnsignedLessThanOrEqual,
                ndim,
                vm::tensor::INLINE_DIMS as i64,
            );
            *ok = self.b.ins().band(*ok, c);
            read.push((r, p, ndim));
        }
        Ok(read)
    }

    /// The kernel-argument fields (data, shape, rank, dtype) of each register of `read`, once
    /// its conditions held.
    fn tensor_fields(&mut self, read: &[(i64, Value, Value)]) -> Vec<(i64, [Value; 4])> {
        use vm::tensor::layout as tl;
        let trusted = MemFlagsData::trusted();
        read.iter()
            .map(|&(r, p, ndim)| {
                let data = self.b.ins().load(types::I64, trusted, p, tl::DATA);
                let dtype = self.b.ins().uload32(trusted, p, tl::DTYPE);
                let shape = self.b.ins().iadd_imm_s(p, i64::from(tl::DIMS));
                (r, [data, shape, ndim, dtype])
            })
            .collect()
    }

    /// Writes the `KernelArg`s of registers `regs` from their `fields` and calls the kernel.
    fn call_kernel(
        &mut self,
        ks: &KernelSite,
        regs: &[i64],
        fields: &[(i64, [Value; 4])],
        next: Block,
    ) -> Result<()> {
        // The `kind` word written with `ndim` below is zero. `scalar` is written too (zero),
        // although a kernel reads it only for a scalar parameter, after checking the
        // argument's kind: library kernels view the slot as a `&[KernelArg]`, and a Rust
        // value made of uninitialised bytes is undefined behaviour however it is used.
        const _: () = assert!(ARG_TENSOR == 0);
        let trusted = MemFlagsData::trusted();
        let kargs = self.b.ins().stack_addr(types::I64, ks.kargs, 0);
        let zero = self.b.ins().iconst(types::I64, 0);
        for (i, &r) in regs.iter().enumerate() {
            let base = i32::try_from(i as i64 * ARG_SIZE)
                .map_err(|_| Error::Unsupported(format!("a kernel call of {i} arguments")))?;
            let [data, shape, ndim, dtype] = fields
                .iter()
                .find(|f| f.0 == r)
                .map(|f| f.1)
                .ok_or_else(|| Error::Unsupported(format!("register %{r} was not read")))?;
            self.b
                .ins()
                .store(trusted, data, kargs, base + ARG_DATA_OFFSET);
            self.b
                .ins()
                .store(trusted, shape, kargs, base + ARG_SHAPE_OFFSET);
            self.b
                .ins()
                .store(trusted, zero, kargs, base + ARG_SCALAR_OFFSET);
            // `ndim` and `kind` (ARG_TENSOR, 0) as one word; `dtype` and the padding as one.
            self.b
                .ins()
                .store(trusted, ndim, kargs, base + ARG_NDIM_OFFSET);
            self.b
                .ins()
                .store(trusted, dtype, kargs, base + ARG_DTYPE_OFFSET);
        }
        self.kernel_entry_call(ks, regs.len(), next)
    }

    /// Calls the kernel of `ks` at its native entry on the `nargs` arguments written to its
    /// argument slot; then `next`, or the function's kernel-failure block.
    fn kernel_entry_call(&mut self, ks: &KernelSite, nargs: usize, next: Block) -> Result<()> {
        let flags = MemFlagsData::trusted().with_readonly();
        let table = self
            .b
            .ins()
            .load(types::I64, flags, self.ctx, CTX_KERNELS_OFFSET);
        let at = i32::try_from(8 * ks.slot)
            .map_err(|_| Error::Unsupported(format!("kernel slot {} is out of reach", ks.slot)))?;
        let fp = self.b.ins().load(types::I64, flags, table, at);
        let krt = self.b.ins().load(types::I64, flags, self.rt, RT_KERNEL_RT);
        let n = self.b.ins().iconst(types::I64, nargs as i64);
        let kaddr = self.b.ins().stack_addr(types::I64, ks.kargs, 0);
        let eaddr = self.b.ins().stack_addr(types::I64, ks.kerr, 0);
        let call = self
            .b
            .ins()
            .call_indirect(self.sigs.kernel, fp, &[kaddr, n, krt, eaddr]);
        let status = self.b.inst_results(call)[0];
        let slot = self.b.ins().iconst(types::I64, ks.slot as i64);
        self.b
            .ins()
            .brif(status, ks.failed, &[slot.into(), status.into()], next, &[]);
        Ok(())
    }

    /// A Call performed by the `call` helper, exactly as the interpreter would; then `next`.
    fn generic_call(
        &mut self,
        word_pool: &mut Vec<i64>,
        func_idx: i64,
        dst: i64,
        args: &[i64],
        next: Block,
    ) {
        let addr = self.word_addr(word_pool.len());
        word_pool.extend_from_slice(args);
        let n = self.b.ins().iconst(types::I64, args.len() as i64);
        let f = self.b.ins().iconst(types::I64, func_idx);
        let d = self.b.ins().iconst(types::I64, dst);
        let st = self.call_rt(
            RT_CALL,
            self.sigs.call,
            &[self.ctx, self.regs, f, d, addr, n],
        );
        self.b.ins().brif(st, self.exit, &[st.into()], next, &[]);
    }

    /// Calls the helper at byte `offset` of the runtime table; returns its one result.
    fn call_rt(&mut self, offset: i32, sig: SigRef, args: &[Value]) -> Value {
        let f = self.b.ins().load(
            types::I64,
            MemFlagsData::trusted().with_readonly(),
            self.rt,
            offset,
        );
        let call = self.b.ins().call_indirect(sig, f, args);
        self.b.inst_results(call)[0]
    }
}
