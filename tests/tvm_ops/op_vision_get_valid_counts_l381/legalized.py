# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def get_valid_counts(data: T.Buffer((T.int64(2), T.int64(5), T.int64(6)), "float32"), valid_count: T.Buffer((T.int64(2),), "int32"), out_tensor: T.Buffer((T.int64(2), T.int64(5), T.int64(6)), "float32"), out_indices: T.Buffer((T.int64(2), T.int64(5)), "int32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        with T.sblock("get_valid_counts"):
            T.reads()
            T.writes()
            for v in T.parallel(T.int64(2)):
                valid_count[v] = 0
                for v_1 in range(T.int64(5)):
                    if data[v, v_1, T.int64(1)] > T.float32(0.0) and data[v, v_1, T.int64(0)] >= T.float32(0.0):
                        for v_2 in range(T.int64(6)):
                            out_tensor[v, valid_count[v], v_2] = data[v, v_1, v_2]
                        out_indices[v, valid_count[v]] = T.Cast("int32", v_1)
                        valid_count[v] = valid_count[v] + 1
                for v_1 in range(T.int64(5)):
                    if v_1 >= T.Cast("int64", valid_count[v]):
                        for v_2 in range(T.int64(6)):
                            out_tensor[v, v_1, v_2] = T.Cast("float32", T.float32(-1.0))
                        out_indices[v, v_1] = -1

    @R.function
    def main(a0: R.Tensor((2, 5, 6), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="int32"), R.Tensor((2, 5, 6), dtype="float32"), R.Tensor((2, 5), dtype="int32")):
        cls = Module
        gv = R.call_tir(cls.get_valid_counts, (a0,), out_ty=[R.Tensor((2,), dtype="int32"), R.Tensor((2, 5, 6), dtype="float32"), R.Tensor((2, 5), dtype="int32")])
        return gv
