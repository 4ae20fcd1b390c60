# A serial loop of 2^63 - 1 iterations that leaves its buffer at i = 9: the kernel parallelizes
# it and the parallel-for helper tries ~2^63 tasks instead of stopping at the first error (hang).
@T.prim_func
def serial_huge(A: T.Buffer((T.int64(9),), "float32")):
    T.func_attr({"tirx.noalias": True})
    for i in range(T.int64(9223372036854775807)):
        A[i] = T.Cast("float32", i)
# shapes: [[9]]
# input seed: 1
# expect: out-of-bounds
