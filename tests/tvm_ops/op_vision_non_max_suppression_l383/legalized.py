# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def non_max_suppression(data: T.Buffer((T.int64(2), T.int64(5), T.int64(6)), "float32"), valid_count: T.Buffer((T.int64(2),), "int32"), indices: T.Buffer((T.int64(2), T.int64(5)), "int32"), out_box_indices: T.Buffer((T.int64(2), T.int64(5)), "int32"), out_valid_box_count: T.Buffer((T.int64(2), T.int64(1)), "int32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        score_tensor = T.sblock_alloc_buffer((T.int64(2), T.int64(5)))
        out_buf = T.sblock_alloc_buffer((T.int64(2), T.int64(5)), "int32", align=8)
        out_data = T.sblock_alloc_buffer((T.int64(2), T.int64(5), T.int64(6)))
        for i, j in T.grid(T.int64(2), T.int64(5)):
            with T.sblock("score_tensor"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(data[v_i, v_j, T.int64(1)])
                T.writes(score_tensor[v_i, v_j])
                score_tensor[v_i, v_j] = data[v_i, v_j, T.int64(1)]
        with T.sblock("argsort_nms_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.argsort_nms", T.tvm_stack_make_array(score_tensor.data, T.tvm_stack_make_shape(T.int64(2), T.int64(5)), 0, 2, T.float32(0.0), T.int64(0)), T.tvm_stack_make_array(valid_count.data, T.tvm_stack_make_shape(T.int64(2)), 0, 1, 0, T.int64(0)), T.tvm_stack_make_array(out_buf.data, T.tvm_stack_make_shape(T.int64(2), T.int64(5)), 0, 2, 0, T.int64(0)), 1, T.bool(False))
        with T.sblock("non_max_suppression"):
            T.reads()
            T.writes()
            for v in T.parallel(T.int64(2)):
                buffer = T.alloc_local((T.int64(1),), "int32")
                buffer[T.int64(0)] = valid_count[v]
                if T.bool(False):
                    buffer[T.int64(0)] = -1
                for v_1 in range(T.int64(5)):
                    if v_1 < T.Cast("int64", buffer[T.int64(0)]):
                        for v_2 in range(T.int64(6)):
                            out_data[v, v_1, v_2] = data[v, out_buf[v, v_1], v_2]
                        out_box_indices[v, v_1] = out_buf[v, v_1]
                    else:
                        for v_2 in range(T.int64(6)):
                            out_data[v, v_1, v_2] = T.Cast("float32", T.float32(-1.0))
                        out_box_indices[v, v_1] = -1
                buffer_1 = T.alloc_local((T.int64(1),), "int32")
                buffer_1[T.int64(0)] = 0
                buffer_2 = T.alloc_local((T.int64(1),), "int32")
                buffer_3 = T.alloc_local((T.int64(1),))
                buffer_4 = T.alloc_local((T.int64(1),), "int32")
                buffer_5 = T.alloc_local((T.int64(1),))
                for v_1 in range(T.Cast("int64", buffer[T.int64(0)])):
                    if out_data[v, v_1, T.int64(1)] > T.Cast("float32", T.float32(0.0)) and T.Select(T.bool(False), T.Cast("int64", buffer_1[T.int64(0)]) < T.int64(-1), T.bool(True)):
                        buffer_1[T.int64(0)] = buffer_1[T.int64(0)] + 1
                        for v_2 in range(T.Cast("int64", buffer[T.int64(0)])):
                            if v_2 > v_1 and out_data[v, v_2, T.int64(1)] > T.Cast("float32", T.float32(0.0)):
                                if out_data[v, v_1, T.int64(0)] == out_data[v, v_2, T.int64(0)]:
                                    if T.Select((T.max(out_data[v, v_1, T.int64(2)], out_data[v, v_1, T.int64(4)]) - T.min(out_data[v, v_1, T.int64(2)], out_data[v, v_1, T.int64(4)])) * (T.max(out_data[v, v_1, T.int64(3)], out_data[v, v_1, T.int64(5)]) - T.min(out_data[v, v_1, T.int64(3)], out_data[v, v_1, T.int64(5)])) + (T.max(out_data[v, v_2, T.int64(2)], out_data[v, v_2, T.int64(4)]) - T.min(out_data[v, v_2, T.int64(2)], out_data[v, v_2, T.int64(4)])) * (T.max(out_data[v, v_2, T.int64(3)], out_data[v, v_2, T.int64(5)]) - T.min(out_data[v, v_2, T.int64(3)], out_data[v, v_2, T.int64(5)])) - T.max(T.Cast("float32", T.float32(0.0)), T.min(T.max(out_data[v, v_1, T.int64(3)], out_data[v, v_1, T.int64(5)]), T.max(out_data[v, v_2, T.int64(3)], out_data[v, v_2, T.int64(5)])) - T.max(T.min(out_data[v, v_1, T.int64(3)], out_data[v, v_1, T.int64(5)]), T.min(out_data[v, v_2, T.int64(3)], out_data[v, v_2, T.int64(5)]))) * T.max(T.Cast("float32", T.float32(0.0)), T.min(T.max(out_data[v, v_1, T.int64(2)], out_data[v, v_1, T.int64(4)]), T.max(out_data[v, v_2, T.int64(2)], out_data[v, v_2, T.int64(4)])) - T.max(T.min(out_data[v, v_1, T.int64(2)], out_data[v, v_1, T.int64(4)]), T.min(out_data[v, v_2, T.int64(2)], out_data[v, v_2, T.int64(4)]))) <= T.Cast("float32", T.float32(0.0)), T.Cast("float32", T.float32(0.0)), T.max(T.Cast("float32", T.float32(0.0)), T.min(T.max(out_data[v, v_1, T.int64(3)], out_data[v, v_1, T.int64(5)]), T.max(out_data[v, v_2, T.int64(3)], out_data[v, v_2, T.int64(5)])) - T.max(T.min(out_data[v, v_1, T.int64(3)], out_data[v, v_1, T.int64(5)]), T.min(out_data[v, v_2, T.int64(3)], out_data[v, v_2, T.int64(5)]))) * T.max(T.Cast("float32", T.float32(0.0)), T.min(T.max(out_data[v, v_1, T.int64(2)], out_data[v, v_1, T.int64(4)]), T.max(out_data[v, v_2, T.int64(2)], out_data[v, v_2, T.int64(4)])) - T.max(T.min(out_data[v, v_1, T.int64(2)], out_data[v, v_1, T.int64(4)]), T.min(out_data[v, v_2, T.int64(2)], out_data[v, v_2, T.int64(4)]))) / ((T.max(out_data[v, v_1, T.int64(2)], out_data[v, v_1, T.int64(4)]) - T.min(out_data[v, v_1, T.int64(2)], out_data[v, v_1, T.int64(4)])) * (T.max(out_data[v, v_1, T.int64(3)], out_data[v, v_1, T.int64(5)]) - T.min(out_data[v, v_1, T.int64(3)], out_data[v, v_1, T.int64(5)])) + (T.max(out_data[v, v_2, T.int64(2)], out_data[v, v_2, T.int64(4)]) - T.min(out_data[v, v_2, T.int64(2)], out_data[v, v_2, T.int64(4)])) * (T.max(out_data[v, v_2, T.int64(3)], out_data[v, v_2, T.int64(5)]) - T.min(out_data[v, v_2, T.int64(3)], out_data[v, v_2, T.int64(5)])) - T.max(T.Cast("float32", T.float32(0.0)), T.min(T.max(out_data[v, v_1, T.int64(3)], out_data[v, v_1, T.int64(5)]), T.max(out_data[v, v_2, T.int64(3)], out_data[v, v_2, T.int64(5)])) - T.max(T.min(out_data[v, v_1, T.int64(3)], out_data[v, v_1, T.int64(5)]), T.min(out_data[v, v_2, T.int64(3)], out_data[v, v_2, T.int64(5)]))) * T.max(T.Cast("float32", T.float32(0.0)), T.min(T.max(out_data[v, v_1, T.int64(2)], out_data[v, v_1, T.int64(4)]), T.max(out_data[v, v_2, T.int64(2)], out_data[v, v_2, T.int64(4)])) - T.max(T.min(out_data[v, v_1, T.int64(2)], out_data[v, v_1, T.int64(4)]), T.min(out_data[v, v_2, T.int64(2)], out_data[v, v_2, T.int64(4)]))))) >= T.float32(0.5):
                                        out_data[v, v_2, T.int64(1)] = T.Cast("float32", T.float32(-1.0))
                                        out_box_indices[v, v_2] = -1
                    else:
                        for v_2 in range(T.int64(6)):
                            out_data[v, v_1, v_2] = T.Cast("float32", T.float32(-1.0))
                        out_box_indices[v, v_1] = -1
                buffer_6 = T.alloc_local((T.int64(1),), "int32")
                buffer_6[T.int64(0)] = 0
                for v_1 in range(T.int64(5)):
                    if T.Cast("int64", out_box_indices[v, v_1]) >= T.int64(0):
                        out_box_indices[v, buffer_6[T.int64(0)]] = indices[v, out_box_indices[v, v_1]]
                        buffer_6[T.int64(0)] = buffer_6[T.int64(0)] + 1
                out_valid_box_count[v, T.int64(0)] = buffer_6[T.int64(0)]
                for v_1 in range(T.int64(5)):
                    if v_1 >= T.Cast("int64", buffer_6[T.int64(0)]):
                        out_box_indices[v, v_1] = -1

    @R.function
    def main(a0: R.Tensor((2, 5, 6), dtype="float32"), a1: R.Tensor((2,), dtype="int32"), a2: R.Tensor((2, 5), dtype="int32")) -> R.Tuple(R.Tensor((2, 5), dtype="int32"), R.Tensor((2, 1), dtype="int32")):
        cls = Module
        gv = R.call_tir(cls.non_max_suppression, (a0, a1, a2), out_ty=[R.Tensor((2, 5), dtype="int32"), R.Tensor((2, 1), dtype="int32")])
        return gv
