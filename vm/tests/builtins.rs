//! Unit tests of the `vm.builtin.*` library, called through the global registry as the
//! interpreter calls them: results as tables of (arguments → expected value), and every error
//! path as tables of (arguments → error kind + message fragment).

use std::sync::{Arc, Mutex};

use relaxjit_vm as vm;

use vm::bytecode::Instruction;
use vm::{
    AllocatorKind, DataType, Device, Error, ErrorKind, Executable, FuncInfo, FuncKind, Registry,
    Result, Storage, Tensor, Value, VirtualMachine, VmConfig,
};

const IMM: i64 = 0; // MatchShapeCode::AssertEqualToImm / MakeShapeCode::UseImm
const STORE: i64 = 1; // MatchShapeCode::StoreToHeap / MakeShapeCode::LoadShape
const LOAD: i64 = 1; // MakeShapeCode::LoadShape
const NOOP: i64 = 2;
const ASSERT_LOAD: i64 = 3;

fn call(name: &str, args: &[Value]) -> Result<Value> {
    let f = Registry::global()
        .get(name)
        .unwrap_or_else(|| panic!("{name} is not registered"));
    f.call(args)
}

/// A VM over `main(x) { ret x }`, and its `%vm` value.
fn vm_with(allocator: AllocatorKind) -> (VirtualMachine, Value) {
    let mut exec = Executable::default();
    exec.func_table.push(FuncInfo {
        kind: FuncKind::VMFunc,
        name: "main".into(),
        start_instr: 0,
        end_instr: 1,
        num_args: 1,
        register_file_size: 1,
        param_names: vec!["x".into()],
    });
    exec.instr_offset.push(0);
    Instruction::Ret { result: 0 }.encode(&mut exec.instr_data);
    exec.rebuild_func_map();
    exec.validate().unwrap();
    let config = VmConfig {
        allocator,
        ..VmConfig::default()
    };
    let vm = VirtualMachine::new(Arc::new(exec), &vm::Library::new(), config).unwrap();
    let ctx = Value::Vm(vm.core().clone());
    (vm, ctx)
}

fn ctx() -> (VirtualMachine, Value) {
    vm_with(AllocatorKind::Pooled)
}

fn f32s(shape: &[i64], data: &[f32]) -> Value {
    Value::Tensor(Tensor::from_slice(shape, data).unwrap())
}

fn heap(data: &[i64]) -> Tensor {
    Tensor::from_slice(&[data.len() as i64], data).unwrap()
}

fn shape(dims: &[i64]) -> Value {
    Value::shape(dims.to_vec())
}

fn ints(v: &[i64]) -> Vec<Value> {
    v.iter().map(|&i| Value::Int(i)).collect()
}

fn dims(v: &Value) -> Vec<i64> {
    v.as_shape().unwrap().dims().to_vec()
}

/// Asserts that each case fails with the given kind and a message containing the fragment.
#[track_caller]
fn check_errors(cases: &[(&str, Vec<Value>, ErrorKind, &str)]) {
    for (name, args, kind, fragment) in cases {
        let err: Error = match call(name, args) {
            Ok(v) => panic!("{name}({args:?}) succeeded with {v:?}, expected {kind:?}"),
            Err(e) => e,
        };
        assert_eq!(err.kind(), *kind, "{name}({args:?}): {err}");
        assert!(
            err.message().contains(fragment),
            "{name}({args:?}): message {:?} lacks {fragment:?}",
            err.message()
        );
    }
}

#[test]
fn every_builtin_is_registered() {
    for (name, _) in vm::builtin::BUILTINS {
        assert!(Registry::global().get(name).is_some(), "{name}");
        // `relax.run.*` are the names TVM's runtime gives the few builtins Relax calls directly,
        // `runtime.*` TVM's runtime functions (`runtime.TVMTensorCreateView`); `relaxjit.*` are
        // relaxjit's own (as its library kernels are).
        assert!(
            name.starts_with("vm.builtin.")
                || name.starts_with("relax.run.")
                || name.starts_with("runtime.")
                || name.starts_with("relaxjit."),
            "{name}"
        );
    }
    assert!(vm::builtin::BUILTINS.len() >= 30);
}

#[test]
fn alloc_shape_heap() {
    let (_vm, ctx) = ctx();
    let h = call("vm.builtin.alloc_shape_heap", &[ctx.clone(), Value::Int(3)]).unwrap();
    let h = h.as_tensor().unwrap();
    assert_eq!((h.shape(), h.dtype()), (&[3i64][..], DataType::I64));
    assert!(h.device().is_cpu());
    let empty = call("vm.builtin.alloc_shape_heap", &[ctx.clone(), Value::Int(0)]).unwrap();
    assert_eq!(empty.as_tensor().unwrap().numel(), 0);
    check_errors(&[
        (
            "vm.builtin.alloc_shape_heap",
            vec![Value::Int(1), Value::Int(3)],
            ErrorKind::Type,
            "ctx",
        ),
        (
            "vm.builtin.alloc_shape_heap",
            vec![ctx.clone(), Value::Int(-1)],
            ErrorKind::Value,
            "non-negative",
        ),
        (
            "vm.builtin.alloc_shape_heap",
            vec![ctx.clone()],
            ErrorKind::Type,
            "Expected 2 but got 1",
        ),
        (
            "vm.builtin.alloc_shape_heap",
            vec![ctx, Value::str("3")],
            ErrorKind::Type,
            "size",
        ),
    ]);
}

/// `match_shape(input, heap, n, codes…, err_ctx)` over a heap that starts as `[0, 0, 5]`.
#[test]
fn match_shape_binds_and_checks() {
    struct Case {
        input: Value,
        codes: &'static [i64],
        heap_after: &'static [i64],
    }
    let cases = [
        // Store both dims of a tensor (test_shape_check_builtin).
        Case {
            input: f32s(&[1, 2], &[0.0; 2]),
            codes: &[STORE, 0, STORE, 1],
            heap_after: &[1, 2, 5],
        },
        // A Shape input; an immediate and a previously stored value.
        Case {
            input: shape(&[4, 5]),
            codes: &[IMM, 4, ASSERT_LOAD, 2],
            heap_after: &[0, 0, 5],
        },
        Case {
            input: shape(&[9, 5, 7]),
            codes: &[NOOP, 0, ASSERT_LOAD, 2, STORE, 0],
            heap_after: &[7, 0, 5],
        },
        Case {
            input: shape(&[]),
            codes: &[],
            heap_after: &[0, 0, 5],
        },
    ];
    for case in cases {
        let h = heap(&[0, 0, 5]);
        let mut args = vec![
            case.input.clone(),
            Value::Tensor(h.clone()),
            Value::Int(case.codes.len() as i64 / 2),
        ];
        args.extend(ints(case.codes));
        args.push(Value::str(""));
        call("vm.builtin.match_shape", &args).unwrap();
        assert_eq!(h.to_vec::<i64>().unwrap(), case.heap_after, "{args:?}");
    }
    // With no heap (`%void`), immediates and no-ops still work; None err_ctx is allowed.
    let mut args = vec![shape(&[3, 8]), Value::Null, Value::Int(2)];
    args.extend(ints(&[IMM, 3, NOOP, 0]));
    args.push(Value::Null);
    call("vm.builtin.match_shape", &args).unwrap();
}

