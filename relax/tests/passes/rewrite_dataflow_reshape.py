# passes: RewriteDataflowReshape
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def squeeze(x: T.Buffer((T.int64(1), T.int64(3), T.int64(1), T.int64(2)), "float32"), T_squeeze: T.Buffer((T.int64(3), T.int64(1), T.int64(2)), "float32")):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(3), T.int64(1), T.int64(2)):
            with T.sblock("T_squeeze"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(x[T.int64(0), v_ax0, v_ax1, v_ax2])
                T.writes(T_squeeze[v_ax0, v_ax1, v_ax2])
                T_squeeze[v_ax0, v_ax1, v_ax2] = x[T.int64(0), v_ax0, v_ax1, v_ax2]

    @T.prim_func(private=True, s_tir=True)
    def squeeze1(x: T.Buffer((T.int64(1), T.int64(3), T.int64(1), T.int64(2)), "float32"), T_squeeze: T.Buffer((T.int64(3), T.int64(2)), "float32")):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(2)):
            with T.sblock("T_squeeze"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[T.int64(0), v_ax0, T.int64(0), v_ax1])
                T.writes(T_squeeze[v_ax0, v_ax1])
                T_squeeze[v_ax0, v_ax1] = x[T.int64(0), v_ax0, T.int64(0), v_ax1]

    @R.function
    def main(x: R.Tensor((1, 3, 1, 2), dtype="float32")) -> R.Tuple(R.Tensor((3, 1, 2), dtype="float32"), R.Tensor((3, 2), dtype="float32")):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.squeeze, (x,), out_ty=R.Tensor((3, 1, 2), dtype="float32"))
            b = R.call_tir(cls.squeeze1, (x,), out_ty=R.Tensor((3, 2), dtype="float32"))
            gv: R.Tuple(R.Tensor((3, 1, 2), dtype="float32"), R.Tensor((3, 2), dtype="float32")) = a, b
            R.output(gv)
        return gv
