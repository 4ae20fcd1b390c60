//! Interpreter benchmarks: the cost of one Call instruction in the bytecode dispatch loop.
//!
//! Each benchmark runs `main` = a chain of `N` Calls to a trivial packed function plus one Ret,
//! through `VirtualMachine::invoke`, and reports throughput in instructions: criterion's
//! `thrpt` line reads as instructions per second, and `time / N` as ns per instruction (the
//! one-off cost of `invoke` — frame set-up, argument copy — is amortised over `N`).
//!
//! A second group calls a bytecode function instead (frame push and pop; two instructions per
//! call, counted as one element).
//!
//! `cargo bench -p relaxjit-bench --bench interpreter`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use relaxjit_bench::{Chain, call_chain, library, vm_call_chain};
use vm::{Tensor, Value, VirtualMachine};

const N: usize = 1000;

fn call_chains(c: &mut Criterion) {
    let lib = library();
    let mut group = c.benchmark_group("interpreter/call_chain");
    group.throughput(Throughput::Elements(N as u64));
    for chain in Chain::ALL {
        let vm = VirtualMachine::with_library(call_chain(N, chain), &lib).expect("vm init");
        // An Int argument, and for the pass-through chains also a tensor, whose register copies
        // are reference-count updates.
        let mut inputs = vec![("int", Value::Int(0))];
        if chain != Chain::AddImm {
            inputs.push(("tensor", Value::Tensor(Tensor::scalar(1.0f32))));
        }
        for (input_name, input) in inputs {
            let args = [input];
            let expected = vm.invoke("main", &args).expect("the chain runs");
            if chain == Chain::AddImm {
                assert_eq!(expected.as_int().ok(), Some(N as i64));
            }
            group.bench_function(format!("{}/{input_name}", chain.name()), |b| {
                b.iter(|| vm.invoke("main", black_box(&args)).expect("the chain runs"))
            });
        }
    }
    group.finish();
}

/// Calls of a bytecode function: per call, a Call that pushes a frame and the callee's Ret.
fn vm_call_chains(c: &mut Criterion) {
    let mut group = c.benchmark_group("interpreter/vm_call_chain");
    group.throughput(Throughput::Elements(N as u64));
    let vm = VirtualMachine::with_library(vm_call_chain(N), &library()).expect("vm init");
    for (input_name, input) in [
        ("int", Value::Int(0)),
        ("tensor", Value::Tensor(Tensor::scalar(1.0f32))),
    ] {
        let args = [input];
        vm.invoke("main", &args).expect("the chain runs");
        group.bench_function(input_name, |b| {
            b.iter(|| vm.invoke("main", black_box(&args)).expect("the chain runs"))
        });
    }
    group.finish();
}

criterion_group!(benches, call_chains, vm_call_chains);
criterion_main!(benches);