#[test]
fn match_shape_errors() {
    let ctx = Value::str("ErrorContext(fn=main, loc=param[0], param=x) ");
    let h = Value::Tensor(heap(&[0, 0, 5]));
    let m = |input: Value, heap: Value, codes: &[i64], err_ctx: Value| {
        let mut args = vec![input, heap, Value::Int(codes.len() as i64 / 2)];
        args.extend(ints(codes));
        args.push(err_ctx);
        ("vm.builtin.match_shape", args)
    };
    let cases = vec![
        (
            m(shape(&[1, 2, 3]), h.clone(), &[IMM, 1, IMM, 2], ctx.clone()),
            ErrorKind::Runtime,
            "ErrorContext(fn=main, loc=param[0], param=x) match_cast shape size mismatch",
        ),
        (
            m(
                f32s(&[2, 3], &[0.0; 6]),
                h.clone(),
                &[IMM, 2, IMM, 4],
                ctx.clone(),
            ),
            ErrorKind::Runtime,
            "param=x) match_cast error, shape[1] mismatch to specified constant: expected 4, but got 3",
        ),
        (
            m(shape(&[4]), h.clone(), &[ASSERT_LOAD, 2], ctx.clone()),
            ErrorKind::Runtime,
            "shape[0] mismatch to a previous populated value: expected 5, but got 4",
        ),
        (
            m(shape(&[4]), h.clone(), &[7, 0], ctx.clone()),
            ErrorKind::Internal,
            "Unknown match shape code: 7",
        ),
        (
            m(shape(&[4]), Value::Null, &[STORE, 0], ctx.clone()),
            ErrorKind::Runtime,
            "heap argument is None",
        ),
        (
            m(shape(&[4]), Value::Null, &[ASSERT_LOAD, 0], ctx.clone()),
            ErrorKind::Runtime,
            "heap argument is None",
        ),
        (
            m(shape(&[4]), h.clone(), &[STORE, 3], ctx.clone()),
            ErrorKind::Index,
            "slot 3 is out of range for a heap of 3 slots",
        ),
        (
            m(shape(&[4]), h.clone(), &[STORE, -1], ctx.clone()),
            ErrorKind::Index,
            "slot -1",
        ),
        (
            m(Value::Int(4), h.clone(), &[IMM, 4], ctx.clone()),
            ErrorKind::Type,
            "expects a Tensor or Shape as argument #0 (input), but got int",
        ),
        (
            m(shape(&[4]), f32s(&[3], &[0.0; 3]), &[IMM, 4], ctx.clone()),
            ErrorKind::Value,
            "must be a 1-D int64 tensor",
        ),
        (
            m(shape(&[4]), shape(&[1]), &[IMM, 4], ctx.clone()),
            ErrorKind::Type,
            "must be a Tensor or None",
        ),
        (
            m(shape(&[4]), h.clone(), &[IMM, 4], Value::Int(0)),
            ErrorKind::Type,
            "(err_ctx)",
        ),
        (
            m(shape(&[4]), h.clone(), &[IMM], ctx.clone()),
            ErrorKind::Type,
            "size 0 needs 4 arguments",
        ),
        (
            (
                "vm.builtin.match_shape",
                vec![shape(&[4]), h.clone(), Value::Int(1), Value::Int(0)],
            ),
            ErrorKind::Type,
            "size 1 needs 6 arguments",
        ),
        (
            (
                "vm.builtin.match_shape",
                vec![shape(&[4]), h.clone(), Value::Int(-1), ctx.clone()],
            ),
            ErrorKind::Value,
            "(size) must be non-negative",
        ),
        (
            (
                "vm.builtin.match_shape",
                vec![shape(&[4]), h.clone(), Value::Int(i64::MAX), ctx.clone()],
            ),
            ErrorKind::Type,
            "needs",
        ),
        (
            (
                "vm.builtin.match_shape",
                vec![
                    shape(&[4]),
                    h.clone(),
                    Value::Int(1),
                    Value::str("0"),
                    Value::Int(4),
                    ctx.clone(),
                ],
            ),
            ErrorKind::Type,
            "(code)",
        ),
        (
            ("vm.builtin.match_shape", vec![shape(&[4]), h.clone()]),
            ErrorKind::Type,
            "Mismatched number of arguments",
        ),
    ];
    let cases: Vec<_> = cases
        .into_iter()
        .map(|((name, args), kind, frag)| (name, args, kind, frag))
        .collect();
    check_errors(&cases);
    // A failed match leaves earlier stores in place, as TVM's does; nothing panics.
}

