//! Compiled mode's direct paths — builtins performed by a helper, kernels called at their native
//! entry — against the interpreter, on the cases where they must give way or fail: arguments of
//! unusual kinds (the generic call answers), failing allocations and kernels (same message), an
//! instrument (which must see every call in both modes), and a compiled function linked into a
//! VM with too small a register file.
//!
//! Each case is a small bytecode program (built with the `ExecBuilder`) and its arguments; the
//! runner compares the outcome of `main` in both modes, and the instrument's log.

use std::sync::{Arc, Mutex};

use relaxjit_jit::kernel::KernelLibrary;
use relaxjit_jit::vmtir;
use vm::{
    DataType, ExecBuilder, Executable, Library, PackedFunc, Result, Tensor, Value, VirtualMachine,
};

type B = ExecBuilder;

/// A kernel adding two float32 vectors of length 4 (destination-passing).
const ADD_KERNEL: &str = r#"
@T.prim_func
def add4(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32"), c: T.Buffer((4,), "float32")):
    T.func_attr({"global_symbol": "add4", "tir.noalias": True})
    for i in range(4):
        with T.sblock("c"):
            vi = T.axis.spatial(4, i)
            c[vi] = a[vi] + b[vi]
"#;

fn kernels() -> KernelLibrary {
    let funcs = tir::parse_module_prim_funcs(ADD_KERNEL).expect("the kernel parses");
    KernelLibrary::compile(&funcs).expect("the kernel compiles")
}

/// `main(a, b)`: allocates `c` (storage + tensor, as the memory planner emits them) and calls
/// `add4(a, b, c)`; `shape` and `size` are the constants used for the tensor and the storage.
fn alloc_and_add(shape: &[i64], size: &[i64], offset: i64, kernel_dst_void: bool) -> Executable {
    let mut ib = B::new();
    let f32 = ib.convert_constant(DataType::F32).unwrap();
    let shape = ib.convert_constant(Value::shape(shape.to_vec())).unwrap();
    let size = ib.convert_constant(Value::shape(size.to_vec())).unwrap();
    let scope = ib.convert_constant("global").unwrap();
    ib.emit_function("main", 2, &["a", "b"]).unwrap();
    ib.emit_call(
        "vm.builtin.alloc_storage",
        &[B::vm(), size, B::imm(0), f32, scope],
        B::r(2),
    )
    .unwrap();
    ib.emit_call(
        "vm.builtin.alloc_tensor",
        &[B::r(2), B::imm(offset), shape, f32],
        B::r(3),
    )
    .unwrap();
    ib.emit_call("vm.builtin.null_value", &[], B::r(2)).unwrap();
    let dst = if kernel_dst_void { B::void() } else { B::r(4) };
    ib.emit_call("add4", &[B::r(0), B::r(1), B::r(3)], dst)
        .unwrap();
    ib.emit_ret(B::r(3)).unwrap();
    ib.end_function("main").unwrap();
    ib.get().unwrap()
}

/// `main(a, b)`: the builtins with arguments in registers instead of constants, and a kernel
/// handed a string.
fn unusual_kinds(bad_kernel_arg: bool) -> Executable {
    let mut ib = B::new();
    let f32 = ib.convert_constant(DataType::F32).unwrap();
    let shape = ib.convert_constant(Value::shape(vec![4])).unwrap();
    let text = ib.convert_constant("not a tensor").unwrap();
    ib.emit_function("main", 2, &["a", "b"]).unwrap();
    ib.emit_call("vm.builtin.copy", &[shape], B::r(2)).unwrap();
    ib.emit_call("vm.builtin.copy", &[f32], B::r(3)).unwrap();
    ib.emit_call(
        "vm.builtin.alloc_storage",
        &[B::vm(), B::r(2), B::imm(0), B::r(3)],
        B::r(4),
    )
    .unwrap();
    ib.emit_call(
        "vm.builtin.alloc_tensor",
        &[B::r(4), B::imm(0), B::r(2), B::r(3)],
        B::r(5),
    )
    .unwrap();
    let third = if bad_kernel_arg { text } else { B::r(5) };
    ib.emit_call("add4", &[B::r(0), B::r(1), third], B::void())
        .unwrap();
    ib.emit_ret(B::r(5)).unwrap();
    ib.end_function("main").unwrap();
    ib.get().unwrap()
}

fn vec4(v: f32) -> Value {
    Value::Tensor(Tensor::from_slice(&[4], &[v, v + 1.0, v + 2.0, v + 3.0]).unwrap())
}

fn outcome(r: Result<Value>) -> String {
    match r {
        Ok(Value::Tensor(t)) => format!("ok {:?}", t.to_vec::<f32>()),
        Ok(v) => format!("ok {v:?}"),
        Err(e) => format!("error {e}"),
    }
}

/// Runs `main` in both modes (optionally instrumented); returns both outcomes and logs.
fn run_both(exec: &Executable, args: &[Value], instrument: bool) -> [(String, Vec<String>); 2] {
    run_both_with(exec, args, instrument, false)
}

/// [`run_both`], optionally with the inline builtins replaced by library functions of the same
/// names (which call the registered builtin and log the call).
fn run_both_with(
    exec: &Executable,
    args: &[Value],
    instrument: bool,
    replace: bool,
) -> [(String, Vec<String>); 2] {
    let kernels = kernels();
    let compiled = vmtir::compile(exec, &kernels).unwrap();
    assert!(compiled.fallbacks.is_empty(), "{:?}", compiled.fallbacks);
    let run = |exec: Executable, with_compiled: bool| {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut lib = Library::new();
        kernels.add_to(&mut lib);
        if with_compiled {
            compiled.add_to(&mut lib);
        }
        if replace {
            for b in vm::InlineBuiltin::ALL {
                let (log, name) = (log.clone(), b.1);
                let builtin = vm::Registry::global().get(name).unwrap();
                lib.add_fn(name, move |a: &[Value]| {
                    log.lock().unwrap().push(name.to_string());
                    builtin.call(a)
                });
            }
        }
        let vm = VirtualMachine::with_library(Arc::new(exec), &lib).unwrap();
        if instrument {
            let log = log.clone();
            vm.set_instrument(Some(PackedFunc::new("log", move |a: &[Value]| {
                let name = a[1].as_str()?.to_string();
                let before = a[2].as_bool()?;
                log.lock().unwrap().push(format!("{name} {before}"));
                Ok(Value::Null)
            })));
        }
        let r = outcome(vm.invoke("main", args));
        let log = log.lock().unwrap().clone();
        (r, log)
    };
    [
        run(exec.clone(), false),
        run((*compiled.executable).clone(), true),
    ]
}

#[test]
fn direct_paths_agree_with_the_interpreter() {
    let good = [vec4(1.0), vec4(10.0)];
    let cases: Vec<(&str, Executable, Vec<Value>, &str)> = vec![
        (
            "planned allocation and kernel",
            alloc_and_add(&[4], &[4], 0, true),
            good.to_vec(),
            "ok Ok([11.0, 13.0, 15.0, 17.0])",
        ),
        (
            "kernel result kept in a register",
            alloc_and_add(&[4], &[4], 0, false),
            good.to_vec(),
            "ok Ok([11.0, 13.0, 15.0, 17.0])",
        ),
        (
            "tensor larger than its storage",
            alloc_and_add(&[1 << 20], &[2], 0, true),
            good.to_vec(),
            "error",
        ),
        (
            "tensor at an offset past the storage",
            alloc_and_add(&[4], &[4], 1 << 20, true),
            good.to_vec(),
            "error",
        ),
        (
            "storage of negative size",
            alloc_and_add(&[4], &[-4], 0, true),
            good.to_vec(),
            "error",
        ),
        (
            "kernel given a tensor of the wrong shape",
            alloc_and_add(&[2, 2], &[4], 0, true),
            good.to_vec(),
            "error",
        ),
        (
            "kernel given an int",
            alloc_and_add(&[4], &[4], 0, true),
            vec![Value::Int(1), vec4(0.0)],
            "error",
        ),
        (
            "builtin arguments in registers",
            unusual_kinds(false),
            good.to_vec(),
            "ok Ok([11.0, 13.0, 15.0, 17.0])",
        ),
        (
            "kernel given a string",
            unusual_kinds(true),
            good.to_vec(),
            "error",
        ),
    ];
    for (name, exec, args, want) in cases {
        for instrument in [false, true] {
            let [bytecode, compiled] = run_both(&exec, &args, instrument);
            assert_eq!(bytecode, compiled, "{name} (instrumented: {instrument})");
            assert!(
                bytecode.0.starts_with(want),
                "{name}: expected {want}, got {}",
                bytecode.0
            );
            if instrument {
                // Every Call, before and after, in both modes.
                assert!(!bytecode.1.is_empty(), "{name}: the instrument saw nothing");
            }
        }
    }
}

/// `main(a, b)`: `c = a + b` in a planned storage, then `c` killed and a `(2, 2)` tensor
/// allocated in the same storage — the kill and allocation whose tensor handle the VM reuses —
/// returning `(kept, d)` where `kept` is `(c,)` when `keep` (so the killed register's handle is
/// still held by a tuple and must not be reused) and None otherwise.
fn kill_then_alloc(keep: bool) -> Executable {
    let mut ib = B::new();
    let f32 = ib.convert_constant(DataType::F32).unwrap();
    let shape = ib.convert_constant(Value::shape(vec![4])).unwrap();
    let square = ib.convert_constant(Value::shape(vec![2, 2])).unwrap();
    ib.emit_function("main", 2, &["a", "b"]).unwrap();
    ib.emit_call(
        "vm.builtin.alloc_storage",
        &[B::vm(), shape, B::imm(0), f32],
        B::r(2),
    )
    .unwrap();
    ib.emit_call(
        "vm.builtin.alloc_tensor",
        &[B::r(2), B::imm(0), shape, f32],
        B::r(3),
    )
    .unwrap();
    ib.emit_call("add4", &[B::r(0), B::r(1), B::r(3)], B::void())
        .unwrap();
    if keep {
        ib.emit_call("vm.builtin.make_tuple", &[B::r(3)], B::r(4))
            .unwrap();
    } else {
        ib.emit_call("vm.builtin.null_value", &[], B::r(4)).unwrap();
    }
    ib.emit_call("vm.builtin.null_value", &[], B::r(3)).unwrap();
    ib.emit_call(
        "vm.builtin.alloc_tensor",
        &[B::r(2), B::imm(0), square, f32],
        B::r(5),
    )
    .unwrap();
    ib.emit_call("vm.builtin.null_value", &[], B::r(2)).unwrap();
    ib.emit_call("vm.builtin.make_tuple", &[B::r(4), B::r(5)], B::r(6))
        .unwrap();
    ib.emit_ret(B::r(6)).unwrap();
    ib.end_function("main").unwrap();
    ib.get().unwrap()
}

/// A tensor killed right before an allocation lends its handle to the new tensor only when
/// nothing else holds it: a tuple holding the killed tensor still sees it whole, in both modes.
#[test]
fn a_killed_tensor_still_held_elsewhere_is_not_reused() {
    for keep in [false, true] {
        let [bytecode, compiled] =
            run_both(&kill_then_alloc(keep), &[vec4(1.0), vec4(10.0)], false);
        assert_eq!(bytecode, compiled, "keep: {keep}");
        let want = if keep {
            "ok [[Tensor(shape=[4], dtype=float32, data=[11, 13, 15, 17])], Tensor(shape=[2, 2], dtype=float32, data=[11, 13, 15, 17])]"
        } else {
            "ok [None, Tensor(shape=[2, 2], dtype=float32, data=[11, 13, 15, 17])]"
        };
        assert_eq!(bytecode.0, want, "keep: {keep}");
    }
}

/// How [`group`] varies the planner's kill, allocation and kernel call.
#[derive(Clone, Copy, Default)]
struct Group {
    /// A tuple keeps the killed tensor alive.
    shared: bool,
    /// The killed register is parameter `c` (register 2) instead of the planned tensor.
    kill_param: bool,
    /// The allocation is in a second storage, not the killed tensor's.
    other_storage: bool,
    /// The allocation's shape (default `[4]`) and offset (default 16 bytes, the storage's
    /// second half).
    shape: Option<&'static [i64]>,
    offset: Option<i64>,
    /// The destination register holds a value before the allocation.
    dst_taken: bool,
}

/// `main(a, b, c)`: `t = a + a` in the first half of a planned storage, then the planner's
/// group — `t` killed, `d` allocated in the second half, `add4(b, b, d)` — returning
/// `(d, kept)`, varied by `g` so that each condition of compiled code's in-place path fails in
/// one case. A tensor remade in place while still held elsewhere would show in `kept`.
fn group(g: Group) -> Executable {
    let mut ib = B::new();
    let f32 = ib.convert_constant(DataType::F32).unwrap();
    let four = ib.convert_constant(Value::shape(vec![4])).unwrap();
    let eight = ib.convert_constant(Value::shape(vec![8])).unwrap();
    let shape = ib
        .convert_constant(Value::shape(g.shape.unwrap_or(&[4]).to_vec()))
        .unwrap();
    ib.emit_function("main", 3, &["a", "b", "c"]).unwrap();
    let alloc_storage = |ib: &mut B, dst| {
        ib.emit_call(
            "vm.builtin.alloc_storage",
            &[B::vm(), eight, B::imm(0), f32],
            B::r(dst),
        )
        .unwrap()
    };
    alloc_storage(&mut ib, 3);
    alloc_storage(&mut ib, 8);
    ib.emit_call(
        "vm.builtin.alloc_tensor",
        &[B::r(3), B::imm(0), four, f32],
        B::r(4),
    )
    .unwrap();
    ib.emit_call("add4", &[B::r(0), B::r(0), B::r(4)], B::void())
        .unwrap();
    let kept = if g.shared { &[B::r(4)][..] } else { &[][..] };
    ib.emit_call("vm.builtin.make_tuple", kept, B::r(6))
        .unwrap();
    if g.dst_taken {
        ib.emit_call("vm.builtin.make_tuple", &[], B::r(5)).unwrap();
    }
    let kill = if g.kill_param { 2 } else { 4 };
    ib.emit_call("vm.builtin.null_value", &[], B::r(kill))
        .unwrap();
    let storage = if g.other_storage { 8 } else { 3 };
    ib.emit_call(
        "vm.builtin.alloc_tensor",
        &[B::r(storage), B::imm(g.offset.unwrap_or(16)), shape, f32],
        B::r(5),
    )
    .unwrap();
    ib.emit_call("add4", &[B::r(1), B::r(1), B::r(5)], B::void())
        .unwrap();
    ib.emit_call("vm.builtin.make_tuple", &[B::r(5), B::r(6)], B::r(7))
        .unwrap();
    ib.emit_ret(B::r(7)).unwrap();
    ib.end_function("main").unwrap();
    ib.get().unwrap()
}

/// The planner's kill, allocation and kernel call, which compiled code performs as one
/// checked run in place: every condition of that path that fails gives the interpreter's
/// result or error, with and without an instrument and with the builtins replaced.
#[test]
fn the_kill_alloc_kernel_group_gives_way_as_the_interpreter() {
    let ok = "ok [Tensor(shape=[4], dtype=float32, data=[20, 22, 24, 26]), ";
    let rank7 =
        Value::Tensor(Tensor::from_slice(&[1, 1, 1, 1, 1, 1, 4], &[1f32, 2., 3., 4.]).unwrap());
    let d = Group::default();
    let cases: Vec<(&str, Group, [Value; 3], &str)> = vec![
        ("in place", d, [vec4(1.0), vec4(10.0), vec4(0.0)], ok),
        (
            "the killed tensor is held by a tuple",
            Group { shared: true, ..d },
            [vec4(1.0), vec4(10.0), vec4(0.0)],
            "ok [Tensor(shape=[4], dtype=float32, data=[20, 22, 24, 26]), [Tensor(shape=[4], dtype=float32, data=[2, 4, 6, 8])]]",
        ),
        (
            "the killed register holds a parameter",
            Group {
                kill_param: true,
                ..d
            },
            [vec4(1.0), vec4(10.0), vec4(0.0)],
            ok,
        ),
        (
            "the killed register holds an int",
            Group {
                kill_param: true,
                ..d
            },
            [vec4(1.0), vec4(10.0), Value::Int(3)],
            ok,
        ),
        (
            "the killed register holds a tensor of rank 7",
            Group {
                kill_param: true,
                ..d
            },
            [vec4(1.0), vec4(10.0), rank7.clone()],
            ok,
        ),
        (
            "the allocation is in another storage",
            Group {
                other_storage: true,
                ..d
            },
            [vec4(1.0), vec4(10.0), vec4(0.0)],
            ok,
        ),
        (
            "the tensor does not fit",
            Group {
                shape: Some(&[8]),
                ..d
            },
            [vec4(1.0), vec4(10.0), vec4(0.0)],
            "error",
        ),
        (
            "the tensor is past the storage's end",
            Group {
                offset: Some(1 << 20),
                ..d
            },
            [vec4(1.0), vec4(10.0), vec4(0.0)],
            "error",
        ),
        (
            "the destination holds a value",
            Group {
                dst_taken: true,
                ..d
            },
            [vec4(1.0), vec4(10.0), vec4(0.0)],
            ok,
        ),
        (
            "the kernel is handed an int",
            d,
            [vec4(1.0), Value::Int(1), vec4(0.0)],
            "error",
        ),
        (
            "the kernel is handed a tensor of rank 7",
            d,
            [vec4(1.0), rank7, vec4(0.0)],
            "error",
        ),
        (
            "the kernel is handed the new tensor of the wrong shape",
            Group {
                shape: Some(&[2, 2]),
                ..d
            },
            [vec4(1.0), vec4(10.0), vec4(0.0)],
            "error",
        ),
    ];
    for (name, g, args, want) in cases {
        let exec = group(g);
        for (instrument, replace) in [(false, false), (true, false), (false, true)] {
            let [bytecode, compiled] = run_both_with(&exec, &args, instrument, replace);
            let how = format!("{name} (instrumented: {instrument}, replaced: {replace})");
            assert_eq!(bytecode, compiled, "{how}");
            assert!(
                bytecode.0.starts_with(want),
                "{how}: expected {want}, got {}",
                bytecode.0
            );
            if instrument || replace {
                assert!(!bytecode.1.is_empty(), "{how}: nothing was logged");
            }
        }
    }
}

/// A builtin the VM performs inline, replaced by the user (a library function under its name),
/// is called like any packed function in both modes: both consult the function object linked
/// for the Call, not its name.
#[test]
fn replaced_builtins_are_called_in_both_modes() {
    let exec = alloc_and_add(&[4], &[4], 0, true);
    let kernels = kernels();
    let compiled = vmtir::compile(&exec, &kernels).unwrap();
    for (exec, is_compiled) in [(exec, false), ((*compiled.executable).clone(), true)] {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let mut lib = Library::new();
        kernels.add_to(&mut lib);
        if is_compiled {
            compiled.add_to(&mut lib);
        }
        for name in [
            "vm.builtin.alloc_storage",
            "vm.builtin.alloc_tensor",
            "vm.builtin.null_value",
        ] {
            let calls = calls.clone();
            let builtin = vm::Registry::global().get(name).unwrap();
            lib.add_fn(name, move |a: &[Value]| {
                calls.lock().unwrap().push(name);
                builtin.call(a)
            });
        }
        let vm = VirtualMachine::with_library(Arc::new(exec), &lib).unwrap();
        let r = outcome(vm.invoke("main", &[vec4(1.0), vec4(10.0)]));
        assert_eq!(
            r, "ok Ok([11.0, 13.0, 15.0, 17.0])",
            "compiled: {is_compiled}"
        );
        assert_eq!(
            *calls.lock().unwrap(),
            [
                "vm.builtin.alloc_storage",
                "vm.builtin.alloc_tensor",
                "vm.builtin.null_value"
            ],
            "compiled: {is_compiled}"
        );
    }
}

/// A compiled function needs the register file its bytecode was compiled for; a VM handing it
/// a smaller one gets an error, not an out-of-bounds access.
#[test]
fn a_short_register_file_is_an_error() {
    let exec = alloc_and_add(&[4], &[4], 0, true);
    let kernels = kernels();
    let compiled = vmtir::compile(&exec, &kernels).unwrap();
    let mut lib = Library::new();
    kernels.add_to(&mut lib);
    compiled.add_to(&mut lib);
    let mut shrunk = (*compiled.executable).clone();
    shrunk.func_table[0].register_file_size = 3;
    let vm = VirtualMachine::with_library(Arc::new(shrunk), &lib).unwrap();
    let e = vm.invoke("main", &[vec4(0.0), vec4(0.0)]).unwrap_err();
    assert!(e.to_string().contains("needs"), "{e}");
}

/// `count(n) = n == 0 ? 0 : count(n - 1)`, with test functions for the arithmetic.
fn countdown() -> (Executable, Library) {
    let mut ib = B::new();
    ib.emit_function("count", 1, &["n"]).unwrap();
    ib.emit_call("t.is_zero", &[B::r(0)], B::r(1)).unwrap();
    ib.emit_if(B::r(1), 3).unwrap();
    ib.emit_call("vm.builtin.copy", &[B::r(0)], B::r(2))
        .unwrap();
    ib.emit_goto(4);
    ib.emit_call("t.dec", &[B::r(0)], B::r(3)).unwrap();
    ib.emit_call("count", &[B::r(3)], B::r(4)).unwrap();
    ib.emit_call("vm.builtin.copy", &[B::r(4)], B::r(2))
        .unwrap();
    ib.emit_ret(B::r(2)).unwrap();
    ib.end_function("count").unwrap();
    let mut lib = Library::new();
    lib.add_fn("t.is_zero", |a: &[Value]| {
        Ok(Value::Bool(a[0].as_int()? == 0))
    });
    lib.add_fn("t.dec", |a: &[Value]| Ok(Value::Int(a[0].as_int()? - 1)));
    (ib.get().unwrap(), lib)
}

/// [`countdown`] on a bytecode VM and on a VM running it compiled.
fn countdown_vms() -> (VirtualMachine, VirtualMachine) {
    let (exec, lib) = countdown();
    let compiled = vmtir::compile(&exec, &KernelLibrary::default()).unwrap();
    let mut lib_c = lib.clone();
    compiled.add_to(&mut lib_c);
    let bytecode = VirtualMachine::with_library(Arc::new(exec), &lib).unwrap();
    let native = VirtualMachine::with_library(compiled.executable, &lib_c).unwrap();
    (bytecode, native)
}

/// Recursion agrees at every depth: compiled functions nest on the native stack (as TVM's do)
/// and bytecode frames live on the heap, but both count against `max_call_depth`, so a
/// recursion far deeper than a thread's stack holds natively runs in both modes, and one past
/// the limit stops in both with the same error, never a stack overflow. Run on a thread with a
/// small stack, so that the compiled recursion must continue on new stack segments.
#[test]
fn recursion_depth() {
    let (bytecode, native) = countdown_vms();
    let max = vm::VmConfig::default().max_call_depth as i64;
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            for n in [10, max / 2, max - 1, max, max + 1, max * 3] {
                let want = outcome(bytecode.invoke("count", &[Value::Int(n)]));
                let got = outcome(native.invoke("count", &[Value::Int(n)]));
                assert_eq!(got, want, "count({n})");
                if n < max - 1 {
                    assert_eq!(want, "ok 0", "count({n})");
                } else if n > max {
                    assert!(want.contains("maximum call depth exceeded"), "{want}");
                }
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

/// The depth limit counts the frames of the calling thread: threads recursing at once in one
/// VM each get the whole depth.
#[test]
fn recursion_depth_is_per_thread() {
    let (bytecode, native) = countdown_vms();
    let n = vm::VmConfig::default().max_call_depth as i64 - 1;
    std::thread::scope(|s| {
        for vm in [&bytecode, &native, &bytecode, &native] {
            s.spawn(move || {
                for _ in 0..3 {
                    assert_eq!(outcome(vm.invoke("count", &[Value::Int(n)])), "ok 0");
                }
            });
        }
    });
}

/// A compiled module carried through its stored form ([`vmtir::VmtirModule::to_section`],
/// [`vmtir::load`]) runs as compiled; a section cut anywhere is an error, never a panic.
#[test]
fn a_stored_module_loads_and_runs_the_same() {
    let exec = alloc_and_add(&[4], &[4], 0, true);
    let kernels = kernels();
    let compiled = vmtir::compile(&exec, &kernels).unwrap();
    let section = compiled.to_section();
    let loaded = vmtir::load(&compiled.executable, &kernels, &section).unwrap();
    assert_eq!(
        loaded.compiled().collect::<Vec<_>>(),
        compiled.compiled().collect::<Vec<_>>()
    );
    assert_eq!(loaded.to_section(), section, "a load stores what it loaded");
    let run = |m: &vmtir::VmtirModule| {
        let mut lib = Library::new();
        kernels.add_to(&mut lib);
        m.add_to(&mut lib);
        let vm = VirtualMachine::with_library(m.executable.clone(), &lib).unwrap();
        outcome(vm.invoke("main", &[vec4(1.0), vec4(10.0)]))
    };
    assert_eq!(run(&loaded), "ok Ok([11.0, 13.0, 15.0, 17.0])");
    assert_eq!(run(&loaded), run(&compiled));
    for len in 0..section.len() {
        assert!(
            vmtir::load(&compiled.executable, &kernels, &section[..len]).is_err(),
            "a section cut to {len} of {} bytes loaded",
            section.len()
        );
    }
    // The bytecode executable names no compiled function, so the code has no place.
    let err = vmtir::load(&exec, &kernels, &section)
        .unwrap_err()
        .to_string();
    assert!(err.contains("compiled functions"), "{err}");
}
