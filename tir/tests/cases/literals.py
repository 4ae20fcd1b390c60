# Not canonical: plain integer literals beside variables of other integer types. Literals that do
# not fit int32 are int64 and widen the other side, as TVM 0.27 types them (the printed form in
# literals.out.py is what TVM prints for this function).
@I.ir_module
class Module:
    @T.prim_func
    def literals(A: T.Buffer((4,), "float32"), B: T.Buffer((6,), "int64"), n: T.int8, m: T.int64, k: T.int16, u: T.uint32):
        for i in range(4):
            A[i] = T.Cast("float32", i + 4294967296)
            A[i] = T.Cast("float32", 4294967296 + i)
            A[i] = T.Cast("float32", i + (-2147483648))
            A[0] = T.Cast("float32", i + T.int64(5))
            A[1] = T.Cast("float32", n + 1)
            A[2] = T.Cast("float32", n + 300)
            A[3] = T.Cast("float32", n + 4294967296)
            A[0] = T.Cast("float32", m + 1)
            A[0] = T.Cast("float32", k + 70000)
            A[0] = T.Cast("float32", u + 4294967296)
            A[0] = T.Cast("float32", u + 5)
            A[0] = T.Cast("float32", T.int64(5) + i)
            A[0] = T.Cast("float32", i * 4294967296 < 3)
            A[0] = T.Cast("float32", T.max(i, 4294967296))
            A[0] = T.Cast("float32", i + T.int8(3))
        for j in range(4294967296):
            A[0] = T.float32(1)
        B[0] = 2147483647
        B[1] = 2147483648
        B[2] = -2147483648
        B[3] = -2147483649
