# 2^32 + 1 iterations whose store leaves the buffer at i = 2: both fail at once.
@T.prim_func
def huge_serial(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((3, 2), "int32")):
    T.func_attr({"tirx.noalias": True})
    for i in range(T.int64(4294967297)):
        A[i + T.int64(2)] = T.Cast("float32", B[2, 1])
# shapes: [[4], [3, 2]]
# input seed: 5
# expect: out-of-bounds
