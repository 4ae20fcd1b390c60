# passes: RaiseCallTIR, DeadCodeElimination
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

batch = TypeVar("batch")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def NT_matmul(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), w: T.Buffer((T.int64(6), T.int64(8)), "float32"), NT_matmul: T.Buffer((T.int64(4), T.int64(6)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(4), T.int64(6), T.int64(8)):
            with T.sblock("NT_matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(x[v_i0, v_k], w[v_i1, v_k])
                T.writes(NT_matmul[v_i0, v_i1])
                with T.init():
                    NT_matmul[v_i0, v_i1] = T.float32(0.0)
                NT_matmul[v_i0, v_i1] = NT_matmul[v_i0, v_i1] + x[v_i0, v_k] * w[v_i1, v_k]

    @T.prim_func(private=True, s_tir=True)
    def NT_matmul1(q: T.Buffer((T.int64(2), T.int64(3), T.int64(8)), "float32"), kv: T.Buffer((T.int64(2), T.int64(5), T.int64(8)), "float32"), NT_matmul: T.Buffer((T.int64(2), T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2, k in T.grid(T.int64(2), T.int64(3), T.int64(5), T.int64(8)):
            with T.sblock("NT_matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(q[v_i0, v_i1, v_k], kv[v_i0, v_i2, v_k])
                T.writes(NT_matmul[v_i0, v_i1, v_i2])
                with T.init():
                    NT_matmul[v_i0, v_i1, v_i2] = T.float32(0.0)
                NT_matmul[v_i0, v_i1, v_i2] = NT_matmul[v_i0, v_i1, v_i2] + q[v_i0, v_i1, v_k] * kv[v_i0, v_i2, v_k]

    @T.prim_func(private=True)
    def dense(x: T.Buffer((T.int64(1), T.int64(10)), "float32"), w: T.Buffer((T.int64(30), T.int64(10)), "float32"), T_matmul_NT: T.Buffer((T.int64(1), T.int64(30)), "float32")):
        T.func_attr({"layout_free_buffers": [1], "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, k in T.grid(T.int64(1), T.int64(30), T.int64(10)):
            with T.block("T_matmul_NT"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(x[v_i0, v_k], w[v_i1, v_k])
                T.writes(T_matmul_NT[v_i0, v_i1])
                with T.init():
                    T_matmul_NT[v_i0, v_i1] = T.float32(0)
                T_matmul_NT[v_i0, v_i1] = T_matmul_NT[v_i0, v_i1] + x[v_i0, v_k] * w[v_i1, v_k]

    @T.prim_func(private=True, s_tir=True)
    def matmul(a: T.Buffer((T.int64(3), T.int64(4)), "float32"), b: T.Buffer((T.int64(4), T.int64(5)), "float32"), matmul: T.Buffer((T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a[v_i0, v_k], b[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a[v_i0, v_k] * b[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def matmul1(a: T.Buffer((T.int64(2), T.int64(3), T.int64(4)), "float32"), b: T.Buffer((T.int64(2), T.int64(4), T.int64(5)), "float32"), matmul: T.Buffer((T.int64(2), T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2, k in T.grid(T.int64(2), T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(a[v_i0, v_i1, v_k], b[v_i0, v_k, v_i2])
                T.writes(matmul[v_i0, v_i1, v_i2])
                with T.init():
                    matmul[v_i0, v_i1, v_i2] = T.float32(0.0)
                matmul[v_i0, v_i1, v_i2] = matmul[v_i0, v_i1, v_i2] + a[v_i0, v_i1, v_k] * b[v_i0, v_k, v_i2]

    @T.prim_func(private=True, s_tir=True)
    def matmul2(a: T.Buffer((T.int64(2), T.int64(3), T.int64(4)), "float32"), b: T.Buffer((T.int64(4), T.int64(5)), "float32"), matmul: T.Buffer((T.int64(2), T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2, k in T.grid(T.int64(2), T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(a[v_i0, v_i1, v_k], b[v_k, v_i2])
                T.writes(matmul[v_i0, v_i1, v_i2])
                with T.init():
                    matmul[v_i0, v_i1, v_i2] = T.float32(0.0)
                matmul[v_i0, v_i1, v_i2] = matmul[v_i0, v_i1, v_i2] + a[v_i0, v_i1, v_k] * b[v_k, v_i2]

    @T.prim_func(private=True, s_tir=True)
    def matmul3(a: T.Buffer((T.int64(1), T.int64(3), T.int64(4)), "float32"), b: T.Buffer((T.int64(2), T.int64(4), T.int64(5)), "float32"), matmul: T.Buffer((T.int64(2), T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2, k in T.grid(T.int64(2), T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(a[T.int64(0), v_i1, v_k], b[v_i0, v_k, v_i2])
                T.writes(matmul[v_i0, v_i1, v_i2])
                with T.init():
                    matmul[v_i0, v_i1, v_i2] = T.float32(0.0)
                matmul[v_i0, v_i1, v_i2] = matmul[v_i0, v_i1, v_i2] + a[T.int64(0), v_i1, v_k] * b[v_i0, v_k, v_i2]

    @T.prim_func(private=True, s_tir=True)
    def matmul4(h2: T.Buffer((batch, T.int64(16)), "float32"), w2: T.Buffer((T.int64(16), T.int64(4)), "float32"), matmul: T.Buffer((batch, T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(batch, T.int64(4), T.int64(16)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(h2[v_i0, v_k], w2[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + h2[v_i0, v_k] * w2[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def matmul5(a: T.Buffer((T.int64(3), T.int64(4)), "float64"), b: T.Buffer((T.int64(4), T.int64(5)), "float64"), matmul: T.Buffer((T.int64(3), T.int64(5)), "float64")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a[v_i0, v_k], b[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float64(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a[v_i0, v_k] * b[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def matmul6(a: T.Buffer((T.int64(3), T.int64(4)), "float32"), b: T.Buffer((T.int64(4),), "float32"), matmul: T.Buffer((T.int64(3),), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, k in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(a[v_i0, v_k], b[v_k])
                T.writes(matmul[v_i0])
                with T.init():
                    matmul[v_i0] = T.float32(0.0)
                matmul[v_i0] = matmul[v_i0] + a[v_i0, v_k] * b[v_k]

    @T.prim_func(private=True, s_tir=True)
    def matmul7(a: T.Buffer((T.int64(4),), "float32"), b: T.Buffer((T.int64(2), T.int64(4), T.int64(5)), "float32"), matmul: T.Buffer((T.int64(2), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(2), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a[v_k], b[v_i0, v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a[v_k] * b[v_i0, v_k, v_i1]

    @R.function
    def main(a: R.Tensor((3, 4), dtype="float32"), b: R.Tensor((4, 5), dtype="float32"), a3: R.Tensor((2, 3, 4), dtype="float32"), b3: R.Tensor((2, 4, 5), dtype="float32"), a1: R.Tensor((1, 3, 4), dtype="float32"), x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((6, 8), dtype="float32"), q: R.Tensor((2, 3, 8), dtype="float32"), kv: R.Tensor((2, 5, 8), dtype="float32"), xd: R.Tensor((1, 10), dtype="float32"), wd: R.Tensor((30, 10), dtype="float32"), h: R.Tensor((batch, 16), dtype="float32"), wh: R.Tensor((16, 4), dtype="float32"), a64: R.Tensor((3, 4), dtype="float64"), b64: R.Tensor((4, 5), dtype="float64"), v: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((3, 5), dtype="float32"), R.Tensor((2, 3, 5), dtype="float32"), R.Tensor((2, 3, 5), dtype="float32"), R.Tensor((2, 3, 5), dtype="float32"), R.Tensor((4, 6), dtype="float32"), R.Tensor((2, 3, 5), dtype="float32"), R.Tensor((1, 30), dtype="float32"), R.Tensor((batch, 4), dtype="float32"), R.Tensor((3, 5), dtype="float64"), R.Tensor((3,), dtype="float32"), R.Tensor((2, 5), dtype="float32")):
        cls = Module
        with R.dataflow():
            mm = R.call_tir(cls.matmul, (a, b), out_ty=R.Tensor((3, 5), dtype="float32"))
            bmm = R.call_tir(cls.matmul1, (a3, b3), out_ty=R.Tensor((2, 3, 5), dtype="float32"))
            bcast = R.call_tir(cls.matmul2, (a3, b), out_ty=R.Tensor((2, 3, 5), dtype="float32"))
            bcast1 = R.call_tir(cls.matmul3, (a1, b3), out_ty=R.Tensor((2, 3, 5), dtype="float32"))
            nt = R.call_tir(cls.NT_matmul, (x, w), out_ty=R.Tensor((4, 6), dtype="float32"))
            bnt = R.call_tir(cls.NT_matmul1, (q, kv), out_ty=R.Tensor((2, 3, 5), dtype="float32"))
            dense = R.call_tir(cls.dense, (xd, wd), out_ty=R.Tensor((1, 30), dtype="float32"))
            sym = R.call_tir(cls.matmul4, (h, wh), out_ty=R.Tensor((batch, 4), dtype="float32"))
            mm64 = R.call_tir(cls.matmul5, (a64, b64), out_ty=R.Tensor((3, 5), dtype="float64"))
            mv = R.call_tir(cls.matmul6, (a, v), out_ty=R.Tensor((3,), dtype="float32"))
            vm = R.call_tir(cls.matmul7, (v, b3), out_ty=R.Tensor((2, 5), dtype="float32"))
            gv = (mm, bmm, bcast, bcast1, nt, bnt, dense, sym, mm64, mv, vm)
            R.output(gv)
        return gv
