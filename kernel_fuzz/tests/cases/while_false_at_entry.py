# A `while` whose condition is false at entry runs no iteration: its out-of-bounds store is
# never reached, in the kernel or in the interpreter.
@T.prim_func
def never(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
    T.func_attr({"tirx.noalias": True})
    for i in range(4):
        k = T.alloc_local((1,), "int32")
        k[0] = T.truncmod(A[i], 4)
        while k[0] > 3 or k[0] < -3:
            B[i + 100] = k[0]
        B[i] = k[0]
# shapes: [[4], [4]]
# input seed: 7
# expect: ok
