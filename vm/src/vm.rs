//! `VirtualMachine`: the Relax VM interpreter over a shared [`Executable`].
//!
//! The executable is validated once (see `executable.rs`), so the dispatch loop indexes without
//! re-checking what validation guarantees. A call from bytecode to another bytecode function
//! pushes a frame onto the loop's own frame stack instead of recursing on the native stack;
//! compiled functions, closures invoked through builtins (`vm.builtin.invoke_closure`) and
//! instrumented calls nest natively. Every entry into a function counts as a frame of its thread
//! (bytecode frames and compiled invocations alike, whatever VM they belong to), bounded by
//! [`VmConfig::max_call_depth`], so both exec modes stop a deep recursion at the same depth with
//! the same error; and each native entry first makes sure enough stack is left, moving to a new
//! stack segment on the heap when it is not, so that depth is reached without a stack overflow.
//!
//! `VmRef` is the shared, immutable-after-init core (constants, resolved functions, allocators)
//! and is what the `%vm` register hands to builtins. `VirtualMachine` adds TVM's stateful API
//! (`set_input` / `invoke_stateful` / `get_output`, saved functions) for one caller.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::allocator::{Allocator, AllocatorKind, new_allocator};
use crate::bytecode::{
    Arg, ArgKind, BEGIN_SPECIAL_REG, Instruction, RegName, VM_REGISTER, VOID_REGISTER,
};
use crate::executable::{Executable, FuncInfo, FuncKind};
use crate::inline::{InlineBuiltin, Spare};
use crate::packed::{PackedFunc, Registry};
use crate::tensor::Device;
use crate::value::{Closure, ClosureTarget};
use crate::{Error, NameMap, Result, Value};

/// A compiled Relax function (`__vmtir__<name>`): runs on a register file whose first
/// `num_args` slots hold the arguments and leaves its result in slot `num_args`.
pub type VmTirFunc = Arc<dyn Fn(&VmRef, &mut [Value]) -> Result<()> + Send + Sync>;

/// Functions supplied to a VM besides the global registry: compiled kernels under their global
/// symbols, and compiled Relax functions under their names (TVM's imported modules).
#[derive(Clone, Default)]
pub struct Library {
    packed: NameMap<PackedFunc>,
    vmtir: NameMap<VmTirFunc>,
}

