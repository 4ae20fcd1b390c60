//! The scenarios of TVM's `test_vm_execbuilder.py`, and of `test_vm_codegen_only.py` /
//! `test_vm_build.py` where they need no compiler, as `ExecBuilder` programs run by the VM:
//! arithmetic, immediates, control flow, closures, recursion and its depth limit, constants,
//! the shape-checking builtins as VMShapeLower emits them, errors and recovery, the stateful
//! API, and instrumentation.
//!
//! The test packed functions mirror `tvm.relax.testing.vm` and live in a `Library`, not in the
//! global registry, so tests stay independent.

use std::sync::{Arc, Mutex};

use relaxjit_vm::bytecode::Arg;
use relaxjit_vm::vm::INSTRUMENT_SKIP_RUN;
use relaxjit_vm::{
    DataType, Device, ErrorKind, ExecBuilder, Executable, Library, PackedFunc, Result, Tensor,
    Value, VirtualMachine, VmConfig,
};

type B = ExecBuilder;

fn r(reg: i64) -> Arg {
    B::r(reg)
}
fn imm(v: i64) -> Arg {
    B::imm(v)
}

// ---------------------------------------------------------------------------------------------
// Test packed functions (tvm.relax.testing.vm) and value helpers.

fn f32_data(v: &Value) -> Result<Vec<f32>> {
    v.as_tensor()?.to_vec::<f32>()
}

fn tensor(shape: &[i64], data: &[f32]) -> Value {
    Value::Tensor(Tensor::from_slice(shape, data).unwrap())
}

/// An elementwise binary op on two same-shape float32 tensors, or on two ints.
fn binary(
    name: &'static str,
    op: fn(f32, f32) -> f32,
    iop: fn(i64, i64) -> i64,
) -> impl Fn(&[Value]) -> Result<Value> + Send + Sync {
    move |args| match args {
        [Value::Int(a), Value::Int(b)] => Ok(Value::Int(iop(*a, *b))),
        [a, b] => {
            let (ta, tb) = (a.as_tensor()?, b.as_tensor()?);
            if ta.shape() != tb.shape() {
                return Err(relaxjit_vm::Error::value_error(format!(
                    "{name}: shapes {:?} and {:?} differ",
                    ta.shape(),
                    tb.shape()
                )));
            }
            let (x, y) = (ta.to_vec::<f32>()?, tb.to_vec::<f32>()?);
            let out: Vec<f32> = x.iter().zip(&y).map(|(&p, &q)| op(p, q)).collect();
            Ok(Value::Tensor(Tensor::from_slice(ta.shape(), &out)?))
        }
        _ => Err(relaxjit_vm::Error::value_error(format!(
            "{name} takes 2 arguments, got {}",
            args.len()
        ))),
    }
}

fn lib() -> Library {
    let mut lib = Library::new();
    lib.add_fn(
        "test.vm.add",
        binary("test.vm.add", |a, b| a + b, |a, b| a + b),
    );
    lib.add_fn(
        "test.vm.mul",
        binary("test.vm.mul", |a, b| a * b, |a, b| a * b),
    );
    lib.add_fn("test.vm.add_scalar", |args| {
        Ok(Value::Int(args[0].as_int()? + args[1].as_int()?))
    });
    lib.add_fn("test.vm.move", |args| Ok(args[0].clone()));
    lib.add_fn("test.vm.equal_zero", |args| {
        let all_zero = f32_data(&args[0])?.iter().all(|&x| x == 0.0);
        Ok(Value::Tensor(Tensor::scalar(all_zero)))
    });
    lib.add_fn("test.vm.subtract_one", |args| {
        let t = args[0].as_tensor()?;
        let out: Vec<f32> = t.to_vec::<f32>()?.iter().map(|x| x - 1.0).collect();
        Ok(Value::Tensor(Tensor::from_slice(t.shape(), &out)?))
    });
    // Destination-passing: b[:] = a.
    lib.add_fn("test.vm.identity", |args| {
        // SAFETY: the VM calling this packed function holds `b` in one register of one frame
        // and runs no other instruction meanwhile; the test shares it with no thread.
        unsafe {
            args[1]
                .as_tensor()?
                .copy_from_shared(args[0].as_tensor()?)?
        };
        Ok(Value::Null)
    });
    // Destination-passing: a[:] = 1.
    lib.add_fn("test.vm.full_ones", |args| {
        let t = args[0].as_tensor()?;
        // SAFETY: as for `test.vm.identity`: one VM, one thread, no other access meanwhile.
        unsafe { t.copy_from_slice_shared(&vec![1.0f32; t.numel()])? };
        Ok(Value::Null)
    });
    lib.add_fn("test.vm.get_device_id", |args| match &args[0] {
        Value::Device(d) => Ok(Value::Int(d.device_id as i64)),
        other => Err(relaxjit_vm::Error::type_error(format!(
            "expected a Device, got {}",
            other.type_name()
        ))),
    });
    lib.add_fn("test.vm.check_if_defined", |args| {
        Ok(Value::Bool(!args[0].is_null()))
    });
    lib
}

fn vm_of(exec: Executable) -> VirtualMachine {
    VirtualMachine::with_library(Arc::new(exec), &lib()).unwrap()
}

/// TVM's `check_saved_func`: the direct call and the saved closure give the same result.
fn check_saved_func(vm: &mut VirtualMachine, name: &str, args: &[Value]) -> Value {
    let direct = vm.invoke(name, args).unwrap();
    let saved = format!("{name}_saved");
    vm.save_function(name, &saved, true, args.to_vec()).unwrap();
    let again = vm.invoke(&saved, &[]).unwrap();
    assert_eq!(format!("{direct:?}"), format!("{again:?}"));
    direct
}

/// `name(a, b) = callee(a, b)`.
fn emit_binary(ib: &mut B, name: &str, callee: &str) {
    ib.emit_function(name, 2, &["a", "b"]).unwrap();
    ib.emit_call(callee, &[r(0), r(1)], r(2)).unwrap();
    ib.emit_ret(r(2)).unwrap();
    ib.end_function(name).unwrap();
}

// ---------------------------------------------------------------------------------------------
// test_vm_execbuilder.py

#[test]
fn vm_execute_and_multiple_funcs() {
    let mut ib = B::new();
    emit_binary(&mut ib, "func0", "test.vm.add");
    emit_binary(&mut ib, "func1", "test.vm.mul");
    let mut vm = vm_of(ib.get().unwrap());
    let a = tensor(&[4], &[1.0, 2.0, 3.0, 4.0]);
    let b = tensor(&[4], &[5.0, 6.0, 7.0, 8.0]);
    let sum = check_saved_func(&mut vm, "func0", &[a.clone(), b.clone()]);
    assert_eq!(f32_data(&sum).unwrap(), [6.0, 8.0, 10.0, 12.0]);
    let prod = vm.invoke("func1", &[a, b]).unwrap();
    assert_eq!(f32_data(&prod).unwrap(), [5.0, 12.0, 21.0, 32.0]);
}

