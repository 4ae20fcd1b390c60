# Not canonical: constant arithmetic, folded on reading as TVM's parser folds it: Python computes
# arithmetic between literals, and TIR's operators and `T.max`-style functions fold constants and
# the identities `x + 0`, `x * 1`, ... (`arith::TryConstFold`); the node constructors (`T.Add`)
# and `float16` constants do not. const_fold.out.py is what TVM 0.27 prints for this function.
@I.ir_module
class Module:
    @T.prim_func
    def const_fold(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float16"), n: T.int32, x: T.float32):
        A[2 * 3] = T.float32(15.0 / 14.0)
        A[7 // 2 + 7 % 3 - (-7) // 2] = T.float32(1.0 / 3.0)
        A[T.int64(2) * T.int64(3) + T.int64(1)] = T.float32(1) / T.float32(3)
        A[n + 0] = x * T.float32(1)
        A[n * 1] = x + T.float32(0)
        A[0 + n] = x * T.float32(0)
        A[n * 0] = x / T.float32(1)
        A[n // 1] = T.float32(2) * T.float32(3)
        A[n % 1] = T.float32(0.1) + T.float32(0.2)
        B[2] = T.float16(1) / T.float16(3)
        A[T.Add(1, 2)] = T.float32(1)
        A[T.int32(2147483647) + T.int32(1) + 2147483648] = T.float32(1)
        A[T.max(n, T.int32(-2147483648))] = T.float32(1) * x
        A[T.floordiv(7, 2)] = T.max(T.float32(1), T.float32(3))
        A[T.truncmod(-7, 2) + 8] = x - T.float32(0)
        A[T.floormod(n, 1)] = T.float32(0) - x
        A[T.truncdiv(0, n)] = T.float32(0) / x
        A[T.Cast("int32", T.uint32(3) - T.uint32(5) - T.uint32(4294967290))] = T.Cast("float32", T.float32(1) < T.float32(3))
        A[n - n] = T.Cast("float32", T.int64(3) < T.int64(4))
        A[T.Add(1, 2) + T.Mul(n, 1) + T.Sub(n, 0) + T.FloorDiv(n, 1) + T.FloorMod(n, 1)] = T.Cast("float32", T.LT(1, 2)) + T.Mul(x, T.float32(0))