impl Library {
    // On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn new() -> Library {
        Library::default()
    }
    /// Adds a packed function (a kernel, a test helper) under `name`.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn add_packed(&mut self, name: &str, f: PackedFunc) {
        self.packed.insert(crate::hit::copy_str(name), f);
    }
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn add_fn(
        &mut self,
        name: &str,
        f: impl Fn(&[Value]) -> Result<Value> + Send + Sync + 'static,
    ) {
        self.packed
            .insert(crate::hit::copy_str(name), PackedFunc::new(name, f));
    }
    /// Adds the compiled body of the Relax function `name` (a `VMTIRFunc` entry).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn add_vmtir(&mut self, name: &str, f: VmTirFunc) {
        self.vmtir.insert(crate::hit::copy_str(name), f);
    }
    pub fn get_packed(&self, name: &str) -> Option<&PackedFunc> {
        self.packed.get(name)
    }
    /// Resolves every function the executable names: packed functions from this library or
    /// else the global registry, compiled Relax functions from this library. The result is a
    /// VM's function pool (and the compiled bodies by index); a missing function is an error
    /// naming it. `VirtualMachine::new` links this way, and a compiler can call it alone to
    /// check an executable against its kernels without building a VM.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn link(&self, exec: &Executable) -> Result<(Vec<Value>, Vec<Option<VmTirFunc>>)> {
        let mut func_pool = crate::hit::vec_with_capacity(exec.func_table.len());
        let mut vmtir = crate::hit::vec_with_capacity(exec.func_table.len());
        for (i, f) in exec.func_table.iter().enumerate() {
            match f.kind {
                FuncKind::PackedFunc => {
                    func_pool.push(Value::Func(self.resolve_packed(&f.name)?));
                    vmtir.push(None);
                }
                FuncKind::VMFunc => {
                    func_pool.push(Value::Closure(Closure::new(
                        &f.name,
                        ClosureTarget::VmFunc(i),
                        Vec::new(),
                    )));
                    vmtir.push(None);
                }
                FuncKind::VMTIRFunc => {
                    let native = self.resolve_vmtir(&f.name)?.clone();
                    func_pool.push(Value::Closure(Closure::new(
                        &f.name,
                        ClosureTarget::VmFunc(i),
                        Vec::new(),
                    )));
                    vmtir.push(Some(native));
                }
            }
        }
        Ok((func_pool, vmtir))
    }

    /// Whether [`link`](Self::link) succeeds (the same error if not), without building the
    /// function pool: what a compiler checks before handing the library to VMs.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn check_link(&self, exec: &Executable) -> Result<()> {
        for f in &exec.func_table {
            match f.kind {
                FuncKind::PackedFunc => {
                    self.resolve_packed(&f.name)?;
                }
                FuncKind::VMFunc => {}
                FuncKind::VMTIRFunc => {
                    self.resolve_vmtir(&f.name)?;
                }
            }
        }
        Ok(())
    }

    /// The packed function `name`: from this library, else from the global registry.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn resolve_packed(&self, name: &str) -> Result<PackedFunc> {
        let func = self
            .packed
            .get(name)
            .cloned()
            .or_else(|| Registry::global().get(name));
        func.ok_or_else(|| {
            Error::runtime(format!(
                "Cannot find function {name} in the imported modules or global registry"
            ))
        })
    }

    /// The compiled body of the Relax function `name`.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn resolve_vmtir(&self, name: &str) -> Result<&VmTirFunc> {
        self.vmtir.get(name).ok_or_else(|| {
            Error::runtime(format!(
                "Cannot find compiled function __vmtir__{name} for the VMTIR function {name}"
            ))
        })
    }

    /// Adds everything of `other`, replacing entries of the same name.
    pub fn merge(&mut self, other: &Library) {
        self.packed
            .extend(other.packed.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.vmtir
            .extend(other.vmtir.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
}

/// How a VM is set up.
#[derive(Clone, Debug)]
pub struct VmConfig {
    pub allocator: AllocatorKind,
    /// Devices; by TVM's convention the last one is the host. relaxjit runs on the CPU only.
    pub devices: Vec<Device>,
    /// Frames that may be live at once on a thread (recursion depth): bytecode frames and
    /// compiled-function invocations.
    pub max_call_depth: usize,
}

impl Default for VmConfig {
    // On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn default() -> VmConfig {
        VmConfig {
            allocator: AllocatorKind::Pooled,
            devices: vec![Device::cpu(0)],
            max_call_depth: 10_000,
        }
    }
}

/// TVM's `VMInstrumentReturnKind`: an instrument returning this from its "before" call skips
/// the instruction.
pub const INSTRUMENT_SKIP_RUN: i64 = 1;

struct Frame {
    func_idx: usize,
    /// The pc of the Call that created this frame (the caller resumes after it).
    return_pc: usize,
    /// Where the caller wants the result.
    caller_dst: RegName,
    regs: Vec<Value>,
}

#[derive(Default)]
struct Scratch {
    frames: Vec<Frame>,
    args: Vec<Vec<Value>>,
    /// Register files of compiled functions, all Null, kept for the next invocation.
    files: Vec<Vec<Value>>,
}

pub(crate) struct VmCore {
    exec: Arc<Executable>,
    pub(crate) constants: Vec<Value>,
    func_pool: Vec<Value>,
    /// Per function-pool entry, the builtin performed inline, if any (see `inline.rs`).
    pub(crate) inline: Vec<Option<InlineBuiltin>>,
    vmtir: Vec<Option<VmTirFunc>>,
    devices: Vec<Device>,
    allocators: Vec<Arc<dyn Allocator>>,
    has_instrument: AtomicBool,
    instrument: RwLock<Option<PackedFunc>>,
    scratch: Mutex<Scratch>,
    config: VmConfig,
}

/// A handle to a running VM's shared core: what `%vm` reads as. Cheap to clone.
#[derive(Clone)]
pub struct VmRef(pub(crate) Arc<VmCore>);

thread_local! {
    /// The frames live on this thread: bytecode frames and compiled-function invocations, of
    /// every VM (they all nest on this thread's stack).
    static LIVE_FRAMES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Puts [`LIVE_FRAMES`] back to what it was when the guard was made, however the scope ends
/// (an error, or a panic unwinding through it).
struct FramesGuard(usize);
impl FramesGuard {
    fn new() -> FramesGuard {
        FramesGuard(LIVE_FRAMES.get())
    }
}
impl Drop for FramesGuard {
    fn drop(&mut self) {
        LIVE_FRAMES.set(self.0);
    }
}

/// Stack that must be left for a native entry into a function to run on the current stack:
/// the function's own frames and what the kernels and builtins it calls use. With less, the
/// entry runs on a new segment of [`STACK_SEGMENT`] bytes.
const STACK_RED_ZONE: usize = 512 << 10;
/// The size of a stack segment that a deep native nesting continues on.
const STACK_SEGMENT: usize = 8 << 20;

/// The error of a call that would make more than `max` frames live.
fn depth_error(max: usize, callee: &str) -> Error {
    Error::runtime(format!(
        "maximum call depth exceeded: more than {max} frames (calling {callee}); is the recursion unbounded?"
    ))
}

impl VmRef {
    fn new(exec: Arc<Executable>, library: &Library, config: VmConfig) -> Result<VmRef> {
        exec.validate()?;
        if config.devices.is_empty() {
            return Err(Error::value_error("a VM needs at least one device"));
        }
        if let Some(d) = config.devices.iter().find(|d| !d.is_cpu()) {
            return Err(Error::value_error(format!(
                "device {d} is not supported: relaxjit runs on the CPU"
            )));
        }
        let allocator = new_allocator(config.allocator);
        let allocators = config.devices.iter().map(|_| allocator.clone()).collect();
        let (func_pool, vmtir) = library.link(&exec)?;
        // Tensor constants already live on the host; nothing to convert.
        let constants = exec.constants.clone();
        let inline = func_pool.iter().map(InlineBuiltin::of).collect();
        Ok(VmRef(Arc::new(VmCore {
            exec,
            constants,
            func_pool,
            inline,
            vmtir,
            devices: config.devices.clone(),
            allocators,
            has_instrument: AtomicBool::new(false),
            instrument: RwLock::new(None),
            scratch: Mutex::new(Scratch::default()),
            config,
        })))
    }

    pub fn executable(&self) -> &Arc<Executable> {
        &self.0.exec
    }
    pub fn devices(&self) -> &[Device] {
        &self.0.devices
    }
    /// The allocator and device at `index` (`vm.builtin.alloc_storage`'s device index).
    pub fn allocator(&self, index: i64) -> Result<(&Arc<dyn Allocator>, Device)> {
        match usize::try_from(index)
            .ok()
            .filter(|&i| i < self.0.devices.len())
        {
            Some(i) => Ok((&self.0.allocators[i], self.0.devices[i])),
            None => Err(Error::runtime(format!(
                "Check failed: (device_index < static_cast<int64_t>(vm->devices.size())) is false: The device index {index} is out of VM physical devices list"
            ))),
        }
    }
    /// The host device (the last one) and its allocator.
    pub fn host_allocator(&self) -> (&Arc<dyn Allocator>, Device) {
        let i = self.0.devices.len() - 1;
        (&self.0.allocators[i], self.0.devices[i])
    }
    /// The resolved function-table entry `idx` (a `Func` or a `Closure`).
    pub fn func_pool(&self, idx: usize) -> Option<&Value> {
        self.0.func_pool.get(idx)
    }
    pub fn constant(&self, idx: usize) -> Option<&Value> {
        self.0.constants.get(idx)
    }
    /// The closure for a function of the executable by name.
    pub fn get_closure(&self, name: &str) -> Option<Value> {
        let idx = self.0.exec.func_index(name)?;
        Some(self.0.func_pool[idx].clone())
    }

    fn ptr_eq(&self, other: &VmRef) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Calls a function value: a packed function directly, a closure with its bound arguments
    /// appended (TVM's `InvokeClosurePacked`).
    pub fn invoke_closure(&self, callee: &Value, args: &[Value]) -> Result<Value> {
        match callee {
            Value::Func(f) => f.call(args),
            Value::Closure(c) => match c.target() {
                ClosureTarget::Packed(f) => {
                    if c.bound_args().is_empty() {
                        f.call(args)
                    } else {
                        let mut all = args.to_vec();
                        all.extend_from_slice(c.bound_args());
                        f.call(&all)
                    }
                }
                &ClosureTarget::VmFunc(idx) => {
                    if c.bound_args().is_empty() {
                        self.invoke_index(idx, args)
                    } else {
                        let mut all = args.to_vec();
                        all.extend_from_slice(c.bound_args());
                        self.invoke_index(idx, &all)
                    }
                }
            },
            other => Err(Error::type_error(format!(
                "cannot call a value of type {}: expected a function or a closure",
                other.type_name()
            ))),
        }
    }

    /// Runs function `idx` of the executable (bytecode or compiled) on `args`.
    pub fn invoke_index(&self, idx: usize, args: &[Value]) -> Result<Value> {
        let core = &*self.0;
        let info = core
            .exec
            .func_table
            .get(idx)
            .ok_or_else(|| Error::index(format!("function index {idx} is out of range")))?;
        if info.num_args as usize != args.len() {
            return Err(arity_error(&core.exec, idx, args.len()));
        }
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            self.invoke_checked(idx, info, args)
        })
    }

    /// [`VirtualMachine::invoke_index`] once `idx` and the arity are checked.
    fn invoke_checked(&self, idx: usize, info: &FuncInfo, args: &[Value]) -> Result<Value> {
        let core = &*self.0;
        match info.kind {
            FuncKind::VMFunc => self.run_bytecode(idx, args),
            FuncKind::VMTIRFunc => {
                let _frames = FramesGuard::new();
                let depth = LIVE_FRAMES.get();
                if depth >= core.config.max_call_depth {
                    return Err(depth_error(core.config.max_call_depth, &info.name));
                }
                LIVE_FRAMES.set(depth + 1);
                let native = core.vmtir[idx].as_ref().expect("resolved at init");
                // The register file comes from the VM's pool and goes back to it all Null, at
                // its size: an invocation allocates none after the first, and the next one of
                // the same function finds it ready.
                let size = info.register_file_size as usize;
                let mut regs = self.lock_scratch().files.pop().unwrap_or_default();
                if regs.len() != size {
                    regs.clear();
                    regs.resize_with(size, Value::default);
                }
                regs[..args.len()].clone_from_slice(args);
                let result = native(self, &mut regs)
                    .map(|()| std::mem::take(&mut regs[args.len()]))
                    .map_err(|e| e.with_frame(&info.name));
                regs.iter_mut().for_each(|v| drop(std::mem::take(v)));
                self.lock_scratch().files.push(regs);
                result
            }
            FuncKind::PackedFunc => core.func_pool[idx].as_func()?.call(args),
        }
    }

    fn lock_scratch(&self) -> std::sync::MutexGuard<'_, Scratch> {
        self.0.scratch.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A frame for `func_idx` from the run's free list; errors once `depth` frames are live.
    fn take_frame(
        &self,
        scratch: &mut Scratch,
        depth: usize,
        func_idx: usize,
        return_pc: usize,
        caller_dst: RegName,
    ) -> Result<Frame> {
        let core = &*self.0;
        if depth >= core.config.max_call_depth {
            return Err(depth_error(
                core.config.max_call_depth,
                &core.exec.func_table[func_idx].name,
            ));
        }
        let size = core.exec.func_table[func_idx].register_file_size as usize;
        let mut frame = scratch.frames.pop().unwrap_or(Frame {
            func_idx,
            return_pc,
            caller_dst,
            regs: Vec::new(),
        });
        frame.func_idx = func_idx;
        frame.return_pc = return_pc;
        frame.caller_dst = caller_dst;
        frame.regs.resize(size, Value::Null);
        Ok(frame)
    }

    fn release_frame(scratch: &mut Scratch, mut frame: Frame) {
        frame.regs.clear();
        scratch.frames.push(frame);
    }

    /// The dispatch loop for bytecode function `idx`; `args` already match its arity.
    ///
    /// The run takes the VM's free lists of frames and argument buffers for its duration
    /// (one lock at entry, one at exit), so pushing and popping frames costs no synchronisation.
    /// A closure re-entering the VM meanwhile finds the pool empty and allocates its own.
    fn run_bytecode(&self, idx: usize, args: &[Value]) -> Result<Value> {
        let core = &*self.0;
        // The register files of compiled functions stay in the pool: a compiled function this
        // run calls takes its file from there.
        let mut scratch = {
            let mut pool = self.lock_scratch();
            Scratch {
                frames: std::mem::take(&mut pool.frames),
                args: std::mem::take(&mut pool.args),
                files: Vec::new(),
            }
        };
        let _frames = FramesGuard::new();
        let base_depth = LIVE_FRAMES.get();
        let mut stack = Vec::new();
        let mut call_args = scratch.args.pop().unwrap_or_default();
        let mut result = self
            .take_frame(&mut scratch, base_depth, idx, usize::MAX, VOID_REGISTER)
            .and_then(|frame| {
                stack.push(frame);
                LIVE_FRAMES.set(base_depth + 1);
                stack[0].regs[..args.len()].clone_from_slice(args);
                self.run_loop(&mut stack, &mut call_args, &mut scratch, base_depth)
            });
        while let Some(frame) = stack.pop() {
            if let Err(e) = result {
                result = Err(e.with_frame(&core.exec.func_table[frame.func_idx].name));
            }
            Self::release_frame(&mut scratch, frame);
        }
        call_args.clear();
        scratch.args.push(call_args);
        let mut pool = self.lock_scratch();
        if pool.frames.len() < scratch.frames.len() {
            std::mem::swap(&mut pool.frames, &mut scratch.frames);
            std::mem::swap(&mut pool.args, &mut scratch.args);
        }
        result
    }

    #[inline]
    fn read_register(&self, regs: &[Value], r: RegName) -> Value {
        if r < BEGIN_SPECIAL_REG {
            regs[r as usize].clone()
        } else if r == VM_REGISTER {
            Value::Vm(self.clone())
        } else {
            Value::Null
        }
    }

    /// Calls a packed function on the arguments of a Call instruction, *moving* each register
    /// argument into `call_args` and back after the call instead of cloning it: TVM passes
    /// borrowed views, and a clone plus a drop of a tensor or tuple is two atomic reference-count
    /// updates, the largest cost of a Call with such arguments.
    ///
    /// While the callee runs, the moved-from registers hold None. Nothing can observe that:
    /// `regs` belongs to a frame on the calling `run_loop`'s own stack, which no callee can reach
    /// (a callee re-entering the VM runs on a new stack). A register named twice is moved for its
    /// first use and cloned for the others. The registers are restored whether the call fails
    /// or not.
    #[inline]
    fn call_packed_moving_registers(
        &self,
        f: &PackedFunc,
        args: &[i64],
        regs: &mut [Value],
        call_args: &mut Vec<Value>,
    ) -> Result<Value> {
        let core = &*self.0;
        if f.is_borrowing()
            && let Some(ret) = self.call_borrowing(f, args, regs)
        {
            return ret;
        }
        // Bit i set: argument i was moved out of its register (the first 64 arguments only;
        // later ones are cloned, which is merely slower).
        let mut moved: u64 = 0;
        call_args.clear();
        for (i, &w) in args.iter().enumerate() {
            let a = Arg(w);
            let v = a.value();
            let value = match a.kind() {
                Some(ArgKind::Register) if v < BEGIN_SPECIAL_REG => {
                    match args[..i].iter().position(|&p| p == w) {
                        None if i < 64 => {
                            moved |= 1 << i;
                            std::mem::take(&mut regs[v as usize])
                        }
                        None => regs[v as usize].clone(),
                        Some(first) => call_args[first].clone(),
                    }
                }
                Some(ArgKind::Register) => self.read_register(regs, v),
                Some(ArgKind::Immediate) => Value::Int(v),
                Some(ArgKind::ConstIdx) => core.constants[v as usize].clone(),
                Some(ArgKind::FuncIdx) => core.func_pool[v as usize].clone(),
                None => unreachable!("argument kinds are validated at load"),
            };
            call_args.push(value);
        }
        let ret = f.call(call_args);
        while moved != 0 {
            let i = moved.trailing_zeros() as usize;
            moved &= moved - 1;
            // A swap, not an assignment: the register holds the None left by `take`, and
            // there is nothing to drop.
            std::mem::swap(&mut regs[Arg(args[i]).value() as usize], &mut call_args[i]);
        }
        // The clones of registers named twice go now, not at the next call: until they do,
        // the register's handle is shared, and a kill of it could not reuse it (`Spare`).
        call_args.clear();
        ret
    }

    /// Calls a borrowing packed function (a kernel) on the arguments of a Call read in place —
    /// registers and constants, nothing moved or cloned — or `None` when an argument is of
    /// another kind (an immediate, a special register, a function) or there are too many.
    #[inline]
    fn call_borrowing(
        &self,
        f: &PackedFunc,
        args: &[i64],
        regs: &[Value],
    ) -> Option<Result<Value>> {
        const MAX: usize = 8;
        let (&first, _) = args.split_first()?;
        if args.len() > MAX {
            return None;
        }
        let first = self.arg_ref(regs, first)?;
        let mut refs = [first; MAX];
        for (r, &w) in refs.iter_mut().zip(args).skip(1) {
            *r = self.arg_ref(regs, w)?;
        }
        Some(f.call_borrowed(&refs[..args.len()]))
    }

    fn run_loop(
        &self,
        stack: &mut Vec<Frame>,
        call_args: &mut Vec<Value>,
        scratch: &mut Scratch,
        base_depth: usize,
    ) -> Result<Value> {
        let core = &*self.0;
        let exec = &*core.exec;
        let mut pc = exec.func_table[stack[0].func_idx].start_instr as usize;
        let mut spare = Spare::default();
        loop {
            let frame = stack
                .last_mut()
                .expect("the loop returns when the last frame returns");
            // Validation guarantees every pc reached here decodes (see executable.rs).
            let inst = exec.instruction(pc).ok_or_else(|| {
                Error::internal(format!("pc {pc} ran into an invalid instruction"))
            })?;
            match inst {
                Instruction::Call {
                    dst,
                    func_idx,
                    args,
                } => {
                    let callee = &core.func_pool[func_idx as usize];
                    let instrumented = core.has_instrument.load(Ordering::Relaxed);
                    if !instrumented && dst < BEGIN_SPECIAL_REG {
                        match core.inline[func_idx as usize] {
                            Some(InlineBuiltin::NullValue) if args.is_empty() => {
                                spare.kill(&mut frame.regs[dst as usize]);
                                pc += 1;
                                continue;
                            }
                            Some(InlineBuiltin::AllocTensor) => {
                                if let Some(a) = self.alloc_tensor_args(args, &frame.regs) {
                                    let t = spare.alloc_tensor(&a)?;
                                    frame.regs[dst as usize] = Value::Tensor(t);
                                    pc += 1;
                                    continue;
                                }
                            }
                            Some(InlineBuiltin::AllocStorage) => {
                                if let Some(a) = self.alloc_storage_args(args, &frame.regs) {
                                    spare.clear();
                                    let s = a.alloc(self)?;
                                    frame.regs[dst as usize] = Value::Storage(s);
                                    pc += 1;
                                    continue;
                                }
                            }
                            _ => {}
                        }
                    }
                    spare.clear();
                    if let Value::Func(f) = callee
                        && !instrumented
                    {
                        let ret =
                            self.call_packed_moving_registers(f, args, &mut frame.regs, call_args);
                        write_dst(&mut frame.regs, dst, ret?);
                        pc += 1;
                        continue;
                    }
                    call_args.clear();
                    for &w in args {
                        let a = Arg(w);
                        let v = a.value();
                        call_args.push(match a.kind() {
                            Some(ArgKind::Register) => self.read_register(&frame.regs, v),
                            Some(ArgKind::Immediate) => Value::Int(v),
                            Some(ArgKind::ConstIdx) => core.constants[v as usize].clone(),
                            Some(ArgKind::FuncIdx) => core.func_pool[v as usize].clone(),
                            None => unreachable!("argument kinds are validated at load"),
                        });
                    }
                    if core.has_instrument.load(Ordering::Relaxed) {
                        let ret = self.call_instrumented(func_idx as usize, call_args)?;
                        write_dst(&mut frame.regs, dst, ret);
                        pc += 1;
                        continue;
                    }
                    let ret = match callee {
                        Value::Func(f) => f.call(call_args)?,
                        Value::Closure(c) => match c.target() {
                            &ClosureTarget::VmFunc(callee_idx)
                                if exec.func_table[callee_idx].kind == FuncKind::VMFunc
                                    && c.bound_args().is_empty() =>
                            {
                                let info = &exec.func_table[callee_idx];
                                if info.num_args as usize != call_args.len() {
                                    return Err(arity_error(exec, callee_idx, call_args.len()));
                                }
                                let depth = base_depth + stack.len();
                                let mut new_frame =
                                    self.take_frame(scratch, depth, callee_idx, pc, dst)?;
                                // Nested entries into the VM (closures called from builtins)
                                // count these frames towards the depth limit.
                                LIVE_FRAMES.set(depth + 1);
                                for (slot, v) in new_frame.regs.iter_mut().zip(call_args.drain(..))
                                {
                                    *slot = v;
                                }
                                stack.push(new_frame);
                                pc = info.start_instr as usize;
                                continue;
                            }
                            _ => self.invoke_closure(callee, call_args)?,
                        },
                        _ => unreachable!("the function pool holds functions and closures"),
                    };
                    write_dst(&mut frame.regs, dst, ret);
                    pc += 1;
                }
                Instruction::Ret { result } => {
                    let ret = self.read_register(&frame.regs, result);
                    if stack.len() == 1 {
                        return Ok(ret);
                    }
                    let done = stack.pop().expect("len > 1");
                    let (return_pc, dst) = (done.return_pc, done.caller_dst);
                    Self::release_frame(scratch, done);
                    LIVE_FRAMES.set(base_depth + stack.len());
                    let caller = stack.last_mut().expect("len > 1");
                    write_dst(&mut caller.regs, dst, ret);
                    pc = return_pc + 1;
                }
                Instruction::Goto { pc_offset } => {
                    pc = (pc as i64 + pc_offset) as usize;
                }
                Instruction::If { cond, false_offset } => {
                    let c = self.read_register(&frame.regs, cond);
                    let c = c.as_int().map_err(|_| {
                        Error::type_error(format!(
                            "If condition must be an int or bool, but got {}",
                            c.type_name()
                        ))
                    })?;
                    if c != 0 {
                        pc += 1;
                    } else {
                        pc = (pc as i64 + false_offset) as usize;
                    }
                }
            }
        }
    }

    /// Whether an instrument is installed (compiled code takes its generic call path then).
    #[inline]
    pub fn is_instrumented(&self) -> bool {
        self.0.has_instrument.load(Ordering::Relaxed)
    }

    /// The flag [`is_instrumented`](Self::is_instrumented) reads, for compiled code that reads
    /// it in place (an `AtomicBool` is one byte, 0 or 1, like a `bool`); it lives as long as
    /// the VM.
    #[inline]
    pub fn instrument_flag(&self) -> &std::sync::atomic::AtomicBool {
        &self.0.has_instrument
    }

    /// Performs one bytecode Call instruction — `call f[func_idx] in: args dst: dst` — on the
    /// register file `regs`, outside the dispatch loop: what compiled functions
    /// (`__vmtir__<name>`) run for a Call. Same semantics as the interpreter's Call: packed
    /// functions get the register values moved in and back, instruments see the call, closures
    /// and VM functions go through [`invoke_closure`](Self::invoke_closure), and the result is
    /// written to `dst` unless it is `%void`/`%vm`.
    ///
    /// `args` are argument words of a validated executable whose register files are no larger
    /// than `regs`; a word naming a register, constant or function out of range panics.
    pub fn call_instruction(
        &self,
        func_idx: usize,
        dst: RegName,
        args: &[i64],
        regs: &mut [Value],
        call_args: &mut Vec<Value>,
    ) -> Result<()> {
        let core = &*self.0;
        let callee = &core.func_pool[func_idx];
        let instrumented = core.has_instrument.load(Ordering::Relaxed);
        if let Value::Func(f) = callee
            && !instrumented
        {
            let ret = self.call_packed_moving_registers(f, args, regs, call_args);
            call_args.clear();
            write_dst(regs, dst, ret?);
            return Ok(());
        }
        call_args.clear();
        for &w in args {
            let a = Arg(w);
            let v = a.value();
            call_args.push(match a.kind() {
                Some(ArgKind::Register) => self.read_register(regs, v),
                Some(ArgKind::Immediate) => Value::Int(v),
                Some(ArgKind::ConstIdx) => core.constants[v as usize].clone(),
                Some(ArgKind::FuncIdx) => core.func_pool[v as usize].clone(),
                None => {
                    return Err(Error::internal(format!(
                        "argument word {w:#x} has an unknown kind"
                    )));
                }
            });
        }
        let ret = if instrumented {
            self.call_instrumented(func_idx, call_args)
        } else {
            self.invoke_closure(callee, call_args)
        };
        call_args.clear();
        write_dst(regs, dst, ret?);
        Ok(())
    }

    /// Reads register `r` as the interpreter does: `%vm` is this VM, `%void` is None.
    #[inline]
    pub fn register_value(&self, regs: &[Value], r: RegName) -> Value {
        self.read_register(regs, r)
    }

    /// TVM's instrumented Call: `instrument(func, name, before, ret, *args)` around the call;
    /// `SKIP_RUN` from the "before" call skips both the callee and the "after" call.
    fn call_instrumented(&self, func_idx: usize, call_args: &mut [Value]) -> Result<Value> {
        let core = &*self.0;
        let Some(instrument) = core
            .instrument
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        else {
            return self.invoke_closure(&core.func_pool[func_idx], call_args);
        };
        // Python callbacks cannot take a dtype; TVM passes its string form, to the callee too.
        for a in call_args.iter_mut() {
            if let Value::DType(d) = a {
                *a = Value::str(d.to_string());
            }
        }
        let callee = core.func_pool[func_idx].clone();
        let name = Value::str(core.exec.func_table[func_idx].name.clone());
        let mut iargs = Vec::with_capacity(call_args.len() + 4);
        iargs.extend([callee.clone(), name.clone(), Value::Bool(true), Value::Null]);
        iargs.extend_from_slice(call_args);
        let before = instrument.call(&iargs)?;
        if matches!(before.as_int(), Ok(INSTRUMENT_SKIP_RUN)) {
            return Ok(Value::Null);
        }
        let ret = self.invoke_closure(&callee, call_args)?;
        iargs[2] = Value::Bool(false);
        iargs[3] = ret.clone();
        instrument.call(&iargs)?;
        Ok(ret)
    }
}