#[test]
fn vm_checker_rejects_undefined_registers() {
    let mut ib = B::new();
    ib.emit_function("func0", 2, &[]).unwrap();
    ib.emit_call("test.vm.add", &[r(0), r(2)], r(2)).unwrap();
    ib.emit_ret(r(2)).unwrap();
    ib.end_function("func0").unwrap();
    assert!(ib.get().is_err());
}

#[test]
fn neg_imm_is_sign_extended() {
    let mut ib = B::new();
    ib.emit_function("main", 1, &["x"]).unwrap();
    ib.emit_call("test.vm.add_scalar", &[imm(-3), r(0)], r(1))
        .unwrap();
    ib.emit_ret(r(1)).unwrap();
    ib.end_function("main").unwrap();
    let vm = vm_of(ib.get().unwrap());
    for (x, expected) in [(1, -2), (-3, -6), (0, -3), (1 << 40, (1 << 40) - 3)] {
        let out = vm.invoke("main", &[Value::Int(x)]).unwrap();
        assert_eq!(out.as_int().unwrap(), expected);
    }
}

#[test]
fn emit_cache_deduplicates_constants() {
    let mut ib = B::new();
    let t = || Value::Tensor(Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap());
    let s0 = ib.convert_constant("str").unwrap();
    let s1 = ib.convert_constant("str").unwrap();
    let sh0 = ib.convert_constant(Value::shape(vec![1, 2])).unwrap();
    let sh1 = ib.convert_constant(Value::shape(vec![1, 2])).unwrap();
    let sh2 = ib.convert_constant(Value::shape(vec![1, 2, 3])).unwrap();
    let t0 = ib.convert_constant(t()).unwrap();
    let t1 = ib.convert_constant(t()).unwrap();
    assert_eq!(s0, s1);
    assert_eq!(sh0, sh1);
    assert_ne!(sh0, sh2);
    assert_eq!(t0, t1);
    // Small ints are immediates; a value beyond 56 bits goes to the pool.
    assert_eq!(ib.convert_constant(Value::Int(7)).unwrap(), imm(7));
    let big = ib.convert_constant(Value::Int(1 << 60)).unwrap();
    assert_ne!(big, imm(0));
}

#[test]
fn vm_formalize_renumbers_registers() {
    let build = |r1: i64, r2: i64| {
        let mut ib = B::new();
        ib.emit_function("main", 2, &["a", "b"]).unwrap();
        ib.emit_call("test.vm.add", &[r(0), r(1)], r(r1)).unwrap();
        ib.emit_call("test.vm.add", &[r(r1), r(r1)], r(r2)).unwrap();
        ib.emit_ret(r(r2)).unwrap();
        ib.end_function("main").unwrap();
        ib.get().unwrap()
    };
    let (a, b) = (build(100, 50), build(2, 3));
    assert_eq!(a.instr_data, b.instr_data);
    assert_eq!(a.func_table, b.func_table);
    assert_eq!(a.func_table[0].register_file_size, 4);
    // TVM's verified encoding of this program (reference §1.3).
    assert_eq!(&b.instr_data[..12], &[1, 2, 1, 2, 0, 1, 1, 3, 1, 2, 2, 2]);
}

#[test]
fn vm_operand_pod_values() {
    let mut ib = B::new();
    ib.emit_function("add_imm", 0, &[]).unwrap();
    ib.emit_call("test.vm.add_scalar", &[imm(2), imm(3)], r(0))
        .unwrap();
    ib.emit_ret(r(0)).unwrap();
    ib.end_function("add_imm").unwrap();
    ib.emit_function("device_id", 1, &["dev"]).unwrap();
    ib.emit_call("test.vm.get_device_id", &[r(0)], r(1))
        .unwrap();
    ib.emit_ret(r(1)).unwrap();
    ib.end_function("device_id").unwrap();
    let vm = vm_of(ib.get().unwrap());
    assert_eq!(vm.invoke("add_imm", &[]).unwrap().as_int().unwrap(), 5);
    let dev = Value::Device(Device::cpu(3));
    assert_eq!(vm.invoke("device_id", &[dev]).unwrap().as_int().unwrap(), 3);
}

#[test]
fn vm_shapeof_of_a_constant() {
    let mut ib = B::new();
    let c = ib
        .convert_constant(Tensor::zeros(&[3, 4, 5], DataType::F32).unwrap())
        .unwrap();
    ib.emit_function("main", 0, &[]).unwrap();
    ib.emit_call("vm.builtin.shape_of", &[c], r(0)).unwrap();
    ib.emit_ret(r(0)).unwrap();
    ib.end_function("main").unwrap();
    let vm = vm_of(ib.get().unwrap());
    let s = vm.invoke("main", &[]).unwrap();
    assert_eq!(s.as_shape().unwrap().dims(), [3, 4, 5]);
}

#[test]
fn vm_storage() {
    let mut ib = B::new();
    let size = ib.convert_constant(Value::shape(vec![24])).unwrap();
    let shape = ib.convert_constant(Value::shape(vec![4, 6])).unwrap();
    let f32 = ib.convert_constant(DataType::F32).unwrap();
    let global = ib.convert_constant("global").unwrap();
    ib.emit_function("main", 0, &[]).unwrap();
    ib.emit_call(
        "vm.builtin.alloc_storage",
        &[B::vm(), size, imm(0), f32, global],
        r(1),
    )
    .unwrap();
    ib.emit_call("vm.builtin.alloc_tensor", &[r(1), imm(0), shape, f32], r(2))
        .unwrap();
    ib.emit_ret(r(2)).unwrap();
    ib.end_function("main").unwrap();
    let vm = vm_of(ib.get().unwrap());
    let t = vm.invoke("main", &[]).unwrap();
    let t = t.as_tensor().unwrap();
    assert_eq!(t.device(), Device::cpu(0));
    assert_eq!((t.shape(), t.dtype()), (&[4i64, 6][..], DataType::F32));
}

/// `main(a, b)`: `add → r2; goto 2; mul → r2; ret r2`.
#[test]
fn vm_goto() {
    let mut ib = B::new();
    ib.emit_function("main", 2, &["a", "b"]).unwrap();
    ib.emit_call("test.vm.add", &[r(0), r(1)], r(2)).unwrap();
    ib.emit_goto(2);
    ib.emit_call("test.vm.mul", &[r(0), r(1)], r(2)).unwrap();
    ib.emit_ret(r(2)).unwrap();
    ib.end_function("main").unwrap();
    let vm = vm_of(ib.get().unwrap());
    let out = vm
        .invoke(
            "main",
            &[tensor(&[2], &[1.0, 2.0]), tensor(&[2], &[3.0, 4.0])],
        )
        .unwrap();
    assert_eq!(f32_data(&out).unwrap(), [4.0, 6.0]);
}