#[test]
fn make_shape_and_prim_value() {
    let h = Value::Tensor(heap(&[2, 1, 9]));
    // test_shape_check_builtin: make_shape(heap, 3, LOAD m, LOAD n, IMM 2) with n=1, m=2.
    let cases: Vec<(Vec<Value>, Vec<i64>)> = vec![
        (
            [
                vec![h.clone(), Value::Int(3)],
                ints(&[LOAD, 1, LOAD, 0, IMM, 2]),
            ]
            .concat(),
            vec![1, 2, 2],
        ),
        (vec![Value::Null, Value::Int(0)], vec![]),
        (
            [vec![Value::Null, Value::Int(2)], ints(&[IMM, -1, IMM, 7])].concat(),
            vec![-1, 7],
        ),
    ];
    for (args, expected) in cases {
        assert_eq!(
            dims(&call("vm.builtin.make_shape", &args).unwrap()),
            expected
        );
    }
    let prim = |args: Vec<Value>| call("vm.builtin.make_prim_value", &args);
    assert_eq!(
        prim(vec![h.clone(), Value::Int(LOAD), Value::Int(2)])
            .unwrap()
            .as_int()
            .unwrap(),
        9
    );
    assert_eq!(
        prim(vec![Value::Null, Value::Int(IMM), Value::Int(-4)])
            .unwrap()
            .as_int()
            .unwrap(),
        -4
    );
    check_errors(&[
        (
            "vm.builtin.make_shape",
            [vec![h.clone(), Value::Int(1)], ints(&[5, 0])].concat(),
            ErrorKind::Internal,
            "Invalid shape code: 5",
        ),
        (
            "vm.builtin.make_shape",
            [vec![Value::Null, Value::Int(1)], ints(&[LOAD, 0])].concat(),
            ErrorKind::Runtime,
            "heap argument is None",
        ),
        (
            "vm.builtin.make_shape",
            [vec![h.clone(), Value::Int(1)], ints(&[LOAD, 3])].concat(),
            ErrorKind::Index,
            "out of range",
        ),
        (
            "vm.builtin.make_shape",
            [vec![h.clone(), Value::Int(2)], ints(&[LOAD, 3])].concat(),
            ErrorKind::Type,
            "size 2 needs 6 arguments",
        ),
        (
            "vm.builtin.make_shape",
            vec![h.clone()],
            ErrorKind::Type,
            "Mismatched number of arguments",
        ),
        (
            "vm.builtin.make_shape",
            vec![Value::Int(0), Value::Int(0)],
            ErrorKind::Type,
            "shape heap",
        ),
        (
            "vm.builtin.make_prim_value",
            vec![h.clone(), Value::Int(2), Value::Int(0)],
            ErrorKind::Internal,
            "Invalid shape code: 2",
        ),
        (
            "vm.builtin.make_prim_value",
            vec![Value::Null, Value::Int(LOAD), Value::Int(0)],
            ErrorKind::Runtime,
            "heap argument is None",
        ),
        (
            "vm.builtin.make_prim_value",
            vec![h.clone(), Value::Int(IMM)],
            ErrorKind::Type,
            "Expected 3 but got 2",
        ),
    ]);
}

#[test]
fn match_prim_value() {
    let h = heap(&[0, 6]);
    let hv = Value::Tensor(h.clone());
    let ok = [
        vec![Value::Int(3), hv.clone(), Value::Int(STORE), Value::Int(0)],
        vec![
            Value::Int(6),
            hv.clone(),
            Value::Int(ASSERT_LOAD),
            Value::Int(1),
            Value::str("ctx"),
        ],
        vec![
            Value::Int(8),
            Value::Null,
            Value::Int(IMM),
            Value::Int(8),
            Value::Null,
        ],
        vec![Value::Int(8), Value::Null, Value::Int(NOOP), Value::Int(0)],
    ];
    for args in ok {
        call("vm.builtin.match_prim_value", &args).unwrap();
    }
    assert_eq!(h.to_vec::<i64>().unwrap(), vec![3, 6]);
    let mp = |v: Value, heap: Value, code: i64, reg: i64| {
        vec![
            v,
            heap,
            Value::Int(code),
            Value::Int(reg),
            Value::str("Ctx "),
        ]
    };
    check_errors(&[
        (
            "vm.builtin.match_prim_value",
            mp(Value::Int(2), hv.clone(), IMM, 3),
            ErrorKind::Runtime,
            "Ctx match_cast error, PrimExpr mismatch to specified constant",
        ),
        (
            "vm.builtin.match_prim_value",
            mp(Value::Int(2), hv.clone(), ASSERT_LOAD, 1),
            ErrorKind::Runtime,
            "PrimExpr mismatch to a previous populated value: expected 6, but got 2",
        ),
        (
            "vm.builtin.match_prim_value",
            mp(Value::Int(2), hv.clone(), 9, 1),
            ErrorKind::Internal,
            "Unknown match shape code: 9",
        ),
        (
            "vm.builtin.match_prim_value",
            mp(Value::Int(2), Value::Null, STORE, 0),
            ErrorKind::Runtime,
            "heap argument is None",
        ),
        (
            "vm.builtin.match_prim_value",
            mp(Value::Float(2.0), hv.clone(), IMM, 2),
            ErrorKind::Type,
            "(input_value)",
        ),
        (
            "vm.builtin.match_prim_value",
            vec![Value::Int(1), hv.clone(), Value::Int(0)],
            ErrorKind::Type,
            "Expected 4 to 5 but got 3",
        ),
    ]);
}

#[test]
fn check_tensor_info() {
    let x = f32s(&[1, 2], &[0.0; 2]);
    let ok: Vec<Vec<Value>> = vec![
        vec![
            x.clone(),
            Value::Int(2),
            DataType::F32.into(),
            Value::str(""),
        ],
        vec![x.clone(), Value::Int(-1), DataType::F32.into(), Value::Null],
        vec![x.clone(), Value::Int(2), Value::Null, Value::Null],
        vec![x.clone(), Value::Int(2), Value::str("float32"), Value::Null],
        vec![x.clone(), Value::Int(2), Value::str("ctx")],
        vec![x.clone(), Value::Int(-1), Value::Null],
    ];
    for args in ok {
        call("vm.builtin.check_tensor_info", &args).unwrap();
    }
    let c = Value::str("ErrorContext(fn=foo, loc=return) ");
    let cti = "vm.builtin.check_tensor_info";
    check_errors(&[
        (
            cti,
            vec![
                Value::tuple(vec![]),
                Value::Int(2),
                DataType::F32.into(),
                c.clone(),
            ],
            ErrorKind::Type,
            "ErrorContext(fn=foo, loc=return) expect a Tensor but get ffi.Array",
        ),
        (
            cti,
            vec![shape(&[1, 2]), Value::Int(2), c.clone()],
            ErrorKind::Type,
            "expect a Tensor but get ffi.Shape",
        ),
        (
            cti,
            vec![x.clone(), Value::Int(3), DataType::F32.into(), c.clone()],
            ErrorKind::Value,
            "loc=return) expect Tensor with ndim 3 but get 2",
        ),
        (
            cti,
            vec![x.clone(), Value::Int(2), DataType::I32.into(), c.clone()],
            ErrorKind::Value,
            "expect Tensor with dtype int32 but get float32",
        ),
        (
            cti,
            vec![x.clone(), Value::Int(2), Value::str("float33x"), c.clone()],
            ErrorKind::Value,
            "dtype",
        ),
        (
            cti,
            vec![x.clone(), Value::Int(2), Value::Int(1), c.clone()],
            ErrorKind::Type,
            "(dtype)",
        ),
        (
            cti,
            vec![x.clone(), Value::Float(2.0), c.clone()],
            ErrorKind::Type,
            "(ndim)",
        ),
        (
            cti,
            vec![x.clone(), Value::Int(2)],
            ErrorKind::Type,
            "Expected 3 to 4 but got 2",
        ),
    ]);
}

