# `and` evaluates its right side only when the left side does not decide it: here the left side
# is false, so `truncmod(10, 0)` never runs. The optimized JIT evaluated both sides of an `and`
# whose right side had no load, and failed with a division by zero (kernel fuzz seed 25405).
@T.prim_func
def fuzz_25405(A: T.Buffer((6,), "int32"), B: T.Buffer((T.int64(6),), "float32"), C: T.Buffer((T.int64(7),), "float32")):
    T.func_attr({"tirx.noalias": True})
    w0 = T.alloc_local((1,), "int32")
    while w0[0] < 0 and 6 < T.truncmod(10, T.Cast("int32", T.int64(0))):
        B[T.int64(0)] = T.float32(0.0)
        w0[0] = w0[0] + 1
# shapes: [[6], [6], [7]]
# input seed: 16804148737264045576
# expect: ok