/// `main(cond, a, b)`: `If r0, 3; add; goto 2; mul; ret` — a Python int condition.
#[test]
fn vm_if() {
    let mut ib = B::new();
    ib.emit_function("main", 3, &["cond", "a", "b"]).unwrap();
    ib.emit_if(r(0), 3).unwrap();
    ib.emit_call("test.vm.add", &[r(1), r(2)], r(3)).unwrap();
    ib.emit_goto(2);
    ib.emit_call("test.vm.mul", &[r(1), r(2)], r(3)).unwrap();
    ib.emit_ret(r(3)).unwrap();
    ib.end_function("main").unwrap();
    let vm = vm_of(ib.get().unwrap());
    let (a, b) = (tensor(&[2], &[2.0, 3.0]), tensor(&[2], &[4.0, 5.0]));
    let cases = [
        (Value::Int(0), [8.0, 15.0]),
        (Value::Int(1), [6.0, 8.0]),
        (Value::Int(-7), [6.0, 8.0]),
        (Value::Bool(false), [8.0, 15.0]),
        (Value::Bool(true), [6.0, 8.0]),
    ];
    for (cond, expected) in cases {
        let out = vm.invoke("main", &[cond.clone(), a.clone(), b.clone()]);
        assert_eq!(f32_data(&out.unwrap()).unwrap(), expected, "{cond:?}");
    }
    // A non-integer condition register is an error, not a panic.
    let err = vm.invoke("main", &[Value::str("yes"), a, b]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Type, "{err}");
}

/// `lifted_func_1(a, b, c, d) = (a, b, c, d)`; `main(w, x) = make_closure(lifted_func_1, w, x)`.
/// Invoking the closure with `(y, z)` calls `lifted_func_1(y, z, w, x)`: captured values last.
#[test]
fn vm_invoke_closure_binds_captured_values_last() {
    let mut ib = B::new();
    ib.emit_function("lifted_func_1", 4, &["a", "b", "c", "d"])
        .unwrap();
    ib.emit_call("vm.builtin.make_tuple", &[r(0), r(1), r(2), r(3)], r(4))
        .unwrap();
    ib.emit_ret(r(4)).unwrap();
    ib.end_function("lifted_func_1").unwrap();
    ib.emit_function("sum4", 4, &["a", "b", "c", "d"]).unwrap();
    ib.emit_call("test.vm.add", &[r(0), r(1)], r(4)).unwrap();
    ib.emit_call("test.vm.add", &[r(4), r(2)], r(5)).unwrap();
    ib.emit_call("test.vm.add", &[r(5), r(3)], r(6)).unwrap();
    ib.emit_ret(r(6)).unwrap();
    ib.end_function("sum4").unwrap();
    for callee in ["lifted_func_1", "sum4"] {
        let main = format!("main_{callee}");
        ib.emit_function(&main, 2, &["w", "x"]).unwrap();
        let f = ib.f(callee).unwrap();
        ib.emit_call("vm.builtin.make_closure", &[f, r(0), r(1)], r(2))
            .unwrap();
        ib.emit_ret(r(2)).unwrap();
        ib.end_function(&main).unwrap();
    }
    let vm = vm_of(ib.get().unwrap());
    let (w, x, y, z) = (Value::Int(1), Value::Int(2), Value::Int(3), Value::Int(4));
    let clo = vm
        .invoke("main_lifted_func_1", &[w.clone(), x.clone()])
        .unwrap();
    let order = vm.invoke_closure(&clo, &[y, z]).unwrap();
    let order: Vec<i64> = order
        .as_tuple()
        .unwrap()
        .iter()
        .map(|v| v.as_int().unwrap())
        .collect();
    assert_eq!(order, [3, 4, 1, 2]);
    let t = |v: f32| tensor(&[1], &[v]);
    let clo = vm.invoke("main_sum4", &[t(1.0), t(10.0)]).unwrap();
    let out = vm.invoke_closure(&clo, &[t(100.0), t(1000.0)]).unwrap();
    assert_eq!(f32_data(&out).unwrap(), [1111.0]);
}

/// `main(x)` checks `x: R.Tensor((2, 3), "float32")` in a nested VM function; a failing call
/// unwinds every frame, and the next call succeeds (test_vm_stack_restore_after_failure).
#[test]
fn vm_stack_restore_after_failure() {
    let mut ib = B::new();
    let f32 = ib.convert_constant(DataType::F32).unwrap();
    let ctx = ib
        .convert_constant("ErrorContext(fn=inner, loc=param[0], param=x) ")
        .unwrap();
    ib.emit_function("inner", 1, &["x"]).unwrap();
    ib.emit_call(
        "vm.builtin.check_tensor_info",
        &[r(0), imm(2), f32, ctx],
        B::void(),
    )
    .unwrap();
    ib.emit_call(
        "vm.builtin.match_shape",
        &[r(0), B::void(), imm(2), imm(0), imm(2), imm(0), imm(3), ctx],
        B::void(),
    )
    .unwrap();
    ib.emit_call("test.vm.mul", &[r(0), r(0)], r(1)).unwrap();
    ib.emit_ret(r(1)).unwrap();
    ib.end_function("inner").unwrap();
    ib.emit_function("main", 1, &["x"]).unwrap();
    let inner = ib.f("inner").unwrap();
    ib.emit_call("vm.builtin.copy", &[r(0)], r(1)).unwrap();
    ib.emit_call_func(inner, &[r(1)], r(2)).unwrap();
    ib.emit_ret(r(2)).unwrap();
    ib.end_function("main").unwrap();
    let vm = vm_of(ib.get().unwrap());
    let bad = tensor(&[3, 2], &[1.0; 6]);
    for _ in 0..3 {
        let err = vm.invoke("main", std::slice::from_ref(&bad)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Runtime, "{err}");
        assert!(
            err.message()
                .contains("param=x) match_cast error, shape[0] mismatch to specified constant"),
            "{err}"
        );
        assert_eq!(err.trace(), ["inner", "main"], "{err}");
    }
    let good = tensor(&[2, 3], &[2.0; 6]);
    let out = vm.invoke("main", &[good]).unwrap();
    assert_eq!(f32_data(&out).unwrap(), [4.0; 6]);
}

// ---------------------------------------------------------------------------------------------
// test_vm_codegen_only.py

