# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def blocks(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "blocks_main", "op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        C = T.sblock_alloc_buffer((16,), scope="local")
        for i, k in T.grid(16, 16):
            with T.sblock("sum"):
                vi = T.axis.spatial((2, 18), i + 2)
                vk = T.axis.reduce(16, k)
                T.where(i < 14)
                T.reads(A[vi - 2, 0:16])
                T.writes(C[vi - 2])
                T.sblock_attr({"meta_schedule.tiling_structure": "SSRSRS", "unroll": [1, 2]})
                with T.init():
                    C[vi - 2] = T.float32(0.0)
                C[vi - 2] = C[vi - 2] + A[vi - 2, vk]
        for i in range(16):
            with T.sblock("copy"):
                vi = T.axis.spatial(16, i)
                T.reads(C[vi])
                T.writes(B[vi])
                D = T.sblock_alloc_buffer((2,), "int64")
                B[vi] = C[vi]

    @T.prim_func(s_tir=True)
    def explicit_root(A: T.Buffer((4,), "float32")):
        with T.sblock("root"):
            T.reads()
            T.writes()
            with T.sblock("inner"):
                T.reads(A[0:4])
                T.writes(A[0:4])
                for i in range(4):
                    A[i] = T.float32(0.0)
