@I.ir_module
class ExpectedBroadcast1D:
    @R.function
    def main(
        data: R.Tensor((32, 64), dtype="float32"),
        indices_1: R.Tensor((10,), dtype="int64"),
    ) -> R.Tuple(R.Tensor((32, 64), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((32,), dtype="int64") = R.arange(
                R.prim_value(0), R.prim_value(32), R.prim_value(1), dtype="int64"
            )
            lv1: R.Tensor((32, 1), dtype="int64") = R.expand_dims(lv, axis=[1])
            lv2: R.Tensor((32, 10), dtype="float32") = R.full(
                R.shape([32, 10]), R.const(1.0, "float32"), dtype="float32"
            )
            lv3: R.Tensor((32, 64), dtype="float32") = R.index_put(
                data, (lv1, indices_1), lv2, accumulate=False
            )
            gv: R.Tuple(R.Tensor((32, 64), dtype="float32")) = (lv3,)
            R.output(gv)
        return gv