/// One function `main(x) = builtin(args…)` per case; the result is compared by its Debug form.
#[test]
fn single_builtin_programs() {
    struct Case {
        name: &'static str,
        callee: &'static str,
        args: fn(&mut B) -> Vec<Arg>,
        input: Value,
        expected: &'static str,
    }
    let x = tensor(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let cases = [
        Case {
            name: "test_vm_copy",
            callee: "vm.builtin.copy",
            args: |_| vec![r(0)],
            input: x.clone(),
            expected: "Tensor(shape=[2, 2], dtype=float32, data=[1, 2, 3, 4])",
        },
        Case {
            name: "test_vm_to_device",
            callee: "vm.builtin.to_device",
            args: |_| vec![r(0), imm(1), imm(0)],
            input: x.clone(),
            expected: "Tensor(shape=[2, 2], dtype=float32, data=[1, 2, 3, 4])",
        },
        Case {
            name: "test_prim_value",
            callee: "vm.builtin.copy",
            args: |_| vec![imm(1)],
            input: Value::Null,
            expected: "1",
        },
        Case {
            name: "test_string_imm",
            callee: "vm.builtin.copy",
            args: |ib| vec![ib.convert_constant("hello").unwrap()],
            input: Value::Null,
            expected: "\"hello\"",
        },
        Case {
            name: "test_datatype_imm",
            callee: "vm.builtin.copy",
            args: |ib| vec![ib.convert_constant(DataType::F32).unwrap()],
            input: Value::Null,
            expected: "dtype(float32)",
        },
        Case {
            name: "test_vm_builtin_reshape",
            callee: "vm.builtin.reshape",
            args: |ib| vec![r(0), ib.convert_constant(Value::shape(vec![4, 1])).unwrap()],
            input: x.clone(),
            expected: "Tensor(shape=[4, 1], dtype=float32, data=[1, 2, 3, 4])",
        },
        Case {
            name: "test_vm_return_const_tuple",
            callee: "vm.builtin.make_tuple",
            args: |ib| {
                let c0 = ib
                    .convert_constant(Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap())
                    .unwrap();
                let c1 = ib
                    .convert_constant(Tensor::from_slice(&[2], &[3.0f32, 4.0]).unwrap())
                    .unwrap();
                vec![c0, c1, r(0)]
            },
            input: Value::Int(5),
            expected: "[Tensor(shape=[2], dtype=float32, data=[1, 2]), Tensor(shape=[2], dtype=float32, data=[3, 4]), 5]",
        },
    ];
    for case in cases {
        let mut ib = B::new();
        let args = (case.args)(&mut ib);
        ib.emit_function("main", 1, &["x"]).unwrap();
        ib.emit_call(case.callee, &args, r(1)).unwrap();
        ib.emit_ret(r(1)).unwrap();
        ib.end_function("main").unwrap();
        let mut vm = vm_of(ib.get().unwrap());
        let out = check_saved_func(&mut vm, "main", std::slice::from_ref(&case.input));
        assert_eq!(format!("{out:?}"), case.expected, "{}", case.name);
    }
}

/// `ife(cond, x)`: `read_if_cond`, then x+x or x*x (test_if_cond, test_if_cond_const).
#[test]
fn if_cond_through_read_if_cond() {
    let build = |const_cond: Option<bool>| {
        let mut ib = B::new();
        let c = const_cond.map(|b| ib.convert_constant(Tensor::scalar(b)).unwrap());
        ib.emit_function("ife", 2, &["cond", "x"]).unwrap();
        ib.emit_call("vm.builtin.read_if_cond", &[c.unwrap_or(r(0))], r(2))
            .unwrap();
        ib.emit_if(r(2), 3).unwrap();
        ib.emit_call("test.vm.add", &[r(1), r(1)], r(3)).unwrap();
        ib.emit_goto(2);
        ib.emit_call("test.vm.mul", &[r(1), r(1)], r(3)).unwrap();
        ib.emit_ret(r(3)).unwrap();
        ib.end_function("ife").unwrap();
        vm_of(ib.get().unwrap())
    };
    let x = tensor(&[3], &[1.0, 2.0, 3.0]);
    let (sum, prod) = ([2.0, 4.0, 6.0], [1.0, 4.0, 9.0]);
    let vm = build(None);
    let cases = [
        (Value::Tensor(Tensor::scalar(1i32)), sum),
        (Value::Bool(true), sum),
        (Value::Int(0), prod),
        (Value::Bool(false), prod),
        (Value::Tensor(Tensor::scalar(false)), prod),
    ];
    for (cond, expected) in cases {
        let out = vm.invoke("ife", &[cond.clone(), x.clone()]).unwrap();
        assert_eq!(f32_data(&out).unwrap(), expected, "{cond:?}");
    }
    for (c, expected) in [(true, sum), (false, prod)] {
        let out = build(Some(c)).invoke("ife", &[Value::Null, x.clone()]);
        assert_eq!(f32_data(&out.unwrap()).unwrap(), expected);
    }
}

/// `main(x) = add(add(c0, c1), x)` (test_vm_const_as_call_arg).
#[test]
fn const_as_call_arg() {
    let mut ib = B::new();
    let c0 = ib.convert_constant(Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap());
    let c1 = ib.convert_constant(Tensor::from_slice(&[2], &[3.0f32, 4.0]).unwrap());
    ib.emit_function("main", 1, &["x"]).unwrap();
    ib.emit_call("test.vm.add", &[c0.unwrap(), c1.unwrap()], r(1))
        .unwrap();
    ib.emit_call("test.vm.add", &[r(1), r(0)], r(2)).unwrap();
    ib.emit_ret(r(2)).unwrap();
    ib.end_function("main").unwrap();
    let out = vm_of(ib.get().unwrap())
        .invoke("main", &[tensor(&[2], &[10.0, 20.0])])
        .unwrap();
    assert_eq!(f32_data(&out).unwrap(), [14.0, 26.0]);
}

/// Constants of every kind the pool holds come back out unchanged.
#[test]
fn constants_of_every_kind() {
    let values = [
        Value::Int(1 << 60),
        Value::Int(-(1 << 58)),
        Value::Float(2.5),
        Value::DType(DataType::BF16),
        Value::str("a string"),
        Value::shape(vec![3, 0, 7]),
        Value::Tensor(Tensor::from_slice(&[2, 1], &[7i64, -8]).unwrap()),
        Value::Tensor(Tensor::scalar(half::f16::from_f32(1.5))),
    ];
    let mut ib = B::new();
    ib.emit_function("main", 0, &[]).unwrap();
    let args: Vec<Arg> = values
        .iter()
        .map(|v| ib.convert_constant(v.clone()).unwrap())
        .collect();
    ib.emit_call("vm.builtin.make_tuple", &args, r(0)).unwrap();
    ib.emit_ret(r(0)).unwrap();
    ib.end_function("main").unwrap();
    let exec = ib.get().unwrap();
    assert_eq!(exec.constants.len(), values.len());
    let out = vm_of(exec).invoke("main", &[]).unwrap();
    assert_eq!(
        format!("{out:?}"),
        format!("{:?}", Value::tuple(values.to_vec()))
    );
}

/// The shape-checking prologue VMShapeLower emits (test_shape_check_builtin): store n and m,
/// return `Shape([m, n, 2])`.
#[test]
fn shape_check_builtin() {
    let mut ib = B::new();
    let f32 = ib.convert_constant(DataType::F32).unwrap();
    let err = ib.convert_constant("").unwrap();
    ib.emit_function("main", 1, &["x"]).unwrap();
    ib.emit_call("vm.builtin.alloc_shape_heap", &[B::vm(), imm(3)], r(1))
        .unwrap();
    ib.emit_call(
        "vm.builtin.check_tensor_info",
        &[r(0), imm(2), f32, err],
        B::void(),
    )
    .unwrap();
    ib.emit_call(
        "vm.builtin.match_shape",
        &[r(0), r(1), imm(2), imm(1), imm(0), imm(1), imm(1), err],
        B::void(),
    )
    .unwrap();
    ib.emit_call(
        "vm.builtin.make_shape",
        &[r(1), imm(3), imm(1), imm(1), imm(1), imm(0), imm(0), imm(2)],
        r(2),
    )
    .unwrap();
    ib.emit_ret(r(2)).unwrap();
    ib.end_function("main").unwrap();
    let vm = vm_of(ib.get().unwrap());
    let out = vm.invoke("main", &[tensor(&[1, 2], &[0.0; 2])]).unwrap();
    assert_eq!(out.as_shape().unwrap().dims(), [2, 1, 2]);
    let cases = [
        (Value::tuple(vec![]), ErrorKind::Type, "expect a Tensor"),
        (tensor(&[2], &[0.0; 2]), ErrorKind::Value, "ndim"),
        (
            Value::Tensor(Tensor::zeros(&[1, 2], DataType::I32).unwrap()),
            ErrorKind::Value,
            "dtype",
        ),
    ];
    for (input, kind, fragment) in cases {
        let err = vm.invoke("main", &[input]).unwrap_err();
        assert_eq!(err.kind(), kind, "{err}");
        assert!(err.message().contains(fragment), "{err}");
    }
}

/// Storage reuse and `kill_object` (null_value into the register): test_vm_kill_object and
/// test_preserve_trivial_bindings. Killed registers read None; their aliases stay defined.
#[test]
fn kill_object_and_preserved_aliases() {
    let mut ib = B::new();
    let size = ib.convert_constant(Value::shape(vec![16])).unwrap();
    let shape = ib.convert_constant(Value::shape(vec![4])).unwrap();
    let u8t = ib.convert_constant(DataType::U8).unwrap();
    let f32 = ib.convert_constant(DataType::F32).unwrap();
    let global = ib.convert_constant("global").unwrap();
    ib.emit_function("main", 0, &[]).unwrap();
    ib.emit_call(
        "vm.builtin.alloc_storage",
        &[B::vm(), size, imm(0), u8t, global],
        r(1),
    )
    .unwrap();
    ib.emit_call("vm.builtin.alloc_tensor", &[r(1), imm(0), shape, f32], r(2))
        .unwrap();
    ib.emit_call("test.vm.full_ones", &[r(2)], B::void())
        .unwrap();
    ib.emit_call("vm.builtin.copy", &[r(1)], r(3)).unwrap(); // storage_alias = storage
    ib.emit_call("vm.builtin.copy", &[r(2)], r(4)).unwrap(); // alloc_alias = alloc
    let defined = |ib: &mut B, reg: i64, dst: i64| {
        ib.emit_call("test.vm.check_if_defined", &[r(reg)], r(dst))
            .unwrap()
    };
    defined(&mut ib, 1, 10);
    defined(&mut ib, 2, 11);
    defined(&mut ib, 3, 12);
    defined(&mut ib, 4, 13);
    ib.emit_call("vm.builtin.null_value", &[], r(1)).unwrap(); // kill_object(storage)
    ib.emit_call("vm.builtin.null_value", &[], r(2)).unwrap(); // kill_object(alloc)
    defined(&mut ib, 1, 14);
    defined(&mut ib, 2, 15);
    defined(&mut ib, 3, 16);
    defined(&mut ib, 4, 17);
    ib.emit_call(
        "vm.builtin.make_tuple",
        &[r(10), r(11), r(12), r(13), r(14), r(15), r(16), r(17), r(4)],
        r(20),
    )
    .unwrap();
    ib.emit_ret(r(20)).unwrap();
    ib.end_function("main").unwrap();
    let out = vm_of(ib.get().unwrap()).invoke("main", &[]).unwrap();
    let fields = out.as_tuple().unwrap();
    let flags: Vec<bool> = fields[..8].iter().map(|v| v.as_bool().unwrap()).collect();
    assert_eq!(flags, [true, true, true, true, false, false, true, true]);
    assert_eq!(f32_data(&fields[8]).unwrap(), [1.0; 4]);
}

// ---------------------------------------------------------------------------------------------
// test_vm_build.py, hand-lowered

/// `R.call_pure_packed("test.vm.identity", x, y)` returning `y` (test_vm_compile_simple).
#[test]
fn compile_simple_dps_identity() {
    let mut ib = B::new();
    ib.emit_function("foo", 2, &["x", "y"]).unwrap();
    ib.emit_call("test.vm.identity", &[r(0), r(1)], B::void())
        .unwrap();
    ib.emit_ret(r(1)).unwrap();
    ib.end_function("foo").unwrap();
    let vm = vm_of(ib.get().unwrap());
    let (x, y) = (tensor(&[3], &[1.0, 2.0, 3.0]), tensor(&[3], &[0.0; 3]));
    let out = vm.invoke("foo", &[x, y.clone()]).unwrap();
    assert!(out.as_tensor().unwrap().ptr_eq(y.as_tensor().unwrap()));
    assert_eq!(f32_data(&y).unwrap(), [1.0, 2.0, 3.0]);
}

/// `foo(x: Tensor((n, m), "int32"), y) -> Tensor((m, n))`, with the return check VMShapeLower
/// emits (test_match_check).
#[test]
fn match_check_on_return() {
    let mut ib = B::new();
    let i32t = ib.convert_constant(DataType::I32).unwrap();
    let pctx = ib
        .convert_constant("ErrorContext(fn=foo, loc=param[0], param=x) ")
        .unwrap();
    let rctx = ib
        .convert_constant("ErrorContext(fn=foo, loc=return, annotation=R.Tensor((m, n))) ")
        .unwrap();
    ib.emit_function("foo", 2, &["x", "y"]).unwrap();
    ib.emit_call("vm.builtin.alloc_shape_heap", &[B::vm(), imm(2)], r(2))
        .unwrap();
    ib.emit_call(
        "vm.builtin.check_tensor_info",
        &[r(0), imm(2), i32t, pctx],
        B::void(),
    )
    .unwrap();
    ib.emit_call(
        "vm.builtin.match_shape",
        &[r(0), r(2), imm(2), imm(1), imm(0), imm(1), imm(1), pctx],
        B::void(),
    )
    .unwrap();
    ib.emit_call(
        "vm.builtin.check_tensor_info",
        &[r(1), imm(2), B::void(), rctx],
        B::void(),
    )
    .unwrap();
    ib.emit_call(
        "vm.builtin.match_shape",
        &[r(1), r(2), imm(2), imm(3), imm(1), imm(3), imm(0), rctx],
        B::void(),
    )
    .unwrap();
    ib.emit_ret(r(1)).unwrap();
    ib.end_function("foo").unwrap();
    let vm = vm_of(ib.get().unwrap());
    let int = |shape: &[i64]| Value::Tensor(Tensor::zeros(shape, DataType::I32).unwrap());
    let ok = vm.invoke("foo", &[int(&[1, 2]), int(&[2, 1])]).unwrap();
    assert_eq!(ok.as_tensor().unwrap().shape(), [2, 1]);
    let cases = [
        (int(&[1, 2]), ErrorKind::Runtime),
        (int(&[2, 1, 1]), ErrorKind::Value),
    ];
    for (y, kind) in cases {
        let err = vm.invoke("foo", &[int(&[1, 2]), y]).unwrap_err();
        assert_eq!(err.kind(), kind, "{err}");
        assert!(err.message().contains("loc=return"), "{err}");
    }
}

/// `main(shape: R.Shape(["m", "n"])) -> R.shape([2m, 3n])`: the heap, a host shape function
/// computing the compound slots, and make_shape (test_vm_relax_symbolic_shape_tuple).
#[test]
fn symbolic_shape_tuple_with_shape_func() {
    let mut lib = lib();
    lib.add_fn("shape_func", |args| {
        let heap = args[0].as_tensor()?;
        let mut h = heap.to_vec::<i64>()?;
        h[2] = h[0] * 2;
        h[3] = h[1] * 3;
        // SAFETY: the shape heap belongs to the calling VM frame, which waits for this call;
        // no other thread sees it.
        unsafe { heap.copy_from_slice_shared(&h)? };
        Ok(Value::Null)
    });
    let mut ib = B::new();
    let ctx = ib
        .convert_constant("ErrorContext(fn=main, loc=param[0]) ")
        .unwrap();
    ib.emit_function("main", 1, &["shape"]).unwrap();
    ib.emit_call("vm.builtin.alloc_shape_heap", &[B::vm(), imm(4)], r(1))
        .unwrap();
    ib.emit_call(
        "vm.builtin.check_shape_info",
        &[r(0), imm(2), ctx],
        B::void(),
    )
    .unwrap();
    ib.emit_call(
        "vm.builtin.match_shape",
        &[r(0), r(1), imm(2), imm(1), imm(0), imm(1), imm(1), ctx],
        B::void(),
    )
    .unwrap();
    ib.emit_call("shape_func", &[r(1)], B::void()).unwrap();
    ib.emit_call(
        "vm.builtin.make_shape",
        &[r(1), imm(2), imm(1), imm(2), imm(1), imm(3)],
        r(2),
    )
    .unwrap();
    ib.emit_ret(r(2)).unwrap();
    ib.end_function("main").unwrap();
    let vm = VirtualMachine::with_library(Arc::new(ib.get().unwrap()), &lib).unwrap();
    let out = vm.invoke("main", &[Value::shape(vec![2, 3])]).unwrap();
    assert_eq!(out.as_shape().unwrap().dims(), [4, 9]);
    let err = vm
        .invoke("main", &[Value::shape(vec![2, 3, 4])])
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Value, "{err}");
    let err = vm.invoke("main", &[Value::Int(2)]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Type, "{err}");
}

