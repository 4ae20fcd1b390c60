//! Relax IR.
