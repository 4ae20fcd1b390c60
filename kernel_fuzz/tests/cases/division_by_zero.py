# An integer floor division by a loaded zero, inside a loop.
@T.prim_func
def div_zero(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
    T.func_attr({"tirx.noalias": True})
    for i in range(4):
        B[i] = A[i] // (A[i] - A[i])
# shapes: [[4], [4]]
# input seed: 3
# expect: division-by-zero
