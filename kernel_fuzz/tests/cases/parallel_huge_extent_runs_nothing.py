# A parallel loop of 2^63 - 8 iterations whose first out-of-bounds store is at i = 4: the
# parallel-for helper's chunk count wraps negative and nothing runs (exit 0, zeros).
@T.prim_func
def parallel_huge(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    T.func_attr({"tirx.noalias": True})
    for i in T.parallel(T.int64(9223372036854775800)):
        B[T.Cast("int32", i)] = A[0]
# shapes: [[4], [4]]
# input seed: 1
# expect: out-of-bounds
