# A[2^63 - 1, 4] of a (7, 4) buffer: the flat offset (2^63 - 1) * 4 + 4 wraps to 0, inside the
# buffer; the kernel checks the int64 arithmetic of an unproven flat index for overflow, so it
# reports out of bounds as the interpreter does.
@T.prim_func
def flat_wraps(A: T.Buffer((T.int64(7), T.int64(4)), "int8")):
    T.func_attr({"tirx.noalias": True})
    A[T.int64(9223372036854775807), T.int64(4)] = T.int8(1)
# shapes: [[7, 4]]
# input seed: 1
# expect: out-of-bounds
