//! Shrinking: reduces a failing case to a small program that still fails the same way.