#[inline]
fn write_dst(regs: &mut [Value], dst: RegName, v: Value) {
    if dst < BEGIN_SPECIAL_REG {
        regs[dst as usize] = v;
    }
}

fn arity_error(exec: &Executable, idx: usize, given: usize) -> Error {
    let info = &exec.func_table[idx];
    Error::value_error(format!(
        "{} expects {} arguments ({}), but {given} were given",
        info.name,
        info.num_args,
        info.param_names.join(", ")
    ))
}

/// A Relax VM: one per caller, over a shared executable.
pub struct VirtualMachine {
    core: VmRef,
    inputs: HashMap<String, Vec<Value>>,
    outputs: HashMap<String, Value>,
    saved: HashMap<String, Value>,
}

impl VirtualMachine {
    /// Creates a VM: validates the executable and resolves every function it declares (a packed
    /// function missing from `library` and from the global registry is an error naming it).
    pub fn new(
        exec: Arc<Executable>,
        library: &Library,
        config: VmConfig,
    ) -> Result<VirtualMachine> {
        Ok(VirtualMachine {
            core: VmRef::new(exec, library, config)?,
            inputs: HashMap::new(),
            outputs: HashMap::new(),
            saved: HashMap::new(),
        })
    }

    /// A VM with the default configuration (pooled allocator, CPU).
    pub fn with_library(exec: Arc<Executable>, library: &Library) -> Result<VirtualMachine> {
        VirtualMachine::new(exec, library, VmConfig::default())
    }

