# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def memory(A: T.Buffer((4,), "float32"), n: T.int64):
        assert n > T.int64(0), "n must be \"positive\""
        B = T.alloc_local((4,))
        C = T.alloc_buffer((8,))
        T.attr(C.data, "storage_alignment", 64)
        x: T.let[T.int64] = n * T.int64(2)
        if x > T.int64(4):
            B[0] = A[0]
        else:
            C[1] = A[1]
            T.call_packed("my.func", A.data, x)
        with T.attr({"pragma_scope": "seq"}):
            T.evaluate(T.int64(0))
        with T.allocate([n], "int32", "local") as p:
            with T.decl_buffer((n,), "int32", data=p) as D:
                D[0] = 1
            with T.Assert(p != p, "never"):
                T.evaluate(0)
            T.evaluate(1)
        T.attr(0, "extra", 1)
        D = T.decl_buffer((2,), "float32", data=A.data)
        D[1] = T.float32(0.0)