/// The bytecode TVM generates for `test_recursion` (reference §2.4, example 2), verbatim.
fn recursion_exec() -> Executable {
    let mut ib = B::new();
    let f32 = ib.convert_constant(DataType::F32).unwrap();
    let ctx = ib
        .convert_constant("ErrorContext(fn=recursion, loc=param[0], param=n) ")
        .unwrap();
    let one = ib.convert_constant(Tensor::scalar(1.0f32)).unwrap();
    ib.emit_function("recursion", 1, &["n"]).unwrap();
    ib.emit_call(
        "vm.builtin.check_tensor_info",
        &[r(0), imm(1), f32, ctx],
        B::void(),
    )
    .unwrap();
    ib.emit_call(
        "vm.builtin.match_shape",
        &[r(0), B::void(), imm(1), imm(0), imm(1), ctx],
        B::void(),
    )
    .unwrap();
    ib.emit_call("test.vm.equal_zero", &[r(0)], r(1)).unwrap();
    ib.emit_call("vm.builtin.read_if_cond", &[r(1)], r(2))
        .unwrap();
    ib.emit_if(r(2), 3).unwrap();
    ib.emit_call("vm.builtin.copy", &[one], r(3)).unwrap();
    ib.emit_goto(9);
    ib.emit_call("test.vm.subtract_one", &[r(0)], r(4)).unwrap();
    ib.emit_call("recursion", &[r(4)], r(5)).unwrap();
    ib.emit_call("vm.builtin.null_value", &[], r(4)).unwrap();
    ib.emit_call("test.vm.add", &[r(5), r(5)], r(6)).unwrap();
    ib.emit_call("vm.builtin.null_value", &[], r(5)).unwrap();
    ib.emit_call("vm.builtin.copy", &[r(6)], r(7)).unwrap();
    ib.emit_call("vm.builtin.null_value", &[], r(6)).unwrap();
    ib.emit_call("vm.builtin.copy", &[r(7)], r(3)).unwrap();
    ib.emit_ret(r(3)).unwrap();
    ib.end_function("recursion").unwrap();
    ib.get().unwrap()
}