    pub fn core(&self) -> &VmRef {
        &self.core
    }
    pub fn executable(&self) -> &Arc<Executable> {
        self.core.executable()
    }

    fn lookup(&self, name: &str) -> Result<Value> {
        if let Some(saved) = self.saved.get(name) {
            return Ok(saved.clone());
        }
        self.core.get_closure(name).ok_or_else(|| {
            Error::value_error(format!(
                "Unknown function: the executable has no function named {name}"
            ))
        })
    }

    /// Calls function `name` with `args` and returns its result.
    pub fn invoke(&self, name: &str, args: &[Value]) -> Result<Value> {
        let callee = self.lookup(name)?;
        self.core.invoke_closure(&callee, args)
    }

    /// Calls a closure or function value (e.g. one returned by an earlier call).
    pub fn invoke_closure(&self, callee: &Value, args: &[Value]) -> Result<Value> {
        self.core.invoke_closure(callee, args)
    }

    /// Installs an instrument called before and after every Call instruction, with TVM's
    /// contract: `instrument(func, func_name, before_run, ret_value, *args)`.
    pub fn set_instrument(&self, instrument: Option<PackedFunc>) {
        let core = &self.core.0;
        core.has_instrument
            .store(instrument.is_some(), Ordering::Relaxed);
        *core.instrument.write().unwrap_or_else(|e| e.into_inner()) = instrument;
    }

