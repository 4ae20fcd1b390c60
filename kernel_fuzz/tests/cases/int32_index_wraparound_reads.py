# The int32 index (i * 1073741825) // 268435456 wraps to a negative value at i = 2: an
# out-of-bounds read in both (issue 8's first row, reading).
@T.prim_func
def wrap_read(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"tirx.noalias": True})
    for i in range(4):
        B[i] = A[i * 1073741825 // 268435456]
# shapes: [[16], [16]]
# input seed: 2
# expect: out-of-bounds