#[test]
fn recursion_computes_powers_of_two() {
    let vm = vm_of(recursion_exec());
    for k in [0, 1, 4, 10, 30] {
        let out = vm
            .invoke("recursion", &[tensor(&[1], &[k as f32])])
            .unwrap();
        assert_eq!(f32_data(&out).unwrap(), [2f32.powi(k)], "k = {k}");
    }
    // A wrong input still fails cleanly after deep recursion.
    let err = vm
        .invoke("recursion", &[tensor(&[2], &[1.0, 2.0])])
        .unwrap_err();
    assert!(err.message().contains("shape[0] mismatch"), "{err}");
}

/// Unbounded recursion is an error, not a stack overflow: through bytecode calls (frames on
/// the VM's own stack) and through `invoke_closure` (native re-entry). The VM is usable after.
#[test]
fn unbounded_recursion_hits_the_depth_limit() {
    let mut ib = B::new();
    ib.emit_function("forever", 1, &["x"]).unwrap();
    ib.emit_call("forever", &[r(0)], r(1)).unwrap();
    ib.emit_ret(r(1)).unwrap();
    ib.end_function("forever").unwrap();
    ib.emit_function("forever_closure", 1, &["x"]).unwrap();
    let me = ib.f("forever_closure").unwrap();
    ib.emit_call("vm.builtin.invoke_closure", &[B::vm(), me, r(0)], r(1))
        .unwrap();
    ib.emit_ret(r(1)).unwrap();
    ib.end_function("forever_closure").unwrap();
    ib.emit_function("ok", 1, &["x"]).unwrap();
    ib.emit_call("vm.builtin.copy", &[r(0)], r(1)).unwrap();
    ib.emit_ret(r(1)).unwrap();
    ib.end_function("ok").unwrap();
    let exec = Arc::new(ib.get().unwrap());
    let configs = [
        VmConfig::default(),
        VmConfig {
            max_call_depth: 50,
            ..VmConfig::default()
        },
    ];
    for config in configs {
        let vm = VirtualMachine::new(exec.clone(), &lib(), config).unwrap();
        for name in ["forever", "forever_closure"] {
            for _ in 0..2 {
                let err = vm.invoke(name, &[Value::Int(1)]).unwrap_err();
                assert_eq!(err.kind(), ErrorKind::Runtime, "{err}");
                assert!(
                    err.message().contains("maximum call depth exceeded"),
                    "{err}"
                );
            }
            assert_eq!(
                vm.invoke("ok", &[Value::Int(7)]).unwrap().as_int().unwrap(),
                7
            );
        }
    }
}