    /// Stores the inputs for a later [`invoke_stateful`](Self::invoke_stateful).
    pub fn set_input(&mut self, name: &str, args: Vec<Value>) -> Result<()> {
        let idx = self.core.executable().func_index(name).ok_or_else(|| {
            Error::value_error(format!(
                "Unknown function: the executable has no function named {name}"
            ))
        })?;
        let info = &self.core.executable().func_table[idx];
        if info.num_args as usize != args.len() {
            return Err(arity_error(self.core.executable(), idx, args.len()));
        }
        self.inputs.insert(name.to_string(), args);
        Ok(())
    }

    /// Runs `name` on the inputs given by `set_input` and keeps the result for `get_output`.
    pub fn invoke_stateful(&mut self, name: &str) -> Result<()> {
        let args = self.inputs.get(name).ok_or_else(|| {
            Error::value_error(format!(
                "No inputs set for stateful call of {name}; use `set_input` first."
            ))
        })?;
        let callee = self.lookup(name)?;
        let out = self.core.invoke_closure(&callee, args)?;
        self.outputs.insert(name.to_string(), out);
        Ok(())
    }

    fn output(&self, name: &str) -> Result<&Value> {
        self.outputs.get(name).ok_or_else(|| {
            Error::value_error(format!(
                "No output saved for call of {name}; use `invoke_stateful` first."
            ))
        })
    }

