//! Binary format.
