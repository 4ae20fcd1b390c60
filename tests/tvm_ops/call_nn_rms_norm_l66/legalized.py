# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def rms_norm(a0: T.Buffer((T.int64(6), T.int64(64)), "float32"), a1: T.Buffer((T.int64(64),), "float32"), T_cast: T.Buffer((T.int64(6), T.int64(64)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        T_cast_1 = T.sblock_alloc_buffer((T.int64(6), T.int64(64)))
        T_multiply = T.sblock_alloc_buffer((T.int64(6), T.int64(64)))
        T_multiply_red = T.sblock_alloc_buffer((T.int64(6),))
        rsqrt = T.sblock_alloc_buffer((T.int64(6),))
        T_cast_2 = T.sblock_alloc_buffer((T.int64(64),))
        T_rms_norm = T.sblock_alloc_buffer((T.int64(6), T.int64(64)))
        for ax0, ax1 in T.grid(T.int64(6), T.int64(64)):
            with T.sblock("T_cast"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1])
                T.writes(T_cast_1[v_ax0, v_ax1])
                T_cast_1[v_ax0, v_ax1] = a0[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(6), T.int64(64)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_cast_1[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = T_cast_1[v_ax0, v_ax1] * T_cast_1[v_ax0, v_ax1]
        for ax0, k1 in T.grid(T.int64(6), T.int64(64)):
            with T.sblock("T_multiply_red"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(T_multiply[v_ax0, v_k1])
                T.writes(T_multiply_red[v_ax0])
                with T.init():
                    T_multiply_red[v_ax0] = T.float32(0.0)
                T_multiply_red[v_ax0] = T_multiply_red[v_ax0] + T_multiply[v_ax0, v_k1]
        for ax0 in range(T.int64(6)):
            with T.sblock("rsqrt"):
                v_ax0 = T.axis.spatial(T.int64(6), ax0)
                T.reads(T_multiply_red[v_ax0])
                T.writes(rsqrt[v_ax0])
                rsqrt[v_ax0] = T.rsqrt(T_multiply_red[v_ax0] / T.float32(64.0) + T.float32(1.0000000000000001e-05))
        for ax0 in range(T.int64(64)):
            with T.sblock("T_cast_1"):
                v_ax0 = T.axis.spatial(T.int64(64), ax0)
                T.reads(a1[v_ax0])
                T.writes(T_cast_2[v_ax0])
                T_cast_2[v_ax0] = a1[v_ax0]
        for ax0, ax1 in T.grid(T.int64(6), T.int64(64)):
            with T.sblock("T_rms_norm"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(rsqrt[v_ax0], T_cast_1[v_ax0, v_ax1], T_cast_2[v_ax1])
                T.writes(T_rms_norm[v_ax0, v_ax1])
                T_rms_norm[v_ax0, v_ax1] = rsqrt[v_ax0] * T_cast_1[v_ax0, v_ax1] * T_cast_2[v_ax1]
        for ax0, ax1 in T.grid(T.int64(6), T.int64(64)):
            with T.sblock("T_cast_2"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_rms_norm[v_ax0, v_ax1])
                T.writes(T_cast[v_ax0, v_ax1])
                T_cast[v_ax0, v_ax1] = T_rms_norm[v_ax0, v_ax1]

    @R.function
    def main(a0: R.Tensor((6, 64), dtype="float32"), a1: R.Tensor((64,), dtype="float32")) -> R.Tensor((6, 64), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.rms_norm, (a0, a1), out_ty=R.Tensor((6, 64), dtype="float32"))
        return gv