    /// The saved output of `name`, indexed into nested tuples by `path`.
    pub fn get_output(&self, name: &str, path: &[usize]) -> Result<Value> {
        let mut v = self.output(name)?;
        for &i in path {
            let t = v.as_tuple()?;
            v = t.get(i).ok_or_else(|| {
                Error::index(format!(
                    "output index {i} is out of range for a tuple of {}",
                    t.len()
                ))
            })?;
        }
        Ok(v.clone())
    }

    /// Arity of the (indexed) output if it is a tuple, −1 otherwise (`get_output_arity`).
    pub fn get_output_arity(&self, name: &str, path: &[usize]) -> Result<i64> {
        Ok(match self.get_output(name, path)? {
            Value::Tuple(t) => t.len() as i64,
            _ => -1,
        })
    }

    /// Saves `func_name` with its arguments bound as `save_name`; calling `save_name` with no
    /// arguments runs it (and returns None unless `include_return`).
    pub fn save_function(
        &mut self,
        func_name: &str,
        save_name: &str,
        include_return: bool,
        args: Vec<Value>,
    ) -> Result<()> {
        let callee = self.lookup(func_name)?;
        let core = self.core.clone();
        let f = PackedFunc::new(save_name, move |extra: &[Value]| {
            let mut all = extra.to_vec();
            all.extend_from_slice(&args);
            let r = core.invoke_closure(&callee, &all)?;
            Ok(if include_return { r } else { Value::Null })
        });
        self.saved.insert(save_name.to_string(), Value::Func(f));
        Ok(())
    }