#[test]
fn check_shape_tuple_func_string_info() {
    let (vm, _ctx) = ctx();
    let main = vm.core().get_closure("main").unwrap();
    let func = Value::Func(vm::PackedFunc::new("f", |_| Ok(Value::Null)));
    let ok: Vec<(&str, Vec<Value>)> = vec![
        (
            "vm.builtin.check_shape_info",
            vec![shape(&[1, 2]), Value::Int(2), Value::str("")],
        ),
        (
            "vm.builtin.check_shape_info",
            vec![shape(&[]), Value::Int(-1), Value::Null],
        ),
        (
            "vm.builtin.check_tuple_info",
            vec![
                Value::tuple(vec![Value::Int(1), Value::Null]),
                Value::Int(2),
                Value::Null,
            ],
        ),
        (
            "vm.builtin.check_func_info",
            vec![main.clone(), Value::str("")],
        ),
        ("vm.builtin.check_func_info", vec![func.clone()]),
        (
            "vm.builtin.check_string_info",
            vec![Value::str("hello"), Value::Null],
        ),
    ];
    for (name, args) in ok {
        call(name, &args).unwrap();
    }
    let c = || Value::str("Ctx ");
    check_errors(&[
        (
            "vm.builtin.check_shape_info",
            vec![f32s(&[1], &[0.0]), Value::Int(1), c()],
            ErrorKind::Type,
            "Ctx expect a Shape but get ffi.Tensor",
        ),
        (
            "vm.builtin.check_shape_info",
            vec![Value::Int(2), Value::Int(1), c()],
            ErrorKind::Type,
            "expect a Shape but get int",
        ),
        (
            "vm.builtin.check_shape_info",
            vec![shape(&[1, 2, 3]), Value::Int(2), c()],
            ErrorKind::Value,
            "Ctx expect Shape with ndim 2 but get 3",
        ),
        (
            "vm.builtin.check_shape_info",
            vec![shape(&[1])],
            ErrorKind::Type,
            "Mismatched number of arguments",
        ),
        (
            "vm.builtin.check_tuple_info",
            vec![shape(&[1]), Value::Int(1), c()],
            ErrorKind::Type,
            "Ctx expect a Tuple but get ffi.Shape",
        ),
        (
            "vm.builtin.check_tuple_info",
            vec![Value::tuple(vec![Value::Int(1)]), Value::Int(2), c()],
            ErrorKind::Value,
            "expect a Tuple with 2 elements, but get a Tuple with 1 elements.",
        ),
        (
            "vm.builtin.check_func_info",
            vec![Value::Int(1), c()],
            ErrorKind::Type,
            "Ctx expect a Function but get int",
        ),
        (
            "vm.builtin.check_func_info",
            vec![func.clone(), Value::Int(0)],
            ErrorKind::Type,
            "(err_ctx)",
        ),
        (
            "vm.builtin.check_string_info",
            vec![Value::Int(1), c()],
            ErrorKind::Type,
            "Ctx expect a String but get int",
        ),
    ]);
}

#[test]
fn check_prim_value_info() {
    let ok: Vec<(Value, DataType)> = vec![
        (Value::Int(1), DataType::I64),
        (Value::Bool(true), DataType::I32),
        (Value::Int(0), DataType::BOOL),
        (Value::Bool(false), DataType::BOOL),
        (Value::Int(7), DataType::U8),
        (Value::Float(1.5), DataType::F32),
        (Value::Int(2), DataType::F64),
        (Value::Null, DataType::HANDLE),
    ];
    for (v, d) in ok {
        call(
            "vm.builtin.check_prim_value_info",
            &[v.clone(), d.into(), Value::Null],
        )
        .unwrap_or_else(|e| panic!("{v:?} as {d}: {e}"));
    }
    // The dtype may arrive as a string (instrumented calls).
    call(
        "vm.builtin.check_prim_value_info",
        &[Value::Int(1), Value::str("int64"), Value::Null],
    )
    .unwrap();
    let cp = "vm.builtin.check_prim_value_info";
    let c = || Value::str("Ctx");
    check_errors(&[
        (
            cp,
            vec![f32s(&[], &[1.0]), DataType::F32.into(), c()],
            ErrorKind::Type,
            "Ctx, expected dtype float32, but received ObjectRef of type ffi.Tensor",
        ),
        (
            cp,
            vec![Value::str("s"), DataType::I64.into(), c()],
            ErrorKind::Type,
            "received ObjectRef of type ffi.String",
        ),
        (
            cp,
            vec![Value::Float(1.5), DataType::I64.into(), c()],
            ErrorKind::Type,
            "Ctx expect a int64 value but get float",
        ),
        (
            cp,
            vec![Value::Null, DataType::I64.into(), c()],
            ErrorKind::Type,
            "but get None",
        ),
        (
            cp,
            vec![Value::Float(1.0), DataType::BOOL.into(), c()],
            ErrorKind::Type,
            "expect a bool value",
        ),
        (
            cp,
            vec![Value::Int(1), DataType::VOID.into(), c()],
            ErrorKind::Type,
            "Ctx, unsupported dtype void",
        ),
        (
            cp,
            vec![Value::Int(1), DataType::BF16.into(), c()],
            ErrorKind::Type,
            "unsupported dtype bfloat16",
        ),
        (
            cp,
            vec![Value::Int(1), Value::Int(0), c()],
            ErrorKind::Type,
            "(dtype)",
        ),
        (cp, vec![Value::Int(1)], ErrorKind::Type, "Expected 2 to 3"),
    ]);
}

