# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def median(a0: T.Buffer((T.int64(2), T.int64(3)), "float32"), T_squeeze: T.Buffer((), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        T_full = T.sblock_alloc_buffer((T.int64(1),), "int64")
        T_reshape = T.sblock_alloc_buffer((T.int64(6),))
        out_buf = T.sblock_alloc_buffer((T.int64(6),), "int64", align=8)
        T_gather = T.sblock_alloc_buffer((T.int64(6),))
        T_gather_1 = T.sblock_alloc_buffer((T.int64(1),))
        for ax0 in range(T.int64(1)):
            with T.sblock("T_full"):
                v_ax0 = T.axis.spatial(T.int64(1), ax0)
                T.reads()
                T.writes(T_full[v_ax0])
                T_full[v_ax0] = T.int64(2)
        for ax0 in range(T.int64(6)):
            with T.sblock("T_reshape"):
                v_ax0 = T.axis.spatial(T.int64(6), ax0)
                T.reads(a0[v_ax0 % T.int64(6) // T.int64(3), v_ax0 % T.int64(3)])
                T.writes(T_reshape[v_ax0])
                T_reshape[v_ax0] = a0[v_ax0 % T.int64(6) // T.int64(3), v_ax0 % T.int64(3)]
        with T.sblock("argsort_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.argsort", T.tvm_stack_make_array(T_reshape.data, T.tvm_stack_make_shape(T.int64(6)), 0, 1, T.float32(0.0), T.int64(0)), T.tvm_stack_make_array(out_buf.data, T.tvm_stack_make_shape(T.int64(6)), 0, 1, T.int64(0), T.int64(0)), -1, T.bool(True))
        for ax0 in range(T.int64(6)):
            with T.sblock("T_gather"):
                v_ax0 = T.axis.spatial(T.int64(6), ax0)
                T.reads(T_reshape[out_buf[v_ax0]], out_buf[v_ax0])
                T.writes(T_gather[v_ax0])
                T_gather[v_ax0] = T_reshape[out_buf[v_ax0]]
        for ax0 in range(T.int64(1)):
            with T.sblock("T_gather_1"):
                v_ax0 = T.axis.spatial(T.int64(1), ax0)
                T.reads(T_gather[T_full[v_ax0]], T_full[v_ax0])
                T.writes(T_gather_1[v_ax0])
                T_gather_1[v_ax0] = T_gather[T_full[v_ax0]]
        with T.sblock("T_squeeze"):
            vi = T.axis.spatial(T.int64(1), T.int64(0))
            T.reads(T_gather_1[T.int64(0)])
            T.writes(T_squeeze[()])
            T_squeeze[()] = T_gather_1[T.int64(0)]

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.median, (a0,), out_ty=R.Tensor((), dtype="float32"))
        return gv