    pub fn get_function_arity(&self, name: &str) -> Result<i64> {
        let idx = self
            .core
            .executable()
            .func_index(name)
            .ok_or_else(|| Error::value_error(format!("Unknown function: {name}")))?;
        Ok(self.core.executable().func_table[idx].num_args)
    }

    pub fn get_function_param_name(&self, name: &str, i: usize) -> Result<String> {
        let idx = self
            .core
            .executable()
            .func_index(name)
            .ok_or_else(|| Error::value_error(format!("Unknown function: {name}")))?;
        let info = &self.core.executable().func_table[idx];
        info.param_names.get(i).cloned().ok_or_else(|| {
            Error::index(format!(
                "{name} has {} parameters; index {i} is out of range",
                info.param_names.len()
            ))
        })
    }

    /// TVM's `time_evaluator`: one warm-up call, then `repeat` measurements of `number` calls
    /// each (growing `number` until one measurement takes `min_repeat_ms`), returning seconds per
    /// call. `name` may be `"invoke_stateful"` followed by the function in `args[0]` as a string,
    /// or any function or saved function.
    pub fn time_evaluator(
        &mut self,
        name: &str,
        args: &[Value],
        number: usize,
        repeat: usize,
        min_repeat_ms: u64,
    ) -> Result<Vec<f64>> {
        let run = |vm: &mut VirtualMachine| -> Result<()> {
            if name == "invoke_stateful" {
                let f = args
                    .first()
                    .ok_or_else(|| Error::value_error("invoke_stateful needs the function name"))?
                    .as_str()?
                    .to_string();
                vm.invoke_stateful(&f)
            } else {
                vm.invoke(name, args).map(drop)
            }
        };
        run(self)?;
        let mut number = number.max(1);
        let mut results = Vec::with_capacity(repeat);
        for _ in 0..repeat.max(1) {
            loop {
                let start = Instant::now();
                for _ in 0..number {
                    run(self)?;
                }
                let elapsed = start.elapsed();
                if elapsed >= Duration::from_millis(min_repeat_ms) || min_repeat_ms == 0 {
                    results.push(elapsed.as_secs_f64() / number as f64);
                    break;
                }
                let ratio = if elapsed.as_nanos() == 0 {
                    10.0
                } else {
                    (min_repeat_ms as f64 * 1e6 / elapsed.as_nanos() as f64 * 1.618).max(1.618)
                };
                number = ((number as f64 * ratio) as usize).max(number + 1);
            }
        }
        Ok(results)
    }