#[test]
fn alloc_storage_and_tensor() {
    let (vm, ctx) = vm_with(AllocatorKind::Naive);
    // test_vm_storage: alloc_storage(vm, (24,), 0, float32, "global"), alloc_tensor((4, 6)).
    let s = call(
        "vm.builtin.alloc_storage",
        &[
            ctx.clone(),
            shape(&[24]),
            Value::Int(0),
            DataType::F32.into(),
            Value::str("global"),
        ],
    )
    .unwrap();
    assert_eq!(s.as_storage().unwrap().size(), 96);
    assert_eq!(vm.core().allocator(0).unwrap().0.used_bytes(), 96);
    let t = call(
        "vm.builtin.alloc_tensor",
        &[
            s.clone(),
            Value::Int(0),
            shape(&[4, 6]),
            DataType::F32.into(),
        ],
    )
    .unwrap()
    .as_tensor()
    .unwrap()
    .clone();
    assert_eq!(t.shape(), &[4, 6]);
    assert_eq!(t.device(), Device::cpu(0));
    assert!(t.storage().ptr_eq(s.as_storage().unwrap()));
    // Dtypes as strings (instrumented calls), the five-argument scoped form, offsets.
    let t2 = call(
        "vm.builtin.alloc_tensor",
        &[
            s.clone(),
            Value::Int(48),
            shape(&[12]),
            Value::str("float32"),
            Value::str("global"),
        ],
    )
    .unwrap();
    assert_eq!(t2.as_tensor().unwrap().byte_offset(), 48);
    let bytes = call(
        "vm.builtin.alloc_storage",
        &[
            ctx.clone(),
            shape(&[16]),
            Value::Int(0),
            Value::str("uint8"),
            Value::str(""),
        ],
    )
    .unwrap();
    assert_eq!(bytes.as_storage().unwrap().size(), 16);
    // The tensor keeps its storage alive; memory returns when both are gone.
    drop((s, bytes, t2));
    assert_eq!(vm.core().allocator(0).unwrap().0.used_bytes(), 96);
    drop(t);
    assert_eq!(vm.core().allocator(0).unwrap().0.used_bytes(), 0);

    let st = |shape_v: Value, dev: i64, dtype: Value, scope: &str| {
        vec![
            ctx.clone(),
            shape_v,
            Value::Int(dev),
            dtype,
            Value::str(scope),
        ]
    };
    let small = Value::Storage(Storage::new(16, Device::cpu(0)).unwrap());
    check_errors(&[
        (
            "vm.builtin.alloc_storage",
            st(shape(&[4]), -1, DataType::U8.into(), "global"),
            ErrorKind::Runtime,
            "The device index -1 is out of VM physical devices list",
        ),
        (
            "vm.builtin.alloc_storage",
            st(shape(&[4]), 1, DataType::U8.into(), "global"),
            ErrorKind::Runtime,
            "out of VM physical devices list",
        ),
        (
            "vm.builtin.alloc_storage",
            st(shape(&[4]), 0, DataType::U8.into(), "texture"),
            ErrorKind::Value,
            "memory scope \"texture\" is not supported",
        ),
        (
            "vm.builtin.alloc_storage",
            st(shape(&[-4]), 0, DataType::U8.into(), "global"),
            ErrorKind::Value,
            "negative dimension",
        ),
        (
            "vm.builtin.alloc_storage",
            st(shape(&[i64::MAX, 4]), 0, DataType::U8.into(), "global"),
            ErrorKind::Value,
            "too large",
        ),
        (
            "vm.builtin.alloc_storage",
            st(Value::Int(4), 0, DataType::U8.into(), "global"),
            ErrorKind::Type,
            "(buffer_shape)",
        ),
        (
            "vm.builtin.alloc_storage",
            st(shape(&[4]), 0, Value::str("nope"), "global"),
            ErrorKind::Value,
            "(dtype_hint)",
        ),
        (
            "vm.builtin.alloc_storage",
            vec![Value::Null, shape(&[4]), Value::Int(0), DataType::U8.into()],
            ErrorKind::Type,
            "ctx",
        ),
        (
            "vm.builtin.alloc_tensor",
            vec![
                small.clone(),
                Value::Int(0),
                shape(&[5]),
                DataType::F32.into(),
            ],
            ErrorKind::Runtime,
            "storage allocation failure",
        ),
        (
            "vm.builtin.alloc_tensor",
            vec![
                small.clone(),
                Value::Int(-4),
                shape(&[1]),
                DataType::F32.into(),
            ],
            ErrorKind::Runtime,
            "offset -4",
        ),
        (
            "vm.builtin.alloc_tensor",
            vec![
                f32s(&[4], &[0.0; 4]),
                Value::Int(0),
                shape(&[4]),
                DataType::F32.into(),
            ],
            ErrorKind::Type,
            "expected vm.Storage, but got ffi.Tensor",
        ),
        (
            "vm.builtin.alloc_tensor",
            vec![
                small.clone(),
                Value::Int(0),
                shape(&[4]),
                DataType::F32.into(),
                Value::str("shared"),
            ],
            ErrorKind::Value,
            "memory scope",
        ),
        (
            "vm.builtin.alloc_tensor",
            vec![small, Value::Int(0), shape(&[4])],
            ErrorKind::Type,
            "Expected 4 to 5 but got 3",
        ),
    ]);
}

#[test]
fn memory_manager_clear_keeps_allocators_usable() {
    let (_vm, ctx) = ctx();
    let alloc = |n: i64| {
        call(
            "vm.builtin.alloc_storage",
            &[
                ctx.clone(),
                shape(&[n]),
                Value::Int(0),
                DataType::U8.into(),
                Value::str("global"),
            ],
        )
        .unwrap()
    };
    drop(alloc(100));
    assert!(
        call("vm.builtin.memory_manager.clear", &[])
            .unwrap()
            .is_null()
    );
    assert_eq!(alloc(100).as_storage().unwrap().size(), 4096);
    check_errors(&[(
        "vm.builtin.memory_manager.clear",
        vec![Value::Int(1)],
        ErrorKind::Type,
        "Expected 0 but got 1",
    )]);
}

