//! Interpreter benchmarks.
fn main() {}