    /// Whether two VMs share one core (for tests of closures handed between VMs).
    pub fn same_core(&self, other: &VirtualMachine) -> bool {
        self.core.ptr_eq(&other.core)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An executable naming one function of each kind, `name` among them.
    fn exec_naming(packed: &str, vmtir: &str) -> Executable {
        let info = |kind, name: &str| FuncInfo {
            kind,
            name: name.into(),
            start_instr: 0,
            end_instr: 0,
            num_args: 0,
            register_file_size: 1,
            param_names: Vec::new(),
        };
        let mut exec = Executable {
            func_table: vec![
                info(FuncKind::PackedFunc, packed),
                info(FuncKind::VMTIRFunc, vmtir),
            ],
            ..Executable::default()
        };
        exec.rebuild_func_map();
        exec
    }

    /// `check_link` fails exactly where `link` does, with the same message.
    #[test]
    fn checking_a_link_agrees_with_linking() {
        let mut library = Library::new();
        library.add_fn("kernel", |_| Ok(Value::Int(0)));
        library.add_vmtir("main", Arc::new(|_, _| Ok(())));
        for (packed, vmtir) in [
            ("kernel", "main"),
            ("vm.builtin.make_shape", "main"),
            ("no_such_kernel", "main"),
            ("kernel", "no_such_function"),
        ] {
            let exec = exec_naming(packed, vmtir);
            let linked = library.link(&exec).map(|_| ()).map_err(|e| e.to_string());
            let checked = library.check_link(&exec).map_err(|e| e.to_string());
            assert_eq!(checked, linked, "{packed}, {vmtir}");
        }
        assert!(library.check_link(&exec_naming("kernel", "main")).is_ok());
        assert!(library.check_link(&exec_naming("x", "main")).is_err());
    }
}