#[test]
fn to_device_and_ensure_zero_offset() {
    let x = Tensor::from_slice(&[2, 2], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    for (dev_id, scope) in [(0, None), (1, Some("global"))] {
        let mut args = vec![Value::Tensor(x.clone()), Value::Int(1), Value::Int(dev_id)];
        args.extend(scope.map(Value::str));
        let y = call("vm.builtin.to_device", &args).unwrap();
        let y = y.as_tensor().unwrap();
        assert_eq!(y.device(), Device::cpu(dev_id as i32));
        assert!(!y.storage().ptr_eq(x.storage()), "to_device copies");
        assert_eq!(y.to_vec::<f32>().unwrap(), x.to_vec::<f32>().unwrap());
    }
    let same = call("vm.builtin.ensure_zero_offset", &[Value::Tensor(x.clone())]).unwrap();
    assert!(same.as_tensor().unwrap().ptr_eq(&x));
    let s = Storage::new(64, Device::cpu(0)).unwrap();
    let mut off = s.alloc_tensor(8, &[2], DataType::I32).unwrap();
    drop(s);
    off.copy_from_slice(&[7i32, 9]).unwrap();
    let z = call("vm.builtin.ensure_zero_offset", &[Value::Tensor(off)]).unwrap();
    let z = z.as_tensor().unwrap();
    assert_eq!(z.byte_offset(), 0);
    assert_eq!(z.to_vec::<i32>().unwrap(), vec![7, 9]);
    let xv = Value::Tensor(x);
    check_errors(&[
        (
            "vm.builtin.to_device",
            vec![xv.clone(), Value::Int(2), Value::Int(0)],
            ErrorKind::Value,
            "cannot copy to device (type 2, id 0)",
        ),
        (
            "vm.builtin.to_device",
            vec![xv.clone(), Value::Int(1), Value::Int(-1)],
            ErrorKind::Value,
            "only the CPU",
        ),
        (
            "vm.builtin.to_device",
            vec![
                xv.clone(),
                Value::Int(1),
                Value::Int(0),
                Value::str("texture"),
            ],
            ErrorKind::Value,
            "memory scope",
        ),
        (
            "vm.builtin.to_device",
            vec![shape(&[1]), Value::Int(1), Value::Int(0)],
            ErrorKind::Type,
            "(data)",
        ),
        (
            "vm.builtin.ensure_zero_offset",
            vec![Value::Null],
            ErrorKind::Type,
            "(data)",
        ),
    ]);
}

#[test]
fn copy_null_and_tuples() {
    let t = f32s(&[1], &[1.0]);
    let c = call("vm.builtin.copy", std::slice::from_ref(&t)).unwrap();
    assert!(c.as_tensor().unwrap().ptr_eq(t.as_tensor().unwrap()));
    assert!(call("vm.builtin.null_value", &[]).unwrap().is_null());
    let tup = call(
        "vm.builtin.make_tuple",
        &[Value::Int(1), t.clone(), Value::Null],
    )
    .unwrap();
    assert_eq!(tup.as_tuple().unwrap().len(), 3);
    assert!(
        call("vm.builtin.make_tuple", &[])
            .unwrap()
            .as_tuple()
            .unwrap()
            .is_empty()
    );
    let get = |i: i64| call("vm.builtin.tuple_getitem", &[tup.clone(), Value::Int(i)]);
    assert_eq!(get(0).unwrap().as_int().unwrap(), 1);
    assert!(
        get(1)
            .unwrap()
            .as_tensor()
            .unwrap()
            .ptr_eq(t.as_tensor().unwrap())
    );
    assert!(get(2).unwrap().is_null());
    assert!(
        call("vm.builtin.tuple_reset_item", &[tup.clone(), Value::Int(1)])
            .unwrap()
            .is_null()
    );
    check_errors(&[
        (
            "vm.builtin.copy",
            vec![],
            ErrorKind::Type,
            "Expected 1 but got 0",
        ),
        (
            "vm.builtin.null_value",
            vec![Value::Int(1)],
            ErrorKind::Type,
            "Expected 0 but got 1",
        ),
        (
            "vm.builtin.tuple_getitem",
            vec![tup.clone(), Value::Int(3)],
            ErrorKind::Index,
            "index 3 is out of bounds for a tuple of 3 elements",
        ),
        (
            "vm.builtin.tuple_getitem",
            vec![tup.clone(), Value::Int(-1)],
            ErrorKind::Index,
            "index -1",
        ),
        (
            "vm.builtin.tuple_getitem",
            vec![shape(&[1]), Value::Int(0)],
            ErrorKind::Type,
            "expected ffi.Array, but got ffi.Shape",
        ),
        (
            "vm.builtin.tuple_getitem",
            vec![tup.clone(), Value::str("0")],
            ErrorKind::Type,
            "(index)",
        ),
        (
            "vm.builtin.tuple_reset_item",
            vec![tup.clone(), Value::Int(5)],
            ErrorKind::Index,
            "out of bounds",
        ),
        (
            "vm.builtin.tuple_reset_item",
            vec![Value::Int(0), Value::Int(0)],
            ErrorKind::Type,
            "expected ffi.Array",
        ),
    ]);
}

#[test]
fn read_if_cond() {
    let bool_t = |v: &[bool]| Value::Tensor(Tensor::from_slice(&[v.len() as i64], v).unwrap());
    let mut u1 = Tensor::zeros(&[], "uint1".parse().unwrap()).unwrap();
    u1.copy_from_bytes(&[1]).unwrap();
    let cases: Vec<(Value, bool)> = vec![
        (Value::Bool(true), true),
        (Value::Bool(false), false),
        (Value::Int(0), false),
        (Value::Int(-3), true),
        (Value::Tensor(Tensor::scalar(1i32)), true),
        (Value::Tensor(Tensor::scalar(0i64)), false),
        (Value::Tensor(Tensor::scalar(256i16)), true),
        (Value::Tensor(Tensor::scalar(0u8)), false),
        (Value::Tensor(Tensor::scalar(u32::MAX)), true),
        (Value::Tensor(Tensor::scalar(-1i8)), true),
        (bool_t(&[true]), true),
        (bool_t(&[false, true]), false),
        (Value::Tensor(u1), true),
    ];
    for (cond, expected) in cases {
        let r = call("vm.builtin.read_if_cond", std::slice::from_ref(&cond)).unwrap();
        assert_eq!(r.as_bool().unwrap(), expected, "{cond:?}");
    }
    check_errors(&[
        (
            "vm.builtin.read_if_cond",
            vec![f32s(&[], &[1.0])],
            ErrorKind::Type,
            "int, uint or bool dtype",
        ),
        (
            "vm.builtin.read_if_cond",
            vec![Value::Tensor(Tensor::zeros(&[0], DataType::I32).unwrap())],
            ErrorKind::Value,
            "has no elements",
        ),
        (
            "vm.builtin.read_if_cond",
            vec![Value::Tensor(
                Tensor::zeros(&[1], DataType::I32.with_lanes(4)).unwrap(),
            )],
            ErrorKind::Type,
            "int32x4",
        ),
        (
            "vm.builtin.read_if_cond",
            vec![Value::str("yes")],
            ErrorKind::Type,
            "must be a bool, an int or a Tensor, but got ffi.String",
        ),
        (
            "vm.builtin.read_if_cond",
            vec![],
            ErrorKind::Type,
            "Expected 1",
        ),
    ]);
}

#[test]
fn shape_of_reshape_tensor_to_shape() {
    let x = Tensor::from_slice(&[3, 4], &(0..12).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
    let xv = Value::Tensor(x.clone());
    assert_eq!(
        dims(&call("vm.builtin.shape_of", std::slice::from_ref(&xv)).unwrap()),
        [3, 4]
    );
    // test_vm_builtin_reshape: a view, sharing the bytes.
    let y = call("vm.builtin.reshape", &[xv.clone(), shape(&[6, 2])]).unwrap();
    let y = y.as_tensor().unwrap();
    assert_eq!(y.shape(), &[6, 2]);
    assert!(y.storage().ptr_eq(x.storage()));
    // The view shares its storage with `x`, so only the unchecked write applies.
    assert!(y.clone().copy_from_slice(&[1.0f32; 12]).is_err());
    // SAFETY: every handle to this storage lives on this thread, and nothing reads it during
    // the write.
    unsafe { y.copy_from_slice_shared(&[1.0f32; 12]).unwrap() };
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![1.0; 12]);
    let cases: Vec<(Tensor, Vec<i64>)> = vec![
        (
            Tensor::from_slice(&[3], &[2i64, 3, 4]).unwrap(),
            vec![2, 3, 4],
        ),
        (Tensor::from_slice(&[2], &[-1i32, 7]).unwrap(), vec![-1, 7]),
        (Tensor::from_slice(&[1], &[9i16]).unwrap(), vec![9]),
        (Tensor::zeros(&[0], DataType::I64).unwrap(), vec![]),
    ];
    for (t, expected) in cases {
        let s = call("vm.builtin.tensor_to_shape", &[Value::Tensor(t)]).unwrap();
        assert_eq!(dims(&s), expected);
    }
    for d in [vec![], vec![5, 3], vec![0, -1, i64::MAX]] {
        let t = call("relax.run.shape_to_tensor", &[shape(&d)]).unwrap();
        let t = t.as_tensor().unwrap();
        assert_eq!(t.shape(), [d.len() as i64]);
        assert_eq!(t.dtype(), DataType::I64);
        assert_eq!(t.to_vec::<i64>().unwrap(), d);
    }
    check_errors(&[
        (
            "relax.run.shape_to_tensor",
            vec![xv.clone()],
            ErrorKind::Type,
            "(shape)",
        ),
        (
            "vm.builtin.shape_of",
            vec![shape(&[1])],
            ErrorKind::Type,
            "vm.builtin.shape_of expects a Tensor or DLTensor*, but get ffi.Shape",
        ),
        (
            "vm.builtin.reshape",
            vec![xv.clone(), shape(&[13])],
            ErrorKind::Value,
            "vm.builtin.reshape",
        ),
        (
            "vm.builtin.reshape",
            vec![xv.clone(), shape(&[-12])],
            ErrorKind::Value,
            "negative dimension",
        ),
        (
            "vm.builtin.reshape",
            vec![Value::Int(1), shape(&[1])],
            ErrorKind::Type,
            "vm.builtin.reshape expects a Tensor or DLTensor*, but get int",
        ),
        (
            "vm.builtin.reshape",
            vec![xv.clone(), Value::Int(12)],
            ErrorKind::Type,
            "(new_shape)",
        ),
        (
            "vm.builtin.tensor_to_shape",
            vec![xv.clone()],
            ErrorKind::Value,
            "expects a 1-D tensor, but got shape [3, 4]",
        ),
        (
            "vm.builtin.tensor_to_shape",
            vec![f32s(&[2], &[1.0, 2.0])],
            ErrorKind::Value,
            "int16, int32 or int64 tensor, but got float32",
        ),
        (
            "vm.builtin.tensor_to_shape",
            vec![Value::Tensor(Tensor::from_slice(&[1], &[1u32]).unwrap())],
            ErrorKind::Value,
            "but got uint32",
        ),
        (
            "vm.builtin.tensor_to_shape",
            vec![shape(&[1])],
            ErrorKind::Type,
            "(data)",
        ),
    ]);
}

/// A packed function returning its arguments as a tuple, to observe calling conventions.
fn echo() -> Value {
    Value::Func(vm::PackedFunc::new("echo", |args| {
        Ok(Value::tuple(args.to_vec()))
    }))
}

fn tuple_ints(v: &Value) -> Vec<i64> {
    v.as_tuple()
        .unwrap()
        .iter()
        .map(|x| x.as_int().unwrap())
        .collect()
}

#[test]
fn closures_bind_last_and_invoke() {
    let (vm, ctx) = ctx();
    // Captured values come after the call-time ones (BindLastArgs), and binding composes.
    let clo = call(
        "vm.builtin.make_closure",
        &[echo(), Value::Int(10), Value::Int(11)],
    )
    .unwrap();
    let clo2 = call("vm.builtin.make_closure", &[clo.clone(), Value::Int(12)]).unwrap();
    let r = call(
        "vm.builtin.invoke_closure",
        &[ctx.clone(), clo.clone(), Value::Int(1)],
    )
    .unwrap();
    assert_eq!(tuple_ints(&r), [1, 10, 11]);
    let r = call(
        "vm.builtin.invoke_closure",
        &[ctx.clone(), clo2, Value::Int(1)],
    )
    .unwrap();
    assert_eq!(tuple_ints(&r), [1, 10, 11, 12]);
    let r = call(
        "vm.builtin.invoke_closure",
        &[ctx.clone(), echo(), Value::Int(5)],
    )
    .unwrap();
    assert_eq!(tuple_ints(&r), [5]);
    // A VM function: main(x) = x, with x captured.
    let main = vm.core().get_closure("main").unwrap();
    let bound = call("vm.builtin.make_closure", &[main.clone(), Value::Int(42)]).unwrap();
    assert_eq!(bound.as_closure().unwrap().func_name(), "main");
    let r = call("vm.builtin.invoke_closure", &[ctx.clone(), bound.clone()]).unwrap();
    assert_eq!(r.as_int().unwrap(), 42);
    check_errors(&[
        (
            "vm.builtin.invoke_closure",
            vec![ctx.clone(), bound, Value::Int(1)],
            ErrorKind::Value,
            "main expects 1 arguments (x), but 2 were given",
        ),
        (
            "vm.builtin.invoke_closure",
            vec![ctx.clone(), main.clone()],
            ErrorKind::Value,
            "but 0 were given",
        ),
        (
            "vm.builtin.invoke_closure",
            vec![ctx.clone(), Value::Int(3)],
            ErrorKind::Type,
            "expected relax.vm.Closure or ffi.Function, but got int",
        ),
        (
            "vm.builtin.invoke_closure",
            vec![Value::Int(0), main.clone()],
            ErrorKind::Type,
            "ctx",
        ),
        (
            "vm.builtin.invoke_closure",
            vec![ctx.clone()],
            ErrorKind::Type,
            "Expected at least 2 but got 1",
        ),
        (
            "vm.builtin.make_closure",
            vec![Value::str("main"), Value::Int(1)],
            ErrorKind::Type,
            "expected relax.vm.Closure, but got ffi.String",
        ),
        (
            "vm.builtin.make_closure",
            vec![],
            ErrorKind::Type,
            "Expected at least 1",
        ),
    ]);
}

#[test]
fn call_tir_dyn_unpacks_the_trailing_shape() {
    let t = f32s(&[2], &[0.0; 2]);
    let r = call(
        "vm.builtin.call_tir_dyn",
        &[echo(), t.clone(), t.clone(), shape(&[3, 4])],
    )
    .unwrap();
    let fields = r.as_tuple().unwrap();
    assert_eq!(fields.len(), 4);
    assert!(fields[0].as_tensor().is_ok() && fields[1].as_tensor().is_ok());
    assert_eq!(
        (fields[2].as_int().unwrap(), fields[3].as_int().unwrap()),
        (3, 4)
    );
    let r = call("vm.builtin.call_tir_dyn", &[echo(), shape(&[])]).unwrap();
    assert!(r.as_tuple().unwrap().is_empty());
    check_errors(&[
        (
            "vm.builtin.call_tir_dyn",
            vec![echo(), t.clone()],
            ErrorKind::Type,
            "(shape)",
        ),
        (
            "vm.builtin.call_tir_dyn",
            vec![t.clone(), shape(&[1])],
            ErrorKind::Type,
            "expected ffi.Function, but got ffi.Tensor",
        ),
        (
            "vm.builtin.call_tir_dyn",
            vec![echo()],
            ErrorKind::Type,
            "Expected at least 2",
        ),
    ]);
}

#[test]
fn invoke_debug_func_calls_the_global_function() {
    static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());
    Registry::global().register_fn("test.builtins.debug_record", |args| {
        SEEN.lock().unwrap().push(format!("{args:?}"));
        Ok(Value::Int(99))
    });
    let r = call(
        "vm.builtin.invoke_debug_func",
        &[
            Value::Null,
            Value::str("test.builtins.debug_record"),
            Value::str("line 3"),
            Value::Int(1),
            Value::str("x"),
        ],
    )
    .unwrap();
    assert!(
        r.is_null(),
        "returns the io_effect (None), not the debug function's result"
    );
    assert_eq!(*SEEN.lock().unwrap(), [r#"["line 3", 1, "x"]"#]);
    check_errors(&[
        (
            "vm.builtin.invoke_debug_func",
            vec![
                Value::Int(0),
                Value::str("test.builtins.debug_record"),
                Value::str(""),
            ],
            ErrorKind::Value,
            "IOEffect is expected to be lowered to None.",
        ),
        (
            "vm.builtin.invoke_debug_func",
            vec![
                Value::Null,
                Value::str("test.builtins.no_such_fn"),
                Value::str(""),
            ],
            ErrorKind::Value,
            "test.builtins.no_such_fn is not found. Use the decorator `@tvm.register_global_func(\"test.builtins.no_such_fn\")`",
        ),
        (
            "vm.builtin.invoke_debug_func",
            vec![Value::Null, Value::Int(1), Value::str("")],
            ErrorKind::Type,
            "(debug_func_name)",
        ),
        (
            "vm.builtin.invoke_debug_func",
            vec![Value::Null, Value::str("test.builtins.debug_record")],
            ErrorKind::Type,
            "Expected at least 3",
        ),
    ]);
}

#[test]
fn host_function_registry() {
    call(
        "vm.builtin.register_py_func",
        &[Value::str("test.builtins.py_echo"), echo()],
    )
    .unwrap();
    let f = call(
        "vm.builtin.get_py_func",
        &[Value::str("test.builtins.py_echo")],
    )
    .unwrap();
    assert!(f.as_func().is_ok());
    let packed = Value::tuple(vec![
        Value::str("test.builtins.py_echo"),
        Value::tuple(ints(&[4, 5])),
    ]);
    let r = call("vm.builtin.call_py_func", &[packed]).unwrap();
    assert_eq!(tuple_ints(&r), [4, 5]);
    check_errors(&[
        (
            "vm.builtin.get_py_func",
            vec![Value::str("test.builtins.py_missing")],
            ErrorKind::Internal,
            "Python function 'test.builtins.py_missing' not found in registry",
        ),
        (
            "vm.builtin.call_py_func",
            vec![Value::Int(1), Value::Int(2)],
            ErrorKind::Internal,
            "expects exactly 1 argument (tuple)",
        ),
        (
            "vm.builtin.call_py_func",
            vec![Value::tuple(vec![Value::str("test.builtins.py_echo")])],
            ErrorKind::Internal,
            "tuple should contain (func_name, args)",
        ),
        (
            "vm.builtin.call_py_func",
            vec![Value::Int(1)],
            ErrorKind::Type,
            "expects a tuple",
        ),
        (
            "vm.builtin.register_py_func",
            vec![Value::str("x"), Value::Int(1)],
            ErrorKind::Type,
            "(func)",
        ),
        (
            "vm.builtin.clear_py_func_registry",
            vec![Value::Int(1)],
            ErrorKind::Type,
            "Expected 0",
        ),
    ]);
}

/// `runtime.TVMTensorCreateView`: the bytes from an offset, seen with another shape and dtype,
/// and never past the data's end.
#[test]
fn tensor_create_view() {
    let data = Tensor::from_slice(&[4], &[1.0f32, -2.0, 0.5, 3.0]).unwrap();
    let dt = |d: DataType| Value::DType(d);
    let view = call(
        "runtime.TVMTensorCreateView",
        &[
            Value::Tensor(data.clone()),
            shape(&[2]),
            dt(DataType::U32),
            Value::Int(8),
        ],
    )
    .unwrap();
    let view = view.as_tensor().unwrap();
    assert_eq!(view.shape(), &[2]);
    assert_eq!(
        view.to_vec::<u32>().unwrap(),
        vec![0.5f32.to_bits(), 3.0f32.to_bits()]
    );
    check_errors(&[
        (
            "runtime.TVMTensorCreateView",
            vec![
                Value::Tensor(data.clone()),
                shape(&[3]),
                dt(DataType::F32),
                Value::Int(8),
            ],
            ErrorKind::Value,
            "must lie within the tensor's 16 bytes",
        ),
        (
            "runtime.TVMTensorCreateView",
            vec![
                Value::Tensor(data.clone()),
                shape(&[1]),
                dt(DataType::F32),
                Value::Int(-4),
            ],
            ErrorKind::Value,
            "must not be negative",
        ),
        (
            "runtime.TVMTensorCreateView",
            vec![
                Value::Tensor(data),
                shape(&[1]),
                dt(DataType::F32),
                Value::Int(i64::MAX),
            ],
            ErrorKind::Value,
            "must lie within",
        ),
    ]);
}
