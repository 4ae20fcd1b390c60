# Fuzz seed 742438 (shrunk): `A[-2^63, A[…]]` of an (n0, 2) buffer. The second index is a
# gather, so flattening wraps the flat index `-2^63 * 2 + i` (which wraps to `i`) in its
# dimension check; the kernel's wrap detection did not look inside that check, and the store
# ran where the interpreter reports out of bounds.
@T.prim_func
def fuzz_742438(var_A: T.handle, var_B: T.handle):
    T.func_attr({"tirx.noalias": True})
    n0 = T.int64()
    A = T.match_buffer(var_A, (n0, T.int64(2)), "int64")
    B = T.match_buffer(var_B, (T.int64(3),), "float32")
    A[T.int64(3), T.int64(0)] = T.Cast("int64", T.Cast("int8", A[T.int64(-9223372036854775808), T.min(T.Select(T.float64(0.0) < T.Cast("float64", B[T.int64(0)]), T.int64(0), T.int64(3)), T.int64(0))]))
# shapes: [[10, 2], [3]]
# input seed: 4652865268784320815
# expect: out-of-bounds
