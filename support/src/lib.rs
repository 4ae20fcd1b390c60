//! relaxjit's test harness, kept out of the `relaxjit` library's public API: the conformance
//! corpus format and its runners (used by the tests and `cargo xtask conformance`), generated
//! inputs and result summaries, the embedded demo, and timing samples for the benchmarks.
//!
//! Not published. The `relaxjit` binary mounts `values.rs`, `demo.rs` and `timing.rs` as its
//! own modules (a package cannot depend on a crate that depends on its own library).

pub mod bytecode_mode;
pub mod case;
pub mod demo;
pub mod json_tensor;
pub mod timing;
pub mod tvm_bytecode;
pub mod values;
