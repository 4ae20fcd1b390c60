# A `while` counter indexes past the end of `B` on its fifth iteration: the store inside the
# loop keeps its bounds check, and both sides stop there.
@T.prim_func
def walk(A: T.Buffer((2,), "float32"), B: T.Buffer((4,), "float32")):
    T.func_attr({"tirx.noalias": True})
    for i in range(2):
        k = T.alloc_local((1,), "int32")
        k[0] = 0
        while k[0] < 10:
            for j in range(2):
                B[k[0]] = A[j] + T.Cast("float32", i)
            k[0] = k[0] + 1
# shapes: [[2], [4]]
# input seed: 11
# expect: out-of-bounds