/// `main` calls other VM functions, one of them into `%void` (TVM's quirk in §3.7 is not
/// reproduced: a void destination is dropped) (test_sub_func_call).
#[test]
fn sub_func_calls() {
    let mut ib = B::new();
    emit_binary(&mut ib, "relax_add", "test.vm.add");
    emit_binary(&mut ib, "relax_mul", "test.vm.mul");
    ib.emit_function("main", 2, &["x", "w"]).unwrap();
    ib.emit_call("relax_add", &[r(0), r(1)], r(2)).unwrap();
    ib.emit_call("relax_add", &[r(0), r(1)], B::void()).unwrap();
    ib.emit_call("relax_mul", &[r(2), r(2)], r(3)).unwrap();
    ib.emit_ret(r(3)).unwrap();
    ib.end_function("main").unwrap();
    let vm = vm_of(ib.get().unwrap());
    let out = vm
        .invoke(
            "main",
            &[tensor(&[2], &[1.0, 2.0]), tensor(&[2], &[2.0, 3.0])],
        )
        .unwrap();
    assert_eq!(f32_data(&out).unwrap(), [9.0, 25.0]);
}

/// `main(x, y) = invoke_closure(make_closure(lifted_func_1, x), y)` = x + y (test_vm_closure),
/// and tuples in and out (test_vm_tuple, test_vm_tuplegetitem).
#[test]
fn closures_and_tuples() {
    let mut ib = B::new();
    emit_binary(&mut ib, "lifted_func_1", "test.vm.add");
    ib.emit_function("main", 2, &["x", "y"]).unwrap();
    let f = ib.f("lifted_func_1").unwrap();
    ib.emit_call("vm.builtin.make_closure", &[f, r(0)], r(2))
        .unwrap();
    ib.emit_call("vm.builtin.invoke_closure", &[B::vm(), r(2), r(1)], r(3))
        .unwrap();
    ib.emit_ret(r(3)).unwrap();
    ib.end_function("main").unwrap();
    ib.emit_function("tuple", 2, &["x", "y"]).unwrap();
    ib.emit_call("vm.builtin.make_tuple", &[r(0), r(1)], r(2))
        .unwrap();
    ib.emit_call("vm.builtin.make_tuple", &[r(2), r(0)], r(3))
        .unwrap();
    ib.emit_ret(r(3)).unwrap();
    ib.end_function("tuple").unwrap();
    ib.emit_function("getitem", 2, &["x", "y"]).unwrap();
    ib.emit_call("vm.builtin.make_tuple", &[r(0), r(1)], r(2))
        .unwrap();
    ib.emit_call("vm.builtin.tuple_getitem", &[r(2), imm(0)], r(3))
        .unwrap();
    ib.emit_call("vm.builtin.tuple_getitem", &[r(2), imm(1)], r(4))
        .unwrap();
    ib.emit_call("test.vm.add", &[r(3), r(4)], r(5)).unwrap();
    ib.emit_ret(r(5)).unwrap();
    ib.end_function("getitem").unwrap();
    let vm = vm_of(ib.get().unwrap());
    let (x, y) = (tensor(&[2], &[1.0, 2.0]), tensor(&[2], &[10.0, 20.0]));
    for f in ["main", "getitem"] {
        let out = vm.invoke(f, &[x.clone(), y.clone()]).unwrap();
        assert_eq!(f32_data(&out).unwrap(), [11.0, 22.0], "{f}");
    }
    let out = vm.invoke("tuple", &[Value::Int(1), Value::Int(2)]).unwrap();
    assert_eq!(format!("{out:?}"), "[[1, 2], 1]");
}

// ---------------------------------------------------------------------------------------------
// Errors, the stateful API, instrumentation.

#[test]
fn wrong_arity_is_a_value_error_naming_the_parameters() {
    let mut ib = B::new();
    emit_binary(&mut ib, "main", "test.vm.add");
    let vm = vm_of(ib.get().unwrap());
    for args in [vec![], vec![Value::Int(1)], vec![Value::Int(1); 3]] {
        let err = vm.invoke("main", &args).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Value, "{err}");
        assert!(
            err.message().contains("main expects 2 arguments (a, b)"),
            "{err}"
        );
    }
    let err = vm.invoke("nope", &[]).unwrap_err();
    assert!(err.message().contains("nope"), "{err}");
    // A packed function's own error propagates with the VM function it crossed.
    let err = vm
        .invoke("main", &[tensor(&[1], &[1.0]), tensor(&[2], &[1.0, 2.0])])
        .unwrap_err();
    assert!(err.message().contains("shapes [1] and [2] differ"), "{err}");
    assert_eq!(err.trace(), ["main"]);
}

#[test]
fn missing_function_fails_vm_init_naming_it() {
    let mut ib = B::new();
    ib.emit_function("main", 1, &["x"]).unwrap();
    ib.emit_call("test.vm.does_not_exist", &[r(0)], r(1))
        .unwrap();
    ib.emit_ret(r(1)).unwrap();
    ib.end_function("main").unwrap();
    let err = VirtualMachine::with_library(Arc::new(ib.get().unwrap()), &lib())
        .err()
        .expect("init fails");
    assert!(err.message().contains("test.vm.does_not_exist"), "{err}");
}

fn stateful_exec() -> Executable {
    let mut ib = B::new();
    emit_binary(&mut ib, "main", "test.vm.mul");
    ib.emit_function("pair", 2, &["x", "w"]).unwrap();
    ib.emit_call("test.vm.mul", &[r(0), r(1)], r(2)).unwrap();
    ib.emit_call("vm.builtin.make_tuple", &[r(2), r(0)], r(3))
        .unwrap();
    ib.emit_call("vm.builtin.make_tuple", &[r(3), r(1)], r(4))
        .unwrap();
    ib.emit_ret(r(4)).unwrap();
    ib.end_function("pair").unwrap();
    ib.get().unwrap()
}

/// test_set_input, test_set_input_tuple, the three failure tests, test_save_function_kwargs,
/// test_time_evaluator and test_save_function_time_evaluator.
#[test]
fn stateful_api() {
    let mut vm = vm_of(stateful_exec());
    let (a, b) = (tensor(&[2], &[2.0, 3.0]), tensor(&[2], &[4.0, 5.0]));
    // Before set_input / invoke_stateful.
    let err = vm.invoke_stateful("main").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Value);
    assert!(err.message().contains("use `set_input` first"), "{err}");
    let err = vm.get_output("main", &[]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Value);
    assert!(err.message().contains("use `invoke_stateful`"), "{err}");
    assert!(vm.set_input("main", vec![a.clone()]).is_err());
    assert!(vm.set_input("nope", vec![]).is_err());

    vm.set_input("main", vec![a.clone(), b.clone()]).unwrap();
    vm.invoke_stateful("main").unwrap();
    assert_eq!(vm.get_output_arity("main", &[]).unwrap(), -1);
    assert_eq!(
        f32_data(&vm.get_output("main", &[]).unwrap()).unwrap(),
        [8.0, 15.0]
    );
    // Inputs persist; a stateless call with the wrong arity still fails.
    vm.invoke_stateful("main").unwrap();
    assert!(vm.invoke("main", &[]).is_err());

    // Nested tuple outputs.
    vm.set_input("pair", vec![a.clone(), b.clone()]).unwrap();
    vm.invoke_stateful("pair").unwrap();
    assert_eq!(vm.get_output_arity("pair", &[]).unwrap(), 2);
    assert_eq!(vm.get_output_arity("pair", &[0]).unwrap(), 2);
    let x = vm.get_output("pair", &[0, 1]).unwrap();
    assert!(x.as_tensor().unwrap().ptr_eq(a.as_tensor().unwrap()));
    assert_eq!(
        f32_data(&vm.get_output("pair", &[0, 0]).unwrap()).unwrap(),
        [8.0, 15.0]
    );
    assert_eq!(
        vm.get_output("pair", &[3]).unwrap_err().kind(),
        ErrorKind::Index
    );

    // Saved functions: bound arguments, with and without the return value.
    vm.save_function("main", "saved_main", true, vec![a.clone(), b.clone()])
        .unwrap();
    vm.save_function("main", "saved_main_void", false, vec![a.clone(), b.clone()])
        .unwrap();
    assert_eq!(
        f32_data(&vm.invoke("saved_main", &[]).unwrap()).unwrap(),
        [8.0, 15.0]
    );
    assert!(vm.invoke("saved_main_void", &[]).unwrap().is_null());

    // time_evaluator over invoke_stateful and over a saved function.
    let stateful = vm
        .time_evaluator("invoke_stateful", &[Value::str("main")], 2, 3, 0)
        .unwrap();
    let saved = vm.time_evaluator("saved_main", &[], 1, 2, 1).unwrap();
    assert_eq!((stateful.len(), saved.len()), (3, 2));
    assert!(stateful.iter().chain(&saved).all(|&t| t >= 0.0));
    assert_eq!(vm.get_function_arity("main").unwrap(), 2);
    assert_eq!(vm.get_function_param_name("pair", 1).unwrap(), "w");
}

