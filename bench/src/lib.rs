//! Benchmarks support.
