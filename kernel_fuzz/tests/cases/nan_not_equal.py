# sqrt(-2) != 0: NaN compares unordered. TVM (LLVM `fcmp one`) and the kernel say false; the
# interpreter says true.
@T.prim_func
def nan_ne(B: T.Buffer((4,), "int32")):
    T.func_attr({"tirx.noalias": True})
    for i in range(4):
        B[i] = T.Select(T.sqrt(T.Cast("float32", i) - T.float32(2.0)) != T.float32(0.0), 1, 0)
# shapes: [[4]]
# input seed: 1
# expect: ok