/// An instrument sees every Call before and after; `SKIP_RUN` skips the callee (whose dst then
/// reads None) and its "after" call; dtype arguments reach it — and the callee — as strings
/// (test_vm_instrument).
#[test]
fn instrument_with_skip_run() {
    let mut ib = B::new();
    let f32 = ib.convert_constant(DataType::F32).unwrap();
    let err = ib.convert_constant("").unwrap();
    ib.emit_function("main", 2, &["a", "b"]).unwrap();
    ib.emit_call(
        "vm.builtin.check_tensor_info",
        &[r(0), imm(1), f32, err],
        B::void(),
    )
    .unwrap();
    ib.emit_call("test.vm.add", &[r(0), r(1)], r(2)).unwrap();
    ib.emit_call("test.vm.mul", &[r(2), r(1)], r(3)).unwrap();
    ib.emit_call("vm.builtin.make_tuple", &[r(2), r(3)], r(4))
        .unwrap();
    ib.emit_ret(r(4)).unwrap();
    ib.end_function("main").unwrap();
    let vm = vm_of(ib.get().unwrap());
    let hits: Arc<Mutex<Vec<(String, bool)>>> = Arc::default();
    let dtype_args: Arc<Mutex<Vec<String>>> = Arc::default();
    let (h, d) = (hits.clone(), dtype_args.clone());
    vm.set_instrument(Some(PackedFunc::new("instrument", move |args| {
        assert!(matches!(args[0], Value::Func(_) | Value::Closure(_)));
        let name = args[1].as_str()?.to_string();
        let before = args[2].as_bool()?;
        if before {
            assert!(args[3].is_null(), "ret_value is None before the run");
        }
        if name == "vm.builtin.check_tensor_info" {
            d.lock().unwrap().push(format!("{:?}", args[6]));
        }
        h.lock().unwrap().push((name.clone(), before));
        Ok(if name == "test.vm.mul" && before {
            Value::Int(INSTRUMENT_SKIP_RUN)
        } else {
            Value::Null
        })
    })));
    let (a, b) = (tensor(&[2], &[1.0, 2.0]), tensor(&[2], &[3.0, 4.0]));
    let out = vm.invoke("main", &[a.clone(), b.clone()]).unwrap();
    let fields = out.as_tuple().unwrap();
    assert_eq!(f32_data(&fields[0]).unwrap(), [4.0, 6.0]);
    assert!(
        fields[1].is_null(),
        "the skipped call leaves None in its dst"
    );
    let count = |n: &str, before: bool| {
        hits.lock()
            .unwrap()
            .iter()
            .filter(|(name, b)| name == n && *b == before)
            .count()
    };
    assert_eq!(
        (count("test.vm.mul", true), count("test.vm.mul", false)),
        (1, 0)
    );
    assert_eq!(
        (count("test.vm.add", true), count("test.vm.add", false)),
        (1, 1)
    );
    assert_eq!(count("vm.builtin.check_tensor_info", false), 1);
    assert_eq!(
        *dtype_args.lock().unwrap(),
        ["\"float32\""; 2],
        "before and after"
    );
    // Removing the instrument restores plain calls.
    vm.set_instrument(None);
    let out = vm.invoke("main", &[a, b]).unwrap();
    assert_eq!(f32_data(&out.as_tuple().unwrap()[1]).unwrap(), [12.0, 24.0]);
}

/// Register arguments are lent to packed callees (moved in and back): a register named several
/// times reaches the callee as the same object in every position, keeps its value for later
/// instructions, and a failing callee leaves the VM usable.
#[test]
fn register_arguments_are_lent_not_lost() {
    let mut lib = lib();
    lib.add_fn("test.vm.same_object", |args| {
        let first = args[0].as_tensor()?;
        let all_same = args
            .iter()
            .all(|a| a.as_tensor().is_ok_and(|t| t.ptr_eq(first)));
        Ok(Value::Bool(all_same))
    });
    lib.add_fn("test.vm.fail_if_true", |args| {
        if args[1].as_bool()? {
            Err(relaxjit_vm::Error::runtime("asked to fail"))
        } else {
            Ok(Value::Null)
        }
    });
    let mut ib = B::new();
    ib.emit_function("main", 2, &["x", "fail"]).unwrap();
    ib.emit_call("test.vm.same_object", &[r(0), r(0), r(0)], r(2))
        .unwrap();
    ib.emit_call("test.vm.fail_if_true", &[r(0), r(1)], B::void())
        .unwrap();
    ib.emit_call("test.vm.add", &[r(0), r(0)], r(0)).unwrap();
    ib.emit_call("vm.builtin.make_tuple", &[r(2), r(0)], r(3))
        .unwrap();
    ib.emit_ret(r(3)).unwrap();
    ib.end_function("main").unwrap();
    let vm = VirtualMachine::with_library(Arc::new(ib.get().unwrap()), &lib).unwrap();
    let x = tensor(&[2], &[1.0, 2.0]);
    for _ in 0..2 {
        let err = vm
            .invoke("main", &[x.clone(), Value::Bool(true)])
            .unwrap_err();
        assert!(err.message().contains("asked to fail"), "{err}");
        let out = vm.invoke("main", &[x.clone(), Value::Bool(false)]).unwrap();
        let fields = out.as_tuple().unwrap();
        assert!(fields[0].as_bool().unwrap());
        assert_eq!(f32_data(&fields[1]).unwrap(), [2.0, 4.0]);
    }
    assert_eq!(
        f32_data(&x).unwrap(),
        [1.0, 2.0],
        "the caller's tensor is untouched"
    );
}
