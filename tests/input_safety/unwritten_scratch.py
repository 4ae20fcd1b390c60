# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def argmax(x: T.Buffer((T.int64(3), T.int64(5)), "float32"), x_red: T.Buffer((T.int64(3),), "int64")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        x_red_temp_v0 = T.sblock_alloc_buffer((T.int64(3),), "int64")
        x_red_temp_v1 = T.sblock_alloc_buffer((T.int64(3),))
        for ax0, k1 in T.grid(T.int64(3), T.int64(5)):
            with T.sblock("x_red_temp"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(x[v_ax0, v_k1])
                T.writes(x_red_temp_v0[v_ax0], x_red_temp_v1[v_ax0])
                with T.init():
                    x_red_temp_v0[v_ax0] = T.int64(-1)
                    x_red_temp_v1[v_ax0] = T.float32(-340282346638528859811704183484516925440.0)
                v_x_red_temp_v0: T.let[T.int64] = T.Select(x_red_temp_v1[v_ax0] > x[v_ax0, v_k1] or x_red_temp_v1[v_ax0] == x[v_ax0, v_k1] and x_red_temp_v0[v_ax0] < v_k1, x_red_temp_v0[v_ax0], v_k1)
                v_x_red_temp_v1: T.let[T.float32] = T.Select(x_red_temp_v1[v_ax0] > x[v_ax0, v_k1], x_red_temp_v1[v_ax0], x[v_ax0, v_k1])
                x_red_temp_v0[v_ax0] = v_x_red_temp_v0
                x_red_temp_v1[v_ax0] = v_x_red_temp_v1
        for ax0 in range(T.int64(3)):
            with T.sblock("x_red"):
                v_ax0 = T.axis.spatial(T.int64(3), ax0)
                T.reads(x_red_temp_v0[v_ax0])
                T.writes(x_red[v_ax0])
                x_red[v_ax0] = x_red_temp_v0[v_ax0]

    @T.prim_func(private=True, s_tir=True)
    def argmin(x: T.Buffer((T.int64(3), T.int64(5)), "float32"), x_red: T.Buffer((T.int64(1), T.int64(5)), "int64")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        x_red_temp_v0 = T.sblock_alloc_buffer((T.int64(1), T.int64(5)), "int64")
        x_red_temp_v1 = T.sblock_alloc_buffer((T.int64(1), T.int64(5)))
        for ax0, ax1, k0 in T.grid(T.int64(-9223372036854775808), T.int64(5), T.int64(3)):
            with T.sblock("x_red_temp"):
                v_ax0, v_ax1, v_k0 = T.axis.remap("SSR", [ax0, ax1, k0])
                T.reads(x[v_k0, v_ax1])
                T.writes(x_red_temp_v0[v_ax0, v_ax1], x_red_temp_v1[v_ax0, v_ax1])
                with T.init():
                    x_red_temp_v0[v_ax0, v_ax1] = T.int64(-1)
                    x_red_temp_v1[v_ax0, v_ax1] = T.float32(340282346638528859811704183484516925440.0)
                v_x_red_temp_v0: T.let[T.int64] = T.Select(x_red_temp_v1[v_ax0, v_ax1] < x[v_k0, v_ax1] or x_red_temp_v1[v_ax0, v_ax1] == x[v_k0, v_ax1] and x_red_temp_v0[v_ax0, v_ax1] < v_k0, x_red_temp_v0[v_ax0, v_ax1], v_k0)
                v_x_red_temp_v1: T.let[T.float32] = T.Select(x_red_temp_v1[v_ax0, v_ax1] < x[v_k0, v_ax1], x_red_temp_v1[v_ax0, v_ax1], x[v_k0, v_ax1])
                x_red_temp_v0[v_ax0, v_ax1] = v_x_red_temp_v0
                x_red_temp_v1[v_ax0, v_ax1] = v_x_red_temp_v1
        for ax0, ax1 in T.grid(T.int64(1), T.int64(5)):
            with T.sblock("x_red"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x_red_temp_v0[v_ax0, v_ax1])
                T.writes(x_red[v_ax0, v_ax1])
                x_red[v_ax0, v_ax1] = x_red_temp_v0[v_ax0, v_ax1]

    @R.function
    def main(x: R.Tensor((3, 5), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="int64"), R.Tensor((1, 5), dtype="int64")):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.argmax, (x,), out_ty=R.Tensor((3,), dtype="int64"))
            b = R.call_tir(cls.argmin, (x,), out_ty=R.Tensor((1, 5), dtype="int64"))
            gv: R.Tuple(R.Tensor((3,), dtype="int64"), R.Tensor((1, 5), dtype="int64")) = a, b
            R.output(gv)
        return gv
