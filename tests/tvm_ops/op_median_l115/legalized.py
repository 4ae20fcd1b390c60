# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def median(data_buf: T.Buffer((T.int64(2), T.int64(3)), "float32", align=8), T_squeeze: T.Buffer((T.int64(2),), "float32"), T_squeeze_1: T.Buffer((T.int64(2),), "int64")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        T_full = T.sblock_alloc_buffer((T.int64(2), T.int64(1)), "int64")
        out_buf = T.sblock_alloc_buffer((T.int64(2), T.int64(3)), "int64", align=8)
        T_gather = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        T_gather_1 = T.sblock_alloc_buffer((T.int64(2), T.int64(1)))
        T_gather_2 = T.sblock_alloc_buffer((T.int64(2), T.int64(1)), "int64")
        for ax0, ax1 in T.grid(T.int64(2), T.int64(1)):
            with T.sblock("T_full"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads()
                T.writes(T_full[v_ax0, v_ax1])
                T_full[v_ax0, v_ax1] = T.int64(1)
        with T.sblock("argsort_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.argsort", T.tvm_stack_make_array(data_buf.data, T.tvm_stack_make_shape(T.int64(2), T.int64(3)), 0, 2, T.float32(0.0), T.int64(0)), T.tvm_stack_make_array(out_buf.data, T.tvm_stack_make_shape(T.int64(2), T.int64(3)), 0, 2, T.int64(0), T.int64(0)), 1, T.bool(True))
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_gather"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(data_buf[v_ax0, out_buf[v_ax0, v_ax1]], out_buf[v_ax0, v_ax1])
                T.writes(T_gather[v_ax0, v_ax1])
                T_gather[v_ax0, v_ax1] = data_buf[v_ax0, out_buf[v_ax0, v_ax1]]
        for ax0, ax1 in T.grid(T.int64(2), T.int64(1)):
            with T.sblock("T_gather_1"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_gather[v_ax0, T_full[v_ax0, v_ax1]], T_full[v_ax0, v_ax1])
                T.writes(T_gather_1[v_ax0, v_ax1])
                T_gather_1[v_ax0, v_ax1] = T_gather[v_ax0, T_full[v_ax0, v_ax1]]
        for ax0 in range(T.int64(2)):
            with T.sblock("T_squeeze"):
                v_ax0 = T.axis.spatial(T.int64(2), ax0)
                T.reads(T_gather_1[v_ax0, T.int64(0)])
                T.writes(T_squeeze[v_ax0])
                T_squeeze[v_ax0] = T_gather_1[v_ax0, T.int64(0)]
        for ax0, ax1 in T.grid(T.int64(2), T.int64(1)):
            with T.sblock("T_gather_2"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(out_buf[v_ax0, T_full[v_ax0, v_ax1]], T_full[v_ax0, v_ax1])
                T.writes(T_gather_2[v_ax0, v_ax1])
                T_gather_2[v_ax0, v_ax1] = out_buf[v_ax0, T_full[v_ax0, v_ax1]]
        for ax0 in range(T.int64(2)):
            with T.sblock("T_squeeze_1"):
                v_ax0 = T.axis.spatial(T.int64(2), ax0)
                T.reads(T_gather_2[v_ax0, T.int64(0)])
                T.writes(T_squeeze_1[v_ax0])
                T_squeeze_1[v_ax0] = T_gather_2[v_ax0, T.int64(0)]

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="int64")):
        cls = Module
        gv = R.call_tir(cls.median, (a0,), out_ty=[R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="int64")])
        return gv
