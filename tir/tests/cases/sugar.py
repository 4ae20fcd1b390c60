# Not canonical: handles with T.match_buffer, plain literals, inferred block regions, and
# annotated or unannotated lets. The printed form is in sugar.out.py.
@I.ir_module
class Module:
    @T.prim_func
    def sugar(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (4,), "float32")
        B = T.match_buffer(b, [4])
        for i in T.serial(0, 4):
            B[i] = A[i] + 1.5
        for i, j in T.grid(2, 2):
            with T.sblock("blk"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi * 2 + vj] = -B[vj] * 2
                x = A[0]
                y: T.float32 = x + 1
                A[1] = y
        A[2] += T.float32(1.0)
        with T.LetStmt(T.int32(3)) as z:
            A[z] = T.float32(0)
        for i in range(3, 7):
            A[i - 3] = T.float32(i)

    @T.prim_func
    def sugar_symbolic(a: T.handle, b: T.handle):
        n, m = T.int64(), T.int64()
        A = T.match_buffer(a, (n, m), "float32")
        B = T.match_buffer(b, (n, m), "float32")
        for i, j in T.grid(n, m):
            B[i, j] = A[i, j]
